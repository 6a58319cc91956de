//! Overlap of two streams (issue 15): a chain of kernels on a created stream during a large
//! upload on the default stream, each timed alone and then together with events (GPU
//! timestamps). Where the streams sit on different queues the device runs both at once and
//! the together span is below the sum of the parts.

use cajeta_runtime::{
    Context, ContextOptions, Event, KernelArg, LaunchConfig, Reflection, ScalarValue, Stream,
};

/// Elements the kernel chain touches, launches in the chain, and bytes uploaded.
fn sizes(quick: bool) -> (u32, usize, u64) {
    if quick {
        (1 << 20, 20, 32 << 20)
    } else {
        (1 << 24, 400, 1 << 30)
    }
}

/// GPU milliseconds from `a` to `b`.
fn ms(a: &Event, b: &Event) -> Result<f64, String> {
    Event::elapsed_ms(a, b).map_err(|e| e.to_string())
}

/// Runs the measurement with the `inc` kernel (`words`, `reflection`) and prints its line;
/// returns (kernel ms, upload ms, together ms). Its own context stages every upload (no
/// direct writes into host-visible device memory), so the upload is device copies on a
/// queue.
pub fn run(words: &[u32], reflection: &Reflection, quick: bool) -> Result<(f64, f64, f64), String> {
    let e = |x: cajeta_runtime::RuntimeError| x.to_string();
    let ctx = &Context::with_options(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_validation(false)
    })
    .map_err(e)?;
    let inc = &ctx.load_kernel(words, reflection).map_err(e)?;
    let (n, launches, bytes) = sizes(quick);
    let work = ctx.create_buffer(4 * u64::from(n)).map_err(e)?;
    let target = ctx.create_buffer(bytes).map_err(e)?;
    let data: Vec<u8> = (0..bytes).map(|i| (i % 253) as u8).collect();
    let copy = ctx.default_stream();
    let compute = ctx.create_stream().map_err(e)?;
    let cfg = LaunchConfig::new([n / 256, 1, 1], [256, 1, 1]);
    let chain = |s: &Stream| -> Result<(), String> {
        for _ in 0..launches {
            s.launch(
                inc,
                &cfg,
                &[
                    KernelArg::Buffer(&work),
                    KernelArg::Scalar(ScalarValue::U32(n)),
                ],
            )
            .map_err(e)?;
        }
        Ok(())
    };
    let ev = || Event::create(ctx).map_err(e);
    let (a, b, c, d) = (ev()?, ev()?, ev()?, ev()?);
    // Warm-up: pipelines, staging ring, first touches.
    chain(&compute)?;
    compute.sync().map_err(e)?;
    copy.upload_buffer(&target, &data).map_err(e)?;
    copy.sync().map_err(e)?;
    // Alone.
    a.record_on(&compute).map_err(e)?;
    chain(&compute)?;
    b.record_on(&compute).map_err(e)?;
    compute.sync().map_err(e)?;
    let kernel = ms(&a, &b)?;
    c.record_on(&copy).map_err(e)?;
    copy.upload_buffer(&target, &data).map_err(e)?;
    d.record_on(&copy).map_err(e)?;
    copy.sync().map_err(e)?;
    let upload = ms(&c, &d)?;
    // Together: the chain goes out first, then the upload, each on its own stream.
    a.record_on(&compute).map_err(e)?;
    chain(&compute)?;
    compute.flush().map_err(e)?;
    c.record_on(&copy).map_err(e)?;
    copy.upload_buffer(&target, &data).map_err(e)?;
    b.record_on(&compute).map_err(e)?;
    d.record_on(&copy).map_err(e)?;
    compute.sync().map_err(e)?;
    copy.sync().map_err(e)?;
    let start = ms(&a, &c)?.min(0.0);
    let together = ms(&a, &b)?.max(ms(&a, &d)?) - start;
    println!(
        "overlap: {launches} kernels over {} MiB on queue {} alone {kernel:.2} ms; upload of {} MiB on queue {} alone {upload:.2} ms; sum {:.2} ms; together {together:.2} ms (GPU timestamps, {:.0}% of the sum)",
        (4 * u64::from(n)) >> 20,
        compute.queue_index(),
        bytes >> 20,
        copy.queue_index(),
        kernel + upload,
        100.0 * together / (kernel + upload)
    );
    Ok((kernel, upload, together))
}
