//! `coop_gemm`: GEMM on cooperative matrices (issue 13). C = A·B, A and B float16 row-major,
//! C float32, at the sizes given; GPU time from Vulkan timestamps (median of the
//! repetitions), TFLOP/s = 2·M·N·K / time. Variants, side by side in one run:
//! - cajetac: the cooperative-matrix GEMM as docs/language.md first shows it (one subgroup per
//!   16×16 tile, A and B loaded straight from the buffers);
//! - cajetac tiled (`tiled.cajeta`, the kernel of examples/gemm_tiled.cajeta without its epilogue):
//!   128×128×32 blocks staged in shared memory with 128-bit copies, 4×2 accumulators per
//!   subgroup, eight subgroups a workgroup (A and B read as the same bytes, eight float16 a
//!   `Vector<uint32,4>`);
//! - cajetac prefetch (`prefetch.cajeta`): the GLSL kernel's fastest shape written in Cajeta,
//!   128×128×64 blocks, the next K slice loaded into registers while the current one is
//!   multiplied (needs 32-wide subgroups);
//! - hand-written GLSL (`bench/glsl/gemm/coop_tiled.comp`, `GL_KHR_cooperative_matrix`,
//!   blocks staged in shared memory, each subgroup holding a block of 16×16 tiles), in the
//!   tile shapes that `--spv-dir DIR` lists in `DIR/variants.txt` (compiled beforehand by
//!   `bench/glsl/gemm/build.sh DIR`).
//!
//! It first prints the device's cooperative-matrix shapes (`VK_KHR_cooperative_matrix`) and,
//! where the driver has `VK_NV_cooperative_matrix2`, its flexible-dimension list. With
//! `--torch` it runs torch's fp16 and bf16 matmul (cuBLAS) on the same sizes in the same
//! command and prints each variant's ratio to it. Inputs are multiples of 1/4 in [-1, 1]: every
//! fp32-accumulated result is exact whatever the summation order, so the fp32 variants must
//! match the host exactly on sampled elements.
//!
//! ```text
//! coop_gemm [--sizes 4096,8192] [--reps 5] [--spv-dir DIR] [--torch] [--variants NAME,...]
//! coop_gemm --int8 [--sizes 4096,8192] [--reps 5] [--torch]
//! coop_gemm --library [--sizes 4096,4000,4096x14336x4096] [--precisions f16f32,...] [--reps 5]
//! coop_gemm --sweep [--precisions f16f32,f16f16,bf16f32,i8i32] [--shapes WORD,...] [--sizes ...] [--torch] [--fixed-nk] [--forms]
//! ```
//!
//! `--library` times the library GEMM as users call it (library.rs: `cajetac::blas::Gemm`, pad
//! and unpad copies included) for every precision, at 4096³, 8192³, 4000³ and
//! 4096×14336×4096 by default (`--sizes` takes `N` or `MxNxK`).
//!
//! `--sweep` runs the generated tiled GEMMs of `cajetac::blas` (sweep.rs) over block shapes
//! and precisions; `--fixed-nk` adds each shape compiled with the first size's `n` and `k` as
//! constants.
//!
//! `--int8` runs the int8 GEMMs instead (int8.rs: 16×16×32 int8 tiles into int32, TOPS, against
//! torch's `_int_mm`).
//!
//! Each variant has a short name: `cajeta-naive`, `cajeta-tiled32`, `cajeta-prefetch64`, and
//! `glsl-STEM` for each GLSL module; `--variants` runs only those whose name contains one of
//! the given words (`--variants prefetch64,glsl-b128x128x64_w64x32`).

mod int8;
mod library;
mod probe;
mod sweep;

use std::collections::HashMap;
use std::path::PathBuf;

use cajeta_runtime::{Context, ContextOptions, KernelArg, LaunchConfig, ScalarValue};
use cajetac::embed::Program;
use cajetac::kernel::spirv::SpirvOptions;

/// The documented cooperative-matrix GEMM (docs/language.md).
const CAJETA: &str = "package bench;
import cajeta.xpu.*;
public final class CoopGemm {
    @Kernel
    public static void gemm(KernelBuffer<float16> a, KernelBuffer<float16> b, KernelBuffer<float32> c,
                            uint32 m, uint32 n, uint32 k) {
        uint32 row0 = Workgroup.y() * 16;
        uint32 col0 = Workgroup.x() * 16;
        CoopMatrixAcc acc = CoopMatrix.zeroAcc();
        for (uint32 kk = 0; kk < k; kk += 16) {
            acc = CoopMatrix.mulAdd(CoopMatrix.loadA(a, row0 * k + kk, k),
                                    CoopMatrix.loadB(b, kk * n + col0, n), acc);
        }
        CoopMatrix.store(c, row0 * n + col0, n, acc);
    }
}
";

