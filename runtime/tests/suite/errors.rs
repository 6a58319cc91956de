//! Errors instead of panics: argument checking, device limits, specialization, sizes, kernel
//! requirements and device selection, each naming the problem; the runtime stays usable.

use crate::common::*;
use cajeta_runtime::*;

fn launch_err(r: Result<CommandId>) -> String {
    match r {
        Err(e @ RuntimeError::Launch { .. }) => e.to_string(),
        other => panic!("expected a launch error, got {other:?}"),
    }
}

#[test]
fn argument_errors_name_the_parameter_and_leave_the_stream_usable() {
    let Some(ctx) = context() else { return };
    let kernel = fill_kernel(&ctx);
    let buf = ctx.create_buffer(400).unwrap();
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([2, 1, 1], [64, 1, 1]);
    let last = s
        .launch(
            &kernel,
            &cfg,
            &[KernelArg::Buffer(&buf), u32arg(100), u32arg(0)],
        )
        .unwrap();

    let msg = launch_err(s.launch(&kernel, &cfg, &[KernelArg::Buffer(&buf)]));
    assert_eq!(
        msg,
        "launch of `fill`: expected 3 argument(s) (out, n, k), got 1"
    );
    let msg = launch_err(s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&buf), u32arg(1), u32arg(2), u32arg(3)],
    ));
    assert!(msg.contains("expected 3") && msg.contains("got 4"), "{msg}");
    let msg = launch_err(s.launch(
        &kernel,
        &cfg,
        &[
            KernelArg::Buffer(&buf),
            KernelArg::Scalar(ScalarValue::F32(1.0)),
            u32arg(0),
        ],
    ));
    assert_eq!(
        msg,
        "launch of `fill`: parameter `n` expects uint32, got float32"
    );
    let msg = launch_err(s.launch(&kernel, &cfg, &[u32arg(1), u32arg(1), u32arg(0)]));
    assert_eq!(
        msg,
        "launch of `fill`: parameter `out` expects a buffer, got a uint32 value"
    );
    let msg = launch_err(s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&buf), KernelArg::Buffer(&buf), u32arg(0)],
    ));
    assert_eq!(
        msg,
        "launch of `fill`: parameter `n` expects uint32, got a buffer"
    );
    let msg = launch_err(s.launch(
        &kernel,
        &cfg,
        &[
            KernelArg::Buffer(&buf),
            u32arg(1),
            KernelArg::Bytes(&[0u8; 8]),
        ],
    ));
    assert!(
        msg.contains("parameter `k`") && msg.contains("4 bytes"),
        "{msg}"
    );

    // Nothing was recorded by the failed launches: the next command follows the last good one.
    let next = s
        .launch(
            &kernel,
            &cfg,
            &[KernelArg::Buffer(&buf), u32arg(100), u32arg(4)],
        )
        .unwrap();
    assert_eq!(next, CommandId(last.0 + 1));
    let mut out = vec![0u8; 400];
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[99], 3 * 99 + 4);
}

