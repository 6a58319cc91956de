//! `coop_gemm --sweep`: the generated tiled GEMMs (`cajetac::blas`) over block shapes and
//! precisions, side by side in one run. Each shape is the Cajeta source `coop_gemm_source`
//! writes; every fp32 and int32 result sampled is checked exactly (the inputs make
//! accumulation exact), fp16 results against a bound stated in the table.

use std::collections::HashMap;

use cajeta_runtime::{
    required_features, Buffer, BufferAddressing, Context, ContextOptions, KernelArg, LaunchConfig,
    ScalarValue,
};
use cajetac::blas::shapes::candidates;
use cajetac::blas::{coop_gemm_source, CoopGemmShape, GemmPrecision};
use cajetac::embed::Program;
use cajetac::kernel::spirv::{CompiledKernel, SpirvOptions};

use super::{err, f16_bits, kernel_ms, median, value};

fn parse_precision(s: &str) -> Result<GemmPrecision, String> {
    GemmPrecision::ALL
        .into_iter()
        .find(|p| p.short() == s)
        .ok_or_else(|| format!("--precisions: unknown `{s}` (f16f32, f16f16, bf16f32, i8i32)"))
}

/// The operands of one precision at one size, uploaded.
struct Operands {
    a: Buffer,
    b_rows: Buffer,
    b_cols: Buffer,
    c: Buffer,
    /// A and B as the host reads them (exact values).
    ha: Vec<f64>,
    hb: Vec<f64>,
}

fn operands(ctx: &Context, p: GemmPrecision, s: u32) -> Result<Operands, String> {
    let n = u64::from(s);
    let ha: Vec<f64> = (0..n * n).map(|i| f64::from(value(i, 1))).collect();
    let hb: Vec<f64> = (0..n * n).map(|i| f64::from(value(i, 2))).collect();
    // int8 takes the quarters times four: integers in [-4, 4].
    let bytes = |v: &dyn Fn(u64) -> f64| -> Vec<u8> {
        (0..n * n)
            .flat_map(|i| {
                let x = v(i);
                match p {
                    GemmPrecision::I8I32 => vec![(4.0 * x) as i8 as u8],
                    GemmPrecision::Bf16F32 => ((x as f32).to_bits() >> 16)
                        .to_le_bytes()
                        .into_iter()
                        .take(2)
                        .collect(),
                    _ => f16_bits(x as f32).to_le_bytes().to_vec(),
                }
            })
            .collect()
    };
    let transposed = |i: u64| hb[((i % n) * n + i / n) as usize];
    let ab = bytes(&|i| ha[i as usize]);
    let bb = bytes(&|i| hb[i as usize]);
    let bt = bytes(&transposed);
    let stream = ctx.default_stream();
    let mk = |len: u64| ctx.create_buffer(len).map_err(err);
    let (a, b_rows, b_cols) = (
        mk(ab.len() as u64)?,
        mk(bb.len() as u64)?,
        mk(bt.len() as u64)?,
    );
    let c = mk(n * n * u64::from(p.result_bytes()))?;
    stream.upload_buffer(&a, &ab).map_err(err)?;
    stream.upload_buffer(&b_rows, &bb).map_err(err)?;
    stream.upload_buffer(&b_cols, &bt).map_err(err)?;
    stream.sync().map_err(err)?;
    let scale = if p == GemmPrecision::I8I32 { 4.0 } else { 1.0 };
    Ok(Operands {
        a,
        b_rows,
        b_cols,
        c,
        ha: ha.iter().map(|x| x * scale).collect(),
        hb: hb.iter().map(|x| x * scale).collect(),
    })
}

fn f16_value(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let mant = f64::from(bits & 0x3ff);
    if exp == 0 {
        sign * mant * 2f64.powi(-24)
    } else {
        sign * (1.0 + mant / 1024.0) * 2f64.powi(exp - 15)
    }
}

