//! `Kernel::pipeline_statistics`: where the device has `VK_KHR_pipeline_executable_properties`
//! and the context asked for statistics, a launched kernel reports the driver's figures; where
//! it did not ask, or the device lacks the extension, the call fails naming why.

use cajeta_runtime::{Context, ContextOptions, KernelArg, LaunchConfig, ScalarValue};
use cajetac::embed::Program;
use cajetac::kernel::spirv::SpirvOptions;

const FILL: &str = "package t;
import cajeta.xpu.*;
public final class Fill {
    @Kernel
    public static void fill(KernelBuffer<float32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = (float32) i * 2.0f; }
    }
}
";

fn launched(ctx: &Context) -> cajeta_runtime::Kernel {
    let prog = Program::compile_files(
        &[("fill.cajeta".into(), FILL.into())],
        &SpirvOptions::default(),
    )
    .expect("compiles");
    let k = prog.get("fill").expect("kernel");
    let kernel = ctx.load_kernel(&k.words, &k.reflection).expect("loads");
    let buf = ctx.create_buffer(4 * 64).expect("buffer");
    let s = ctx.default_stream();
    s.launch(
        &kernel,
        &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
        &[
            KernelArg::Buffer(&buf),
            KernelArg::Scalar(ScalarValue::U32(64)),
        ],
    )
    .expect("launch");
    s.sync().expect("sync");
    kernel
}

#[test]
fn statistics_are_reported_or_refused_with_the_reason() {
    let Some(plain) = cajeta_tests::device_context(false) else {
        return;
    };
    let e = launched(&plain)
        .pipeline_statistics()
        .expect_err("not asked for");
    assert!(e.to_string().contains("no pipeline statistics"), "{e}");
    let ctx = Context::with_options(ContextOptions::from_env().with_pipeline_statistics(true))
        .expect("context");
    let offered = ctx
        .device_info()
        .extensions
        .iter()
        .any(|e| e == "VK_KHR_pipeline_executable_properties");
    match launched(&ctx).pipeline_statistics() {
        Ok(stats) => {
            assert!(offered, "statistics without the extension");
            assert!(!stats.is_empty(), "no statistics for a launched kernel");
            assert!(stats
                .iter()
                .all(|s| !s.name.is_empty() && !s.value.is_empty()));
            eprintln!("{stats:?}");
        }
        Err(e) => {
            assert!(!offered, "the device offers the extension but: {e}");
            assert!(
                e.to_string()
                    .contains("VK_KHR_pipeline_executable_properties"),
                "{e}"
            );
        }
    }
}
