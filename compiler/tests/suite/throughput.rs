//! Compile throughput (docs/PERFORMANCE.md, "Compile speed"): kernels compiled on several
//! threads give the sequential compile's output byte for byte, and `cajetac` hands the
//! commands that need LLVM to `cajetac-llvm` (docs/cli.md, "Two executables"; whether a
//! release `cajetac` contains LLVM is checked by the `compile_speed` benchmark, since only
//! link-time optimization leaves it out).

use super::cli::{cajetac, repo, temp_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver;
use cajetac::kernel::spirv::{KernelBackend, SpirvOptions, TargetEnv};
use std::num::NonZeroUsize;

/// Every example's kernels plus a file of many generated kernels of different sizes.
fn programs() -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "cajeta").then_some(p)
        })
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    list.sort();
    list.push(("many.cajeta".to_string(), many_kernels(40)));
    list
}

/// `n` kernels whose bodies differ in length, so threads finish them out of order.
fn many_kernels(n: usize) -> String {
    let mut s = String::from("package t;\nimport cajeta.xpu.*;\n\npublic final class Many {\n");
    for i in 0..n {
        s += &format!(
            "    @Kernel\n    public static void k{i}(KernelBuffer<float32> x, float32 a, uint32 n) {{\n        uint32 j = KernelThread.globalIdX();\n        if (j >= n) {{ return; }}\n        float32 v = x[j];\n        for (uint32 t = 0; t < {}; t++) {{ v = v * a + (float32) t; }}\n        x[j] = v;\n    }}\n",
            (i * 7) % 13 + 1
        );
    }
    s + "}\n"
}

/// What a compile gives, as bytes: every kernel's name, words and reflection, or the
/// diagnostics.
fn compile_on(module: &cajetac::ir::Module, options: &SpirvOptions, threads: usize) -> String {
    let threads = NonZeroUsize::new(threads).unwrap();
    match driver::compile_kernel_modules_on(module, options, None, threads) {
        Ok(kernels) => kernels
            .iter()
            .map(|(id, k)| {
                format!(
                    "{} {} {:?} {}\n",
                    id.0,
                    k.name,
                    k.words,
                    serde_json::to_string(&k.reflection).unwrap()
                )
            })
            .collect(),
        Err(diags) => format!("{diags:?}"),
    }
}

#[test]
fn kernels_compiled_on_several_threads_are_the_sequential_compile_byte_for_byte() {
    let options = SpirvOptions::default();
    let mut kernels = 0;
    for (name, text) in programs() {
        let module = driver::frontend(&mut SourceMap::new(), &[(name.clone(), text)])
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let own = module.kernels().count();
        kernels += own;
        let sequential = compile_on(&module, &options, 1);
        // A program may have no kernels of its own (examples/gemm.cajeta calls Blas.gemm).
        assert!(
            own == 0 || sequential.contains("[119734787"),
            "{name}: no SPIR-V module"
        );
        for threads in [2, 3, 8] {
            assert!(
                compile_on(&module, &options, threads) == sequential,
                "{name}: {threads} threads differ from one"
            );
        }
    }
    assert!(kernels > 60, "only {kernels} kernels compiled");
}

