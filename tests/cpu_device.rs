//! The CPU device against lavapipe: every kernel of `tests/device/` whose parameters are
//! buffers and scalars is compiled by rspirv (run on the Vulkan device) and by the CPU
//! target (run on the CPU device), launched on the same generated arguments, and every
//! buffer is compared afterwards: integers bit for bit, floats within the tolerance
//! docs/cpu-device.md states. A kernel the CPU target refuses must be refused with E0048
//! (`CpuDeviceUnsupported`); the counts are printed so the coverage is visible.

use cajeta_runtime::cpu::{CpuArg, CpuDevice, CpuKernel};
use cajeta_runtime::reflection::{ParameterSlot, Reflection};
use cajeta_runtime::{Context, KernelArg, LaunchConfig, ScalarValue};
use cajeta_tests::{device_context, files, rerun_test_in_child};
use cajetac::diagnostics::Code;
use cajetac::ir::{Function, FunctionId, FunctionKind, StructDef, Type};
use cajetac::kernel::llvm::cpu;
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

/// Elements per buffer, and the value of integer scalar parameters (a count, mostly).
const ELEMENTS: u64 = 1024;
const N: u32 = 256;

/// Kernels this comparison leaves out, with the reason; each would compare results that
/// Vulkan does not define, so a difference would prove nothing:
/// - `strided` reads shared memory this test's launch shape leaves unwritten (it copies 128
///   elements with a step of the count parameter);
/// - `bins` and `wide` store which invocation won a compare-exchange, and `exchanges` what
///   each invocation's exchange found, which depends on the order invocations run in
///   (`tests/cpu_lanes.rs` checks the CPU device's order);
/// - `eval` and `k` apply `Math.pow`, `tan`, `sinh`… to the generated inputs, outside the
///   domain where Vulkan defines them (`pow(0, 0)`, `pow` of a negative base) or where its
///   precision is loose (thousands of ulp); `math_bits.cajeta` checks them with its own
///   per-function tolerances instead;
/// - the subgroup kernels store results that depend on the subgroup width (lanes, sums over
///   the subgroup, shuffles to other lanes): the CPU device's subgroup is one invocation,
///   lavapipe's eight. `tests/cpu_programs.rs` runs their programs, which check the results
///   against the width the device reports;
/// - `timed` stores clock readings, which differ from run to run;
/// - `mats` takes determinants and inverses of the generated 4×4 matrices, whose entries
///   up to ±124 make products near 1e8 that cancel: float32 rounding (an ulp of 8 there)
///   leaves a result that depends on the formula (measured: 14 on the CPU device, -1 on
///   lavapipe, for one determinant); `cajeta_matrix.cajeta` checks both against host code
///   on well-conditioned matrices, and `tests/cpu_programs.rs` runs it on the CPU device.
const NOT_COMPARED: &[&str] = &[
    "shared_loops.cajeta/strided",
    "atomics32.cajeta/bins",
    "shared_loops.cajeta/wide",
    "lane_regions.cajeta/exchanges",
    "math_bits.cajeta/eval",
    "math_vectors.cajeta/k",
    "wave_ids.cajeta/ids",
    "wave_vectors.cajeta/vectors",
    "cajeta_group.cajeta/gemv",
    "cajeta_group.cajeta/segments",
    "wave_vectors.cajeta/floats",
    "wave_votes.cajeta/votes",
    "waves_half.cajeta/halves",
    "cajeta_shuffles.cajeta/shuffles",
    "shader_clock.cajeta/timed",
    "cajeta_matrix.cajeta/mats",
    "cajeta_target_facts.cajeta/widths",
];

/// Parts of a compared kernel's buffers whose values depend on the order invocations run in,
/// so neither device's value is wrong: (kernel, buffer parameter among the buffers, the
/// element range of 4-byte elements, `None` for the whole buffer). They are cleared in both
/// results before the comparison; the rest of the kernel's buffers is compared.
/// - `counters`: `old[i]` is what `atomicExchange` found (another invocation's value),
///   `r[7]` the last exchange and `r[8]` the compare-exchange's winner;
/// - `mix`: the same with `r[5]`, `r[6]` and `old`;
/// - `floats`: `f[4]` (the last exchange), `f[5]` (the compare-exchange's winner) and `old`.
const ORDER_DEPENDENT: &[(&str, usize, Option<std::ops::Range<usize>>)] = &[
    ("atomics32.cajeta/counters", 0, Some(7..9)),
    ("atomics32.cajeta/counters", 2, None),
    ("atomics.cajeta/mix", 0, Some(5..7)),
    ("atomics.cajeta/mix", 2, None),
    ("atomics32.cajeta/floats", 0, Some(4..6)),
    ("atomics32.cajeta/floats", 1, None),
];

