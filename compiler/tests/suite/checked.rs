//! Checked mode (`cajetac run --checked`, `CAJETA_CHECKED=1`) and per-kernel limits, through
//! the command line: the exact runtime error of an out-of-bounds buffer write, buffer read,
//! shared-array store, image load, vload and texture fetch level (exit 3), identical output
//! of an in-bounds program with and without checking, and over-limit static shared memory as
//! a launch error (no profile) and a compile error (`--device-profile`), and the module
//! `cajetac build --checked` writes. Runs on whatever Vulkan device is present.

use std::path::PathBuf;
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cajetac(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cajetac"));
    c.args(args).current_dir(repo());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Whether the run found no device (then the test passes unless `CI=true`).
fn no_device(out: &Output) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let none = stderr.contains("no Vulkan device") || stderr.contains("cannot use the GPU");
    if none && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but no Vulkan device:\n{stderr}");
    }
    none
}

/// `(program, first line of stderr, the launch note)`: one thread violates, so the reported
/// violation is the same on every device.
const CASES: [(&str, &str, &str); 6] = [
    (
        "tests/checked/buffer_write.cajeta",
        "tests/checked/buffer_write.cajeta:11:13: runtime error: kernel `k`: index 1000016 out of bounds for `out` of length 16",
        "tests/checked/buffer_write.cajeta:18:9: note: in this launch",
    ),
    (
        "tests/checked/buffer_read.cajeta",
        "tests/checked/buffer_read.cajeta:10:31: runtime error: kernel `copy`: index -1 out of bounds for `src` of length 8",
        "tests/checked/buffer_read.cajeta:20:9: note: in this launch",
    ),
    (
        "tests/checked/shared.cajeta",
        "tests/checked/shared.cajeta:11:9: runtime error: kernel `k`: index 64 out of bounds for `tile` of length 64",
        "tests/checked/shared.cajeta:19:9: note: in this launch",
    ),
    (
        "tests/checked/image.cajeta",
        "tests/checked/image.cajeta:11:27: runtime error: kernel `k`: texel (16, 3) out of bounds for `img` of size 16x16",
        "tests/checked/image.cajeta:18:9: note: in this launch",
    ),
    (
        "tests/checked/vload.cajeta",
        "tests/checked/vload.cajeta:12:36: runtime error: kernel `twice`: vload of 4 elements at index 9 (elements 36..39) out of bounds for `src` of length 38",
        "tests/checked/vload.cajeta:32:9: note: in this launch",
    ),
    (
        "tests/checked/fetch_level.cajeta",
        "tests/checked/fetch_level.cajeta:9:22: runtime error: kernel `get`: fetch at level 2 out of bounds for `tex` with 2 level(s)",
        "tests/checked/fetch_level.cajeta:18:9: note: in this launch",
    ),
];

#[test]
fn checked_run_reports_the_first_violation_of_each_kind() {
    for (file, first, note) in CASES {
        let out = cajetac(&["run", "--checked", file], &[]);
        if no_device(&out) {
            return;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{file}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines, [first, note], "{file}");
    }
}

