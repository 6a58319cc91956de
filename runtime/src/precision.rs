//! Precision options and the variant they resolve to on a device (SPEC §8, after ncnn's
//! `Option::use_fp16_*` switches).
//!
//! [`PrecisionOptions`] is what a user asks for (CLI flags of `build`/`run`, or the runtime's
//! options); [`PrecisionVariant`] is what a kernel is compiled as: the options intersected with
//! the device's features, with the fallback order of §8 (fp16s → fp16p → fp32, bf16s → bf16p →
//! fp32, int8s → int8p, int16s → int16p). Packed forms need nothing beyond core Vulkan 1.1, so
//! they are always available. The compiler and the runtime share these types so that the
//! reflection's `precision_variant` and the host conversions agree by construction.

use serde::{Deserialize, Serialize};

/// What the user asks for. All off means fp32 (and packed int8/int16 for the integer families,
/// which have no 32-bit form).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct PrecisionOptions {
    /// Two fp16 per `uint` (`packHalf2x16`) for `sfp` storage.
    pub fp16_packed: bool,
    /// Native `float16` storage (needs `storageBuffer16BitAccess`).
    pub fp16_storage: bool,
    /// `afp` arithmetic in `float16` (needs `shaderFloat16`).
    pub fp16_arithmetic: bool,
    /// Two bf16 per `uint` for `sfp` storage.
    pub bf16_packed: bool,
    /// Native `bfloat16` storage (needs `shaderBFloat16Type` and `storageBuffer16BitAccess`).
    pub bf16_storage: bool,
    /// Four int8 per `int` for `sint8` storage (the default int8 form).
    pub int8_packed: bool,
    /// Native `int8` storage (needs `storageBuffer8BitAccess`).
    pub int8_storage: bool,
    /// `aint8` arithmetic in `int8` (needs `shaderInt8`).
    pub int8_arithmetic: bool,
    /// Two int16 per `int` for `sint16` storage (the default int16 form).
    pub int16_packed: bool,
    /// Native `int16` storage (needs `storageBuffer16BitAccess` and `shaderInt16`).
    pub int16_storage: bool,
    /// The seed's fp16 "uniform" form: with fp16 storage, `lfp` (shared/local memory) is
    /// `float16` too (`Vector<lfp,4>` a `Vector<float16,4>`). Needs fp16 storage to resolve
    /// and `shaderFloat16` (SPIR-V allows 16-bit floats in workgroup memory only with the
    /// `Float16` capability); otherwise `lfp` stays float32 (packed four-wide).
    pub fp16_uniform: bool,
    /// int8 in uniform/push-constant data (needs `storagePushConstant8`).
    pub int8_uniform: bool,
    /// Allow `lfp` shared-memory staging in kernels that choose it via `Option.shaderLocalMemory`.
    pub shader_local_memory: bool,
}

/// How `sfp` (and `Vector<sfp,N>`) is stored in a buffer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FloatStorage {
    /// `float32`.
    #[default]
    Fp32,
    /// Two IEEE halves per `uint32` (low half first).
    Fp16Packed,
    /// Native `float16`.
    Fp16,
    /// Two bfloat16 per `uint32` (low half first).
    Bf16Packed,
    /// Native `bfloat16` (`SPV_KHR_bfloat16`).
    Bf16,
}

/// How `sint8` / `sint16` are stored in a buffer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntStorage {
    /// Lanes packed in `int32` words (4 int8 or 2 int16 per word, low lane first).
    #[default]
    Packed,
    /// Native 8- or 16-bit integers.
    Native,
}