/// Runs the sweep: `--precisions`, `--sizes`, `--reps`, `--shapes` (names containing any of
/// the given words).
pub fn run(
    sizes: &[u32],
    reps: usize,
    options: &SpirvOptions,
    args: &[String],
    torch: &HashMap<(u32, &'static str), f64>,
) -> Result<(), String> {
    let value_of = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let precisions: Vec<GemmPrecision> = match value_of("--precisions") {
        Some(list) => list
            .split(',')
            .map(parse_precision)
            .collect::<Result<_, _>>()?,
        None => GemmPrecision::ALL.to_vec(),
    };
    let wanted: Vec<String> = value_of("--shapes")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let subgroup = 32;
    // `--fixed-nk`: each shape also compiled for the first size's `n` and `k` as constants,
    // as NVIDIA's sample compiles its strides and K (specialization constants).
    let fixed = args.iter().any(|a| a == "--fixed-nk");
    let first = sizes.first().copied().unwrap_or(8192);
    let mut programs = Vec::new();
    for &p in &precisions {
        // `--forms`: each written-out shape also with its blocks taken in groups of 4, 8 and
        // 16 block rows (`CoopGemmShape::group_rows`, names ending `-g4`, `-g8`, `-g16`).
        let forms = args.iter().any(|a| a == "--forms");
        let shapes = candidates(p, subgroup)
            .into_iter()
            .flat_map(|s| {
                let extra = [4, 8, 16]
                    .into_iter()
                    .filter(move |_| forms && s.unroll_k)
                    .map(move |group_rows| CoopGemmShape { group_rows, ..s });
                std::iter::once(s).chain(extra)
            })
            .flat_map(|s| {
                let with = CoopGemmShape {
                    fixed_nk: Some((first, first)),
                    ..s
                };
                std::iter::once(s).chain(fixed.then_some(with))
            });
        for shape in shapes {
            let name = shape.name();
            if !wanted.is_empty() && !wanted.iter().any(|w| name.contains(w.as_str())) {
                continue;
            }
            let src = coop_gemm_source(&shape, "Gemm")?;
            if let Some(dir) = value_of("--write-sources") {
                // The generated Cajeta, to read or to build with `cajetac build`.
                let path = std::path::Path::new(&dir).join(format!("{name}.cajeta"));
                std::fs::write(&path, &src).map_err(|e| format!("{}: {e}", path.display()))?;
                continue;
            }
            match Program::compile_files(&[(format!("{name}.cajeta"), src)], options) {
                Ok(prog) => programs.push((name, shape, prog)),
                Err(e) => println!("{name}: does not compile: {e}"),
            }
        }
    }
    if value_of("--write-sources").is_some() {
        return Ok(());
    }
    // Controls: the hand-written prefetch kernel (its fp16 -> fp32 form is
    // `coop_gemm --variants prefetch64`) with only its matrix types changed.
    for p in &precisions {
        let types = match p {
            GemmPrecision::F16F32 => {
                Some(("CoopMatrixA ", "CoopMatrixB ", "CoopMatrixAcc ", "float32"))
            }
            GemmPrecision::Bf16F32 => Some((
                "CoopMatrixA<bfloat16, 16, 16> ",
                "CoopMatrixB<bfloat16, 16, 16> ",
                "CoopMatrixAcc ",
                "float32",
            )),
            GemmPrecision::F16F16 => Some((
                "CoopMatrixA ",
                "CoopMatrixB ",
                "CoopMatrixAcc<float16, 16, 16> ",
                "float16",
            )),
            GemmPrecision::I8I32 => None,
        };
        let (Some((a, b, acc, c)), true) = (
            types,
            wanted.is_empty() || wanted.iter().any(|w| w == "ctl"),
        ) else {
            continue;
        };
        let src = super::CAJETA_PREFETCH
            .replace("CoopMatrixA ", a)
            .replace("CoopMatrixB ", b)
            .replace("CoopMatrixAcc ", acc)
            .replace("KernelBuffer<float32> c", &format!("KernelBuffer<{c}> c"));
        let shape = CoopGemmShape {
            precision: *p,
            bm: 128,
            bn: 128,
            bk: 64,
            sg_rows: 2,
            sg_cols: 4,
            subgroup,
            b_col_major: false,
            loads_first: true,
            unroll_k: false,
            fixed_nk: None,
            group_rows: 0,
        };
        let name = format!("ctl-prefetch-{}", p.short());
        match Program::compile_files(&[(format!("{name}.cajeta"), src)], options) {
            Ok(prog) => programs.push((name, shape, prog)),
            Err(e) => println!("{name}: does not compile: {e}"),
        }
    }
    // `CAJETA_BUFFER_ADDRESS=always` times the kernels' buffer-address variants (the form
    // the library launches where it can) and enables the features they need.
    let by_address = BufferAddressing::from_env() == Ok(BufferAddressing::Always);
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true)
            .with_pipeline_statistics(true)
            .with_features(
                programs
                    .iter()
                    .flat_map(|(_, _, p)| {
                        let k = p.get("gemm").ok()?;
                        Some(required_features(&[&module_of(k, by_address).reflection]))
                    })
                    .flatten()
                    .collect(),
            ),
    )
    .map_err(err)?;
    if ctx.device_info().subgroup_size != subgroup {
        return Err(format!(
            "--sweep needs {subgroup}-wide subgroups; the device has {}",
            ctx.device_info().subgroup_size
        ));
    }
    let mut kernels = Vec::new();
    for (name, shape, prog) in &programs {
        let module = module_of(prog.get("gemm").map_err(err)?, by_address);
        match ctx.load_kernel(&module.words, &module.reflection) {
            Ok(kernel) => kernels.push((name.clone(), *shape, kernel)),
            Err(e) => println!("{name}: the device refused it: {e}"),
        }
    }
    println!(
        "\nGenerated GEMMs on {} ({}); median of {reps} runs, GPU time from Vulkan timestamps; buffers through {}\n",
        ctx.device_info().name,
        ctx.device_info().driver_info,
        if by_address { "device addresses" } else { "descriptors" }
    );
    println!("| size | precision | shape | threads | shared KiB | ms | T(FL)OP/s | check |");
    println!("|---|---|---|---:|---:|---:|---:|---|");
    let stream = ctx.default_stream();
    let mut best: HashMap<(u32, GemmPrecision), (f64, String)> = HashMap::new();
    for &s in sizes {
        for &p in &precisions {
            for (dtype, label) in [("fp16", "torch fp16"), ("bf16", "torch bf16")] {
                if let Some(t) = torch.get(&(s, dtype)) {
                    if (dtype == "bf16") == (p == GemmPrecision::Bf16F32) {
                        println!(
                            "| {s}³ | {} | {label} (cuBLAS) | — | — | — | {t:.1} | — |",
                            p.short()
                        );
                    }
                }
            }
            let ops = operands(&ctx, p, s)?;
            let n = u64::from(s);
            for (name, shape, kernel) in kernels.iter().filter(|(_, sh, _)| sh.precision == p) {
                if s % shape.bm != 0 || s % shape.bn != 0 || s % shape.bk != 0 {
                    continue;
                }
                if shape.fixed_nk.is_some_and(|nk| nk != (s, s)) {
                    continue;
                }
                let b = if shape.b_col_major {
                    &ops.b_cols
                } else {
                    &ops.b_rows
                };
                let cfg =
                    LaunchConfig::new([s / shape.bn, s / shape.bm, 1], [shape.threads(), 1, 1]);
                let args = [
                    KernelArg::Buffer(&ops.a),
                    KernelArg::Buffer(b),
                    KernelArg::Buffer(&ops.c),
                    KernelArg::Scalar(ScalarValue::U32(s)),
                    KernelArg::Scalar(ScalarValue::U32(s)),
                    KernelArg::Scalar(ScalarValue::U32(s)),
                ];
                let mut times = match kernel_ms(&ctx, &stream, kernel, &cfg, &args, reps) {
                    Ok(t) => t,
                    Err(e) => {
                        println!(
                            "| {s}³ | {} | {} | launch failed: {e} |",
                            p.short(),
                            name.clone()
                        );
                        continue;
                    }
                };
                let rb = p.result_bytes() as usize;
                let mut out = vec![0u8; n as usize * n as usize * rb];
                stream.download_buffer(&ops.c, &mut out).map_err(err)?;
                let mut worst = 0.0f64;
                let mut worst_rel = 0.0f64;
                for t in 0..256u64 {
                    let (i, j) = ((t * 7919) % n, (t * 104729 + 13) % n);
                    let want: f64 = (0..n)
                        .map(|k| ops.ha[(i * n + k) as usize] * ops.hb[(k * n + j) as usize])
                        .sum();
                    let o = (i * n + j) as usize * rb;
                    let got = match p {
                        GemmPrecision::I8I32 => f64::from(i32::from_le_bytes(
                            out[o..o + 4].try_into().expect("4 bytes"),
                        )),
                        GemmPrecision::F16F16 => {
                            f16_value(u16::from_le_bytes([out[o], out[o + 1]]))
                        }
                        _ => f64::from(f32::from_le_bytes(
                            out[o..o + 4].try_into().expect("4 bytes"),
                        )),
                    };
                    worst = worst.max((got - want).abs());
                    worst_rel = worst_rel.max((got - want).abs() / want.abs().max(1.0));
                }
                let check = if p == GemmPrecision::F16F16 {
                    format!("max abs error {worst:.3}, relative {worst_rel:.2e}")
                } else if worst == 0.0 {
                    "exact".to_string()
                } else {
                    format!("**WRONG** by up to {worst}")
                };
                let ms = median(&mut times);
                let rate = 2.0 * (n * n * n) as f64 / (ms * 1e-3) / 1e12;
                println!(
                    "| {s}³ | {} | {} | {} | {:.1} | {ms:.3} | {rate:.1} | {check} |",
                    p.short(),
                    name.clone(),
                    shape.threads(),
                    f64::from(shape.shared_bytes()) / 1024.0,
                );
                let valid = p == GemmPrecision::F16F16 || worst == 0.0;
                let e = best.entry((s, p)).or_insert((0.0, String::new()));
                if valid && rate > e.0 {
                    *e = (rate, name.clone());
                }
            }
        }
    }
    // What the driver made of each kernel (registers, spills), once launched.
    println!("\nPipeline statistics (VK_KHR_pipeline_executable_properties):");
    for (name, _, kernel) in &kernels {
        match kernel.pipeline_statistics() {
            Ok(stats) if !stats.is_empty() => {
                let line: Vec<String> = stats
                    .iter()
                    .map(|st| format!("{}={}", st.name, st.value))
                    .collect();
                println!("  {}: {}", name.clone(), line.join("; "));
            }
            Ok(_) => println!("  {}: none (not launched)", name.clone()),
            Err(e) => {
                println!("  {e}");
                break;
            }
        }
    }
    println!("\nBest per size and precision:");
    let mut rows: Vec<_> = best.into_iter().collect();
    rows.sort_by_key(|((s, p), _)| (*s, p.short()));
    for ((s, p), (rate, name)) in rows {
        println!("  {s}³ {}: {rate:.1} ({name})", p.short());
    }
    Ok(())
}

/// The module of `kernel` the sweep times: its buffer-address variant (A, B and C reached
/// through `PhysicalStorageBuffer` pointers in push constants, as NVIDIA's sample reaches
/// them) when `by_address` and it has one, else the descriptor module.
fn module_of(kernel: &CompiledKernel, by_address: bool) -> &CompiledKernel {
    kernel
        .address_variant()
        .filter(|_| by_address)
        .unwrap_or(kernel)
}
