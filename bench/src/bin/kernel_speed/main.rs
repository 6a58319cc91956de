//! `kernel_speed`: GPU time of cajetac's kernels against the same algorithms hand-written in
//! GLSL and compiled by `glslangValidator -V` (and `-V` + `spirv-opt -O`), for the examples'
//! separable blur, two-pass reduction and tiled SGEMM (issue 6), and the cost of checked
//! mode: the same kernels compiled with `SpirvOptions::checked` (issue 11).
//!
//! Both sides run through the same runtime context with the same resources and launch
//! shapes; the GLSL modules are loaded with cajetac's reflection document of the same kernel
//! after checking their interface against it. GPU time is the runtime's profile (Vulkan
//! timestamps around each launch), the median over the repetitions; the variants take turns
//! inside every repetition. Outputs must agree bit for bit (and with the host on samples),
//! otherwise the run fails.
//!
//! A second table sets the LLVM kernel backend (`--backend llvm`, Vulkan 1.3) against the
//! rspirv one on the kernels LLVM compiles (issue 16; the others are named as refused).
//!
//! ```text
//! kernel_speed [--quick] [--reps N] [--blur SIDE] [--reduce COUNT] [--sgemm SIDE]
//!              [--markdown FILE] [--spv-dir DIR] [--no-glsl] [--no-llvm]
//! kernel_speed --build-spv DIR      # only compile the GLSL into DIR (to carry elsewhere)
//! ```

mod cases;
mod glsl;

use std::collections::HashMap;
use std::path::PathBuf;

use cajeta_runtime::{Context, ContextOptions, Reflection};
use cajetac::embed::Program;
use cajetac::kernel::spirv::SpirvOptions;
#[cfg(feature = "llvm")]
use cajetac::kernel::spirv::{KernelBackend, TargetEnv};

use cases::{Sizes, Variant};

/// The example programs whose kernels are measured.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "blur.cajeta",
        include_str!("../../../../examples/blur.cajeta"),
    ),
    (
        "reduction.cajeta",
        include_str!("../../../../examples/reduction.cajeta"),
    ),
    (
        "sgemm.cajeta",
        include_str!("../../../../examples/sgemm.cajeta"),
    ),
];

/// One measured kernel: medians per variant in milliseconds.
pub struct Row {
    /// Which kernel or pass.
    pub name: String,
    /// Problem size in words.
    pub size: String,
    /// Median GPU milliseconds per variant, in variant order.
    pub ms: Vec<f64>,
    /// Samples per variant.
    pub samples: usize,
}

impl Row {
    /// Reduces `samples[variant]` to medians.
    pub fn new(name: &str, size: &str, samples: &mut [Vec<f64>]) -> Row {
        Row {
            name: name.into(),
            size: size.into(),
            ms: samples.iter_mut().map(|s| median(s)).collect(),
            samples: samples.first().map_or(0, Vec::len),
        }
    }
}

/// The median (sorts in place).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The markdown table: one column per variant, then ours / each other variant.
fn markdown(header: &str, labels: &[String], rows: &[Row]) -> String {
    let mut s = format!("{header}\n\n| kernel | size |");
    for l in labels {
        s += &format!(" {l} (ms) |");
    }
    for l in &labels[1..] {
        s += &format!(" ours / {l} |");
    }
    s += "\n|---|---|";
    s += &"---:|".repeat(2 * labels.len() - 1);
    s += "\n";
    for r in rows {
        s += &format!("| {} | {} |", r.name, r.size);
        for ms in &r.ms {
            s += &format!(" {ms:.3} |");
        }
        for ms in &r.ms[1..] {
            s += &format!(" {:.2}x |", r.ms[0] / ms);
        }
        s += "\n";
    }
    s
}

/// A kernel cajetac compiled: SPIR-V words and reflection.
type Compiled = (Vec<u32>, Reflection);

