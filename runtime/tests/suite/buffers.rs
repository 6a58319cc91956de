//! Buffer kernels on a real device: exact results, barrier placement between launches,
//! the pipeline cache, and dropping resources while work is in flight.

use crate::common::*;
use cajeta_runtime::*;

#[test]
fn fill_with_partial_last_block_is_exact() {
    let Some(ctx) = context() else { return };
    let kernel = fill_kernel(&ctx);
    let len = 1000u32;
    let n = 997u32; // not a multiple of the block
    let buf = ctx.create_buffer(4 * u64::from(len)).unwrap();
    let s = ctx.default_stream();
    let sentinel = vec![0xdead_beefu32; len as usize];
    s.upload_buffer(&buf, &u32_bytes(&sentinel)).unwrap();
    let cfg = LaunchConfig::new([n.div_ceil(64), 1, 1], [64, 1, 1]);
    s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&buf), u32arg(n), u32arg(7)],
    )
    .unwrap();
    let mut out = vec![0u8; 4 * len as usize];
    s.download_buffer(&buf, &mut out).unwrap();
    let got = bytes_u32(&out);
    for (i, &v) in got.iter().enumerate() {
        let want = if (i as u32) < n {
            3 * i as u32 + 7
        } else {
            0xdead_beef
        };
        assert_eq!(v, want, "element {i}");
    }
    // upload → launch is a write-after-write on the buffer; launch → download a read-after-write.
    let log = ctx.barrier_log();
    let hazards: Vec<Hazard> = log.iter().map(|r| r.hazard).collect();
    assert_eq!(
        hazards,
        vec![Hazard::WriteAfterWrite, Hazard::ReadAfterWrite]
    );
    assert_eq!(log[0].before_label, "launch fill");
    assert_eq!(
        (log[0].src_stage.as_str(), log[0].dst_stage.as_str()),
        ("TRANSFER", "COMPUTE_SHADER")
    );
    assert_eq!(log[1].before_label, "download");
    assert_eq!(log[1].src_access, "SHADER_WRITE");
    assert_eq!(log[1].dst_access, "TRANSFER_READ");
}

#[test]
fn launches_on_unrelated_buffers_need_no_barrier() {
    let Some(ctx) = context() else { return };
    let kernel = fill_kernel(&ctx);
    let a = ctx.create_buffer(256).unwrap();
    let b = ctx.create_buffer(256).unwrap();
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
    let first = s
        .launch(
            &kernel,
            &cfg,
            &[KernelArg::Buffer(&a), u32arg(64), u32arg(1)],
        )
        .unwrap();
    let second = s
        .launch(
            &kernel,
            &cfg,
            &[KernelArg::Buffer(&b), u32arg(64), u32arg(2)],
        )
        .unwrap();
    assert!(second > first);
    assert!(ctx.barrier_log().is_empty(), "{:#?}", ctx.barrier_log());
    let mut out = vec![0u8; 256];
    s.download_buffer(&b, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[63], 3 * 63 + 2);
    s.download_buffer(&a, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[10], 31);
}

#[test]
fn write_after_read_is_logged() {
    let Some(ctx) = context() else { return };
    let fill = fill_kernel(&ctx);
    let add1 = add1_kernel(&ctx);
    let n = 100u32;
    let x = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let y = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.default_stream();
    let input: Vec<u32> = (0..n).map(|i| 10 * i).collect();
    let up = s.upload_buffer(&x, &u32_bytes(&input)).unwrap();
    let cfg = LaunchConfig::new([2, 1, 1], [64, 1, 1]);
    let read = s
        .launch(
            &add1,
            &cfg,
            &[KernelArg::Buffer(&x), KernelArg::Buffer(&y), u32arg(n)],
        )
        .unwrap();
    let write = s
        .launch(&fill, &cfg, &[KernelArg::Buffer(&x), u32arg(n), u32arg(5)])
        .unwrap();
    assert!(up < read && read < write);
    let log = ctx.barrier_log();
    let before = |id: CommandId| {
        log.iter()
            .filter(move |r| r.before == id)
            .collect::<Vec<_>>()
    };
    let raw = before(read);
    assert_eq!(raw.len(), 1, "{log:#?}");
    assert_eq!(
        (raw[0].resource, raw[0].hazard),
        (x.id(), Hazard::ReadAfterWrite)
    );
    let war = before(write);
    assert_eq!(war.len(), 1, "{log:#?}");
    assert_eq!(
        (war[0].resource, war[0].hazard),
        (x.id(), Hazard::WriteAfterRead)
    );
    assert_eq!(war[0].resource_kind, ResourceKind::Buffer);
    assert_eq!(war[0].src_stage, "COMPUTE_SHADER");
    let mut out = vec![0u8; 4 * n as usize];
    s.download_buffer(&y, &mut out).unwrap();
    assert_eq!(
        bytes_u32(&out),
        input.iter().map(|v| v + 1).collect::<Vec<_>>()
    );
    s.download_buffer(&x, &mut out).unwrap();
    assert_eq!(
        bytes_u32(&out),
        (0..n).map(|i| 3 * i + 5).collect::<Vec<_>>()
    );
}

