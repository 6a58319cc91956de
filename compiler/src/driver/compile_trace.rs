//! `CAJETA_COMPILE_TRACE=FILE`: a timeline of a compile, for finding where its wall time
//! goes on a machine without a profiler. Every event is one line appended to `FILE` — the
//! clock (`CLOCK_MONOTONIC`, milliseconds, the same for every process of the machine), the
//! process id, the thread's name, what happened — so the compiler, the `cajetac-llvm` it
//! hands a command to and its emission helpers (which inherit the variable) write one
//! timeline between them. Unset, an event costs one load of a flag.

use std::io::Write as _;
use std::sync::OnceLock;

/// The environment variable naming the file the timeline is appended to.
pub const TRACE_VAR: &str = "CAJETA_COMPILE_TRACE";

/// The trace file, opened on the first event; `None` when the variable is unset or the file
/// cannot be opened (a trace is never a reason to fail a compile).
static FILE: OnceLock<Option<std::fs::File>> = OnceLock::new();

/// Appends the event `what()` describes, when a trace is asked for (`what` is not called
/// otherwise).
pub fn event(what: impl FnOnce() -> String) {
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os(TRACE_VAR)?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
    });
    let Some(mut file) = file.as_ref() else {
        return;
    };
    let now = monotonic_ms();
    let thread = std::thread::current();
    let line = format!(
        "{now:.3} {} {} {}\n",
        std::process::id(),
        thread.name().unwrap_or("-"),
        what()
    );
    // One `write` per line on a file opened for appending: lines of several processes and
    // threads interleave whole.
    let _ = file.write_all(line.as_bytes());
}

/// The machine's monotonic clock in milliseconds.
fn monotonic_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes the clock into a valid struct.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}
