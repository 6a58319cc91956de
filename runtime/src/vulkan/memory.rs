//! Device memory through gpu-allocator: device-local buffers and images, and host-visible
//! staging buffers for uploads and downloads.
//!
//! Staging buffers are owned by the batch whose commands use them (see `stream.rs`), so their
//! memory stays alive until that batch's fence signals.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::lock;

/// What a device's allocator holds at one moment: the soak test samples it to show that
/// device memory does not grow without bound under load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryUsage {
    /// Live allocations (buffers, images, staging areas) sub-allocated from device memory.
    pub live_allocations: usize,
    /// Bytes those allocations take.
    pub allocated_bytes: u64,
    /// Bytes of device memory the allocator holds in blocks (allocated or free).
    pub reserved_bytes: u64,
}

/// The allocator's current [`MemoryUsage`] (zero once the device is shutting down).
pub(crate) fn usage(shared: &DeviceShared) -> MemoryUsage {
    let guard = lock(&shared.allocator);
    let Some(allocator) = guard.as_ref() else {
        return MemoryUsage::default();
    };
    let report = allocator.generate_report();
    MemoryUsage {
        live_allocations: report.allocations.len(),
        allocated_bytes: report.total_allocated_bytes,
        reserved_bytes: report.total_capacity_bytes,
    }
}

/// Allocates memory for `requirements` and hands it back; errors name `what`.
fn allocate(
    shared: &DeviceShared,
    what: &str,
    requirements: vk::MemoryRequirements,
    location: MemoryLocation,
    linear: bool,
) -> Result<Allocation> {
    // A new memory block is a `vkAllocateMemory`: serialized with device creation and
    // pipeline compiles (see `DRIVER_SERIAL`), since a run of the test suite on the H200 with
    // fresh driver caches once stopped with one thread allocating a buffer past 4 GiB inside
    // the driver while another created a device. Taken before the allocator's own lock.
    let _serial = lock(&crate::DRIVER_SERIAL);
    let mut guard = lock(&shared.allocator);
    let Some(allocator) = guard.as_mut() else {
        return Err(RuntimeError::Allocation {
            what: what.into(),
            message: "the context is shutting down".into(),
        });
    };
    allocator
        .allocate(&AllocationCreateDesc {
            name: what,
            requirements,
            location,
            linear,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })
        .map_err(|e| RuntimeError::Allocation {
            what: what.into(),
            message: e.to_string(),
        })
}

/// Returns an allocation to the allocator. Failures are ignored: this runs from `Drop`, and the
/// allocator only fails for allocations it does not know, which cannot happen here.
fn free(shared: &DeviceShared, allocation: Allocation) {
    // Freeing a block is a `vkFreeMemory`: serialized as allocation is.
    let _serial = lock(&crate::DRIVER_SERIAL);
    if let Some(allocator) = lock(&shared.allocator).as_mut() {
        let _ = allocator.free(allocation);
    }
}

/// A `VkBuffer` with its memory. Not `Drop` itself: the owner calls [`RawBuffer::destroy`] with
/// the device, so it can be embedded in structs that already hold the `Arc<DeviceShared>`.
pub(crate) struct RawBuffer {
    pub(crate) buffer: vk::Buffer,
    allocation: Option<Allocation>,
}

impl RawBuffer {
    /// Creates a buffer of `size` bytes with `usage`, in memory suited to `location`.
    pub(crate) fn new(
        shared: &DeviceShared,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        what: &str,
    ) -> Result<RawBuffer> {
        let device = shared.device();
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer =
            unsafe { device.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        let mut raw = RawBuffer {
            buffer,
            allocation: None,
        };
        // SAFETY: `buffer` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
        let result = allocate(shared, what, requirements, location, true).and_then(|allocation| {
            // SAFETY: memory and offset come from an allocation that satisfies `requirements`.
            let bound = unsafe {
                device.bind_buffer_memory(buffer, allocation.memory(), allocation.offset())
            };
            raw.allocation = Some(allocation);
            bound.map_err(vk_err("vkBindBufferMemory"))
        });
        match result {
            Ok(()) => Ok(raw),
            Err(e) => {
                raw.destroy(shared);
                Err(e)
            }
        }
    }

    /// The mapped bytes of a host-visible buffer.
    pub(crate) fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        self.allocation.as_mut().and_then(|a| a.mapped_slice_mut())
    }

