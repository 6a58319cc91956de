//! Cajeta's `Autotune` and `Optional<T>` in host code (docs/language.md, "Optional values and tuned values"),
//! run by both host executors with the store in a scratch `CAJETA_AUTOTUNE_DIR`: a first
//! run finds nothing and remembers a value, a second run recalls it, a corrupt store counts
//! as empty with a warning, and `get()` of an empty Optional is a runtime error naming it.
//! An Optional prints as Java's `Optional[v]` / `Optional.empty`. Both executors must print
//! the same and leave the same file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Exercises every Optional method and the three Autotune operations.
const PROGRAM: &str = r#"
package t;
import cajeta.xpu.*;
public final class P {
    static Optional<float32> half(int32 x) {
        if (x % 2 == 0) {
            return Optional.of((float32) x / 2.0f);
        }
        return Optional.empty();
    }
    public static int32 run() {
        Optional<int32> a = Optional.of(5);
        Optional<int32> e = Optional.empty();
        System.out.println(a.isPresent() + " " + a.isEmpty() + " " + a.get() + " " + a.orElse(9));
        System.out.println(e.isPresent() + " " + e.isEmpty() + " " + e.orElse(9));
        System.out.println(half(4).get() + " " + half(3).isPresent() + " " + half(3).orElse(-1.5f));
        Optional<boolean> b = Optional.of(true);
        System.out.println(b.get() + " " + Optional.of((int64) 3).orElse(4L));
        System.out.println(a + " " + e + " " + half(4));
        Optional<int32> r = Autotune.recall("tile");
        System.out.println("recalled " + r.isPresent() + " " + r.orElse(-1));
        boolean first = Autotune.claimOnce("tile");
        if (first) {
            Autotune.remember("tile", 128 + r.orElse(0));
        }
        System.out.println("claimed " + first + " then " + Autotune.claimOnce("tile"));
        System.out.println("stored " + Autotune.recall("tile").get() + ", other " + Autotune.recall("other").isEmpty());
        return 0;
    }
}
"#;

/// `get()` of an empty Optional.
const EMPTY_GET: &str = r#"
package t;
import cajeta.xpu.*;
public final class P {
    public static int32 run() {
        Optional<int32> v = Autotune.recall("never stored");
        System.out.println("before");
        return v.get();
    }
}
"#;

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cajetac-autotune-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `cajetac run --host mode` of `src` with the store in `store`.
fn run(mode: &str, src: &str, dir: &Path, store: &Path) -> Output {
    let file = dir.join("p.cajeta");
    std::fs::write(&file, src).unwrap();
    Command::new(env!("CARGO_BIN_EXE_cajetac"))
        .args(["run", "--host", mode])
        .arg(&file)
        .env("CAJETA_AUTOTUNE_DIR", store)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const FIRST_RUN: &str = "true false 5 5\nfalse true 9\n2.0 false -1.5\ntrue 3\n\
Optional[5] Optional.empty Optional[2.0]\n\
recalled false -1\nclaimed true then false\nstored 128, other true\n0\n";

#[test]
fn a_remembered_value_is_recalled_by_the_next_run_on_both_host_executors() {
    let mut files = Vec::new();
    for mode in ["interp", "native"] {
        let dir = scratch(mode);
        let store = dir.join("store");
        let first = run(mode, PROGRAM, &dir, &store);
        assert!(first.status.success(), "{mode}: {}", text(&first.stderr));
        assert_eq!(text(&first.stdout), FIRST_RUN, "{mode}");
        let file = std::fs::read_to_string(store.join("autotune.txt")).expect("the store file");
        assert!(file.ends_with("\ttile\t128\n"), "{mode}: {file:?}");
        assert_eq!(file.lines().count(), 1, "{mode}: {file:?}");
        // The next run finds 128, remembers 256 (128 more) and claims the key afresh.
        let second = run(mode, PROGRAM, &dir, &store);
        assert!(second.status.success(), "{mode}: {}", text(&second.stderr));
        let want = FIRST_RUN
            .replace("recalled false -1", "recalled true 128")
            .replace("stored 128", "stored 256");
        assert_eq!(text(&second.stdout), want, "{mode}");
        files.push(std::fs::read_to_string(store.join("autotune.txt")).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(files[0], files[1], "both executors leave the same store");
}

#[test]
fn a_corrupt_or_unreadable_store_counts_as_empty_with_a_warning() {
    for mode in ["interp", "native"] {
        let dir = scratch(&format!("corrupt-{mode}"));
        let store = dir.join("store");
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join("autotune.txt"), "no tabs here\n").unwrap();
        let out = run(mode, PROGRAM, &dir, &store);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), FIRST_RUN, "{mode}");
        assert!(
            text(&out.stderr).contains("is corrupt at line 1; it counts as empty"),
            "{mode}: {}",
            text(&out.stderr)
        );
        // The rewritten file is well formed again.
        let file = std::fs::read_to_string(store.join("autotune.txt")).unwrap();
        assert!(file.ends_with("\ttile\t128\n"), "{mode}: {file:?}");
        // A folder where the file should be can be neither read nor replaced: the run
        // still completes, keeping the value for itself.
        std::fs::remove_file(store.join("autotune.txt")).unwrap();
        std::fs::create_dir_all(store.join("autotune.txt")).unwrap();
        let out = run(mode, PROGRAM, &dir, &store);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), FIRST_RUN, "{mode}");
        let err = text(&out.stderr);
        assert!(err.contains("cannot be read"), "{mode}: {err}");
        assert!(err.contains("is kept for this run only"), "{mode}: {err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn get_of_an_empty_optional_is_a_runtime_error_naming_it() {
    for mode in ["interp", "native"] {
        let dir = scratch(&format!("empty-{mode}"));
        let out = run(mode, EMPTY_GET, &dir, &dir.join("store"));
        assert_eq!(out.status.code(), Some(3), "{mode}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "before\n", "{mode}");
        assert!(
            text(&out.stderr).contains(
                "p.cajeta:8:16: runtime error: `get()` of an empty Optional<int32>: no value is present"
            ),
            "{mode}: {}",
            text(&out.stderr)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
