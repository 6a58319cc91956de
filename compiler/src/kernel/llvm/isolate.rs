//! Emission in another process. LLVM 23.1's SPIR-V target ends the process with a
//! segmentation fault on some kernels (a shared array indexed inside a loop crashed its
//! pointer-cast legalization, docs/backends.md); a compiler must refuse such a kernel, not
//! die. So kernels of that kind are optimized and emitted by a helper process (`helper.rs`):
//! `cajetac-llvm` started afresh with a hidden argument, given the pipeline and the LLVM IR on
//! stdin, answering with the words (or LLVM's error) on stdout. A helper that crashes, or
//! takes longer than the limit (60 s, `CAJETA_LLVM_HELPER_TIMEOUT_S`), is killed and becomes
//! an error naming what happened, which `compile` turns into E0045.
//!
//! The helper is a new program (`std::process::Command`: spawn and exec), not a `fork` of
//! this one: a forked copy of a threaded compiler runs on locks other threads may have held
//! at the fork (the allocator's, LLVM's), and then waits forever.
//!
//! Which executable is the helper, first that answers (see [`emission_helper`]): the one
//! `CAJETAC_EXE` names; this program itself when it called `emit_helper_main` (`cajetac-llvm`
//! does); a `cajetac-llvm` beside this program's executable, or in the folder above it (cargo
//! puts test binaries in `target/<profile>/deps`, `cajetac-llvm` in `target/<profile>`). A candidate
//! other than this program is probed once: it must answer, and be of this very build. With no
//! helper, kernels are emitted in this process, unisolated.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::helper_process::{with_thread_helper, Helper, Reply};
use super::{emit, helper};

/// How the error of a helper that crashed starts.
pub(crate) const CRASHED: &str = "LLVM crashed";

/// How long a helper may take when `CAJETA_LLVM_HELPER_TIMEOUT_S` does not say.
const DEFAULT_LIMIT: Duration = Duration::from_secs(60);

/// [`emit::emit_spirv`] in the helper process, or in this one when there is no helper.
pub(crate) fn emit_isolated(text: &str, pipeline: &str) -> Result<Vec<u32>, String> {
    let Some(exe) = emission_helper() else {
        return emit::emit_spirv(text, pipeline);
    };
    // `None`: the helper no longer answers for this build (replaced since the probe).
    run_helper(exe, pipeline, text, limit()).unwrap_or_else(|| emit::emit_spirv(text, pipeline))
}

/// The helper this program's LLVM kernel compiles use (looked up once, see the module
/// comment), or `None` when kernels are emitted in process.
pub fn emission_helper() -> Option<&'static Path> {
    static HELPER: OnceLock<Option<PathBuf>> = OnceLock::new();
    HELPER
        .get_or_init(|| {
            let current = std::env::current_exe().ok();
            candidates(
                std::env::var_os("CAJETAC_EXE").map(PathBuf::from),
                current.as_deref(),
                helper::executable_serves(),
            )
            .into_iter()
            .find(|(exe, trusted)| *trusted || probe(exe))
            .map(|(exe, _)| exe)
        })
        .as_deref()
}

/// The helper candidates in order, each with whether it needs no probe (this program itself
/// when it serves the helper mode).
fn candidates(
    explicit: Option<PathBuf>,
    current: Option<&Path>,
    serves: bool,
) -> Vec<(PathBuf, bool)> {
    let mut list = Vec::new();
    if let Some(exe) = explicit.filter(|e| !e.as_os_str().is_empty()) {
        list.push((exe, false));
    }
    let Some(current) = current else {
        return list;
    };
    if serves {
        list.push((current.to_path_buf(), true));
    }
    let name = format!("cajetac-llvm{}", std::env::consts::EXE_SUFFIX);
    let mut dirs = current.ancestors().skip(1).take(2);
    list.extend(dirs.by_ref().map(|d| (d.join(&name), false)));
    list.retain(|(exe, trusted)| *trusted || exe.is_file());
    list
}

/// The SPIR-V words LLVM emits for the kernel module `text` with `pipeline`, before the
/// post-pass (in the emission helper when there is one): for the tests that check a
/// workaround on the modules of a pipeline the backend no longer tries first
/// (`tests/llvm_target.rs`: LLVM's O2 since the lean pipeline, `emit::PIPELINES`).
#[doc(hidden)]
pub fn emit_with_pipeline(text: &str, pipeline: &str) -> Result<Vec<u32>, String> {
    emit_isolated(text, pipeline)
}

