//! SPEC §8 precision kernels (`tests/kernels/precision_*.cajeta`) compiled in every float
//! variant: every module passes spirv-val (bf16s with the `$CAJETA_SPIRV_VAL` that knows
//! SPV_KHR_bfloat16; in CI its absence fails), the fp16p, fp16s, fp16s+fp16a and bf16s
//! disassemblies match goldens (fp32's are golden.rs's), and the capability and instruction
//! rules hold: `Float16` only with fp16 arithmetic, `StorageBuffer16BitAccess` only with
//! 16-bit storage, `BFloat16TypeKHR` only in bf16s, `PackHalf2x16`/`UnpackHalf2x16` only in
//! packed fp16, compare-exchange loops only in packed forms.

use cajeta_runtime::{FloatStorage, PrecisionVariant};
use cajeta_tests::{check_golden, files, frontend, spirv_val, tests_dir, workgroup_array_elements};
use cajetac::diagnostics::render_human;
use cajetac::driver::compile_kernels;
use cajetac::kernel::spirv::{disassemble, SpirvOptions, TargetEnv};

/// Every float variant of §8.
fn variants() -> Vec<PrecisionVariant> {
    use FloatStorage::*;
    [
        (Fp32, false),
        (Fp16Packed, false),
        (Fp16, false),
        (Fp16, true),
        (Fp16Packed, true),
        (Bf16Packed, false),
        (Bf16, false),
        (Bf16Packed, true),
        (Bf16, true),
    ]
    .into_iter()
    .map(|(float_storage, fp16_arithmetic)| PrecisionVariant {
        float_storage,
        fp16_arithmetic,
        ..Default::default()
    })
    // fp16s+fp16u: float16 local memory (the seed's uniform column).
    .chain([PrecisionVariant {
        float_storage: Fp16,
        fp16_uniform: true,
        ..Default::default()
    }])
    .collect()
}

/// spirv-val for bf16s modules: the newer validator, required in CI.
fn validate_bf16(words: &[u32], tag: &str) -> Result<(), String> {
    if std::env::var("CAJETA_SPIRV_VAL").is_err() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err(format!("{tag}: CAJETA_SPIRV_VAL is not set (scripts/deps.sh installs a spirv-val that knows SPV_KHR_bfloat16)"));
        }
        eprintln!("{tag}: not validated, set CAJETA_SPIRV_VAL to a spirv-val >= 2025.1");
        return Ok(());
    }
    spirv_val(words, TargetEnv::Vulkan1_1, tag)
}

