//! Whole-process compile speed: `cajetac` (`--version`, `check`, `build` with the rspirv
//! backend and with `--backend llvm`) against `naga` and `glslangValidator -V` on the same
//! kernels, in one run. Every figure is a median over repeated process launches, the tools
//! taking turns inside every repetition (paired, alternating), so load from elsewhere on the
//! machine hits them alike. Each launch is timed three ways: wall time, CPU time (user +
//! system, from the kernel's accounting of the waited-for child) and minor page faults.
//! Prints markdown tables for docs/PERFORMANCE.md.
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

/// One launch: wall time, CPU time (user + system), minor page faults.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Duration,
    faults: i64,
}

/// The medians of each measure over a tool's launches (each median taken on its own).
#[derive(Clone, Copy)]
struct Medians {
    wall: Duration,
    cpu: Duration,
    faults: i64,
}

fn medians(v: &[Sample]) -> Medians {
    fn mid<T: Ord + Copy>(mut v: Vec<T>) -> T {
        v.sort();
        v[v.len() / 2]
    }
    Medians {
        wall: mid(v.iter().map(|s| s.wall).collect()),
        cpu: mid(v.iter().map(|s| s.cpu).collect()),
        faults: mid(v.iter().map(|s| s.faults).collect()),
    }
}

/// CPU time and minor faults of every child waited for so far (`RUSAGE_CHILDREN`): the
/// difference around one launch is that launch's own.
fn children_usage() -> (Duration, i64) {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |tv: libc::timeval| Duration::new(tv.tv_sec as u64, tv.tv_usec as u32 * 1000);
    (t(u.ru_utime) + t(u.ru_stime), u.ru_minflt)
}

/// Runs `run` once and measures it; `None` when it failed (a missing tool).
fn sample(run: &mut dyn FnMut() -> bool) -> Option<Sample> {
    let (cpu0, faults0) = children_usage();
    let start = Instant::now();
    if !run() {
        return None;
    }
    let wall = start.elapsed();
    let (cpu1, faults1) = children_usage();
    Some(Sample {
        wall,
        cpu: cpu1 - cpu0,
        faults: faults1 - faults0,
    })
}

