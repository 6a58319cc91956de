//! Cajeta's `k.manifest()` in host code (docs/language.md, "Host code"): the library's
//! `KernelManifest` POD, whose fields must equal the reflection `cajetac build` writes for
//! the same kernel, on both host executors and on the CPU device.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROGRAM: &str = "package t;
import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void plain(KernelBuffer<uint32> u) { u[KernelThread.globalIdX()] = 1u; }
    @Kernel
    public static void tiled(KernelBuffer<float32> a, Image2D img, float32 s, uint32 n, Vector<float32, 4> v) {
        Shared<float32> t = shared float32[256];
        Shared<int32> w = shared int32[10];
        uint32 i = KernelThread.x();
        t[i] = a[i] * s + v.x;
        w[0] = (int32) n;
        Barrier.workgroup();
        a[i] = t[255 - i] + (float32) w[0];
    }
    static void show(KernelManifest m) {
        System.out.println(m.workgroupSizeX + \" \" + m.workgroupSizeY + \" \" + m.workgroupSizeZ
            + \" \" + m.bindings + \" \" + m.pushConstantBytes + \" \" + m.sharedBytes
            + \" \" + m.registers + \" \" + m.spills);
    }
    public static int32 run() {
        show(plain.manifest());
        KernelManifest t = tiled.manifest();
        show(t);
        return 777;
    }
}
";

/// A scratch folder holding `src` as `p.cajeta`.
fn scratch(tag: &str, src: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("cajetac-manifest-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("p.cajeta");
    std::fs::write(&file, src).unwrap();
    (dir, file)
}

fn cajetac(args: &[&str], file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cajetac-llvm"))
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

/// The line `show` prints for a kernel, computed from its reflection JSON.
fn expected_line(reflection: &Path) -> String {
    let text = std::fs::read_to_string(reflection).unwrap();
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    let wg = r["default_workgroup_size"].as_array().unwrap();
    format!(
        "{} {} {} {} {} {} 0 0",
        wg[0],
        wg[1],
        wg[2],
        r["bindings"].as_array().unwrap().len(),
        r["push_constants"]["size"],
        // Written only when the kernel has fixed-size shared arrays.
        r["static_shared_bytes"].as_u64().unwrap_or(0)
    )
}

#[test]
fn a_manifest_holds_the_kernels_reflection_on_both_executors_and_the_cpu_device() {
    let (dir, file) = scratch("values", PROGRAM);
    let out = dir.join("out");
    let build = cajetac(
        &["build", "--emit", "reflect", "-o", out.to_str().unwrap()],
        &file,
    );
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let expected = vec![
        expected_line(&out.join("plain.json")),
        expected_line(&out.join("tiled.json")),
        "777".to_string(),
    ];
    // The values are the kernels' own, not one kernel's twice: 2 bindings, a 32-byte push
    // block (float32, uint32, then the vector at 16) and 256·4 + 10·4 shared bytes.
    assert_eq!(expected[1], "64 1 1 2 32 1064 0 0");
    for extra in [
        &["--host", "interp"][..],
        &["--host", "native"][..],
        &["--device", "cpu"][..],
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        let run = cajetac(&args, &file);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{extra:?}: {stdout} {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines, expected, "{extra:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_manifest_is_host_code_and_takes_no_arguments() {
    for (tag, src, code, text) in [
        (
            "device",
            PROGRAM.replace(
                "uint32 i = KernelThread.x();",
                "uint32 i = KernelThread.x(); KernelManifest m = plain.manifest();",
            ),
            "E0018",
            "`k.manifest()` in device code",
        ),
        (
            "args",
            PROGRAM.replace("plain.manifest()", "plain.manifest(1)"),
            "E0011",
            "`plain.manifest()` takes no arguments",
        ),
    ] {
        let (dir, file) = scratch(tag, &src);
        let out = cajetac(&["check"], &file);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{tag}: accepted");
        assert!(err.contains(&format!("error[{code}]")), "{tag}: {err}");
        assert!(err.contains(text), "{tag}: {err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
