//! `cajeta-fuzz`: the on-demand long run of the fuzz campaign (docs/fuzzing.md).
//!
//! ```text
//! cajeta-fuzz [--seed S] [--inputs N] [--programs G] [--device-programs M]
//!             [--max-nest K] [--out DIR] [--show I | --show-program I | --file F]
//!             [--reduce-program F] [--run-program F]
//! ```
//!
//! Runs robustness inputs `0..N` (random bytes, corpus mutations, size stress), then `G`
//! generated programs through `spirv-val`, the first `M` of them also on the device against
//! host code. Each finding is written to `DIR` (default `fuzz-out/`) with a reduced
//! reproducer when reduction keeps the same failure.
//!
//! A stack overflow aborts the process and cannot be caught, so this binary is a supervisor:
//! it runs the inputs in a child (itself with `--worker FROM`) that announces each input on
//! stdout before running it. When the child dies, the last announced input is the crash; when
//! it goes silent for [`HANG`], it is killed and the input is a hang. Either way the
//! supervisor records the input and starts a new child after it.

use cajeta_tests::fuzz::mutate::InputKind;
use cajeta_tests::fuzz::oracle::{self, Finding, Kind, Reached, Validator};
use cajeta_tests::fuzz::{self, divergence, executors, InputConfig};
use cajetac::kernel::spirv::TargetEnv;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A child silent for this long is hung.
const HANG: Duration = Duration::from_secs(60);

#[derive(Clone, Debug)]
struct Args {
    seed: u64,
    inputs: u64,
    programs: u64,
    device_programs: u64,
    max_nest: usize,
    out: PathBuf,
    worker: Option<u64>,
    show: Option<u64>,
    show_program: Option<u64>,
    file: Option<PathBuf>,
    reduce_program: Option<PathBuf>,
    run_program: Option<PathBuf>,
}

fn parse_args() -> Args {
    let mut a = Args {
        seed: 1,
        inputs: 10_000,
        programs: 100,
        device_programs: 20,
        max_nest: 2_000,
        out: PathBuf::from("fuzz-out"),
        worker: None,
        show: None,
        show_program: None,
        file: None,
        reduce_program: None,
        run_program: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = || -> u64 {
            args.get(i + 1)
                .and_then(|v| v.replace('_', "").parse().ok())
                .unwrap_or_else(|| panic!("{} needs a number", args[i]))
        };
        match args[i].as_str() {
            "--seed" => a.seed = value(),
            "--inputs" => a.inputs = value(),
            "--programs" => a.programs = value(),
            "--device-programs" => a.device_programs = value(),
            "--max-nest" => a.max_nest = value() as usize,
            "--worker" => a.worker = Some(value()),
            "--show" => a.show = Some(value()),
            "--show-program" => a.show_program = Some(value()),
            "--out" => a.out = PathBuf::from(&args[i + 1]),
            "--file" => a.file = Some(PathBuf::from(&args[i + 1])),
            "--reduce-program" => a.reduce_program = Some(PathBuf::from(&args[i + 1])),
            "--run-program" => a.run_program = Some(PathBuf::from(&args[i + 1])),
            "-h" | "--help" => {
                println!("usage: cajeta-fuzz [--seed S] [--inputs N] [--programs G] [--device-programs M] [--max-nest K] [--out DIR] [--show I | --show-program I | --file F]");
                std::process::exit(0);
            }
            other => panic!("unknown argument {other:?} (try --help)"),
        }
        i += 2;
    }
    a.device_programs = a.device_programs.min(a.programs);
    a
}

fn input_config(a: &Args) -> InputConfig {
    InputConfig {
        seed: a.seed,
        max_nest: a.max_nest,
    }
}

fn corpus() -> Vec<String> {
    fuzz::mutate::load_corpus(&cajeta_tests::tests_dir())
}

/// The text of index `i` of the run: a robustness input, or a generated program after them.
fn text_of(a: &Args, corpus: &[String], i: u64) -> (String, String) {
    if i < a.inputs {
        let input = fuzz::input(&input_config(a), corpus, i);
        (input.label, input.text)
    } else {
        let p = fuzz::generated(a.seed, i - a.inputs);
        ("program".to_string(), p.source)
    }
}