/// The form a kernel is compiled in: what `sfp`/`afp`/`lfp` and the integer families become.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PrecisionVariant {
    /// `sfp` storage form.
    pub float_storage: FloatStorage,
    /// `afp` is `float16` (else `float32`).
    pub fp16_arithmetic: bool,
    /// `sint8` storage form.
    pub int8_storage: IntStorage,
    /// `aint8` is `int8` (else `int32`).
    pub int8_arithmetic: bool,
    /// `sint16`/`lint16` storage form.
    pub int16_storage: IntStorage,
    /// `aint16` is `int16` (the device has `shaderInt16`), else `int32`.
    pub int16_arithmetic: bool,
    /// `lfp` is `float16` in fp16 storage mode (the seed's fp16s+fp16u column).
    pub fp16_uniform: bool,
    /// int8 push constants allowed.
    pub int8_uniform: bool,
    /// `Option.shaderLocalMemory`.
    pub shader_local_memory: bool,
    /// `Option.int8Packed`: int8 packing was asked for (`int8_packed`, or `int8_storage`,
    /// which implies it as in ncnn). The representation is packed whenever not native.
    #[serde(default)]
    pub int8_packed: bool,
    /// `Option.int16Packed`, likewise (`int16_packed` or `int16_storage`).
    #[serde(default)]
    pub int16_packed: bool,
}

impl PrecisionOptions {
    /// The variant these options give on a device with `features` (Vulkan feature names, as
    /// in a device profile). Options the device cannot honour fall back per SPEC §8; the
    /// second value lists, in words, each fallback that happened (for a warning).
    pub fn resolve(&self, features: &[String]) -> (PrecisionVariant, Vec<String>) {
        let has = |f: &str| features.iter().any(|x| x == f);
        let mut notes = Vec::new();
        let mut fell_back = |what: &str, need: &str, to: &str| {
            notes.push(format!(
                "{what} needs `{need}`, which the device lacks; using {to}"
            ))
        };
        let storage16 = has("storageBuffer16BitAccess");
        // Priority (docs/language.md, "Precision options"): native storage beats packing,
        // and bf16 beats fp16 at the same level, so fp16 storage asked together with bf16
        // packing gives fp16s where the device has it.
        let bf16s = self.bf16_storage && storage16 && has("shaderBFloat16Type");
        let fp16s = self.fp16_storage && storage16;
        let float_storage = if bf16s {
            FloatStorage::Bf16
        } else if fp16s {
            FloatStorage::Fp16
        } else if self.bf16_storage || self.bf16_packed {
            FloatStorage::Bf16Packed
        } else if self.fp16_storage || self.fp16_packed {
            FloatStorage::Fp16Packed
        } else {
            FloatStorage::Fp32
        };
        let storage_name = PrecisionVariant {
            float_storage,
            ..Default::default()
        }
        .name();
        if self.bf16_storage && !bf16s {
            let need = if storage16 {
                "shaderBFloat16Type"
            } else {
                "storageBuffer16BitAccess"
            };
            fell_back("bf16 storage", need, &storage_name);
        }
        if self.fp16_storage && !fp16s && !storage16 {
            fell_back("fp16 storage", "storageBuffer16BitAccess", &storage_name);
        }
        let fp16_arithmetic = self.fp16_arithmetic && has("shaderFloat16");
        if self.fp16_arithmetic && !fp16_arithmetic {
            fell_back("fp16 arithmetic", "shaderFloat16", "float32 arithmetic");
        }
        let int8_storage = if self.int8_storage && has("storageBuffer8BitAccess") {
            IntStorage::Native
        } else {
            if self.int8_storage {
                fell_back("int8 storage", "storageBuffer8BitAccess", "int8p");
            }
            IntStorage::Packed
        };
        let int8_arithmetic = self.int8_arithmetic && has("shaderInt8");
        if self.int8_arithmetic && !int8_arithmetic {
            fell_back("int8 arithmetic", "shaderInt8", "int32 arithmetic");
        }
        let int16_arithmetic = has("shaderInt16");
        let int16_storage = if self.int16_storage && storage16 && int16_arithmetic {
            IntStorage::Native
        } else {
            if self.int16_storage {
                let need = if storage16 {
                    "shaderInt16"
                } else {
                    "storageBuffer16BitAccess"
                };
                fell_back("int16 storage", need, "int16p");
            }
            IntStorage::Packed
        };
        let fp16_uniform =
            self.fp16_uniform && float_storage == FloatStorage::Fp16 && has("shaderFloat16");
        let mut storage_note = None;
        if self.fp16_uniform && !fp16_uniform {
            if float_storage == FloatStorage::Fp16 {
                fell_back("fp16 uniform (float16 lfp)", "shaderFloat16", "float32 lfp");
            } else {
                // Not the device's lack: the storage form resolved to something other than
                // fp16s (`--fp16-storage` not given, or another form took priority).
                storage_note = Some(format!(
                    "fp16 uniform (float16 lfp) needs the fp16s storage form, but `sfp` is {}; using float32 lfp",
                    PrecisionVariant {
                        float_storage,
                        ..Default::default()
                    }
                    .name()
                ));
            }
        }
        let int8_uniform = self.int8_uniform && has("storagePushConstant8");
        if self.int8_uniform && !int8_uniform {
            fell_back("int8 uniform", "storagePushConstant8", "int32");
        }
        notes.extend(storage_note);
        if fp16s && bf16s {
            notes.push("fp16 and bf16 storage both asked for; bf16s takes priority".to_string());
        }
        let variant = PrecisionVariant {
            float_storage,
            fp16_arithmetic,
            int8_storage,
            int8_arithmetic,
            int16_storage,
            int16_arithmetic,
            fp16_uniform,
            int8_uniform,
            shader_local_memory: self.shader_local_memory,
            int8_packed: self.int8_packed || self.int8_storage,
            int16_packed: self.int16_packed || self.int16_storage,
        };
        (variant, notes)
    }
}

