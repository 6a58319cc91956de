//! Copies from a buffer of one device to a buffer of another (a peer copy), for programs that
//! use several devices at once. Vulkan has no copy between two logical devices, so the bytes
//! go through host memory: one page-aligned staging area that both devices import
//! (`VK_EXT_external_memory_host`), so that each side is one device copy and the CPU copies
//! nothing; where either device cannot import it, the same area is an ordinary download
//! target and upload source (the staged path, one CPU copy each way).

use std::alloc::{alloc_zeroed, dealloc, Layout};

use crate::error::{Result, RuntimeError};
use crate::host_pin::HostPin;
use crate::resources::Buffer;
use crate::stream::Stream;

/// The largest piece a peer copy stages at once: larger buffers go through the one staging
/// area piece by piece, so the host memory a copy needs stays bounded.
pub const PEER_CHUNK_BYTES: u64 = 64 << 20;

/// Alignment (and size granularity) of the staging area: a multiple of every host page size
/// and of the import alignments drivers ask for.
const STAGING_ALIGN: usize = 64 << 10;

/// How a peer copy moved its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerPath {
    /// Host memory both devices imported: two device copies, no CPU copy.
    Imported,
    /// Mapped staging on each device and a CPU copy each way (a device without
    /// `VK_EXT_external_memory_host`, or a driver that refused the import).
    Staged,
}

/// Page-aligned host memory owned by one peer copy.
struct Staging {
    ptr: *mut u8,
    layout: Layout,
}

impl Staging {
    fn new(len: usize) -> Result<Staging> {
        let size = len.div_ceil(STAGING_ALIGN).max(1) * STAGING_ALIGN;
        let layout = Layout::from_size_align(size, STAGING_ALIGN)
            .map_err(|e| RuntimeError::InvalidResource(format!("peer staging: {e}")))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(RuntimeError::InvalidResource(format!(
                "peer staging: cannot allocate {size} bytes of host memory"
            )));
        }
        Ok(Staging { ptr, layout })
    }

    fn bytes(&mut self, len: usize) -> &mut [u8] {
        // SAFETY: `ptr` holds `layout.size()` initialized bytes, owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, len.min(self.layout.size())) }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

impl Stream {
    /// Whether `buffer` belongs to this stream's device (a stream may only use those).
    pub fn owns(&self, buffer: &Buffer) -> bool {
        std::sync::Arc::ptr_eq(&buffer.inner.shared, self.shared())
    }
}

/// Copies all of `src` (on `src_stream`'s device) into `dst` (on `dst_stream`'s device), which
/// must have the same size. Ordered after the work recorded on both streams before it, and
/// finished when it returns (both sides are waited for), so either buffer may be used at
/// once. The two streams may belong to the same device.
pub fn copy_buffer_peer(
    src_stream: &Stream,
    src: &Buffer,
    dst_stream: &Stream,
    dst: &Buffer,
) -> Result<PeerPath> {
    src_stream.check_owner(&src.inner.shared, "source buffer")?;
    dst_stream.check_owner(&dst.inner.shared, "destination buffer")?;
    if src.size() != dst.size() {
        return Err(RuntimeError::InvalidResource(format!(
            "peer copy of {} bytes into a buffer of {} bytes (the sizes must be equal)",
            src.size(),
            dst.size()
        )));
    }
    let total = src.size();
    let chunk = total.min(PEER_CHUNK_BYTES) as usize;
    let mut staging = Staging::new(chunk)?;
    let area = staging.layout.size();
    // SAFETY: the staging area stays allocated, in place, until after both pins are dropped
    // (they are declared after it, so dropped first).
    let pins = unsafe {
        (
            HostPin::new(src_stream.shared().clone(), staging.ptr, area),
            HostPin::new(dst_stream.shared().clone(), staging.ptr, area),
        )
    };
    let mut offset = 0;
    while offset < total {
        let len = (total - offset).min(chunk as u64);
        let (from, to) = (src.slice(offset, len)?, dst.slice(offset, len)?);
        let bytes = staging.bytes(len as usize);
        match &pins {
            (Some(a), Some(b)) => {
                src_stream.download_buffer_pinned(&from, bytes, a)?;
                dst_stream.upload_buffer_pinned(&to, bytes, b)?;
            }
            _ => {
                src_stream.download_buffer(&from, bytes)?;
                dst_stream.upload_buffer(&to, bytes)?;
                // The upload may only have staged the bytes: finish it before they change.
                dst_stream.sync()?;
            }
        }
        offset += len;
    }
    Ok(match pins {
        (Some(_), Some(_)) => PeerPath::Imported,
        _ => PeerPath::Staged,
    })
}