fn load(
    ctx: &Context,
    label: &str,
    ours: &HashMap<String, Compiled>,
    modules: &HashMap<String, Vec<u32>>,
) -> Result<Variant, String> {
    let mut kernels = HashMap::new();
    for (name, words) in modules {
        let (_, r) = ours
            .get(name)
            .ok_or_else(|| format!("cajetac has no kernel {name}"))?;
        glsl::check_interface(words, r)?;
        let k = ctx
            .load_kernel(words, r)
            .map_err(|e| format!("{label} {name}: {e}"))?;
        kernels.insert(name.clone(), k);
    }
    Ok(Variant {
        label: label.into(),
        kernels,
    })
}

/// Compiles the examples (separate programs, each with its own `main`) and keeps the kernels
/// the benchmark measures; `checked`: in checked mode (bounds-checked accesses).
fn compile_examples(checked: bool) -> Result<HashMap<String, Compiled>, String> {
    let mut out = HashMap::new();
    let options = SpirvOptions {
        checked,
        ..SpirvOptions::default()
    };
    for (file, source) in EXAMPLES {
        let files = [(file.to_string(), source.to_string())];
        let p = Program::compile_files(&files, &options).map_err(|e| format!("{file}: {e}"))?;
        for k in glsl::KERNELS {
            if let Ok(c) = p.get(k.name) {
                out.insert(k.name.to_string(), (c.words.clone(), c.reflection.clone()));
            }
        }
    }
    Ok(out)
}

