//! The integer precision families of SPEC §8 in every integer mode.
//!
//! - Every kernel of `tests/kernels/int_precision_*.cajeta` compiles in int8p, int8s,
//!   int8s+int8a, int16p and int16s, passes spirv-val (Vulkan 1.1 and 1.3), and declares
//!   exactly the capabilities its mode uses; the native-storage modes have goldens
//!   (`<stem>.<kernel>.<mode>.spvasm`; the packed default is covered by `golden.rs`).
//! - Every program of `tests/int_precision/*.cajeta` returns 777 on the device in each mode
//!   of its family (it checks its results exactly against values the host computes), also
//!   under the validation layer.

use cajeta_runtime::{Context, IntStorage, PrecisionOptions, PrecisionVariant};
use cajeta_tests::{
    check_golden, device_context, files, frontend, spirv_val, tests_dir, workgroup_array_elements,
};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver::{self, compile_kernels, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::{disassemble, SpirvOptions, TargetEnv};
use cajetac::specialize::Target;

/// A mode: its name, the variant, and the narrow capabilities its modules may declare.
struct Mode {
    name: &'static str,
    variant: PrecisionVariant,
    allowed: &'static [&'static str],
}

fn modes() -> Vec<Mode> {
    let base = PrecisionVariant::default();
    vec![
        Mode {
            name: "int8p",
            variant: base,
            allowed: &[],
        },
        Mode {
            name: "int8s",
            variant: PrecisionVariant {
                int8_storage: IntStorage::Native,
                ..base
            },
            allowed: &["StorageBuffer8BitAccess"],
        },
        Mode {
            name: "int8s+int8a",
            variant: PrecisionVariant {
                int8_storage: IntStorage::Native,
                int8_arithmetic: true,
                ..base
            },
            allowed: &["StorageBuffer8BitAccess", "Int8"],
        },
        Mode {
            name: "int16p",
            variant: base,
            allowed: &[],
        },
        Mode {
            name: "int16s",
            variant: PrecisionVariant {
                int16_storage: IntStorage::Native,
                int16_arithmetic: true,
                ..base
            },
            allowed: &["StorageBuffer16BitAccess", "Int16"],
        },
    ]
}

const NARROW: [&str; 4] = [
    "Int8",
    "Int16",
    "StorageBuffer8BitAccess",
    "StorageBuffer16BitAccess",
];

