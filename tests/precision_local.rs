//! The seed's `lfpvec4` and explicit helpers on the device: `tests/precision_local/*.cajeta`
//! (`stage32k` stages 4096 `Vector<lfp,4>` per workgroup through shared memory; `helpers`
//! runs `cp2`, `lfp2afpvec4`, `i16sm4` into `lint16vec4` shared memory … with exact checks). Packed (fp16p, fp16s, bf16p) that is
//! 32 KiB, which lavapipe's `maxComputeSharedMemorySize` admits (as is fp16s+fp16u's
//! `Vector<float16,4>`); the program checks every value exactly against the host and returns
//! 777. fp16p must run everywhere; the others run where they resolve. The validation run proves the 32 KiB is accepted by the layer too
//! (VUID-RuntimeSpirv-Workgroup-06530 would fire for the unpacked 64 KiB).

use cajeta_runtime::{Context, PrecisionOptions};
use cajeta_tests::{device_context, files, run_file_on};
use cajetac::kernel::spirv::SpirvOptions;

/// The packed-local modes and the options asking for them.
fn modes() -> Vec<(&'static str, PrecisionOptions)> {
    let o = PrecisionOptions::default;
    vec![
        (
            "fp16p",
            PrecisionOptions {
                fp16_packed: true,
                ..o()
            },
        ),
        (
            "fp16s",
            PrecisionOptions {
                fp16_storage: true,
                ..o()
            },
        ),
        (
            "fp16s+fp16u",
            PrecisionOptions {
                fp16_storage: true,
                fp16_uniform: true,
                ..o()
            },
        ),
        (
            "bf16p",
            PrecisionOptions {
                bf16_packed: true,
                ..o()
            },
        ),
    ]
}

fn check(ctx: &Context) -> Vec<&'static str> {
    let features = &ctx.device_info().features;
    let programs = files("precision_local", "cajeta");
    assert!(!programs.is_empty(), "tests/precision_local/ is empty");
    let mut ran = Vec::new();
    let mut failures = Vec::new();
    for path in &programs {
        for (name, options) in modes() {
            let (variant, _) = options.resolve(features);
            if variant.name() != name {
                eprintln!("{}: device lacks {name}", path.display());
                continue;
            }
            let mut spirv = SpirvOptions {
                device_features: features.clone(),
                ..SpirvOptions::default()
            };
            spirv.target.precision = variant;
            let (printed, value) = run_file_on(ctx, path, &spirv);
            match value {
                Ok(v) if v == "777" => ran.push(name),
                other => failures.push(format!(
                    "{} {name}: {other:?}; printed:\n{printed}",
                    path.display()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    ran
}

#[test]
fn packed_local_vectors_fit_32k_of_shared_memory() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let ran = check(&ctx);
    assert!(ran.contains(&"fp16p"), "fp16p did not run: {ran:?}");
}

#[test]
fn packed_local_vectors_are_clean_under_validation() {
    let Some(ctx) = device_context(true) else {
        return;
    };
    let ran = check(&ctx);
    assert!(ran.contains(&"fp16p"), "fp16p did not run: {ran:?}");
    let messages = ctx.validation_messages();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}
