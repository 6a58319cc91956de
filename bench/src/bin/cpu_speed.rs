//! `cpu_speed`: the CPU device against the Vulkan device (lavapipe here) on the examples'
//! kernels — the reduction's `blockSum`, `histogram`, the tiled `sgemm` (all three with
//! workgroup barriers), `mandelbrot`'s `render` (a storage image), the blur's two passes
//! (`blurX` fetches a texture, `blurY` loads a storage image) — and the device suite's
//! `saxpy`. Both run the same
//! arguments and launch shape; the time is the wall time of a launch until its results are
//! in memory (the Vulkan side: launch + `sync()`), the median of the repetitions after one
//! warm-up. The outputs are compared (integers exactly, floats within 1e-4 relative; all but
//! `blurY`'s, whose input image is unwritten) and a disagreement fails the run. A last line
//! times `saxpy`'s arithmetic as a plain Rust loop on the CPU device's thread count: the
//! memory-bound floor of a kernel that only streams its buffers.
//! docs/PERFORMANCE.md has the figures.
//!
//! ```text
//! cpu_speed [--reps N] [--only KERNEL]
//! ```

use std::time::Instant;

use cajeta_runtime::cpu::{CpuArg, CpuDevice, CpuKernel};
use cajeta_runtime::{Context, ImageFormat, KernelArg, LaunchConfig, ScalarValue, TextureDesc};
use cajetac::diagnostics::SourceMap;
use cajetac::ir::{FunctionId, FunctionKind, Module};
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

/// Floats of `saxpy`'s two buffers.
const SAXPY_N: u32 = 16_000_000;

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
    /// The resource parameters, in order, before the buffers: `R32F` storage images (their
    /// size; written by the kernel, compared) and `R32F` textures (size and texels).
    images: Vec<Resource>,
}

/// A storage image or a texture parameter.
enum Resource {
    Image(u32, u32),
    Texture(u32, u32, Vec<u32>),
}

impl Resource {
    fn size(&self) -> (u32, u32) {
        match self {
            Resource::Image(w, h) | Resource::Texture(w, h, _) => (*w, *h),
        }
    }
}

/// The parameter order of a case: resources and buffers as the kernel declares them.
fn layout(kernel: &str) -> &'static [char] {
    // i: image, t: texture, b: buffer (scalars follow).
    match kernel {
        "render" => &['i'],
        "blurX" => &['t', 'b', 'i'],
        "blurY" => &['i', 'b', 'i'],
        _ => &[],
    }
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
    let sax = SAXPY_N;
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
            images: vec![],
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
            images: vec![],
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
            images: vec![],
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
            images: vec![],
        },
        // The gallery's picture (512 x 384, 1000 iterations at most).
        Case {
            file: "mandelbrot.cajeta",
            source: include_str!("../../../examples/mandelbrot.cajeta"),
            kernel: "render",
            grid: [64, 48, 1],
            block: [8, 8, 1],
            buffers: vec![],
            scalars: vec![
                ScalarValue::U32(512),
                ScalarValue::U32(384),
                ScalarValue::F32(-2.25),
                ScalarValue::F32(-1.125),
                ScalarValue::F32(3.0 / 512.0),
                ScalarValue::U32(1000),
                ScalarValue::F32(1.0 / 32.0),
            ],
            float: true,
            images: vec![Resource::Image(512, 384)],
        },
        blur("blurX", Resource::Texture(1024, 1024, picture(1024))),
        blur("blurY", Resource::Image(1024, 1024)),
    ]
}

/// A 1024 x 1024 blur pass with sigma 4 (radius 12, the gallery's), reading `src`.
fn blur(kernel: &'static str, src: Resource) -> Case {
    let (w, h) = src.size();
    let r = 12i32;
    let weights: Vec<u32> = (-r..=r)
        .map(|j| (-((j * j) as f32) / 32.0).exp().to_bits())
        .collect();
    Case {
        file: "blur.cajeta",
        source: include_str!("../../../examples/blur.cajeta"),
        kernel,
        grid: [w / 16, h / 16, 1],
        block: [16, 16, 1],
        buffers: vec![weights],
        scalars: vec![
            ScalarValue::U32(w),
            ScalarValue::U32(h),
            ScalarValue::I32(r),
        ],
        float: true,
        images: vec![src, Resource::Image(w, h)],
    }
}