    /// The start of the mapping of a host-visible buffer.
    pub(crate) fn mapped_ptr(&self) -> Option<*mut u8> {
        self.allocation
            .as_ref()
            .and_then(|a| a.mapped_ptr())
            .map(|p| p.as_ptr().cast::<u8>())
    }

    /// The mapped bytes of a host-visible buffer.
    pub(crate) fn mapped(&self) -> Option<&[u8]> {
        self.allocation.as_ref().and_then(|a| a.mapped_slice())
    }

    /// Destroys the buffer and frees its memory; the caller guarantees the GPU is done with it.
    pub(crate) fn destroy(&mut self, shared: &DeviceShared) {
        // SAFETY: the owner only calls this once no command buffer uses the buffer any more.
        unsafe { shared.device().destroy_buffer(self.buffer, None) };
        self.buffer = vk::Buffer::null();
        if let Some(allocation) = self.allocation.take() {
            free(shared, allocation);
        }
    }
}

/// A `VkImage` with its memory; destroyed by its owner like [`RawBuffer`].
pub(crate) struct RawImage {
    pub(crate) image: vk::Image,
    allocation: Option<Allocation>,
}

impl RawImage {
    /// Creates an optimal-tiling image from `info` in device-local memory.
    pub(crate) fn new(
        shared: &DeviceShared,
        info: &vk::ImageCreateInfo<'_>,
        what: &str,
    ) -> Result<RawImage> {
        let device = shared.device();
        // SAFETY: valid device and create info.
        let image = unsafe { device.create_image(info, None) }.map_err(vk_err("vkCreateImage"))?;
        let mut raw = RawImage {
            image,
            allocation: None,
        };
        // SAFETY: `image` was just created on this device.
        let requirements = unsafe { device.get_image_memory_requirements(image) };
        let result = allocate(shared, what, requirements, MemoryLocation::GpuOnly, false).and_then(
            |allocation| {
                // SAFETY: memory and offset come from an allocation that satisfies `requirements`.
                let bound = unsafe {
                    device.bind_image_memory(image, allocation.memory(), allocation.offset())
                };
                raw.allocation = Some(allocation);
                bound.map_err(vk_err("vkBindImageMemory"))
            },
        );
        match result {
            Ok(()) => Ok(raw),
            Err(e) => {
                raw.destroy(shared);
                Err(e)
            }
        }
    }

    /// Destroys `view`, then the image and its memory, and drops the image's hazard state: the
    /// teardown shared by storage images and textures. The caller holds the last reference.
    pub(crate) fn destroy_with_view(
        &mut self,
        shared: &DeviceShared,
        view: vk::ImageView,
        id: crate::ResourceId,
    ) {
        // SAFETY: last reference, so no pending command uses the view or the image.
        unsafe { shared.device().destroy_image_view(view, None) };
        self.destroy(shared);
        crate::lock(&shared.tracker).forget(id);
    }

    /// Destroys the image and frees its memory; the caller guarantees the GPU is done with it.
    pub(crate) fn destroy(&mut self, shared: &DeviceShared) {
        // SAFETY: the owner only calls this once no command buffer uses the image any more.
        unsafe { shared.device().destroy_image(self.image, None) };
        self.image = vk::Image::null();
        if let Some(allocation) = self.allocation.take() {
            free(shared, allocation);
        }
    }
}

/// Whether a staging buffer feeds uploads (host writes, `CpuToGpu`) or receives downloads
/// (host reads, `GpuToCpu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StagingKind {
    Upload,
    Download,
}

/// Staging buffers are sized up to a multiple of this, so that similar sizes share buffers.
const STAGING_GRANULE: u64 = 64 * 1024;
/// Most staging buffers a stream keeps for reuse.
const POOL_MAX_BUFFERS: usize = 8;
/// Most bytes of staging buffers a stream keeps for reuse.
const POOL_MAX_BYTES: u64 = 1 << 30;

