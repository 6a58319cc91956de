//! Transfers straight from / to the host array (`VK_EXT_external_memory_host`): the pages
//! that hold the array are imported as device memory, bound to a temporary buffer, and the
//! device copies between it and the target buffer, with no host copy at all. The call waits
//! for the copy, since the array is only borrowed. Used for large transfers when
//! [`crate::TransferOptions::import_host`] is on and the device has the extension; any
//! failure to import falls back to the staged paths.
//!
//! Importing needs a pointer and size aligned to `minImportedHostPointerAlignment`: the
//! import covers the whole pages around the array (pages of this process, mapped as long as
//! the array is); the device only touches the array's own bytes.

use ash::vk;

use crate::batch::Batches;
use crate::device::DeviceShared;
use crate::error::Result;
use crate::lock;
use crate::profile::ProfileKind;
use crate::resources::Buffer;
use crate::stream::{CommandId, Stream};
use crate::sync::{Handle, Usage};

const HANDLE: vk::ExternalMemoryHandleTypeFlags =
    vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;

/// The extension's entry points and the import alignment.
pub(crate) struct HostImport {
    fns: ash::ext::external_memory_host::Device,
    alignment: u64,
    /// Property flags of each memory type, to prefer host-coherent ones (the host reads and
    /// writes the array through its own pointer, never through a mapping to flush).
    type_flags: Vec<vk::MemoryPropertyFlags>,
}

impl HostImport {
    /// Loads the extension's functions (the caller enabled it) and reads the alignment.
    pub(crate) fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
    ) -> HostImport {
        let mut host = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut host);
        // SAFETY: valid physical device; the chain outlives the call.
        unsafe { instance.get_physical_device_properties2(physical, &mut props) };
        let alignment = host.min_imported_host_pointer_alignment.max(4096);
        // SAFETY: valid physical device.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let type_flags = memory
            .memory_types_as_slice()
            .iter()
            .map(|t| t.property_flags)
            .collect();
        HostImport {
            fns: ash::ext::external_memory_host::Device::new(instance, device),
            alignment,
            type_flags,
        }
    }
}

/// A host range imported as device memory and bound to a buffer.
pub(crate) struct Imported {
    pub(crate) buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// Offset of the array's first byte in the buffer.
    pub(crate) offset: u64,
}

impl Imported {
    /// Imports the pages around `ptr .. ptr + len`; `None` when the device refuses (the caller
    /// then stages).
    pub(crate) fn new(
        shared: &DeviceShared,
        import: &HostImport,
        ptr: *const u8,
        len: usize,
    ) -> Option<Self> {
        let device = shared.device();
        let a = import.alignment as usize;
        let start = (ptr as usize) / a * a;
        let end = (ptr as usize + len).div_ceil(a) * a;
        let size = (end - start) as u64;
        let mut props = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: the range is mapped memory of this process (the pages of a live slice).
        unsafe {
            (import.fns.fp().get_memory_host_pointer_properties_ext)(
                device.handle(),
                HANDLE,
                start as *const std::ffi::c_void,
                &mut props,
            )
        }
        .result()
        .ok()?;
        let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(HANDLE);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: valid device and create info.
        let buffer = unsafe { device.create_buffer(&info, None) }.ok()?;
        // SAFETY: just created.
        let req = unsafe { device.get_buffer_memory_requirements(buffer) };
        let bits = req.memory_type_bits & props.memory_type_bits;
        // Host-coherent, and cached where offered: the pages are ordinary cached memory of
        // this process (what CUDA's pinned memory is), which the host reads back after a
        // download.
        let with = |flags: vk::MemoryPropertyFlags| {
            (0..32u32).find(|&i| {
                bits & (1 << i) != 0
                    && import
                        .type_flags
                        .get(i as usize)
                        .is_some_and(|f| f.contains(flags))
            })
        };
        let coherent =
            with(vk::MemoryPropertyFlags::HOST_COHERENT | vk::MemoryPropertyFlags::HOST_CACHED)
                .or_else(|| with(vk::MemoryPropertyFlags::HOST_COHERENT));
        let destroy_buffer = || {
            // SAFETY: never used by the device.
            unsafe { device.destroy_buffer(buffer, None) }
        };
        let Some(memory_type) = coherent.filter(|_| req.size <= size) else {
            destroy_buffer();
            return None;
        };
        let mut import_info = vk::ImportMemoryHostPointerInfoEXT::default()
            .handle_type(HANDLE)
            .host_pointer(start as *mut std::ffi::c_void);
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(size)
            .memory_type_index(memory_type)
            .push_next(&mut import_info);
        // SAFETY: valid device; the pointer and size are aligned as the extension requires.
        let memory = match unsafe { device.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(_) => {
                destroy_buffer();
                return None;
            }
        };
        // SAFETY: memory made for this buffer's requirements.
        if unsafe { device.bind_buffer_memory(buffer, memory, 0) }.is_err() {
            // SAFETY: neither is in use.
            unsafe {
                device.destroy_buffer(buffer, None);
                device.free_memory(memory, None);
            }
            return None;
        }
        Some(Imported {
            buffer,
            memory,
            offset: ptr as u64 - start as u64,
        })
    }

