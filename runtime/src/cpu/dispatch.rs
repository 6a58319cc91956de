//! Running a launch: workgroups are handed out one at a time from an atomic counter to
//! worker threads (one per core). A kernel without barriers runs a workgroup's invocations
//! one after the other on its worker, and so does a kernel the compiler split at its
//! barriers (region after region, each a loop over the invocations, with the values
//! carried across a barrier in per-invocation context arrays). A kernel with barriers it
//! did not split runs each workgroup on a *team* of threads, one per invocation, that meet
//! at a `std::sync::Barrier` wherever the kernel has `Barrier.workgroup()`; a team takes
//! workgroup after workgroup, so threads are created once per launch, not per workgroup.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Condvar, Mutex};

use super::abi::{BindingSlot, InvocationContext, KernelEntry, SCRATCH_BYTES};
use super::{CpuDevice, CpuKernel};
use crate::LaunchConfig;

/// What every thread of a launch reads: shared read-only for the launch's duration.
struct Launch<'a> {
    /// The one-invocation entry, when the kernel has one.
    entry: Option<KernelEntry>,
    /// The whole-workgroup entry, when the kernel has one.
    workgroup: Option<KernelEntry>,
    /// Bytes of context arrays a workgroup of a split kernel needs.
    private_bytes: usize,
    slots: &'a [BindingSlot],
    push: &'a [u8],
    grid: [u32; 3],
    block: [u32; 3],
    /// Workgroups in the grid.
    total: u64,
    /// The next workgroup to hand out.
    next: AtomicU64,
    /// 16-byte words of shared memory a workgroup gets: the fixed-size arrays', then the
    /// dynamic array's.
    shared_words: usize,
    /// Where the dynamic shared array starts, in 16-byte words.
    dynamic_word: usize,
    /// Its bytes (the launch's `shared_bytes`).
    dynamic_bytes: u32,
    /// The `Spec` slot values.
    spec: &'a [u32],
    /// Set when a team could not start all its threads (the launch then fails).
    failed: AtomicBool,
}

// SAFETY: the raw pointers in `slots` point at buffers the launch's caller keeps alive until
// `run` returns; invocations write through them as a GPU's would (see `CpuBuffer`).
unsafe impl Sync for Launch<'_> {}

/// Runs the whole launch; returns when every invocation has finished, or an error when the
/// threads a workgroup with barriers needs could not be started.
pub(super) fn run(
    device: &CpuDevice,
    kernel: &CpuKernel,
    config: &LaunchConfig,
    slots: &[BindingSlot],
    push: &[u8],
) -> Result<(), String> {
    let total: u64 = config.grid.iter().map(|&g| u64::from(g)).product();
    let static_words = (kernel.reflection.static_shared_bytes as usize).div_ceil(16);
    let dynamic_bytes = config.shared_bytes.unwrap_or(0);
    let invocations = config.block.iter().product::<u32>() as usize;
    let launch = Launch {
        entry: kernel.entries.invocation,
        workgroup: kernel.entries.workgroup,
        private_bytes: kernel.entries.private_bytes * invocations,
        slots,
        push,
        grid: config.grid,
        block: config.block,
        total,
        next: AtomicU64::new(0),
        shared_words: static_words + (dynamic_bytes as usize).div_ceil(16),
        dynamic_word: static_words,
        dynamic_bytes,
        spec: &config.spec,
        failed: AtomicBool::new(false),
    };
    if let (Some(entry), None, true) = (
        launch.entry,
        launch.workgroup,
        kernel.barriers && invocations > 1,
    ) {
        // Teams of one thread per invocation; no more threads than a few thousand at once.
        let teams = device
            .usable_threads()
            .min((4096 / invocations).max(1))
            .min(total as usize)
            .max(1);
        device.record_workers(teams);
        let started = std::thread::scope(|s| {
            (0..teams)
                .filter(|_| {
                    std::thread::Builder::new()
                        .spawn_scoped(s, || team(&launch, entry, invocations))
                        .is_ok()
                })
                .count()
        });
        // The teams that started took every workgroup, unless a team could not start its
        // invocations' threads (or none started at all).
        if started == 0 || launch.failed.load(Ordering::Relaxed) {
            return Err(format!(
                "the cpu device could not start the {invocations} threads a workgroup with barriers needs"
            ));
        }
    } else {
        let workers = device.usable_threads().min(total as usize).max(1);
        device.record_workers(workers);
        std::thread::scope(|s| {
            // Workers that fail to start leave their workgroups to the others; this thread
            // is one of them, so the launch always progresses.
            for _ in 1..workers {
                let _ = std::thread::Builder::new().spawn_scoped(s, || worker(&launch));
            }
            worker(&launch);
        });
    }
    Ok(())
}

/// Splits a linear index into x, y, z within `shape`.
fn coords(i: u64, shape: [u32; 3]) -> [u32; 3] {
    let (x, y) = (u64::from(shape[0]), u64::from(shape[1]));
    [(i % x) as u32, ((i / x) % y) as u32, (i / (x * y)) as u32]
}

