//! JIT compile time of the examples' host code, measured in process (docs/PERFORMANCE.md
//! "Host code").
//!
//! `cargo build --release -p cajeta-bench --bin jit_time`, then
//! `target/release/jit_time [--runs 11] [--with-context] [--llvm-args "-time-passes"]
//! [FILE.cajeta…]` (default: every `examples/*.cajeta`, run from the repository's root).
//! Each program is parsed and checked once; its host code is then compiled `--runs` times
//! exactly as `cajetac run` compiles it (lowering, optimization up to inlining, then the
//! partitions' optimization and machine code on several threads and the link), without
//! running it, so neither the device nor the process's start is in the figures. The
//! programs take turns inside every round so that a machine's changing load spreads over
//! all of them. Prints the median of each stage and of the total, the total's range, the
//! number of partitions (threads) and the median CPU time of the whole process during the
//! compile, all threads together (`CAJETA_JIT_THREADS=1` compiles on the calling thread
//! alone).
//!
//! `--with-context` creates a Vulkan context on another thread during every compile, as
//! `cajetac run` does (it overlaps the two), to show what that costs the compile.
//! `--llvm-args` passes options to LLVM once (`-time-passes` prints where its time went).
//!
//! What `cajetac run` itself reports under `CAJETA_HOST_TIMING=1` is measured by
//! `bench/jit_examples.sh`.

use std::path::PathBuf;
use std::time::Duration;

use cajetac::diagnostics::SourceMap;
use cajetac::driver;
use cajetac::host::native::{compile_time, CompileTime};
use cajetac::ir::{FunctionId, Module};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 11usize;
    let mut files = Vec::new();
    let mut with_context = false;
    let mut llvm = None;
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--runs", Some(n)) => {
                runs = n.parse().unwrap_or_else(|_| usage());
                i += 2;
            }
            ("--llvm-args", Some(a)) => {
                llvm = Some(a.clone());
                i += 2;
            }
            ("--with-context", _) => {
                with_context = true;
                i += 1;
            }
            (a, _) if a.starts_with("--") => usage(),
            (f, _) => {
                files.push(PathBuf::from(f));
                i += 1;
            }
        }
    }
    if let Some(a) = &llvm {
        llvm_args(a);
    }
    if runs == 0 {
        usage();
    }
    if files.is_empty() {
        files = examples();
    }
    let programs: Vec<(String, Module, FunctionId)> = files.iter().map(load).collect();
    let mut times: Vec<Vec<CompileTime>> = vec![Vec::new(); programs.len()];
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::new(); programs.len()];
    for _ in 0..runs {
        for (k, (name, module, entry)) in programs.iter().enumerate() {
            let context = with_context.then(|| {
                std::thread::spawn(|| {
                    cajeta_runtime::Context::with_options(
                        cajeta_runtime::ContextOptions::from_env(),
                    )
                    .map(drop)
                    .map_err(|e| e.to_string())
                })
            });
            let start = process_cpu_time();
            match compile_time(module, *entry) {
                Ok(time) => times[k].push(time),
                Err(e) => fail(&format!("{name}: {e}")),
            }
            cpu[k].push(process_cpu_time().saturating_sub(start));
            if let Some(Err(e)) = context.map(|t| t.join().unwrap_or(Ok(()))) {
                fail(&format!("--with-context: {e}"));
            }
        }
    }
    if llvm.is_some() {
        // SAFETY: no LLVM object is alive any more; this prints the timers' reports.
        unsafe { LLVMShutdown() };
    }
    println!("runs: {runs} (medians, ms; CPU: the process's CPU time, all threads)\n");
    println!(
        "| program | lower | optimize to inlining | partitions and link | JIT compile | range | threads | CPU |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|---:|");
    for (((name, _, _), t), cpu) in programs.iter().zip(&times).zip(&cpu) {
        let total: Vec<Duration> = t
            .iter()
            .map(|t| t.lower + t.optimize + t.machine_code)
            .collect();
        let (lo, hi) = (total.iter().min(), total.iter().max());
        println!(
            "| {name} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1}–{:.1} | {} | {:.1} |",
            ms(median(t.iter().map(|t| t.lower))),
            ms(median(t.iter().map(|t| t.optimize))),
            ms(median(t.iter().map(|t| t.machine_code))),
            ms(median(total.iter().copied())),
            lo.map_or(0.0, |d| ms(*d)),
            hi.map_or(0.0, |d| ms(*d)),
            t.first().map_or(0, |t| t.partitions),
            ms(median(cpu.iter().copied())),
        );
    }
}

/// Every `examples/*.cajeta`, by name.
fn examples() -> Vec<PathBuf> {
    let dir = std::fs::read_dir("examples")
        .unwrap_or_else(|e| fail(&format!("examples/: {e} (run from the repository's root)")));
    let mut files: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cajeta"))
        .collect();
    files.sort();
    files
}

/// Parses and checks one program: its name, module and host entry point.
fn load(file: &PathBuf) -> (String, Module, FunctionId) {
    let name = file.file_stem().map_or_else(
        || file.display().to_string(),
        |s| s.to_string_lossy().into(),
    );
    let text =
        std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("{}: {e}", file.display())));
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[(file.display().to_string(), text)])
        .unwrap_or_else(|d| fail(&format!("{name}: {} diagnostics", d.len())));
    let entry = driver::entry_point(&module)
        .unwrap_or_else(|| fail(&format!("{name}: no host entry point")));
    (name, module, entry)
}

// LLVM's C API, linked into this binary with the compiler (inkwell does not wrap these).
extern "C" {
    fn LLVMParseCommandLineOptions(
        argc: i32,
        argv: *const *const std::ffi::c_char,
        overview: *const std::ffi::c_char,
    );
    fn LLVMShutdown();
}

/// Passes `a` (whitespace-separated) to LLVM's command-line options, before any compile.
fn llvm_args(a: &str) {
    let owned: Vec<std::ffi::CString> = std::iter::once("jit_time")
        .chain(a.split_whitespace())
        .map(|s| std::ffi::CString::new(s).unwrap_or_else(|_| usage()))
        .collect();
    let ptrs: Vec<*const std::ffi::c_char> = owned.iter().map(|s| s.as_ptr()).collect();
    // SAFETY: `ptrs` holds `owned`'s valid C strings, alive for the call.
    unsafe { LLVMParseCommandLineOptions(ptrs.len() as i32, ptrs.as_ptr(), c"".as_ptr()) };
}

/// The process's CPU time, all threads (the compile spreads over several).
fn process_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock exists on every Linux.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if ok != 0 {
        fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn median(it: impl Iterator<Item = Duration>) -> Duration {
    let mut v: Vec<Duration> = it.collect();
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn usage() -> ! {
    fail("usage: jit_time [--runs N] [--with-context] [--llvm-args ARGS] [FILE.cajeta…]")
}

fn fail(why: &str) -> ! {
    eprintln!("jit_time: {why}");
    std::process::exit(2)
}