fn kind_code(k: InputKind) -> &'static str {
    match k {
        InputKind::Bytes => "bytes",
        InputKind::Mutation => "mutation",
        InputKind::Nesting => "nesting",
    }
}

fn reached_code(r: Reached) -> &'static str {
    match r {
        Reached::Syntax => "syntax",
        Reached::Checker => "checker",
        Reached::Emission => "emission",
        Reached::Validated => "validated",
    }
}

/// Writes a finding's input, its reduced form and the details under `out`.
fn save(out: &Path, name: &str, text: &str, reduced: Option<&str>, detail: &str) {
    let _ = std::fs::create_dir_all(out);
    let _ = std::fs::write(out.join(format!("{name}.cajeta")), text);
    if let Some(r) = reduced {
        let _ = std::fs::write(out.join(format!("{name}.min.cajeta")), r);
    }
    let _ = std::fs::write(out.join(format!("{name}.txt")), detail);
}

/// The worker: runs indices from `from` to the end, one line per event on stdout.
fn worker(a: &Args, from: u64) {
    oracle::quiet_panics();
    executors::enable_llvm_kernels();
    let corpus = corpus();
    let mut val = Validator::default();
    let mut ctx: Option<cajeta_runtime::Context> = None;
    let mut saved: HashMap<String, usize> = HashMap::new();
    let stdout = std::io::stdout();
    let total = a.inputs + a.programs;
    for i in from..total {
        {
            let mut o = stdout.lock();
            let _ = writeln!(o, "I {i}");
            let _ = o.flush();
        }
        let (label, kind, reached, findings, device, text);
        let mut ways = executors::FourWayCounts::default();
        let started = Instant::now();
        if i < a.inputs {
            let input = fuzz::input(&input_config(a), &corpus, i);
            let (r, f) = fuzz::check_input(&input.text, &mut val, fuzz::validates(&input.label));
            (label, kind, reached, findings, device) =
                (input.label, kind_code(input.kind), r, f, false);
            text = input.text;
        } else {
            let p = i - a.inputs;
            let program = fuzz::generated(a.seed, p);
            let (c, mut f) = oracle::check_generated(&program, &mut val);
            let on_device = p < a.device_programs && f.is_empty();
            if on_device {
                if ctx.is_none() {
                    ctx = cajeta_tests::device_context(false);
                }
                if let Some(ctx) = &ctx {
                    let (found, counts) = executors::run_four_ways(&c, ctx, &mut val);
                    f.extend(divergence::classify(&program.source, found, ctx, &mut val));
                    ways = counts;
                }
            }
            (label, kind, reached, findings, device) =
                ("program".to_string(), "program", c.reached, f, on_device);
            text = program.source;
        }
        if std::env::var_os("CAJETA_FUZZ_TIMING").is_some() {
            eprintln!(
                "T {i} {label} {:?} {} ms",
                reached,
                started.elapsed().as_millis()
            );
        }
        // The runs of each of the four ways (docs/fuzzing.md), whether LLVM refused, then
        // the CPU device's run and refusal.
        let mut lines = format!(
            "D {i} {kind} {} {} {}{}{}{}{}{}{}\n",
            reached_code(reached),
            u8::from(device),
            ways.runs[0],
            ways.runs[1],
            ways.runs[2],
            ways.runs[3],
            ways.llvm_refused,
            ways.cpu_runs,
            ways.cpu_refused
        );
        for f in &findings {
            let known = fuzz::known_defect(&label, f).unwrap_or("");
            let sig = f.signature();
            lines.push_str(&format!("F {i} {label} |{known}| {sig}\n"));
            let n = saved.entry(sig.clone()).or_default();
            *n += 1;
            if *n <= 3 {
                let reduced = if known.is_empty() {
                    Some(reduce(&text, f, &label))
                } else {
                    None
                };
                let detail = format!(
                    "input {i} ({label}), seed {}\n{:?}\n{}\n",
                    a.seed, f.kind, f.detail
                );
                save(
                    &a.out,
                    &format!("{i}-{label}"),
                    &text,
                    reduced.as_deref(),
                    &detail,
                );
            }
        }
        let mut o = stdout.lock();
        let _ = o.write_all(lines.as_bytes());
        let _ = o.flush();
    }
    println!("END");
}

