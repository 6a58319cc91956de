//! Pipelined (chunked) buffer transfers, with a 64 KiB chunk so small buffers cross many
//! chunk boundaries: every byte compared, odd sizes, slices, a kernel between the transfers,
//! the barrier log (one barrier per transfer, not per chunk) and async downloads.

use crate::common::*;
use cajeta_runtime::*;

const CHUNK: usize = 64 * 1024;

/// A context with uploads always staged and a 64 KiB chunk, a ring of `ring` staging buffers
/// and `threads` copy threads.
fn chunked_context(ring: usize, threads: usize) -> Option<Context> {
    context_with(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_transfer(TransferOptions {
            chunk_bytes: CHUNK as u64,
            ring_depth: ring,
            threads,
            pipelined: true,
            import_host: false,
        })
    })
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

#[test]
fn odd_sizes_round_trip_byte_for_byte() {
    for (ring, threads) in [(2, 1), (4, 3)] {
        let Some(ctx) = chunked_context(ring, threads) else {
            return;
        };
        let s = ctx.default_stream();
        // Below, at and past one chunk; not a multiple of the chunk; odd; past the size
        // where host copies go parallel (4 MiB).
        for (k, len) in [
            4,
            CHUNK,
            CHUNK + 4,
            3 * CHUNK + 8,
            10 * CHUNK + 1,
            (5 << 20) + 3,
        ]
        .into_iter()
        .enumerate()
        {
            let buf = ctx.create_buffer(len as u64).unwrap();
            let data = pattern(len, k as u32 + 1);
            s.upload_buffer(&buf, &data).unwrap();
            let mut out = vec![0u8; len];
            s.download_buffer(&buf, &mut out).unwrap();
            assert_eq!(
                first_difference(&out, &data),
                None,
                "{len} bytes, ring {ring}, {threads} threads"
            );
            // An upload over one that may still be in flight, then a download: stream order.
            let again = pattern(len, k as u32 + 100);
            s.upload_buffer(&buf, &data).unwrap();
            s.upload_buffer(&buf, &again).unwrap();
            s.download_buffer(&buf, &mut out).unwrap();
            assert_eq!(first_difference(&out, &again), None, "{len} bytes again");
        }
    }
}

#[test]
fn kernel_between_chunked_transfers_sees_the_data_with_one_barrier_each() {
    let Some(ctx) = chunked_context(3, 2) else {
        return;
    };
    let add1 = add1_kernel(&ctx);
    let n = (7 * CHUNK / 4 + 13) as u32; // words: 7 chunks and a bit
    let x = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let y = ctx.create_buffer(4 * u64::from(n)).unwrap();
    let s = ctx.default_stream();
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let up = s.upload_buffer(&x, &u32_bytes(&input)).unwrap();
    let cfg = LaunchConfig::new([n.div_ceil(64), 1, 1], [64, 1, 1]);
    let launch = s
        .launch(
            &add1,
            &cfg,
            &[KernelArg::Buffer(&x), KernelArg::Buffer(&y), u32arg(n)],
        )
        .unwrap();
    assert!(up < launch);
    let mut out = vec![0u8; 4 * n as usize];
    s.download_buffer(&y, &mut out).unwrap();
    let want: Vec<u32> = input.iter().map(|v| v.wrapping_add(1)).collect();
    assert!(bytes_u32(&out) == want, "add1 over a chunked upload");
    let log = ctx.barrier_log();
    let on = |id: ResourceId| log.iter().filter(move |r| r.resource == id).count();
    assert_eq!(on(x.id()), 1, "{log:#?}");
    assert_eq!(on(y.id()), 1, "{log:#?}");
    let raw = log.iter().find(|r| r.resource == x.id()).unwrap();
    assert_eq!(
        (raw.hazard, raw.before, raw.src_stage.as_str()),
        (Hazard::ReadAfterWrite, launch, "TRANSFER")
    );
    let down = log.iter().find(|r| r.resource == y.id()).unwrap();
    assert_eq!(
        (
            down.hazard,
            down.before_label.as_str(),
            down.src_access.as_str()
        ),
        (Hazard::ReadAfterWrite, "download", "SHADER_WRITE")
    );
}

#[test]
fn slices_transfer_only_their_bytes() {
    let Some(ctx) = chunked_context(2, 2) else {
        return;
    };
    let s = ctx.default_stream();
    let len = 9 * CHUNK + 100;
    let buf = ctx.create_buffer(len as u64).unwrap();
    let base = pattern(len, 7);
    s.upload_buffer(&buf, &base).unwrap();
    let (offset, count) = (CHUNK / 2 + 3, 5 * CHUNK + 17);
    let slice = buf.slice(offset as u64, count as u64).unwrap();
    let part = pattern(count, 8);
    s.upload_buffer(&slice, &part).unwrap();
    let mut whole = vec![0u8; len];
    s.download_buffer(&buf, &mut whole).unwrap();
    let mut want = base.clone();
    want[offset..offset + count].copy_from_slice(&part);
    assert_eq!(first_difference(&whole, &want), None);
    let mut back = vec![0u8; count];
    s.download_buffer(&slice, &mut back).unwrap();
    assert_eq!(first_difference(&back, &part), None);
    let mut wrong = vec![0u8; count + 1];
    assert!(matches!(
        s.download_buffer(&slice, &mut wrong),
        Err(RuntimeError::LengthMismatch { .. })
    ));
}