#[test]
fn kernels_compile_validate_and_match_goldens_in_every_integer_mode() {
    let sources: Vec<_> = files("kernels", "cajeta")
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("int_precision_"))
        })
        .collect();
    assert!(sources.len() >= 2, "int_precision kernels missing");
    let golden_dir = tests_dir().join("kernels").join("golden");
    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for path in &sources {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let (map, result) = frontend(path);
        let module = result.unwrap_or_else(|d| panic!("{stem}:\n{}", render_human(&map, &d)));
        // The file's own family has a golden in its native storage mode.
        let family = if stem.ends_with("i8") {
            "int8"
        } else {
            "int16"
        };
        for mode in modes() {
            for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
                let options = SpirvOptions {
                    target_env: env,
                    target: Target {
                        precision: mode.variant,
                        profile: None,
                    },
                    ..SpirvOptions::default()
                };
                let kernels = match compile_kernels(&module, &options, None) {
                    Ok(k) => k,
                    Err(d) => {
                        failures.push(format!(
                            "{stem} [{}]:\n{}",
                            mode.name,
                            render_human(&map, &d)
                        ));
                        continue;
                    }
                };
                for (_, k) in &kernels {
                    let tag = format!("{stem}.{}.{}.{}", k.name, mode.name, env.name());
                    if let Err(e) = spirv_val(&k.words, env, &tag) {
                        failures.push(e);
                    }
                    for cap in &k.reflection.capabilities {
                        seen.insert((mode.name, cap.clone()));
                        if NARROW.contains(&cap.as_str()) && !mode.allowed.contains(&cap.as_str()) {
                            failures.push(format!("{tag}: capability {cap} in mode {}", mode.name));
                        }
                    }
                    if k.name == "staging" && family == "int16" {
                        // lint16vec4 is two int32 words in int16p, i16vec4 in int16s (the
                        // seed's table); lint16 one int32 or one int16.
                        let (v4, s1) = if mode.name == "int16s" {
                            ("v4int16", "int16")
                        } else {
                            ("v2int", "int")
                        };
                        let want: Vec<(String, String)> = [v4, v4, s1]
                            .iter()
                            .map(|t| ("64".to_string(), t.to_string()))
                            .collect();
                        let got = workgroup_array_elements(&disassemble(&k.words));
                        if got != want {
                            failures
                                .push(format!("{tag}: shared arrays {got:?}, expected {want:?}"));
                        }
                    }
                    let native = mode.name == format!("{family}s");
                    if native && env == TargetEnv::Vulkan1_1 {
                        let asm =
                            golden_dir.join(format!("{stem}.{}.{}.spvasm", k.name, mode.name));
                        if let Err(e) = check_golden(&asm, &disassemble(&k.words)) {
                            failures.push(e);
                        }
                    }
                }
            }
        }
    }
    // The native modes do use their storage capability (and int8a its arithmetic one).
    for (mode, cap) in [
        ("int8s", "StorageBuffer8BitAccess"),
        ("int8s+int8a", "Int8"),
        ("int16s", "StorageBuffer16BitAccess"),
    ] {
        if !seen.contains(&(mode, cap.to_string())) {
            failures.push(format!("no module of mode {mode} declares {cap}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs `path` with the precision `options` on `ctx`; the variant name it resolved to, and
/// the program's result.
fn run_in_mode(
    ctx: &Context,
    path: &std::path::Path,
    options: PrecisionOptions,
) -> (String, Result<String, String>) {
    let features = ctx.device_info().features.clone();
    let (variant, _) = options.resolve(&features);
    let text = std::fs::read_to_string(path).unwrap();
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let spirv = SpirvOptions {
        device_features: features,
        target: Target {
            precision: variant,
            profile: None,
        },
        ..SpirvOptions::default()
    };
    let name = path.display().to_string();
    let result = driver::run_program(&mut sources, &[(name, text)], &spirv, &[], &mut io);
    let printed = String::from_utf8_lossy(&out).into_owned();
    let result = match result {
        Ok(HostOutcome::Returned(v)) => Ok(format!("{v}")),
        Ok(HostOutcome::Void) => Err(format!("returned nothing; printed:\n{printed}")),
        Err(RunError::Compile(d)) => Err(format!("compile error:\n{}", render_human(&sources, &d))),
        Err(RunError::NoEntryPoint | RunError::NotNative(_)) => Err("no entry point".into()),
        Err(RunError::Runtime(e)) => Err(format!("{}\nprinted:\n{printed}", e.render(&sources))),
    };
    (variant.name(), result)
}

fn run_all(ctx: &Context) {
    let int8 = |storage: bool, arith: bool| PrecisionOptions {
        int8_packed: !storage,
        int8_storage: storage,
        int8_arithmetic: arith,
        ..Default::default()
    };
    let int16 = |storage: bool| PrecisionOptions {
        int16_packed: !storage,
        int16_storage: storage,
        ..Default::default()
    };
    let cases: Vec<(&str, PrecisionOptions, &str)> = vec![
        ("int8", int8(false, false), "fp32"),
        ("int8", int8(true, false), "fp32+int8s"),
        ("int8", int8(true, true), "fp32+int8s+int8a"),
        ("int16", int16(false), "fp32"),
        ("int16", int16(true), "fp32+int16s"),
    ];
    let dir = tests_dir().join("int_precision");
    let mut failures = Vec::new();
    for (file, options, want_variant) in cases {
        let path = dir.join(format!("{file}.cajeta"));
        let (variant, result) = run_in_mode(ctx, &path, options);
        if variant != want_variant {
            failures.push(format!("{file}: the device gives variant {variant}, expected {want_variant} (lavapipe has int8/int16 storage and arithmetic)"));
        }
        match result {
            Ok(v) if v == "777" => {}
            Ok(v) => failures.push(format!("{file} [{variant}]: returned {v}, expected 777")),
            Err(e) => failures.push(format!("{file} [{variant}]: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn programs_return_777_in_every_integer_mode() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    run_all(&ctx);
}

#[test]
fn programs_are_clean_under_validation() {
    let Some(ctx) = device_context(true) else {
        return;
    };
    run_all(&ctx);
    let messages = ctx.validation_messages();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

#[test]
fn one_lane_of_a_two_word_vector_is_an_error_only_in_int16p() {
    let text = "import cajeta.xpu.*;\npublic final class A {\n    @Kernel\n    public static void k(KernelBuffer<Vector<sint16, 4>> q) {\n        uint32 i = KernelThread.globalIdX();\n        q[i].x = (aint16) 1;\n    }\n}\n";
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("lane.cajeta".into(), text.into())])
        .unwrap_or_else(|d| panic!("{}", render_human(&sources, &d)));
    let compile = |variant: PrecisionVariant| {
        let options = SpirvOptions {
            target: Target {
                precision: variant,
                profile: None,
            },
            ..SpirvOptions::default()
        };
        compile_kernels(&module, &options, None)
    };
    let err = compile(PrecisionVariant::default()).expect_err("int16p must reject it");
    assert_eq!(err[0].code.as_str(), "E0024", "{err:?}");
    assert!(err[0].message.contains("Vector<sint16, 4>"), "{err:?}");
    let native = PrecisionVariant {
        int16_storage: IntStorage::Native,
        int16_arithmetic: true,
        ..PrecisionVariant::default()
    };
    let kernels = compile(native).expect("int16s writes the int16 lane directly");
    assert!(!disassemble(&kernels[0].1.words).contains("OpAtomicCompareExchange"));
}

#[test]
fn storage_typed_kernel_parameters_are_rejected() {
    let text = "import cajeta.xpu.*;\npublic final class A {\n    @Kernel\n    public static void k(KernelBuffer<int32> o, sint8 s) {\n        o[0] = (int32) s;\n    }\n}\n";
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("param.cajeta".into(), text.into())])
        .unwrap_or_else(|d| panic!("{}", render_human(&sources, &d)));
    let err = compile_kernels(&module, &SpirvOptions::default(), None)
        .expect_err("a sint8 kernel parameter must be rejected");
    assert!(err[0].message.contains("storage type `sint8`"), "{err:?}");
}