/// Shrinks `text` while it keeps failing with the same signature.
fn reduce(text: &str, f: &Finding, label: &str) -> String {
    let sig = f.signature();
    let mut val = Validator::default();
    let wrong_result = f.kind == Kind::WrongResult;
    let ctx = if wrong_result {
        cajeta_tests::device_context(false)
    } else {
        None
    };
    let budget = if wrong_result { 150 } else { 400 };
    fuzz::mutate::reduce(
        text,
        |candidate| {
            if wrong_result {
                let Some(ctx) = &ctx else { return false };
                let p = fuzz::gen::Program {
                    source: candidate.to_string(),
                    kernels: 0,
                    outputs: 0,
                };
                let (c, fs) = oracle::check_generated(&p, &mut val);
                // The same kind of failure: a runtime error (say, array lengths the
                // reduction broke) is not the wrong result being reduced.
                fs.is_empty()
                    && oracle::run_on_device(&c, ctx)
                        .is_some_and(|g| g.detail.starts_with("device and host disagree"))
            } else {
                let (_, fs) = fuzz::check_input(candidate, &mut val, fuzz::validates(label));
                fs.iter().any(|g| g.signature() == sig)
            }
        },
        budget,
    )
}

/// Shrinks a generated program with a wrong result ([`fuzz::shrink`]: blocks, expressions and
/// lines, each edit made on the kernel's statement and the host's copy of it alike) while
/// device and host still disagree (not a compile or runtime error). Prints the result. With
/// `CAJETA_FUZZ_REDUCE_LLVM` set it keeps a difference of LLVM's kernels only instead: the
/// four ways run, an LLVM way disagrees for no known reason (not lavapipe's constant-zero
/// fold), and every other finding is a known defect. With `CAJETA_FUZZ_REDUCE_CPU` set it
/// keeps a difference of the CPU device's run only: it runs (not refused) and disagrees with
/// the host, and the four Vulkan ways agree.
fn reduce_program(path: &Path) {
    oracle::quiet_panics();
    let ctx = cajeta_tests::device_context(false).expect("a device");
    let text = std::fs::read_to_string(path).expect("read --reduce-program");
    let llvm_only = std::env::var_os("CAJETA_FUZZ_REDUCE_LLVM").is_some();
    let cpu_only = std::env::var_os("CAJETA_FUZZ_REDUCE_CPU").is_some();
    if llvm_only || cpu_only {
        executors::enable_llvm_kernels();
    }
    let mut val = Validator::default();
    let mut fails = |t: &str| {
        // No spirv-val of rspirv's modules here: the predicate runs hundreds of times; the
        // result is checked.
        let (c, fs) = oracle::compile(t.to_string(), &[TargetEnv::Vulkan1_1]);
        if !fs.is_empty() {
            return false;
        }
        if cpu_only {
            let (found, counts) = executors::run_four_ways(&c, &ctx, &mut val);
            return counts.cpu_runs == 1
                && !found.is_empty()
                && found.iter().all(|f| {
                    f.detail.starts_with(executors::CPU_WAY)
                        && f.detail.contains("device and host disagree")
                });
        }
        if !llvm_only {
            return oracle::run_on_device(&c, &ctx)
                .is_some_and(|g| g.detail.starts_with("device and host disagree"));
        }
        let (found, counts) = executors::run_four_ways(&c, &ctx, &mut val);
        let differs = |f: &Finding, way: &str| {
            f.detail.starts_with(way) && f.detail.contains("device and host disagree")
        };
        // An unexplained difference of an LLVM way; the other ways right or a known defect
        // (lavapipe's constant-zero fold of the rspirv ways, say), which the reduction may
        // keep or lose.
        let known = |f: &Finding| fuzz::known_defect("program", f).is_some();
        counts.runs[2] > 0
            && found.iter().any(|f| differs(f, "llvm+") && !known(f))
            && found.iter().all(|f| differs(f, "llvm+") || known(f))
    };
    assert!(fails(&text), "the program does not fail");
    let text = fuzz::shrink::shrink(text, fails, |t| {
        let _ = std::fs::write("reduce-progress.cajeta", t);
    });
    print!("{text}");
}