/// A `side` x `side` picture of values in [0, 1].
fn picture(side: u32) -> Vec<u32> {
    (0..side * side)
        .map(|i| ((((i % side) ^ (i / side)) & 255) as f32 / 255.0).to_bits())
        .collect()
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
    let images: Vec<_> = case
        .images
        .iter()
        .map(|r| {
            let (w, h) = r.size();
            dev.create_image2d(w, h, ImageFormat::R32Float).unwrap()
        })
        .collect();
    let textures: Vec<_> = case
        .images
        .iter()
        .map(|r| match r {
            Resource::Texture(w, h, texels) => {
                let t = dev
                    .create_texture(TextureDesc::d2(*w, *h, ImageFormat::R32Float))
                    .unwrap();
                dev.upload_texture(&t, 0, &bytes(texels)).unwrap();
                Some(t)
            }
            Resource::Image(..) => None,
        })
        .collect();
    let mut times = Vec::new();
    let mut out = Vec::new();
    for rep in 0..=reps {
        for (b, w) in bufs.iter().zip(&case.buffers) {
            dev.upload(b, &bytes(w)).unwrap();
        }
        let (mut next_res, mut next_buf) = (0, bufs.iter());
        let mut args: Vec<CpuArg> = Vec::new();
        for kind in layout(case.kernel) {
            if *kind == 'b' {
                args.push(CpuArg::Buffer(next_buf.next().unwrap()));
                continue;
            }
            args.push(match &textures[next_res] {
                Some(t) => CpuArg::Texture(t),
                None => CpuArg::Image(&images[next_res]),
            });
            next_res += 1;
        }
        args.extend(next_buf.map(CpuArg::Buffer));
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
        // The kernel's output: the last image (the others are inputs, or a texture's
        // unused twin).
        if let Some(img) = images.last() {
            let mut o = vec![0u8; 4 * (img.width() * img.height()) as usize];
            dev.download_image(img, &mut o).unwrap();
            out.push(o);
        }
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
    let images: Vec<_> = case
        .images
        .iter()
        .map(|r| {
            let (w, h) = r.size();
            ctx.create_image2d(w, h, ImageFormat::R32Float).unwrap()
        })
        .collect();
    let textures: Vec<_> = case
        .images
        .iter()
        .map(|r| match r {
            Resource::Texture(w, h, texels) => {
                let t = ctx
                    .create_texture(TextureDesc::d2(*w, *h, ImageFormat::R32Float))
                    .unwrap();
                s.upload_texture(&t, 0, None, &bytes(texels)).unwrap();
                Some(t)
            }
            Resource::Image(..) => None,
        })
        .collect();
    let mut times = Vec::new();
    let mut out = Vec::new();
    for rep in 0..=reps {
        for (b, w) in bufs.iter().zip(&case.buffers) {
            s.upload_buffer(b, &bytes(w)).unwrap();
        }
        s.sync().unwrap();
        let (mut next_res, mut next_buf) = (0, bufs.iter());
        let mut args: Vec<KernelArg> = Vec::new();
        for kind in layout(case.kernel) {
            if *kind == 'b' {
                args.push(KernelArg::Buffer(next_buf.next().unwrap()));
                continue;
            }
            args.push(match &textures[next_res] {
                Some(t) => KernelArg::Texture(t),
                None => KernelArg::Image(&images[next_res]),
            });
            next_res += 1;
        }
        args.extend(next_buf.map(KernelArg::Buffer));
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
        // The kernel's output: the last image (the others are inputs, or a texture's
        // unused twin).
        if let Some(img) = images.last() {
            let mut o = vec![0u8; 4 * (img.width() * img.height()) as usize];
            s.download_image(img, &mut o).unwrap();
            out.push(o);
        }
    }
    (median(times), out)
}

/// The memory-bound reference for `saxpy`: `y[i] = a * x[i] + y[i]` over `n` floats as a
/// plain Rust loop (which LLVM vectorizes), split into one contiguous part per thread on
/// `threads` scoped threads (spawned per run, as the CPU device's workers are); the median
/// milliseconds of `reps` runs after a warm-up. It moves the same bytes as the kernel (two
/// reads and one write per element), so neither device can beat it by much.
fn saxpy_reference(n: usize, threads: usize, reps: usize) -> f64 {
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let mut y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let chunk = n.div_ceil(threads.max(1));
    let mut times = Vec::new();
    for rep in 0..=reps {
        let start = Instant::now();
        std::thread::scope(|s| {
            for (xs, ys) in x.chunks(chunk).zip(y.chunks_mut(chunk)) {
                s.spawn(move || {
                    for (yv, xv) in ys.iter_mut().zip(xs) {
                        *yv += 2.0 * xv;
                    }
                });
            }
        });
        if rep > 0 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    std::hint::black_box(&y);
    median(times)
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
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
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
        if only.as_ref().is_some_and(|k| k != case.kernel) {
            continue;
        }
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
        // `blurY` reads a storage image nothing wrote (a Vulkan image's contents are
        // undefined until written, and the runtime has no image upload): its timing is
        // meaningful, its output is not compared. `blurX` checks the same arithmetic.
        assert!(
            case.kernel == "blurY" || agree(case.float, &c_out, &g_out),
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
    println!(
        "saxpy as a plain Rust loop on {} threads (the memory-bound reference): {:.2} ms",
        dev.threads(),
        saxpy_reference(SAXPY_N as usize, dev.threads(), reps)
    );
}
