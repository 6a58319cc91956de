//! `precision_axpb`: a memory-bound `Vector<sfp,4>` axpb (`y = a * x + b`) in every SPEC §8
//! float variant the device supports, against a plain `Vector<float32,4>` copy of the same
//! fp32-equivalent size measured in the same run (issue 5).
//!
//! GPU time is the runtime's profile (Vulkan timestamps around each launch), the median over
//! the repetitions; variants take turns inside every repetition. Reported per variant:
//! elements per second, bytes moved per second (x read + y written, in the variant's storage
//! size) and that as a fraction of the copy's bytes per second. Results are checked on
//! samples against the host within the variant's tolerance (docs/language.md).
//!
//! ```text
//! precision_axpb [--mib N] [--reps N] [--markdown FILE] [--source FILE]
//! ```
//! `--mib` is the fp32-equivalent size of x (default 256: 64 Mi floats; y is as large).
//! `--source` replaces the built-in kernels with a file's (same kernel names and parameters):
//! for trying other forms of the loop beside the built-in one, one run each.

use cajeta_runtime::{
    decode_sfp, encode_sfp, Buffer, Context, ContextOptions, FloatStorage, Kernel, KernelArg,
    LaunchConfig, PrecisionOptions, PrecisionVariant, ScalarValue, Stream,
};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::kernel::spirv::SpirvOptions;

const SOURCE: &str = r#"
package bench;
import cajeta.xpu.*;

public final class PrecisionBench {
    @Kernel
    public static void axpb(KernelBuffer<Vector<sfp,4>> x, KernelBuffer<Vector<sfp,4>> y, float32 a, float32 b, uint32 n) {
        afp aa = (afp) a;
        afp bb = (afp) b;
        uint32 stride = KernelThread.globalSizeX();
        for (uint32 i = KernelThread.globalIdX(); i < n; i += stride) {
            y[i] = x[i] * aa + bb;
        }
    }

    @Kernel
    public static void copy(KernelBuffer<Vector<float32,4>> x, KernelBuffer<Vector<float32,4>> y, uint32 n) {
        uint32 stride = KernelThread.globalSizeX();
        for (uint32 i = KernelThread.globalIdX(); i < n; i += stride) {
            y[i] = x[i];
        }
    }
}
"#;

/// Workgroups of the grid-stride launches (256 threads each).
const GROUPS: u32 = 8192;
const A: f32 = 1.75;
const B: f32 = 0.25;

