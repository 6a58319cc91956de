//! Faults: allocations larger than the heap, launches missing an argument, resources dropped
//! while their work runs; each leaves the runtime usable.

use crate::common::*;
use cajeta_runtime::*;

/// Launches `fill` on a fresh buffer and checks the result: proof the context still works.
fn still_works(ctx: &Context, fill: &Kernel) {
    let buf = ctx.create_buffer(4 * 64).unwrap();
    let s = ctx.default_stream();
    s.launch(
        fill,
        &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&buf), u32arg(64), u32arg(1)],
    )
    .unwrap();
    let mut out = vec![0u8; 4 * 64];
    s.download_buffer(&buf, &mut out).unwrap();
    let want: Vec<u32> = (0..64).map(|i| 3 * i + 1).collect();
    assert_eq!(bytes_u32(&out), want);
}

#[test]
fn allocation_larger_than_the_heap_is_an_error_and_the_process_continues() {
    let Some(ctx) = context() else { return };
    let fill = fill_kernel(&ctx);
    let heap = ctx.device_local_heap_bytes();
    assert!(heap > 0);
    let too_big = heap + (1 << 30);
    let err = ctx.create_buffer(too_big).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            RuntimeError::Allocation { .. } | RuntimeError::Vulkan { .. }
        ),
        "{err:?}"
    );
    assert!(
        text.contains(&format!("{too_big}")),
        "the error names the size: {text}"
    );
    let err = ctx
        .create_texture(TextureDesc::d2_array(
            16384,
            16384,
            2048,
            ImageFormat::Rgba32Float,
        ))
        .unwrap_err();
    assert!(
        err.to_string().contains("maxResourceSize")
            || err.to_string().contains("maxImageArrayLayers"),
        "{err}"
    );
    still_works(&ctx, &fill);
}

#[test]
fn a_launch_missing_an_argument_is_an_error_naming_the_parameters() {
    let Some(ctx) = context() else { return };
    let fill = fill_kernel(&ctx);
    let buf = ctx.create_buffer(256).unwrap();
    let s = ctx.default_stream();
    let err = s
        .launch(
            &fill,
            &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
            &[KernelArg::Buffer(&buf), u32arg(64)],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "launch of `fill`: expected 3 argument(s) (out, n, k), got 2"
    );
    still_works(&ctx, &fill);
}

#[test]
fn resources_dropped_while_a_launch_is_in_flight_are_released_after_it() {
    let Some(ctx) = validated_context().or_else(context) else {
        return;
    };
    let s = ctx.default_stream();
    let n = 1 << 16;
    let keep = ctx.create_buffer(4 * n).unwrap();
    {
        let fill = fill_kernel(&ctx);
        let add1 = add1_kernel(&ctx);
        let tmp = ctx.create_buffer(4 * n).unwrap();
        let tex = ctx
            .create_texture(TextureDesc::d2(64, 64, ImageFormat::R32Float))
            .unwrap();
        let smp = ctx
            .create_sampler(Filter::Linear, AddressMode::Repeat)
            .unwrap();
        let cfg = LaunchConfig::new([(n / 64) as u32, 1, 1], [64, 1, 1]);
        s.upload_texture(&tex, 0, None, &vec![0u8; 64 * 64 * 4])
            .unwrap();
        s.launch(
            &fill,
            &cfg,
            &[KernelArg::Buffer(&tmp), u32arg(n as u32), u32arg(2)],
        )
        .unwrap();
        s.launch(
            &add1,
            &cfg,
            &[
                KernelArg::Buffer(&tmp),
                KernelArg::Buffer(&keep),
                u32arg(n as u32),
            ],
        )
        .unwrap();
        // Submitted, not waited for: everything above goes out of scope while it may run.
        s.flush().unwrap();
        drop((fill, add1, tmp, tex, smp));
    }
    let mut out = vec![0u8; 4 * n as usize];
    s.download_buffer(&keep, &mut out).unwrap();
    let want: Vec<u32> = (0..n as u32).map(|i| 3 * i + 3).collect();
    assert_eq!(bytes_u32(&out), want);
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}

#[test]
fn requested_features_are_enabled_exactly_or_refused_by_name() {
    let Some(ctx) = context() else { return };
    let err = Context::with_options(
        ContextOptions::from_env().with_features(vec!["noSuchFeature".into()]),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Vulkan feature `noSuchFeature` is required but device `{}` does not support it",
            ctx.device_info().name
        )
    );
    // A context enabling nothing refuses a kernel that needs a feature, naming it.
    let bare = Context::with_options(ContextOptions::from_env().with_features(vec![])).unwrap();
    let mut r = fill_reflection();
    r.vulkan_features = vec!["shaderInt16".into()];
    let err = bare.load_kernel(&assemble(FILL), &r).unwrap_err();
    assert!(
        err.to_string().contains("Vulkan feature `shaderInt16`"),
        "{err}"
    );
    if ctx
        .device_info()
        .features
        .iter()
        .any(|f| f == "shaderInt16")
    {
        let exact = Context::with_options(
            ContextOptions::from_env().with_features(vec!["shaderInt16".into()]),
        )
        .unwrap();
        exact.load_kernel(&assemble(FILL), &r).unwrap();
    }
    assert_eq!(required_features(&[&r]), vec!["shaderInt16".to_string()]);
}