/// Clears the [`ORDER_DEPENDENT`] parts of kernel `tag`'s buffers.
fn clear_order_dependent(tag: &str, buffers: &mut [Vec<u8>]) {
    for (kernel, buffer, range) in ORDER_DEPENDENT {
        if *kernel != tag {
            continue;
        }
        let Some(b) = buffers.get_mut(*buffer) else {
            continue;
        };
        let bytes = match range {
            Some(r) => (r.start * 4).min(b.len())..(r.end * 4).min(b.len()),
            None => 0..b.len(),
        };
        b[bytes].fill(0);
    }
}

/// Bytes per element of a buffer element type, and whether it is a float.
fn element(ty: &str, stride: Option<u32>) -> Option<(usize, bool)> {
    let float = ty.starts_with("float");
    let size = stride.map(|s| s as usize).or(match ty {
        "int8" | "uint8" => Some(1),
        "int16" | "uint16" | "float16" => Some(2),
        "int32" | "uint32" | "float32" | "boolean" => Some(4),
        "int64" | "uint64" | "float64" => Some(8),
        _ => None,
    })?;
    Some((size, float))
}

/// The lane type of a buffer element type (`Vector<float32, 4>` → `float32`).
fn lane(ty: &str) -> &str {
    ty.strip_prefix("Vector<")
        .and_then(|t| t.split(',').next())
        .unwrap_or(ty)
        .trim()
}

/// Deterministic contents: small integers, or small floats, per 4- or 8-byte lane.
fn fill(ty: &str, bytes: usize, seed: usize) -> Vec<u8> {
    let ty = lane(ty);
    let mut out = Vec::with_capacity(bytes);
    let mut k = seed;
    while out.len() < bytes {
        k += 1;
        let small = ((k * 2_654_435_761) % 997) as i64 - 498;
        match ty {
            "float32" => out.extend_from_slice(&((small as f32) * 0.25).to_le_bytes()),
            "float64" => out.extend_from_slice(&((small as f64) * 0.25).to_le_bytes()),
            "float16" | "int8" | "uint8" | "int16" | "uint16" => {
                out.extend_from_slice(&((small as i8 as u8 & 0x3f) as u16).to_le_bytes())
            }
            "boolean" => out.extend_from_slice(&((k % 2) as u32).to_le_bytes()),
            "int64" | "uint64" => out.extend_from_slice(&small.to_le_bytes()),
            _ => out.extend_from_slice(&(small as i32).to_le_bytes()),
        }
    }
    out.truncate(bytes);
    out
}

/// The scalar argument of a push-constant member of type `ty`.
fn scalar(ty: &str) -> Option<ScalarValue> {
    Some(match ty {
        "uint32" => ScalarValue::U32(N),
        "int32" => ScalarValue::I32(N as i32),
        "uint64" => ScalarValue::U64(u64::from(N)),
        "int64" => ScalarValue::I64(i64::from(N)),
        "float32" => ScalarValue::F32(1.5),
        "float64" => ScalarValue::F64(1.5),
        "boolean" => ScalarValue::Bool(true),
        _ => return None,
    })
}

