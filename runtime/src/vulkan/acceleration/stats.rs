//! What is measured after a build: the compacted and serialized sizes the device reports
//! (`vkCmdWriteAccelerationStructuresPropertiesKHR`), and the header of the structure
//! serialized once (`vkCmdCopyAccelerationStructureToMemoryKHR`), checked against the
//! device with `vkGetDeviceAccelerationStructureCompatibilityKHR`.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::{AccelLevel, AccelSupport};
use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::memory::RawBuffer;

/// The serialized header's fixed part: driver UUID, compatibility UUID, serialized size,
/// deserialized size, handle count.
const HEADER_BYTES: usize = 16 + 16 + 8 + 8 + 8;

/// The header of a serialized acceleration structure, as the Vulkan specification lays it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerializedHeader {
    /// The driver that serialized it (`driverUUID`).
    pub driver_uuid: [u8; 16],
    /// The compatibility UUID: which drivers can deserialize it.
    pub compatibility_uuid: [u8; 16],
    /// Total bytes of the serialized form, header included.
    pub serialized_size: u64,
    /// Bytes the structure needs when deserialized.
    pub deserialized_size: u64,
    /// The bottom-level handles a top-level structure lists (their device addresses; none for
    /// a bottom-level structure). The specification leaves their number and order to the
    /// implementation.
    pub bottom_level_handles: Vec<u64>,
    /// Whether the device reports the header compatible with itself
    /// (`VK_ACCELERATION_STRUCTURE_COMPATIBILITY_COMPATIBLE_KHR`).
    pub compatible: bool,
}

/// What the build and the queries after it measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccelStats {
    /// Bottom or top level.
    pub level: AccelLevel,
    /// Triangles, boxes or instances built.
    pub primitive_count: u32,
    /// `accelerationStructureSize`: the bytes of device memory the structure occupies.
    pub build_size: u64,
    /// `buildScratchSize`: the scratch the build used.
    pub scratch_size: u64,
    /// Bytes after compaction (`VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR`).
    pub compacted_size: u64,
    /// Bytes when serialized (`VK_QUERY_TYPE_ACCELERATION_STRUCTURE_SERIALIZATION_SIZE_KHR`).
    pub serialization_size: u64,
    /// The serialized form's header.
    pub serialized: SerializedHeader,
    /// The device's own `driverUUID`, to compare with the header's.
    pub device_driver_uuid: [u8; 16],
}

impl AccelStats {
    /// The sizes known before the build; the queries fill in the rest.
    pub(crate) fn new(
        level: AccelLevel,
        primitive_count: u32,
        sizes: &vk::AccelerationStructureBuildSizesInfoKHR<'_>,
        support: &AccelSupport,
    ) -> AccelStats {
        AccelStats {
            level,
            primitive_count,
            build_size: sizes.acceleration_structure_size,
            scratch_size: sizes.build_scratch_size,
            compacted_size: 0,
            serialization_size: 0,
            serialized: SerializedHeader {
                driver_uuid: [0; 16],
                compatibility_uuid: [0; 16],
                serialized_size: 0,
                deserialized_size: 0,
                bottom_level_handles: Vec::new(),
                compatible: false,
            },
            device_driver_uuid: support.driver_uuid,
        }
    }
}

/// One query pool per property asked (a pool holds queries of one type).
pub(crate) struct SizeQueries<'a> {
    shared: &'a DeviceShared,
    compacted: vk::QueryPool,
    serialization: vk::QueryPool,
}

