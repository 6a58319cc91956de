//! Whole programs through `cajetac run` with `--host native` and `--host interp` (the
//! examples, the device programs, host I/O and checked programs, runtime errors of streams,
//! events and scenes): output, errors and exit status must be identical. Also the fallback
//! rules of `--host` and `cajetac build --emit llvm`.

use std::path::PathBuf;

use super::native_host::{cajetac, corpus_dir, differential_with};

#[test]
fn cli_host_modes_and_exit_statuses() {
    let dir = corpus_dir();
    let out = cajetac()
        .args(["run", "--host", "native"])
        .arg(dir.join("div_zero.cajeta"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "start\nstep 3\nstep 2\nstep 1\nstep 0\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.trim_end()
            .ends_with("div_zero.cajeta:5:16: runtime error: integer division by zero"),
        "{err}"
    );

    for mode in ["auto", "native", "interp"] {
        let out = cajetac()
            .args(["run", "--host", mode])
            .arg(dir.join("arrays.cajeta"))
            .args(["--", "a", "b", "c"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{mode}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\n100 3\n"), "{mode}: args.length: {text}");
    }
    let out = cajetac()
        .arg("run")
        .arg(dir.join("calls.cajeta"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("9000\n55\n"));
}

#[test]
fn build_emit_llvm_writes_the_host_module() {
    let out = std::env::temp_dir().join(format!("cajetac-emit-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let status = cajetac()
        .args(["build", "--emit", "llvm", "-o"])
        .arg(&out)
        .arg(corpus_dir().join("calls.cajeta"))
        .status()
        .unwrap();
    assert!(status.success());
    let ir = std::fs::read_to_string(out.join("calls.ll")).unwrap();
    assert!(ir.contains("i32 @cajeta.main(ptr"), "{ir}");
    assert!(ir.contains("@\"Calls.fib#"), "{ir}");
    assert!(ir.contains("@cajeta.depth"), "{ir}");
    // A loop over an array is native code: it takes the array's view once and never calls
    // into the interpreter; the allocation `heap int32[n]` is a typed call of the runtime.
    let status = cajetac()
        .args(["build", "--emit", "llvm", "-o"])
        .arg(&out)
        .arg(corpus_dir().join("array_loop.cajeta"))
        .status()
        .unwrap();
    assert!(status.success());
    let ir = std::fs::read_to_string(out.join("array_loop.ll")).unwrap();
    assert!(ir.contains("@cajeta_array_view("), "{ir}");
    for delegated in [
        "@cajeta_eval_int(",
        "@cajeta_eval_void(",
        "@cajeta_exec(",
        "@cajeta_eval_into(",
    ] {
        assert!(!ir.contains(delegated), "{delegated}: {ir}");
    }
    assert_eq!(ir.matches("call i32 @cajeta_array_new(").count(), 1, "{ir}");
    std::fs::remove_dir_all(&out).ok();
}

/// Runs every program under `dir` (those with a host entry point) through `cajetac run` with
/// the interpreter and with native code; output, errors and exit status must be identical.
/// Device programs included: launches, transfers and images are shared code, but the host
/// loops that fill and check them are native on one side and interpreted on the other.
fn both_executors_agree_on(dir: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cajeta"))
        .collect();
    files.sort();
    let mut ran = 0;
    for file in &files {
        let src = std::fs::read_to_string(file).unwrap();
        if !(src.contains(" run()") || src.contains(" main(")) {
            continue;
        }
        let run = |mode: &str| {
            // In a directory of its own: examples write their pictures to the working
            // directory.
            let stem = file.file_stem().unwrap().to_string_lossy();
            let pid = std::process::id();
            let cwd = std::env::temp_dir().join(format!("cajeta-both-{pid}-{stem}-{mode}"));
            std::fs::create_dir_all(&cwd).unwrap();
            let out = cajetac()
                .args(["run", "--host", mode])
                .arg(file)
                .current_dir(&cwd)
                .output()
                .unwrap();
            std::fs::remove_dir_all(&cwd).ok();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let interp = run("interp");
        let native = run("native");
        // Agreeing on a bug of the shared code is no agreement.
        assert!(
            !interp.2.contains("internal error"),
            "{}: {}",
            file.display(),
            interp.2
        );
        assert_eq!(interp, native, "{}: interpreter vs native", file.display());
        ran += 1;
    }
    assert!(ran > 0, "no programs under {dir}");
}

#[test]
fn examples_agree_on_both_executors() {
    both_executors_agree_on("examples");
}

#[test]
fn device_programs_agree_on_both_executors() {
    both_executors_agree_on("tests/device");
}

#[test]
fn host_io_and_checked_programs_agree_on_both_executors() {
    for dir in [
        "tests/host_io",
        "tests/checked",
        "compiler/tests/native_host",
    ] {
        both_executors_agree_on(dir);
    }
}

#[test]
fn stream_and_event_errors_match_the_interpreter() {
    let file = "stream_errors.cajeta";
    let src = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let unrecorded =
        "invalid resource: the event has not been recorded on a stream (call recordOn first)";
    let destroyed = "use of a KernelStream after destroy()";
    let cases = [
        ("0", None),
        ("1", Some(("15:13", unrecorded.to_string()))),
        ("2", Some(("18:13", unrecorded.to_string()))),
        ("3", Some(("21:32", unrecorded.to_string()))),
        ("4", Some(("24:32", unrecorded.to_string()))),
        (
            "5",
            Some((
                "28:13",
                "KernelStream destroyed with work in flight: call sync() on it (or wait for an event recorded after its last work) first".to_string(),
            )),
        ),
        (
            "6",
            Some((
                "32:13",
                "KernelStream.current() is the program's default stream and cannot be destroyed"
                    .to_string(),
            )),
        ),
        ("7", Some(("36:13", destroyed.to_string()))),
        ("8", Some(("39:22", destroyed.to_string()))),
        ("9", Some(("42:13", destroyed.to_string()))),
        (
            "10",
            Some((
                "45:41",
                "KernelBuffer `data`.slice(4, 5) is out of bounds: the buffer has 8 elements (a slice needs 1 <= count and offset + count <= length)".to_string(),
            )),
        ),
        (
            "11",
            Some((
                "51:13",
                "the array is the target of a downloadAsync that has not landed: call sync() on its stream (or waitHost() on an event recorded after it) before using the array in another transfer".to_string(),
            )),
        ),
    ];
    for (what, error) in cases {
        let r = differential_with(file, &src, &[what.to_string()]);
        match error {
            None => {
                assert_eq!(r.out, "done 1.0\n", "case {what}");
                assert_eq!(r.end, "returned 0", "case {what}");
            }
            Some((at, message)) => {
                assert_eq!(r.out, "", "case {what}");
                assert_eq!(
                    r.end,
                    format!("runtime error: {file}:{at}: runtime error: {message}"),
                    "case {what}"
                );
            }
        }
    }
}

#[test]
fn scene_building_errors_match_the_interpreter() {
    // Bad arrays are refused by the runtime before it asks the device anything, but a
    // context is still needed: without a device both executors only say so.
    let ctx = match cajeta_runtime::Context::new() {
        Ok(c) => c,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI=true but no usable Vulkan device: {e}")
        }
        Err(_) => return,
    };
    let file = "scene_errors.cajeta";
    let src = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let triangles = "AccelerationStructure.fromTriangles";
    let cases = [
        (
            "1",
            "13:41",
            format!("{triangles}: the vertex array holds 4 floats, not a multiple of 3 (x, y, z per vertex)"),
        ),
        (
            "2",
            "17:41",
            format!("{triangles}: index 4 at position 2 is out of range for 4 vertices"),
        ),
        (
            "3",
            "21:41",
            format!("{triangles}: a triangle acceleration structure needs at least one triangle (the vertex array is empty)"),
        ),
        (
            "4",
            "24:41",
            format!("{triangles}: 4 vertices without an index array do not make whole triangles (three vertices each)"),
        ),
        (
            "5",
            "28:41",
            "AccelerationStructure.fromAabbs: the box array holds 5 floats, not a non-zero multiple of 6 (minX, minY, minZ, maxX, maxY, maxZ per box)".to_string(),
        ),
        (
            "6",
            "32:41",
            "AccelerationStructure.fromAabbs: box 0 has a minimum above its maximum (or a NaN bound)".to_string(),
        ),
    ];
    for (what, at, message) in cases {
        let r = differential_with(file, &src, &[what.to_string()]);
        assert_eq!(r.out, "", "case {what}");
        assert_eq!(
            r.end,
            format!("runtime error: {file}:{at}: runtime error: {message}"),
            "case {what}"
        );
    }
    // Valid input (and the instance cases, which need scenes first): built where the device
    // can, else the error at the first scene names the extension.
    let instance_cases = [
        (
            "7",
            "42:41",
            "AccelerationStructure.instanced: the transform array holds 3 floats, not a non-zero multiple of 12 (a row-major 3x4 matrix per instance)",
        ),
        (
            "8",
            "47:41",
            "AccelerationStructure.instanced: mask 256 of instance 1 does not fit in 8 bits",
        ),
        (
            "9",
            "51:41",
            "AccelerationStructure.instanced: the part is itself an instanced scene; instance a scene made by fromTriangles or fromAabbs",
        ),
    ];
    let r = differential_with(file, &src, &[]);
    if ctx.supports_acceleration_structures() {
        assert_eq!((r.out.as_str(), r.end.as_str()), ("built\n", "returned 0"));
        for (what, at, message) in instance_cases {
            let r = differential_with(file, &src, &[what.to_string()]);
            assert_eq!(
                r.end,
                format!("runtime error: {file}:{at}: runtime error: {message}"),
                "case {what}"
            );
        }
    } else {
        let unsupported = format!(
            "runtime error: {file}:34:39: runtime error: {triangles}: building acceleration structures needs Vulkan extension `VK_KHR_acceleration_structure` (with `VK_KHR_deferred_host_operations` and the `accelerationStructure` and `bufferDeviceAddress` features), which device `{}` does not support",
            ctx.device_info().name
        );
        assert_eq!(r.end, unsupported);
        for (what, _, _) in instance_cases {
            let r = differential_with(file, &src, &[what.to_string()]);
            assert_eq!(r.end, unsupported, "case {what}");
        }
    }
}
