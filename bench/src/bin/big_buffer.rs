//! `big_buffer`: kernels over a buffer past 4 GiB against the same kernels over a small one
//! (issue 14). The fill, transform and sum kernels of `examples/big_buffer.cajeta` (grid-stride
//! loops with 64-bit indices up to `length64()`) run over a big `KernelBuffer<float32>`
//! (default 16 GiB) through their address variant (buffer device addresses), over a small
//! buffer (default 1 GiB) through the address variant too, and over the small buffer through
//! the descriptor module, all with the same launch shape: the first pair shows whether the
//! size costs bandwidth, the second whether the address path costs anything.
//!
//! GPU time is the runtime's profile (Vulkan timestamps around each launch), the median over
//! the repetitions; the three cases take turns inside every repetition. After the runs every
//! buffer is checked: 64 samples spread over the whole buffer (read back through the
//! example's `gather` kernel) against their closed-form values, and the sum's per-thread
//! partials, added exactly on the host, against the exact total. A mismatch fails the run.
//!
//! ```text
//! big_buffer [--big-mib N (16384)] [--small-mib N (1024)] [--reps N (10)] [--grid G (4096)]
//!            [--source FILE (the example)]
//! ```

use cajeta_runtime::{Buffer, Context, ContextOptions, Kernel, KernelArg, LaunchConfig, Stream};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::kernel::spirv::{AddressVariant, SpirvOptions};

const SOURCE: &str = include_str!("../../../examples/big_buffer.cajeta");

/// Threads per workgroup (as in the example).
const BLOCK: u32 = 256;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The example's kernels, as one module kind.
struct Kernels {
    fill: Kernel,
    transform: Kernel,
    sum: Kernel,
    gather: Kernel,
}

/// Compiles the example and loads its kernels: the descriptor modules and the address
/// variants.
fn load(ctx: &Context) -> Result<(Kernels, Kernels), String> {
    let mut sources = SourceMap::new();
    // `--source FILE` measures other kernels of the same names and parameters (a variant
    // of the example being tried) against the same host-side checks.
    let text = match std::env::args().skip_while(|a| a != "--source").nth(1) {
        Some(path) => std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?,
        None => SOURCE.to_string(),
    };
    let files = [("big_buffer.cajeta".to_string(), text)];
    let module =
        cajetac::driver::frontend(&mut sources, &files).map_err(|d| render_human(&sources, &d))?;
    let options = SpirvOptions {
        device_features: ctx.device_info().features.clone(),
        ..SpirvOptions::default()
    };
    let kernels = cajetac::driver::compile_kernels(&module, &options, None)
        .map_err(|d| render_human(&sources, &d))?;
    let get = |name: &str, by_address: bool| -> Result<Kernel, String> {
        let (_, k) = kernels
            .iter()
            .find(|(_, k)| k.name == name)
            .ok_or_else(|| format!("no kernel {name}"))?;
        let k = match (&k.by_address, by_address) {
            (_, false) => k,
            (AddressVariant::Compiled(v), true) => v,
            (other, true) => return Err(format!("{name}: no address variant: {other:?}")),
        };
        ctx.load_kernel(&k.words, &k.reflection).map_err(err)
    };
    let set = |by_address: bool| -> Result<Kernels, String> {
        Ok(Kernels {
            fill: get("fill", by_address)?,
            transform: get("transform", by_address)?,
            sum: get("sum", by_address)?,
            gather: get("gather", by_address)?,
        })
    };
    Ok((set(false)?, set(true)?))
}