#[test]
fn async_download_after_chunked_upload_lands_at_finish() {
    let Some(ctx) = chunked_context(2, 2) else {
        return;
    };
    let s = ctx.default_stream();
    let len = 6 * CHUNK + 5;
    let buf = ctx.create_buffer(len as u64).unwrap();
    let data = pattern(len, 3);
    s.upload_buffer(&buf, &data).unwrap();
    let pending = s.download_buffer_async(&buf).unwrap();
    // The buffer is overwritten after the async download was recorded: it must still see
    // the first contents.
    s.upload_buffer(&buf, &pattern(len, 4)).unwrap();
    let mut out = vec![0u8; len];
    pending.finish(&mut out).unwrap();
    assert_eq!(first_difference(&out, &data), None);
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(first_difference(&out, &pattern(len, 4)), None);
}

#[test]
fn unpipelined_option_gives_the_same_bytes() {
    let Some(ctx) = context_with(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_transfer(TransferOptions {
            chunk_bytes: CHUNK as u64,
            pipelined: false,
            ..TransferOptions::default()
        })
    }) else {
        return;
    };
    let s = ctx.default_stream();
    let len = 4 * CHUNK + 9;
    let buf = ctx.create_buffer(len as u64).unwrap();
    let data = pattern(len, 11);
    s.upload_buffer(&buf, &data).unwrap();
    let mut out = vec![0u8; len];
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(first_difference(&out, &data), None);
}

#[test]
fn direct_writes_into_host_visible_memory_copy_in_parallel() {
    // Where device memory is host-visible (lavapipe, ReBAR), an idle buffer is written
    // straight through its mapping, split over the copy threads.
    let Some(ctx) = context_with(ContextOptions::from_env().with_transfer(TransferOptions {
        threads: 3,
        ..TransferOptions::default()
    })) else {
        return;
    };
    let s = ctx.default_stream();
    let len = (6 << 20) + 7;
    let buf = ctx.create_buffer(len as u64).unwrap();
    let data = pattern(len, 21);
    s.upload_buffer(&buf, &data).unwrap();
    let mut out = vec![0u8; len];
    s.download_buffer(&buf, &mut out).unwrap();
    assert_eq!(first_difference(&out, &data), None);
}

#[test]
fn imported_host_arrays_transfer_exactly_where_the_device_allows() {
    // `VK_EXT_external_memory_host` (lavapipe has it): arrays at odd addresses and of odd
    // sizes, imported page-wise; a device without it stages, with the same bytes.
    let Some(ctx) = context_with(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_transfer(TransferOptions {
            chunk_bytes: CHUNK as u64,
            import_host: true,
            ..TransferOptions::default()
        })
    }) else {
        return;
    };
    let s = ctx.default_stream();
    let add1 = add1_kernel(&ctx);
    for (k, len) in [CHUNK + 4, 5 * CHUNK + 12, (3 << 20) + 4]
        .into_iter()
        .enumerate()
    {
        // A sub-slice 3 bytes into a larger allocation: never page-aligned.
        let backing = pattern(len + 64, k as u32 + 40);
        let data = &backing[3..3 + len];
        let buf = ctx.create_buffer(len as u64).unwrap();
        s.upload_buffer(&buf, data).unwrap();
        let mut back = vec![0u8; len + 64];
        s.download_buffer(&buf, &mut back[5..5 + len]).unwrap();
        assert_eq!(
            first_difference(&back[5..5 + len], data),
            None,
            "{len} bytes"
        );
        assert!(back[..5].iter().all(|&b| b == 0), "bytes before the target");
        assert!(
            back[5 + len..].iter().all(|&b| b == 0),
            "bytes after the target"
        );
        // The device sees the imported upload: add one to every word.
        let n = (len / 4) as u32;
        let y = ctx.create_buffer(len as u64).unwrap();
        s.launch(
            &add1,
            &LaunchConfig::new([n.div_ceil(64), 1, 1], [64, 1, 1]),
            &[KernelArg::Buffer(&buf), KernelArg::Buffer(&y), u32arg(n)],
        )
        .unwrap();
        let mut out = vec![0u8; len];
        s.download_buffer(&y, &mut out).unwrap();
        let want: Vec<u32> = bytes_u32(&data[..4 * n as usize])
            .iter()
            .map(|v| v.wrapping_add(1))
            .collect();
        assert!(bytes_u32(&out[..4 * n as usize]) == want, "{len} bytes + 1");
    }
}