/// Runs a generated program (a file) the four ways on the device, as the campaign does, and
/// prints the runs and each finding with the known defect it is, if any.
fn run_program(path: &Path) {
    oracle::quiet_panics();
    executors::enable_llvm_kernels();
    let ctx = cajeta_tests::device_context(false).expect("a device");
    let source = std::fs::read_to_string(path).expect("read --run-program");
    let program = fuzz::gen::Program {
        source,
        kernels: 0,
        outputs: 0,
    };
    let mut val = Validator::default();
    let (c, mut findings) = oracle::check_generated(&program, &mut val);
    let (found, counts) = executors::run_four_ways(&c, &ctx, &mut val);
    findings.extend(divergence::classify(&program.source, found, &ctx, &mut val));
    println!(
        "runs {:?}, LLVM refused {}, CPU device runs {} (refused {})",
        counts.runs, counts.llvm_refused, counts.cpu_runs, counts.cpu_refused
    );
    for f in findings {
        let known = fuzz::known_defect("program", &f).unwrap_or("new");
        println!("[{known}] {:?}: {}", f.kind, f.detail);
    }
}

#[derive(Default)]
struct Tally {
    by_kind: BTreeMap<String, u64>,
    by_reached: BTreeMap<String, u64>,
    device: u64,
    /// Runs per way of `executors::Way::ALL`.
    ways: [u64; 4],
    llvm_refused: u64,
    /// Runs on the CPU device, and programs it refused.
    cpu_runs: u64,
    cpu_refused: u64,
    findings: BTreeMap<String, (u64, Vec<u64>)>,
}

