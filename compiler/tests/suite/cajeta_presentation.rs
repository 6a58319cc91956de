//! Cajeta's presentation types `RenderGraph` and `Swapchain` (docs/language.md,
//! "Presentation types"): declared with warning W0001 (`check`, `build` and `run` print it
//! and go on), always null, and passed and copied the same by both host executors; making
//! one or calling a method on one is E0024 with the same help.

use std::path::PathBuf;
use std::process::Command;

use crate::host_run::run_source;

/// `cajetac check` of `src`: whether it passed, and its stderr.
fn check(tag: &str, src: &str) -> (bool, String) {
    cajetac(tag, &["check"], src)
}

/// `cajetac ARGS` on `src` (its file last): whether it passed, and its stderr.
fn cajetac(tag: &str, args: &[&str], src: &str) -> (bool, String) {
    let dir =
        std::env::temp_dir().join(format!("cajetac-presentation-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("p.cajeta");
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cajetac"))
        .args(args)
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const HELP: &str =
    "presentation needs a window; cajetac runs headless: render into an Image2D and save it";

const DECLARED: &str = "package t;
import cajeta.xpu.*;
import cajeta.gfx.*;
public final class P {
    static int32 frames(RenderGraph g, Swapchain sc, int32 n) {
        Swapchain other = sc;
        return n + 1;
    }
    public static int32 run() {
        RenderGraph g = null;
        Swapchain sc;
        System.out.println(frames(g, sc, 41));
        return 777;
    }
}
";

#[test]
fn declared_presentation_types_check_with_a_warning_and_run_on_both_executors() {
    let (ok, err) = check("declared", DECLARED);
    assert!(ok, "{err}");
    // One warning per declaration: two parameters, three locals.
    assert_eq!(err.matches("warning[W0001]").count(), 5, "{err}");
    assert!(
        err.contains("`RenderGraph` is accepted as a type only"),
        "{err}"
    );
    assert!(err.contains(HELP), "{err}");
    assert!(!err.contains("error"), "{err}");
    // As JSON records, and from `build`, which goes on to compile the program.
    let (ok, json) = cajetac("json", &["check", "--error-format", "json"], DECLARED);
    assert!(ok, "{json}");
    assert_eq!(
        json.matches("\"severity\":\"warning\",\"code\":\"W0001\"")
            .count(),
        5,
        "{json}"
    );
    let out = std::env::temp_dir().join(format!("cajetac-presentation-out-{}", std::process::id()));
    let (ok, built) = cajetac("build", &["build", "-o", out.to_str().unwrap()], DECLARED);
    let _ = std::fs::remove_dir_all(&out);
    assert!(ok, "{built}");
    assert_eq!(built.matches("warning[W0001]").count(), 5, "{built}");
    for mode in ["interp", "native"] {
        let out = run_source("presentation", "declared", mode, DECLARED);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{mode}: {stdout}");
        assert_eq!(stdout, "42\n777\n", "{mode}");
        // `run` prints the warnings too (on stderr, as `check` does), then runs.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("warning[W0001]").count(),
            5,
            "{mode}: {stderr}"
        );
        assert!(stderr.contains(HELP), "{mode}: {stderr}");
    }
}

#[test]
fn making_or_using_a_presentation_value_is_e0024_with_the_help() {
    for (tag, body, what) in [
        (
            "method",
            "RenderGraph g = null; g.addPass(\"blur\");",
            "cannot call `addPass` on a `RenderGraph`",
        ),
        (
            "construct",
            "Swapchain sc = heap Swapchain(640, 480);",
            "cannot construct a `Swapchain`",
        ),
        (
            "static",
            "RenderGraph g = RenderGraph.create();",
            "cannot use the class `RenderGraph`",
        ),
    ] {
        let src = format!(
            "package t;\nimport cajeta.xpu.*;\npublic final class P {{\n    public static int32 run() {{ {body} return 0; }}\n}}\n"
        );
        let (ok, err) = check(tag, &src);
        assert!(!ok, "{tag}: accepted");
        assert!(err.contains("error[E0024]"), "{tag}: {err}");
        assert!(err.contains(what), "{tag}: {err}");
        assert!(err.contains("presentation needs a window"), "{tag}: {err}");
    }
}
