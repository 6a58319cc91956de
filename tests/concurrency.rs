//! Concurrency stress (issue 11): device programs run at once from many threads, each with
//! its own `Context`, and from many threads sharing one `Context`. On the H200 two contexts
//! at once used to lose the device (a kernel that spun for seconds could not be switched
//! out); every program here must still return 777. `CAJETA_STRESS_THREADS` sets the thread
//! count (16 by default, the H200 machine's core count) and `CAJETA_STRESS_ROUNDS` how many
//! programs each thread runs (2 by default, which keeps CI's lavapipe run short while the
//! threads together still cover every program; the H200 run uses all of them).

use crate::device::run_file;
use cajeta_runtime::{Context, ContextOptions};
use cajeta_tests::{device_context, tests_dir};
use std::path::PathBuf;

/// Short device programs covering buffers, images, atomics, shared memory and waves (the soak
/// test runs them too).
pub(crate) const PROGRAMS: &[&str] = &[
    "saxpy.cajeta",
    "spec_example.cajeta",
    "atomics.cajeta",
    "shared_reduce.cajeta",
    "image_chain.cajeta",
    "waves.cajeta",
    "early_return.cajeta",
];

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn threads() -> usize {
    env_count("CAJETA_STRESS_THREADS", 16)
}

fn programs() -> Vec<PathBuf> {
    PROGRAMS
        .iter()
        .map(|p| tests_dir().join("device").join(p))
        .collect()
}

/// Runs every program from `n` threads, thread `t` starting at program `t` so that different
/// kernels overlap; `context(t)` gives each thread its context. Returns the failures.
fn run_all(n: usize, context: impl Fn(usize) -> Context + Sync) -> Vec<String> {
    let programs = programs();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..n)
            .map(|t| {
                let (programs, context) = (&programs, &context);
                scope.spawn(move || {
                    let ctx = context(t);
                    let mut failures = Vec::new();
                    for k in 0..env_count("CAJETA_STRESS_ROUNDS", 2).min(programs.len()) {
                        let p = &programs[(t + k) % programs.len()];
                        match run_file(&ctx, p) {
                            Ok(v) if v == "777" => {}
                            Ok(v) => {
                                failures.push(format!("thread {t}: {}: returned {v}", p.display()))
                            }
                            Err(e) => failures.push(format!("thread {t}: {}: {e}", p.display())),
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join()
                    .unwrap_or_else(|_| vec!["a thread panicked".into()])
            })
            .collect()
    })
}

#[test]
fn many_threads_each_with_their_own_context() {
    if device_context(false).is_none() {
        return;
    }
    let failures = run_all(threads(), |_| {
        Context::with_options(ContextOptions::from_env()).expect("context")
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn many_threads_sharing_one_context() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let failures = run_all(threads(), |_| ctx.clone());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
