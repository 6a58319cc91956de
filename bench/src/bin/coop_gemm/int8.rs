//! `coop_gemm --int8`: the GEMM on int8 cooperative matrices. C = A·B, A and B int8 row-major,
//! C int32, tiles 16×16×32 (the shape the H200 lists for int8 → int32); GPU time from Vulkan
//! timestamps (median of the repetitions), TOPS = 2·M·N·K / time. Variants:
//! - cajeta-int8-naive: one subgroup per 16×16 tile of C, A and B loaded straight from the
//!   buffers;
//! - cajeta-int8-tiled64 (`int8_tiled.cajeta`): 128×128×64 blocks staged in shared memory with
//!   128-bit copies, 4×2 accumulators per subgroup, eight subgroups a workgroup.
//!
//! With `--torch` it also times torch's int8 matmul (`torch._int_mm`, cuBLAS) on the same
//! sizes. Inputs are integers in [-4, 4]: every result is exact, so every variant must match
//! the host exactly on sampled elements.

use std::collections::HashMap;

use cajeta_runtime::{Context, ContextOptions, KernelArg, LaunchConfig, ScalarValue};
use cajetac::embed::Program;
use cajetac::kernel::spirv::SpirvOptions;

use super::{err, median};

/// The int8 GEMM as docs/language.md shows a tile loop, one subgroup per 16×16 tile of C.
const NAIVE: &str = "package bench;
import cajeta.xpu.*;
public final class CoopGemmInt8Naive {
    @Kernel
    public static void gemm(KernelBuffer<int8> a, KernelBuffer<int8> b, KernelBuffer<int32> c,
                            uint32 m, uint32 n, uint32 k) {
        uint32 row0 = Workgroup.y() * 16;
        uint32 col0 = Workgroup.x() * 16;
        CoopMatrixAcc<int32, 16, 16> acc = CoopMatrix.zeroAcc();
        for (uint32 kk = 0; kk < k; kk += 32) {
            CoopMatrixA<int8, 16, 32> ma = CoopMatrix.loadA(a, row0 * k + kk, k);
            CoopMatrixB<int8, 32, 16> mb = CoopMatrix.loadB(b, kk * n + col0, n);
            acc = CoopMatrix.mulAdd(ma, mb, acc);
        }
        CoopMatrix.store(c, row0 * n + col0, n, acc);
    }
}
";

/// The tiled int8 GEMM.
const TILED: &str = include_str!("int8_tiled.cajeta");

/// Input element `i` of matrix `seed`: an integer in [-4, 4].
fn value(i: u64, seed: u64) -> i8 {
    let h = (i.wrapping_mul(2654435761).wrapping_add(seed * 40503)) % 9;
    h as i8 - 4
}