#[test]
fn limits_are_checked_and_named() {
    let Some(ctx) = context() else { return };
    let kernel = fill_kernel(&ctx);
    let buf = ctx.create_buffer(256).unwrap();
    let s = ctx.default_stream();
    let args = [KernelArg::Buffer(&buf), u32arg(64), u32arg(0)];
    let lim = ctx.device_info().limits.clone();

    let gx = lim.max_compute_work_group_count[0] + 1;
    let msg = launch_err(s.launch(&kernel, &LaunchConfig::new([gx, 1, 1], [64, 1, 1]), &args));
    assert_eq!(
        msg,
        format!(
            "launch of `fill`: grid [{gx},1,1] exceeds maxComputeWorkGroupCount[0] = {}",
            gx - 1
        )
    );
    let gz = lim.max_compute_work_group_count[2] + 1;
    let msg = launch_err(s.launch(&kernel, &LaunchConfig::new([1, 1, gz], [64, 1, 1]), &args));
    assert!(msg.contains("maxComputeWorkGroupCount[2]"), "{msg}");
    let by = lim.max_compute_work_group_size[1] + 1;
    let msg = launch_err(s.launch(&kernel, &LaunchConfig::new([1, 1, 1], [1, by, 1]), &args));
    assert!(
        msg.contains(&format!("maxComputeWorkGroupSize[1] = {}", by - 1)),
        "{msg}"
    );
    let [mx, my, _] = lim.max_compute_work_group_size;
    if u64::from(mx) * u64::from(my) > u64::from(lim.max_compute_work_group_invocations) {
        let msg = launch_err(s.launch(&kernel, &LaunchConfig::new([1, 1, 1], [mx, my, 1]), &args));
        assert!(msg.contains("maxComputeWorkGroupInvocations"), "{msg}");
    }
    let msg = launch_err(s.launch(&kernel, &LaunchConfig::new([0, 1, 1], [64, 1, 1]), &args));
    assert_eq!(msg, "launch of `fill`: grid [0,1,1] has a zero dimension");
    let msg = launch_err(s.launch(&kernel, &LaunchConfig::new([1, 1, 1], [64, 0, 1]), &args));
    assert!(msg.contains("block [64,0,1]"), "{msg}");

    // Spec values beyond the declared slots, and a shared size without SpecId 3.
    let mut cfg = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
    cfg.spec = vec![1];
    let msg = launch_err(s.launch(&kernel, &cfg, &args));
    assert!(msg.contains("spec"), "{msg}");
    let mut cfg = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
    cfg.shared_bytes = Some(256);
    let msg = launch_err(s.launch(&kernel, &cfg, &args));
    assert!(msg.contains("SpecId 3"), "{msg}");
    assert_eq!(kernel.pipelines_created(), 0);

    s.launch(&kernel, &LaunchConfig::new([1, 1, 1], [64, 1, 1]), &args)
        .unwrap();
    s.sync().unwrap();
}

#[test]
fn sizes_are_checked() {
    let Some(ctx) = context() else { return };
    let s = ctx.default_stream();
    let buf = ctx.create_buffer(400).unwrap();
    assert_eq!(buf.size(), 400);
    let err = s.upload_buffer(&buf, &[0u8; 396]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "buffer length mismatch: buffer holds 400 bytes, host array 396 bytes"
    );
    let mut out = vec![0u8; 404];
    let err = s.download_buffer(&buf, &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "buffer length mismatch: buffer holds 400 bytes, host array 404 bytes"
    );
    let err = ctx.create_buffer(0).unwrap_err();
    assert!(err.to_string().contains("greater than zero"), "{err}");
    assert_ne!(buf.id(), ctx.create_buffer(4).unwrap().id());
}

