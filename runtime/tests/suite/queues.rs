//! Streams on several queue slots: created streams take the slots after the default
//! stream's, events order work across slots through semaphores, and a stream that waited on
//! an event and then went away without work leaves nothing behind.

use crate::common::*;
use cajeta_runtime::*;

/// A validated context (else a plain one) with `queues` queue slots.
fn context_with_queues(queues: usize) -> Option<Context> {
    let validated = ContextOptions {
        validation: true,
        no_host_visible: true,
        ..ContextOptions::from_env().with_queues(queues)
    };
    Context::with_options(validated).ok().or_else(|| {
        context_with(ContextOptions {
            no_host_visible: true,
            ..ContextOptions::from_env().with_queues(queues)
        })
    })
}

#[test]
fn an_event_chain_across_three_streams_on_different_slots_is_exact() {
    let Some(ctx) = context_with_queues(3) else {
        return;
    };
    let fill = fill_kernel(&ctx);
    let add1 = add1_kernel(&ctx);
    let n = 8192u32;
    let bytes = 4 * u64::from(n);
    let (x, y, z) = (
        ctx.create_buffer(bytes).unwrap(),
        ctx.create_buffer(bytes).unwrap(),
        ctx.create_buffer(bytes).unwrap(),
    );
    let s0 = ctx.default_stream();
    let s1 = ctx.create_stream().unwrap();
    let s2 = ctx.create_stream().unwrap();
    let queues = [s0.queue_index(), s1.queue_index(), s2.queue_index()];
    eprintln!("queue indices of the three streams: {queues:?}");
    let cfg = LaunchConfig::new([n / 64, 1, 1], [64, 1, 1]);
    let (e0, e1, e2) = (
        Event::create(&ctx).unwrap(),
        Event::create(&ctx).unwrap(),
        Event::create(&ctx).unwrap(),
    );
    // s0 fills x, s1 adds one into y, s2 adds one into z: each step after the one before,
    // on another slot, ordered only by events.
    s0.launch(&fill, &cfg, &[KernelArg::Buffer(&x), u32arg(n), u32arg(5)])
        .unwrap();
    e0.record_on(&s0).unwrap();
    s1.wait_event(&e0).unwrap();
    s1.launch(
        &add1,
        &cfg,
        &[KernelArg::Buffer(&x), KernelArg::Buffer(&y), u32arg(n)],
    )
    .unwrap();
    e1.record_on(&s1).unwrap();
    s2.wait_event(&e1).unwrap();
    s2.launch(
        &add1,
        &cfg,
        &[KernelArg::Buffer(&y), KernelArg::Buffer(&z), u32arg(n)],
    )
    .unwrap();
    e2.record_on(&s2).unwrap();
    // The download on s0 waits for s2's event on the device, not on the host.
    s0.wait_event(&e2).unwrap();
    let mut out = vec![0u8; bytes as usize];
    s0.download_buffer(&z, &mut out).unwrap();
    let want: Vec<u32> = (0..n).map(|i| 3 * i + 5 + 2).collect();
    assert_eq!(bytes_u32(&out), want);
    assert!(e2.is_complete().unwrap());
    s1.sync().unwrap();
    s2.sync().unwrap();
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}

#[test]
fn independent_streams_on_two_slots_both_finish_exactly() {
    let Some(ctx) = context_with_queues(2) else {
        return;
    };
    let fill = fill_kernel(&ctx);
    let n = 1u32 << 16;
    let bytes = 4 * u64::from(n);
    let a = ctx.create_buffer(bytes).unwrap();
    let b = ctx.create_buffer(bytes).unwrap();
    let s0 = ctx.default_stream();
    let s1 = ctx.create_stream().unwrap();
    let cfg = LaunchConfig::new([n / 64, 1, 1], [64, 1, 1]);
    for k in 0..4 {
        s0.launch(&fill, &cfg, &[KernelArg::Buffer(&a), u32arg(n), u32arg(k)])
            .unwrap();
        s1.launch(
            &fill,
            &cfg,
            &[KernelArg::Buffer(&b), u32arg(n), u32arg(100 + k)],
        )
        .unwrap();
        s0.flush().unwrap();
        s1.flush().unwrap();
    }
    let mut out = vec![0u8; bytes as usize];
    s0.download_buffer(&a, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[n as usize - 1], 3 * (n - 1) + 3);
    s1.download_buffer(&b, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[7], 3 * 7 + 103);
}

#[test]
fn created_streams_take_the_slots_after_the_default_one() {
    let Some(ctx) = context_with_queues(2) else {
        return;
    };
    let s0 = ctx.default_stream();
    let s1 = ctx.create_stream().unwrap();
    let s2 = ctx.create_stream().unwrap();
    // With one queue in the family every slot shares it; with more, created streams run on
    // the second queue.
    assert_eq!(s0.queue_index(), 0);
    assert_eq!(s1.queue_index(), s2.queue_index());
    let single = context_with_queues(1).unwrap();
    assert_eq!(single.create_stream().unwrap().queue_index(), 0);
}

#[test]
fn by_default_three_created_streams_get_three_slots_of_their_own() {
    // The default options (queues 0) give a three-stream pipeline one slot per stream, the
    // default stream's apart; a fourth created stream wraps around to slot 1.
    let Some(ctx) = context_with(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_queues(0)
    }) else {
        return;
    };
    let created: Vec<Stream> = (0..4).map(|_| ctx.create_stream().unwrap()).collect();
    let slots: Vec<usize> = created.iter().map(Stream::queue_slot).collect();
    assert_eq!(ctx.default_stream().queue_slot(), 0);
    assert_eq!(slots, [1, 2, 3, 1]);
    // Slot k is queue k of the family while it has that many (lavapipe has one), else the
    // slots share its queues in turn: with `hw` queues in use, slot k is queue k % hw.
    let indices: Vec<usize> = created.iter().map(|s| s.queue_index() as usize).collect();
    eprintln!("queue indices of four created streams: {indices:?}");
    let hw = 1 + indices.iter().copied().max().unwrap_or(0);
    assert!(hw <= 4, "{indices:?}");
    for (slot, index) in slots.iter().zip(&indices) {
        assert_eq!(*index, slot % hw, "{indices:?}");
    }
}

#[test]
fn a_stream_dropped_after_waiting_on_an_event_cleans_up() {
    let Some(ctx) = context_with_queues(2) else {
        return;
    };
    let fill = fill_kernel(&ctx);
    let buf = ctx.create_buffer(256).unwrap();
    let s0 = ctx.default_stream();
    s0.launch(
        &fill,
        &LaunchConfig::new([1, 1, 1], [64, 1, 1]),
        &[KernelArg::Buffer(&buf), u32arg(64), u32arg(1)],
    )
    .unwrap();
    let e = Event::create(&ctx).unwrap();
    e.record_on(&s0).unwrap();
    {
        let s1 = ctx.create_stream().unwrap();
        s1.wait_event(&e).unwrap();
        // Nothing recorded on s1: the wait is still pending when it goes.
    }
    let mut out = vec![0u8; 256];
    s0.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(bytes_u32(&out)[63], 3 * 63 + 1);
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}
