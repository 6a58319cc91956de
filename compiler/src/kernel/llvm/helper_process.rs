//! One running emission helper, kept for the kernels that follow. Starting a helper is most
//! of a small kernel's LLVM compile (a fresh process that links LLVM runs its static
//! initializers and reads in its pages: about 3 ms, against 1–2 ms for the kernel itself), so
//! a helper answers requests until its stdin closes ([`super::helper`]'s framing), and each
//! compiling thread keeps one ([`with_thread_helper`]). A helper that crashes or passes the
//! time limit is dropped with the request it was on, and the next request starts a new one:
//! a crash still costs one kernel only.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::helper;

/// The most of a helper's stderr kept for an error message (its last words).
const STDERR_KEPT: usize = 64 << 10;

/// What became of one request.
pub(super) enum Reply {
    /// The helper's answer (see `helper.rs`).
    Answer(Vec<u8>),
    /// The helper ended before answering: its exit status and the end of its stderr.
    Ended(ExitStatus, Vec<u8>),
    /// No answer by the deadline: the helper was killed.
    TimedOut,
}

/// A running helper.
pub(super) struct Helper {
    exe: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    /// Answers, one per request; `None` once its stdout closed.
    answers: mpsc::Receiver<Option<Vec<u8>>>,
    /// The end of its stderr, for the message when it crashes.
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread reading its stderr, which ends when the helper does.
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Helper {
    /// Starts `exe` as a helper; `None` when it cannot be started.
    pub(super) fn start(exe: &Path) -> Option<Helper> {
        Helper::start_with(exe, false)
    }

    /// Starts `exe` as a helper that warms up first when `warm_up` (`helper::WARM_UP_ARG`).
    fn start_with(exe: &Path, warm_up: bool) -> Option<Helper> {
        let mut command = Command::new(exe);
        command.arg(helper::HELPER_ARG);
        if warm_up {
            command.arg(helper::WARM_UP_ARG);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take();
        let (sender, answers) = mpsc::channel();
        let mut stdout = child.stdout.take()?;
        // Reading on threads of their own: the caller waits for an answer with a deadline.
        std::thread::spawn(move || loop {
            let frame = helper::read_frame(&mut stdout).ok().flatten();
            let end = frame.is_none();
            if sender.send(frame).is_err() || end {
                return;
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&stderr);
        let mut err = child.stderr.take()?;
        let stderr_reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    return;
                }
                let Ok(mut kept) = kept.lock() else { return };
                kept.extend_from_slice(&chunk[..n]);
                let excess = kept.len().saturating_sub(STDERR_KEPT);
                kept.drain(..excess);
            }
        });
        Some(Helper {
            exe: exe.to_path_buf(),
            child,
            stdin,
            answers,
            stderr,
            stderr_reader: Some(stderr_reader),
        })
    }

    /// Sends one request and waits for its reply until `deadline`.
    pub(super) fn request(&mut self, pipeline: &str, text: &str, deadline: Instant) -> Reply {
        if let Ok(mut kept) = self.stderr.lock() {
            kept.clear();
        }
        let mut request = helper::request_header(pipeline).into_bytes();
        request.extend_from_slice(text.as_bytes());
        // The helper reads a whole request before working on it, so this write ends unless
        // the helper has died (then the pipe is broken and the status says why).
        let written = self
            .stdin
            .as_mut()
            .is_some_and(|s| helper::write_frame(s, &request).is_ok());
        let answer = if written {
            self.answers
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        } else {
            Ok(None)
        };
        match answer {
            Ok(Some(answer)) => Reply::Answer(answer),
            Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                match wait_until(&mut self.child, deadline) {
                    Some(status) => {
                        // Its stderr closed with its exit: all it said is read once the
                        // reader ends.
                        if let Some(reader) = self.stderr_reader.take() {
                            let _ = reader.join();
                        }
                        let said = self.stderr.lock().map(|k| k.clone()).unwrap_or_default();
                        Reply::Ended(status, said)
                    }
                    None => {
                        self.kill();
                        Reply::TimedOut
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.kill();
                Reply::TimedOut
            }
        }
    }

    /// Whether this helper has exited (between requests: killed from outside).
    fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Closing its stdin ends an idle helper; killing it is quicker and also ends a busy one.
        self.stdin = None;
        self.kill();
    }
}

/// Waits for `child` until `deadline`; `None` when it has not exited by then.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    // It has closed its stdout, so it is exiting: poll briefly rather than block for good.
    let mut pause = Duration::from_micros(100);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

thread_local! {
    /// This thread's helper. It is this thread's because the helper is started with
    /// `PR_SET_PDEATHSIG`, which kills it when the thread that started it ends (a helper
    /// taken from [`PRESTARTED`] was started by a thread that outlives the compile).
    static THREAD_HELPER: RefCell<Option<Helper>> = const { RefCell::new(None) };
}

/// Helpers started ahead of the compile ([`prestart`]), each taken by the first compiling
/// thread that needs a helper and has none, and how many are still being started.
struct Prestarted {
    ready: Vec<Helper>,
    starting: usize,
}