/// The tiled Cajeta GEMM (examples/gemm_tiled.cajeta's cooperative kernel, C = A·B).
const CAJETA_TILED: &str = include_str!("tiled.cajeta");

/// The Cajeta GEMM at the GLSL kernel's fastest shape, with register prefetch.
const CAJETA_PREFETCH: &str = include_str!("prefetch.cajeta");

/// One variant: label, kernel, launch shape (workgroup tile and threads), exact or not.
struct Variant {
    /// The short name `--variants` selects by.
    name: String,
    label: String,
    kernel: cajeta_runtime::Kernel,
    /// Rows and columns of C per workgroup.
    tile: [u32; 2],
    threads: u32,
    exact: bool,
}

/// GPU milliseconds of `reps` launches of `kernel` (the runtime's timestamp profile), after
/// one uncounted warm-up launch.
fn kernel_ms(
    ctx: &Context,
    stream: &cajeta_runtime::Stream,
    kernel: &cajeta_runtime::Kernel,
    cfg: &LaunchConfig,
    args: &[KernelArg<'_>],
    reps: usize,
) -> Result<Vec<f64>, String> {
    warm_up(|| {
        ctx.clear_profile();
        stream.launch(kernel, cfg, args).map_err(err)?;
        stream.sync().map_err(err)?;
        Ok(kernel_ns(ctx))
    })?;
    let mut times = Vec::new();
    for rep in 0..=reps {
        ctx.clear_profile();
        stream.launch(kernel, cfg, args).map_err(err)?;
        stream.sync().map_err(err)?;
        let ns = kernel_ns(ctx);
        if rep > 0 {
            times.push(ns / 1e6);
        }
    }
    Ok(times)
}

/// Runs `once` (one untimed launch or call, returning its GPU time) until the GPU's clocks
/// have ramped up: a kernel timed right after a pause (building the next operands, checking
/// the previous result) ran at a fifth of its speed on the H100. At least one second (two
/// runs agreeing within 2% was not enough: at the idle clock they agree too), then until two
/// in a row agree, at most 3 s.
fn warm_up(mut once: impl FnMut() -> Result<f64, String>) -> Result<(), String> {
    let start = std::time::Instant::now();
    let mut last = f64::MAX;
    loop {
        let ns = once()?;
        let elapsed = start.elapsed();
        let steady = (ns - last).abs() <= 0.02 * last;
        last = ns;
        if elapsed >= std::time::Duration::from_secs(3)
            || (steady && elapsed >= std::time::Duration::from_secs(1))
        {
            return Ok(());
        }
    }
}

/// GPU nanoseconds of the kernels in `ctx`'s profile since it was last cleared.
fn kernel_ns(ctx: &Context) -> f64 {
    ctx.profile_report()
        .entries
        .iter()
        .filter(|e| e.kind == cajeta_runtime::ProfileKind::Kernel)
        .map(|e| e.total_ns)
        .sum()
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Input element `i` of matrix `seed`: a multiple of 1/4 in [-1, 1].
fn value(i: u64, seed: u64) -> f32 {
    let h = (i.wrapping_mul(2654435761).wrapping_add(seed * 40503)) % 9;
    (h as f32 - 4.0) / 4.0
}

fn f16_bits(x: f32) -> u16 {
    // Exact for the inputs used (multiples of 1/4 in [-1, 1]).
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x == 0.0 {
        return sign;
    }
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let mant = ((b >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | mant
}

fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--library") {
        return library::run(args);
    }
    let value_of = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let sizes: Vec<u32> = value_of("--sizes")
        .unwrap_or_else(|| "4096,8192".into())
        .split(',')
        .map(|s| {
            s.parse()
                .map_err(|_| format!("--sizes: {s} is not a number"))
        })
        .collect::<Result<_, _>>()?;
    let reps: usize = value_of("--reps").map_or(Ok(5), |r| r.parse().map_err(err))?;
    probe::print_shapes();

    let profile = cajeta_runtime::DeviceProfile::auto().map_err(err)?;
    let options = SpirvOptions {
        device_features: profile.features.clone(),
        target: cajetac::specialize::Target {
            profile: Some(profile),
            ..Default::default()
        },
        ..SpirvOptions::default()
    };
    if args.iter().any(|a| a == "--sweep") {
        let torch = if args.iter().any(|a| a == "--torch") {
            probe::torch_rates(&sizes)
        } else {
            HashMap::new()
        };
        return sweep::run(&sizes, reps, &options, args, &torch);
    }
    if args.iter().any(|a| a == "--int8") {
        return int8::run(&sizes, reps, &options, args.iter().any(|a| a == "--torch"));
    }
    let program = Program::compile_files(&[("coop_gemm.cajeta".into(), CAJETA.into())], &options)
        .map_err(err)?;
    let tiled = Program::compile_files(
        &[("coop_gemm_tiled.cajeta".into(), CAJETA_TILED.into())],
        &options,
    )
    .map_err(err)?;
    let prefetch = Program::compile_files(
        &[("coop_gemm_prefetch.cajeta".into(), CAJETA_PREFETCH.into())],
        &options,
    )
    .map_err(err)?;
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true)
            .with_features(
                program
                    .required_features()
                    .into_iter()
                    .chain(tiled.required_features())
                    .chain(prefetch.required_features())
                    .collect(),
            ),
    )
    .map_err(err)?;
    let ours = program.get("gemm").map_err(err)?;
    let sub = ctx.device_info().subgroup_size;
    let mut variants = vec![Variant {
        name: "cajeta-naive".into(),
        label: "cajetac CoopMatrix (16x16 per subgroup)".into(),
        kernel: ctx
            .load_kernel(&ours.words, &ours.reflection)
            .map_err(err)?,
        tile: [16, 16],
        threads: sub,
        exact: true,
    }];
    let ours_tiled = tiled.get("gemm").map_err(err)?;
    variants.push(Variant {
        name: "cajeta-tiled32".into(),
        label: "cajetac CoopMatrix tiled (128x128x32, 4x2 per subgroup, shared uvec4)".into(),
        kernel: ctx
            .load_kernel(&ours_tiled.words, &ours_tiled.reflection)
            .map_err(err)?,
        tile: [128, 128],
        threads: 8 * sub,
        exact: true,
    });
    if sub == 32 {
        let ours_prefetch = prefetch.get("gemm").map_err(err)?;
        variants.push(Variant {
            name: "cajeta-prefetch64".into(),
            label: "cajetac CoopMatrix prefetch (128x128x64, 4x2 per subgroup, register prefetch)"
                .into(),
            kernel: ctx
                .load_kernel(&ours_prefetch.words, &ours_prefetch.reflection)
                .map_err(err)?,
            tile: [128, 128],
            threads: 256,
            exact: true,
        });
    } else {
        println!("cajeta-prefetch64 skipped: it needs 32-wide subgroups, the device has {sub}");
    }
    if let Some(dir) = value_of("--spv-dir") {
        // `variants.txt`: one GLSL module a line: file stem, block rows, block columns,
        // threads per workgroup, 1 when its results must be exact (fp32 accumulators).
        let list = PathBuf::from(&dir).join("variants.txt");
        let text =
            std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [stem, bm, bn, threads, exact] = f[..] else {
                return Err(format!("{}: bad line `{line}`", list.display()));
            };
            let num = |s: &str| {
                s.parse::<u32>()
                    .map_err(|_| format!("`{line}`: {s} is not a number"))
            };
            let path = PathBuf::from(&dir).join(format!("{stem}.spv"));
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            // A module the driver refuses (a workgroup-scope matrix shape it does not take)
            // is reported and skipped, so the other variants still run.
            let kernel = match ctx.load_kernel(&words, &ours.reflection) {
                Ok(k) => k,
                Err(e) => {
                    println!("glsl-{stem} skipped: the device refused it: {e}");
                    continue;
                }
            };
            variants.push(Variant {
                name: format!("glsl-{stem}"),
                label: format!("GLSL coopmat {stem}"),
                kernel,
                tile: [num(bm)?, num(bn)?],
                threads: num(threads)?,
                exact: exact == "1",
            });
        }
    }
    if let Some(wanted) = value_of("--variants") {
        let words: Vec<&str> = wanted.split(',').filter(|w| !w.is_empty()).collect();
        variants.retain(|v| words.iter().any(|w| v.name.contains(w)));
        if variants.is_empty() {
            return Err(format!(
                "--variants {wanted}: no variant's name contains any of these"
            ));
        }
    }
    let torch = if args.iter().any(|a| a == "--torch") {
        probe::torch_rates(&sizes)
    } else {
        HashMap::new()
    };
    match &ctx.device_info().coop_matrix2 {
        Some(nv2) => {
            println!(
                "VK_NV_cooperative_matrix2: features {:?}; workgroup scope up to {} invocations, \
                 {} bytes of shared memory reserved; flexible dimensions up to {}",
                nv2.features,
                nv2.workgroup_scope_max_workgroup_size,
                nv2.workgroup_scope_reserved_shared_memory,
                nv2.flexible_dimensions_max_dimension
            );
            for f in &nv2.flexible {
                println!(
                    "  flexible {} granularity {}x{}x{} {}x{} + {} -> {} ({} invocations)",
                    f.scope,
                    f.m_granularity,
                    f.n_granularity,
                    f.k_granularity,
                    f.a,
                    f.b,
                    f.c,
                    f.result,
                    f.workgroup_invocations
                );
            }
        }
        None => println!("VK_NV_cooperative_matrix2: not offered"),
    }
    println!(
        "\nDevice: {} ({}); median of {reps} runs, GPU time from Vulkan timestamps\n",
        ctx.device_info().name,
        ctx.device_info().driver_info
    );
    println!("| GEMM | variant | name | ms | TFLOP/s | of torch fp16 | max abs error (sampled) |");
    println!("|---|---|---|---:|---:|---:|---:|");
    for &s in &sizes {
        for (dtype, rate) in [("fp16", "torch fp16"), ("bf16", "torch bf16")] {
            if let Some(t) = torch.get(&(s, dtype)) {
                println!(
                    "| {s}³ | {rate} (cuBLAS) | torch | {:.3} | {:.1} | — | — |",
                    2.0 * f64::from(s).powi(3) / t / 1e9,
                    t
                );
            }
        }
        gemm(&ctx, &variants, s, reps, torch.get(&(s, "fp16")).copied())?;
    }
    Ok(())
}

