//! The campaigns' saved findings replayed: every reproducer in `tests/fuzz_findings/` passes
//! the compile oracles, and the wrong-result programs of `tests/fuzz_findings/wrong_results/`
//! return 0 mismatches on the device where the defect was ours (docs/fuzzing.md lists each
//! one's cause). Split from `fuzz_campaign.rs`, which runs and checks the generator itself.

use cajeta_tests::fuzz::{
    self,
    oracle::{self, Validator},
};
use cajeta_tests::{device_context, files, run_file_on, tests_dir};

#[test]
fn every_fuzz_finding_stays_fixed() {
    // Each reproducer in tests/fuzz_findings/ once crashed, made an invalid module or made
    // `check` and `build` disagree; now each passes every compile oracle (spirv-val
    // included): refused with a coded diagnostic by both, or compiled to valid modules.
    oracle::quiet_panics();
    let findings = files("fuzz_findings", "cajeta");
    assert!(findings.len() >= 5, "reproducers missing");
    for path in findings {
        let text = std::fs::read_to_string(&path).expect("reproducer");
        let (_, found) = fuzz::check_input(&text, &mut Validator::default(), true);
        assert!(found.is_empty(), "{}: {found:?}", path.display());
    }
}

#[test]
fn the_campaigns_wrong_results_are_lavapipe_miscompiles() {
    // The eight programs whose device results differed from host code on lavapipe return 0
    // mismatches on the H200; reduced, five of them are one Mesa 22.3 defect: an int32
    // sign-extended to int64 (OpSConvert) and compared (lavapipe_int64_compare.cajeta). The
    // rspirv backend now sign-extends to 64 bits without OpSConvert, so that reduction and
    // those five programs are exact on lavapipe too (each failed there before). The other
    // three stay lavapipe's (docs/fuzzing.md): signed zeros from a constant operand
    // (seed1_program_85 and _120, documented latitude) and seed2_program_1 (open).
    let Some(ctx) = device_context(false) else {
        return;
    };
    let dir = tests_dir().join("fuzz_findings").join("wrong_results");
    let options = cajetac::kernel::spirv::SpirvOptions::default();
    let (printed, _) = run_file_on(&ctx, &dir.join("lavapipe_int64_compare.cajeta"), &options);
    let got = printed.lines().nth(1).unwrap_or("").trim_end().to_string();
    assert_eq!(got, "got 1 0 1 1 1 1 1 1 1 1");
    let lavapipe = ctx.device_info().name.contains("llvmpipe");
    // seed20261211_program_36: Mesa 22.3's loop analysis runs no trip of a loop whose
    // incremented counter is tested for equality with its start (docs/fuzzing.md).
    let lavapipe_only = [
        "seed1_program_85.cajeta",
        "seed1_program_120.cajeta",
        "seed2_program_1.cajeta",
        "seed20261211_program_36.cajeta",
    ];
    // The lost carry that NVIDIA's 580 driver shows (docs/fuzzing.md: no emission of the
    // 64-bit arithmetic tried keeps it); lavapipe and the other executors are exact.
    let nvidia = ctx.device_info().name.contains("NVIDIA");
    let nvidia_only = ["nvidia_carry_loss.cajeta"];
    for path in files("fuzz_findings/wrong_results", "cajeta") {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name == "lavapipe_int64_compare.cajeta"
            || (lavapipe && lavapipe_only.contains(&&*name))
            || (nvidia && nvidia_only.contains(&&*name))
        {
            continue;
        }
        let (printed, value) = run_file_on(&ctx, &path, &options);
        assert_eq!(value.as_deref(), Ok("0"), "{}:\n{printed}", path.display());
    }
    // The LLVM backend rewrites its OpSConvert to 64 bits the same way: seed 12 program 134
    // differed on lavapipe with LLVM's kernels only, through that compare.
    cajetac::kernel::llvm::enable();
    let llvm = cajetac::kernel::spirv::SpirvOptions {
        backend: cajetac::kernel::spirv::KernelBackend::Llvm,
        target_env: cajetac::kernel::spirv::TargetEnv::Vulkan1_3,
        ..options
    };
    let (printed, _) = run_file_on(&ctx, &dir.join("lavapipe_int64_compare.cajeta"), &llvm);
    assert_eq!(
        printed.lines().nth(1).map(str::trim_end),
        Some("got 1 0 1 1 1 1 1 1 1 1")
    );
    // Seed 12 program 190: lavapipe mixed up two loop-header phis of LLVM's module that
    // differ only in an undefined incoming value; the backend now folds one into the other.
    // Seed 47 program 25: the same compare through a vector `OpSConvert` LLVM made of two
    // loop counters, which the backend now rewrites too (75 mismatches before). Seed 48
    // program 108: a narrow shift whose count LLVM left unmasked, exact only with the count
    // masked when the backend widens narrow shifts to 32 bits. Seed 64 program 4: not
    // lavapipe's but LLVM 23.1's SPIR-V target, which converted a true boolean to 1.0 instead
    // of -1.0 (`sitofp i1`), rewritten by the backend before emission now (32 mismatches).
    // Seed 70 program 101: LLVM's region structurizer left `poison` for two values it had
    // hoisted, on one path; phi inputs are pinned before it runs now (1 mismatch). Seed 80
    // program 341 and seed 82 program 1107: LLVM 23.1's loop strength reduction rewrote a
    // masked loop counter as the sum of two unmasked ones; SPIR-V is emitted without it now
    // (8 and 53 mismatches). Seed 0xC47E7A program 0: NVIDIA's, not lavapipe's (8 mismatches
    // there, 0 here); the LLVM backend's narrow signed division no longer has the guard whose
    // instcombine form the driver got wrong (docs/fuzzing.md).
    for name in [
        "seed12_program_134_llvm.cajeta",
        "seed12_program_190_llvm.cajeta",
        "seed47_program_25_llvm.cajeta",
        "seed48_program_108_llvm.cajeta",
        "seed64_program_4_llvm.cajeta",
        "seed70_program_101_llvm.cajeta",
        "seed80_program_341_llvm.cajeta",
        "seed82_program_1107_llvm.cajeta",
        "nvidia_seed_c47e7a_program_0_llvm.cajeta",
    ] {
        let path = dir.join(name);
        let (printed, value) = run_file_on(&ctx, &path, &llvm);
        assert_eq!(value.as_deref(), Ok("0"), "{}:\n{printed}", path.display());
    }
}
