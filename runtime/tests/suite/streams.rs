//! Streams, events, profiling, the persisted pipeline cache and direct uploads into
//! host-visible memory.

use crate::common::*;
use cajeta_runtime::*;

#[test]
fn two_streams_ordered_by_an_event_give_exact_results() {
    let Some(ctx) = validated_context().or_else(context) else {
        return;
    };
    let fill = fill_kernel(&ctx);
    let add1 = add1_kernel(&ctx);
    let n = 4096u32;
    let a = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let b = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let producer = ctx.create_stream().unwrap();
    let consumer = ctx.create_stream().unwrap();
    let cfg = LaunchConfig::new([n / 64, 1, 1], [64, 1, 1]);
    let event = Event::create(&ctx).unwrap();
    assert!(
        event.wait_host().is_err(),
        "an unrecorded event cannot be waited for"
    );
    producer
        .launch(&fill, &cfg, &[KernelArg::Buffer(&a), u32arg(n), u32arg(9)])
        .unwrap();
    event.record_on(&producer).unwrap();
    consumer.wait_event(&event).unwrap();
    consumer
        .launch(
            &add1,
            &cfg,
            &[KernelArg::Buffer(&a), KernelArg::Buffer(&b), u32arg(n)],
        )
        .unwrap();
    let done = Event::create(&ctx).unwrap();
    done.record_on(&consumer).unwrap();
    done.wait_host().unwrap();
    assert!(done.is_complete().unwrap());
    assert!(event.is_complete().unwrap());
    let mut out = vec![0u8; 4 * n as usize];
    consumer.download_buffer(&b, &mut out).unwrap();
    let want: Vec<u32> = (0..n).map(|i| 3 * i + 10).collect();
    assert_eq!(bytes_u32(&out), want);
    producer.sync().unwrap();
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}

#[test]
fn profiling_times_every_launch_and_transfer() {
    let Some(ctx) = context_with(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_profile(true)
    }) else {
        return;
    };
    if !ctx.is_profiling() {
        eprintln!("notice: the device's compute queue has no timestamps; profiling not tested");
        return;
    }
    let fill = fill_kernel(&ctx);
    let buf = ctx.create_buffer(4 * 1024).unwrap();
    let s = ctx.default_stream();
    s.upload_buffer(&buf, &vec![0u8; 4096]).unwrap();
    for k in 0..3 {
        s.launch(
            &fill,
            &LaunchConfig::new([16, 1, 1], [64, 1, 1]),
            &[KernelArg::Buffer(&buf), u32arg(1024), u32arg(k)],
        )
        .unwrap();
    }
    let mut out = vec![0u8; 4096];
    s.download_buffer(&buf, &mut out).unwrap();
    let report = ctx.profile_report();
    let entry = |name: &str| report.entries.iter().find(|e| e.name == name).cloned();
    let fill_entry = entry("fill").expect("fill was timed");
    assert_eq!(
        (fill_entry.kind, fill_entry.calls),
        (ProfileKind::Kernel, 3)
    );
    assert!(fill_entry.total_ns > 0.0, "{report:?}");
    let up = entry("upload").unwrap();
    assert_eq!((up.calls, up.bytes), (1, 4096));
    assert_eq!(entry("download").unwrap().calls, 1);
    let table = report.table();
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("fill ") && l.contains(" 3 ")),
        "{table}"
    );
    ctx.clear_profile();
    assert!(ctx.profile_report().entries.is_empty());
}