impl PrecisionVariant {
    /// The name the reflection records: the float mode of §8 (`fp32`, `fp16p`, `fp16s`,
    /// `fp16s+fp16a`, `fp16p+fp16a`, `bf16p`, `bf16s`, or `fp32+fp16a`), `+fp16u` when `lfp`
    /// is float16 through the uniform option, then `+int8s`,
    /// `+int8a`, `+int16s` when those are on. Packed integer forms are the default and unnamed.
    pub fn name(&self) -> String {
        let mut s = match self.float_storage {
            FloatStorage::Fp32 => "fp32",
            FloatStorage::Fp16Packed => "fp16p",
            FloatStorage::Fp16 => "fp16s",
            FloatStorage::Bf16Packed => "bf16p",
            FloatStorage::Bf16 => "bf16s",
        }
        .to_string();
        if self.fp16_arithmetic {
            s.push_str("+fp16a");
        }
        if self.fp16_uniform {
            s.push_str("+fp16u");
        }
        if self.int8_storage == IntStorage::Native {
            s.push_str("+int8s");
        }
        if self.int8_arithmetic {
            s.push_str("+int8a");
        }
        if self.int16_storage == IntStorage::Native {
            s.push_str("+int16s");
        }
        s
    }

    /// Bytes one `sfp` element takes in a buffer (2 in every 16-bit form, packed included).
    pub fn sfp_bytes(&self) -> usize {
        match self.float_storage {
            FloatStorage::Fp32 => 4,
            _ => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn no_options_is_fp32() {
        let (v, notes) = PrecisionOptions::default().resolve(&feats(&["shaderFloat16"]));
        assert_eq!(v.name(), "fp32");
        assert!(notes.is_empty());
    }

    #[test]
    fn fp16_storage_falls_back_to_packed_without_16bit_access() {
        let opts = PrecisionOptions {
            fp16_storage: true,
            fp16_arithmetic: true,
            ..Default::default()
        };
        let (v, notes) = opts.resolve(&[]);
        assert_eq!(v.float_storage, FloatStorage::Fp16Packed);
        assert!(!v.fp16_arithmetic);
        assert_eq!(v.name(), "fp16p");
        assert_eq!(notes.len(), 2, "{notes:?}");
        let (v, notes) = opts.resolve(&feats(&["storageBuffer16BitAccess", "shaderFloat16"]));
        assert_eq!(v.name(), "fp16s+fp16a");
        assert!(notes.is_empty());
    }

    #[test]
    fn bf16_storage_needs_the_bfloat16_type() {
        let opts = PrecisionOptions {
            bf16_storage: true,
            ..Default::default()
        };
        assert_eq!(
            opts.resolve(&feats(&["storageBuffer16BitAccess"])).0.name(),
            "bf16p"
        );
        assert_eq!(
            opts.resolve(&feats(&["storageBuffer16BitAccess", "shaderBFloat16Type"]))
                .0
                .name(),
            "bf16s"
        );
    }

    #[test]
    fn fp16_uniform_needs_fp16_storage_and_shader_float16() {
        let opts = PrecisionOptions {
            fp16_storage: true,
            fp16_uniform: true,
            ..Default::default()
        };
        let (v, notes) = opts.resolve(&feats(&["storageBuffer16BitAccess", "shaderFloat16"]));
        assert_eq!(v.name(), "fp16s+fp16u");
        assert!(notes.is_empty(), "{notes:?}");
        let (v, notes) = opts.resolve(&feats(&["storageBuffer16BitAccess"]));
        assert_eq!(v.name(), "fp16s");
        assert_eq!(notes.len(), 1, "{notes:?}");
        // Without fp16 storage there is no uniform form (fp16p keeps float32 lfp).
        let (v, notes) = opts.resolve(&feats(&["shaderFloat16"]));
        assert_eq!(v.name(), "fp16p");
        assert_eq!(notes.len(), 2, "{notes:?}");
    }

    #[test]
    fn native_storage_beats_packing_and_bf16_beats_fp16() {
        let opts = PrecisionOptions {
            fp16_storage: true,
            bf16_packed: true,
            ..Default::default()
        };
        let (v, notes) = opts.resolve(&feats(&["storageBuffer16BitAccess"]));
        assert_eq!(v.name(), "fp16s");
        assert!(notes.is_empty(), "{notes:?}");
        // Without 16-bit storage the packed bf16 form asked for wins over fp16p.
        let (v, notes) = opts.resolve(&[]);
        assert_eq!(v.name(), "bf16p");
        assert_eq!(notes.len(), 1, "{notes:?}");
        let both = PrecisionOptions {
            fp16_storage: true,
            bf16_storage: true,
            ..Default::default()
        };
        let all = feats(&["storageBuffer16BitAccess", "shaderBFloat16Type"]);
        assert_eq!(both.resolve(&all).0.name(), "bf16s");
        // bf16s unavailable: fp16s, with the fallback said.
        let (v, notes) = both.resolve(&feats(&["storageBuffer16BitAccess"]));
        assert_eq!(v.name(), "fp16s");
        assert!(notes[0].contains("using fp16s"), "{notes:?}");
    }

    #[test]
    fn integer_packing_is_only_asked_for_with_its_flags() {
        let (v, _) = PrecisionOptions::default().resolve(&[]);
        assert!(!v.int8_packed && !v.int16_packed);
        let opts = PrecisionOptions {
            int8_storage: true,
            int16_packed: true,
            ..Default::default()
        };
        let (v, _) = opts.resolve(&[]);
        assert!(v.int8_packed && v.int16_packed);
    }

    #[test]
    fn integer_families_default_to_packed() {
        let opts = PrecisionOptions {
            int8_storage: true,
            int16_storage: true,
            ..Default::default()
        };
        let (v, _) = opts.resolve(&feats(&["storageBuffer8BitAccess"]));
        assert_eq!(v.int8_storage, IntStorage::Native);
        assert_eq!(v.int16_storage, IntStorage::Packed);
        assert_eq!(v.name(), "fp32+int8s");
    }

    /// fp16 uniform without fp16s says why: the storage form, not a feature the device lacks
    /// (the warning named "`fp16 storage (`--fp16-storage` …`)`" as a missing feature).
    #[test]
    fn fp16_uniform_without_fp16_storage_names_the_storage_form() {
        let all = feats(&["storageBuffer16BitAccess", "shaderFloat16"]);
        let o = PrecisionOptions {
            fp16_uniform: true,
            ..Default::default()
        };
        let (v, notes) = o.resolve(&all);
        assert!(!v.fp16_uniform);
        assert_eq!(
            notes,
            ["fp16 uniform (float16 lfp) needs the fp16s storage form, but `sfp` is fp32; using float32 lfp"]
        );
        let with_storage = PrecisionOptions {
            fp16_storage: true,
            ..o
        };
        let (v, notes) = with_storage.resolve(&all);
        assert!(v.fp16_uniform && notes.is_empty(), "{notes:?}");
    }
}