#[test]
fn cajeta_checked_env_turns_checking_on_and_the_default_is_unchecked() {
    let (file, first, _) = CASES[0];
    let out = cajetac(&["run", file], &[("CAJETA_CHECKED", "1")]);
    if no_device(&out) {
        return;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.lines().next(), Some(first));
    // Unchecked (the documented default): the write is dropped by robust buffer access or is
    // undefined; this program exits normally either way on lavapipe.
    let out = cajetac(&["run", file], &[("CAJETA_CHECKED", "0")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn in_bounds_program_gives_identical_results_checked_and_unchecked() {
    let file = "tests/checked/in_bounds.cajeta";
    let plain = cajetac(&["run", file], &[]);
    if no_device(&plain) {
        return;
    }
    let checked = cajetac(&["run", "--checked", file], &[]);
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success() && checked.status.success());
    assert!(stdout.starts_with("checksum "), "{stdout}");
    assert_eq!(plain.stdout, checked.stdout);
}

#[test]
fn over_limit_static_shared_memory_is_a_launch_error_and_a_profile_compile_error() {
    let file = "tests/checked/shared_too_big.cajeta";
    let out = cajetac(&["run", file], &[]);
    if !no_device(&out) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        let line = stderr.lines().next().unwrap_or_default();
        // Every real device has less than 64 KiB; the limit's value is the device's.
        assert!(
            line.starts_with("tests/checked/shared_too_big.cajeta:18:9: runtime error: launch of `big`: the kernel's shared arrays take 65536 bytes, exceeding maxComputeSharedMemorySize = "),
            "{stderr}"
        );
    }
    let dir = std::env::temp_dir().join(format!("cajetac-shared-{}", std::process::id()));
    let dir = dir.to_string_lossy().into_owned();
    for (profile, limit) in [("lavapipe", 32768), ("h200", 49152)] {
        let path = format!("tests/profiles/{profile}.json");
        let out = cajetac(&["build", file, "--device-profile", &path, "-o", &dir], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let want = format!("kernel `big` needs 65536 bytes of shared memory (maxComputeSharedMemorySize = {limit}), which device profile");
        assert!(stderr.contains(&want), "{stderr}");
    }
    let out = cajetac(&["build", file, "-o", &dir], &[]);
    assert!(out.status.success(), "without a profile the build succeeds");
}

/// The LLVM kernel backend does not lower checked mode (no access kind of it): it refuses it
/// with E0045 rather than running unchecked.
#[cfg(feature = "native-host")]
#[test]
fn the_llvm_backend_refuses_checked_mode_with_e0045() {
    let file = "tests/checked/vload.cajeta";
    let out = cajetac(&["run", "--checked", "--backend", "llvm", file], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error[E0045]: the LLVM kernel backend (`--backend llvm`) cannot lower checked mode (`--checked`)"),
        "{stderr}"
    );
}

/// `cajetac build --checked` writes the checked module: blur Y's resource extents are queried
/// once, in the kernel's first block (not in its loop), and its image load is not behind a
/// branch (the report call is, in the loop's copy with checks); without `--checked` nothing
/// of this is emitted.
#[test]
fn build_checked_hoists_extent_queries_and_reads_texels_unguarded() {
    let dir = std::env::temp_dir().join(format!("cajetac-checked-build-{}", std::process::id()));
    let dir = dir.to_string_lossy().into_owned();
    let mut asm = Vec::new();
    for checked in [false, true] {
        let mut args = vec!["build", "examples/blur.cajeta", "--kernel", "blurY"];
        args.extend(["--emit", "spvasm", "-o", &dir]);
        if checked {
            args.push("--checked");
        }
        let out = cajetac(&args, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        asm.push(std::fs::read_to_string(format!("{dir}/blurY.spvasm")).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
    let [plain, checked] = [&asm[0], &asm[1]];
    assert!(!plain.contains("bounds_violation") && !plain.contains("OpImageQuerySize"));
    assert!(checked.contains("bounds_violation"), "{checked}");
    // The kernel's first block: from its first label to its first branch.
    let body = &checked[checked.find("OpFunction ").unwrap()..];
    let first_block = &body[..body.find("OpBranch").unwrap()];
    for (query, count) in [("OpImageQuerySize", 2), ("OpArrayLength", 1)] {
        assert_eq!(checked.matches(query).count(), count, "{query}: {checked}");
        assert_eq!(
            first_block.matches(query).count(),
            count,
            "{query}: {checked}"
        );
    }
    // The loop is versioned (docs/language.md): its copy without checks reads with nothing
    // after the read; the copy with them reads, then branches to the report.
    let lines: Vec<&str> = checked.lines().collect();
    let reads: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("OpImageRead"))
        .collect();
    assert_eq!(reads.len(), 2, "{checked}");
    assert!(
        !lines[reads[0] + 1].starts_with("OpSelectionMerge"),
        "{checked}"
    );
    assert!(
        lines[reads[1] + 1].starts_with("OpSelectionMerge"),
        "{checked}"
    );
}
