//! Large host memory copies split over several threads: a transfer's copy between the
//! user's array and pinned (staging or mapped) memory is bound by one core's copy rate
//! (about 10 GB/s), well below what a PCIe 5 link carries.
//!
//! The helper threads live in one process-wide pool, started on first use and parked on a
//! channel between copies, so a copy pays a wake-up per piece rather than a thread start.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Copies shorter than this run on the calling thread: waking helpers costs more than it saves.
pub(crate) const PARALLEL_FROM: usize = 4 << 20;
/// Each thread copies at least this much.
const MIN_PIECE: usize = 1 << 20;

/// One piece of a copy, as addresses (raw pointers are not `Send`).
struct Job {
    src: usize,
    dst: usize,
    len: usize,
    done: Arc<Pending>,
}

/// How many pieces of one copy are still running.
struct Pending {
    left: Mutex<usize>,
    zero: Condvar,
}

impl Pending {
    fn finish_one(&self) {
        let mut left = crate::lock(&self.left);
        *left -= 1;
        if *left == 0 {
            self.zero.notify_all();
        }
    }

    fn wait(&self) {
        let mut left = crate::lock(&self.left);
        while *left > 0 {
            left = self.zero.wait(left).unwrap_or_else(|p| p.into_inner());
        }
    }
}

struct Pool {
    jobs: Mutex<Sender<Job>>,
    /// Helper threads started so far.
    started: Mutex<usize>,
    queue: Arc<Mutex<Receiver<Job>>>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = channel();
        Pool {
            jobs: Mutex::new(tx),
            started: Mutex::new(0),
            queue: Arc::new(Mutex::new(rx)),
        }
    })
}

impl Pool {
    /// Starts helpers until at least `n` run; returns how many run (fewer if the OS refuses).
    fn ensure(&self, n: usize) -> usize {
        let mut started = crate::lock(&self.started);
        while *started < n {
            let queue = self.queue.clone();
            let spawned = std::thread::Builder::new()
                .name("cajeta-copy".into())
                .spawn(move || loop {
                    let job = match crate::lock(&queue).recv() {
                        Ok(job) => job,
                        Err(_) => return,
                    };
                    // SAFETY: the submitter keeps both ranges alive and unaliased until
                    // `Pending::wait` returns, which needs this piece to be finished.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            job.src as *const u8,
                            job.dst as *mut u8,
                            job.len,
                        )
                    };
                    job.done.finish_one();
                });
            if spawned.is_err() {
                break;
            }
            *started += 1;
        }
        *started
    }
}

/// Copies `src` into `dst` (same length) on up to `threads` threads (the caller's included).
pub(crate) fn copy(dst: &mut [u8], src: &[u8], threads: usize) {
    debug_assert_eq!(dst.len(), src.len());
    let len = dst.len().min(src.len());
    let pieces = threads.min(len / MIN_PIECE).max(1);
    if len < PARALLEL_FROM || pieces == 1 {
        dst[..len].copy_from_slice(&src[..len]);
        return;
    }
    let pool = pool();
    let helpers = pool.ensure(pieces - 1).min(pieces - 1);
    let pieces = helpers + 1;
    // Pieces start on 4 KiB boundaries so no two threads write the same page.
    let step = len.div_ceil(pieces).div_ceil(4096) * 4096;
    let done = Arc::new(Pending {
        left: Mutex::new(0),
        zero: Condvar::new(),
    });
    let mut queued = 0;
    {
        let jobs = crate::lock(&pool.jobs);
        let mut start = step;
        while start < len {
            let n = step.min(len - start);
            *crate::lock(&done.left) += 1;
            let job = Job {
                src: src[start..].as_ptr() as usize,
                dst: dst[start..].as_mut_ptr() as usize,
                len: n,
                done: done.clone(),
            };
            if jobs.send(job).is_err() {
                // No helper can take it (cannot happen while the pool lives): copy it here.
                *crate::lock(&done.left) -= 1;
                dst[start..start + n].copy_from_slice(&src[start..start + n]);
            } else {
                queued += 1;
            }
            start += step;
        }
    }
    let first = step.min(len);
    dst[..first].copy_from_slice(&src[..first]);
    if queued > 0 {
        done.wait();
    }
}

/// The default number of copy threads: the machine's cores, at most 8 (a host-to-pinned copy
/// saturates memory bandwidth well before that on the machines measured).
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_copy_moves_every_byte() {
        for len in [
            0usize,
            1,
            4095,
            PARALLEL_FROM - 1,
            PARALLEL_FROM + 12_345,
            9 << 20,
        ] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 % 253) as u8).collect();
            for threads in [1, 2, 3, 8] {
                let mut dst = vec![0u8; len];
                copy(&mut dst, &src, threads);
                assert!(dst == src, "len {len}, {threads} threads");
            }
        }
    }
}