impl<'a> SizeQueries<'a> {
    pub(crate) fn new(shared: &'a DeviceShared) -> Result<SizeQueries<'a>> {
        let mut q = SizeQueries {
            shared,
            compacted: vk::QueryPool::null(),
            serialization: vk::QueryPool::null(),
        };
        for (pool, ty) in [
            (
                &mut q.compacted,
                vk::QueryType::ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR,
            ),
            (
                &mut q.serialization,
                vk::QueryType::ACCELERATION_STRUCTURE_SERIALIZATION_SIZE_KHR,
            ),
        ] {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(ty)
                .query_count(1);
            // SAFETY: valid device and create info; the extension is enabled.
            *pool = unsafe { shared.device().create_query_pool(&info, None) }
                .map_err(vk_err("vkCreateQueryPool"))?;
        }
        Ok(q)
    }

    /// Resets both queries (before the build, in the same command buffer).
    ///
    /// # Safety
    /// `cmd` is recording.
    pub(crate) unsafe fn reset(&self, device: &ash::Device, cmd: vk::CommandBuffer) {
        // SAFETY: upheld by the caller.
        unsafe {
            device.cmd_reset_query_pool(cmd, self.compacted, 0, 1);
            device.cmd_reset_query_pool(cmd, self.serialization, 0, 1);
        }
    }

    /// Writes both properties of `handle` (after the build and its barrier).
    ///
    /// # Safety
    /// `cmd` is recording and `handle` built by an earlier command of it.
    pub(crate) unsafe fn record(
        &self,
        loader: &ash::khr::acceleration_structure::Device,
        cmd: vk::CommandBuffer,
        handle: vk::AccelerationStructureKHR,
    ) {
        // SAFETY: upheld by the caller.
        unsafe {
            loader.cmd_write_acceleration_structures_properties(
                cmd,
                &[handle],
                vk::QueryType::ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR,
                self.compacted,
                0,
            );
            loader.cmd_write_acceleration_structures_properties(
                cmd,
                &[handle],
                vk::QueryType::ACCELERATION_STRUCTURE_SERIALIZATION_SIZE_KHR,
                self.serialization,
                0,
            );
        }
    }

    /// Reads the results into `stats` (after the submission's fence).
    pub(crate) fn read(&self, shared: &DeviceShared, stats: &mut AccelStats) -> Result<()> {
        for (pool, out) in [
            (self.compacted, &mut stats.compacted_size),
            (self.serialization, &mut stats.serialization_size),
        ] {
            let mut value = [0u64; 1];
            // SAFETY: the query was written by a submission that has completed.
            unsafe {
                shared.device().get_query_pool_results(
                    pool,
                    0,
                    &mut value,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .map_err(vk_err("vkGetQueryPoolResults"))?;
            *out = value[0];
        }
        Ok(())
    }
}

impl Drop for SizeQueries<'_> {
    fn drop(&mut self) {
        // SAFETY: the submission using them has completed (or never ran); null is allowed.
        unsafe {
            self.shared
                .device()
                .destroy_query_pool(self.compacted, None);
            self.shared
                .device()
                .destroy_query_pool(self.serialization, None);
        }
    }
}

/// Serializes `handle` into a host-visible buffer and reads its header into `stats`.
pub(crate) fn serialize(
    shared: &DeviceShared,
    support: &AccelSupport,
    handle: vk::AccelerationStructureKHR,
    stats: &mut AccelStats,
) -> Result<()> {
    let size = stats.serialization_size;
    if size < HEADER_BYTES as u64 {
        return Err(RuntimeError::InvalidResource(format!(
            "the device reports a serialization size of {size} bytes, less than the {HEADER_BYTES}-byte header"
        )));
    }
    // The copy's destination address must be 256-byte aligned.
    const ALIGN: u64 = 256;
    let mut raw = RawBuffer::new(
        shared,
        size + ALIGN,
        vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
        MemoryLocation::GpuToCpu,
        "serialized acceleration structure",
    )?;
    let result = serialize_into(shared, support, handle, &raw, stats);
    raw.destroy(shared);
    result
}

fn serialize_into(
    shared: &DeviceShared,
    support: &AccelSupport,
    handle: vk::AccelerationStructureKHR,
    raw: &RawBuffer,
    stats: &mut AccelStats,
) -> Result<()> {
    const ALIGN: u64 = 256;
    let info = vk::BufferDeviceAddressInfo::default().buffer(raw.buffer);
    // SAFETY: made with SHADER_DEVICE_ADDRESS usage and bound.
    let base = unsafe { shared.device().get_buffer_device_address(&info) };
    let address = base.div_ceil(ALIGN) * ALIGN;
    let copy = vk::CopyAccelerationStructureToMemoryInfoKHR::default()
        .src(handle)
        .dst(vk::DeviceOrHostAddressKHR {
            device_address: address,
        })
        .mode(vk::CopyAccelerationStructureModeKHR::SERIALIZE);
    super::submit::run_once(shared, |device, cmd| {
        let to_host = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        // SAFETY: `cmd` is recording; the structure and buffer outlive the wait.
        unsafe {
            support
                .loader
                .cmd_copy_acceleration_structure_to_memory(cmd, &copy);
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
        }
    })?;
    let at = (address - base) as usize;
    let Some(bytes) = raw
        .mapped()
        .and_then(|m| m.get(at..at + stats.serialization_size as usize))
    else {
        return Err(RuntimeError::Allocation {
            what: "serialized acceleration structure".into(),
            message: "memory is not host-mapped or too small".into(),
        });
    };
    let header = parse_header(bytes)?;
    let version: [u8; 32] = {
        let mut v = [0u8; 32];
        v.copy_from_slice(&bytes[..32]);
        v
    };
    let version_info = vk::AccelerationStructureVersionInfoKHR::default().version_data(&version);
    // SAFETY: `version` holds the two UUIDs the call reads.
    let compat = unsafe {
        support
            .loader
            .get_device_acceleration_structure_compatibility(&version_info)
    };
    stats.serialized = SerializedHeader {
        compatible: compat == vk::AccelerationStructureCompatibilityKHR::COMPATIBLE,
        ..header
    };
    Ok(())
}

/// Reads a serialized structure's header from its first bytes.
fn parse_header(bytes: &[u8]) -> Result<SerializedHeader> {
    let bad = |what: &str| {
        RuntimeError::InvalidResource(format!(
            "malformed serialized acceleration structure: {what}"
        ))
    };
    let u64_at = |at: usize| -> Option<u64> {
        bytes
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let uuid_at = |at: usize| -> Option<[u8; 16]> { bytes.get(at..at + 16)?.try_into().ok() };
    let (Some(driver_uuid), Some(compatibility_uuid)) = (uuid_at(0), uuid_at(16)) else {
        return Err(bad("shorter than its UUIDs"));
    };
    let (Some(serialized_size), Some(deserialized_size), Some(count)) =
        (u64_at(32), u64_at(40), u64_at(48))
    else {
        return Err(bad("shorter than its header"));
    };
    let mut bottom_level_handles = Vec::new();
    for k in 0..count {
        let at = usize::try_from(k)
            .ok()
            .and_then(|k| k.checked_mul(8))
            .and_then(|o| o.checked_add(HEADER_BYTES));
        match at.and_then(u64_at) {
            Some(h) => bottom_level_handles.push(h),
            None => return Err(bad(&format!("{count} handles do not fit"))),
        }
    }
    Ok(SerializedHeader {
        driver_uuid,
        compatibility_uuid,
        serialized_size,
        deserialized_size,
        bottom_level_handles,
        compatible: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serialized_header_is_read_field_by_field() {
        let mut bytes = vec![0u8; HEADER_BYTES + 16];
        bytes[..16].copy_from_slice(&[7; 16]);
        bytes[16..32].copy_from_slice(&[9; 16]);
        bytes[32..40].copy_from_slice(&(HEADER_BYTES as u64 + 16).to_le_bytes());
        bytes[40..48].copy_from_slice(&4096u64.to_le_bytes());
        bytes[48..56].copy_from_slice(&2u64.to_le_bytes());
        bytes[56..64].copy_from_slice(&0x1000u64.to_le_bytes());
        bytes[64..72].copy_from_slice(&0x2000u64.to_le_bytes());
        let h = parse_header(&bytes).unwrap();
        assert_eq!(h.driver_uuid, [7; 16]);
        assert_eq!(h.compatibility_uuid, [9; 16]);
        assert_eq!(h.serialized_size, 72);
        assert_eq!(h.deserialized_size, 4096);
        assert_eq!(h.bottom_level_handles, [0x1000, 0x2000]);
        // A handle count beyond the bytes is an error, not a panic.
        bytes[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse_header(&bytes).is_err());
        assert!(parse_header(&bytes[..20]).is_err());
    }
}
