//! `cpu_speed`: the CPU device against the Vulkan device (lavapipe here) on the examples'
//! buffer kernels — the reduction's `blockSum`, `histogram`, the tiled `sgemm` (all three
//! with workgroup barriers) — and the device suite's `saxpy` (none). Both run the same
//! arguments and launch shape; the time is the wall time of a launch until its results are
//! in memory (the Vulkan side: launch + `sync()`), the median of the repetitions after one
//! warm-up. The outputs are compared (integers exactly, floats within 1e-4 relative) and a
//! disagreement fails the run. docs/PERFORMANCE.md has the figures.
//!
//! ```text
//! cpu_speed [--reps N]
//! ```

use std::time::Instant;

use cajeta_runtime::cpu::{CpuArg, CpuDevice, CpuKernel};
use cajeta_runtime::{Context, KernelArg, LaunchConfig, ScalarValue};
use cajetac::diagnostics::SourceMap;
use cajetac::ir::{FunctionId, FunctionKind, Module};
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

/// One measured kernel: its program, name, shape, buffers (initial words) and scalars.
struct Case {
    file: &'static str,
    source: &'static str,
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    buffers: Vec<Vec<u32>>,
    scalars: Vec<ScalarValue>,
    /// Whether the outputs are floats (compared within a tolerance).
    float: bool,
}

fn cases() -> Vec<Case> {
    let n = 4_000_000u32;
    let lcg = |i: u32| i.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    let ints: Vec<u32> = (0..n).map(|i| (lcg(i) % 2001).wrapping_sub(1000)).collect();
    let side = 256u32;
    let mat = |seed: u32| -> Vec<u32> {
        (0..side * side)
            .map(|i| (((lcg(i ^ seed) >> 8) as f32) / 8_388_608.0 - 1.0).to_bits())
            .collect()
    };
    let sax = 16_000_000u32;
    vec![
        Case {
            file: "reduction.cajeta",
            source: include_str!("../../../examples/reduction.cajeta"),
            kernel: "blockSum",
            grid: [1024, 1, 1],
            block: [256, 1, 1],
            buffers: vec![ints.clone(), vec![0; 1024]],
            scalars: vec![ScalarValue::U32(n)],
            float: false,
        },
        Case {
            file: "histogram.cajeta",
            source: include_str!("../../../examples/histogram.cajeta"),
            kernel: "histogram",
            grid: [32, 1, 1],
            block: [256, 1, 1],
            buffers: vec![ints, vec![0; 256]],
            scalars: vec![ScalarValue::U32(n)],
            float: false,
        },
        Case {
            file: "sgemm.cajeta",
            source: include_str!("../../../examples/sgemm.cajeta"),
            kernel: "sgemm",
            grid: [side / 16, side / 16, 1],
            block: [16, 16, 1],
            buffers: vec![mat(1), mat(2), vec![0; (side * side) as usize]],
            scalars: vec![ScalarValue::U32(side); 3],
            float: true,
        },
        Case {
            file: "saxpy.cajeta",
            source: include_str!("../../../tests/device/saxpy.cajeta"),
            kernel: "saxpy",
            grid: [sax / 256, 1, 1],
            block: [256, 1, 1],
            buffers: vec![
                (0..sax)
                    .map(|i| ((i % 1000) as f32 * 0.25).to_bits())
                    .collect(),
                (0..sax).map(|i| ((i % 7) as f32).to_bits()).collect(),
            ],
            scalars: vec![ScalarValue::F32(2.0), ScalarValue::U32(sax)],
            float: true,
        },
    ]
}