fn supervise(a: &Args) {
    let start = Instant::now();
    let corpus = corpus();
    let total = a.inputs + a.programs;
    let mut tally = Tally::default();
    let mut next = 0u64;
    let exe = std::env::current_exe().expect("current exe");
    while next < total {
        let mut child = Command::new(&exe)
            .args(std::env::args().skip(1))
            .args(["--worker", &next.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn worker");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current: Option<u64> = None;
        let mut ended = false;
        let mut last_report = Instant::now();
        loop {
            match rx.recv_timeout(HANG) {
                Ok(line) => {
                    let parts: Vec<&str> = line.splitn(7, ' ').collect();
                    match parts[0] {
                        "I" => current = parts[1].parse().ok(),
                        "D" => {
                            *tally.by_kind.entry(parts[2].to_string()).or_default() += 1;
                            *tally.by_reached.entry(parts[3].to_string()).or_default() += 1;
                            tally.device += u64::from(parts[4] == "1");
                            let ways = parts.get(5).map_or(&b""[..], |w| w.as_bytes());
                            for (k, n) in ways.iter().take(4).enumerate() {
                                tally.ways[k] += u64::from(*n == b'1');
                            }
                            tally.llvm_refused += u64::from(ways.get(4) == Some(&b'1'));
                            tally.cpu_runs += u64::from(ways.get(5) == Some(&b'1'));
                            tally.cpu_refused += u64::from(ways.get(6) == Some(&b'1'));
                            next = parts[1].parse::<u64>().unwrap() + 1;
                            current = None;
                        }
                        "F" => {
                            let idx: u64 = parts[1].parse().unwrap();
                            let key = line.splitn(4, ' ').nth(3).unwrap_or("").to_string();
                            let e = tally.findings.entry(key).or_default();
                            e.0 += 1;
                            if e.1.len() < 5 {
                                e.1.push(idx);
                            }
                        }
                        "END" => ended = true,
                        _ => eprintln!("worker: {line}"),
                    }
                    if last_report.elapsed() > Duration::from_secs(30) {
                        last_report = Instant::now();
                        eprintln!(
                            "[{:>6.0} s] {next}/{total} done, {} finding(s)",
                            start.elapsed().as_secs_f64(),
                            tally.findings.values().map(|v| v.0).sum::<u64>()
                        );
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    record_abort(
                        a,
                        &corpus,
                        &mut tally,
                        current,
                        "hang (no progress for 60 s)",
                    );
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().expect("wait for worker");
                    if !ended {
                        let why = format!("crash: worker died ({status})");
                        record_abort(a, &corpus, &mut tally, current, &why);
                    }
                    break;
                }
            }
        }
        let _ = child.wait();
        if let Some(i) = current {
            next = i + 1;
        }
        if ended {
            break;
        }
    }
    let report = summary(a, &tally, start.elapsed());
    print!("{report}");
    let _ = std::fs::create_dir_all(&a.out);
    let _ = std::fs::write(a.out.join("summary.txt"), report);
}

/// Records the input that killed or hung a worker.
fn record_abort(a: &Args, corpus: &[String], tally: &mut Tally, current: Option<u64>, why: &str) {
    let Some(i) = current else {
        eprintln!("worker stopped between inputs: {why}");
        return;
    };
    let (label, text) = text_of(a, corpus, i);
    // Deep-nesting stack overflows are a known defect being fixed on main.
    // Nested calls and ifs are the same class but not on main's list: reported as new.
    let known = if label.starts_with("plus-chain")
        || label.starts_with("nested-blocks")
        || label.starts_with("nested-ternary")
        || label.starts_with("prefix-run")
    {
        "deep nesting overflows the stack"
    } else {
        ""
    };
    let kind = if i < a.inputs {
        "crash-input"
    } else {
        "crash-program"
    };
    *tally.by_kind.entry(kind.to_string()).or_default() += 1;
    let key = format!("{label} |{known}| {why}");
    let e = tally.findings.entry(key).or_default();
    e.0 += 1;
    if e.1.len() < 5 {
        e.1.push(i);
        save(
            &a.out,
            &format!("{i}-{label}"),
            &text,
            None,
            &format!("input {i}: {why}\n"),
        );
    }
    eprintln!("input {i} ({label}): {why}");
}

fn summary(a: &Args, t: &Tally, elapsed: Duration) -> String {
    let mut s = format!(
        "cajeta-fuzz seed {} : {} inputs, {} generated programs ({} on the device), max nest {}, {:.0} s\n",
        a.seed, a.inputs, a.programs, a.device_programs, a.max_nest, elapsed.as_secs_f64()
    );
    s.push_str("inputs by kind:\n");
    for (k, n) in &t.by_kind {
        s.push_str(&format!("  {k:<14} {n}\n"));
    }
    s.push_str("furthest stage reached:\n");
    for (k, n) in &t.by_reached {
        s.push_str(&format!("  {k:<14} {n}\n"));
    }
    s.push_str(&format!(
        "generated programs run on the device: {}\n",
        t.device
    ));
    for (way, n) in executors::Way::ALL.iter().zip(t.ways) {
        s.push_str(&format!("  {:<14} {n}\n", way.name()));
    }
    s.push_str(&format!(
        "  (kernels the LLVM backend refused, LLVM runs skipped: {})\n",
        t.llvm_refused
    ));
    s.push_str(&format!(
        "  {:<14} {} (programs the CPU device refused: {})\n",
        executors::CPU_WAY,
        t.cpu_runs,
        t.cpu_refused
    ));
    s.push_str(&format!("findings ({} signatures):\n", t.findings.len()));
    for (sig, (n, idx)) in &t.findings {
        s.push_str(&format!("  {n:>7} x {sig}  (inputs {idx:?})\n"));
    }
    s
}

fn main() {
    // This program is its own LLVM emission helper: a kernel on which LLVM's SPIR-V target
    // ends the process (`LLVM ERROR: unable to legalize instruction`) then fails one
    // pipeline in a helper instead of ending the campaign, also where `cajetac-llvm` is not
    // beside it (a copy carried to another machine; docs/fuzzing.md, 2026-12-07, sixth).
    if let Some(code) = cajetac::kernel::llvm::emit_helper_main() {
        std::process::exit(code);
    }
    let a = parse_args();
    let corpus = corpus();
    if let Some(path) = &a.reduce_program {
        reduce_program(path);
    } else if let Some(path) = &a.run_program {
        run_program(path);
    } else if let Some(path) = &a.file {
        // Runs one file (a reproducer) through the robustness oracles and prints findings.
        oracle::quiet_panics();
        let text = String::from_utf8_lossy(&std::fs::read(path).expect("read --file")).into_owned();
        let (reached, findings) = fuzz::check_input(&text, &mut Validator::default(), true);
        println!("reached {reached:?}, {} finding(s)", findings.len());
        for f in findings {
            println!("{:?}: {}", f.kind, f.detail);
        }
    } else if let Some(i) = a.show {
        print!("{}", text_of(&a, &corpus, i).1);
    } else if let Some(p) = a.show_program {
        print!("{}", fuzz::generated(a.seed, p).source);
    } else if let Some(from) = a.worker {
        worker(&a, from);
    } else {
        supervise(&a);
    }
}