#[test]
fn span_profiling_times_whole_submissions_only() {
    let Some(ctx) = context_with(ContextOptions::from_env().with_span_profile(true)) else {
        return;
    };
    if !ctx.is_profiling() {
        eprintln!("notice: the device's compute queue has no timestamps; profiling not tested");
        return;
    }
    let fill = fill_kernel(&ctx);
    let buf = ctx.create_buffer(4 * 1024).unwrap();
    let s = ctx.default_stream();
    let mut spans = Vec::new();
    for round in 0..2 {
        for k in 0..4 {
            s.launch(
                &fill,
                &LaunchConfig::new([16, 1, 1], [64, 1, 1]),
                &[KernelArg::Buffer(&buf), u32arg(1024), u32arg(k + round)],
            )
            .unwrap();
        }
        s.sync().unwrap();
        let report = ctx.profile_report();
        assert!(report.entries.is_empty(), "{report:?}");
        spans.push(report.span_ns);
    }
    // Each submission adds its first-to-last span; nothing is timed per command.
    assert!(spans[0] > 0.0, "{spans:?}");
    assert!(spans[1] > spans[0], "{spans:?}");
    let mut out = vec![0u8; 4096];
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(
        bytes_u32(&out)[1023],
        3 * 1023 + 4,
        "the profiled launches ran in order"
    );
}

/// Consecutive launches that differ in one argument, after a run of identical ones (whose
/// shape check and pipeline lookup the stream caches): each launch uses its own arguments,
/// and a wrong argument list is still refused.
#[test]
fn consecutive_launches_use_their_own_arguments() {
    let Some(ctx) = context_with(ContextOptions::from_env()) else {
        return;
    };
    let fill = fill_kernel(&ctx);
    let [a, b, c] = [0; 3].map(|_| ctx.create_buffer(4 * 1024).unwrap());
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([16, 1, 1], [64, 1, 1]);
    let launch = |buf, n: u32, k: u32| {
        s.launch(&fill, &cfg, &[KernelArg::Buffer(buf), u32arg(n), u32arg(k)])
    };
    for _ in 0..3 {
        launch(&a, 1024, 5).unwrap();
    }
    launch(&b, 1024, 5).unwrap(); // only the buffer changes
    launch(&c, 1024, 5).unwrap();
    launch(&c, 1024, 9).unwrap(); // only a scalar changes
    launch(&a, 512, 7).unwrap();
    let err = s
        .launch(&fill, &cfg, &[KernelArg::Buffer(&a), u32arg(1024)])
        .unwrap_err();
    assert!(err.to_string().contains("expected 3 argument"), "{err}");
    let wrong_type = [
        KernelArg::Buffer(&a),
        u32arg(512),
        KernelArg::Scalar(ScalarValue::I32(7)),
    ];
    let err = s.launch(&fill, &cfg, &wrong_type).unwrap_err();
    assert!(err.to_string().contains("expects uint32"), "{err}");
    let big = LaunchConfig::new([16, 1, 1], [1 << 20, 1, 1]);
    let err = s
        .launch(&fill, &big, &[KernelArg::Buffer(&a), u32arg(8), u32arg(1)])
        .unwrap_err();
    assert!(err.to_string().contains("maxComputeWorkGroup"), "{err}");
    let read = |buf| {
        let mut out = vec![0u8; 4096];
        s.download_buffer(buf, &mut out).unwrap();
        bytes_u32(&out)
    };
    let (va, vb, vc) = (read(&a), read(&b), read(&c));
    for i in 0..1024u32 {
        let want_a = if i < 512 { 3 * i + 7 } else { 3 * i + 5 };
        assert_eq!(va[i as usize], want_a, "a[{i}]");
        assert_eq!(vb[i as usize], 3 * i + 5, "b[{i}]");
        assert_eq!(vc[i as usize], 3 * i + 9, "c[{i}]");
    }
}