/// A host-visible buffer for uploads or downloads. A batch that records a copy from or to it
/// keeps an `Arc` until its fence signals; the stream's [`StagingPool`] then takes it back.
pub(crate) struct Staging {
    shared: Arc<DeviceShared>,
    raw: RawBuffer,
    kind: StagingKind,
    /// Capacity in bytes.
    size: u64,
}

impl Staging {
    /// A new staging buffer of at least `size` bytes.
    pub(crate) fn new(shared: &Arc<DeviceShared>, kind: StagingKind, size: u64) -> Result<Staging> {
        let size = size.max(1).div_ceil(STAGING_GRANULE) * STAGING_GRANULE;
        let (usage, location) = match kind {
            StagingKind::Upload => (vk::BufferUsageFlags::TRANSFER_SRC, MemoryLocation::CpuToGpu),
            StagingKind::Download => (vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuToCpu),
        };
        let what = format!("staging buffer of {size} bytes");
        let raw = RawBuffer::new(shared, size, usage, location, &what)?;
        Ok(Staging {
            shared: shared.clone(),
            raw,
            kind,
            size,
        })
    }

    /// Copies `data` to the start of the buffer. gpu-allocator only hands out HOST_COHERENT
    /// memory for `CpuToGpu`, so no flush is needed; `vkQueueSubmit` makes host writes visible
    /// to the device.
    pub(crate) fn write(&mut self, data: &[u8]) -> Result<()> {
        let size = self.size;
        let threads = self.shared.transfer.threads;
        match self.raw.mapped_mut().and_then(|m| m.get_mut(..data.len())) {
            Some(dst) => {
                crate::host_copy::copy(dst, data, threads);
                Ok(())
            }
            None => Err(RuntimeError::Allocation {
                what: format!("upload staging buffer of {size} bytes"),
                message: "memory is not host-mapped or too small".into(),
            }),
        }
    }

    /// The Vulkan buffer.
    pub(crate) fn buffer(&self) -> vk::Buffer {
        self.raw.buffer
    }

    /// Copies the first `out.len()` bytes into `out` (after the download's fence signalled and
    /// its TRANSFER→HOST barrier made the copy visible; the memory is HOST_COHERENT).
    pub(crate) fn read_into(&self, out: &mut [u8]) -> Result<()> {
        match self.raw.mapped().and_then(|m| m.get(..out.len())) {
            Some(src) => {
                crate::host_copy::copy(out, src, self.shared.transfer.threads);
                Ok(())
            }
            None => Err(RuntimeError::Allocation {
                what: format!("download staging buffer of {} bytes", self.size),
                message: "memory is not host-mapped or too small".into(),
            }),
        }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        self.raw.destroy(&self.shared);
    }
}

/// A stream's idle staging buffers, reused by later transfers (best fit by size).
#[derive(Default)]
pub(crate) struct StagingPool {
    free: Vec<Staging>,
}

impl StagingPool {
    /// A staging buffer of `kind` holding at least `size` bytes: the smallest idle one that
    /// fits, or a new one.
    pub(crate) fn take(
        &mut self,
        shared: &Arc<DeviceShared>,
        kind: StagingKind,
        size: u64,
    ) -> Result<Staging> {
        let best = self
            .free
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == kind && s.size >= size)
            .min_by_key(|(_, s)| s.size)
            .map(|(i, _)| i);
        match best {
            Some(i) => Ok(self.free.swap_remove(i)),
            None => Staging::new(shared, kind, size),
        }
    }

    /// Takes back an idle staging buffer, evicting the smallest ones beyond the pool limits.
    pub(crate) fn give(&mut self, staging: Staging) {
        if staging.size > POOL_MAX_BYTES {
            return;
        }
        self.free.push(staging);
        self.free.sort_by_key(|s| std::cmp::Reverse(s.size));
        while self.free.len() > POOL_MAX_BUFFERS
            || self.free.iter().map(|s| s.size).sum::<u64>() > POOL_MAX_BYTES
        {
            self.free.pop();
        }
    }
}