#[test]
fn kernels_needing_missing_things_are_refused() {
    let Some(ctx) = context() else { return };
    let spirv = assemble(FILL);

    let mut r = fill_reflection();
    r.vulkan_features = vec!["shaderFloat128".into()];
    let err = ctx.load_kernel(&spirv, &r).unwrap_err();
    assert!(matches!(err, RuntimeError::Unsupported { .. }), "{err:?}");
    assert!(err.to_string().contains("shaderFloat128"), "{err}");

    // A known feature the device lacks (if any) is refused the same way.
    let known = [
        "shaderFloat64",
        "shaderInt64",
        "shaderInt16",
        "shaderFloat16",
        "shaderInt8",
    ];
    if let Some(missing) = known
        .iter()
        .find(|f| !ctx.device_info().features.iter().any(|g| g == *f))
    {
        let mut r = fill_reflection();
        r.vulkan_features = vec![missing.to_string()];
        let err = ctx.load_kernel(&spirv, &r).unwrap_err();
        assert!(err.to_string().contains(missing), "{err}");
    }
    // Features the device has are accepted.
    let mut r = fill_reflection();
    r.vulkan_features = ctx.device_info().features.iter().take(2).cloned().collect();
    ctx.load_kernel(&spirv, &r).unwrap();

    let mut r = fill_reflection();
    r.entry_point = "nope".into();
    let err = ctx.load_kernel(&spirv, &r).unwrap_err();
    assert!(
        err.to_string().contains("no GLCompute entry point `nope`"),
        "{err}"
    );

    let err = ctx.load_kernel(&[1, 2, 3], &fill_reflection()).unwrap_err();
    assert!(err.to_string().contains("not a SPIR-V module"), "{err}");

    let mut r = fill_reflection();
    r.extensions = vec!["SPV_KHR_made_up".into()];
    assert!(ctx
        .load_kernel(&spirv, &r)
        .unwrap_err()
        .to_string()
        .contains("SPV_KHR_made_up"));

    let mut r = fill_reflection();
    r.push_constants.size = ctx.device_info().limits.max_push_constants_size + 4;
    let err = ctx.load_kernel(&spirv, &r).unwrap_err();
    assert!(err.to_string().contains("maxPushConstantsSize"), "{err}");
}

#[test]
fn devices_are_listed_and_selected() {
    let Some(ctx) = context() else { return };
    let devices = Context::list_devices().unwrap();
    assert!(!devices.is_empty());
    for (i, d) in devices.iter().enumerate() {
        assert_eq!(d.index, i);
        assert!(d.limits.max_compute_work_group_invocations > 0);
    }
    let info = ctx.device_info();
    assert!(devices.iter().any(|d| d.name == info.name));
    eprintln!(
        "device: {} ({:?}, {} {}, Vulkan {})",
        info.name, info.device_type, info.driver_name, info.driver_info, info.api_version
    );

    let first = &devices[0];
    let by_index = Context::with_options(ContextOptions {
        device: Some("0".into()),
        validation: false,
        ..ContextOptions::default()
    })
    .unwrap();
    assert_eq!(by_index.device_info().name, first.name);
    let needle = first
        .name
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_uppercase();
    let by_name = Context::with_options(ContextOptions {
        device: Some(needle),
        validation: false,
        ..ContextOptions::default()
    })
    .unwrap();
    assert_eq!(by_name.device_info().name, first.name);

    let err = Context::with_options(ContextOptions {
        device: Some("99".into()),
        validation: false,
        ..ContextOptions::default()
    })
    .unwrap_err();
    assert!(
        matches!(err, RuntimeError::DeviceNotFound { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(&first.name), "{err}");
    let err = Context::with_options(ContextOptions {
        device: Some("no such gpu".into()),
        validation: false,
        ..ContextOptions::default()
    })
    .unwrap_err();
    assert!(err.to_string().contains("`no such gpu`"), "{err}");
}

#[test]
fn scalar_type_names_match_the_reflection() {
    let names: Vec<&str> = [
        ScalarValue::Bool(true),
        ScalarValue::I8(0),
        ScalarValue::I16(0),
        ScalarValue::I32(0),
        ScalarValue::I64(0),
        ScalarValue::U8(0),
        ScalarValue::U16(0),
        ScalarValue::U32(0),
        ScalarValue::U64(0),
        ScalarValue::F32(0.0),
        ScalarValue::F64(0.0),
    ]
    .iter()
    .map(|v| v.type_name())
    .collect();
    assert_eq!(
        names,
        [
            "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64"
        ]
    );
    assert_eq!(ScalarValue::Bool(true).to_le_bytes(), vec![1, 0, 0, 0]);
}

#[test]
fn handles_are_send_and_sync() {
    fn check<T: Send + Sync + Clone + std::fmt::Debug>() {}
    check::<Context>();
    check::<Stream>();
    check::<Buffer>();
    check::<Image2D>();
    check::<Kernel>();
    check::<RuntimeError>();
}