#[test]
fn the_pipeline_cache_is_saved_and_reloaded() {
    let dir = std::env::temp_dir().join(format!("cajeta-pcache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_cache_dir(Some(dir.clone()))
    };
    let run = || {
        let ctx = context_with(opts.clone())?;
        let fill = fill_kernel(&ctx);
        let buf = ctx.create_buffer(256).unwrap();
        let s = ctx.default_stream();
        s.launch(
            &fill,
            &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
            &[KernelArg::Buffer(&buf), u32arg(64), u32arg(0)],
        )
        .unwrap();
        s.sync().unwrap();
        Some(())
    };
    if run().is_none() {
        return;
    }
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one cache file per device");
    let name = files[0].file_name().to_string_lossy().into_owned();
    assert!(
        name.starts_with("pipelines-") && name.ends_with(".bin"),
        "{name}"
    );
    let first = std::fs::read(files[0].path()).unwrap();
    assert!(first.len() > 28, "a header and the driver's data");
    assert!(first.starts_with(b"CAJETAPC"), "our header first");
    // A second context starts from the file and still works; a corrupt file is ignored
    // (garbage, or the driver's data with one flipped bit) and replaced.
    run().unwrap();
    std::fs::write(files[0].path(), b"garbage").unwrap();
    run().unwrap();
    let rewritten = std::fs::read(files[0].path()).unwrap();
    assert!(
        rewritten.len() > 28 && rewritten.starts_with(b"CAJETAPC"),
        "rewritten by the last run"
    );
    let mut flipped = rewritten.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    std::fs::write(files[0].path(), &flipped).unwrap();
    run().unwrap();
    assert_ne!(
        std::fs::read(files[0].path()).unwrap(),
        flipped,
        "a file that did not verify is rewritten"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn uploads_into_host_visible_buffers_are_direct_and_exact() {
    let Some(ctx) = context_with(ContextOptions::from_env()) else {
        return;
    };
    let add1 = add1_kernel(&ctx);
    let n = 1000u32;
    let x = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let y = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([16, 1, 1], [64, 1, 1]);
    let mut out = vec![0u8; 4 * n as usize];
    for round in 0..3u32 {
        let input: Vec<u32> = (0..n).map(|i| i * 7 + round).collect();
        ctx.clear_barrier_log();
        // The previous round's launch is finished (the download waited), so a host-visible
        // buffer is written directly: no copy, no barrier for the upload.
        s.upload_buffer(&x, &u32_bytes(&input)).unwrap();
        if x.is_host_visible() {
            assert!(ctx.barrier_log().iter().all(|r| r.before_label != "upload"));
        }
        s.launch(
            &add1,
            &cfg,
            &[KernelArg::Buffer(&x), KernelArg::Buffer(&y), u32arg(n)],
        )
        .unwrap();
        // Recorded but not submitted: this upload must be ordered after the launch, so it
        // goes through a staging copy even into host-visible memory.
        s.upload_buffer(&x, &u32_bytes(&vec![0; n as usize]))
            .unwrap();
        s.download_buffer(&y, &mut out).unwrap();
        let want: Vec<u32> = input.iter().map(|v| v + 1).collect();
        assert_eq!(bytes_u32(&out), want, "round {round}");
    }
}

/// Events time device work: the span between an event before a launch and one after it
/// contains the launch's own profile timestamps (same queue, same counter). Ordering only:
/// no timing ratios are asserted.
#[test]
fn event_timestamps_span_the_profiled_launch() {
    let Some(ctx) = context_with(ContextOptions::from_env().with_profile(true)) else {
        return;
    };
    if !ctx.is_profiling() {
        eprintln!("notice: the device's compute queue has no timestamps; events not timed");
        return;
    }
    let fill = fill_kernel(&ctx);
    let n = 1u32 << 16;
    let buf = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.create_stream().unwrap();
    let (t0, t1) = (Event::create(&ctx).unwrap(), Event::create(&ctx).unwrap());
    assert!(Event::elapsed_ms(&t0, &t1).is_err(), "unrecorded events");
    t0.record_on(&s).unwrap();
    s.launch(
        &fill,
        &LaunchConfig::new([n / 64, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&buf), u32arg(n), u32arg(1)],
    )
    .unwrap();
    assert!(
        !s.is_idle().unwrap(),
        "the launch is recorded, not submitted"
    );
    t1.record_on(&s).unwrap();
    let ms = Event::elapsed_ms(&t0, &t1).unwrap();
    assert!(t0.is_complete().unwrap() && t1.is_complete().unwrap());
    assert!(s.is_idle().unwrap());
    let kernel_ns = ctx
        .profile_report()
        .entries
        .iter()
        .find(|e| e.name == "fill")
        .map(|e| e.total_ns)
        .expect("fill was profiled");
    eprintln!(
        "event span {ms:.6} ms, profiled kernel {:.6} ms",
        kernel_ns / 1e6
    );
    assert!(ms.is_finite() && ms > 0.0, "{ms}");
    assert!(
        ms * 1e6 >= kernel_ns,
        "span {ms} ms < kernel {kernel_ns} ns"
    );
    assert_eq!(Event::elapsed_ms(&t1, &t0).unwrap(), -ms);
}

#[test]
fn an_event_after_an_async_download_marks_its_end_not_the_wait() {
    // downloadAsync submits; an event recorded right after it goes out at once, so its
    // timestamp is when the download ended, not when the host got round to waiting for it
    // (a pipelined loop's per-frame event). An event after an event-made submission still
    // waits for the next work (the opening marker of a span).
    let Some(ctx) = context_with(ContextOptions::from_env().with_profile(true)) else {
        return;
    };
    if !ctx.is_profiling() {
        eprintln!("notice: the device's compute queue has no timestamps; events not timed");
        return;
    }
    let fill = fill_kernel(&ctx);
    let n = 1u32 << 12;
    let buf = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.create_stream().unwrap();
    let (t0, t1, t2) = (
        Event::create(&ctx).unwrap(),
        Event::create(&ctx).unwrap(),
        Event::create(&ctx).unwrap(),
    );
    let nap = std::time::Duration::from_millis(300);
    t0.record_on(&s).unwrap();
    s.launch(
        &fill,
        &LaunchConfig::new([n / 64, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&buf), u32arg(n), u32arg(7)],
    )
    .unwrap();
    let pending = s.download_buffer_async(&buf).unwrap();
    t1.record_on(&s).unwrap();
    std::thread::sleep(nap);
    let work_ms = Event::elapsed_ms(&t0, &t1).unwrap();
    let mut out = vec![0u8; 4 * n as usize];
    pending.finish(&mut out).unwrap();
    let want: Vec<u32> = (0..n).map(|i| 3 * i + 7).collect();
    assert_eq!(bytes_u32(&out), want);
    // t1 ended the download; t2, recorded with nothing pending after t1's own submission,
    // goes out with the next launch (after the nap), so t1..t2 spans the nap.
    t2.record_on(&s).unwrap();
    std::thread::sleep(nap);
    s.launch(
        &fill,
        &LaunchConfig::new([n / 64, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&buf), u32arg(n), u32arg(8)],
    )
    .unwrap();
    s.sync().unwrap();
    let gap_ms = Event::elapsed_ms(&t1, &t2).unwrap();
    eprintln!("launch + download {work_ms:.3} ms; t1..t2 {gap_ms:.3} ms");
    assert!(
        work_ms > 0.0 && work_ms < 250.0,
        "the end marker waited for the host: {work_ms} ms"
    );
    assert!(
        gap_ms >= 250.0,
        "the opening marker went out early: {gap_ms} ms"
    );
}

#[test]
fn re_recording_an_event_does_not_wait_for_its_previous_marker() {
    // As cudaEventRecord: moving an event's marker while the work it marked still runs
    // returns at once (the running marker keeps its timestamp slot, the new one gets a
    // fresh one), and each marker's timestamp is right. Under validation, so that a slot
    // reset while its timestamp is pending would be reported.
    let options = ContextOptions::from_env().with_profile(true);
    let validated = ContextOptions {
        validation: true,
        ..options.clone()
    };
    let Some(ctx) = Context::with_options(validated)
        .ok()
        .or_else(|| context_with(options))
    else {
        return;
    };
    if !ctx.is_profiling() {
        eprintln!("notice: the device's compute queue has no timestamps; events not timed");
        return;
    }
    let fill = fill_kernel(&ctx);
    let n = N_RERECORD;
    let buf = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.create_stream().unwrap();
    let (t0, e, t1) = (
        Event::create(&ctx).unwrap(),
        Event::create(&ctx).unwrap(),
        Event::create(&ctx).unwrap(),
    );
    let cfg = LaunchConfig::new([n / 256, 1, 1], [256, 1, 1]);
    // The work: a fill and a download; t0 goes out with it, e right after it.
    let work = |k: u32| {
        t0.record_on(&s).unwrap();
        s.launch(
            &fill,
            &cfg,
            &[KernelArg::Buffer(&buf), u32arg(n), u32arg(k)],
        )
        .unwrap();
        let pending = s.download_buffer_async(&buf).unwrap();
        e.record_on(&s).unwrap();
        pending
    };
    // Once to warm up (lavapipe compiles the shader at its first dispatch).
    let mut out = vec![0u8; 4 * n as usize];
    work(4).finish(&mut out).unwrap();
    // Again, moving e's marker (to the stream's next work, t1's) while it runs.
    let pending = work(5);
    let moved = std::time::Instant::now();
    e.record_on(&s).unwrap();
    let rerecord_ms = moved.elapsed().as_secs_f64() * 1e3;
    t1.record_on(&s).unwrap();
    s.sync().unwrap();
    pending.finish(&mut out).unwrap();
    let got = bytes_u32(&out);
    assert!(got.iter().enumerate().all(|(i, &v)| v == 3 * i as u32 + 5));
    // e's new marker and t1 mark the same point, just after the work: t0..e is the work's
    // device time, e..t1 about nothing.
    let work_ms = Event::elapsed_ms(&t0, &e).unwrap();
    let gap = Event::elapsed_ms(&e, &t1).unwrap();
    eprintln!(
        "work {work_ms:.3} ms on the device; re-record {rerecord_ms:.3} ms; e..t1 {gap:.3} ms"
    );
    assert!(
        work_ms > 0.0 && gap >= 0.0 && gap < work_ms,
        "{work_ms} {gap}"
    );
    if work_ms > 20.0 {
        assert!(
            rerecord_ms < work_ms / 4.0,
            "re-recording waited for the marked work: {rerecord_ms} ms of {work_ms} ms"
        );
    } else {
        eprintln!("notice: the work was too short to tell a wait from none");
    }
    drop(e);
    let messages = ctx.validation_messages();
    assert!(messages.is_empty(), "{messages:#?}");
}

/// Elements the re-recording test fills: 16 MiB, long enough on lavapipe (tens of ms) to
/// tell a wait from none.
const N_RERECORD: u32 = 16384 * 256;

#[test]
fn slices_bind_a_range_and_downloads_can_finish_later() {
    let Some(ctx) = context_with(ContextOptions::from_env()) else {
        return;
    };
    let fill = fill_kernel(&ctx);
    let buf = ctx.create_buffer(4 * 1024).unwrap();
    let s = ctx.create_stream().unwrap();
    s.upload_buffer(&buf, &vec![0u8; 4096]).unwrap();
    let err = buf.slice(4000, 100).unwrap_err();
    assert!(err.to_string().contains("out of bounds"), "{err}");
    assert!(buf.slice(0, 0).is_err(), "empty slice");
    let mid = buf.slice(256 * 4, 64 * 4).unwrap();
    assert_eq!(
        (mid.offset(), mid.size(), mid.is_slice()),
        (1024, 256, true)
    );
    s.launch(
        &fill,
        &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&mid), u32arg(64), u32arg(1)],
    )
    .unwrap();
    let whole = s.download_buffer_async(&buf).unwrap();
    let part = s.download_buffer_async(&mid).unwrap();
    let mut out = vec![0u8; 4096];
    whole.finish(&mut out).unwrap();
    let mut mid_out = vec![0u8; 256];
    part.finish(&mut mid_out).unwrap();
    let v = bytes_u32(&out);
    for i in 0..1024u32 {
        let want = if (256..320).contains(&i) {
            3 * (i - 256) + 1
        } else {
            0
        };
        assert_eq!(v[i as usize], want, "buf[{i}]");
    }
    assert_eq!(bytes_u32(&mid_out), v[256..320].to_vec());
}