/// Runs each of `runs` once per repetition, in turn, `reps` times; the medians per run, or
/// `None` for one that failed.
fn interleaved(reps: usize, runs: &mut [&mut dyn FnMut() -> bool]) -> Vec<Option<Medians>> {
    let mut samples: Vec<Option<Vec<Sample>>> = vec![Some(Vec::new()); runs.len()];
    for _ in 0..reps {
        for (run, s) in runs.iter_mut().zip(&mut samples) {
            if let Some(list) = s {
                match sample(*run) {
                    Some(x) => list.push(x),
                    None => *s = None,
                }
            }
        }
    }
    samples
        .into_iter()
        .map(|s| s.filter(|v| !v.is_empty()).map(|v| medians(&v)))
        .collect()
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

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// One table row: ours against the anchor (CPU, wall, faults, and the CPU and wall ratios).
fn row(what: &str, ours: Option<Medians>, anchor: Option<Medians>) {
    let cell = |m: Option<Medians>| {
        m.map(|m| format!("{} | {} | {}", ms(m.cpu), ms(m.wall), m.faults))
            .unwrap_or_else(|| "n/a | n/a | n/a".into())
    };
    let ratio = |f: fn(&Medians) -> Duration| match (ours, anchor) {
        (Some(a), Some(b)) => format!("{:.2}x", f(&a).as_secs_f64() / f(&b).as_secs_f64()),
        _ => "n/a".into(),
    };
    println!(
        "| {what} | {} | {} | {} | {} |",
        cell(ours),
        cell(anchor),
        ratio(|m| m.cpu),
        ratio(|m| m.wall)
    );
}

/// A copy of `cajetac` (and of the `cajetac-llvm` beside it, which `--backend llvm` runs) in
/// `dir`, the executable the launches time. On the 2-core container an executable the linker
/// had just written launched 0.2 ms slower, with 22 more page faults, than a byte-identical
/// copy of it (docs/PERFORMANCE.md, "Start-up libraries, system calls and syntax trees"),
/// which would make a fresh build look slower than one built earlier.
fn copied_for_timing(cajetac: &Path, dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a folder for the timed executables");
    let copy = bin.join("cajetac");
    std::fs::copy(cajetac, &copy).expect("copy cajetac");
    let llvm = cajetac.with_file_name("cajetac-llvm");
    if llvm.exists() {
        std::fs::copy(&llvm, bin.join("cajetac-llvm")).expect("copy cajetac-llvm");
    }
    copy
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
    let cajetac = copied_for_timing(&cajetac, &dir);
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
    let llvm = !std::env::args().any(|a| a == "--no-llvm");
    let reps = if quick { 5 } else { 31 };
    let out = dir.join("out");
    let glslang = tool("glslangValidator", "GLSLANG");
    let naga = tool("naga", "NAGA");
    // Each backend builds into a folder of its own: were the LLVM backend's outputs (other
    // bytes) written where the rspirv build writes, every rspirv "rebuild" would find them
    // changed and write all of its files again.
    let out_llvm = dir.join("out-llvm");
    let cajetac_cmd = |args: &[&str], file: &str| {
        let mut c = Command::new(&cajetac);
        let folder = if args.contains(&"llvm") {
            &out_llvm
        } else {
            &out
        };
        c.args(args).arg(dir.join(file)).arg("-o").arg(folder);
        c
    };
    // naga with no output file parses and validates: its `check`.
    let naga_run = |src: &Path, spv: Option<&str>| {
        naga.as_ref().is_some_and(|n| {
            let mut c = Command::new(n);
            c.arg(src);
            if let Some(s) = spv {
                c.arg(dir.join(s));
            }
            ok(&mut c)
        })
    };
    let saxpy_wgsl = inputs.join("saxpy.wgsl");
    let many_wgsl = dir.join("many.wgsl");
    let small = interleaved(
        reps,
        &mut [
            &mut || ok(Command::new(&cajetac).arg("--version")),
            &mut || {
                naga.as_ref()
                    .is_some_and(|n| ok(Command::new(n).arg("--version")))
            },
            &mut || {
                ok(Command::new(&cajetac)
                    .arg("check")
                    .arg(dir.join("saxpy.cajeta")))
            },
            &mut || naga_run(&saxpy_wgsl, None),
            &mut || ok(&mut cajetac_cmd(&["build"], "saxpy.cajeta")),
            &mut || naga_run(&saxpy_wgsl, Some("n.spv")),
            &mut || {
                llvm && ok(&mut cajetac_cmd(
                    &["build", "--backend", "llvm"],
                    "saxpy.cajeta",
                ))
            },
            &mut || {
                glslang.as_ref().is_some_and(|g| {
                    ok(Command::new(g)
                        .args(["-V", "--target-env", "vulkan1.1", "-o"])
                        .arg(dir.join("g.spv"))
                        .arg(inputs.join("saxpy.comp")))
                })
            },
        ],
    );
    // A first build writes every file; a rebuild finds them unchanged (docs/PERFORMANCE.md).
    let mut fresh = 0;
    let many = interleaved(
        reps.min(11),
        &mut [
            &mut || ok(&mut cajetac_cmd(&["build"], "many.cajeta")),
            &mut || naga_run(&many_wgsl, Some("n.spv")),
            &mut || {
                llvm && ok(&mut cajetac_cmd(
                    &["build", "--backend", "llvm"],
                    "many.cajeta",
                ))
            },
            &mut || {
                ok(Command::new(&cajetac)
                    .arg("check")
                    .arg(dir.join("many.cajeta")))
            },
            &mut || naga_run(&many_wgsl, None),
            &mut || {
                fresh += 1;
                ok(Command::new(&cajetac)
                    .arg("build")
                    .arg(dir.join("many.cajeta"))
                    .arg("-o")
                    .arg(dir.join(format!("fresh{fresh}"))))
            },
        ],
    );
    // `cajetac` must not contain LLVM (docs/cli.md, "Two executables"): the name of one of
    // LLVM's command-line options, registered by its static initializers, tells.
    let llvm_inside = std::fs::read(&cajetac)
        .map(|b| b.windows(15).any(|w| w == b"print-after-all"))
        .unwrap_or(false);
    println!(
        "`{}` {} LLVM\n",
        cajetac.display(),
        if llvm_inside {
            "CONTAINS"
        } else {
            "does not contain"
        }
    );
    println!("| what | cajetac CPU | wall | faults | anchor CPU | wall | faults | CPU ratio | wall ratio |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    row("`--version` (naga `--version`)", small[0], small[1]);
    row(
        "`check` saxpy (naga: validate saxpy.wgsl)",
        small[2],
        small[3],
    );
    row(
        "`build` saxpy (naga: saxpy.wgsl to .spv)",
        small[4],
        small[5],
    );
    row(
        "`build` 200 kernels, 1 file, rebuild (naga: 200-entry module)",
        many[0],
        many[1],
    );
    row(
        "`build` 200 kernels into a new folder (naga: the same)",
        many[5],
        many[1],
    );
    row(
        "`check` 200 kernels (naga: validate the module)",
        many[3],
        many[4],
    );
    row(
        "`build --backend llvm` saxpy (rspirv `build`)",
        small[6],
        small[4],
    );
    row(
        "`build --backend llvm` 200 kernels (rspirv `build`)",
        many[2],
        many[0],
    );
    row(
        "glslangValidator -V saxpy (cajetac `build`)",
        small[7],
        small[4],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
