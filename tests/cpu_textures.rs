//! Textures on the CPU device against lavapipe: the kernels of `cpu/texture_reads.cajeta`
//! sample and fetch 1-D, 2-D (with mip levels), 3-D, 2-D array, cube and integer textures
//! with every filter and address mode, once compiled by rspirv and run on the Vulkan
//! device, once by the CPU target on the CPU device. Fetches and nearest samples must be
//! equal; linear ones within 3/256 of the [0, 1] texel range (lavapipe blends with 8-bit
//! weights per axis, the CPU device with float ones: docs/cpu-device.md).

use cajeta_runtime::cpu::{CpuArg, CpuDevice, CpuSampler, CpuTexture};
use cajeta_runtime::{
    AddressMode, Context, Filter, ImageFormat, KernelArg, LaunchConfig, Sampler, ScalarValue,
    Texture, TextureDesc,
};
use cajeta_tests::{device_context, tests_dir};
use cajetac::ir::{FunctionId, FunctionKind, Module};
use cajetac::kernel::llvm::cpu;
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

/// A launch argument, naming the plan's resources by index.
#[derive(Clone, Copy)]
enum A {
    Tex(usize),
    Smp(usize),
    Buf(usize),
    U32(u32),
}

/// Everything both devices create and run.
struct Plan {
    /// Each texture and its levels' bytes.
    textures: Vec<(TextureDesc, Vec<Vec<u8>>)>,
    samplers: Vec<(Filter, AddressMode)>,
    /// Initial bytes of each buffer.
    buffers: Vec<Vec<u8>>,
    launches: Vec<Launch>,
}

/// A kernel's name, grid, block and arguments.
type Launch = (&'static str, [u32; 2], [u32; 2], Vec<A>);

/// Deterministic bytes.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut k = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            k ^= k << 13;
            k ^= k >> 7;
            k ^= k << 17;
            (k >> 24) as u8
        })
        .collect()
}