/// The variants of §8 and the options asking for each.
fn modes() -> Vec<(&'static str, PrecisionOptions, f64)> {
    let o = PrecisionOptions::default;
    vec![
        ("fp32", o(), 1e-6),
        (
            "fp16p",
            PrecisionOptions {
                fp16_packed: true,
                ..o()
            },
            2f64.powi(-9),
        ),
        (
            "fp16s",
            PrecisionOptions {
                fp16_storage: true,
                ..o()
            },
            2f64.powi(-9),
        ),
        (
            "fp16s+fp16a",
            PrecisionOptions {
                fp16_storage: true,
                fp16_arithmetic: true,
                ..o()
            },
            2f64.powi(-8),
        ),
        (
            "fp16p+fp16a",
            PrecisionOptions {
                fp16_packed: true,
                fp16_arithmetic: true,
                ..o()
            },
            2f64.powi(-8),
        ),
        (
            "bf16p",
            PrecisionOptions {
                bf16_packed: true,
                ..o()
            },
            2f64.powi(-6),
        ),
        (
            "bf16s",
            PrecisionOptions {
                bf16_storage: true,
                ..o()
            },
            2f64.powi(-6),
        ),
    ]
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Compiles the two kernels for `variant` and loads them.
fn load(
    ctx: &Context,
    variant: PrecisionVariant,
    source: &str,
) -> Result<(Kernel, Kernel), String> {
    let mut sources = SourceMap::new();
    let files = [("precision_axpb.cajeta".to_string(), source.to_string())];
    let module =
        cajetac::driver::frontend(&mut sources, &files).map_err(|d| render_human(&sources, &d))?;
    let mut options = SpirvOptions {
        device_features: ctx.device_info().features.clone(),
        ..SpirvOptions::default()
    };
    options.target.precision = variant;
    let kernels = cajetac::driver::compile_kernels(&module, &options, None)
        .map_err(|d| render_human(&sources, &d))?;
    let get = |name: &str| -> Result<Kernel, String> {
        let (_, k) = kernels
            .iter()
            .find(|(_, k)| k.name == name)
            .ok_or_else(|| format!("no kernel {name}"))?;
        ctx.load_kernel(&k.words, &k.reflection).map_err(err)
    };
    Ok((get("axpb")?, get("copy")?))
}

/// GPU nanoseconds of one launch of `kernel`.
fn time_launch(
    ctx: &Context,
    stream: &Stream,
    kernel: &Kernel,
    args: &[KernelArg<'_>],
) -> Result<f64, String> {
    ctx.clear_profile();
    let cfg = LaunchConfig::new([GROUPS, 1, 1], [256, 1, 1]);
    stream.launch(kernel, &cfg, args).map_err(err)?;
    stream.sync().map_err(err)?;
    Ok(ctx
        .profile_report()
        .entries
        .iter()
        .filter(|e| e.kind == cajeta_runtime::ProfileKind::Kernel)
        .map(|e| e.total_ns)
        .sum())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One variant's buffers and kernel.
struct Case {
    name: String,
    storage: FloatStorage,
    tolerance: f64,
    axpb: Kernel,
    x: Buffer,
    y: Buffer,
    samples: Vec<f64>,
}

fn run(args: &[String]) -> Result<(), String> {
    let value_of = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mib: u64 = value_of("--mib").map_or(Ok(256), |v| v.parse().map_err(err))?;
    let reps: usize = value_of("--reps").map_or(Ok(10), |v| v.parse().map_err(err))?;
    let source = match value_of("--source") {
        Some(path) => std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?,
        None => SOURCE.to_string(),
    };
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true),
    )
    .map_err(err)?;
    let info = ctx.device_info().clone();
    let range = u64::from(info.limits.max_storage_buffer_range);
    if mib << 20 > range {
        return Err(format!(
            "--mib {mib}: the device's maxStorageBufferRange is {} MiB",
            range >> 20
        ));
    }
    let n = (mib << 20) / 4; // floats
    let n4 = u32::try_from(n / 4).map_err(err)?;
    let host: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 333.0 - 1.5)
        .collect();
    let stream = ctx.default_stream();
    let mut cases = Vec::new();
    let mut copy = None;
    let mut skipped = Vec::new();
    for (name, opts, tolerance) in modes() {
        let (variant, _) = opts.resolve(&info.features);
        if variant.name() != name {
            skipped.push(format!(
                "{name} (the device lacks it: would run {})",
                variant.name()
            ));
            continue;
        }
        let (axpb, copy_kernel) = load(&ctx, variant, &source)?;
        copy.get_or_insert(copy_kernel);
        let bytes = encode_sfp(variant.float_storage, &host);
        let x = ctx.create_buffer(bytes.len() as u64).map_err(err)?;
        let y = ctx.create_buffer(bytes.len() as u64).map_err(err)?;
        stream.upload_buffer(&x, &bytes).map_err(err)?;
        cases.push(Case {
            name: name.to_string(),
            storage: variant.float_storage,
            tolerance,
            axpb,
            x,
            y,
            samples: Vec::new(),
        });
    }
    let copy = copy.ok_or("no variant ran")?;
    let cx = ctx.create_buffer(n * 4).map_err(err)?;
    let cy = ctx.create_buffer(n * 4).map_err(err)?;
    stream
        .upload_buffer(&cx, &encode_sfp(FloatStorage::Fp32, &host))
        .map_err(err)?;
    let mut copy_samples = Vec::new();
    let scalar = |v: f32| KernelArg::Scalar(ScalarValue::F32(v));
    let count = KernelArg::Scalar(ScalarValue::U32(n4));
    for rep in 0..reps + 1 {
        // The first round warms up (pipelines, page faults) and is not counted.
        let t = time_launch(
            &ctx,
            &stream,
            &copy,
            &[KernelArg::Buffer(&cx), KernelArg::Buffer(&cy), count],
        )?;
        if rep > 0 {
            copy_samples.push(t);
        }
        for j in 0..cases.len() {
            let c = &cases[(rep + j) % cases.len()];
            let args = [
                KernelArg::Buffer(&c.x),
                KernelArg::Buffer(&c.y),
                scalar(A),
                scalar(B),
                count,
            ];
            let t = time_launch(&ctx, &stream, &c.axpb, &args)?;
            if rep > 0 {
                let i = (rep + j) % cases.len();
                cases[i].samples.push(t);
            }
        }
    }
    check(&stream, &cases, &host)?;
    let copy_ns = median(&mut copy_samples);
    let copy_bw = (2 * n * 4) as f64 / copy_ns; // bytes per ns = GB/s
    let mut table = format!(
        "Precision variants: `Vector<sfp,4>` axpb over {mib} MiB of fp32-equivalent data ({n} floats), \
         {} ({}), median of {reps} runs; copy = `Vector<float32,4>` copy of the same {mib} MiB: {:.3} ms, {:.1} GB/s.\n\n\
         | variant | bytes/element | GPU ms | Gelem/s | GB/s moved | of copy bandwidth | elements/s vs fp32 |\n|---|---:|---:|---:|---:|---:|---:|\n",
        info.name,
        info.driver_info,
        copy_ns / 1e6,
        copy_bw
    );
    let mut fp32_rate = None;
    for c in &mut cases {
        let ns = median(&mut c.samples);
        let elem_bytes = if c.storage == FloatStorage::Fp32 {
            4
        } else {
            2
        };
        let rate = n as f64 / ns; // Gelem/s
        let bw = (2 * n * elem_bytes) as f64 / ns;
        let base = *fp32_rate.get_or_insert(rate);
        table += &format!(
            "| {} | {elem_bytes} | {:.3} | {rate:.2} | {bw:.1} | {:.2} | {:.2}x |\n",
            c.name,
            ns / 1e6,
            bw / copy_bw,
            rate / base
        );
    }
    for s in &skipped {
        table += &format!("\nNot run: {s}.");
    }
    println!("{table}");
    if let Some(path) = value_of("--markdown") {
        std::fs::write(&path, table + "\n").map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}

/// Checks each variant's y on samples against the host within its tolerance.
fn check(stream: &Stream, cases: &[Case], host: &[f32]) -> Result<(), String> {
    for c in cases {
        let elem = if c.storage == FloatStorage::Fp32 {
            4
        } else {
            2
        };
        let mut bytes = vec![0u8; host.len() * elem];
        stream.download_buffer(&c.y, &mut bytes).map_err(err)?;
        let mut y = vec![0f32; host.len()];
        decode_sfp(c.storage, &bytes, &mut y);
        for i in (0..host.len()).step_by(997).chain([host.len() - 1]) {
            let want = f64::from(A) * f64::from(host[i]) + f64::from(B);
            let e = (f64::from(y[i]) - want).abs() / want.abs().max(1.0);
            if e > c.tolerance {
                return Err(format!("{}: y[{i}] = {} but a*x+b = {want}", c.name, y[i]));
            }
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("precision_axpb: {e}");
        std::process::exit(1);
    }
}
