//! Copies between two devices (`copy_buffer_peer`): two contexts on the one test device are
//! two logical devices that share nothing, which is what a peer copy between two GPUs needs.
//! Byte-exact through the imported path (host memory both devices import), through the
//! staged fallback (a device without `VK_EXT_external_memory_host`), across more than one
//! staging piece, and misuse refused by name.

use crate::common::*;
use cajeta_runtime::*;

/// A pattern no two nearby bytes share, so a misplaced piece shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// Uploads `data` into a new buffer of `ctx`.
fn filled(ctx: &Context, data: &[u8]) -> Buffer {
    let b = ctx.create_buffer(data.len() as u64).unwrap();
    ctx.default_stream().upload_buffer(&b, data).unwrap();
    b
}

fn copy_between(a: &Context, b: &Context, len: usize) -> PeerPath {
    let data = pattern(len);
    let src = filled(a, &data);
    let dst = b.create_buffer(len as u64).unwrap();
    let path = copy_buffer_peer(&a.default_stream(), &src, &b.default_stream(), &dst).unwrap();
    let mut out = vec![0u8; len];
    b.default_stream().download_buffer(&dst, &mut out).unwrap();
    assert!(
        out == data,
        "peer copy of {len} bytes ({path:?}) changed the bytes"
    );
    path
}

#[test]
fn a_peer_copy_between_two_contexts_is_byte_exact_through_imported_memory() {
    let (Some(a), Some(b)) = (context(), context()) else {
        return;
    };
    let imports = a
        .device_info()
        .extensions
        .iter()
        .any(|e| e == "VK_EXT_external_memory_host");
    let path = copy_between(&a, &b, (1 << 20) + 12);
    assert_eq!(path == PeerPath::Imported, imports, "{path:?}");
    assert!(imports || !in_ci(), "CI's lavapipe imports host memory");
    // Both directions, and within one context.
    copy_between(&b, &a, 4096);
    copy_between(&a, &a, 4096);
}

#[test]
fn without_host_import_a_peer_copy_is_staged_and_still_exact() {
    let staged = ContextOptions {
        no_host_import: true,
        no_host_visible: true,
        ..ContextOptions::from_env()
    };
    let (Some(a), Some(b)) = (context(), context_with(staged)) else {
        return;
    };
    assert_eq!(copy_between(&a, &b, 300_000), PeerPath::Staged);
    assert_eq!(copy_between(&b, &a, 300_000), PeerPath::Staged);
}

#[test]
fn a_peer_copy_larger_than_one_staging_piece_is_exact() {
    let (Some(a), Some(b)) = (context(), context()) else {
        return;
    };
    copy_between(&a, &b, PEER_CHUNK_BYTES as usize + 65_540);
}

#[test]
fn a_peer_copy_refuses_other_sizes_and_foreign_streams() {
    let (Some(a), Some(b)) = (context(), context()) else {
        return;
    };
    let src = a.create_buffer(256).unwrap();
    let dst = b.create_buffer(512).unwrap();
    let e = copy_buffer_peer(&a.default_stream(), &src, &b.default_stream(), &dst).unwrap_err();
    assert!(e.to_string().contains("sizes must be equal"), "{e}");
    let dst = b.create_buffer(256).unwrap();
    // The destination's stream given for the source.
    let e = copy_buffer_peer(&b.default_stream(), &src, &b.default_stream(), &dst).unwrap_err();
    assert!(
        e.to_string()
            .contains("source buffer belongs to a different Context"),
        "{e}"
    );
}

#[test]
fn a_sibling_context_is_another_device_with_the_same_options() {
    let Some(a) = context() else {
        return;
    };
    let b = a.sibling(Some(a.device_info().index.to_string())).unwrap();
    assert_eq!(b.options().no_host_visible, a.options().no_host_visible);
    assert_eq!(b.device_info().name, a.device_info().name);
    let src = filled(&a, &[1, 2, 3, 4]);
    // A buffer of one is foreign to the other's stream.
    let mut out = [0u8; 4];
    assert!(b.default_stream().download_buffer(&src, &mut out).is_err());
}