/// GPU nanoseconds of one launch.
fn time_launch(
    ctx: &Context,
    stream: &Stream,
    kernel: &Kernel,
    grid: u32,
    args: &[KernelArg<'_>],
) -> Result<f64, String> {
    ctx.clear_profile();
    let cfg = LaunchConfig::new([grid, 1, 1], [BLOCK, 1, 1]);
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

/// One measured case: a buffer, the kernels it runs through, and its times.
struct Case {
    name: &'static str,
    n: u64,
    by_address: bool,
    x: Buffer,
    partial: Buffer,
    /// Nanoseconds per repetition: fill, transform, sum.
    ns: [Vec<f64>; 3],
}

/// Checks `case`'s buffer after fill + transform (64 samples) and its sum partials (exact).
fn check(ctx: &Context, stream: &Stream, k: &Kernels, case: &Case) -> Result<(), String> {
    let n = case.n;
    let m = 64u64;
    let mut at: Vec<u64> = (0..m - 1)
        .map(|j| (j * (n / (m - 1)) + (j * 37) % 1000) % n)
        .collect();
    at.push(n - 1);
    let at_dev = ctx.create_buffer(8 * m).map_err(err)?;
    let bytes: Vec<u8> = at.iter().flat_map(|v| v.to_le_bytes()).collect();
    stream.upload_buffer(&at_dev, &bytes).map_err(err)?;
    let out = ctx.create_buffer(4 * m).map_err(err)?;
    let args = [
        KernelArg::Buffer(&case.x),
        KernelArg::Buffer(&at_dev),
        KernelArg::Buffer(&out),
    ];
    stream
        .launch(&k.gather, &LaunchConfig::new([1, 1, 1], [64, 1, 1]), &args)
        .map_err(err)?;
    let mut got = vec![0u8; 4 * m as usize];
    stream.download_buffer(&out, &mut got).map_err(err)?;
    for (j, &i) in at.iter().enumerate() {
        let v = f32::from_le_bytes(got[4 * j..4 * j + 4].try_into().map_err(err)?);
        let want = (2 * (i % 1024) + 1) as f32;
        if v != want {
            return Err(format!("{}: x[{i}] = {v}, want {want}", case.name));
        }
    }
    let mut sums = vec![0u8; case.partial.size() as usize];
    stream
        .download_buffer(&case.partial, &mut sums)
        .map_err(err)?;
    let total: u64 = sums
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64)
        .sum();
    let r = n % 1024;
    let want = (n / 1024) * 1_048_576 + r * r;
    if total != want {
        return Err(format!("{}: sum {total}, want {want}", case.name));
    }
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let value_of = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number =
        |f: &str, default: u64| value_of(f).map_or(Ok(default), |v| v.parse().map_err(err));
    let big_mib = number("--big-mib", 16384)?;
    let small_mib = number("--small-mib", 1024)?;
    let reps = number("--reps", 10)?.max(1) as usize;
    let grid = u32::try_from(number("--grid", 4096)?).map_err(err)?;
    let threads = u64::from(grid) * u64::from(BLOCK);
    let (big_n, small_n) = ((big_mib << 20) / 4, (small_mib << 20) / 4);
    // Per-thread partial sums of integers below 2048 stay exact in float32 up to 8192 terms.
    if big_n.div_ceil(threads) > 8192 {
        return Err(format!(
            "--grid {grid}: {} elements per thread; at most 8192 keep the sum exact",
            big_n.div_ceil(threads)
        ));
    }
    let ctx = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_profile(true),
    )
    .map_err(err)?;
    let info = ctx.device_info().clone();
    let stream = ctx.default_stream();
    let (by_descriptor, by_address) = load(&ctx)?;
    let make = |name, n: u64, by_address| -> Result<Case, String> {
        Ok(Case {
            name,
            n,
            by_address,
            x: ctx.create_buffer(4 * n).map_err(err)?,
            partial: ctx.create_buffer(4 * threads).map_err(err)?,
            ns: [Vec::new(), Vec::new(), Vec::new()],
        })
    };
    let mut cases = vec![
        make("big, address", big_n, true)?,
        make("small, address", small_n, true)?,
        make("small, descriptor", small_n, false)?,
    ];
    for rep in 0..=reps {
        for case in &mut cases {
            let k = if case.by_address {
                &by_address
            } else {
                &by_descriptor
            };
            let x = [KernelArg::Buffer(&case.x)];
            let sum_args = [KernelArg::Buffer(&case.x), KernelArg::Buffer(&case.partial)];
            let t = [
                time_launch(&ctx, &stream, &k.fill, grid, &x)?,
                time_launch(&ctx, &stream, &k.transform, grid, &x)?,
                time_launch(&ctx, &stream, &k.sum, grid, &sum_args)?,
            ];
            // Repetition 0 warms up (pipelines, first touch of the memory).
            if rep > 0 {
                for (all, t) in case.ns.iter_mut().zip(t) {
                    all.push(t);
                }
            }
        }
    }
    for case in &cases {
        let k = if case.by_address {
            &by_address
        } else {
            &by_descriptor
        };
        check(&ctx, &stream, k, case)?;
    }
    println!(
        "# big_buffer on {} ({}), grid {grid} x {BLOCK}, {reps} repetitions, median GPU time",
        info.name, info.driver_info
    );
    println!();
    println!("| case | buffer | fill ms (GB/s) | transform ms (GB/s) | sum ms (GB/s) |");
    println!("|---|---|---|---|---|");
    let mut rates = Vec::new();
    for case in &mut cases {
        let bytes = 4 * case.n;
        // fill writes, transform reads and writes, sum reads every element.
        let traffic = [bytes, 2 * bytes, bytes];
        let mut cells = Vec::new();
        let mut rate = Vec::new();
        for (ns, traffic) in case.ns.iter_mut().zip(traffic) {
            let t = median(ns);
            let gbs = traffic as f64 / t;
            rate.push(gbs);
            cells.push(format!("{:.3} ({gbs:.1})", t / 1e6));
        }
        println!(
            "| {} | {:.2} GiB | {} |",
            case.name,
            bytes as f64 / f64::from(1u32 << 30),
            cells.join(" | ")
        );
        rates.push(rate);
    }
    println!();
    let ratio = |a: usize, b: usize| {
        rates[a]
            .iter()
            .zip(&rates[b])
            .map(|(x, y)| format!("{:.3}", x / y))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    println!(
        "bandwidth big/small (address): {} (fill / transform / sum)",
        ratio(0, 1)
    );
    println!(
        "bandwidth address/descriptor (small): {} (fill / transform / sum)",
        ratio(1, 2)
    );
    println!("every buffer checked: 64 samples and the exact sum");
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("big_buffer: {e}");
        std::process::exit(1);
    }
}
