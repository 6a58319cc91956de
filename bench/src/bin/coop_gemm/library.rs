//! `coop_gemm --library [--sizes 4096,8192,4000,4096x14336x4096] [--precisions ...] [--reps N]`:
//! the library GEMM (`cajetac::blas::Gemm`) as users call it, the kernel it picks for this
//! device, every precision, at each size (`N` for N³, or `MxNxK`). The time is the GPU time of
//! one whole call from Vulkan timestamps (first command's start to the last one's end, so the
//! pack and unpad copies of a shape that is not whole blocks count), median of the
//! repetitions. Beside it, where the call pads, the kernel alone on operands already padded
//! (the best that kernel does for that shape), and the ratio of the two rates. Every element
//! is checked against the scalar kernel's product (itself sampled against the host): exactly
//! for float32 and int32 results (the inputs make accumulation exact), float16 results with
//! their error stated.

use cajeta_runtime::{
    decode_sfp, encode_sfp, Buffer, Context, ContextOptions, FloatStorage, ProfileKind,
};
use cajetac::blas::{Gemm, GemmKernel, GemmLayout, GemmPrecision};

use super::{err, f16_bits, median, value};

/// `x` rounded to the nearest float16 value, ties to even, by the runtime's own float16
/// encoding (`x` is a float32 value here: the host sums of these inputs are exact in float32).
fn f16_round(x: f64) -> f64 {
    let mut out = [0f32];
    let bits = encode_sfp(FloatStorage::Fp16, &[x as f32]);
    decode_sfp(FloatStorage::Fp16, &bits, &mut out);
    f64::from(out[0])
}

/// `N` (N³) or `MxNxK`.
fn parse_size(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = s
        .split('x')
        .map(|p| {
            p.parse()
                .map_err(|_| format!("--sizes: `{s}` is not N or MxNxK"))
        })
        .collect::<Result<_, _>>()?;
    match parts[..] {
        [n] => Ok([n, n, n]),
        [m, n, k] => Ok([m, n, k]),
        _ => Err(format!("--sizes: `{s}` is not N or MxNxK")),
    }
}

/// Element (r, c) of input `seed` (a multiple of 1/4 in [-1, 1]; four times that, an integer,
/// for int8), as the host multiplies it.
fn input(p: GemmPrecision, r: u64, c: u64, cols: u64, seed: u64) -> f64 {
    let x = f64::from(value(r * cols + c, seed));
    if p == GemmPrecision::I8I32 {
        4.0 * x
    } else {
        x
    }
}

