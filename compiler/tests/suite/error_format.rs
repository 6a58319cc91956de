//! `--error-format json` (docs/cli.md, "JSON diagnostics"): every error, warning and note of
//! `build`, `check` and `run` is one JSON record per line on stderr, in the versioned schema,
//! with every label's start and end and every note; the human format is unchanged, and each
//! record's `rendered` is exactly its human text.

use super::cli::{cajetac, have_device, repo, temp_dir};
use serde_json::{json, Value};
use std::path::Path;

/// Runs `cajetac args…` in `dir` with `env`: exit status, stdout, stderr.
fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let out = cajetac()
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `args` with `--error-format json` added.
fn json_args<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut a = args.to_vec();
    a.extend(["--error-format", "json"]);
    a
}

/// The records on a JSON stderr: every line is one, in schema `cajetac-diagnostics/1`.
fn records(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .map(|line| {
            let r: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON record ({e}): {line}\n{stderr}"));
            assert_eq!(r["schema"], "cajetac-diagnostics/1", "{line}");
            r
        })
        .collect()
}

/// The one record of a JSON stderr.
fn record(stderr: &str) -> Value {
    let mut all = records(stderr);
    assert_eq!(all.len(), 1, "{stderr}");
    all.remove(0)
}

/// A label's positions (line, column at start and at end) and the source text it covers.
fn span_of(label: &Value, source: &str) -> ((u64, u64, u64, u64), String) {
    let n = |k: &str| {
        label[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k} in {label}"))
    };
    let bytes = n("byte_start") as usize..n("byte_end") as usize;
    (
        (
            n("line_start"),
            n("column_start"),
            n("line_end"),
            n("column_end"),
        ),
        source[bytes].to_string(),
    )
}

#[test]
fn json_compile_diagnostics_carry_every_label_and_note() {
    let tests = repo().join("tests");
    let file = "diagnostics/redeclaration.cajeta";
    let source = std::fs::read_to_string(tests.join(file)).unwrap();
    let golden = std::fs::read_to_string(tests.join("diagnostics/redeclaration.stderr")).unwrap();
    let (status, stdout, stderr) = run_in(&tests, &json_args(&["check", file]), &[]);
    assert_eq!(status, Some(1));
    assert_eq!(stdout, "", "diagnostics go to stderr");
    let d = record(&stderr);
    assert_eq!(d["kind"], "compile");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["code"], "E0010");
    assert_eq!(d["message"], "`i` is already declared in this method");
    let labels = d["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 2, "{d}");
    assert_eq!(
        (
            &labels[0]["file"],
            &labels[0]["primary"],
            &labels[0]["label"]
        ),
        (&json!(file), &json!(true), &json!("declared again here"))
    );
    assert_eq!(span_of(&labels[0], &source), ((5, 20, 5, 21), "i".into()));
    assert_eq!(
        (&labels[1]["primary"], &labels[1]["label"]),
        (&json!(false), &json!("first declared here"))
    );
    assert_eq!(span_of(&labels[1], &source), ((4, 15, 4, 16), "i".into()));
    assert_eq!(
        d["notes"],
        json!([{"level": "help", "message": "choose another name"}])
    );
    // The human format is unchanged (the golden, then the count), and is what `rendered` says.
    let (status, _, human) = run_in(&tests, &["check", file], &[]);
    assert_eq!(status, Some(1));
    assert_eq!(
        human,
        format!("{golden}error: could not compile: 1 error\n")
    );
    assert_eq!(d["rendered"], golden);
    // `build` and `run` report the same records.
    for command in ["build", "run"] {
        let (status, stdout, stderr) = run_in(&tests, &json_args(&[command, file]), &[]);
        assert_eq!((status, stdout.as_str()), (Some(1), ""), "{command}");
        assert_eq!(record(&stderr), d, "{command}");
    }
}

