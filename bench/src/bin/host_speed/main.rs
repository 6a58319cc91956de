//! Host-code speed: the interpreter, native host code (LLVM JIT) and the same program in C
//! compiled with `gcc -O2`, each timed in the same run (docs/PERFORMANCE.md).
//!
//! `cargo build --release -p cajetac -p cajeta-bench`, then
//! `target/release/host_speed [--cajetac target/release/cajetac] [--runs 5] [--only WORD]
//! [--no-interp] [--no-device]` (`--only`: the programs whose name contains WORD; `device`
//! selects the device loop alone). It needs no cargo and no source tree: the programs are
//! part of the binary and written to a temporary folder, and `cajetac` may be anywhere with
//! `cajetac-llvm` beside it (or named by `CAJETAC_LLVM_EXE`); `gcc` must be on the `PATH`.
//! Each program
//! prints its result; all three versions must print the same, or the benchmark fails. Times
//! are whole-process wall times (median of the runs): for cajetac they include parsing,
//! checking and (native) LLVM compilation, which the `empty` program shows on its own.
//! "hand-offs" is how many expressions native code handed to the interpreter in one run
//! (0: the program ran as native code throughout).
//!
//! Last, the device loop (`device_loop.rs`): upload, launch and download of a small buffer
//! per iteration, cajetac against the Rust embedding API. `--device-loop-rust N` runs only
//! the Rust side, N iterations, and prints its time (to profile it alone: `perf record`);
//! `--device-loop-source N` prints the Cajeta side's program for N iterations.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod device_loop;
mod programs;