#[test]
fn precision_kernels_in_every_variant() {
    let sources: Vec<_> = files("kernels", "cajeta")
        .into_iter()
        .filter(|p| {
            p.file_stem()
                .is_some_and(|s| s.to_string_lossy().starts_with("precision_"))
        })
        .collect();
    assert!(!sources.is_empty(), "no tests/kernels/precision_*.cajeta");
    let golden_dir = tests_dir().join("kernels").join("golden");
    let mut failures = Vec::new();
    let mut modules = 0;
    for path in &sources {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let (map, result) = frontend(path);
        let module = result.unwrap_or_else(|d| panic!("{stem}:\n{}", render_human(&map, &d)));
        for v in variants() {
            let name = v.name();
            let mut options = SpirvOptions::default();
            options.target.precision = v;
            let kernels = match compile_kernels(&module, &options, None) {
                Ok(k) => k,
                Err(d) => {
                    failures.push(format!("{stem} {name}:\n{}", render_human(&map, &d)));
                    continue;
                }
            };
            for (_, k) in &kernels {
                modules += 1;
                let tag = format!("{stem}.{}.{}", k.name, name.replace('+', "_"));
                let valid = if v.float_storage == FloatStorage::Bf16 {
                    validate_bf16(&k.words, &tag)
                } else {
                    spirv_val(&k.words, TargetEnv::Vulkan1_1, &tag)
                };
                if let Err(e) = valid {
                    failures.push(e);
                }
                let text = disassemble(&k.words);
                if let Err(e) = check_rules(&v, &k.name, &text) {
                    failures.push(format!("{tag}: {e}"));
                }
                if k.name == "stage4" {
                    // 4096 `Vector<lfp,4>`: 8 bytes each wherever lfpvec4 is 16-bit.
                    let want = if v.float_storage == FloatStorage::Fp32 && !v.fp16_arithmetic {
                        65536
                    } else {
                        32768
                    };
                    if k.reflection.static_shared_bytes != want {
                        failures.push(format!(
                            "{tag}: {} bytes of shared memory, expected {want}",
                            k.reflection.static_shared_bytes
                        ));
                    }
                }
                if k.reflection.precision_variant != name {
                    failures.push(format!(
                        "{tag}: reflection names {}",
                        k.reflection.precision_variant
                    ));
                }
                if matches!(
                    name.as_str(),
                    "fp16p" | "fp16s" | "fp16s+fp16a" | "fp16s+fp16u" | "bf16s"
                ) {
                    let file = golden_dir.join(format!("{tag}.spvasm"));
                    if let Err(e) = check_golden(&file, &text) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(modules >= 10 * 4, "only {modules} modules");
}

/// The capability and instruction rules of §8 for one module.
fn check_rules(v: &PrecisionVariant, kernel: &str, text: &str) -> Result<(), String> {
    let has = |s: &str| text.contains(s);
    let packed16 = v.float_storage == FloatStorage::Fp16Packed;
    let packed = packed16 || v.float_storage == FloatStorage::Bf16Packed;
    let storage16 = matches!(v.float_storage, FloatStorage::Fp16 | FloatStorage::Bf16);
    let bf16s = v.float_storage == FloatStorage::Bf16;
    // `Vector<lfp,4>` is packed with PackHalf2x16 in fp16s too (the seed's lfpvec4 row).
    let local_packed16 =
        v.float_storage == FloatStorage::Fp16 && !v.fp16_arithmetic && !v.fp16_uniform;
    let rules = [
        // fp16u keeps float16 in workgroup memory, which needs the Float16 capability.
        ("OpCapability Float16", v.fp16_arithmetic || v.fp16_uniform),
        ("OpCapability StorageBuffer16BitAccess", storage16),
        ("OpCapability BFloat16TypeKHR", bf16s),
        ("SPV_KHR_bfloat16", bf16s),
        ("PackHalf2x16", packed16 || local_packed16),
        ("OpAtomicCompareExchange", packed),
    ];
    for (needle, allowed) in rules {
        if has(needle) && !allowed {
            return Err(format!("`{needle}` in {}", v.name()));
        }
    }

    // The arithmetic kernels need what their variant stands for.
    if kernel.starts_with("axpb") {
        let needed = [
            ("UnpackHalf2x16", packed16),
            ("PackHalf2x16", packed16),
            ("OpCapability Float16", v.fp16_arithmetic),
            ("OpCapability StorageBuffer16BitAccess", storage16),
            ("OpCapability BFloat16TypeKHR", bf16s),
            ("OpFConvert", storage16 || v.fp16_arithmetic),
        ];
        for (needle, want) in needed {
            if has(needle) != want {
                return Err(format!(
                    "`{needle}` present: {}, expected {want} in {}",
                    has(needle),
                    v.name()
                ));
            }
        }
        // Unpacked halves narrow to float16 as they are: they are float16 values already, so
        // the integer rounding that keeps other narrowings exact on NVIDIA is not spent on
        // every element (docs/backends.md, "Driver problems").
        let exact = cajeta_tests::half_narrowings(text)
            .iter()
            .filter(|(_, k)| *k == cajeta_tests::HalfNarrowing::Exact)
            .count();
        if (exact > 0) != (packed16 && v.fp16_arithmetic) {
            return Err(format!(
                "{exact} narrowing(s) of unpacked halves in {}",
                v.name()
            ));
        }
        // Only the scalar kernel stores single packed elements.
        let cas = kernel == "axpb1" && packed;
        if has("OpAtomicCompareExchange") != cas {
            return Err(format!(
                "compare-exchange present: {}, expected {cas}",
                !cas
            ));
        }
    }
    if kernel == "stage4" {
        check_local4(v, text)?;
    }
    if kernel == "nd" {
        // `shared lfp[8][4][2]`: one row-major array of 64 lfp.
        let lfp = match (v.float_storage, v.fp16_arithmetic || v.fp16_uniform) {
            (FloatStorage::Bf16, _) => "bfloat16",
            (_, true) => "half",
            _ => "float",
        };
        let got = workgroup_array_elements(text);
        if got != [("64".to_string(), lfp.to_string())] {
            return Err(format!(
                "lfp[8][4][2] in {}: {got:?}, expected [64 x {lfp}]",
                v.name()
            ));
        }
    }
    if kernel == "copy" && (has("PackHalf2x16") || has("OpFConvert") || has("OpBitcast")) {
        return Err("a copy converts".into());
    }
    Ok(())
}

/// The seed's `lfpvec4` row read back from the module: the element type of the 4096-long
/// workgroup array of `stage4` in variant `v`.
fn check_local4(v: &PrecisionVariant, text: &str) -> Result<(), String> {
    let want = match (v.float_storage, v.fp16_arithmetic || v.fp16_uniform) {
        (FloatStorage::Fp32, false) => "v4float",
        (FloatStorage::Fp16Packed | FloatStorage::Fp16 | FloatStorage::Bf16Packed, false) => {
            "v2uint"
        }
        (FloatStorage::Bf16, _) => "v4bfloat16",
        (_, true) => "v4half",
    };
    let got = workgroup_array_elements(text);
    if got.len() != 1 || got[0] != ("4096".to_string(), want.to_string()) {
        return Err(format!(
            "lfpvec4 in {}: workgroup arrays {got:?}, expected [4096 x {want}]",
            v.name()
        ));
    }
    Ok(())
}