/// Starts, ahead of the compile, the emission helpers that compiling about `kernels` kernels
/// with `--backend llvm` will use: one per batch (`batch::batch_size`), at most one per
/// compile thread (`driver::default_threads`), none when kernels are emitted in process.
/// Each starts while this process parses and checks the program, and is then taken by the
/// first compiling thread that
/// needs a helper (`helper_process::prestart`); the command line
/// calls it before the front end, with the kernels counted in the sources (an estimate: a
/// helper too many is killed unused at exit, one too few started when needed). Call it from
/// a thread that outlives the compile. Nothing compiled depends on it.
pub fn prestart_helpers(kernels: usize) {
    if kernels == 0 {
        return;
    }
    let Some(exe) = emission_helper() else {
        return;
    };
    let batches = kernels.div_ceil(super::batch_size(kernels).max(1));
    let threads = crate::driver::default_threads().get();
    // They do not emit a throwaway kernel while they wait (a warm-up, tried and removed:
    // sixteen at once on the 16-core host made 200 kernels 4 ms slower, 44.7 against 40.7
    // ms of wall time, and two on the 2-core container changed nothing, 78.0 against 77.5).
    super::helper_process::prestart(exe, batches.min(threads));
}

/// Whether `exe` answers a probe as a helper of this build.
fn probe(exe: &Path) -> bool {
    let Some(mut helper) = Helper::start(exe) else {
        return false;
    };
    let reply = helper.request("", "", Instant::now() + limit());
    matches!(meaning(reply, limit()), Some(Ok(words)) if words.is_empty())
}

/// The helper's time limit: `CAJETA_LLVM_HELPER_TIMEOUT_S` seconds, else a minute.
fn limit() -> Duration {
    std::env::var("CAJETA_LLVM_HELPER_TIMEOUT_S")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .map_or(DEFAULT_LIMIT, Duration::from_secs)
}

/// Runs one request on this thread's helper of `exe` (started when there is none). `None`
/// when it could not be started or is of another build; otherwise the words or the error
/// (LLVM's, a crash, the time limit).
fn run_helper(
    exe: &Path,
    pipeline: &str,
    text: &str,
    limit: Duration,
) -> Option<Result<Vec<u32>, String>> {
    let deadline = Instant::now() + limit;
    let reply = with_thread_helper(exe, |h| h.request(pipeline, text, deadline))?;
    meaning(reply, limit)
}

/// What a helper's reply means. `None`: a helper of another build.
fn meaning(reply: Reply, limit: Duration) -> Option<Result<Vec<u32>, String>> {
    match reply {
        Reply::Answer(answer) => Some(match answer.split_first() {
            Some((&helper::WORDS, words)) if words.len() % 4 == 0 => Ok(words
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()),
            Some((&helper::ERROR, message)) => Err(String::from_utf8_lossy(message).into_owned()),
            Some((&helper::MISMATCH, _)) => return None,
            _ => Err("the helper's answer is not one this build knows".to_string()),
        }),
        Reply::Ended(status, stderr) => Some(Err(ended(status, &stderr))),
        Reply::TimedOut => Some(Err(format!(
            "LLVM did not finish within {} s",
            limit.as_secs()
        ))),
    }
}

/// The message for a helper that ended without answering: how it ended, and its last words
/// on stderr (LLVM's "LLVM ERROR: …" before it aborts).
fn ended(status: ExitStatus, stderr: &[u8]) -> String {
    let said = String::from_utf8_lossy(stderr)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| format!(": {}", l.chars().take(300).collect::<String>()))
        .unwrap_or_default();
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("{CRASHED} (signal {signal}) emitting this kernel{said}");
    }
    format!("LLVM ended without emitting this kernel ({status}){said}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_come_in_the_documented_order_and_only_when_they_exist() {
        let root = std::env::temp_dir().join(format!("cajeta-helper-cands-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let deps = root.join("debug").join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let name = format!("cajetac-llvm{}", std::env::consts::EXE_SUFFIX);
        let test_binary = deps.join("suite-0123");
        let explicit = root.join("mine");
        for file in [&test_binary, &explicit, &root.join("debug").join(&name)] {
            std::fs::write(file, b"").unwrap();
        }
        // An embedder's test binary: the explicit one, then the cajetac one folder up (none
        // beside it in deps/).
        assert_eq!(
            candidates(Some(explicit.clone()), Some(&test_binary), false),
            [
                (explicit.clone(), false),
                (root.join("debug").join(&name), false)
            ]
        );
        // cajetac itself: itself, trusted, before any other; a missing explicit one is
        // skipped.
        let cajetac = root.join("debug").join(&name);
        assert_eq!(
            candidates(Some(root.join("missing")), Some(&cajetac), true)[0],
            (cajetac.clone(), true)
        );
        // Beside the executable before the folder above.
        std::fs::write(deps.join(&name), b"").unwrap();
        assert_eq!(
            candidates(None, Some(&test_binary), false),
            [(deps.join(&name), false), (cajetac, false)]
        );
        assert!(candidates(None, None, false).is_empty());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_program_that_is_not_a_helper_is_not_used() {
        // `true` answers nothing and exits 0; a missing file cannot be started.
        assert!(!probe(Path::new("/bin/true")));
        assert!(!probe(Path::new("/nonexistent/cajetac")));
    }
}
