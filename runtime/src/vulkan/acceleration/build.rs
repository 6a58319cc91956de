//! Building an acceleration structure: the host arrays checked and copied into build-input
//! buffers, the sizes asked of the device, device-local storage and an aligned scratch buffer
//! made, and the build recorded with the barrier that makes its result visible to what reads
//! it next (another build, the size queries, a copy, a compute shader).

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::{unsupported, AccelInner, AccelInstance, AccelLevel, AccelStruct, AccelSupport};
use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::memory::RawBuffer;
use crate::resources::ResourceId;

/// What a structure is built from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Geometry<'a> {
    /// Triangles: `x y z` per vertex; with indices, three per triangle, else three vertices
    /// per triangle in order.
    Triangles {
        vertices: &'a [f32],
        indices: Option<&'a [u32]>,
    },
    /// Axis-aligned boxes: `minX minY minZ maxX maxY maxZ` each.
    Aabbs(&'a [f32]),
    /// Instances of bottom-level structures (a top-level structure).
    Instances(&'a [AccelInstance<'a>]),
}

/// Bytes of one `VkAccelerationStructureInstanceKHR`.
const INSTANCE_BYTES: usize = 64;

fn invalid(message: String) -> RuntimeError {
    RuntimeError::InvalidResource(message)
}

/// Checks the input's shape and returns the primitive count (triangles, boxes or
/// instances). Needs no device support, so bad input is reported as such on every device.
fn check_shape(shared: &Arc<DeviceShared>, geometry: &Geometry<'_>) -> Result<usize> {
    let count = match geometry {
        Geometry::Triangles { vertices, indices } => {
            if vertices.is_empty() {
                return Err(invalid(
                    "a triangle acceleration structure needs at least one triangle (the vertex array is empty)".into(),
                ));
            }
            if vertices.len() % 3 != 0 {
                return Err(invalid(format!(
                    "the vertex array holds {} floats, not a multiple of 3 (x, y, z per vertex)",
                    vertices.len()
                )));
            }
            let vertex_count = vertices.len() / 3;
            match indices {
                Some(idx) => {
                    if idx.is_empty() || idx.len() % 3 != 0 {
                        return Err(invalid(format!(
                            "the index array holds {} indices, not a non-zero multiple of 3 (three per triangle)",
                            idx.len()
                        )));
                    }
                    if let Some((at, &i)) = idx
                        .iter()
                        .enumerate()
                        .find(|(_, &i)| i as usize >= vertex_count)
                    {
                        return Err(invalid(format!(
                            "index {i} at position {at} is out of range for {vertex_count} vertices"
                        )));
                    }
                    idx.len() / 3
                }
                None if vertex_count % 3 != 0 => {
                    return Err(invalid(format!(
                        "{vertex_count} vertices without an index array do not make whole triangles (three vertices each)"
                    )))
                }
                None => vertex_count / 3,
            }
        }
        Geometry::Aabbs(boxes) => {
            if boxes.is_empty() || boxes.len() % 6 != 0 {
                return Err(invalid(format!(
                    "the box array holds {} floats, not a non-zero multiple of 6 (minX, minY, minZ, maxX, maxY, maxZ per box)",
                    boxes.len()
                )));
            }
            if let Some((b, _)) = boxes.chunks_exact(6).enumerate().find(|(_, c)| {
                (0..3).any(|a| c[a].partial_cmp(&c[a + 3]).is_none_or(|o| o.is_gt()))
            }) {
                return Err(invalid(format!(
                    "box {b} has a minimum above its maximum (or a NaN bound)"
                )));
            }
            boxes.len() / 6
        }
        Geometry::Instances(instances) => {
            if instances.is_empty() {
                return Err(invalid(
                    "a top-level acceleration structure needs at least one instance".into(),
                ));
            }
            for (k, inst) in instances.iter().enumerate() {
                if !Arc::ptr_eq(&inst.blas.inner.shared, shared) {
                    return Err(RuntimeError::ForeignResource(format!(
                        "the acceleration structure of instance {k}"
                    )));
                }
                if inst.blas.level() != AccelLevel::Bottom {
                    return Err(invalid(format!(
                        "instance {k} refers to a top-level acceleration structure; instances refer to bottom-level ones"
                    )));
                }
                if inst.custom_index >= 1 << 24 {
                    return Err(invalid(format!(
                        "instance {k}: custom index {} does not fit in 24 bits",
                        inst.custom_index
                    )));
                }
            }
            instances.len()
        }
    };
    Ok(count)
}

