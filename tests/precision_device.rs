//! SPEC §8 precision variants on the device: `tests/precision/*.cajeta` run once per variant
//! the device supports (fp32, fp16p, fp16s, fp16s+fp16a, fp16s+fp16u, fp16p+fp16a, bf16p, bf16p+fp16a, and
//! bf16s where the device has `shaderBFloat16Type`). Each program checks its copies and packed lanes
//! itself and returns 777; the values it prints must match the fp32 run within the tolerance
//! of the variant (docs/language.md, "Precision types").

use cajeta_runtime::{Context, FloatStorage, PrecisionOptions};
use cajeta_tests::{device_context, files};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver::{self, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::SpirvOptions;

/// A variant, the options that ask for it and its tolerance relative to `max(1, |fp32|)`.
struct Mode {
    name: &'static str,
    options: PrecisionOptions,
    tolerance: f64,
}

fn modes() -> Vec<Mode> {
    let o = PrecisionOptions::default;
    let fp16 = 2f64.powi(-9);
    let fp16a = 2f64.powi(-8);
    let bf16 = 2f64.powi(-6);
    vec![
        Mode {
            name: "fp32",
            options: o(),
            tolerance: 0.0,
        },
        Mode {
            name: "fp16p",
            options: PrecisionOptions {
                fp16_packed: true,
                ..o()
            },
            tolerance: fp16,
        },
        Mode {
            name: "fp16s",
            options: PrecisionOptions {
                fp16_storage: true,
                ..o()
            },
            tolerance: fp16,
        },
        Mode {
            name: "fp16s+fp16a",
            options: PrecisionOptions {
                fp16_storage: true,
                fp16_arithmetic: true,
                ..o()
            },
            tolerance: fp16a,
        },
        Mode {
            name: "fp16s+fp16u",
            options: PrecisionOptions {
                fp16_storage: true,
                fp16_uniform: true,
                ..o()
            },
            tolerance: fp16,
        },
        Mode {
            name: "fp16p+fp16a",
            options: PrecisionOptions {
                fp16_packed: true,
                fp16_arithmetic: true,
                ..o()
            },
            tolerance: fp16a,
        },
        Mode {
            name: "bf16p",
            options: PrecisionOptions {
                bf16_packed: true,
                ..o()
            },
            tolerance: bf16,
        },
        Mode {
            name: "bf16s",
            options: PrecisionOptions {
                bf16_storage: true,
                ..o()
            },
            tolerance: bf16,
        },
        Mode {
            name: "bf16p+fp16a",
            options: PrecisionOptions {
                bf16_packed: true,
                fp16_arithmetic: true,
                ..o()
            },
            tolerance: bf16,
        },
    ]
}

/// Runs `path` compiled as `mode` on `ctx`; the printed values.
fn run(ctx: &Context, path: &std::path::Path, mode: &Mode) -> Result<Vec<f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (variant, _) = mode.options.resolve(&ctx.device_info().features);
    let mut options = SpirvOptions {
        device_features: ctx.device_info().features.clone(),
        ..SpirvOptions::default()
    };
    options.target.precision = variant;
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let files = [(path.display().to_string(), text)];
    let result = driver::run_program(&mut sources, &files, &options, &[], &mut io);
    let printed = String::from_utf8_lossy(&out).into_owned();
    match result {
        Ok(HostOutcome::Returned(v)) if format!("{v}") == "777" => {}
        Ok(other) => return Err(format!("returned {other:?}; printed:\n{printed}")),
        Err(RunError::Compile(d)) => return Err(render_human(&sources, &d)),
        Err(RunError::NoEntryPoint | RunError::NotNative(_)) => return Err("no entry point".into()),
        Err(RunError::Runtime(e)) => {
            return Err(format!("{}\nprinted:\n{printed}", e.render(&sources)))
        }
    }
    printed
        .split_whitespace()
        .map(|w| w.parse::<f64>().map_err(|e| format!("`{w}`: {e}")))
        .collect()
}