fn floats(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A coordinate (k + f) / 48 with f in [0.3, 0.7]: at least 0.3 / 48 from every texel
/// boundary of sizes dividing 48, so nearest filtering picks the same texel anywhere.
fn coord(k: i32, b: u8) -> f32 {
    (k as f32 + 0.3 + 0.4 * f32::from(b) / 255.0) / 48.0
}

fn plan() -> Plan {
    let r8 = |n: usize, s: u64| noise(n, s);
    // Unorm texels, then floats in [0, 1] (float16 as multiples of 1/256).
    let unit = |n: usize, s: u64| floats(noise(n, s).into_iter().map(|b| f32::from(b) / 255.0));
    let halves = |n: usize, s: u64| -> Vec<u8> {
        noise(n, s)
            .into_iter()
            .flat_map(|b| half_bits(f32::from(b) / 256.0).to_le_bytes())
            .collect()
    };
    let textures = vec![
        // 0: 2-D RGBA8 with levels 8x4, 4x2, 2x1.
        (
            TextureDesc::d2(8, 4, ImageFormat::Rgba8Unorm).with_mip_levels(3),
            vec![r8(128, 1), r8(32, 2), r8(8, 3)],
        ),
        (
            TextureDesc::d1(16, ImageFormat::R16Float),
            vec![halves(16, 4)],
        ),
        (
            TextureDesc::d3(4, 3, 3, ImageFormat::Rgba32Float),
            vec![unit(144, 5)],
        ),
        (
            TextureDesc::d2_array(8, 4, 4, ImageFormat::R8Unorm),
            vec![r8(128, 6)],
        ),
        (
            TextureDesc::d2(5, 3, ImageFormat::R32Float),
            vec![unit(15, 7)],
        ),
        (
            TextureDesc::d2(8, 4, ImageFormat::R32Uint),
            vec![noise(128, 8)],
        ),
        (
            TextureDesc::d2(8, 4, ImageFormat::Rgba32Sint),
            vec![noise(512, 9)],
        ),
        (
            TextureDesc::cube(4, ImageFormat::R32Float),
            vec![unit(96, 10)],
        ),
    ];
    let mut samplers = Vec::new();
    for f in [Filter::Nearest, Filter::Linear] {
        for a in [
            AddressMode::ClampToEdge,
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
        ] {
            samplers.push((f, a));
        }
    }
    let n = 256usize;
    let b = noise(8 * n, 11);
    let uv = floats((0..2 * n).map(|i| coord((i as i32 * 7) % 144 - 48, b[i])));
    // LODs past both ends and between levels (1.5 a tie for nearest level selection),
    // fractions in quarters (exact for 4-bit mip weights too).
    let lods = floats((0..n).map(|i| [-1.0, 0.0, 0.25, 0.75, 1.25, 1.5, 1.75, 2.25, 6.0][i % 9]));
    let uvw = floats((0..3 * n).map(|i| coord((i as i32 * 5) % 144 - 48, b[2 * n + i])));
    // Cube directions: a major axis and minor components within 0.2 of it, so the linear
    // blend stays inside a face.
    let dirs = floats((0..n).flat_map(|i| {
        let axis = i % 3;
        let sign = if (i / 3) % 2 == 0 { 1.0 } else { -1.0 };
        let minor: Vec<f32> = (0..3)
            .map(|j| (f32::from(b[4 * n + 3 * i + j]) / 255.0 - 0.5) * 0.4)
            .collect();
        (0..3).map(move |j| if j == axis { sign } else { minor[j] })
    }));
    let mut buffers = vec![uv, lods, uvw, dirs];
    let mut launches = Vec::new();
    let out = |bytes: usize, buffers: &mut Vec<Vec<u8>>| {
        buffers.push(vec![0; bytes]);
        buffers.len() - 1
    };
    for s in 0..samplers.len() {
        let o = out(16 * n, &mut buffers);
        launches.push((
            "sample2d",
            [4, 1],
            [64, 1],
            vec![
                A::Tex(0),
                A::Smp(s),
                A::Buf(0),
                A::Buf(1),
                A::Buf(o),
                A::U32(n as u32),
            ],
        ));
        let o = out(64 * n, &mut buffers);
        launches.push((
            "sampleShapes",
            [4, 1],
            [64, 1],
            vec![
                A::Tex(1),
                A::Tex(2),
                A::Tex(3),
                A::Tex(4),
                A::Smp(s),
                A::Buf(2),
                A::Buf(o),
                A::U32(n as u32),
            ],
        ));
    }
    for s in [0, 3] {
        let o = out(16 * n, &mut buffers);
        launches.push((
            "cube",
            [4, 1],
            [64, 1],
            vec![A::Tex(7), A::Smp(s), A::Buf(3), A::Buf(o), A::U32(n as u32)],
        ));
    }
    let o = out(4 * 8 * 16 * 8, &mut buffers);
    launches.push((
        "fetchLanes",
        [1, 2],
        [16, 4],
        vec![A::Tex(0), A::Tex(4), A::Buf(o)],
    ));
    let (f, u, i, z) = (
        out(4 * 60 * 16, &mut buffers),
        out(60 * 16, &mut buffers),
        out(60 * 16, &mut buffers),
        out(8, &mut buffers),
    );
    launches.push((
        "fetches",
        [1, 1],
        [10, 6],
        vec![
            A::Tex(0),
            A::Tex(4),
            A::Tex(5),
            A::Tex(6),
            A::Tex(2),
            A::Buf(f),
            A::Buf(u),
            A::Buf(i),
            A::Buf(z),
        ],
    ));
    Plan {
        textures,
        samplers,
        buffers,
        launches,
    }
}

/// The float16 nearest `f` (exact for the multiples of 1/256 in [0, 1) used here).
fn half_bits(f: f32) -> u16 {
    if f == 0.0 {
        return 0;
    }
    let e = f.log2().floor() as i32;
    let m = ((f / 2f32.powi(e) - 1.0) * 1024.0).round() as u16;
    (((e + 15) as u16) << 10) | m
}

fn module() -> Module {
    let (_, m) = cajeta_tests::frontend(&tests_dir().join("cpu").join("texture_reads.cajeta"));
    m.expect("cpu/texture_reads.cajeta checks")
}

fn options() -> SpirvOptions {
    SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    }
}

fn config(grid: [u32; 2], block: [u32; 2]) -> LaunchConfig {
    LaunchConfig::new([grid[0], grid[1], 1], [block[0], block[1], 1])
}