/// Runs the int8 variants on each size of `sizes`, printing one table row each.
pub fn run(sizes: &[u32], reps: usize, options: &SpirvOptions, torch: bool) -> Result<(), String> {
    let naive = Program::compile_files(&[("int8_naive.cajeta".into(), NAIVE.into())], options)
        .map_err(err)?;
    let tiled = Program::compile_files(&[("int8_tiled.cajeta".into(), TILED.into())], options)
        .map_err(err)?;
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true)
            .with_features(
                naive
                    .required_features()
                    .into_iter()
                    .chain(tiled.required_features())
                    .collect(),
            ),
    )
    .map_err(err)?;
    let sub = ctx.device_info().subgroup_size;
    let load = |p: &Program, what: &str| -> Result<cajeta_runtime::Kernel, String> {
        let k = p.get("gemm").map_err(err)?;
        ctx.load_kernel(&k.words, &k.reflection)
            .map_err(|e| format!("{what}: {e}"))
    };
    // (name, label, kernel, C rows and columns per workgroup, threads, K step)
    let variants = [
        (
            "cajeta-int8-naive",
            "cajetac CoopMatrix int8 (16x16x32 per subgroup)",
            load(&naive, "cajeta-int8-naive")?,
            [16u32, 16u32],
            sub,
            32u32,
        ),
        (
            "cajeta-int8-tiled64",
            "cajetac CoopMatrix int8 tiled (128x128x64, 4x2 per subgroup, shared uvec4)",
            load(&tiled, "cajeta-int8-tiled64")?,
            [128, 128],
            8 * sub,
            64,
        ),
    ];
    let torch = if torch {
        torch_int8_rates(sizes)
    } else {
        HashMap::new()
    };
    println!(
        "\nint8 GEMM on {} ({}); median of {reps} runs, GPU time from Vulkan timestamps\n",
        ctx.device_info().name,
        ctx.device_info().driver_info
    );
    println!("| GEMM | variant | name | ms | TOPS | of torch int8 | sampled elements exact |");
    println!("|---|---|---|---:|---:|---:|---|");
    for &s in sizes {
        let t = torch.get(&s).copied();
        if let Some(t) = t {
            println!("| {s}³ int8 | torch._int_mm (cuBLAS) | torch | — | {t:.1} | — | — |");
        }
        let n = u64::from(s);
        let ha: Vec<i8> = (0..n * n).map(|i| value(i, 1)).collect();
        let hb: Vec<i8> = (0..n * n).map(|i| value(i, 2)).collect();
        let bytes = |v: &[i8]| -> Vec<u8> { v.iter().map(|x| *x as u8).collect() };
        let stream = ctx.default_stream();
        let a = ctx.create_buffer(n * n).map_err(err)?;
        let b = ctx.create_buffer(n * n).map_err(err)?;
        let c = ctx.create_buffer(4 * n * n).map_err(err)?;
        stream.upload_buffer(&a, &bytes(&ha)).map_err(err)?;
        stream.upload_buffer(&b, &bytes(&hb)).map_err(err)?;
        stream.sync().map_err(err)?;
        for (name, label, kernel, tile, threads, kstep) in &variants {
            if s % tile[0] != 0 || s % tile[1] != 0 || s % kstep != 0 {
                println!("| {s}³ int8 | {label} | {name} | — | — | — | size not a multiple of the tile |");
                continue;
            }
            let cfg = LaunchConfig::new([s / tile[1], s / tile[0], 1], [*threads, 1, 1]);
            let args = [
                KernelArg::Buffer(&a),
                KernelArg::Buffer(&b),
                KernelArg::Buffer(&c),
                KernelArg::Scalar(ScalarValue::U32(s)),
                KernelArg::Scalar(ScalarValue::U32(s)),
                KernelArg::Scalar(ScalarValue::U32(s)),
            ];
            let mut times = super::kernel_ms(&ctx, &stream, kernel, &cfg, &args, reps)?;
            let mut out = vec![0u8; (4 * n * n) as usize];
            stream.download_buffer(&c, &mut out).map_err(err)?;
            for t in 0..256u64 {
                let (i, j) = ((t * 7919) % n, (t * 104729 + 13) % n);
                let want: i64 = (0..n)
                    .map(|k| {
                        i64::from(ha[(i * n + k) as usize]) * i64::from(hb[(k * n + j) as usize])
                    })
                    .sum();
                let o = ((i * n + j) * 4) as usize;
                let got = i32::from_le_bytes([out[o], out[o + 1], out[o + 2], out[o + 3]]);
                if i64::from(got) != want {
                    return Err(format!(
                        "{label} at {s}³: c[{i}][{j}] = {got}, the host says {want}"
                    ));
                }
            }
            let ms = median(&mut times);
            let tops = 2.0 * (n * n * n) as f64 / (ms * 1e-3) / 1e12;
            let of = t.map_or("—".to_string(), |t| format!("{:.1}%", 100.0 * tops / t));
            println!("| {s}³ int8 | {label} | {name} | {ms:.3} | {tops:.1} | {of} | yes |");
        }
    }
    Ok(())
}

/// torch's int8 matmul (`torch._int_mm`, int8 × int8 → int32 on cuBLAS) in TOPS by size; empty
/// (with a line saying why) where python3, torch with CUDA or `_int_mm` is missing.
fn torch_int8_rates(sizes: &[u32]) -> HashMap<u32, f64> {
    let list = sizes
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let script = format!(
        "import torch\n\
         for n in [{list}]:\n\
         \x20   a = torch.randint(-4, 5, (n, n), device='cuda', dtype=torch.int8)\n\
         \x20   b = torch.randint(-4, 5, (n, n), device='cuda', dtype=torch.int8)\n\
         \x20   for _ in range(3): torch._int_mm(a, b)\n\
         \x20   ts = []\n\
         \x20   for _ in range(10):\n\
         \x20       s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)\n\
         \x20       s.record(); torch._int_mm(a, b); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))\n\
         \x20   ts.sort(); ms = ts[len(ts) // 2]\n\
         \x20   print(n, 2 * n ** 3 / (ms * 1e-3) / 1e12)\n"
    );
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(&script)
        .output();
    let mut rates = HashMap::new();
    match out {
        Ok(o) if o.status.success() => {
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                if let Some((n, r)) = line.split_once(' ') {
                    if let (Ok(n), Ok(r)) = (n.parse(), r.trim().parse()) {
                        rates.insert(n, r);
                    }
                }
            }
        }
        Ok(o) => println!("torch int8: {}", String::from_utf8_lossy(&o.stderr).trim()),
        Err(e) => println!("torch int8: cannot run python3: {e}"),
    }
    rates
}