#[test]
fn precision_variants_match_fp32_within_tolerance() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    check_all(&ctx, false);
}

/// The same runs under the Khronos validation layer (synchronization validation on): the
/// modules of every variant are valid for the driver and the sub-word stores race-free as
/// far as it can tell.
#[test]
fn precision_variants_are_clean_under_validation() {
    let Some(ctx) = device_context(true) else {
        return;
    };
    // A layer older than VK_KHR_shader_bfloat16 (Debian's 1.3.239) says so at device creation
    // and then rejects every bf16s module as invalid SPIR-V it cannot parse: bf16s is checked
    // by the run without validation there, and here only where the layer knows it.
    let layer_predates_bf16 = ctx
        .validation_notices()
        .iter()
        .any(|n| n.contains("VK_KHR_shader_bfloat16"));
    check_all(&ctx, layer_predates_bf16);
    let messages = ctx.validation_messages();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

/// Runs every program in every supported variant against its fp32 run (bf16s too unless
/// `skip_bf16s`).
fn check_all(ctx: &Context, skip_bf16s: bool) {
    let features = &ctx.device_info().features;
    let has = |f: &str| features.iter().any(|x| x == f);
    let programs = files("precision", "cajeta");
    assert!(!programs.is_empty(), "tests/precision/ is empty");
    let mut failures = Vec::new();
    let mut ran = Vec::new();
    for path in &programs {
        let reference = match run(ctx, path, &modes()[0]) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{} fp32: {e}", path.display()));
                continue;
            }
        };
        assert!(
            reference.len() >= 100,
            "{} printed too little",
            path.display()
        );
        for mode in modes().iter().skip(1) {
            let (variant, _) = mode.options.resolve(features);
            if variant.name() != mode.name {
                eprintln!(
                    "{}: device lacks {} (would be {})",
                    path.display(),
                    mode.name,
                    variant.name()
                );
                continue;
            }
            if skip_bf16s && variant.float_storage == FloatStorage::Bf16 {
                eprintln!(
                    "notice: {} {}: the validation layer predates VK_KHR_shader_bfloat16; not run under it",
                    path.display(),
                    mode.name
                );
                continue;
            }
            ran.push(mode.name);
            let got = match run(ctx, path, mode) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{} {}: {e}", path.display(), mode.name));
                    continue;
                }
            };
            if got.len() != reference.len() {
                failures.push(format!(
                    "{} {}: {} values, fp32 printed {}",
                    path.display(),
                    mode.name,
                    got.len(),
                    reference.len()
                ));
                continue;
            }
            let worst = got
                .iter()
                .zip(&reference)
                .map(|(g, r)| (g - r).abs() / r.abs().max(1.0))
                .fold(0.0, f64::max);
            eprintln!(
                "{} {}: worst relative error {worst:.2e} (tolerance {:.2e})",
                path.display(),
                mode.name,
                mode.tolerance
            );
            if worst > mode.tolerance {
                failures.push(format!(
                    "{} {}: error {worst:e} above {:e}",
                    path.display(),
                    mode.name,
                    mode.tolerance
                ));
            }
            // A 16-bit variant that printed exactly the fp32 values converted nothing.
            if worst == 0.0 {
                failures.push(format!(
                    "{} {}: identical to fp32",
                    path.display(),
                    mode.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Packed forms need nothing optional; the native ones run where the device has them.
    for (mode, needed) in [
        ("fp16p", true),
        ("bf16p", true),
        ("fp16s", has("storageBuffer16BitAccess")),
        (
            "fp16s+fp16a",
            has("storageBuffer16BitAccess") && has("shaderFloat16"),
        ),
        (
            "fp16s+fp16u",
            has("storageBuffer16BitAccess") && has("shaderFloat16"),
        ),
        (
            "bf16s",
            has("storageBuffer16BitAccess") && has("shaderBFloat16Type") && !skip_bf16s,
        ),
    ] {
        assert_eq!(
            ran.contains(&mode),
            needed,
            "{mode} ran: {}, expected {needed}",
            ran.contains(&mode)
        );
    }
}
