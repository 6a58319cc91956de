//! The device the editor compiles for: a device profile chosen in the client's settings
//! (`initializationOptions.deviceProfile`: the path of a `cajetac devices --json` profile,
//! or `auto` for this machine's device; `initializationOptions.precision`: the precision
//! options, as the runtime's `PrecisionOptions` fields, e.g. `{"fp16_storage": true}`).
//! With one, each analysis also compiles the kernels for that device and reports, as you
//! type, a kernel that needs what the device lacks (E0030, as `cajetac build
//! --device-profile` does), and a kernel's hover says what each precision type becomes on
//! that device and which optional features the kernel uses.

use crate::diagnostics::Diagnostic;
use crate::driver;
use crate::ir;
use crate::kernel::spirv::{CompiledKernel, SpirvOptions};
use crate::specialize::Target;
use cajeta_runtime::{DeviceProfile, FloatStorage, IntStorage, PrecisionOptions};
use std::fmt::Write as _;

/// A device profile and the options kernels are compiled with for it.
pub struct DeviceTarget {
    /// The profile.
    pub profile: DeviceProfile,
    /// SPIR-V options for it: its features, its precision variant.
    pub options: SpirvOptions,
}

impl DeviceTarget {
    /// The target the client's `initializationOptions` choose; `None` without one (an
    /// unreadable profile is said on stderr, the server's log).
    pub fn from_init(init: Option<&serde_json::Value>) -> Option<DeviceTarget> {
        let init = init?;
        let source = init.get("deviceProfile")?.as_str()?;
        let profile = if source == "auto" {
            DeviceProfile::auto().map_err(|e| e.to_string())
        } else {
            std::fs::read_to_string(source)
                .map_err(|e| format!("cannot read `{source}`: {e}"))
                .and_then(|text| DeviceProfile::from_json(&text))
        };
        let profile = match profile {
            Ok(p) => p,
            Err(e) => {
                eprintln!("cajetac lsp: device profile: {e}");
                return None;
            }
        };
        let precision: PrecisionOptions = init
            .get("precision")
            .and_then(|p| serde_json::from_value(p.clone()).ok())
            .unwrap_or_default();
        Some(DeviceTarget::new(profile, precision))
    }

    /// The target of `profile` with the precision options `precision`.
    pub fn new(profile: DeviceProfile, precision: PrecisionOptions) -> DeviceTarget {
        let (variant, _fallbacks) = precision.resolve(&profile.features);
        let options = SpirvOptions {
            device_features: profile.features.clone(),
            target: Target {
                precision: variant,
                profile: Some(profile.clone()),
            },
            ..SpirvOptions::default()
        };
        DeviceTarget { profile, options }
    }

    /// Every kernel of `module` compiled for the device, and the diagnostics of a kernel
    /// that does not compile for it or needs what it lacks.
    pub fn check(
        &self,
        module: &ir::Module,
    ) -> (Vec<(ir::FunctionId, CompiledKernel)>, Vec<Diagnostic>) {
        match driver::compile_kernel_modules(module, &self.options, None) {
            Ok(kernels) => {
                let diags = driver::check_profile(module, &kernels, &self.profile).err();
                (kernels, diags.unwrap_or_default())
            }
            Err(diags) => (Vec::new(), diags),
        }
    }

    /// The hover's paragraph on the device: what the precision types become and which of
    /// the device's optional features `kernel` uses.
    pub fn describe(&self, kernel: Option<&CompiledKernel>) -> String {
        let v = &self.options.target.precision;
        let sfp = match v.float_storage {
            FloatStorage::Fp32 => "float32",
            FloatStorage::Fp16Packed => "two float16 per uint32 (packed)",
            FloatStorage::Fp16 => "float16 storage",
            FloatStorage::Bf16Packed => "two bfloat16 per uint32 (packed)",
            FloatStorage::Bf16 => "bfloat16 storage",
        };
        let int = |s: IntStorage, bits: u32| match s {
            IntStorage::Packed => format!("packed in int32 words ({} per word)", 32 / bits),
            IntStorage::Native => format!("native int{bits} storage"),
        };
        let arith = |native: bool, bits: u32| {
            if native {
                format!("int{bits}")
            } else {
                "int32".to_string()
            }
        };
        let mut s = format!("**On `{}`**\n\n", self.profile.name);
        let _ = writeln!(s, "| type | becomes |\n|---|---|");
        let _ = writeln!(s, "| `sfp` | {sfp} |");
        let afp = if v.fp16_arithmetic {
            "float16"
        } else {
            "float32"
        };
        let _ = writeln!(s, "| `afp` | {afp} |");
        let lfp = if v.fp16_uniform { "float16" } else { "float32" };
        let _ = writeln!(s, "| `lfp` | {lfp} |");
        let _ = writeln!(s, "| `sint8` | {} |", int(v.int8_storage, 8));
        let _ = writeln!(s, "| `aint8` | {} |", arith(v.int8_arithmetic, 8));
        let _ = writeln!(s, "| `sint16` | {} |", int(v.int16_storage, 16));
        let _ = writeln!(s, "| `aint16` | {} |", arith(v.int16_arithmetic, 16));
        if let Some(k) = kernel {
            let used = &k.reflection.vulkan_features;
            let _ = write!(
                s,
                "\nOptional features this kernel uses: {}",
                if used.is_empty() {
                    "none".to_string()
                } else {
                    used.iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(features: &[&str]) -> DeviceProfile {
        let text = include_str!("../../../tests/profiles/lavapipe.json");
        let mut p = DeviceProfile::from_json(text).expect("the lavapipe profile");
        p.name = "test device".into();
        p.features = features.iter().map(|f| f.to_string()).collect();
        p
    }

    #[test]
    fn the_precision_table_follows_the_device_and_the_options() {
        let wanted = PrecisionOptions {
            fp16_storage: true,
            ..PrecisionOptions::default()
        };
        let with = DeviceTarget::new(profile(&["storageBuffer16BitAccess"]), wanted);
        assert!(with.describe(None).contains("| `sfp` | float16 storage |"));
        // Without 16-bit storage, fp16 storage falls back to two halves per word (SPEC §8).
        let without = DeviceTarget::new(profile(&[]), wanted);
        let text = without.describe(None);
        assert!(
            text.contains("| `sfp` | two float16 per uint32 (packed) |"),
            "{text}"
        );
        assert!(without.describe(None).starts_with("**On `test device`**"));
    }
}
