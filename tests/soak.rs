//! Soak (issue 30): the concurrency stress programs run round after round on one shared
//! context, alternating the interpreter and native host code, while the process's resident
//! memory, open file descriptors and the device's live allocations are sampled. None may grow
//! without bound: after a warm-up round (caches, the JIT, the driver's pools), the second half
//! of the run may not add more than a small allowance to what the first half ended with.
//!
//! CI runs a bounded slice (`CAJETA_SOAK_ROUNDS`, 4 by default, over `CAJETA_SOAK_THREADS`
//! threads, 2 by default); `CAJETA_SOAK_SECS=600` runs rounds for ten minutes instead (the
//! long run of docs/PERFORMANCE.md). `CAJETA_SOAK_HOST=interp` or `native` runs every thread
//! with one host executor (to tell which one holds on to memory). Each sample is printed
//! (`--nocapture` shows them).

use std::time::{Duration, Instant};

use cajeta_runtime::Context;
use cajeta_tests::{device_context, tests_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{run_program_mode, HostMode};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::SpirvOptions;

// The same programs as the concurrency stress.
use crate::concurrency::PROGRAMS;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One sample of what the process holds.
#[derive(Debug, Clone, Copy)]
struct Sample {
    round: u64,
    rss_kib: u64,
    fds: usize,
    live_allocations: usize,
    allocated_bytes: u64,
}

fn sample(ctx: &Context, round: u64) -> Sample {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    let usage = ctx.memory_usage();
    Sample {
        round,
        rss_kib,
        fds,
        live_allocations: usage.live_allocations,
        allocated_bytes: usage.allocated_bytes,
    }
}

/// Runs one program on `ctx` with `mode`; the failure text when it does not return 777.
fn run(ctx: &Context, name: &str, mode: HostMode) -> Option<String> {
    let path = tests_dir().join("device").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    match run_program_mode(
        &mut sources,
        &[(path.display().to_string(), text)],
        &SpirvOptions::default(),
        &[],
        &mut io,
        None,
        mode,
    ) {
        Ok(HostOutcome::Returned(v)) if v.to_string() == "777" => None,
        Ok(other) => Some(format!("{name} ({mode:?}): {other:?}")),
        Err(_) => Some(format!("{name} ({mode:?}): failed")),
    }
}

/// One round: every program once on each of `threads` threads, thread `t` starting at
/// program `t`, odd threads natively (unless `CAJETA_SOAK_HOST` says otherwise).
fn round(ctx: &Context, threads: usize) -> Vec<String> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mode = match std::env::var("CAJETA_SOAK_HOST").as_deref() {
                        Ok("interp") => HostMode::Interp,
                        Ok("native") => HostMode::Native,
                        _ if t % 2 == 0 => HostMode::Interp,
                        _ => HostMode::Native,
                    };
                    (0..PROGRAMS.len())
                        .filter_map(|k| run(ctx, PROGRAMS[(t + k) % PROGRAMS.len()], mode))
                        .collect::<Vec<_>>()
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
fn memory_descriptors_and_allocations_stay_flat_under_load() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let threads = env_number("CAJETA_SOAK_THREADS", 2) as usize;
    let secs = env_number("CAJETA_SOAK_SECS", 0);
    let rounds = env_number("CAJETA_SOAK_ROUNDS", 4).max(3);
    let start = Instant::now();
    let mut samples = Vec::new();
    let mut n = 0;
    loop {
        let failures = round(&ctx, threads);
        assert!(failures.is_empty(), "round {n}: {}", failures.join("\n"));
        n += 1;
        let s = sample(&ctx, n);
        eprintln!(
            "soak sample: round {} after {:.1} s: rss {} KiB, {} fds, {} live allocations ({} bytes)",
            s.round,
            start.elapsed().as_secs_f64(),
            s.rss_kib,
            s.fds,
            s.live_allocations,
            s.allocated_bytes
        );
        samples.push(s);
        let done = if secs > 0 {
            start.elapsed() >= Duration::from_secs(secs) && n >= 3
        } else {
            n >= rounds
        };
        if done {
            break;
        }
    }
    // Start: after the warm-up round; middle and end: halfway and last.
    let (first, middle, last) = (
        samples[0],
        samples[samples.len() / 2],
        samples[samples.len() - 1],
    );
    eprintln!("soak: start {first:?}\nsoak: middle {middle:?}\nsoak: end {last:?}");
    assert!(
        last.fds <= middle.fds + 2,
        "open file descriptors grew: {middle:?} -> {last:?}"
    );
    // Pools (staging buffers, descriptor pools) grow to the high-water mark of the load and
    // stay there; a leak adds allocations with every program run (dozens a round here).
    let first_half = &samples[..=samples.len() / 2];
    let most_allocations = first_half
        .iter()
        .map(|s| s.live_allocations)
        .max()
        .unwrap_or(0);
    let most_bytes = first_half
        .iter()
        .map(|s| s.allocated_bytes)
        .max()
        .unwrap_or(0);
    assert!(
        last.live_allocations <= most_allocations + 4
            && last.allocated_bytes <= most_bytes + (16 << 20),
        "live device allocations grew: {first:?} / {middle:?} -> {last:?}"
    );
    // Resident memory moves with the allocator's arenas; a leak grows it round after round.
    let allowance_kib = 32 * 1024 + middle.rss_kib / 10;
    assert!(
        last.rss_kib <= middle.rss_kib + allowance_kib,
        "resident memory grew by {} KiB in the second half: {middle:?} -> {last:?}",
        last.rss_kib.saturating_sub(middle.rss_kib)
    );
}
