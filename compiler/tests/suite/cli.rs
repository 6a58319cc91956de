//! The `cajetac` command: outputs and exit statuses of SPEC §10.

use std::path::PathBuf;
use std::process::Command;

pub(crate) fn cajetac() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cajetac"))
}

/// Runs `cajetac run --host native FILE` with `env` and `CAJETA_HOST_HANDOFFS=1` and asserts
/// that native code handed nothing to the interpreter.
pub(crate) fn assert_no_handoffs(file: &std::path::Path, env: &[(&str, &str)]) {
    let out = cajetac()
        .args(["run", "--host", "native"])
        .arg(file)
        .envs(env.iter().copied())
        .env("CAJETA_HOST_HANDOFFS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("native host code: 0 hand-offs to the interpreter"),
        "{}: {err}",
        file.display()
    );
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cajetac-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn build_writes_spirv_asm_and_reflection_per_kernel() {
    let out = temp_dir("build");
    let status = cajetac()
        .args([
            "build",
            "examples/img_rmw.cajeta",
            "--emit",
            "spirv,spvasm,reflect",
            "-o",
        ])
        .arg(&out)
        .current_dir(repo())
        .status()
        .unwrap();
    assert!(status.success());
    for kernel in ["fill", "rmw"] {
        let spv = std::fs::read(out.join(format!("{kernel}.spv"))).unwrap();
        assert_eq!(&spv[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
        let asm = std::fs::read_to_string(out.join(format!("{kernel}.spvasm"))).unwrap();
        assert!(asm.contains("OpEntryPoint GLCompute %") && asm.contains(&format!("\"{kernel}\"")));
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{kernel}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(json["entry_point"], kernel);
        assert_eq!(json["spirv_version"], "1.3");
    }
}

#[test]
fn kernels_of_one_name_in_two_classes_get_a_file_each() {
    // Both named `k`: each would have been written to `k.spv`, the second over the first.
    let out = temp_dir("same-names");
    let src = out.join("two.cajeta");
    std::fs::write(
        &src,
        "package t;\nimport cajeta.xpu.*;\npublic final class A {\n    @Kernel\n    public static void k(KernelBuffer<int32> o) { o[KernelThread.globalIdX()] = 1; }\n    @Kernel\n    public static void only(KernelBuffer<int32> o) { o[0] = 3; }\n}\nfinal class B {\n    @Kernel\n    public static void k(KernelBuffer<int32> o) { o[KernelThread.globalIdX()] = 2; }\n}\n",
    )
    .unwrap();
    let status = cajetac()
        .args(["build", "--emit", "spirv,spvasm,reflect", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(!out.join("k.spv").exists(), "no file shared by the two");
    let a = std::fs::read_to_string(out.join("A.k.spvasm")).unwrap();
    let b = std::fs::read_to_string(out.join("B.k.spvasm")).unwrap();
    // A's kernel stores 1, B's stores 2.
    let stores = |asm: &str, v: &str| {
        asm.lines()
            .any(|l| l.contains("OpConstant ") && l.trim_end().ends_with(&format!(" {v}")))
    };
    assert!(stores(&a, "1") && !stores(&a, "2"), "{a}");
    assert!(stores(&b, "2") && !stores(&b, "1"), "{b}");
    for stem in ["A.k", "B.k", "only"] {
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{stem}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(json["entry_point"], stem.rsplit('.').next().unwrap());
        assert!(out.join(format!("{stem}.spv")).exists(), "{stem}.spv");
    }
}

#[test]
fn target_env_vulkan13_emits_spirv_16() {
    let out = temp_dir("env13");
    let status = cajetac()
        .args([
            "build",
            "examples/img_rmw.cajeta",
            "--target-env",
            "vulkan1.3",
            "--kernel",
            "fill",
            "-o",
        ])
        .arg(&out)
        .current_dir(repo())
        .status()
        .unwrap();
    assert!(status.success());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fill.json")).unwrap()).unwrap();
    assert_eq!(json["spirv_version"], "1.6");
    assert!(
        !out.join("rmw.json").exists(),
        "--kernel selects one kernel"
    );
}

#[test]
fn compile_errors_exit_1_with_code_and_position() {
    let out = cajetac()
        .args(["check", "tests/diagnostics/missing_cast.cajeta"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[E0009]"), "{err}");
    assert!(
        err.contains("tests/diagnostics/missing_cast.cajeta:6:20"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let missing = cajetac()
        .args(["check", "no/such/file.cajeta"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
    let flag = cajetac()
        .args(["build", "--bogus", "x.cajeta"])
        .output()
        .unwrap();
    assert_eq!(flag.status.code(), Some(2));
    let env = cajetac()
        .args([
            "build",
            "examples/img_rmw.cajeta",
            "--target-env",
            "vulkan9",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(env.status.code(), Some(2));
    let emit = cajetac()
        .args(["build", "examples/img_rmw.cajeta", "--emit", "exe"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(emit.status.code(), Some(2));
}

#[test]
fn build_names_the_kernels_when_the_one_asked_for_is_missing() {
    let out = temp_dir("kernel-list");
    let missing = cajetac()
        .args([
            "build",
            "examples/img_rmw.cajeta",
            "--kernel",
            "nosuch",
            "-o",
        ])
        .arg(&out)
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("no kernel named `nosuch`; the program's kernels: fill, rmw"),
        "{err}"
    );
    let src = out.join("hostonly.cajeta");
    std::fs::write(
        &src,
        "public class H {\n    public static int32 run() {\n        return 1;\n    }\n}\n",
    )
    .unwrap();
    let none = cajetac()
        .args(["build", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert!(none.status.success());
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(
        err.contains("note: the program has no kernels (`@Kernel` methods); nothing written"),
        "{err}"
    );
    let asked = cajetac()
        .args(["build", "--kernel", "k", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&asked.stderr)
        .contains("no kernel named `k`: the program has no kernels"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn host_runtime_errors_name_the_position_and_exit_3() {
    let dir = temp_dir("rt");
    let file = dir.join("div.cajeta");
    std::fs::write(
        &file,
        "public final class D {\n    public static int32 run() {\n        int32 z = 0;\n        return 10 / z;\n    }\n}\n",
    )
    .unwrap();
    let out = cajetac().arg("run").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("div.cajeta:4:"), "{err}");
    assert!(err.contains("division by zero"), "{err}");
}

#[test]
fn run_prints_the_returned_value_and_main_args() {
    let dir = temp_dir("args");
    let file = dir.join("args.cajeta");
    std::fs::write(
        &file,
        "public final class A {\n    public static void main(String[] args) {\n        System.out.println(\"n=\" + args.length + \" first=\" + args[0]);\n    }\n}\n",
    )
    .unwrap();
    let out = cajetac()
        .arg("run")
        .arg(&file)
        .args(["--", "hello", "x"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n=2 first=hello\n");
}

#[test]
fn main_returning_an_int_sets_the_exit_status_and_run_prints() {
    let dir = temp_dir("exit-status");
    let run_it = |body: &str, entry: &str| {
        let file = dir.join(format!("{entry}.cajeta"));
        let src = format!(
            "public final class E {{\n    public static int32 {entry}() {{\n        System.out.println(\"hi\");\n        {body}\n    }}\n}}\n"
        );
        std::fs::write(&file, src).unwrap();
        let out = cajetac().arg("run").arg(&file).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    assert_eq!(run_it("return 0;", "main"), (Some(0), "hi\n".to_string()));
    assert_eq!(run_it("return 3;", "main"), (Some(3), "hi\n".to_string()));
    assert_eq!(
        run_it("return 777;", "main"),
        (Some(777 & 255), "hi\n".to_string())
    );
    assert_eq!(
        run_it("return -1;", "main"),
        (Some(255), "hi\n".to_string())
    );
    assert_eq!(run_it("return 3;", "run"), (Some(0), "hi\n3\n".to_string()));
    std::fs::remove_dir_all(&dir).ok();
}

/// Whether a Vulkan device is present (the device-dependent CLI tests skip without one,
/// except under `CI=true`).
pub(crate) fn have_device() -> bool {
    let ok = cajeta_runtime::Context::list_devices().is_ok_and(|d| !d.is_empty());
    assert!(
        ok || std::env::var("CI").map_or(true, |v| v != "true"),
        "CI=true but no device"
    );
    ok
}

#[test]
fn devices_json_is_the_device_profile_format_and_build_checks_against_it() {
    if !have_device() {
        return;
    }
    let out = cajetac().args(["devices", "--json"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let profiles: Vec<cajeta_runtime::DeviceProfile> = serde_json::from_str(&text).unwrap();
    assert!(!profiles.is_empty());
    assert_eq!(profiles[0].schema, cajeta_runtime::DEVICE_PROFILE_SCHEMA);
    let dir = temp_dir("profile");
    let good = dir.join("devices.json");
    std::fs::write(&good, &text).unwrap();
    for profile in [good.to_str().unwrap(), "auto"] {
        let status = cajetac()
            .args(["build", "examples/img_rmw.cajeta", "-o"])
            .arg(&dir)
            .args(["--device-profile", profile])
            .current_dir(repo())
            .status()
            .unwrap();
        assert!(status.success(), "{profile}");
    }
    // A Vulkan 1.0 device cannot run the default vulkan1.1 target: exit 1, naming it.
    let mut old = profiles[0].clone();
    old.api_version = "1.0.0".into();
    let bad = dir.join("old.json");
    std::fs::write(&bad, old.to_json()).unwrap();
    let out = cajetac()
        .args(["build", "examples/img_rmw.cajeta", "-o"])
        .arg(&dir)
        .arg("--device-profile")
        .arg(&bad)
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("kernel `fill` needs target environment vulkan1.1, which device profile"),
        "{err}"
    );
    assert!(err.contains("error[E0030]"), "a coded diagnostic: {err}");
    // A type the device lacks (SPEC issue 3): float64 without shaderFloat64 is a compile error
    // naming the feature, at the kernel that needs it.
    let mut no_f64 = profiles[0].clone();
    no_f64.features.retain(|f| f != "shaderFloat64");
    let lacking = dir.join("no_f64.json");
    std::fs::write(&lacking, no_f64.to_json()).unwrap();
    let out = cajetac()
        .args(["build", "tests/kernels/scalar_types.cajeta", "-o"])
        .arg(&dir)
        .arg("--device-profile")
        .arg(&lacking)
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[E0030]")
            && err.contains("kernel `wide` needs")
            && err.contains("shaderFloat64"),
        "{err}"
    );
    assert!(
        err.contains("tests/kernels/scalar_types.cajeta:"),
        "positioned at the kernel: {err}"
    );
    assert!(
        !err.contains("kernel `narrow` needs"),
        "narrow uses no float64: {err}"
    );
    let out = cajetac()
        .args([
            "build",
            "examples/img_rmw.cajeta",
            "--device-profile",
            "/no/such/file",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn build_compiles_for_the_device_profile_features() {
    if !have_device() {
        return;
    }
    let out = cajetac().args(["devices", "--json"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let profiles: Vec<cajeta_runtime::DeviceProfile> = serde_json::from_str(&text).unwrap();
    let dir = temp_dir("profile_features");
    for native in [true, false] {
        let mut p = profiles[0].clone();
        p.features.retain(|f| f != "shaderBufferFloat32AtomicAdd");
        if native {
            p.features.push("shaderBufferFloat32AtomicAdd".into());
        }
        let file = dir.join(format!("p{native}.json"));
        std::fs::write(&file, p.to_json()).unwrap();
        let out_dir = dir.join(format!("out{native}"));
        let status = cajetac()
            .args([
                "build",
                "tests/device/atomics.cajeta",
                "--emit",
                "spvasm",
                "-o",
            ])
            .arg(&out_dir)
            .arg("--device-profile")
            .arg(&file)
            .current_dir(repo())
            .status()
            .unwrap();
        // A profile claiming the feature the device may lack only changes the code.
        assert!(status.success());
        let dis = std::fs::read_to_string(out_dir.join("count.spvasm")).unwrap();
        assert_eq!(dis.contains("OpAtomicFAddEXT"), native, "{dis}");
    }
}

#[test]
fn run_profile_prints_per_kernel_gpu_times() {
    if !have_device() {
        return;
    }
    let out = cajetac()
        .args(["run", "--profile", "examples/img_rmw.cajeta"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "777");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("no timestamps") {
        return;
    }
    assert!(err.contains("kernel / transfer"), "{err}");
    for kernel in ["fill", "rmw", "download"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with(kernel) && l.split_whitespace().nth(1) == Some("1")),
            "{kernel} timed once: {err}"
        );
    }
}

#[test]
fn run_creates_the_context_with_exactly_the_features_the_kernels_need() {
    if !have_device() {
        return;
    }
    use cajetac::host::interp::{HostIo, HostOutcome};
    use cajetac::kernel::spirv::SpirvOptions;
    let text = std::fs::read_to_string(repo().join("examples/img_rmw.cajeta")).unwrap();
    let mut sources = cajetac::diagnostics::SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: None,
    };
    let result = cajetac::driver::run_program_with(
        &mut sources,
        &[("img_rmw.cajeta".into(), text)],
        &SpirvOptions::default(),
        &[],
        &mut io,
        Some(cajeta_runtime::ContextOptions::from_env()),
    );
    assert!(matches!(result, Ok(HostOutcome::Returned(_))));
    // The image kernels need no optional feature, so none is enabled.
    let ctx = io.context.take().expect("a context was created");
    assert_eq!(ctx.enabled_features(), Vec::<String>::new());
}

/// `build --device-profile` fixes `Device.*` (SPEC §8): the cooperative-matrix branch of the
/// GEMM is in the H200 build and absent from the lavapipe build, reflection included.
#[test]
fn build_specializes_device_queries_for_the_profile() {
    let dir = temp_dir("device-queries");
    let reflect = |profile: &str| {
        let out = cajetac()
            .args([
                "build",
                "tests/kernels/device_coop.cajeta",
                "--emit",
                "reflect",
                "-o",
            ])
            .arg(dir.join(profile))
            .args([
                "--device-profile",
                &format!("tests/profiles/{profile}.json"),
            ])
            .current_dir(repo())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(dir.join(profile).join("gemm.json")).unwrap()
    };
    let h200 = reflect("h200");
    assert!(h200.contains("\"CooperativeMatrixKHR\""), "{h200}");
    assert!(h200.contains("\"cooperativeMatrix\""), "{h200}");
    let lavapipe = reflect("lavapipe");
    assert!(!lavapipe.contains("Cooperative"), "{lavapipe}");
    assert!(!lavapipe.contains("cooperativeMatrix"), "{lavapipe}");
}

#[test]
fn every_example_runs_with_no_arguments() {
    if !have_device() {
        return;
    }
    // From a scratch folder holding only a link to the examples (their default data folder is
    // `examples/data`), so the pictures they write by default land there.
    let dir = temp_dir("noargs");
    let link = dir.join("examples");
    if !link.exists() {
        std::os::unix::fs::symlink(repo().join("examples"), &link).unwrap();
    }
    let mut failures = Vec::new();
    let mut examples: Vec<_> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cajeta"))
        .collect();
    examples.sort();
    for path in &examples {
        let rel = format!("examples/{}", path.file_name().unwrap().to_string_lossy());
        let out = cajetac()
            .current_dir(&dir)
            .args(["run", &rel])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        // `main` examples exit 0 (what main returns) after their summary line; `run()`
        // examples print 777.
        let src = std::fs::read_to_string(path).unwrap();
        let ok = if src.contains(" main(") {
            stdout
                .lines()
                .last()
                .is_some_and(|l| !l.is_empty() && l != "0")
        } else {
            stdout.lines().last() == Some("777")
        };
        if !out.status.success() || !ok {
            failures.push(format!(
                "{rel}: {:?}\n{stdout}{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(examples.len() >= 10);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_bad_scene_array_is_a_runtime_error_with_exit_3_on_both_hosts() {
    let file = repo().join("compiler/tests/native_host/scene_errors.cajeta");
    for host in ["native", "interp"] {
        let out = cajetac()
            .args(["run", "--host", host])
            .arg(&file)
            .args(["--", "1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "--host {host}");
        let err = String::from_utf8_lossy(&out.stderr);
        // Without a device the run still fails at the same call, saying there is none.
        assert!(
            err.contains("scene_errors.cajeta:13:41: runtime error: "),
            "--host {host}: {err}"
        );
        if cajeta_runtime::Context::new().is_ok() {
            assert!(
                err.contains("AccelerationStructure.fromTriangles: the vertex array holds 4 floats, not a multiple of 3"),
                "--host {host}: {err}"
            );
        }
    }
}
