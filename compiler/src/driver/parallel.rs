//! Kernels compiled on several threads. Each kernel's compile reads the specialized module
//! and the options and writes nothing shared, so kernels are independent; the results are
//! put back in the module's kernel order, so the output (modules, reflection, the order of
//! diagnostics) is the sequential compile's, byte for byte, whatever the thread count.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The environment variable that caps the compile threads (`1`: every kernel on the
/// calling thread).
pub const THREADS_VAR: &str = "CAJETA_COMPILE_THREADS";

/// Each worker's stack: what [`super::with_stage_stack`] would otherwise allocate for every
/// kernel (reserved address space; only the pages used are touched).
const WORKER_STACK: usize = super::STAGE_STACK;

/// The threads a compile uses by default: `CAJETA_COMPILE_THREADS` when it is a positive
/// number, else one per core.
pub fn default_threads() -> NonZeroUsize {
    std::env::var(THREADS_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<NonZeroUsize>().ok())
        .or_else(|| std::thread::available_parallelism().ok())
        .unwrap_or(NonZeroUsize::MIN)
}

/// Expressions of kernel code (kernel bodies, counted in the IR) that make one thread's
/// share of an rspirv compile worth a thread: about 2 ms of work on the 2-core VM. Below
/// it a thread costs more than it saves: 200 small kernels (`compile_speed`'s file) took
/// 6.7 ms of CPU and 7.3–7.8 ms of wall time on one thread and 7.3 ms and 7.7–9.1 ms on two;
/// 2,000 of them 83 and 85 ms of CPU, 104 and 76 ms of wall time (`perf stat`, 2026-12-06).
/// On 16 cores one thread per core made the 200 kernels cost 1.8x naga's CPU time for the
/// same wall time (docs/PERFORMANCE.md).
const EXPRESSIONS_PER_THREAD: usize = 8000;

/// The threads for an rspirv compile of kernels with `expressions` expressions in all:
/// one per [`EXPRESSIONS_PER_THREAD`], at most [`default_threads`]; `CAJETA_COMPILE_THREADS`,
/// when set, decides alone.
pub(super) fn threads_for_rspirv(expressions: usize) -> Threads {
    if std::env::var_os(THREADS_VAR).is_some() {
        return Threads::Default;
    }
    let wanted = 1 + expressions / EXPRESSIONS_PER_THREAD;
    if wanted <= 1 {
        return Threads::AtMost(NonZeroUsize::MIN);
    }
    let n = wanted.min(default_threads().get());
    Threads::AtMost(NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN))
}

/// How many threads a compile may use.
#[derive(Clone, Copy, Debug)]
pub(super) enum Threads {
    /// [`default_threads`], asked for only when there are two kernels or more: finding the
    /// cores reads the process's control groups, about twenty system calls that a
    /// one-kernel compile would pay for nothing.
    Default,
    /// At most this many.
    AtMost(NonZeroUsize),
}

/// `f` applied to every item, on at most `threads` threads (the calling thread being one of
/// them), the results in the items' order.
pub(super) fn map_ordered<I: Sync, T: Send>(
    items: &[I],
    threads: Threads,
    f: impl Fn(&I) -> T + Sync,
) -> Vec<T> {
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let threads = match threads {
        Threads::Default => default_threads(),
        Threads::AtMost(n) => n,
    };
    let threads = threads.get().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    // Work is handed out one item at a time: kernels differ in size by orders of magnitude.
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut all: Vec<(usize, T)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|n| {
                std::thread::Builder::new()
                    .name(format!("cajeta-compile-{n}"))
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, || {
                        super::stage_stack::on_thread_of_stack_size(WORKER_STACK, || {
                            super::with_stage_stack(work)
                        })
                    })
                    .ok()
            })
            .collect();
        let mut all = super::with_stage_stack(work);
        for h in helpers {
            // A panic in a worker is the compile's panic, as on one thread.
            match h.join() {
                Ok(mut d) => all.append(&mut d),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(t: Threads) -> usize {
        match t {
            Threads::AtMost(n) => n.get(),
            Threads::Default => default_threads().get(),
        }
    }

    #[test]
    fn small_rspirv_compiles_stay_on_one_thread_and_large_ones_spread() {
        if std::env::var_os(THREADS_VAR).is_some() {
            return; // the variable decides alone (its own behaviour is `default_threads`)
        }
        // 200 small kernels are about 5,400 expressions.
        assert_eq!(count(threads_for_rspirv(0)), 1);
        assert_eq!(count(threads_for_rspirv(5_400)), 1);
        let cores = default_threads().get();
        assert_eq!(count(threads_for_rspirv(54_000)), 7.min(cores));
        assert_eq!(count(threads_for_rspirv(usize::MAX / 2)), cores);
    }

    #[test]
    fn results_keep_the_items_order_on_any_thread_count() {
        let items: Vec<usize> = (0..100).collect();
        for n in [1, 2, 7] {
            let at_most = Threads::AtMost(NonZeroUsize::new(n).unwrap());
            let out = map_ordered(&items, at_most, |&i| i * 3);
            assert_eq!(out, items.iter().map(|i| i * 3).collect::<Vec<_>>());
        }
    }
}