#[test]
fn pipelines_are_cached_per_block() {
    let Some(ctx) = context() else { return };
    let kernel = fill_kernel(&ctx);
    let buf = ctx.create_buffer(4 * 256).unwrap();
    let s = ctx.default_stream();
    let args = [KernelArg::Buffer(&buf), u32arg(256), u32arg(0)];
    assert_eq!(kernel.pipelines_created(), 0);
    s.launch(&kernel, &LaunchConfig::new([4, 1, 1], [64, 1, 1]), &args)
        .unwrap();
    s.launch(&kernel, &LaunchConfig::new([4, 1, 1], [64, 1, 1]), &args)
        .unwrap();
    assert_eq!(kernel.pipelines_created(), 1);
    s.launch(&kernel, &LaunchConfig::new([8, 1, 1], [32, 1, 1]), &args)
        .unwrap();
    assert_eq!(kernel.pipelines_created(), 2);
    let mut out = vec![0u8; 4 * 256];
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[255], 765);
}

#[test]
fn dropping_resources_in_flight_is_safe() {
    let Some(ctx) = validated_context().or_else(context) else {
        return;
    };
    let kernel = fill_kernel(&ctx);
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([16, 1, 1], [64, 1, 1]);
    let buf = ctx.create_buffer(4 * 1024).unwrap();
    s.upload_buffer(&buf, &vec![0u8; 4096]).unwrap();
    s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&buf), u32arg(1024), u32arg(1)],
    )
    .unwrap();
    drop(buf);
    s.sync().unwrap();
    // The buffer is gone, the stream still works.
    let other = ctx.create_buffer(4 * 1024).unwrap();
    s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&other), u32arg(1024), u32arg(2)],
    )
    .unwrap();
    let mut out = vec![0u8; 4096];
    s.download_buffer(&other, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[1023], 3 * 1023 + 2);
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );

    // Kernel, buffer and context dropped with recorded (and submitted) work outstanding.
    let doomed = ctx.create_buffer(4 * 1024).unwrap();
    s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&doomed), u32arg(1024), u32arg(3)],
    )
    .unwrap();
    drop(doomed);
    drop(kernel);
    drop(s);
    drop(ctx);
}

#[test]
fn stream_outlives_context() {
    let Some(ctx) = context() else { return };
    let kernel = fill_kernel(&ctx);
    let buf = ctx.create_buffer(256).unwrap();
    let s = ctx.default_stream();
    drop(ctx);
    s.launch(
        &kernel,
        &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&buf), u32arg(64), u32arg(9)],
    )
    .unwrap();
    let mut out = vec![0u8; 256];
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[2], 15);
}

#[test]
fn many_launches_grow_descriptor_pools() {
    let Some(ctx) = context() else { return };
    let kernel = add1_kernel(&ctx);
    // A chain over 151 distinct buffers: every launch binds a new pair, so every launch needs
    // its own descriptor set, more than one pool holds. (Launches binding the same pair again
    // within a batch share one set.)
    let bufs: Vec<Buffer> = (0..151).map(|_| ctx.create_buffer(64).unwrap()).collect();
    let s = ctx.default_stream();
    s.upload_buffer(&bufs[0], &u32_bytes(&[0; 16])).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [16, 1, 1]);
    for i in 0..150 {
        s.launch(
            &kernel,
            &cfg,
            &[
                KernelArg::Buffer(&bufs[i]),
                KernelArg::Buffer(&bufs[i + 1]),
                u32arg(16),
            ],
        )
        .unwrap();
    }
    // Ping-pong between two of them, reusing sets.
    let (a, b) = (&bufs[150], &bufs[0]);
    for i in 0..10 {
        let (src, dst) = if i % 2 == 0 { (a, b) } else { (b, a) };
        s.launch(
            &kernel,
            &cfg,
            &[KernelArg::Buffer(src), KernelArg::Buffer(dst), u32arg(16)],
        )
        .unwrap();
    }
    let mut out = vec![0u8; 64];
    s.download_buffer(a, &mut out).unwrap();
    assert_eq!(bytes_u32(&out), vec![160; 16]);
    let (a, b) = (a.clone(), b.clone());
    // And again after the batch was recycled.
    s.launch(
        &kernel,
        &cfg,
        &[KernelArg::Buffer(&a), KernelArg::Buffer(&b), u32arg(16)],
    )
    .unwrap();
    s.download_buffer(&b, &mut out).unwrap();
    assert_eq!(bytes_u32(&out), vec![161; 16]);
}

#[test]
fn spec_values_and_shared_size_specialize_and_are_cached() {
    let Some(ctx) = context() else { return };
    let kernel = ctx
        .load_kernel(&assemble(SPEC_FILL), &spec_fill_reflection())
        .unwrap();
    let n = 80u32;
    let buf = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.default_stream();
    let mut out = vec![0u8; 4 * n as usize];
    let mut run = |spec: Vec<u32>, shared_bytes: Option<u32>| {
        let cfg = LaunchConfig {
            grid: [2, 1, 1],
            block: [64, 1, 1],
            spec,
            shared_bytes,
            psc: false,
        };
        s.launch(&kernel, &cfg, &[KernelArg::Buffer(&buf), u32arg(n)])?;
        s.download_buffer(&buf, &mut out)?;
        Ok::<Vec<u32>, RuntimeError>(bytes_u32(&out))
    };
    assert_eq!(run(vec![], None).unwrap(), (0..n).collect::<Vec<_>>());
    assert_eq!(
        run(vec![100], None).unwrap(),
        (100..100 + n).collect::<Vec<_>>()
    );
    assert_eq!(
        run(vec![100], Some(16)).unwrap(),
        (116..116 + n).collect::<Vec<_>>()
    );
    assert_eq!(run(vec![100], Some(16)).unwrap()[0], 116);
    let err = run(vec![1, 2], None).unwrap_err();
    assert!(err.to_string().contains("2 spec values given"), "{err}");
    assert_eq!(kernel.pipelines_created(), 3);
}