/// The raw bytes of the `rows × cols` input `seed` in `layout`.
fn bytes(p: GemmPrecision, rows: u64, cols: u64, seed: u64, layout: GemmLayout) -> Vec<u8> {
    let mut out = Vec::with_capacity((rows * cols) as usize * p.operand_bytes() as usize);
    for i in 0..rows * cols {
        let (r, c) = match layout {
            GemmLayout::RowMajor => (i / cols, i % cols),
            GemmLayout::ColumnMajor => (i % rows, i / rows),
        };
        let x = input(p, r, c, cols, seed);
        match p {
            GemmPrecision::I8I32 => out.push(x as i8 as u8),
            GemmPrecision::Bf16F32 => {
                out.extend_from_slice(&(((x as f32).to_bits() >> 16) as u16).to_le_bytes())
            }
            _ => out.extend_from_slice(&f16_bits(x as f32).to_le_bytes()),
        }
    }
    out
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

/// A, B (in the layout the kernel reads) and C of one shape, uploaded.
struct Operands {
    a: Buffer,
    b: Buffer,
    b_layout: GemmLayout,
    c: Buffer,
}

fn operands(
    ctx: &Context,
    p: GemmPrecision,
    [m, n, k]: [u32; 3],
    b_layout: GemmLayout,
) -> Result<Operands, String> {
    let (m, n, k) = (u64::from(m), u64::from(n), u64::from(k));
    let stream = ctx.default_stream();
    let upload = |data: Vec<u8>| -> Result<Buffer, String> {
        let buf = ctx.create_buffer(data.len() as u64).map_err(err)?;
        stream.upload_buffer(&buf, &data).map_err(err)?;
        Ok(buf)
    };
    let a = upload(bytes(p, m, k, 1, GemmLayout::RowMajor))?;
    let b = upload(bytes(p, k, n, 2, b_layout))?;
    let c = ctx
        .create_buffer(m * n * u64::from(p.result_bytes()))
        .map_err(err)?;
    stream.sync().map_err(err)?;
    Ok(Operands { a, b, b_layout, c })
}

/// GPU milliseconds of `reps` calls (after one uncounted warm-up).
fn time(
    ctx: &Context,
    gemm: &Gemm,
    ops: &Operands,
    [m, n, k]: [u32; 3],
    reps: usize,
) -> Result<Vec<f64>, String> {
    let stream = ctx.default_stream();
    super::warm_up(|| {
        ctx.clear_profile();
        let (a, b) = (GemmLayout::RowMajor, ops.b_layout);
        gemm.multiply(&stream, &ops.a, a, &ops.b, b, &ops.c, m, n, k)
            .map_err(err)?;
        stream.sync().map_err(err)?;
        Ok(ctx.profile_report().span_ns)
    })?;
    let mut times = Vec::new();
    for rep in 0..=reps {
        ctx.clear_profile();
        gemm.multiply(
            &stream,
            &ops.a,
            GemmLayout::RowMajor,
            &ops.b,
            ops.b_layout,
            &ops.c,
            m,
            n,
            k,
        )
        .map_err(err)?;
        stream.sync().map_err(err)?;
        let report = ctx.profile_report();
        let kernels: f64 = report
            .entries
            .iter()
            .filter(|e| e.kind == ProfileKind::Kernel)
            .map(|e| e.total_ns)
            .sum();
        let ns = if report.span_ns > 0.0 {
            report.span_ns
        } else {
            kernels
        };
        if rep > 0 {
            times.push(ns / 1e6);
        }
    }
    Ok(times)
}

/// Every element of C against a reference: the library's scalar kernel on the same operands
/// (float32 accumulators: with these inputs every partial sum is exact, so its float32 and
/// int32 results are the exact products, and its float16 ones the exact products rounded once),
/// itself checked against the host on 256 sampled elements. The check column's text and
/// whether it passed (float32 and int32 results must be exact; float16 ones report their error).
fn check(
    ctx: &Context,
    p: GemmPrecision,
    ops: &Operands,
    [m, n, k]: [u32; 3],
) -> Result<(String, bool), String> {
    let rb = p.result_bytes() as usize;
    let len = m as usize * n as usize;
    let stream = ctx.default_stream();
    let download = |c: &Buffer| -> Result<Vec<f64>, String> {
        let mut out = vec![0u8; len * rb];
        stream.download_buffer(c, &mut out).map_err(err)?;
        Ok(out
            .chunks_exact(rb)
            .map(|b| match p {
                GemmPrecision::I8I32 => f64::from(i32::from_le_bytes(b.try_into().expect("4"))),
                GemmPrecision::F16F16 => f16_value(u16::from_le_bytes([b[0], b[1]])),
                _ => f64::from(f32::from_le_bytes(b.try_into().expect("4"))),
            })
            .collect())
    };
    let got = download(&ops.c)?;
    let scalar = Gemm::with_kernel(ctx, p, GemmKernel::Scalar).map_err(err)?;
    let reference = ctx.create_buffer(len as u64 * rb as u64).map_err(err)?;
    scalar
        .multiply(
            &stream,
            &ops.a,
            GemmLayout::RowMajor,
            &ops.b,
            ops.b_layout,
            &reference,
            m,
            n,
            k,
        )
        .map_err(err)?;
    stream.sync().map_err(err)?;
    let want = download(&reference)?;
    let (m, n, k) = (u64::from(m), u64::from(n), u64::from(k));
    for t in 0..256u64 {
        let (i, j) = ((t * 7919) % m, (t * 104729 + 13) % n);
        let host: f64 = (0..k)
            .map(|s| input(p, i, s, k, 1) * input(p, s, j, n, 2))
            .sum();
        let r = want[(i * n + j) as usize];
        let exact = if p == GemmPrecision::F16F16 {
            // The reference sums in float32 (exact here) and rounds once to float16.
            f16_round(host) == r
        } else {
            host == r
        };
        if !exact {
            return Ok((
                format!("**WRONG** reference C[{i}][{j}] = {r}, host {host}"),
                false,
            ));
        }
    }
    let (mut worst, mut worst_rel, mut differ) = (0.0f64, 0.0f64, 0usize);
    for (g, w) in got.iter().zip(&want) {
        let d = (g - w).abs();
        if d != 0.0 || g.is_nan() {
            differ += 1;
        }
        worst = worst.max(d);
        worst_rel = worst_rel.max(d / w.abs().max(1.0));
    }
    Ok(if p == GemmPrecision::F16F16 {
        (
            format!(
                "all {len}: max abs error {worst:.3}, relative {worst_rel:.2e} ({differ} differ from the once-rounded product)"
            ),
            true,
        )
    } else if differ == 0 {
        (format!("all {len} exact"), true)
    } else {
        (
            format!("**WRONG**: {differ} of {len} differ, by up to {worst}"),
            false,
        )
    })
}

/// A rate with three significant digits below 10 (lavapipe's are thousandths of a TFLOP/s).
fn rate_text(rate: f64) -> String {
    if rate < 10.0 {
        format!("{rate:.3}")
    } else {
        format!("{rate:.1}")
    }
}

/// Runs the library table; an error when a checked result is wrong.
pub fn run(args: &[String]) -> Result<(), String> {
    let value_of = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let sizes: Vec<[u32; 3]> = value_of("--sizes")
        .unwrap_or_else(|| "4096,8192,4000,4096x14336x4096".into())
        .split(',')
        .map(parse_size)
        .collect::<Result<_, _>>()?;
    let reps: usize = value_of("--reps").map_or(Ok(5), |r| r.parse().map_err(err))?;
    let precisions: Vec<GemmPrecision> = match value_of("--precisions") {
        Some(list) => list
            .split(',')
            .map(|s| {
                GemmPrecision::ALL
                    .into_iter()
                    .find(|p| p.short() == s)
                    .ok_or_else(|| format!("--precisions: unknown `{s}`"))
            })
            .collect::<Result<_, _>>()?,
        None => GemmPrecision::ALL.to_vec(),
    };
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true),
    )
    .map_err(err)?;
    println!(
        "\nLibrary GEMM on {} ({}); median of {reps} calls, GPU time of the whole call from Vulkan timestamps\n",
        ctx.device_info().name,
        ctx.device_info().driver_info
    );
    println!("| m×n×k | precision | kernel | library ms | T(FL)OP/s | kernel alone at the padded shape: ms | T(FL)OP/s | library / kernel | check |");
    println!("|---|---|---|---:|---:|---:|---:|---:|---|");
    let mut wrong = 0;
    for &p in &precisions {
        let gemm = Gemm::new(&ctx, p).map_err(err)?;
        let (name, block, b_layout) = match gemm.kernel() {
            GemmKernel::Coop(s) => (
                if gemm.by_address() {
                    format!("{} (addresses)", s.name())
                } else {
                    s.name()
                },
                [s.bm, s.bn, s.bk],
                if s.b_col_major {
                    GemmLayout::ColumnMajor
                } else {
                    GemmLayout::RowMajor
                },
            ),
            GemmKernel::Scalar => ("scalar 16×16".to_string(), [1, 1, 1], GemmLayout::RowMajor),
        };
        for &size in &sizes {
            let [m, n, k] = size;
            let ops = operands(&ctx, p, size, b_layout)?;
            let ms = median(&mut time(&ctx, &gemm, &ops, size, reps)?);
            let (check_text, ok) = check(&ctx, p, &ops, size)?;
            if !ok {
                wrong += 1;
            }
            drop(ops);
            let flops = 2.0 * f64::from(m) * f64::from(n) * f64::from(k);
            let rate = flops / (ms * 1e-3) / 1e12;
            let padded = [m, n, k]
                .iter()
                .zip(block)
                .map(|(x, b)| x.div_ceil(b) * b)
                .collect::<Vec<u32>>();
            let padded = [padded[0], padded[1], padded[2]];
            let (kms, krate) = if padded == size {
                (ms, rate)
            } else {
                let pops = operands(&ctx, p, padded, b_layout)?;
                let kms = median(&mut time(&ctx, &gemm, &pops, padded, reps)?);
                let pflops = 2.0 * padded.iter().map(|&x| f64::from(x)).product::<f64>();
                (kms, pflops / (kms * 1e-3) / 1e12)
            };
            println!(
                "| {m}×{n}×{k} | {} | {name} | {ms:.3} | {} | {kms:.3} | {} | {:.1}% | {check_text} |",
                p.short(),
                rate_text(rate),
                rate_text(krate),
                100.0 * rate / krate
            );
        }
    }
    if wrong > 0 {
        return Err(format!("{wrong} results were wrong"));
    }
    Ok(())
}