#[test]
fn json_runtime_errors_carry_their_span_natively_and_interpreted() {
    let dir = temp_dir("json-runtime");
    std::fs::write(
        dir.join("div.cajeta"),
        "public final class D {\n    public static int32 run() {\n        System.out.println(\"before\");\n        int32 z = 0;\n        return 10 / z;\n    }\n}\n",
    )
    .unwrap();
    let source = std::fs::read_to_string(dir.join("div.cajeta")).unwrap();
    let modes: &[&str] = if cfg!(feature = "native-host") {
        &["native", "interp"]
    } else {
        &["interp"]
    };
    let mut seen = Vec::new();
    for host in modes {
        let args = ["run", "--host", host, "div.cajeta"];
        let (status, stdout, stderr) = run_in(&dir, &json_args(&args), &[]);
        assert_eq!(status, Some(3), "{host}: {stderr}");
        assert_eq!(
            stdout, "before\n",
            "{host}: the program's output stays on stdout"
        );
        let e = record(&stderr);
        assert_eq!(e["kind"], "runtime");
        assert_eq!(e["severity"], "error");
        assert_eq!(e["code"], Value::Null);
        assert_eq!(e["message"], "integer division by zero");
        assert_eq!(e["notes"], json!([]));
        let labels = e["labels"].as_array().unwrap();
        assert_eq!(labels.len(), 1, "{e}");
        assert_eq!(
            (&labels[0]["file"], &labels[0]["primary"]),
            (&json!("div.cajeta"), &json!(true))
        );
        assert_eq!(
            span_of(&labels[0], &source),
            ((5, 16, 5, 22), "10 / z".into())
        );
        let (status, stdout, human) = run_in(&dir, &args, &[]);
        assert_eq!((status, stdout.as_str()), (Some(3), "before\n"));
        assert_eq!(
            human,
            "div.cajeta:5:16: runtime error: integer division by zero\n"
        );
        assert_eq!(e["rendered"], human);
        seen.push(stderr);
    }
    assert!(
        seen.windows(2).all(|w| w[0] == w[1]),
        "the same JSON natively and interpreted: {seen:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Failed device use and launches are runtime errors at the statement that failed; a checked
/// kernel's out-of-bounds access has the launch as a secondary label.
#[test]
fn json_launch_errors_are_positioned() {
    let dir = temp_dir("json-launch");
    std::fs::write(
        dir.join("launch.cajeta"),
        "import cajeta.xpu.*;\npublic final class L {\n    @Kernel\n    public static void k(KernelBuffer<int32> out) {\n        out[KernelThread.globalIdX()] = 1;\n    }\n    public static int32 run() {\n        KernelBuffer<int32> d = heap KernelBuffer<int32>(4096);\n        KernelStream s = KernelStream.current();\n        k.launch(s, grid: [1], block: [4096])(d);\n        s.sync();\n        return 0;\n    }\n}\n",
    )
    .unwrap();
    let source = std::fs::read_to_string(dir.join("launch.cajeta")).unwrap();
    let mut seen = Vec::new();
    for host in ["native", "interp"]
        .iter()
        .filter(|h| cfg!(feature = "native-host") || **h == "interp")
    {
        // A device name that matches nothing is a usage error before anything runs, the
        // same from both executors.
        let args = ["run", "--host", host, "launch.cajeta"];
        let no_such = [("CAJETA_DEVICE", "no-such-device-anywhere")];
        let (status, _, stderr) = run_in(&dir, &json_args(&args), &no_such);
        assert_eq!(status, Some(2), "{stderr}");
        let e = record(&stderr);
        assert_eq!(e["kind"], "usage");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .starts_with("no device `no-such-device-anywhere`: choose one of "),
            "{e}"
        );
        // Without any Vulkan driver the interpreter has no device (native code would fall
        // back to the CPU device): the first device use, the allocation, fails at its
        // statement.
        if *host == "interp" {
            let no_driver = [("VK_DRIVER_FILES", "/nonexistent")];
            let (status, _, gpu_err) = run_in(&dir, &json_args(&args), &no_driver);
            assert_eq!(status, Some(3), "{gpu_err}");
            let g = record(&gpu_err);
            assert_eq!(g["kind"], "runtime");
            assert!(
                g["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("cannot use the GPU: "),
                "{g}"
            );
            let (pos, text) = span_of(&g["labels"][0], &source);
            assert_eq!((pos.0, pos.1), (8, 33), "{g}");
            assert_eq!(text, "heap KernelBuffer<int32>(4096)");
            let (_, _, human) = run_in(&dir, &args, &no_driver);
            assert_eq!(g["rendered"], human);
        }
        seen.push(stderr);
        if !have_device() {
            continue;
        }
        // A block over the device's limit: the launch statement.
        let (status, _, stderr) = run_in(&dir, &json_args(&args), &[]);
        assert_eq!(status, Some(3), "{stderr}");
        let e = record(&stderr);
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .starts_with("launch of `k`: block [4096,1,1] exceeds"),
            "{e}"
        );
        assert_eq!(
            span_of(&e["labels"][0], &source),
            (
                (10, 9, 10, 49),
                "k.launch(s, grid: [1], block: [4096])(d)".into()
            )
        );
        seen.push(stderr);
    }
    if cfg!(feature = "native-host") {
        let half = seen.len() / 2;
        assert_eq!(
            seen[..half],
            seen[half..],
            "the same JSON natively and interpreted"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    if !have_device() {
        return;
    }
    let tests = repo().join("tests");
    let file = "checked/shared.cajeta";
    let source = std::fs::read_to_string(tests.join(file)).unwrap();
    let (status, _, stderr) = run_in(&tests, &json_args(&["run", "--checked", file]), &[]);
    assert_eq!(status, Some(3), "{stderr}");
    let e = record(&stderr);
    assert_eq!(
        e["message"],
        "kernel `k`: index 64 out of bounds for `tile` of length 64"
    );
    let labels = e["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 2, "{e}");
    assert_eq!(span_of(&labels[0], &source).0, (11, 9, 11, 9), "{e}");
    assert_eq!(labels[1]["primary"], false);
    assert_eq!(labels[1]["label"], "in this launch");
    assert_eq!(span_of(&labels[1], &source).0 .0, 19, "{e}");
    assert_eq!(
        e["rendered"],
        "checked/shared.cajeta:11:9: runtime error: kernel `k`: index 64 out of bounds for `tile` of length 64\n\
         checked/shared.cajeta:19:9: note: in this launch\n"
    );
}

/// Errors of the command itself (files it cannot read or write, option values, a command line
/// clap refuses) are records too, and so are warnings and notes of a command that succeeds.
#[test]
fn json_covers_io_usage_errors_warnings_and_notes() {
    let dir = temp_dir("json-command");
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, "not a directory").unwrap();
    let below_file = plain.join("out");
    let below_file = below_file.to_str().unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    std::fs::write(
        dir.join("noentry.cajeta"),
        "public final class N {\n    static int32 f() {\n        return 1;\n    }\n}\n",
    )
    .unwrap();
    let noentry = dir.join("noentry.cajeta");
    let noentry = noentry.to_str().unwrap();
    let missing = "error: cannot read `no/such.cajeta`: No such file or directory (os error 2)\n";
    let cases: [(&[&str], &str, i32, String); 7] = [
        (&["check", "no/such.cajeta"], "io", 2, missing.into()),
        (&["run", "no/such.cajeta"], "io", 2, missing.into()),
        (&["build", "no/such.cajeta"], "io", 2, missing.into()),
        (
            &["build", "examples/img_rmw.cajeta", "-o", below_file],
            "io",
            2,
            format!("error: cannot create `{below_file}`: Not a directory (os error 20)\n"),
        ),
        (
            &["build", "examples/img_rmw.cajeta", "--kernel", "nosuch", "-o", out],
            "usage",
            2,
            "error: no kernel named `nosuch`; the program's kernels: fill, rmw\n".into(),
        ),
        (
            &["build", "examples/img_rmw.cajeta", "--target-env", "vulkan9"],
            "usage",
            2,
            "error: unknown target env `vulkan9` (expected vulkan1.1, vulkan1.2 or vulkan1.3)\n"
                .into(),
        ),
        (
            &["run", noentry],
            "compile",
            1,
            format!("error: `{noentry}` has no entry point: declare `public static int32 run()` or `public static void main()`\n"),
        ),
    ];
    for (args, kind, status, human) in cases {
        let (code, stdout, stderr) = run_in(&repo(), &json_args(args), &[]);
        assert_eq!(
            (code, stdout.as_str()),
            (Some(status), ""),
            "{args:?}: {stderr}"
        );
        let e = record(&stderr);
        assert_eq!(
            (
                &e["kind"],
                &e["severity"],
                &e["code"],
                &e["labels"],
                &e["notes"]
            ),
            (
                &json!(kind),
                &json!("error"),
                &Value::Null,
                &json!([]),
                &json!([])
            ),
            "{args:?}"
        );
        assert_eq!(
            format!("error: {}\n", e["message"].as_str().unwrap()),
            human,
            "{args:?}"
        );
        assert_eq!(e["rendered"], human, "{args:?}");
        let (code, _, text) = run_in(&repo(), args, &[]);
        assert_eq!(
            (code, text),
            (Some(status), human),
            "{args:?}: the human format"
        );
    }
    // A command line clap refuses, when it asks for JSON.
    let (code, _, stderr) = run_in(&repo(), &json_args(&["build", "--bogus", "x.cajeta"]), &[]);
    assert_eq!(code, Some(2));
    let e = record(&stderr);
    assert_eq!(e["kind"], "usage");
    assert_eq!(e["message"], "unexpected argument '--bogus' found");
    assert!(
        e["rendered"]
            .as_str()
            .unwrap()
            .contains("Usage: cajetac build"),
        "{e}"
    );
    // Warnings (precision fallbacks) and notes (nothing written) of a build that succeeds.
    let args = [
        "build",
        "examples/img_rmw.cajeta",
        "--fp16-storage",
        "-o",
        out,
    ];
    let (code, _, stderr) = run_in(&repo(), &json_args(&args), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let w = record(&stderr);
    assert_eq!(
        (&w["kind"], &w["severity"]),
        (&json!("usage"), &json!("warning"))
    );
    assert_eq!(
        w["rendered"],
        "warning: fp16 storage needs `storageBuffer16BitAccess`, which the device lacks; using fp16p\n"
    );
    let (_, _, human) = run_in(&repo(), &args, &[]);
    assert_eq!(w["rendered"], human);
    let args = ["build", noentry, "-o", out];
    let (code, _, stderr) = run_in(&repo(), &json_args(&args), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let n = record(&stderr);
    assert_eq!(
        (&n["kind"], &n["severity"]),
        (&json!("compile"), &json!("note"))
    );
    let (_, _, human) = run_in(&repo(), &args, &[]);
    assert_eq!(
        human,
        "note: the program has no kernels (`@Kernel` methods); nothing written\n"
    );
    assert_eq!(n["rendered"], human);
    std::fs::remove_dir_all(&dir).ok();
}
