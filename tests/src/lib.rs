//! Shared helpers for the golden, diagnostics, fuzz and device suites.

pub mod fuzz;

use cajeta_runtime::{Context, ContextOptions};
use cajetac::diagnostics::{Diagnostic, SourceMap};
use cajetac::ir;
use cajetac::kernel::spirv::TargetEnv;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `tests/` folder: `CAJETA_TESTS_DIR` when set (test binaries carried to another
/// machine), else where this crate was built.
pub fn tests_dir() -> PathBuf {
    match std::env::var_os("CAJETA_TESTS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    }
}

/// Files with extension `ext` in `tests/<dir>`, sorted.
pub fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(tests_dir().join(dir))
        .unwrap_or_else(|e| panic!("cannot read tests/{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// Whether goldens should be rewritten instead of compared (`CAJETA_BLESS=1`).
pub fn bless() -> bool {
    std::env::var("CAJETA_BLESS").is_ok_and(|v| v == "1")
}

/// Compares `actual` with the golden file, or writes it when blessing. Returns a
/// description of the mismatch.
pub fn check_golden(path: &Path, actual: &str) -> Result<(), String> {
    if bless() {
        std::fs::write(path, actual)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "missing golden {} ({e}); run with CAJETA_BLESS=1 and review the diff",
            path.display()
        )
    })?;
    if expected == actual {
        return Ok(());
    }
    let first = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    Err(format!(
        "{} differs from the golden at line {}:\n  expected: {:?}\n  actual:   {:?}\n(CAJETA_BLESS=1 rewrites goldens; review the diff)",
        path.display(),
        first + 1,
        expected.lines().nth(first).unwrap_or("<end>"),
        actual.lines().nth(first).unwrap_or("<end>"),
    ))
}

/// Parses and checks one file with the stdlib.
pub fn frontend(path: &Path) -> (SourceMap, Result<ir::Module, Vec<Diagnostic>>) {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
    let name = path
        .strip_prefix(tests_dir())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut sources = SourceMap::new();
    let result = cajetac::driver::frontend(&mut sources, &[(name, text)]);
    (sources, result)
}

/// The `cajetac` executable of this build: `$CAJETAC`, else the one next to the test
/// binary's `deps/` folder (what `cargo test --workspace` builds, with native host code).
/// `None` when neither exists; with `CI=true` that is a failure.
pub fn cajetac_program() -> Option<std::path::PathBuf> {
    let found = std::env::var_os("CAJETAC")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.parent()?.join("cajetac"))
        })
        .filter(|p| p.is_file());
    if found.is_none() && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but no cajetac executable next to the test binary (set CAJETAC)");
    }
    found
}

/// A fresh path `<temp>/cajeta-tools-<pid>/<n>-<tag>.<ext>` for a tool's input: suites run
/// concurrently in one process and may use the same tag.
fn scratch_file(tag: &str, ext: &str) -> Result<std::path::PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("cajeta-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(format!("{n}-{tag}.{ext}")))
}

