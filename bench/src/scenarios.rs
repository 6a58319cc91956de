//! The benchmark scenarios, each run on the runtime and on the baseline in turn.

use std::time::Instant;

use ash::vk;
use cajeta_runtime::{Context, ContextOptions, KernelArg, LaunchConfig, ScalarValue};
use cajetac::embed::Program;

use crate::baseline::Baseline;
use crate::{us_since, Row};

const SOURCE: &str = r#"
package bench;
import cajeta.xpu.*;

public final class Bench {
    @Kernel
    public static void empty(KernelBuffer<uint32> b, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { b[i] = 0; }
    }
    @Kernel
    public static void inc(KernelBuffer<uint32> b, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { b[i] = b[i] + 1; }
    }
}
"#;

/// Elements the dependent-launch kernel touches.
const INC_N: u32 = 65536;
/// Launches in the dependent chain.
const CHAIN: usize = 1000;

fn u32arg(v: u32) -> KernelArg<'static> {
    KernelArg::Scalar(ScalarValue::U32(v))
}

/// Which scenarios to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// Every scenario.
    All,
    /// The transfer rows.
    Transfers,
    /// The two-stream overlap line.
    Overlap,
}

/// Runs the scenarios `only` selects; returns the device name, the driver and the rows.
pub fn run_all(quick: bool, only: Only) -> Result<(String, String, Vec<Row>), String> {
    let program = Program::compile("bench.cajeta", SOURCE).map_err(|e| e.to_string())?;
    let empty = program.get("empty").map_err(|e| e.to_string())?.clone();
    let inc = program.get("inc").map_err(|e| e.to_string())?.clone();
    let ctx = Context::with_options(ContextOptions::from_env().with_validation(false))
        .map_err(|e| e.to_string())?;
    let prof = Context::with_options(
        ContextOptions::from_env()
            .with_validation(false)
            .with_span_profile(true),
    )
    .map_err(|e| e.to_string())?;
    let info = ctx.device_info().clone();
    let base = Baseline::new(&info.name)?;
    let e = |x: cajeta_runtime::RuntimeError| x.to_string();
    let driver = format!(
        "{} {}, Vulkan {}",
        info.driver_name, info.driver_info, info.api_version
    );
    if only == Only::Transfers {
        let rows = crate::transfers::run(&ctx, &base, quick)?;
        return Ok((info.name, driver, rows));
    }
    if only == Only::Overlap {
        crate::overlap::run(&inc.words, &inc.reflection, quick)?;
        return Ok((info.name, driver, Vec::new()));
    }
    let mut rows = Vec::new();
    let reps = if quick { 50 } else { 500 };
    let chain_reps = if quick { 3 } else { 11 };

    // 1. Empty kernel: launch + sync.
    {
        let k = ctx
            .load_kernel(&empty.words, &empty.reflection)
            .map_err(e)?;
        let buf = ctx.create_buffer(256).map_err(e)?;
        let s = ctx.default_stream();
        let cfg = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
        let b = base.buffer(
            256,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )?;
        let p = base.pipeline(&empty.words, &empty.reflection, [64, 1, 1], &[&b])?;
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for i in 0..reps + 5 {
            let t = Instant::now();
            s.launch(&k, &cfg, &[KernelArg::Buffer(&buf), u32arg(0)])
                .map_err(e)?;
            s.sync().map_err(e)?;
            let o = us_since(t);
            let t = Instant::now();
            base.begin()?;
            base.dispatch(&p, &0u32.to_le_bytes(), [1, 1, 1]);
            base.submit_wait()?;
            if i >= 5 {
                ours.push(o);
                theirs.push(us_since(t));
            }
        }
        base.free_pipeline(p);
        base.free(b);
        rows.push(Row::time(
            "empty kernel: launch + sync",
            "us",
            &mut ours,
            &mut theirs,
        ));
    }

    // 2. 1,000 dependent launches in one stream.
    {
        let grid = [INC_N / 256, 1, 1];
        let cfg = LaunchConfig::new(grid, [256, 1, 1]);
        let (mut host, mut total, mut gpu) = (Vec::new(), Vec::new(), Vec::new());
        let mut ours = Vec::new();
        for c in [&ctx, &prof] {
            let k = c.load_kernel(&inc.words, &inc.reflection).map_err(e)?;
            let buf = c.create_buffer(4 * u64::from(INC_N)).map_err(e)?;
            ours.push((c, k, buf, c.default_stream()));
        }
        let b = base.buffer(
            4 * u64::from(INC_N),
            vk::BufferUsageFlags::STORAGE_BUFFER,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )?;
        let p = base.pipeline(&inc.words, &inc.reflection, [256, 1, 1], &[&b])?;
        let (mut bhost, mut btotal, mut bgpu) = (Vec::new(), Vec::new(), Vec::new());
        let rw = (
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
        );
        let w = (
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::SHADER_WRITE,
        );
        // Runtime and baseline take turns, so load from elsewhere on the machine hits both.
        for rep in 0..chain_reps + 1 {
            for (c, k, buf, s) in &ours {
                c.clear_profile();
                let t = Instant::now();
                for _ in 0..CHAIN {
                    s.launch(k, &cfg, &[KernelArg::Buffer(buf), u32arg(INC_N)])
                        .map_err(e)?;
                }
                let recorded = us_since(t);
                s.sync().map_err(e)?;
                let all = us_since(t);
                if rep == 0 {
                    continue; // warm-up: pipeline creation, pools
                }
                if c.is_profiling() {
                    // First timestamp to last of the submission, like the baseline's span.
                    gpu.push(c.profile_report().span_ns / 1e3 / CHAIN as f64);
                } else {
                    host.push(recorded / CHAIN as f64);
                    total.push(all / CHAIN as f64);
                }
            }
            let t = Instant::now();
            base.begin()?;
            base.timestamp(0);
            for i in 0..CHAIN {
                if i > 0 {
                    base.barrier(b.buffer, w, rw);
                }
                base.dispatch(&p, &INC_N.to_le_bytes(), grid);
            }
            base.timestamp(1);
            let recorded = us_since(t);
            base.submit_wait()?;
            let all = us_since(t);
            if rep > 0 {
                bhost.push(recorded / CHAIN as f64);
                btotal.push(all / CHAIN as f64);
                bgpu.push(base.gpu_ns()? / 1e3 / CHAIN as f64);
            }
        }
        base.free_pipeline(p);
        base.free(b);
        rows.push(Row::time(
            "1000 dependent launches: host recording per launch",
            "us",
            &mut host,
            &mut bhost,
        ));
        rows.push(Row::time(
            "1000 dependent launches: wall time per launch (record + run)",
            "us",
            &mut total,
            &mut btotal,
        ));
        if !gpu.is_empty() {
            rows.push(Row::time(
                "1000 dependent launches: GPU time per launch",
                "us",
                &mut gpu,
                &mut bgpu,
            ));
        }
    }

    // 3. Upload and download bandwidth against the bus.
    rows.extend(crate::transfers::run(&ctx, &base, quick)?);
    // 4. A kernel chain on one stream during an upload on another.
    crate::overlap::run(&inc.words, &inc.reflection, quick)?;
    Ok((info.name, driver, rows))
}