static PRESTARTED: Mutex<Prestarted> = Mutex::new(Prestarted {
    ready: Vec::new(),
    starting: 0,
});

/// Signalled each time a prestarted helper is ready (or failed to start).
static ARRIVED: Condvar = Condvar::new();

/// The most threads that start helpers at once. Starting one is a `posix_spawn` of the
/// 92 MB `cajetac-llvm` and two reader threads: one thread starting sixteen in turn kept the
/// front end waiting 35–40 ms on the 2-core container (`CAJETA_COMPILE_THREADS=16`).
const STARTERS: usize = 4;

/// How long a compiling thread waits for a helper that is being started before starting one
/// of its own (a starter that cannot start one says so at once; this only bounds a stall).
const ARRIVAL_WAIT: Duration = Duration::from_secs(5);

/// Starts `count` helpers of `exe`, warming up (`helper::WARM_UP_ARG`) when `warm_up`, for
/// the compiling threads to take later, and returns at once: the helpers start (a fresh
/// process linking LLVM: about 3 ms of CPU) and read in LLVM on up to [`STARTERS`] threads
/// of their own while the compiler parses and checks the program. Each starter thread then
/// stays, parked, for the rest of the process: `PR_SET_PDEATHSIG` ends a helper with the
/// thread that started it (called by the command line, whose process ends with the compile).
pub(super) fn prestart(exe: &Path, count: usize, warm_up: bool) {
    if count == 0 {
        return;
    }
    match PRESTARTED.lock() {
        Ok(mut pool) => pool.starting += count,
        Err(_) => return,
    }
    let starters = count.min(STARTERS);
    for s in 0..starters {
        let share = count / starters + usize::from(s < count % starters);
        let exe = exe.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("cajeta-helper-starter".to_string())
            .spawn(move || {
                for _ in 0..share {
                    arrived(Helper::start_with(&exe, warm_up));
                }
                loop {
                    std::thread::park();
                }
            });
        if spawned.is_err() {
            for _ in 0..share {
                arrived(None);
            }
        }
    }
}

/// Records a prestarted helper as ready (or, `None`, as not started) and wakes the threads
/// waiting for one.
fn arrived(helper: Option<Helper>) {
    if let Ok(mut pool) = PRESTARTED.lock() {
        pool.starting = pool.starting.saturating_sub(1);
        pool.ready.extend(helper);
    }
    ARRIVED.notify_all();
}

/// A prestarted helper of `exe` that is still running, waiting for one that is being
/// started (which is sooner than starting another); `None` when none is left.
fn take_prestarted(exe: &Path) -> Option<Helper> {
    let mut pool = PRESTARTED.lock().ok()?;
    loop {
        while let Some(i) = pool.ready.iter().position(|h| h.exe == exe) {
            let mut helper = pool.ready.swap_remove(i);
            if !helper.exited() {
                return Some(helper);
            }
        }
        if pool.starting == 0 {
            return None;
        }
        let (next, waited) = ARRIVED.wait_timeout(pool, ARRIVAL_WAIT).ok()?;
        if waited.timed_out() {
            return None;
        }
        pool = next;
    }
}

/// Runs `f` with this thread's running helper of `exe`, started first when there is none
/// (or it has ended); `None` when it cannot be started. A helper that `f` leaves dead (a
/// crash, the time limit) is dropped.
pub(super) fn with_thread_helper<T>(exe: &Path, f: impl FnOnce(&mut Helper) -> T) -> Option<T> {
    THREAD_HELPER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_mut().is_some_and(|h| h.exe != exe || h.exited()) {
            *slot = None;
        }
        if slot.is_none() {
            *slot = Some(match take_prestarted(exe) {
                Some(h) => h,
                None => Helper::start(exe)?,
            });
        }
        let helper = slot.as_mut()?;
        let out = f(helper);
        if helper.exited() {
            *slot = None;
        }
        Some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::{prestart, take_prestarted};
    use std::os::unix::fs::PermissionsExt as _;

    /// The pool's bookkeeping, with a script that waits a minute, whatever its arguments,
    /// standing in for the helper (no request is sent): `prestart` returns before its
    /// helpers exist, a taker waits for each one still being started, every helper is taken
    /// exactly once, and then there is none.
    #[test]
    fn prestarted_helpers_are_waited_for_and_each_taken_once() {
        let dir = std::env::temp_dir().join(format!("cajeta-prestart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let exe = dir.join("stand-in-helper");
        std::fs::write(&exe, "#!/bin/sh\nexec sleep 60\n").expect("script");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        prestart(&exe, 6, false);
        let taken: Vec<_> = (0..6).map(|_| take_prestarted(&exe)).collect();
        assert!(taken.iter().all(Option::is_some), "a helper was not taken");
        let mut pids: Vec<u32> = taken.iter().flatten().map(|h| h.child.id()).collect();
        pids.sort_unstable();
        pids.dedup();
        assert_eq!(pids.len(), 6, "a helper was handed out twice");
        assert!(
            take_prestarted(&exe).is_none(),
            "more helpers than were started"
        );
        drop(taken);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