/// Assembles `text` with `spirv-as` (next to `spirv-val`) and checks that it gives `words`
/// back, header aside (generator and id bound are the assembler's own).
pub fn reassembles_to(text: &str, words: &[u32], env: TargetEnv, tag: &str) -> Result<(), String> {
    let val = std::path::PathBuf::from(spirv_val_program());
    let program = match val.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => dir.join("spirv-as"),
        None => std::path::PathBuf::from("spirv-as"),
    };
    let src = scratch_file(tag, "spvasm")?;
    let out = src.with_extension("spv");
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let run = Command::new(&program)
        .args(["--preserve-numeric-ids", "--target-env", env.name(), "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| {
            format!(
                "cannot run {} (install spirv-tools): {e}",
                program.display()
            )
        })?;
    let bytes = std::fs::read(&out).unwrap_or_default();
    let _ = (std::fs::remove_file(&src), std::fs::remove_file(&out));
    if !run.status.success() {
        return Err(format!(
            "spirv-as refused the disassembly of {tag}:\n{}",
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let back: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match back.iter().zip(words).skip(5).position(|(a, b)| a != b) {
        None if back.len() == words.len() => Ok(()),
        None => Err(format!(
            "{tag}: reassembled {} words, expected {}",
            back.len(),
            words.len()
        )),
        Some(i) => Err(format!(
            "{tag}: reassembled module differs at word {}",
            i + 5
        )),
    }
}

/// Runs `spirv-val` on a module. `spirv-val` must be installed (the README's commands
/// install spirv-tools); a missing validator fails the test rather than skipping it.
pub fn spirv_val(words: &[u32], env: TargetEnv, tag: &str) -> Result<(), String> {
    let file = scratch_file(tag, "spv")?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
    let out = Command::new(spirv_val_program())
        .arg("--target-env")
        .arg(env.name())
        .arg(&file)
        .output()
        .map_err(|e| format!("cannot run spirv-val (install spirv-tools): {e}"))?;
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "spirv-val --target-env {} failed for {tag}:\n{}{}",
            env.name(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The `spirv-val` to run: `$CAJETA_SPIRV_VAL` when set (scripts/deps.sh installs a recent
/// one there: Debian's 2023.1 does not know SPV_KHR_cooperative_matrix or SPV_KHR_bfloat16),
/// else `spirv-val` from `PATH`.
pub fn spirv_val_program() -> String {
    std::env::var("CAJETA_SPIRV_VAL").unwrap_or_else(|_| "spirv-val".to_string())
}

/// Creates a context on the default device. With no device: `None`, unless `CI=true`, in
/// which case the test fails (a device suite that silently skips proves nothing).
pub fn device_context(validation: bool) -> Option<Context> {
    device_context_with(ContextOptions {
        validation,
        ..ContextOptions::from_env()
    })
}

/// [`device_context`] with the context's `options` given whole; `None` (or, under
/// `CI=true`, a panic) as there when no device can be opened.
pub fn device_context_with(options: ContextOptions) -> Option<Context> {
    match Context::with_options(options) {
        Ok(c) => Some(c),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but no usable Vulkan device: {e}");
            }
            eprintln!("skipping device test: no Vulkan device ({e})");
            None
        }
    }
}

/// Runs the program `text` (named `name` in diagnostics) on `ctx` with `options`, as
/// `cajetac run` would, and returns what it printed and what it returned: the value's text,
/// or the rendered compile or run-time error.
pub fn run_on(
    ctx: &Context,
    name: &str,
    text: String,
    options: &cajetac::kernel::spirv::SpirvOptions,
) -> (String, Result<String, String>) {
    use cajetac::driver::{run_program, RunError};
    use cajetac::host::interp::{HostIo, HostOutcome};
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let result = run_program(
        &mut sources,
        &[(name.to_string(), text)],
        options,
        &[],
        &mut io,
    );
    let printed = String::from_utf8_lossy(&out).into_owned();
    let value = match result {
        Ok(HostOutcome::Returned(v)) => Ok(format!("{v}")),
        Ok(HostOutcome::Void) => Err("returned nothing".to_string()),
        Err(RunError::Compile(d)) => Err(format!(
            "compile error:\n{}",
            cajetac::diagnostics::render_human(&sources, &d)
        )),
        Err(RunError::NoEntryPoint) => Err("no entry point".to_string()),
        Err(RunError::Runtime(e)) => Err(e.render(&sources)),
        Err(RunError::NotNative(m)) => Err(m),
    };
    (printed, value)
}

/// [`run_on`] for a file.
pub fn run_file_on(
    ctx: &Context,
    path: &Path,
    options: &cajetac::kernel::spirv::SpirvOptions,
) -> (String, Result<String, String>) {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
    run_on(ctx, &path.display().to_string(), text, options)
}

/// The (length, element type) of every workgroup array variable of a disassembly, in
/// declaration order, the types spelled `float`, `half`, `bfloat16`, `uint`, `int16`,
/// `v4half` …: the SPIR-V types read back for precision goldens.
pub fn workgroup_array_elements(text: &str) -> Vec<(String, String)> {
    let defs: std::collections::HashMap<&str, Vec<&str>> = text
        .lines()
        .filter_map(|l| l.split_once(" = "))
        .map(|(id, rhs)| (id.trim(), rhs.split_whitespace().collect()))
        .collect();
    fn spell(defs: &std::collections::HashMap<&str, Vec<&str>>, id: &str) -> String {
        match defs.get(id).map(Vec::as_slice) {
            Some(["OpTypeFloat", "32"]) => "float".into(),
            Some(["OpTypeFloat", "16"]) => "half".into(),
            Some(["OpTypeFloat", "16", _]) => "bfloat16".into(),
            Some(["OpTypeInt", w, "0"]) => format!("uint{}", if *w == "32" { "" } else { w }),
            Some(["OpTypeInt", w, "1"]) => format!("int{}", if *w == "32" { "" } else { w }),
            Some(["OpTypeVector", c, n]) => format!("v{n}{}", spell(defs, c)),
            other => format!("{other:?}"),
        }
    }
    let constant = |id: &str| match defs.get(id).map(Vec::as_slice) {
        Some(["OpConstant", _, n]) => n.to_string(),
        _ => id.to_string(),
    };
    text.lines()
        .filter_map(|l| l.split_once(" = ").map(|(_, rhs)| rhs))
        .filter_map(
            |rhs| match rhs.split_whitespace().collect::<Vec<_>>().as_slice() {
                ["OpVariable", ptr, "Workgroup"] => Some(ptr.to_string()),
                _ => None,
            },
        )
        .filter_map(|ptr| match defs.get(ptr.as_str()).map(Vec::as_slice) {
            Some(["OpTypePointer", "Workgroup", arr]) => match defs.get(arr).map(Vec::as_slice) {
                Some(["OpTypeArray", e, n]) => Some((constant(n), spell(&defs, e))),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The lines of a disassembled module that convert a float to a 64-bit integer in one
/// instruction. Both kernel backends build such conversions from two 32-bit ones, since
/// NVIDIA's 580 driver shortened a 64-bit conversion whose low word alone was used into a
/// saturating 32-bit one (docs/fuzzing.md).
pub fn float_to_64_in_one_step(text: &str) -> Vec<String> {
    let mut wide = std::collections::HashSet::new();
    let mut found = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [id, "=", "OpTypeInt", "64", _] => {
                wide.insert(id.to_string());
            }
            [id, "=", "OpTypeVector", lane, _] if wide.contains(*lane) => {
                wide.insert(id.to_string());
            }
            [_, "=", "OpConvertFToS" | "OpConvertFToU", ty, ..] if wide.contains(*ty) => {
                found.push(line.trim().to_string());
            }
            _ => {}
        }
    }
    found
}

/// How a conversion to a 16-bit float in a disassembled module gets its operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfNarrowing {
    /// Rounded to a `float16` value on its bits first: an `OpBitcast` from an integer, or a
    /// vector built from such lanes.
    Rounded,
    /// Holds `float16` values by construction: `UnpackHalf2x16` results, widened `float16`s,
    /// or lanes, shuffles and vectors of those.
    Exact,
    /// Anything else: NVIDIA's 580 driver folds such a narrowing and the widening after it
    /// into nothing (docs/fuzzing.md).
    Unrounded,
}

/// Every `OpFConvert` to a 16-bit float in a disassembled module (`kernel::spirv::
/// disassemble`), with how its operand got its value.
pub fn half_narrowings(text: &str) -> Vec<(String, HalfNarrowing)> {
    let mut half = std::collections::HashSet::new();
    let mut defs = std::collections::HashMap::new();
    let mut found = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [id, "=", op, rest @ ..] = words.as_slice() {
            defs.insert(
                id.to_string(),
                (
                    op.to_string(),
                    rest.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
                ),
            );
        }
        match words.as_slice() {
            [id, "=", "OpTypeFloat", "16"] => {
                half.insert(id.to_string());
            }
            [id, "=", "OpTypeVector", lane, _] if half.contains(*lane) => {
                half.insert(id.to_string());
            }
            [_, "=", "OpFConvert", ty, operand] if half.contains(*ty) => {
                let kind = if lanes_all(&defs, operand, &|op, _| op == "OpBitcast") {
                    HalfNarrowing::Rounded
                } else if lanes_all(&defs, operand, &|op, args| {
                    args.iter().any(|a| a == "UnpackHalf2x16")
                        || (op == "OpFConvert"
                            && matches!(defs.get(&args[1]), Some((_, a)) if half.contains(&a[0])))
                }) {
                    HalfNarrowing::Exact
                } else {
                    HalfNarrowing::Unrounded
                };
                found.push((line.trim().to_string(), kind));
            }
            _ => {}
        }
    }
    found
}

/// Whether every lane of the value `id` comes from a definition that `leaf` accepts, looking
/// through vector constructs, lane extracts and shuffles.
fn lanes_all(
    defs: &std::collections::HashMap<String, (String, Vec<String>)>,
    id: &str,
    leaf: &dyn Fn(&str, &[String]) -> bool,
) -> bool {
    let Some((op, args)) = defs.get(id) else {
        return false;
    };
    if leaf(op, args) {
        return true;
    }
    match op.as_str() {
        "OpCompositeConstruct" => args.iter().skip(1).all(|a| lanes_all(defs, a, leaf)),
        "OpCompositeExtract" => lanes_all(defs, &args[1], leaf),
        "OpVectorShuffle" => lanes_all(defs, &args[1], leaf) && lanes_all(defs, &args[2], leaf),
        _ => false,
    }
}

/// The `OpFConvert`s to a 16-bit float in a disassembled module whose operand is neither
/// rounded to `float16` first nor a `float16` value by construction ([`half_narrowings`]).
pub fn unrounded_half_narrowings(text: &str) -> Vec<String> {
    half_narrowings(text)
        .into_iter()
        .filter(|(_, kind)| *kind == HalfNarrowing::Unrounded)
        .map(|(line, _)| line)
        .collect()
}

/// Runs the test `name` (its path in the test binary, `module::test`) again, alone, in a
/// child process of this test binary with the variables `env` set, for a test whose
/// condition is read from the environment once per process (which device a context finds,
/// an option read when a context is made). Returns the child's stdout, stderr and whether
/// it succeeded.
pub fn rerun_test_in_child(name: &str, env: &[(&str, &str)]) -> (String, String, bool) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut command = Command::new(exe);
    command.args([name, "--exact", "--nocapture"]);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("the test binary runs again");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}