/// The first lane where the floats disagree: not equal, not both NaN, and further apart
/// than 1e-5 relative (the GPU may contract `a * b + c` into one rounding; the CPU device
/// does not).
fn float_disagreement(a: &[u8], b: &[u8], wide: bool) -> Option<(usize, f64, f64)> {
    let close = |x: f64, y: f64| {
        x == y
            || (x.is_nan() && y.is_nan())
            || (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(1.0)
    };
    let width = if wide { 8 } else { 4 };
    let value = |c: &[u8]| {
        if wide {
            f64::from_le_bytes(c.try_into().unwrap())
        } else {
            f64::from(f32::from_le_bytes(c.try_into().unwrap()))
        }
    };
    a.chunks_exact(width)
        .zip(b.chunks_exact(width))
        .enumerate()
        .map(|(i, (x, y))| (i, value(x), value(y)))
        .find(|&(_, x, y)| !close(x, y))
}

/// The exponent mask of a 16-bit float lane type (`float16`, `bfloat16`); `None` for others.
fn half_exponent(lane: &str) -> Option<u16> {
    match lane {
        "float16" => Some(0x7C00),
        "bfloat16" => Some(0x7F80),
        _ => None,
    }
}

/// The first lane of two 16-bit float buffers (exponent mask `exp`) whose bits differ, unless
/// both are NaN: the sign and payload of a NaN that arithmetic made are the device's (an
/// H100's `v * v` of a negative NaN is positive).
fn half_disagreement(a: &[u8], b: &[u8], exp: u16) -> Option<(usize, u16, u16)> {
    let nan = |h: u16| h & exp == exp && h & !(exp | 0x8000) != 0;
    let half = |c: &[u8]| u16::from_le_bytes([c[0], c[1]]);
    a.chunks_exact(2)
        .zip(b.chunks_exact(2))
        .enumerate()
        .map(|(i, (x, y))| (i, half(x), half(y)))
        .find(|&(_, x, y)| x != y && !(nan(x) && nan(y)))
}

/// One generated argument.
enum Arg {
    /// A buffer: its element type and initial bytes.
    Buffer(String, Vec<u8>),
    /// A scalar.
    Scalar(ScalarValue),
}

/// The contents of a buffer of POD elements `d`: every field filled as a buffer of its lane
/// type would be, the padding between fields zero (a whole-element copy on the CPU device
/// copies it, a GPU's copies only the fields).
fn fill_pods(d: &StructDef, seed: usize) -> Vec<u8> {
    let (size, align) = d.layout();
    let stride = size.div_ceil(align) as usize * align as usize;
    let mut out = vec![0u8; stride * ELEMENTS as usize];
    for (e, element) in out.chunks_exact_mut(stride).enumerate() {
        for (f, (offset, (_, ty))) in d.offsets().into_iter().zip(&d.fields).enumerate() {
            let (size, _) = ty.std430_layout().unwrap();
            let lane = ty.elem_scalar().unwrap().name();
            let at = offset as usize;
            element[at..at + size as usize].copy_from_slice(&fill(
                lane,
                size as usize,
                seed + 31 * e + f,
            ));
        }
    }
    out
}

/// What the arguments of kernel `f` (of reflection `r`) are, per parameter; `None` when a
/// parameter is of another kind than a buffer or a scalar.
fn arguments(r: &Reflection, f: &Function) -> Option<Vec<Arg>> {
    let mut out = Vec::new();
    for (i, p) in r.parameters.iter().enumerate() {
        match p.slot {
            ParameterSlot::Binding(b) => {
                let b = r.bindings.get(b)?;
                let ty = b.element_type.clone()?;
                if let Type::Buffer(e) = &f.params().get(i)?.ty {
                    if let Type::Struct(d) = &**e {
                        out.push(Arg::Buffer(ty, fill_pods(d, i * 7919)));
                        continue;
                    }
                }
                let (size, _) = element(&ty, b.element_stride)?;
                let bytes = fill(&ty, size * ELEMENTS as usize, i * 7919);
                out.push(Arg::Buffer(ty, bytes));
            }
            ParameterSlot::PushConstant(m) => {
                out.push(Arg::Scalar(scalar(&r.push_constants.members.get(m)?.ty)?))
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The launch shape of kernel `tag`: 4 workgroups of 64, or the block a kernel is written
/// for; a kernel with a dynamic shared array gets one element per invocation, as its
/// program launches it. (`tiles` indexes its 32-element shared array by the invocation:
/// in a block of 64 it stores past the array's end, undefined behaviour that an H100
/// answered differently from lavapipe, its `b[32]` landing on `a[0]`.)
fn shape(tag: &str) -> LaunchConfig {
    let block = match tag {
        "shared_reduce.cajeta/fixedSum" => 128,
        "guarded_stores.cajeta/tiles" => 32,
        // One invocation per element of a `Tile<TM>`'s TM-long shared array.
        "generics.cajeta/Tile_4_sums" => 4,
        "generics.cajeta/Tile_8_sums" => 8,
        // A 16×16 tile transposed by one workgroup.
        "cajeta_swizzled.cajeta/transpose" => 256,
        _ => 64,
    };
    let mut config = LaunchConfig::new([4, 1, 1], [block, 1, 1]);
    config.shared_bytes = match tag {
        "shared_reduce.cajeta/dynSum" => Some(4 * block),
        "shared_vectors.cajeta/pairs" => Some(8 * block),
        _ => None,
    };
    config
}

/// Runs `kernel` on the CPU device; the buffers' bytes afterwards.
fn run_cpu(
    kernel: &CpuKernel,
    config: &LaunchConfig,
    args: &[Arg],
) -> Result<Vec<Vec<u8>>, String> {
    let cpu = CpuDevice::new();
    let mut bufs = Vec::new();
    for a in args {
        if let Arg::Buffer(_, bytes) = a {
            let b = cpu
                .create_buffer(bytes.len() as u64)
                .map_err(|e| e.to_string())?;
            cpu.upload(&b, bytes).map_err(|e| e.to_string())?;
            bufs.push(b);
        }
    }
    let mut next = bufs.iter();
    let cpu_args: Vec<CpuArg> = args
        .iter()
        .map(|a| match a {
            Arg::Buffer(..) => CpuArg::Buffer(next.next().unwrap()),
            Arg::Scalar(v) => CpuArg::Scalar(*v),
        })
        .collect();
    cpu.launch(kernel, config, &cpu_args)
        .map_err(|e| e.to_string())?;
    bufs.iter()
        .map(|b| {
            let mut out = vec![0u8; b.size() as usize];
            cpu.download(b, &mut out).map_err(|e| e.to_string())?;
            Ok(out)
        })
        .collect()
}

/// Runs `kernel` on the Vulkan device of `ctx`; the buffers' bytes afterwards.
fn run_vulkan(
    ctx: &Context,
    kernel: &cajeta_runtime::Kernel,
    config: &LaunchConfig,
    args: &[Arg],
) -> Result<Vec<Vec<u8>>, String> {
    let s = ctx.default_stream();
    let mut bufs = Vec::new();
    for a in args {
        if let Arg::Buffer(_, bytes) = a {
            let b = ctx
                .create_buffer(bytes.len() as u64)
                .map_err(|e| e.to_string())?;
            s.upload_buffer(&b, bytes).map_err(|e| e.to_string())?;
            bufs.push(b);
        }
    }
    let mut next = bufs.iter();
    let gpu_args: Vec<KernelArg> = args
        .iter()
        .map(|a| match a {
            Arg::Buffer(..) => KernelArg::Buffer(next.next().unwrap()),
            Arg::Scalar(v) => KernelArg::Scalar(*v),
        })
        .collect();
    s.launch(kernel, config, &gpu_args)
        .map_err(|e| e.to_string())?;
    bufs.iter()
        .map(|b| {
            let mut out = vec![0u8; b.size() as usize];
            s.download_buffer(b, &mut out).map_err(|e| e.to_string())?;
            Ok(out)
        })
        .collect()
}

/// The first disagreement of the buffers of both runs, if any.
fn compare(args: &[Arg], cpu: &[Vec<u8>], gpu: &[Vec<u8>]) -> Option<String> {
    let types = args.iter().filter_map(|a| match a {
        Arg::Buffer(ty, _) => Some(ty),
        Arg::Scalar(_) => None,
    });
    for ((c, g), ty) in cpu.iter().zip(gpu).zip(types) {
        let wide = match lane(ty) {
            "float32" => Some(false),
            "float64" => Some(true),
            _ => None,
        };
        if let Some(wide) = wide {
            if let Some((i, x, y)) = float_disagreement(c, g, wide) {
                return Some(format!(
                    "a `{ty}` buffer differs at lane {i}: cpu {x}, vulkan {y}"
                ));
            }
            continue;
        }
        if let Some(exp) = half_exponent(lane(ty)) {
            if let Some((i, x, y)) = half_disagreement(c, g, exp) {
                return Some(format!(
                    "a `{ty}` buffer differs at lane {i}: cpu {x:#06x}, vulkan {y:#06x}"
                ));
            }
            continue;
        }
        if c != g {
            let at = c.iter().zip(g).position(|(a, b)| a != b).unwrap_or(0);
            let end = (at + 8).min(c.len());
            return Some(format!(
                "a `{ty}` buffer differs from byte {at}: cpu {:?}, vulkan {:?}",
                &c[at..end],
                &g[at..end]
            ));
        }
    }
    None
}

#[test]
fn device_kernels_match_lavapipe() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let options = SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    let (mut matched, mut refused, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for path in files("device", "cajeta") {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (_, module) = cajeta_tests::frontend(&path);
        let Ok(module) = module else { continue };
        for (id, f) in module.functions.iter().enumerate() {
            let tag = format!("{file}/{}", f.name);
            if f.kind != FunctionKind::Kernel || NOT_COMPARED.contains(&tag.as_str()) {
                continue;
            }
            let kernel = match cpu::compile_kernel(&module, FunctionId(id), &options) {
                Ok(k) => k,
                Err(d) if d.iter().all(|d| d.code == Code::CpuDeviceUnsupported) => {
                    assert!(
                        d.iter().all(|d| !d.message.contains("internal error")),
                        "{tag}: {}",
                        d[0].message
                    );
                    refused.push(format!("{tag}: {}", d[0].message));
                    continue;
                }
                Err(d) => {
                    failures.push(format!("{tag}: {}", d[0].message));
                    continue;
                }
            };
            let Some(args) = arguments(kernel.reflection(), f) else {
                continue;
            };
            let Ok(mut gpu) = cajetac::driver::compile_kernels(&module, &options, Some(&f.name))
            else {
                continue;
            };
            let gpu = gpu.remove(0).1;
            let Ok(gpu_kernel) = ctx.load_kernel(&gpu.words, &gpu.reflection) else {
                continue;
            };
            let config = shape(&tag);
            let on_cpu = run_cpu(&kernel, &config, &args);
            let on_gpu = run_vulkan(&ctx, &gpu_kernel, &config, &args);
            match (on_cpu, on_gpu) {
                (Ok(mut c), Ok(mut g)) => {
                    clear_order_dependent(&tag, &mut c);
                    clear_order_dependent(&tag, &mut g);
                    match compare(&args, &c, &g) {
                        None => matched.push(tag),
                        Some(d) => failures.push(format!("{tag}: {d}")),
                    }
                }
                (Err(_), Err(_)) => matched.push(tag),
                (c, g) => failures.push(format!("{tag}: cpu {:?}, vulkan {:?}", c.err(), g.err())),
            }
        }
    }
    println!(
        "cpu device: {} kernels match lavapipe, {} refused (E0048):\n{}",
        matched.len(),
        refused.len(),
        refused.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} kernel(s) disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        matched.len() >= 30,
        "only {} kernels ran: {matched:?}",
        matched.len()
    );
}

/// Compiles kernel `name` of `tests/device/<file>` for the CPU device.
fn cpu_kernel(file: &str, name: &str) -> CpuKernel {
    let (_, module) = cajeta_tests::frontend(&cajeta_tests::tests_dir().join("device").join(file));
    cpu_kernel_of(&module.expect("the device corpus checks"), name)
}

/// Compiles kernel `name` of a checked module for the CPU device.
pub(crate) fn cpu_kernel_of(module: &cajetac::ir::Module, name: &str) -> CpuKernel {
    let id = module
        .functions
        .iter()
        .position(|f| f.kind == FunctionKind::Kernel && f.name == name)
        .expect("kernel in file");
    let options = SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    cpu::compile_kernel(module, FunctionId(id), &options).expect("the cpu target compiles it")
}

/// Saxpy and a shared-memory reduction with barriers on the CPU device, checked against
/// the same computation in Rust.
fn saxpy_and_reduction_are_right() {
    let dev = CpuDevice::new();
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| (i % 100) as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let (bx, by) = (
        dev.create_buffer(4 * 1000).unwrap(),
        dev.create_buffer(4 * 1000).unwrap(),
    );
    dev.upload(&bx, &bytes(&x)).unwrap();
    dev.upload(&by, &bytes(&y)).unwrap();
    let saxpy = cpu_kernel("saxpy.cajeta", "saxpy");
    let config = LaunchConfig::new([16, 1, 1], [64, 1, 1]);
    let args = [
        CpuArg::Buffer(&bx),
        CpuArg::Buffer(&by),
        CpuArg::Scalar(ScalarValue::F32(2.0)),
        CpuArg::Scalar(ScalarValue::U32(n)),
    ];
    dev.launch(&saxpy, &config, &args).unwrap();
    let mut out = vec![0u8; 4000];
    dev.download(&by, &mut out).unwrap();
    for (i, c) in out.chunks_exact(4).enumerate() {
        let got = f32::from_le_bytes(c.try_into().unwrap());
        assert_eq!(got, 2.0 * x[i] + y[i], "saxpy element {i}");
    }
    // 8 workgroups of 128 invocations, each summing its slice in shared memory.
    let reduce = cpu_kernel("shared_reduce.cajeta", "fixedSum");
    assert!(reduce.has_barriers());
    assert!(
        reduce.is_split(),
        "one thread runs a workgroup of `fixedSum`"
    );
    let input: Vec<i32> = (0..1024).map(|i| (i % 1013) - 500).collect();
    let bin = dev.create_buffer(4 * 1024).unwrap();
    let bpart = dev.create_buffer(4 * 8).unwrap();
    let ibytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    dev.upload(&bin, &ibytes).unwrap();
    let config = LaunchConfig::new([8, 1, 1], [128, 1, 1]);
    let args = [
        CpuArg::Buffer(&bin),
        CpuArg::Buffer(&bpart),
        CpuArg::Scalar(ScalarValue::U32(1000)),
    ];
    dev.launch(&reduce, &config, &args).unwrap();
    let mut parts = vec![0u8; 32];
    dev.download(&bpart, &mut parts).unwrap();
    for (g, c) in parts.chunks_exact(4).enumerate() {
        let want: i32 = (g * 128..(g + 1) * 128)
            .filter(|&i| i < 1000)
            .map(|i| input[i])
            .sum();
        assert_eq!(
            i32::from_le_bytes(c.try_into().unwrap()),
            want,
            "workgroup {g}"
        );
    }
}

/// The kernels of `barrier_shapes.cajeta` (barriers in loops, branches, after early returns)
/// and the examples' shapes in the device corpus are split at their barriers, so a thread
/// runs a whole workgroup; the program itself checks their results on the CPU device
/// (`tests/cpu_programs.rs`) and `device_kernels_match_lavapipe` compares them.
#[test]
fn barrier_kernels_are_split() {
    for (file, kernel) in [
        ("barrier_shapes.cajeta", "tiled"),
        ("barrier_shapes.cajeta", "branches"),
        ("barrier_shapes.cajeta", "loops"),
        ("barrier_shapes.cajeta", "early"),
        ("shared_reduce.cajeta", "dynSum"),
        ("shared_loops.cajeta", "wide"),
    ] {
        let k = cpu_kernel(file, kernel);
        assert!(k.has_barriers() && k.is_split(), "{file}/{kernel}: {k:?}");
    }
}

#[test]
fn kernels_run_right_on_the_cpu_device() {
    saxpy_and_reduction_are_right();
}

/// `Spec.geti(0, 7)` and `Spec.getf(1, 1.5f)` read the launch's values when it gives them,
/// their defaults when not.
#[test]
fn spec_slots_take_the_launch_values_or_their_defaults() {
    let dev = CpuDevice::new();
    let fill = cpu_kernel("spec_constants.cajeta", "fill");
    let out = dev.create_buffer(4 * 64).unwrap();
    for (spec, scale, offset) in [
        (vec![], 7, 1.5f32),
        (vec![3], 3, 1.5),
        (vec![3, 0.25f32.to_bits()], 3, 0.25),
    ] {
        let mut config = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
        config.spec = spec.clone();
        dev.launch(&fill, &config, &[CpuArg::Buffer(&out)]).unwrap();
        let mut bytes = vec![0u8; 256];
        dev.download(&out, &mut bytes).unwrap();
        for (i, c) in bytes.chunks_exact(4).enumerate() {
            let want = (i as i32 * scale) as f32 + offset;
            assert_eq!(
                f32::from_le_bytes(c.try_into().unwrap()),
                want,
                "spec {spec:?}, element {i}"
            );
        }
    }
}

/// With the Vulkan loader pointed at no driver, no Vulkan context can be made, and the CPU
/// device still runs kernels: the test runs itself again in a child process with
/// `VK_DRIVER_FILES` and `VK_ICD_FILENAMES` pointing at nothing.
#[test]
fn the_cpu_device_needs_no_vulkan_driver() {
    if std::env::var_os("CAJETA_CPU_NO_VULKAN_CHILD").is_some() {
        assert!(
            cajeta_runtime::Context::new().is_err(),
            "a Vulkan device was found with the drivers hidden"
        );
        saxpy_and_reduction_are_right();
        println!("cpu device ran without vulkan");
        return;
    }
    let (text, errors, success) = rerun_test_in_child(
        "cpu_device::the_cpu_device_needs_no_vulkan_driver",
        &[
            ("CAJETA_CPU_NO_VULKAN_CHILD", "1"),
            ("VK_DRIVER_FILES", "/nonexistent"),
            ("VK_ICD_FILENAMES", "/nonexistent"),
        ],
    );
    assert!(
        success && text.contains("cpu device ran without vulkan"),
        "child failed: {text}\n{errors}"
    );
}

/// The dynamic shared array of `dynSum` takes the launch's `shared_bytes` (its `length()`
/// is that size over the element's), after no fixed-size arrays; a size past the shared
/// memory limit is refused as on a Vulkan device.
#[test]
fn dynamic_shared_arrays_take_the_launch_size() {
    let dev = CpuDevice::new();
    let sum = cpu_kernel("shared_reduce.cajeta", "dynSum");
    let n = 1000u32;
    let input: Vec<f32> = (0..n).map(|i| ((i % 37) as f32) - 18.0).collect();
    let bin = dev.create_buffer(4 * u64::from(n)).unwrap();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    dev.upload(&bin, &bytes).unwrap();
    for block in [64u32, 256] {
        let groups = n.div_ceil(block);
        let parts = dev.create_buffer(4 * u64::from(groups)).unwrap();
        let mut config = LaunchConfig::new([groups, 1, 1], [block, 1, 1]);
        config.shared_bytes = Some(4 * block);
        let args = [
            CpuArg::Buffer(&bin),
            CpuArg::Buffer(&parts),
            CpuArg::Scalar(ScalarValue::U32(n)),
            CpuArg::Scalar(ScalarValue::U32(block)),
        ];
        dev.launch(&sum, &config, &args).unwrap();
        let mut out = vec![0u8; 4 * groups as usize];
        dev.download(&parts, &mut out).unwrap();
        for (g, c) in out.chunks_exact(4).enumerate() {
            let want: f32 = input
                .iter()
                .skip(g * block as usize)
                .take(block as usize)
                .sum();
            let got = f32::from_le_bytes(c.try_into().unwrap());
            assert_eq!(got, want, "block {block}, workgroup {g}");
        }
        config.shared_bytes = Some(cajeta_runtime::cpu::MAX_SHARED_MEMORY_BYTES + 4);
        let err = dev.launch(&sum, &config, &args).unwrap_err().to_string();
        assert!(err.contains("exceeds maxComputeSharedMemorySize"), "{err}");
    }
}

#[test]
fn sixteen_bit_nans_of_either_sign_compare_equal() {
    let args = [Arg::Buffer("bfloat16".to_string(), Vec::new())];
    let bytes =
        |h: &[u16]| -> Vec<Vec<u8>> { vec![h.iter().flat_map(|x| x.to_le_bytes()).collect()] };
    // An H100's v * v of a negative bfloat16 NaN: positive, as IEEE 754 allows.
    assert!(compare(&args, &bytes(&[0x3F80, 0xFFFF]), &bytes(&[0x3F80, 0x7FFF])).is_none());
    // Infinities and numbers are not NaNs: they must match bit for bit.
    assert!(compare(&args, &bytes(&[0xFF80]), &bytes(&[0x7F80])).is_some());
    assert!(compare(&args, &bytes(&[0x8000]), &bytes(&[0x0000])).is_some());
    let half = [Arg::Buffer("Vector<float16,2>".to_string(), Vec::new())];
    assert!(compare(&half, &bytes(&[0xFE00, 0x7C01]), &bytes(&[0x7E00, 0xFC01])).is_none());
    assert!(compare(&half, &bytes(&[0x7C00]), &bytes(&[0x7E00])).is_some());
}
