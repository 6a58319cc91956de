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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
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
        reap_ended_helpers(false);
        let mut command = Command::new(exe);
        command.arg(helper::HELPER_ARG);
        crate::driver::compile_trace::event(|| "spawning a helper".into());
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        crate::driver::compile_trace::event(|| format!("helper {} spawned", child.id()));
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
        use crate::driver::compile_trace::event;
        event(|| format!("helper {}: killing", self.child.id()));
        let _ = self.child.kill();
        let _ = self.child.wait();
        event(|| format!("helper {}: reaped", self.child.id()));
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Closing its stdin ends an idle helper; killing it is quicker and also ends a busy one.
        self.stdin = None;
        if !DEFERRED_WAITS.load(Ordering::Relaxed) {
            self.kill();
            return;
        }
        // Its end (unmapping LLVM's pages: 0.4–0.8 ms on the 16-core host) is not waited for
        // here, on the compiling thread's path, but in [`reap_ended_helpers`]. One already
        // waited for (`kill`, a crash) is not killed again: its process id may be another
        // process's by now.
        if !matches!(self.child.try_wait(), Ok(None)) {
            return;
        }
        crate::driver::compile_trace::event(|| format!("helper {}: killed", self.child.id()));
        if self.child.kill().is_ok() {
            if let Ok(mut ended) = ENDED.lock() {
                ended.push(self.child.id());
            }
        }
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

/// Helpers killed and not yet waited for, by process id ([`reap_ended_helpers`]).
static ENDED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Whether a dropped helper is killed without waiting for it ([`defer_helper_waits`]).
static DEFERRED_WAITS: AtomicBool = AtomicBool::new(false);

/// From now on a dropped helper is killed and left to [`end_helpers`] to wait for, instead of
/// being waited for where it is dropped. For a process that owns its children (the command
/// line, which calls it first and [`end_helpers`] before it exits): waiting later by process
/// id is safe only where nothing else waits for any child, so a program that embeds the
/// compiler keeps the waits where they were.
pub fn defer_helper_waits() {
    DEFERRED_WAITS.store(true, Ordering::Relaxed);
}

/// Waits for the helpers that were killed when dropped (each compiling thread's at its end,
/// once [`defer_helper_waits`] was called), after first killing those of the calling thread
/// and the prestarted ones no thread took:
/// the compile's helpers end side by side while the caller goes on, and are accounted to it
/// (their CPU time in its `wait4`) instead of being left to the system. `wait` false only
/// kills (call it when the kernels are compiled, before the outputs are written), true also
/// waits (before the process exits).
pub fn end_helpers(wait: bool) {
    THREAD_HELPER.with(|slot| slot.borrow_mut().take());
    if let Ok(mut pool) = PRESTARTED.lock() {
        pool.clear();
    }
    if wait {
        reap_ended_helpers(true);
    }
}

/// Waits for the killed helpers ([`ENDED`]): all of them when `block`, else those that have
/// ended already (a process that compiles again and again keeps no more than one compile's
/// helpers unreaped).
fn reap_ended_helpers(block: bool) {
    let Ok(mut ended) = ENDED.lock() else { return };
    if ended.is_empty() {
        return;
    }
    ended.retain(|&pid| {
        let mut status = 0;
        let flags = if block { 0 } else { libc::WNOHANG };
        // SAFETY: waits for a child of this process by its id, writing into a valid int.
        let r = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, flags) };
        r == 0
    });
    crate::driver::compile_trace::event(|| format!("ended helpers reaped, {} left", ended.len()));
}

/// Helpers started ahead of the compile ([`prestart`]), each taken by the first compiling
/// thread that needs a helper and has none.
static PRESTARTED: Mutex<Vec<Helper>> = Mutex::new(Vec::new());

/// Starts `count` helpers of `exe` now,
/// for the compiling threads to take later. Called before the front end, they start (a fresh process
/// linking LLVM: about 3.6 ms of wall time on the 2-core container) and read in LLVM while
/// the compiler parses and checks the program, instead of on each compiling thread's path
/// after it. Call it from a thread that outlives the compile (`PR_SET_PDEATHSIG` ends a
/// helper with the thread that started it): the command line's main thread.
pub(super) fn prestart(exe: &Path, count: usize) {
    let started: Vec<Helper> = (0..count).filter_map(|_| Helper::start(exe)).collect();
    crate::driver::compile_trace::event(|| format!("{} helpers started", started.len()));
    if let Ok(mut pool) = PRESTARTED.lock() {
        pool.extend(started);
    }
}

/// A prestarted helper of `exe` that is still running, when there is one.
fn take_prestarted(exe: &Path) -> Option<Helper> {
    let mut pool = PRESTARTED.lock().ok()?;
    while let Some(i) = pool.iter().position(|h| h.exe == exe) {
        let mut helper = pool.swap_remove(i);
        if !helper.exited() {
            return Some(helper);
        }
    }
    None
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