use programs::PROGRAMS;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut cajetac = PathBuf::from("target/release/cajetac");
    let mut runs = 5usize;
    let mut interpreter = true;
    let mut only: Option<String> = None;
    let mut device = true;
    let mut i = 1;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--no-interp", _) => {
                interpreter = false;
                i += 1;
                continue;
            }
            ("--no-device", _) => {
                device = false;
                i += 1;
                continue;
            }
            ("--device-loop-rust", Some(n)) => {
                device_loop::rust_alone(n.parse().expect("--device-loop-rust N"));
                return;
            }
            ("--device-loop-source", Some(n)) => {
                print!(
                    "{}",
                    device_loop::source(n.parse().expect("--device-loop-source N"))
                );
                return;
            }
            ("--cajetac", Some(p)) => cajetac = PathBuf::from(p),
            ("--runs", Some(n)) => runs = n.parse().expect("--runs N"),
            ("--only", Some(w)) => only = Some(w.clone()),
            _ => {
                eprintln!(
                    "usage: host_speed [--cajetac PATH] [--runs N] [--no-interp] [--no-device] [--only WORD] [--device-loop-rust N] [--device-loop-source N]"
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    let dir = std::env::temp_dir().join(format!("cajeta-host-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!("machine: {}", machine());
    println!("runs: {runs} (median wall time of whole processes)\n");
    println!("| program | interpreter | native, process | native, host code | JIT compile | hand-offs | gcc -O2, process | host code / gcc |");
    println!("|---|---|---|---|---|---|---|---|");
    for scale in [1u64, 10] {
        for (k, (name, decls, cajeta, c)) in PROGRAMS.iter().enumerate() {
            if scale > 1 && !(cajeta.contains(" N;") || cajeta.contains(" M;")) {
                continue;
            }
            if only.as_ref().is_some_and(|w| !name.contains(w.as_str())) {
                continue;
            }
            let n = (10_000_000 * scale).to_string();
            let m = (3000 * scale).to_string();
            let cajeta = cajeta
                .replace(" N;", &format!(" {n};"))
                .replace(" M;", &format!(" {m};"));
            let c = c
                .replace(" N;", &format!(" {n};"))
                .replace(" M;", &format!(" {m};"));
            let name = if scale > 1 {
                name.replace("10M", "100M")
                    .replace("(2M", "(20M")
                    .replace("3000 x", "30000 x")
            } else {
                name.to_string()
            };
            let src = dir.join(format!("p{k}.cajeta"));
            let program = format!(
            "{decls}public class P {{\n    public static int64 run() {{\n        {cajeta}\n    }}\n}}\n"
        );
            std::fs::write(&src, program).expect("write program");
            let csrc = dir.join(format!("p{k}.c"));
            let cprog = format!(
                "#include <math.h>\n#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) {{\n    {c}\n}}\n"
            );
            std::fs::write(&csrc, cprog).expect("write C");
            let cbin = dir.join(format!("p{k}"));
            let gcc = Command::new("gcc")
                .args(["-O2", "-ffp-contract=off", "-o"])
                .arg(&cbin)
                .arg(&csrc)
                .arg("-lm")
                .status()
                .expect("gcc");
            assert!(gcc.success(), "gcc failed on {name}");
            // Taking turns inside every repetition, so that load from elsewhere hits all alike.
            let (mut ti, mut tn, mut tg) = (Vec::new(), Vec::new(), Vec::new());
            let (mut code, mut jit) = (Vec::new(), Vec::new());
            let mut handoffs = 0;
            for _ in 0..runs {
                if scale == 1 && interpreter {
                    ti.push(time(&mut run_cajetac(&cajetac, "interp", &src)));
                }
                let mut stderr = String::new();
                tn.push(time(&mut || {
                    let out = run_cajetac(&cajetac, "native", &src)();
                    stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                    out
                }));
                let (c, r, h) = host_timing(&stderr);
                jit.push(c);
                code.push(r);
                handoffs = h;
                tg.push(time(&mut || Command::new(&cbin).output().expect("run C")));
            }
            let (native, gcc) = (median(&tn), median(&tg));
            let interp = if scale == 1 && interpreter {
                median(&ti)
            } else {
                (f64::NAN, native.1.clone())
            };
            assert!(
                interp.1 == native.1 && native.1 == gcc.1,
                "{name}: results differ: interpreter {:?}, native {:?}, gcc {:?}",
                interp.1,
                native.1,
                gcc.1
            );
            let interp_text = if scale == 1 && interpreter {
                format!("{:.3} s", interp.0)
            } else {
                "-".to_string()
            };
            let (code, jit) = (median_of(&mut code), median_of(&mut jit));
            println!(
                "| {name} | {interp_text} | {:.3} s | {:.3} s | {:.1} ms | {handoffs} | {:.3} s | {:.2}x |",
                native.0,
                code,
                jit * 1e3,
                gcc.0,
                code / gcc.0
            );
        }
    }
    if device
        && only
            .as_ref()
            .is_none_or(|w| "device loop".contains(w.as_str()))
    {
        device_loop::compare(&cajetac, &dir, runs, [100, 1000]);
    }
    std::fs::remove_dir_all(&dir).ok();
}

fn run_cajetac<'a>(
    cajetac: &'a Path,
    mode: &'a str,
    src: &'a Path,
) -> impl FnMut() -> std::process::Output + 'a {
    move || {
        Command::new(cajetac)
            .args(["run", "--host", mode])
            .arg(src)
            .env("CAJETA_HOST_TIMING", "1")
            .output()
            .expect("run cajetac")
    }
}

/// Compilation and run time in seconds of native host code and how many expressions it
/// handed to the interpreter, from its `native host code: compile X ms (…), run Y ms, H
/// hand-offs to the interpreter` line.
fn host_timing(stderr: &str) -> (f64, f64, u64) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("native host code: "))
        .unwrap_or_else(|| panic!("no host timing in {stderr:?}"));
    let ms = |key: &str| -> f64 {
        let rest = &line[line.find(key).expect("timing key") + key.len()..];
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        number.parse::<f64>().expect("timing number") / 1e3
    };
    let handoffs = line
        .rsplit(", ")
        .next()
        .and_then(|t| t.strip_suffix(" hand-offs to the interpreter"))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no hand-off count in {line:?}"));
    (ms("compile "), ms("run "), handoffs)
}

fn median_of(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Wall time in seconds and output of one run.
fn time(f: &mut dyn FnMut() -> std::process::Output) -> (f64, String) {
    let t = Instant::now();
    let out = f();
    let elapsed = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (elapsed, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The median time of runs that must all print the same.
fn median(runs: &[(f64, String)]) -> (f64, String) {
    let text = runs.first().map(|r| r.1.clone()).unwrap_or_default();
    assert!(
        runs.iter().all(|r| r.1 == text),
        "output changed between runs"
    );
    let mut times: Vec<f64> = runs.iter().map(|r| r.0).collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], text)
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|m| m.trim_start_matches([' ', '\t', ':']))
        })
        .unwrap_or("unknown CPU");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let gcc = Command::new("gcc")
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    format!("{model}, {cores} cores available, {gcc}")
}