/// The context of invocation `local` of workgroup `group`.
fn context(
    launch: &Launch,
    group: [u32; 3],
    local: [u32; 3],
    shared: *mut u8,
    barrier: *const c_void,
    scratch: *mut u8,
    private: *mut u8,
) -> InvocationContext {
    let b = launch.block;
    InvocationContext {
        bindings: launch.slots.as_ptr(),
        push: launch.push.as_ptr(),
        shared,
        barrier: wait_at_barrier,
        barrier_state: barrier,
        scratch,
        global_id: [
            group[0].wrapping_mul(b[0]).wrapping_add(local[0]),
            group[1].wrapping_mul(b[1]).wrapping_add(local[1]),
            group[2].wrapping_mul(b[2]).wrapping_add(local[2]),
        ],
        local_id: local,
        workgroup_id: group,
        workgroup_size: b,
        num_workgroups: launch.grid,
        spec: launch.spec.as_ptr(),
        spec_count: launch.spec.len() as u32,
        // SAFETY: `shared` holds `shared_words` words, `dynamic_word` of them before the
        // dynamic array (at the end when there is none).
        dynamic_shared: unsafe { shared.add(16 * launch.dynamic_word) },
        dynamic_shared_bytes: launch.dynamic_bytes,
        private,
    }
}

/// The barrier a kernel calls: its workgroup's `std::sync::Barrier`.
extern "C" fn wait_at_barrier(ctx: *mut InvocationContext) {
    // SAFETY: the runtime made `ctx` with `barrier_state` pointing at a live `Barrier`.
    unsafe { (*((*ctx).barrier_state as *const Barrier)).wait() };
}

/// A worker of a kernel without barriers: whole workgroups, invocation after invocation
/// (through the kernel's workgroup entry when it has one).
fn worker(launch: &Launch) {
    let mut shared = vec![0u128; launch.shared_words];
    let mut scratch = [0u128; SCRATCH_BYTES / 16];
    let mut private = vec![0u128; launch.private_bytes.div_ceil(16)];
    // A kernel without barriers never calls it; one of one thread would return at once.
    let lone = Barrier::new(1);
    let invocations: u64 = launch.block.iter().map(|&b| u64::from(b)).product();
    loop {
        let g = launch.next.fetch_add(1, Ordering::Relaxed);
        if g >= launch.total {
            return;
        }
        let group = coords(g, launch.grid);
        if let Some(workgroup) = launch.workgroup {
            // The kernel's own loop over the invocations (LLVM inlined the body into it).
            let mut ctx = context(
                launch,
                group,
                [0; 3],
                shared.as_mut_ptr().cast(),
                (&lone as *const Barrier).cast(),
                scratch.as_mut_ptr().cast(),
                private.as_mut_ptr().cast(),
            );
            // SAFETY: as below.
            unsafe { workgroup(&mut ctx) };
            continue;
        }
        let Some(entry) = launch.entry else {
            return;
        };
        for i in 0..invocations {
            let mut ctx = context(
                launch,
                group,
                coords(i, launch.block),
                shared.as_mut_ptr().cast(),
                (&lone as *const Barrier).cast(),
                scratch.as_mut_ptr().cast(),
                std::ptr::null_mut(),
            );
            // SAFETY: the kernel follows the context interface (`CpuKernel::new`).
            unsafe { entry(&mut ctx) };
        }
    }
}

/// One team of a kernel with barriers: `invocations` threads run one workgroup at a time.
fn team(launch: &Launch, entry: KernelEntry, invocations: usize) {
    struct Team {
        barrier: Barrier,
        group: AtomicU64,
        shared: std::cell::UnsafeCell<Vec<u128>>,
    }
    // SAFETY: the shared memory is written only by the kernel's invocations, which order
    // their accesses with the barrier as on a GPU.
    unsafe impl Sync for Team {}
    let t = Team {
        barrier: Barrier::new(invocations),
        group: AtomicU64::new(0),
        shared: std::cell::UnsafeCell::new(vec![0u128; launch.shared_words]),
    };
    let t = &t;
    // The threads wait at this gate until all of them have started: `Some(true)` lets them
    // in, `Some(false)` (a thread could not start) sends them home before any of them waits
    // at the barrier for one that does not exist.
    let gate = (Mutex::new(None::<bool>), Condvar::new());
    let gate = &gate;
    std::thread::scope(|s| {
        let mut all = true;
        for i in 0..invocations {
            let spawned = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(s, move || {
                    let mut open = crate::lock(&gate.0);
                    while open.is_none() {
                        open = gate.1.wait(open).unwrap_or_else(|e| e.into_inner());
                    }
                    if *open == Some(false) {
                        return;
                    }
                    drop(open);
                    let local = coords(i as u64, launch.block);
                    let mut scratch = [0u128; SCRATCH_BYTES / 16];
                    loop {
                        if i == 0 {
                            let g = launch.next.fetch_add(1, Ordering::Relaxed);
                            t.group.store(g, Ordering::Relaxed);
                        }
                        t.barrier.wait();
                        let g = t.group.load(Ordering::Relaxed);
                        if g >= launch.total {
                            return;
                        }
                        // SAFETY: only the pointer is taken; see `Team`.
                        let shared = unsafe { (*t.shared.get()).as_mut_ptr().cast() };
                        let mut ctx = context(
                            launch,
                            coords(g, launch.grid),
                            local,
                            shared,
                            (&t.barrier as *const Barrier).cast(),
                            scratch.as_mut_ptr().cast(),
                            std::ptr::null_mut(),
                        );
                        // SAFETY: as in `worker`.
                        unsafe { entry(&mut ctx) };
                        // Every invocation is done with the workgroup (its shared memory,
                        // the group slot) before the next one is fetched.
                        t.barrier.wait();
                    }
                });
            if spawned.is_err() {
                all = false;
                break;
            }
        }
        if !all {
            launch.failed.store(true, Ordering::Relaxed);
        }
        *crate::lock(&gate.0) = Some(all);
        gate.1.notify_all();
    });
}
