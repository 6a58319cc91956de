//! Host memory the driver allocates (`Context::alloc_host`, `cudaHostAlloc`'s counterpart)
//! and the global allocator that hands it out for large blocks (`HostMemoryAllocator`,
//! installed in this test binary): zero-filled, byte-exact round trips through plain and
//! pinned transfers (one device copy, no staging), sub-ranges, and the allocator's blocks
//! allocated, grown and freed while a context is provided.

use crate::common::*;
use cajeta_runtime::*;

const CHUNK: u64 = 64 << 10;

/// A context with small transfer chunks, so that megabyte transfers count as large.
fn small_chunk_context() -> Option<Context> {
    context_with(ContextOptions::from_env().with_transfer(TransferOptions {
        chunk_bytes: CHUNK,
        ..TransferOptions::default()
    }))
}

#[test]
fn driver_allocated_host_memory_round_trips_byte_for_byte() {
    let Some(ctx) = small_chunk_context() else {
        return;
    };
    let len = (5 << 20) + 12;
    let Some(alloc) = ctx.alloc_host(len) else {
        assert!(
            !in_ci(),
            "CI's lavapipe has host-cached memory: alloc_host must work"
        );
        return;
    };
    assert_eq!(alloc.len(), len);
    // SAFETY: the allocation is mapped, `len` bytes, and only this test uses it.
    let host = unsafe { std::slice::from_raw_parts_mut(alloc.as_ptr(), len) };
    assert!(host.iter().all(|&b| b == 0), "alloc_host must zero-fill");
    assert!(ctx.is_host_allocated(host.as_ptr(), len));
    assert!(ctx.is_host_allocated(host[7..].as_ptr(), 4096));
    assert!(!ctx.is_host_allocated(host.as_ptr(), len + 1));
    let plain = vec![0u8; len];
    assert!(!ctx.is_host_allocated(plain.as_ptr(), len));

    let s = ctx.default_stream();
    let buf = ctx.create_buffer(len as u64).unwrap();
    for round in 0..3u32 {
        // Upload from driver memory, download into a plain array.
        let data = pattern(len, round + 1);
        host.copy_from_slice(&data);
        s.upload_buffer(&buf, host).unwrap();
        host.fill(0xCD);
        let mut back = vec![0u8; len];
        s.download_buffer(&buf, &mut back).unwrap();
        assert!(
            back == data,
            "round {round}: upload from driver memory changed bytes"
        );
        // Upload from a plain array, download into driver memory.
        let data = pattern(len, round + 11);
        s.upload_buffer(&buf, &data).unwrap();
        s.download_buffer(&buf, host).unwrap();
        assert!(
            *host == data,
            "round {round}: download into driver memory changed bytes"
        );
    }
    // A pin of driver memory is free and works like any pin, on a sub-range too.
    // SAFETY: the allocation outlives the pin.
    let pin = unsafe { ctx.pin_host(host[100..].as_ptr(), len - 100) }.expect("pin");
    assert!(pin.is_driver_memory());
    let part = ctx.create_buffer(1 << 20).unwrap();
    let data = pattern(1 << 20, 77);
    host[100..100 + (1 << 20)].copy_from_slice(&data);
    s.upload_buffer_pinned(&part, &host[100..100 + (1 << 20)], &pin)
        .unwrap();
    let mut back = vec![0u8; 1 << 20];
    s.download_buffer(&part, &mut back).unwrap();
    assert!(back == data);
    host[200..200 + (1 << 20)].fill(0);
    s.download_buffer_pinned(&part, &mut host[200..200 + (1 << 20)], &pin)
        .unwrap();
    assert!(host[200..200 + (1 << 20)] == data[..]);
    drop(pin);
    // Another context's pin of this memory is an import, not driver memory of its own.
    if let Some(other) = context() {
        assert!(!other.is_host_allocated(host.as_ptr(), len));
    }
    assert!(ctx.alloc_host(0).is_none());
}

#[test]
fn the_global_allocator_gives_large_blocks_driver_memory_while_a_context_is_provided() {
    let Some(ctx) = small_chunk_context() else {
        return;
    };
    if ctx.alloc_host(4096).is_none() {
        assert!(
            !in_ci(),
            "CI's lavapipe has host-cached memory: alloc_host must work"
        );
        return;
    }
    let len = 6 << 20;
    provide_host_memory(&ctx, 5 << 20);
    let zeroed = vec![0u32; len / 4];
    let mut filled: Vec<u8> = Vec::with_capacity(len);
    filled.extend(pattern(len, 5));
    let small = vec![1u8; 1 << 20];
    let zeroed_driver = ctx.is_host_allocated(zeroed.as_ptr().cast(), len);
    let filled_driver = ctx.is_host_allocated(filled.as_ptr(), len);
    let small_driver = ctx.is_host_allocated(small.as_ptr(), small.len());
    // Grown past its capacity: the block moves, contents kept.
    let mut grown = filled.clone();
    grown.extend_from_slice(&[9u8; 4096]);
    withdraw_host_memory(&ctx);
    let after = vec![0u8; len];
    assert!(!ctx.is_host_allocated(after.as_ptr(), len));
    if std::env::var("CAJETA_HOST_ALLOC").is_ok_and(|v| v.trim() == "0") {
        return;
    }
    assert!(
        zeroed_driver && filled_driver,
        "large blocks must be driver memory"
    );
    assert!(
        !small_driver,
        "blocks under the threshold stay the system's"
    );
    assert!(zeroed.iter().all(|&x| x == 0));
    assert!(grown[..len] == filled[..] && grown[len..].iter().all(|&b| b == 9));
    // Transfers from and into them are exact.
    let s = ctx.default_stream();
    let buf = ctx.create_buffer(len as u64).unwrap();
    s.upload_buffer(&buf, &filled).unwrap();
    let mut into = zeroed;
    // SAFETY: `into` is `len` bytes of u32s, viewed as bytes for the download.
    let bytes = unsafe { std::slice::from_raw_parts_mut(into.as_mut_ptr().cast::<u8>(), len) };
    s.download_buffer(&buf, bytes).unwrap();
    assert!(*bytes == filled[..]);
    drop(into);
    drop(filled);
    drop(grown);
}
