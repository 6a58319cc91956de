//! Float controls (SPEC §4, issue 11): where the device has the
//! `shaderSignedZeroInfNanPreserveFloat32` property, kernels compiled for it declare the
//! `SignedZeroInfNanPreserve` execution mode (valid SPIR-V for Vulkan 1.1 and 1.3) and the
//! runtime accepts them; a baseline build declares nothing. `tests/float_controls/specials`
//! then compares IEEE specials on the device with host code. Lavapipe (Mesa 22.3) reports the
//! property but still folds some of them; docs/language.md lists exactly which, and this test
//! holds lavapipe to that list so that a driver change shows up.

use cajeta_runtime::DeviceProfile;
use cajeta_tests::{device_context, frontend, run_file_on, spirv_val, tests_dir};
use cajetac::driver;
use cajetac::kernel::spirv::{disassemble, KernelBackend, SpirvOptions, TargetEnv};
use cajetac::specialize::Target;

const PRESERVE32: &str = "shaderSignedZeroInfNanPreserveFloat32";

fn options_for(profile: DeviceProfile, env: TargetEnv) -> SpirvOptions {
    SpirvOptions {
        target_env: env,
        device_features: profile.features.clone(),
        target: Target {
            profile: Some(profile),
            ..Target::default()
        },
        ..SpirvOptions::default()
    }
}

#[test]
fn kernels_ask_for_ieee_specials_only_where_the_profile_has_them() {
    let path = tests_dir().join("float_controls").join("specials.cajeta");
    let module = frontend(&path).1.expect("compiles");
    let compile = |options: &SpirvOptions| {
        driver::compile_kernels(&module, options, None).expect("backend")[0]
            .1
            .clone()
    };
    let baseline = compile(&SpirvOptions::default());
    assert!(!disassemble(&baseline.words).contains("SignedZeroInfNanPreserve"));
    let text = std::fs::read_to_string(tests_dir().join("profiles").join("lavapipe.json"))
        .expect("profile");
    let mut profile = DeviceProfile::from_json(&text).expect("profile");
    profile.features.push(PRESERVE32.to_string());
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let k = compile(&options_for(profile.clone(), env));
        let asm = disassemble(&k.words);
        assert!(asm.contains("OpExecutionMode %") && asm.contains("SignedZeroInfNanPreserve 32"));
        assert_eq!(
            asm.contains("SPV_KHR_float_controls"),
            env == TargetEnv::Vulkan1_1,
            "the extension is needed before SPIR-V 1.4 only"
        );
        assert!(k.reflection.vulkan_features.iter().any(|f| f == PRESERVE32));
        spirv_val(&k.words, env, "float_controls").expect("valid");
    }
}

#[test]
fn llvm_kernels_ask_for_ieee_specials_as_rspirv_does() {
    // The LLVM backend declared no float controls, so on a device honouring them its
    // kernels could still fold `0.0 * x` where rspirv's could not (found by the four-way
    // fuzz campaign: seed 12, program 116, where LLVM's constant propagation made the zero).
    cajetac::kernel::llvm::enable();
    let path = tests_dir().join("float_controls").join("specials.cajeta");
    let module = frontend(&path).1.expect("compiles");
    let text = std::fs::read_to_string(tests_dir().join("profiles").join("lavapipe.json"))
        .expect("profile");
    let mut profile = DeviceProfile::from_json(&text).expect("profile");
    profile.features.push(PRESERVE32.to_string());
    let llvm = |options: SpirvOptions| {
        let options = SpirvOptions {
            backend: KernelBackend::Llvm,
            ..options
        };
        driver::compile_kernels(&module, &options, None).expect("backend")[0]
            .1
            .clone()
    };
    let baseline = llvm(SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    });
    assert!(!disassemble(&baseline.words).contains("SignedZeroInfNanPreserve"));
    let k = llvm(options_for(profile, TargetEnv::Vulkan1_3));
    let asm = disassemble(&k.words);
    assert!(
        asm.contains("OpCapability SignedZeroInfNanPreserve")
            && asm.contains("SignedZeroInfNanPreserve 32"),
        "{asm}"
    );
    assert!(k.reflection.vulkan_features.iter().any(|f| f == PRESERVE32));
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "float_controls_llvm").expect("valid");
}

#[test]
fn ieee_specials_on_the_device_match_host_code() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let info = ctx.device_info().clone();
    if !info.features.iter().any(|f| f == PRESERVE32) {
        eprintln!("{} lacks {PRESERVE32}: nothing to check", info.name);
        return;
    }
    let path = tests_dir().join("float_controls").join("specials.cajeta");
    let options = options_for(DeviceProfile::from_info(&info), TargetEnv::Vulkan1_1);
    let (printed, value) = run_file_on(&ctx, &path, &options);
    let value = value.unwrap_or_else(|e| panic!("{e}; printed:\n{printed}"));
    if info.name.contains("llvmpipe") {
        // Mesa 22.3 folds `v / 0.0f` and `0.0f * (v / z)` to +0 and `nz + 0.0f` to `nz`
        // despite the execution mode (docs/language.md, "IEEE specials on the device").
        let expected = [
            "case 0: device kind 3, host kind 0, want 0",
            "case 1: device kind 3, host kind 2, want 2",
            "case 2: device kind 1, host kind 0, want 0",
            "case 4: device kind 3, host kind 1, want 1",
        ];
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines, expected, "lavapipe's deviations changed");
        assert_eq!(value, "4");
    } else {
        assert_eq!(value, "777", "printed:\n{printed}");
    }
}
