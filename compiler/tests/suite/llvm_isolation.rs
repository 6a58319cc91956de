//! The LLVM kernel backend's emission helper (kernels with shared arrays are emitted by a
//! fresh `cajetac` process, docs/backends.md): found beside the test binary, safe under
//! concurrent compiles, and a helper that crashes or hangs is a refusal (E0045), not the end
//! of the compiler.

use super::cli::{cajetac, repo, temp_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver;
use cajetac::kernel::spirv::{KernelBackend, SpirvOptions, TargetEnv};
use std::process::Output;
use std::time::{Duration, Instant};

/// A kernel with a shared array indexed in a loop: the kind that goes through the helper.
const KERNEL_FILE: &str = "tests/kernels/shared_memory.cajeta";
const KERNEL: &str = "tileSum";

fn llvm_options() -> SpirvOptions {
    cajetac::kernel::llvm::enable();
    SpirvOptions {
        backend: KernelBackend::Llvm,
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    }
}

#[test]
fn the_helper_of_these_tests_is_the_cajetac_llvm_beside_them() {
    let expected = std::fs::canonicalize(env!("CARGO_BIN_EXE_cajetac-llvm")).unwrap();
    let helper =
        cajetac::kernel::llvm::emission_helper().map(|p| std::fs::canonicalize(p).unwrap());
    assert_eq!(helper, Some(expected));
}

#[test]
fn concurrent_compiles_through_the_helper_succeed_and_agree() {
    let src = std::fs::read_to_string(repo().join(KERNEL_FILE)).unwrap();
    let files = vec![(KERNEL_FILE.to_string(), src)];
    let module = driver::frontend(&mut SourceMap::new(), &files)
        .unwrap_or_else(|_| panic!("{KERNEL_FILE} does not check"));
    let options = llvm_options();
    let compile = || {
        driver::compile_kernels(&module, &options, Some(KERNEL))
            .map(|mut ks| ks.remove(0).1.words)
            .map_err(|d| format!("{d:?}"))
    };
    let sequential = compile().expect("a sequential compile");
    assert!(sequential.len() > 5 && sequential[0] == 0x0723_0203);
    let results: Vec<Result<Vec<u32>, String>> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..16).map(|_| s.spawn(compile)).collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (i, r) in results.into_iter().enumerate() {
        assert_eq!(r.as_ref(), Ok(&sequential), "thread {i}");
    }
}

/// `cajetac build --backend llvm` of the shared-array kernel, with `env` set.
fn build_with(tag: &str, env: &[(&str, &str)]) -> (Output, Duration) {
    let out = temp_dir(tag);
    let mut cmd = cajetac();
    cmd.args([
        "build",
        "--backend",
        "llvm",
        "--kernel",
        KERNEL,
        KERNEL_FILE,
        "-o",
    ])
    .arg(&out)
    .current_dir(repo());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let output = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&out);
    (output, start.elapsed())
}

#[test]
fn a_crashing_helper_is_a_refusal_not_a_crash() {
    let (ok, _) = build_with("helper-ok", &[]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let (out, _) = build_with("helper-abort", &[("CAJETA_LLVM_HELPER_FAULT", "abort")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("E0045"), "{err}");
    assert!(err.contains("LLVM crashed (signal 6)"), "{err}");
}

#[test]
fn a_hanging_helper_is_killed_at_the_limit_and_refused() {
    let pid_file = temp_dir("helper-hang-pid").join("pid");
    let fault = format!("hang:{}", pid_file.display());
    let (out, took) = build_with(
        "helper-hang",
        &[
            ("CAJETA_LLVM_HELPER_FAULT", &fault),
            ("CAJETA_LLVM_HELPER_TIMEOUT_S", "1"),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("E0045"), "{err}");
    assert!(err.contains("did not finish within 1 s"), "{err}");
    // One second per pipeline tried, not a minute.
    assert!(took < Duration::from_secs(30), "{took:?}");
    // The (last) helper was killed and reaped.
    let pid = std::fs::read_to_string(&pid_file).expect("the helper wrote its pid");
    assert!(!pid.is_empty());
    #[cfg(target_os = "linux")]
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "helper {pid} still running"
    );
    if let Some(dir) = pid_file.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn one_helper_per_compiling_thread_serves_every_kernel() {
    // Twelve kernels on two threads: two helpers, each taking several requests (a helper per
    // kernel was most of the LLVM backend's time; docs/backends.md).
    let dir = temp_dir("helper-reuse");
    let src = dir.join("many.cajeta");
    let mut text = String::from("package t;\nimport cajeta.xpu.*;\n\npublic final class Many {\n");
    for i in 0..12 {
        text += &format!(
            "    @Kernel\n    public static void k{i}(KernelBuffer<float32> x, float32 a) {{\n        uint32 j = KernelThread.globalIdX();\n        x[j] = x[j] * a + {i}.0f;\n    }}\n"
        );
    }
    std::fs::write(&src, text + "}\n").unwrap();
    let log = dir.join("helpers.log");
    let output = cajetac()
        .args(["build", "--backend", "llvm", "-o"])
        .arg(dir.join("out"))
        .arg(&src)
        .env("CAJETA_COMPILE_THREADS", "2")
        // One request per kernel (batches would make one request of all twelve).
        .env("CAJETA_LLVM_BATCH", "1")
        .env("CAJETA_LLVM_HELPER_FAULT", format!("log:{}", log.display()))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log = std::fs::read_to_string(&log).unwrap();
    let requests: Vec<&str> = log.lines().collect();
    let mut helpers = requests.clone();
    helpers.sort_unstable();
    helpers.dedup();
    assert_eq!(requests.len(), 12, "{log}");
    assert!(
        helpers.len() <= 2,
        "{} helpers for 12 kernels",
        helpers.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