/// Checks `count` primitives of `geometry` against the device's limits.
fn check_limits(support: &AccelSupport, geometry: &Geometry<'_>, count: usize) -> Result<u32> {
    let (max, what, limit) = match geometry {
        Geometry::Instances(_) => (support.max_instance_count, "instances", "maxInstanceCount"),
        _ => (
            support.max_primitive_count,
            "primitives",
            "maxPrimitiveCount",
        ),
    };
    u32::try_from(count)
        .ok()
        .filter(|&n| u64::from(n) <= max)
        .ok_or_else(|| {
            invalid(format!(
                "{count} {what} exceed the device's {limit} of {max}"
            ))
        })
}

/// A buffer with its device address (aligned up to `align` inside the buffer).
struct AddressedBuffer {
    raw: RawBuffer,
    address: u64,
    /// Offset of `address` from the buffer's start.
    offset: u64,
}

impl AddressedBuffer {
    fn new(
        shared: &DeviceShared,
        size: u64,
        align: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        what: &str,
    ) -> Result<AddressedBuffer> {
        let usage = usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let mut raw = RawBuffer::new(shared, size + align - 1, usage, location, what)?;
        let info = vk::BufferDeviceAddressInfo::default().buffer(raw.buffer);
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage and is bound.
        let base = unsafe { shared.device().get_buffer_device_address(&info) };
        let address = base.div_ceil(align) * align;
        if address == 0 {
            raw.destroy(shared);
            return Err(RuntimeError::Allocation {
                what: what.into(),
                message: "the device returned no buffer device address".into(),
            });
        }
        Ok(AddressedBuffer {
            raw,
            address,
            offset: address - base,
        })
    }

    /// A host-visible build input holding `bytes`.
    fn input(shared: &DeviceShared, bytes: &[u8], align: u64, what: &str) -> Result<Self> {
        let mut b = AddressedBuffer::new(
            shared,
            bytes.len() as u64,
            align,
            vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR,
            MemoryLocation::CpuToGpu,
            what,
        )?;
        let at = b.offset as usize;
        match b
            .raw
            .mapped_mut()
            .and_then(|m| m.get_mut(at..at + bytes.len()))
        {
            Some(dst) => dst.copy_from_slice(bytes),
            None => {
                b.raw.destroy(shared);
                return Err(RuntimeError::Allocation {
                    what: what.into(),
                    message: "memory is not host-mapped or too small".into(),
                });
            }
        }
        Ok(b)
    }
}

/// Owns the temporary buffers of one build and destroys them however it ends.
struct Temporaries<'a> {
    shared: &'a DeviceShared,
    buffers: Vec<RawBuffer>,
}

impl Temporaries<'_> {
    fn keep(&mut self, b: AddressedBuffer) -> u64 {
        let address = b.address;
        self.buffers.push(b.raw);
        address
    }
}