fn run_cpu(module: &Module, p: &Plan) -> Vec<Vec<u8>> {
    let dev = CpuDevice::new();
    let textures: Vec<CpuTexture> = p
        .textures
        .iter()
        .map(|(d, levels)| {
            let t = dev.create_texture(*d).unwrap();
            for (l, bytes) in levels.iter().enumerate() {
                dev.upload_texture(&t, l as u32, bytes).unwrap();
            }
            t
        })
        .collect();
    let samplers: Vec<CpuSampler> = p
        .samplers
        .iter()
        .map(|(f, a)| dev.create_sampler(*f, *a))
        .collect();
    let buffers: Vec<_> = p
        .buffers
        .iter()
        .map(|b| {
            let buf = dev.create_buffer(b.len() as u64).unwrap();
            dev.upload(&buf, b).unwrap();
            buf
        })
        .collect();
    for (name, grid, block, args) in &p.launches {
        let id = module
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Kernel && f.name == *name)
            .unwrap();
        let kernel = cpu::compile_kernel(module, FunctionId(id), &options())
            .expect("the cpu target compiles it");
        let args: Vec<CpuArg> = args
            .iter()
            .map(|a| match *a {
                A::Tex(i) => CpuArg::Texture(&textures[i]),
                A::Smp(i) => CpuArg::Sampler(&samplers[i]),
                A::Buf(i) => CpuArg::Buffer(&buffers[i]),
                A::U32(v) => CpuArg::Scalar(ScalarValue::U32(v)),
            })
            .collect();
        dev.launch(&kernel, &config(*grid, *block), &args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    buffers
        .iter()
        .map(|b| {
            let mut out = vec![0u8; b.size() as usize];
            dev.download(b, &mut out).unwrap();
            out
        })
        .collect()
}

fn run_vulkan(ctx: &Context, module: &Module, p: &Plan) -> Vec<Vec<u8>> {
    let s = ctx.default_stream();
    let textures: Vec<Texture> = p
        .textures
        .iter()
        .map(|(d, levels)| {
            let t = ctx.create_texture(*d).unwrap();
            for (l, bytes) in levels.iter().enumerate() {
                s.upload_texture(&t, l as u32, None, bytes).unwrap();
            }
            t
        })
        .collect();
    let samplers: Vec<Sampler> = p
        .samplers
        .iter()
        .map(|(f, a)| ctx.create_sampler(*f, *a).unwrap())
        .collect();
    let buffers: Vec<_> = p
        .buffers
        .iter()
        .map(|b| {
            let buf = ctx.create_buffer(b.len() as u64).unwrap();
            s.upload_buffer(&buf, b).unwrap();
            buf
        })
        .collect();
    for (name, grid, block, args) in &p.launches {
        let mut k = cajetac::driver::compile_kernels(module, &options(), Some(name))
            .expect("rspirv compiles it");
        let k = k.remove(0).1;
        let kernel = ctx.load_kernel(&k.words, &k.reflection).unwrap();
        let args: Vec<KernelArg> = args
            .iter()
            .map(|a| match *a {
                A::Tex(i) => KernelArg::Texture(&textures[i]),
                A::Smp(i) => KernelArg::Sampler(&samplers[i]),
                A::Buf(i) => KernelArg::Buffer(&buffers[i]),
                A::U32(v) => KernelArg::Scalar(ScalarValue::U32(v)),
            })
            .collect();
        s.launch(&kernel, &config(*grid, *block), &args).unwrap();
    }
    buffers
        .iter()
        .map(|b| {
            let mut out = vec![0u8; b.size() as usize];
            s.download_buffer(b, &mut out).unwrap();
            out
        })
        .collect()
}

#[test]
fn texture_reads_match_lavapipe() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let (module, p) = (module(), plan());
    let cpu = run_cpu(&module, &p);
    let gpu = run_vulkan(&ctx, &module, &p);
    // Bit for bit on lavapipe, whose conversions the CPU device follows; elsewhere a float
    // read from a normalized texel may differ in its last bit (`c / 255` to within an ulp,
    // as Vulkan allows: NVIDIA's 0.8980392 for lavapipe's 0.8980393).
    let ulps = if ctx.device_info().name.contains("llvmpipe") {
        0
    } else {
        1
    };
    let mut failures = Vec::new();
    for (name, _, _, args) in &p.launches {
        let linear = args
            .iter()
            .any(|a| matches!(a, A::Smp(s) if p.samplers[*s].0 == Filter::Linear));
        let tolerance = if linear { 3.0 / 256.0 } else { 0.0 };
        for a in args {
            let A::Buf(b) = *a else { continue };
            if b < 4 {
                continue;
            }
            let lanes = |v: &[u8]| -> Vec<u32> {
                v.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect()
            };
            let (c, g) = (lanes(&cpu[b]), lanes(&gpu[b]));
            // Integer outputs (`fetches`' uint and int buffers, the sizes) compare as bits.
            let ints = *name == "fetches" && b != args_buf(args, 5);
            let bad = c.iter().zip(&g).position(|(x, y)| {
                if ints {
                    return x != y;
                }
                let near = x.abs_diff(*y) <= ulps;
                let (x, y) = (f32::from_bits(*x), f32::from_bits(*y));
                !(near || x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= tolerance)
            });
            if let Some(at) = bad {
                failures.push(format!("{name} (samplers {:?}), buffer {b}, lane {at}: cpu {:#x}, lavapipe {:#x} ({} vs {})", args.iter().filter_map(|a| match a { A::Smp(s) => Some(p.samplers[*s]), _ => None }).collect::<Vec<_>>(), c[at], g[at], f32::from_bits(c[at]), f32::from_bits(g[at])));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The reads returned texels: not everything is zero.
    assert!(cpu[4].iter().any(|&x| x != 0) && cpu[p.buffers.len() - 3].iter().any(|&x| x != 0));
}

/// The buffer index of argument `i` of a launch.
fn args_buf(args: &[A], i: usize) -> usize {
    match args[i] {
        A::Buf(b) => b,
        _ => usize::MAX,
    }
}
