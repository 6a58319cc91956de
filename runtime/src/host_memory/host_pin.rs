//! Host memory pinned for the device: `cudaHostRegister`'s counterpart. The pages of a host
//! range are imported once as device memory (`VK_EXT_external_memory_host`) and stay
//! page-locked while the [`HostPin`] lives, so every later transfer to or from that range is
//! one device copy at the bus's rate, with no staging copy on the CPU. Importing costs about
//! what one staged transfer of the range does, so it pays from the second transfer of the
//! same memory on; the host executors pin an array at its second large transfer
//! (docs/runtime.md, "Transfers").

use std::sync::Arc;

use ash::vk;

use crate::device::DeviceShared;
use crate::error::{Result, RuntimeError};
use crate::host_alloc::HostAlloc;
use crate::resources::Buffer;
use crate::stream::{CommandId, Stream};
use crate::transfer_import::Imported;
use crate::{lock, Context};

/// A host range imported as device memory (see the module documentation). Dropping it
/// releases the import; every transfer through it has finished by then (they wait).
pub struct HostPin {
    shared: Arc<DeviceShared>,
    source: Pinned,
    start: usize,
    len: usize,
}

/// What makes a pinned range visible to the device.
enum Pinned {
    /// The range's pages, imported (released on drop).
    Imported(Option<Imported>),
    /// Host memory the driver allocated (`Context::alloc_host`): nothing to import; the
    /// range starts at `offset` in its buffer.
    Allocated(Arc<HostAlloc>, u64),
}

impl std::fmt::Debug for HostPin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostPin")
            .field("start", &self.start)
            .field("len", &self.len)
            .finish()
    }
}

impl HostPin {
    /// The pinned range's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the pinned range is empty (never: a pin of nothing is refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `data` lies inside the pinned range.
    pub fn covers(&self, data: &[u8]) -> bool {
        self.offset_of(data.as_ptr(), data.len()).is_some()
    }

    /// Offset of `data` in the import's buffer, when `data` lies inside the pinned range.
    fn offset_of(&self, data: *const u8, len: usize) -> Option<u64> {
        let at = data as usize;
        let inside = at >= self.start && at.checked_add(len)? <= self.start + self.len;
        let base = match &self.source {
            Pinned::Imported(imported) => imported.as_ref()?.offset,
            Pinned::Allocated(_, offset) => *offset,
        };
        inside.then(|| base + (at - self.start) as u64)
    }

    fn buffer(&self) -> vk::Buffer {
        match &self.source {
            Pinned::Imported(imported) => {
                imported.as_ref().map_or(vk::Buffer::null(), |i| i.buffer)
            }
            Pinned::Allocated(alloc, _) => alloc.buffer,
        }
    }

    /// Whether the range is host memory the driver allocated rather than imported pages.
    pub fn is_driver_memory(&self) -> bool {
        matches!(self.source, Pinned::Allocated(..))
    }

    fn check(&self, stream: &Stream, data: *const u8, len: usize) -> Result<u64> {
        if !Arc::ptr_eq(&self.shared, stream.shared()) {
            return Err(RuntimeError::ForeignResource("pinned host memory".into()));
        }
        self.offset_of(data, len).ok_or_else(|| {
            RuntimeError::InvalidResource(format!(
                "{len} bytes at {data:p} are not inside the pinned host range ({} bytes)",
                self.len
            ))
        })
    }
}

impl Drop for HostPin {
    fn drop(&mut self) {
        if let Pinned::Imported(imported) = &mut self.source {
            if let Some(imported) = imported.take() {
                imported.destroy(&self.shared);
            }
        }
    }
}

impl Context {
    /// Pins `len` bytes at `ptr` for direct transfers ([`Stream::upload_buffer_pinned`],
    /// [`Stream::download_buffer_pinned`]); `None` where the device cannot import host memory
    /// (no `VK_EXT_external_memory_host`, or the driver refuses the range). A range inside
    /// host memory this context allocated ([`Context::alloc_host`]) is pinned already: its
    /// pin costs nothing.
    ///
    /// # Safety
    /// The range must be memory of this process that stays allocated, in place, for as long
    /// as the returned pin lives: the device reads and writes those pages directly.
    pub unsafe fn pin_host(&self, ptr: *const u8, len: usize) -> Option<HostPin> {
        // SAFETY: the caller's promise, passed on.
        unsafe { HostPin::new(self.inner.shared.clone(), ptr, len) }
    }
}

impl HostPin {
    /// [`Context::pin_host`] on the device behind `shared` (a stream's, for peer copies).
    ///
    /// # Safety
    /// As [`Context::pin_host`].
    pub(crate) unsafe fn new(
        shared: Arc<DeviceShared>,
        ptr: *const u8,
        len: usize,
    ) -> Option<HostPin> {
        if len == 0 {
            return None;
        }
        if let Some((alloc, offset)) = crate::host_alloc::find(&shared, ptr, len) {
            return Some(HostPin {
                shared,
                source: Pinned::Allocated(alloc, offset),
                start: ptr as usize,
                len,
            });
        }
        let import = shared.host_import.as_ref()?;
        let imported = Imported::new(&shared, import, ptr, len)?;
        Some(HostPin {
            shared,
            source: Pinned::Imported(Some(imported)),
            start: ptr as usize,
            len,
        })
    }
}

impl Stream {
    /// [`Stream::upload_buffer`] from pinned memory: one device copy from `data` (which must
    /// lie inside `pin`) into `buffer`, submitted and waited for, so `data` may change as soon
    /// as this returns.
    pub fn upload_buffer_pinned(
        &self,
        buffer: &Buffer,
        data: &[u8],
        pin: &HostPin,
    ) -> Result<CommandId> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        crate::transfer::check_length("buffer", buffer.size(), data.len())?;
        let src_offset = pin.check(self, data.as_ptr(), data.len())?;
        let mut state = lock(&self.inner.state);
        self.copy_from_host_buffer(
            &mut state,
            buffer,
            pin.buffer(),
            src_offset,
            data.len() as u64,
        )
    }

    /// [`Stream::download_buffer`] into pinned memory: one device copy from `buffer` into
    /// `out` (which must lie inside `pin`), waited for like any download.
    pub fn download_buffer_pinned(
        &self,
        buffer: &Buffer,
        out: &mut [u8],
        pin: &HostPin,
    ) -> Result<()> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        crate::transfer::check_length("buffer", buffer.size(), out.len())?;
        if buffer.memory_kind() != crate::MemoryKind::Device {
            // Host-visible memory is read straight from its mapping, as without a pin.
            return self.download_buffer(buffer, out);
        }
        let dst_offset = pin.check(self, out.as_ptr(), out.len())?;
        self.copy_to_host_buffer(buffer, pin.buffer(), dst_offset, out.len() as u64)
    }
}