/// The measured kernels the LLVM kernel backend compiles, and the names of those it refuses.
#[cfg(feature = "llvm")]
fn compile_examples_llvm() -> (HashMap<String, Compiled>, Vec<String>) {
    cajetac::kernel::llvm::enable();
    let options = SpirvOptions {
        backend: KernelBackend::Llvm,
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    let mut out = HashMap::new();
    let mut refused = Vec::new();
    for (file, source) in EXAMPLES {
        let files = [(file.to_string(), source.to_string())];
        let program = Program::compile_files(&files, &options).ok();
        for k in glsl::KERNELS {
            let compiled = program.as_ref().and_then(|p| p.get(k.name).ok());
            match compiled {
                Some(c) => {
                    out.insert(k.name.to_string(), (c.words.clone(), c.reflection.clone()));
                }
                None if source.contains(&format!("void {}(", k.name)) => {
                    refused.push(k.name.to_string())
                }
                None => {}
            }
        }
    }
    (out, refused)
}

/// The rspirv-against-LLVM table: each case whose kernels LLVM compiles, both backends'
/// modules in one context, outputs compared bit for bit as in the main table.
#[cfg(feature = "llvm")]
fn llvm_table(
    ctx: &Context,
    ours: &HashMap<String, Compiled>,
    sizes: &Sizes,
) -> Result<String, String> {
    let (llvm, refused) = compile_examples_llvm();
    let mut variants = Vec::new();
    for (label, compiled) in [
        ("cajetac (rspirv)", ours),
        ("cajetac --backend llvm", &llvm),
    ] {
        let mut kernels = HashMap::new();
        for (name, (words, r)) in compiled.iter().filter(|(n, _)| llvm.contains_key(*n)) {
            let kernel = ctx
                .load_kernel(words, r)
                .map_err(|e| format!("{label} {name}: {e}"))?;
            kernels.insert(name.clone(), kernel);
        }
        variants.push(Variant {
            label: label.into(),
            kernels,
        });
    }
    let mut rows = Vec::new();
    if ["blurX", "blurY"].iter().all(|k| llvm.contains_key(*k)) {
        rows.extend(cases::blur(ctx, &variants, sizes)?);
    }
    if llvm.contains_key("blockSum") {
        rows.extend(cases::reduction(ctx, &variants, sizes)?);
    }
    if llvm.contains_key("sgemm") {
        rows.extend(cases::sgemm(ctx, &variants, sizes)?);
    }
    let header = format!(
        "The LLVM kernel backend against rspirv (vulkan1.3 modules for LLVM); refused by LLVM (E0045), not measured: {}",
        if refused.is_empty() { "none".to_string() } else { refused.join(", ") }
    );
    let labels: Vec<String> = variants.iter().map(|v| v.label.clone()).collect();
    Ok(markdown(&header, &labels, &rows))
}

fn run(args: &[String]) -> Result<(), String> {
    let has = |f: &str| args.iter().any(|a| a == f);
    let value_of = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(dir) = value_of("--build-spv") {
        glsl::build_into(&PathBuf::from(&dir))?;
        println!("GLSL kernels compiled into {dir}");
        return Ok(());
    }
    let quick = has("--quick");
    let mut sizes = if quick {
        Sizes {
            blur: 256,
            reduce: 1 << 20,
            reduce_groups: 64,
            sgemm: 128,
            reps: 3,
        }
    } else {
        Sizes {
            blur: 2048,
            reduce: 64 << 20,
            reduce_groups: 1024,
            sgemm: 1024,
            reps: 7,
        }
    };
    if let Some(n) = value_of("--reps") {
        sizes.reps = n.parse().map_err(|_| format!("--reps {n}: not a number"))?;
    }
    for (flag, size) in [
        ("--blur", &mut sizes.blur),
        ("--reduce", &mut sizes.reduce),
        ("--sgemm", &mut sizes.sgemm),
    ] {
        if let Some(n) = value_of(flag) {
            *size = n.parse().map_err(|_| format!("{flag} {n}: not a number"))?;
        }
    }
    // `--no-glsl`: only cajetac against cajetac --checked (no glslang needed).
    let modules = match value_of("--spv-dir") {
        _ if has("--no-glsl") => None,
        Some(dir) => Some(glsl::load_from(&PathBuf::from(dir))?),
        None => Some(glsl::compile_now()?),
    };
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true),
    )
    .map_err(|e| e.to_string())?;
    let ours = compile_examples(false)?;
    let mut variants = Vec::new();
    for (label, compiled) in [
        ("cajetac", &ours),
        ("cajetac --checked", &compile_examples(true)?),
    ] {
        let mut kernels = HashMap::new();
        for (name, (words, r)) in compiled {
            let kernel = ctx.load_kernel(words, r).map_err(|e| e.to_string())?;
            kernels.insert(name.clone(), kernel);
        }
        variants.push(Variant {
            label: label.into(),
            kernels,
        });
    }
    if let Some(modules) = &modules {
        variants.push(load(&ctx, "glslang -V", &ours, &modules.plain)?);
        if let Some(opt) = &modules.opt {
            variants.push(load(&ctx, "glslang -V + spirv-opt -O", &ours, opt)?);
        }
    }
    let mut rows = Vec::new();
    rows.extend(cases::blur(&ctx, &variants, &sizes)?);
    rows.extend(cases::reduction(&ctx, &variants, &sizes)?);
    rows.extend(cases::sgemm(&ctx, &variants, &sizes)?);
    let info = ctx.device_info();
    let header = format!(
        "Device: {} ({}){}; GPU time per launch from Vulkan timestamps, median of {} runs per variant; outputs identical across variants.\nTools: {}",
        info.name,
        info.driver_info,
        if quick { ", --quick" } else { "" },
        sizes.reps,
        modules
            .as_ref()
            .map_or("none (--no-glsl)".into(), |m| m.tools.trim().replace('\n', "; "))
    );
    let labels: Vec<String> = variants.iter().map(|v| v.label.clone()).collect();
    let text = markdown(&header, &labels, &rows);
    // A build without the `llvm` feature (no LLVM linked: a small binary to carry to a
    // device machine) has only the rspirv tables, as if `--no-llvm` were given.
    #[cfg(feature = "llvm")]
    let text = if has("--no-llvm") {
        text
    } else {
        text + "\n" + &llvm_table(&ctx, &ours, &sizes)?
    };
    print!("{text}");
    if let Some(path) = value_of("--markdown") {
        std::fs::write(&path, &text).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_ratio_columns() {
        let rows = [Row {
            name: "k".into(),
            size: "s".into(),
            ms: vec![2.0, 1.0],
            samples: 1,
        }];
        let md = markdown("h", &["a".into(), "b".into()], &rows);
        assert!(md.contains("| k | s | 2.000 | 1.000 | 2.00x |"), "{md}");
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    }
}
