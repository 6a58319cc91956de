//! Records `CHAIN_N` (default 10,000) dependent launches of `inc` on one stream, then syncs:
//! a fixed workload for `valgrind --tool=callgrind --toggle-collect='*record_chain*'`
//! (instructions per launch = collected instructions / launches). The kernel runs on one
//! workgroup with `n = 0`, so the device work stays negligible under callgrind.
//! With `CHAIN_BASELINE=1` the bench's raw-ash baseline records the same chain instead
//! (`--toggle-collect='*record_baseline*'`).

#[allow(dead_code)]
#[path = "../src/baseline.rs"]
mod baseline;

use ash::vk;

use cajeta_runtime::{Context, ContextOptions, Kernel, KernelArg, LaunchConfig, ScalarValue};
use cajetac::embed::Program;

const SOURCE: &str = r#"
package bench;
import cajeta.xpu.*;

public final class Bench {
    @Kernel
    public static void inc(KernelBuffer<uint32> b, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { b[i] = b[i] + 1; }
    }
}
"#;

#[inline(never)]
fn record_chain(
    s: &cajeta_runtime::Stream,
    k: &Kernel,
    cfg: &LaunchConfig,
    buf: &cajeta_runtime::Buffer,
    n: usize,
) {
    for _ in 0..n {
        s.launch(
            k,
            cfg,
            &[
                KernelArg::Buffer(buf),
                KernelArg::Scalar(ScalarValue::U32(0)),
            ],
        )
        .expect("launch");
    }
}

#[inline(never)]
fn record_baseline(base: &baseline::Baseline, p: &baseline::RawPipeline, b: vk::Buffer, n: usize) {
    let rw = (
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
    );
    let w = (
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::SHADER_WRITE,
    );
    for _ in 0..n {
        base.barrier(b, w, rw);
        base.dispatch(p, &0u32.to_le_bytes(), [1, 1, 1]);
    }
}

fn main() {
    let n: usize = std::env::var("CHAIN_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let program = Program::compile("bench.cajeta", SOURCE).expect("compile");
    let inc = program.get("inc").expect("inc").clone();
    let ctx =
        Context::with_options(ContextOptions::from_env().with_validation(false)).expect("context");
    let k = ctx
        .load_kernel(&inc.words, &inc.reflection)
        .expect("kernel");
    let buf = ctx.create_buffer(1024).expect("buffer");
    if std::env::var("CHAIN_BASELINE").is_ok_and(|v| v == "1") {
        let base = baseline::Baseline::new(&ctx.device_info().name).expect("baseline");
        let b = base
            .buffer(
                1024,
                vk::BufferUsageFlags::STORAGE_BUFFER,
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
            )
            .expect("buffer");
        let p = base
            .pipeline(&inc.words, &inc.reflection, [256, 1, 1], &[&b])
            .expect("pipeline");
        base.begin().expect("begin");
        base.dispatch(&p, &0u32.to_le_bytes(), [1, 1, 1]);
        record_baseline(&base, &p, b.buffer, n);
        base.submit_wait().expect("submit");
        base.free_pipeline(p);
        base.free(b);
        println!("baseline recorded {n} dependent launches");
        return;
    }
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([1, 1, 1], [256, 1, 1]);
    // Warm-up: pipeline creation, pools.
    for _ in 0..10 {
        s.launch(
            &k,
            &cfg,
            &[
                KernelArg::Buffer(&buf),
                KernelArg::Scalar(ScalarValue::U32(0)),
            ],
        )
        .expect("launch");
    }
    s.sync().expect("sync");
    record_chain(&s, &k, &cfg, &buf, n);
    s.sync().expect("sync");
    println!("recorded {n} dependent launches");
}
