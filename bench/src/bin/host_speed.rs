//! Host-code speed: the interpreter, native host code (LLVM JIT) and the same program in C
//! compiled with `gcc -O2`, each timed in the same run (docs/PERFORMANCE.md).
//!
//! `cargo build --release -p cajetac -p cajeta-bench`, then
//! `target/release/host_speed [--cajetac target/release/cajetac] [--runs 5]`. Each program
//! prints its result; all three versions must print the same, or the benchmark fails. Times
//! are whole-process wall times (median of the runs): for cajetac they include parsing,
//! checking and (native) LLVM compilation, which the `empty` program shows on its own.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Name, Cajeta body of `run()` (returns the result as `int64`), C body of `main` (prints
/// the result). `N` is the loop count (10M), `M` the outer count of the nested loops (3000);
/// a second pass multiplies both by 10 for native code and gcc only, where the fixed cost of
/// starting (and compiling) no longer hides the loop.
const PROGRAMS: [(&str, &str, &str); 4] = [
    ("empty", "return 0;", "printf(\"%lld\\n\", 0LL); return 0;"),
    (
        "int loop (10M: acc = acc * 31 + (i ^ (i >> 3)))",
        "int32 acc = 0;
        for (int32 i = 0; i < N; i++) {
            acc = acc * 31 + (i ^ (i >> 3));
        }
        return acc;",
        // Signed overflow is undefined in C: the same wrapping arithmetic in uint32_t.
        "uint32_t acc = 0;
        for (int32_t i = 0; i < N; i++) {
            acc = acc * 31u + (uint32_t) (i ^ (i >> 3));
        }
        printf(\"%lld\\n\", (long long) (int32_t) acc); return 0;",
    ),
    (
        "float loop (10M: y = y * k + c; s += y / (1 + (i & 1023)))",
        "float64 s = 0.0;
        float64 y = 1.0;
        for (int32 i = 0; i < N; i++) {
            y = y * 0.9999999 + 0.5e-7;
            s = s + y / (1.0 + (float64) (i & 1023));
        }
        return (int64) (s * 1000.0);",
        "double s = 0.0, y = 1.0;
        for (int32_t i = 0; i < N; i++) {
            y = y * 0.9999999 + 0.5e-7;
            s = s + y / (1.0 + (double) (i & 1023));
        }
        printf(\"%lld\\n\", (long long) (s * 1000.0)); return 0;",
    ),
    (
        "nested loops (3000 x 3000: acc += ((a * b) ^ (a + b)) & 255)",
        "int64 acc = 0;
        for (int32 a = 0; a < M; a++) {
            for (int32 b = 0; b < 3000; b++) {
                acc = acc + (int64) (((a * b) ^ (a + b)) & 255);
            }
        }
        return acc;",
        "int64_t acc = 0;
        for (int32_t a = 0; a < M; a++) {
            for (int32_t b = 0; b < 3000; b++) {
                acc = acc + (int64_t) (((a * b) ^ (a + b)) & 255);
            }
        }
        printf(\"%lld\\n\", (long long) acc); return 0;",
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut cajetac = PathBuf::from("target/release/cajetac");
    let mut runs = 5usize;
    let mut i = 1;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--cajetac", Some(p)) => cajetac = PathBuf::from(p),
            ("--runs", Some(n)) => runs = n.parse().expect("--runs N"),
            _ => {
                eprintln!("usage: host_speed [--cajetac PATH] [--runs N]");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    let dir = std::env::temp_dir().join(format!("cajeta-host-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!("machine: {}", machine());
    println!("runs: {runs} (median wall time of whole processes)\n");
    println!("| program | interpreter | native (LLVM JIT) | gcc -O2 | native / gcc |");
    println!("|---|---|---|---|---|");
    for scale in [1u64, 10] {
        for (k, (name, cajeta, c)) in PROGRAMS.iter().enumerate() {
            if scale > 1 && k == 0 {
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
                name.replace("10M", "100M").replace("3000 x", "30000 x")
            } else {
                name.to_string()
            };
            let src = dir.join(format!("p{k}.cajeta"));
            let program = format!(
            "public class P {{\n    public static int64 run() {{\n        {cajeta}\n    }}\n}}\n"
        );
            std::fs::write(&src, program).expect("write program");
            let csrc = dir.join(format!("p{k}.c"));
            let cprog = format!(
                "#include <stdio.h>\n#include <stdint.h>\nint main(void) {{\n    {c}\n}}\n"
            );
            std::fs::write(&csrc, cprog).expect("write C");
            let cbin = dir.join(format!("p{k}"));
            let gcc = Command::new("gcc")
                .args(["-O2", "-o"])
                .arg(&cbin)
                .arg(&csrc)
                .status()
                .expect("gcc");
            assert!(gcc.success(), "gcc failed on {name}");
            // Taking turns inside every repetition, so that load from elsewhere hits all alike.
            let (mut ti, mut tn, mut tg) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..runs {
                if scale == 1 {
                    ti.push(time(&mut run_cajetac(&cajetac, "interp", &src)));
                }
                tn.push(time(&mut run_cajetac(&cajetac, "native", &src)));
                tg.push(time(&mut || Command::new(&cbin).output().expect("run C")));
            }
            let (native, gcc) = (median(&tn), median(&tg));
            let interp = if scale == 1 {
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
            let interp_text = if scale == 1 {
                format!("{:.3} s", interp.0)
            } else {
                "-".to_string()
            };
            println!(
                "| {name} | {interp_text} | {:.3} s | {:.3} s | {:.2}x |",
                native.0,
                gcc.0,
                native.0 / gcc.0
            );
        }
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
            .output()
            .expect("run cajetac")
    }
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