fn module(file: &str, source: &str) -> Module {
    let mut sources = SourceMap::new();
    match cajetac::driver::frontend(&mut sources, &[(file.to_string(), source.to_string())]) {
        Ok(m) => m,
        Err(d) => panic!(
            "{file}: {:?}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        ),
    }
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `case` on the CPU device `reps + 1` times; the median milliseconds and the output.
fn on_cpu(dev: &CpuDevice, k: &CpuKernel, case: &Case, reps: usize) -> (f64, Vec<Vec<u8>>) {
    let bufs: Vec<_> = case
        .buffers
        .iter()
        .map(|w| dev.create_buffer(4 * w.len() as u64).unwrap())
        .collect();
    let config = LaunchConfig::new(case.grid, case.block);
    let mut times = Vec::new();
    let mut out = Vec::new();
    for rep in 0..=reps {
        for (b, w) in bufs.iter().zip(&case.buffers) {
            dev.upload(b, &bytes(w)).unwrap();
        }
        let mut args: Vec<CpuArg> = bufs.iter().map(CpuArg::Buffer).collect();
        args.extend(case.scalars.iter().map(|v| CpuArg::Scalar(*v)));
        let start = Instant::now();
        dev.launch(k, &config, &args).unwrap();
        if rep > 0 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        out = bufs
            .iter()
            .map(|b| {
                let mut o = vec![0u8; b.size() as usize];
                dev.download(b, &mut o).unwrap();
                o
            })
            .collect();
    }
    (median(times), out)
}

/// The same on the Vulkan device of `ctx`.
fn on_vulkan(
    ctx: &Context,
    k: &cajeta_runtime::Kernel,
    case: &Case,
    reps: usize,
) -> (f64, Vec<Vec<u8>>) {
    let s = ctx.default_stream();
    let bufs: Vec<_> = case
        .buffers
        .iter()
        .map(|w| ctx.create_buffer(4 * w.len() as u64).unwrap())
        .collect();
    let config = LaunchConfig::new(case.grid, case.block);
    let mut times = Vec::new();
    let mut out = Vec::new();
    for rep in 0..=reps {
        for (b, w) in bufs.iter().zip(&case.buffers) {
            s.upload_buffer(b, &bytes(w)).unwrap();
        }
        s.sync().unwrap();
        let mut args: Vec<KernelArg> = bufs.iter().map(KernelArg::Buffer).collect();
        args.extend(case.scalars.iter().map(|v| KernelArg::Scalar(*v)));
        let start = Instant::now();
        s.launch(k, &config, &args).unwrap();
        s.sync().unwrap();
        if rep > 0 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        out = bufs
            .iter()
            .map(|b| {
                let mut o = vec![0u8; b.size() as usize];
                s.download_buffer(b, &mut o).unwrap();
                o
            })
            .collect();
    }
    (median(times), out)
}

fn agree(float: bool, a: &[Vec<u8>], b: &[Vec<u8>]) -> bool {
    if !float {
        return a == b;
    }
    a.iter().zip(b).all(|(x, y)| {
        x.chunks_exact(4).zip(y.chunks_exact(4)).all(|(p, q)| {
            let (p, q) = (
                f32::from_le_bytes(p.try_into().unwrap()),
                f32::from_le_bytes(q.try_into().unwrap()),
            );
            p == q || (p - q).abs() <= 1e-4 * p.abs().max(q.abs()).max(1.0)
        })
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let ctx = Context::new().expect("a Vulkan device to compare with");
    let dev = CpuDevice::new();
    let options = SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    println!(
        "vulkan: {}, cpu: {}, median of {reps}",
        ctx.device_info().name,
        dev.name()
    );
    println!("| kernel | barriers | vulkan ms | cpu ms | cpu / vulkan |");
    println!("|---|---|---|---|---|");
    for case in cases() {
        let m = module(case.file, case.source);
        let id = m
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Kernel && f.name == case.kernel)
            .expect("kernel");
        let cpu = cajetac::kernel::llvm::cpu::compile_kernel(&m, FunctionId(id), &options)
            .unwrap_or_else(|d| panic!("{}: {}", case.kernel, d[0].message));
        let gpu = cajetac::driver::compile_kernels(&m, &options, Some(case.kernel))
            .unwrap_or_else(|d| panic!("{}: {}", case.kernel, d[0].message))
            .remove(0)
            .1;
        let gk = ctx.load_kernel(&gpu.words, &gpu.reflection).unwrap();
        let (c_ms, c_out) = on_cpu(&dev, &cpu, &case, reps);
        let (g_ms, g_out) = on_vulkan(&ctx, &gk, &case, reps);
        assert!(
            agree(case.float, &c_out, &g_out),
            "{}: outputs differ",
            case.kernel
        );
        println!(
            "| {} | {} | {g_ms:.2} | {c_ms:.2} | {:.2} |",
            case.kernel,
            if cpu.has_barriers() { "yes" } else { "no" },
            c_ms / g_ms
        );
    }
}