#[test]
fn llvm_kernels_compiled_on_several_threads_are_the_sequential_compile_byte_for_byte() {
    // Every compiling thread has an emission helper of its own (`cajetac-llvm`), which emits
    // whichever kernels that thread takes, so each thread count sends each helper another
    // sequence of kernels: the modules must not depend on it.
    cajetac::kernel::llvm::enable();
    let options = SpirvOptions {
        backend: KernelBackend::Llvm,
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    let mut modules = 0;
    for (name, text) in programs() {
        let module = driver::frontend(&mut SourceMap::new(), &[(name.clone(), text)])
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
        // A program this backend refuses gives its diagnostics, in kernel order (compared too).
        let sequential = compile_on(&module, &options, 1);
        modules += sequential.matches("[119734787").count();
        for threads in [2, 4] {
            assert!(
                compile_on(&module, &options, threads) == sequential,
                "{name}: {threads} threads differ from one"
            );
        }
    }
    assert!(modules >= 50, "only {modules} kernels compiled by LLVM");
}

#[test]
fn diagnostics_of_several_kernels_keep_their_order_on_several_threads() {
    // Checked mode is refused by the LLVM kernel backend, once per kernel, at the kernel.
    cajetac::kernel::llvm::enable();
    let options = SpirvOptions {
        backend: KernelBackend::Llvm,
        target_env: TargetEnv::Vulkan1_3,
        checked: true,
        ..SpirvOptions::default()
    };
    let text = many_kernels(12);
    let module = driver::frontend(&mut SourceMap::new(), &[("many.cajeta".into(), text)]).unwrap();
    let sequential = compile_on(&module, &options, 1);
    assert_eq!(
        sequential.matches("checked mode").count(),
        12,
        "{sequential}"
    );
    assert_eq!(compile_on(&module, &options, 4), sequential);
}

#[test]
fn cajetac_build_writes_the_same_files_on_one_thread_and_on_many() {
    let src = temp_dir("threads-src").join("many.cajeta");
    std::fs::write(&src, many_kernels(30)).unwrap();
    let build = |threads: &str| {
        let out = temp_dir(&format!("threads-{threads}"));
        let status = cajetac()
            .args(["build", "--emit", "spirv,spvasm,reflect", "-o"])
            .arg(&out)
            .arg(&src)
            .env(driver::THREADS_VAR, threads)
            .status()
            .unwrap();
        assert!(status.success());
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let one = build("1");
    assert_eq!(one.len(), 90);
    assert!(build("4") == one, "4 threads wrote other files than one");
    for tag in ["threads-src", "threads-1", "threads-4"] {
        let _ = std::fs::remove_dir_all(temp_dir(tag));
    }
}

#[test]
fn cajetac_hands_native_runs_and_the_llvm_backend_to_cajetac_llvm() {
    let dir = temp_dir("handover");
    let run = |args: &[&str], llvm_exe: Option<&str>| {
        let mut c = cajetac();
        c.args(args).current_dir(repo());
        if let Some(e) = llvm_exe {
            c.env("CAJETAC_LLVM_EXE", e);
        }
        c.output().unwrap()
    };
    let file = "tests/kernels/saxpy.cajeta";
    // Handed over: native host code runs, the LLVM backend builds.
    let native = run(&["run", "--host", "native", file], None);
    assert!(
        native.status.success(),
        "{}",
        String::from_utf8_lossy(&native.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&native.stdout).trim(), "777");
    let out = dir.to_str().unwrap();
    let built = run(&["build", "--backend", "llvm", "-o", out, file], None);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    assert!(dir.join("saxpy.spv").is_file());
    // Without `cajetac-llvm`: what needs it is a usage error naming it; `run` interprets.
    let missing = Some("/nonexistent/cajetac-llvm");
    for args in [
        &["run", "--host", "native", file][..],
        &["build", "--backend", "llvm", "-o", out, file][..],
        &["build", "--emit", "kernel-llvm", "-o", out, file][..],
    ] {
        let o = run(args, missing);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cajetac-llvm") && err.contains("/nonexistent"),
            "{args:?}: {err}"
        );
    }
    let interpreted = run(&["run", file], missing);
    assert!(
        interpreted.status.success(),
        "{}",
        String::from_utf8_lossy(&interpreted.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&interpreted.stdout).trim(), "777");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rebuild_keeps_unchanged_outputs_but_moves_their_time_and_rewrites_changed_ones() {
    let dir = temp_dir("rebuild");
    let src = dir.join("many.cajeta");
    let out = dir.join("out");
    let build = || {
        let o = cajetac()
            .arg("build")
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let spv = out.join("k0.spv");
    let modified = || std::fs::metadata(&spv).unwrap().modified().unwrap();
    std::fs::write(&src, many_kernels(3)).unwrap();
    build();
    let (first, bytes) = (modified(), std::fs::read(&spv).unwrap());
    // Not replaced: a hard link made before the rebuild still names the output (a file
    // removed and written anew would be another file, the link keeping the old one).
    let link = dir.join("k0-link.spv");
    std::fs::hard_link(&spv, &link).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    build();
    assert_eq!(std::fs::read(&spv).unwrap(), bytes);
    assert!(
        modified() > first,
        "an unchanged output's time did not move"
    );
    assert_eq!(
        std::fs::metadata(&link).unwrap().modified().unwrap(),
        modified(),
        "an unchanged output was written again as a new file"
    );
    // Another body for k0 (the loop count follows the kernel's index): other words, written.
    std::fs::write(&src, many_kernels(3).replace("t < 1;", "t < 5;")).unwrap();
    build();
    assert_ne!(
        std::fs::read(&spv).unwrap(),
        bytes,
        "a changed output was not rewritten"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