    /// Destroys buffer and memory; the caller waited for every command that used them.
    pub(crate) fn destroy(self, shared: &DeviceShared) {
        let device = shared.device();
        // SAFETY: no pending command uses them (caller).
        unsafe {
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }
}

impl Stream {
    /// Uploads `data` into `buffer` from the imported array; `Ok(None)` when the import is
    /// refused (nothing recorded: the caller stages instead).
    pub(crate) fn upload_imported(
        &self,
        state: &mut Batches,
        buffer: &Buffer,
        data: &[u8],
    ) -> Result<Option<CommandId>> {
        let shared = self.shared().clone();
        let Some(import) = shared
            .host_import
            .as_ref()
            .filter(|_| shared.transfer.import_host)
        else {
            return Ok(None);
        };
        let Some(imported) = Imported::new(&shared, import, data.as_ptr(), data.len()) else {
            return Ok(None);
        };
        let id = self.copy_from_host_buffer(
            state,
            buffer,
            imported.buffer,
            imported.offset,
            data.len() as u64,
        );
        imported.destroy(&shared);
        id.map(Some)
    }

    /// Downloads `buffer` into the imported `out`; `Ok(false)` when the import is refused.
    /// Reports as `sync()` does.
    pub(crate) fn download_imported(&self, buffer: &Buffer, out: &mut [u8]) -> Result<bool> {
        let shared = self.shared().clone();
        let Some(import) = shared
            .host_import
            .as_ref()
            .filter(|_| shared.transfer.import_host)
        else {
            return Ok(false);
        };
        let Some(imported) = Imported::new(&shared, import, out.as_ptr(), out.len()) else {
            return Ok(false);
        };
        let copied =
            self.copy_to_host_buffer(buffer, imported.buffer, imported.offset, out.len() as u64);
        imported.destroy(&shared);
        copied.map(|()| true)
    }

    /// One device copy of `len` bytes from offset `src_offset` of `src` (host memory the
    /// device reads directly: an import or a pin) into `buffer`, submitted and waited for.
    pub(crate) fn copy_from_host_buffer(
        &self,
        state: &mut Batches,
        buffer: &Buffer,
        src: vk::Buffer,
        src_offset: u64,
        len: u64,
    ) -> Result<CommandId> {
        let dst = buffer.inner.raw.buffer;
        let usage = Usage::transfer_write(buffer.id(), Handle::Buffer(dst));
        let region = vk::BufferCopy {
            src_offset,
            dst_offset: buffer.offset(),
            size: len,
        };
        self.run_imported(state, usage, "upload", len, |device, cmd| {
            // SAFETY: recording state; both buffers outlive the wait inside run_imported.
            unsafe { device.cmd_copy_buffer(cmd, src, dst, &[region]) }
        })
    }

    /// One device copy of `buffer` into `dst` at `dst_offset` (host memory the device writes
    /// directly), made visible to the host, submitted and waited for; reports as `sync()`.
    pub(crate) fn copy_to_host_buffer(
        &self,
        buffer: &Buffer,
        dst: vk::Buffer,
        dst_offset: u64,
        len: u64,
    ) -> Result<()> {
        let src = buffer.inner.raw.buffer;
        let usage = Usage::transfer_read(buffer.id(), Handle::Buffer(src));
        let region = vk::BufferCopy {
            src_offset: buffer.offset(),
            dst_offset,
            size: len,
        };
        let mut state = lock(&self.inner.state);
        self.run_imported(&mut state, usage, "download", len, |device, cmd| {
            let to_host = vk::BufferMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(dst)
                .offset(0)
                .size(vk::WHOLE_SIZE);
            // SAFETY: recording state; both buffers outlive the wait inside run_imported.
            unsafe {
                device.cmd_copy_buffer(cmd, src, dst, &[region]);
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[to_host],
                    &[],
                );
            }
        })?;
        state.sync()
    }

    /// Records the tracker's barriers and `copy` into the stream, submits and waits for it.
    fn run_imported(
        &self,
        state: &mut Batches,
        usage: Usage,
        label: &'static str,
        bytes: u64,
        copy: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<CommandId> {
        let shared = self.shared();
        let batch = state.ensure_recording()?;
        let timed = batch.timestamp_begin(shared)?;
        let id = CommandId(shared.next_command_id());
        let barriers = lock(&shared.tracker).plan(id, label, &[usage]);
        let device = shared.device();
        batch.record_barriers(device, &barriers);
        copy(device, batch.cmd);
        let kind = if label == "upload" {
            ProfileKind::Upload
        } else {
            ProfileKind::Download
        };
        batch.timestamp_end(device, timed, kind, label, bytes);
        batch.commands += 1;
        let seq = state.flush()?;
        state.wait_seq(seq)?;
        Ok(id)
    }
}