/// Runs every variant on `s`³, checks sampled elements, prints one row each.
fn gemm(
    ctx: &Context,
    variants: &[Variant],
    s: u32,
    reps: usize,
    torch: Option<f64>,
) -> Result<(), String> {
    let n = u64::from(s);
    let ha: Vec<f32> = (0..n * n).map(|i| value(i, 1)).collect();
    let hb: Vec<f32> = (0..n * n).map(|i| value(i, 2)).collect();
    let bytes =
        |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| f16_bits(*x).to_le_bytes()).collect() };
    let stream = ctx.default_stream();
    let a = ctx.create_buffer(2 * n * n).map_err(err)?;
    let b = ctx.create_buffer(2 * n * n).map_err(err)?;
    let c = ctx.create_buffer(4 * n * n).map_err(err)?;
    stream.upload_buffer(&a, &bytes(&ha)).map_err(err)?;
    stream.upload_buffer(&b, &bytes(&hb)).map_err(err)?;
    stream.sync().map_err(err)?;
    for v in variants {
        let cfg = LaunchConfig::new([s / v.tile[1], s / v.tile[0], 1], [v.threads, 1, 1]);
        let args = [
            KernelArg::Buffer(&a),
            KernelArg::Buffer(&b),
            KernelArg::Buffer(&c),
            KernelArg::Scalar(ScalarValue::U32(s)),
            KernelArg::Scalar(ScalarValue::U32(s)),
            KernelArg::Scalar(ScalarValue::U32(s)),
        ];
        let mut times = kernel_ms(ctx, &stream, &v.kernel, &cfg, &args, reps)?;
        let mut out = vec![0u8; (4 * n * n) as usize];
        stream.download_buffer(&c, &mut out).map_err(err)?;
        let mut worst = 0.0f64;
        for t in 0..256u64 {
            let (i, j) = ((t * 7919) % n, (t * 104729 + 13) % n);
            let want: f64 = (0..n)
                .map(|k| f64::from(ha[(i * n + k) as usize]) * f64::from(hb[(k * n + j) as usize]))
                .sum();
            let o = ((i * n + j) * 4) as usize;
            let got = f32::from_le_bytes([out[o], out[o + 1], out[o + 2], out[o + 3]]);
            worst = worst.max((f64::from(got) - want).abs());
        }
        if v.exact && worst != 0.0 {
            return Err(format!(
                "{} at {s}³: sampled results differ from the host by up to {worst}",
                v.label
            ));
        }
        let ms = median(&mut times);
        let tflops = 2.0 * (n * n * n) as f64 / (ms * 1e-3) / 1e12;
        let of = torch.map_or("—".to_string(), |t| format!("{:.1}%", 100.0 * tflops / t));
        println!(
            "| {s}³ | {} | {} | {ms:.3} | {tflops:.1} | {of} | {worst} |",
            v.label, v.name
        );
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
