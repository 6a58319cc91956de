//! Whole-process compile speed: `cajetac build` (the rspirv backend and `--backend llvm`)
//! against `glslangValidator -V` and `naga` on the same kernels, in one run (medians of
//! repeated process launches). Prints a markdown table
//! for docs/PERFORMANCE.md.
//!
//! Run: `cargo bench -p cajetac --bench compile_speed [-- --quick]` (builds cajetac in release
//! first; glslangValidator from Debian's glslang-tools and naga from `cargo install naga-cli`
//! are optional: a missing tool is reported, not timed). `CAJETAC`, `GLSLANG` and `NAGA` name
//! the binaries explicitly (to run the compiled bench on another machine), and
//! `CAJETA_ROOT` the repository.

#[path = "gen.rs"]
mod gen;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `make()` `reps` times, each a whole command (or several), and returns the median.
fn time(reps: usize, mut run: impl FnMut() -> bool) -> Option<Duration> {
    let mut times = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        if !run() {
            return None;
        }
        times.push(t.elapsed());
    }
    Some(median(times))
}

/// Runs each of `runs` once per repetition, in turn, `reps` times; the median per run, or
/// `None` for one that failed (a missing tool).
fn interleaved(reps: usize, runs: &mut [&mut dyn FnMut() -> bool]) -> Vec<Option<Duration>> {
    let mut times = vec![Some(Vec::new()); runs.len()];
    for _ in 0..reps {
        for (run, t) in runs.iter_mut().zip(&mut times) {
            if t.is_some() {
                let start = Instant::now();
                *t = run().then(|| start.elapsed()).and_then(|d| {
                    let mut v = t.take()?;
                    v.push(d);
                    Some(v)
                });
            }
        }
    }
    times.into_iter().map(|t| t.map(median)).collect()
}

fn ok(cmd: &mut Command) -> bool {
    match cmd.output() {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            eprintln!("{cmd:?} failed: {}", String::from_utf8_lossy(&o.stderr));
            false
        }
        Err(_) => false,
    }
}

fn tool(name: &str, env: &str) -> Option<PathBuf> {
    let mut candidates = vec![
        PathBuf::from(name),
        dirs_home().join(".cargo/bin").join(name),
    ];
    if let Some(p) = std::env::var_os(env) {
        candidates.insert(0, PathBuf::from(p));
    }
    candidates
        .into_iter()
        .find(|p| Command::new(p).arg("--version").output().is_ok())
}

fn dirs_home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn ms(d: Option<Duration>) -> String {
    d.map(|d| format!("{:.2} ms", d.as_secs_f64() * 1e3))
        .unwrap_or_else(|| "n/a".into())
}

fn ratio(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.1}x", b.as_secs_f64() / a.as_secs_f64()),
        _ => "n/a".into(),
    }
}

fn main() {
    let root = std::env::var_os("CAJETA_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let cajetac = match std::env::var_os("CAJETAC") {
        Some(p) => PathBuf::from(p),
        None => {
            let status = Command::new("cargo")
                .args(["build", "--release", "-q", "-p", "cajetac"])
                .current_dir(&root)
                .status();
            assert!(
                status.is_ok_and(|s| s.success()),
                "cargo build --release failed"
            );
            root.join("target/release/cajetac")
        }
    };
    let dir = std::env::temp_dir().join(format!("cajeta-compile-speed-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let inputs = root.join("compiler/benches/inputs");
    std::fs::copy(
        root.join("tests/kernels/saxpy.cajeta"),
        dir.join("saxpy.cajeta"),
    )
    .unwrap();
    std::fs::write(dir.join("many.cajeta"), gen::cajeta(200)).unwrap();
    std::fs::write(dir.join("many.wgsl"), gen::wgsl(200)).unwrap();
    for i in 0..200 {
        std::fs::write(dir.join(format!("k{i}.comp")), gen::glsl(i)).unwrap();
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 5 } else { 31 };
    let out = dir.join("out");
    let glslang = tool("glslangValidator", "GLSLANG");
    let naga = tool("naga", "NAGA");
    let glslang_one = |g: &PathBuf, src: &Path| {
        ok(Command::new(g)
            .args(["-V", "--target-env", "vulkan1.1", "-o"])
            .arg(dir.join("g.spv"))
            .arg(src))
    };
    // The tools take turns inside every repetition, so load from elsewhere on the machine
    // (other builds) hits them alike; each figure is the median of its repetitions.
    let small = interleaved(
        reps,
        &mut [
            &mut || {
                ok(Command::new(&cajetac)
                    .arg("build")
                    .arg(dir.join("saxpy.cajeta"))
                    .arg("-o")
                    .arg(&out))
            },
            &mut || {
                glslang
                    .as_ref()
                    .is_some_and(|g| glslang_one(g, &inputs.join("saxpy.comp")))
            },
            &mut || {
                ok(Command::new(&cajetac)
                    .args(["build", "--backend", "llvm"])
                    .arg(dir.join("saxpy.cajeta"))
                    .arg("-o")
                    .arg(&out))
            },
            &mut || {
                naga.as_ref().is_some_and(|n| {
                    ok(Command::new(n)
                        .arg(inputs.join("saxpy.wgsl"))
                        .arg(dir.join("n.spv")))
                })
            },
        ],
    );
    let many = interleaved(
        reps.min(11),
        &mut [
            &mut || {
                ok(Command::new(&cajetac)
                    .arg("build")
                    .arg(dir.join("many.cajeta"))
                    .arg("-o")
                    .arg(&out))
            },
            &mut || {
                naga.as_ref().is_some_and(|n| {
                    ok(Command::new(n)
                        .arg(dir.join("many.wgsl"))
                        .arg(dir.join("n.spv")))
                })
            },
            &mut || {
                ok(Command::new(&cajetac)
                    .args(["build", "--backend", "llvm"])
                    .arg(dir.join("many.cajeta"))
                    .arg("-o")
                    .arg(&out))
            },
        ],
    );
    let (c_small, g_small, l_small, n_small) = (small[0], small[1], small[2], small[3]);
    let (c_many, n_many, l_many) = (many[0], many[1], many[2]);
    // glslangValidator needs one process per shader: 200 processes, too slow to interleave.
    let g_many = glslang.as_ref().and_then(|g| {
        time(if quick { 1 } else { 3 }, || {
            (0..200).all(|i| glslang_one(g, &dir.join(format!("k{i}.comp"))))
        })
    });
    println!("| input | cajetac build | cajetac build --backend llvm | glslangValidator -V | naga | llvm / rspirv | glslang / cajetac | naga / cajetac |");
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| saxpy (1 kernel) | {} | {} | {} | {} | {} | {} | {} |",
        ms(c_small),
        ms(l_small),
        ms(g_small),
        ms(n_small),
        ratio(c_small, l_small),
        ratio(c_small, g_small),
        ratio(c_small, n_small)
    );
    println!(
        "| 200 kernels (cajetac: 1 file; glslang: 200 processes; naga: 1 module) | {} | {} | {} | {} | {} | {} | {} |",
        ms(c_many),
        ms(l_many),
        ms(g_many),
        ms(n_many),
        ratio(c_many, l_many),
        ratio(c_many, g_many),
        ratio(c_many, n_many)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