impl Drop for Temporaries<'_> {
    fn drop(&mut self) {
        for b in &mut self.buffers {
            // The build waited for the device (or never submitted).
            b.destroy(self.shared);
        }
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One `VkAccelerationStructureInstanceKHR`: the row-major 3×4 transform, the custom index
/// (low 24 bits) and mask (high 8) in one word, SBT offset 0 and no flags in the next, then
/// the bottom-level structure's device address.
fn instance_record(
    transform: &[f32; 12],
    custom_index: u32,
    mask: u8,
    address: u64,
) -> [u8; INSTANCE_BYTES] {
    let mut out = [0u8; INSTANCE_BYTES];
    for (dst, x) in out.chunks_exact_mut(4).zip(transform) {
        dst.copy_from_slice(&x.to_le_bytes());
    }
    out[48..52].copy_from_slice(&(custom_index | (u32::from(mask) << 24)).to_le_bytes());
    out[56..64].copy_from_slice(&address.to_le_bytes());
    out
}

/// The instance records of a top-level structure.
fn instance_bytes(instances: &[AccelInstance<'_>]) -> Vec<u8> {
    instances
        .iter()
        .flat_map(|i| {
            instance_record(
                &i.transform,
                i.custom_index,
                i.mask,
                i.blas.device_address(),
            )
        })
        .collect()
}

/// Builds a structure from `geometry` on `shared`'s device and measures it.
pub(crate) fn build(shared: &Arc<DeviceShared>, geometry: Geometry<'_>) -> Result<AccelStruct> {
    let count = check_shape(shared, &geometry)?;
    let Some(support) = shared.accel.as_ref() else {
        return Err(unsupported(shared));
    };
    let primitive_count = check_limits(support, &geometry, count)?;
    let mut temps = Temporaries {
        shared,
        buffers: Vec::new(),
    };
    let (level, geometry_data, geometry_type, children) = match geometry {
        Geometry::Triangles { vertices, indices } => {
            let vb = AddressedBuffer::input(shared, &f32_bytes(vertices), 16, "vertex array")?;
            let vertex_address = temps.keep(vb);
            let mut tri = vk::AccelerationStructureGeometryTrianglesDataKHR::default()
                .vertex_format(vk::Format::R32G32B32_SFLOAT)
                .vertex_data(vk::DeviceOrHostAddressConstKHR {
                    device_address: vertex_address,
                })
                .vertex_stride(12)
                .max_vertex((vertices.len() / 3 - 1) as u32)
                .index_type(vk::IndexType::NONE_KHR);
            if let Some(idx) = indices {
                let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_le_bytes()).collect();
                let ib = AddressedBuffer::input(shared, &bytes, 16, "index array")?;
                tri = tri.index_type(vk::IndexType::UINT32).index_data(
                    vk::DeviceOrHostAddressConstKHR {
                        device_address: temps.keep(ib),
                    },
                );
            }
            (
                AccelLevel::Bottom,
                vk::AccelerationStructureGeometryDataKHR { triangles: tri },
                vk::GeometryTypeKHR::TRIANGLES,
                Vec::new(),
            )
        }
        Geometry::Aabbs(boxes) => {
            let bb = AddressedBuffer::input(shared, &f32_bytes(boxes), 16, "box array")?;
            let aabbs = vk::AccelerationStructureGeometryAabbsDataKHR::default()
                .data(vk::DeviceOrHostAddressConstKHR {
                    device_address: temps.keep(bb),
                })
                .stride(24);
            (
                AccelLevel::Bottom,
                vk::AccelerationStructureGeometryDataKHR { aabbs },
                vk::GeometryTypeKHR::AABBS,
                Vec::new(),
            )
        }
        Geometry::Instances(instances) => {
            let ib =
                AddressedBuffer::input(shared, &instance_bytes(instances), 16, "instance array")?;
            let data = vk::AccelerationStructureGeometryInstancesDataKHR::default()
                .array_of_pointers(false)
                .data(vk::DeviceOrHostAddressConstKHR {
                    device_address: temps.keep(ib),
                });
            (
                AccelLevel::Top,
                vk::AccelerationStructureGeometryDataKHR { instances: data },
                vk::GeometryTypeKHR::INSTANCES,
                instances.iter().map(|i| i.blas.clone()).collect(),
            )
        }
    };
    let ty = match level {
        AccelLevel::Bottom => vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
        AccelLevel::Top => vk::AccelerationStructureTypeKHR::TOP_LEVEL,
    };
    // Opaque geometry: a ray query commits a triangle hit without being asked to confirm it
    // (unless its ray flags say otherwise), as OptiX and DXR scenes default to.
    let geometries = [vk::AccelerationStructureGeometryKHR::default()
        .geometry_type(geometry_type)
        .geometry(geometry_data)
        .flags(vk::GeometryFlagsKHR::OPAQUE)];
    let flags = vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE
        | vk::BuildAccelerationStructureFlagsKHR::ALLOW_COMPACTION;
    let mut info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
        .ty(ty)
        .flags(flags)
        .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
        .geometries(&geometries);
    let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
    // SAFETY: `info` describes valid geometry (addresses are ignored for the size query).
    unsafe {
        support.loader.get_acceleration_structure_build_sizes(
            vk::AccelerationStructureBuildTypeKHR::DEVICE,
            &info,
            &[primitive_count],
            &mut sizes,
        )
    };
    let what = match level {
        AccelLevel::Bottom => "bottom-level acceleration structure",
        AccelLevel::Top => "top-level acceleration structure",
    };
    // The structure's storage starts at offset 0 of its own buffer (256-byte alignment holds).
    let mut storage = RawBuffer::new(
        shared,
        sizes.acceleration_structure_size,
        vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
        MemoryLocation::GpuOnly,
        what,
    )?;
    let create = vk::AccelerationStructureCreateInfoKHR::default()
        .buffer(storage.buffer)
        .offset(0)
        .size(sizes.acceleration_structure_size)
        .ty(ty);
    // SAFETY: the buffer was made with ACCELERATION_STRUCTURE_STORAGE usage and is bound.
    let handle = match unsafe { support.loader.create_acceleration_structure(&create, None) } {
        Ok(h) => h,
        Err(e) => {
            storage.destroy(shared);
            return Err(vk_err("vkCreateAccelerationStructureKHR")(e));
        }
    };
    let address_info =
        vk::AccelerationStructureDeviceAddressInfoKHR::default().acceleration_structure(handle);
    // SAFETY: the structure was just created on this device.
    let address = unsafe {
        support
            .loader
            .get_acceleration_structure_device_address(&address_info)
    };
    let stats = super::stats::AccelStats::new(level, primitive_count, &sizes, support);
    // From here on the structure owns its storage and is destroyed with it on any error.
    let mut accel = AccelInner {
        shared: shared.clone(),
        handle,
        storage,
        address,
        id: ResourceId(shared.next_resource_id()),
        stats,
        _children: children,
    };
    let scratch = AddressedBuffer::new(
        shared,
        sizes.build_scratch_size.max(1),
        support.scratch_alignment,
        vk::BufferUsageFlags::STORAGE_BUFFER,
        MemoryLocation::GpuOnly,
        "acceleration structure build scratch",
    )?;
    info = info
        .dst_acceleration_structure(handle)
        .scratch_data(vk::DeviceOrHostAddressKHR {
            device_address: temps.keep(scratch),
        });
    let ranges =
        [vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(primitive_count)];
    let queries = super::stats::SizeQueries::new(shared)?;
    super::submit::run_once(shared, |device, cmd| {
        // SAFETY: `cmd` is recording; every handle and address refers to live objects kept
        // until the wait in `run_once` returns.
        unsafe {
            queries.reset(device, cmd);
            support
                .loader
                .cmd_build_acceleration_structures(cmd, &[info], &[&ranges]);
            built_barrier(device, cmd);
            queries.record(&support.loader, cmd, handle);
        }
    })?;
    queries.read(shared, &mut accel.stats)?;
    drop(queries);
    super::stats::serialize(shared, support, handle, &mut accel.stats)?;
    shared.check_validation()?;
    Ok(AccelStruct {
        inner: Arc::new(accel),
    })
}

/// Makes a build's writes visible to what may read the structure later: another build (a
/// top-level one over it), the size queries and the serializing copy (all in the build stage)
/// and compute shaders (ray queries), in this submission or any later one on the queue.
///
/// # Safety
/// `cmd` is recording.
unsafe fn built_barrier(device: &ash::Device, cmd: vk::CommandBuffer) {
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::ACCELERATION_STRUCTURE_WRITE_KHR)
        .dst_access_mask(
            vk::AccessFlags::ACCELERATION_STRUCTURE_READ_KHR | vk::AccessFlags::SHADER_READ,
        );
    // SAFETY: upheld by the caller.
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR,
            vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR
                | vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_records_are_laid_out_as_vulkan_reads_them() {
        assert_eq!(
            INSTANCE_BYTES,
            std::mem::size_of::<vk::AccelerationStructureInstanceKHR>()
        );
        let mut t = [0f32; 12];
        t[3] = 5.0;
        let r = instance_record(&t, 0x00AB_CDEF, 0x5A, 0x1122_3344_5566_7788);
        assert_eq!(r[12..16], 5.0f32.to_le_bytes());
        assert_eq!(r[48..52], [0xEF, 0xCD, 0xAB, 0x5A]);
        assert_eq!(r[52..56], [0; 4]);
        assert_eq!(r[56..64], 0x1122_3344_5566_7788u64.to_le_bytes());
        // Vulkan's packing (ash's Packed24_8): index in the low 24 bits, mask in the high 8.
        let packed = vk::Packed24_8::new(0x00AB_CDEF, 0x5A);
        let word = u32::from_le_bytes([r[48], r[49], r[50], r[51]]);
        assert_eq!(word & 0xFF_FFFF, packed.low_24());
        assert_eq!((word >> 24) as u8, packed.high_8());
    }
}
