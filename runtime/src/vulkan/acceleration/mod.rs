//! Acceleration structures (`VK_KHR_acceleration_structure`): the scenes ray-query kernels
//! trace against.
//!
//! A bottom-level structure ([`AccelLevel::Bottom`]) holds geometry: triangles from a float32
//! `xyz` vertex array (with an optional uint32 index array) or axis-aligned boxes. A top-level
//! one ([`AccelLevel::Top`]) holds instances of bottom-level ones, each with a 3×4 transform, a
//! 24-bit custom index and an 8-bit mask; it is what an `AccelerationStructure` kernel
//! parameter binds. Every structure is built on the device (`build.rs`) into device-local
//! storage and is immutable afterwards, so launches that bind it need no hazard tracking: the
//! build ends with a barrier that makes its writes visible to later builds, copies and compute
//! shaders.
//!
//! After the build the runtime also asks the device how large the structure would be when
//! compacted and when serialized, and serializes it once to read the serialized header back
//! (`stats.rs`): plausibility checks that need no ray query, which neither lavapipe nor the
//! NVIDIA driver this project is tested on offers.

mod build;
mod stats;
mod submit;

use std::fmt;
use std::sync::Arc;

use ash::vk;

use crate::device::DeviceShared;
use crate::error::RuntimeError;
use crate::memory::RawBuffer;
use crate::resources::ResourceId;

pub(crate) use build::{build, Geometry};
pub use stats::{AccelStats, SerializedHeader};

/// What the device offers for acceleration structures; present only where the context enabled
/// `VK_KHR_acceleration_structure`.
pub(crate) struct AccelSupport {
    /// The extension's entry points.
    pub(crate) loader: ash::khr::acceleration_structure::Device,
    /// `minAccelerationStructureScratchOffsetAlignment`.
    pub(crate) scratch_alignment: u64,
    /// `maxPrimitiveCount`: the most triangles or boxes in one bottom-level structure.
    pub(crate) max_primitive_count: u64,
    /// `maxInstanceCount`: the most instances in one top-level structure.
    pub(crate) max_instance_count: u64,
    /// `driverUUID` (`VkPhysicalDeviceIDProperties`): what a serialized structure's header
    /// starts with.
    pub(crate) driver_uuid: [u8; 16],
}

impl AccelSupport {
    /// Loads the entry points and reads the properties of `physical`.
    pub(crate) fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
    ) -> AccelSupport {
        let mut accel = vk::PhysicalDeviceAccelerationStructurePropertiesKHR::default();
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut accel)
            .push_next(&mut id);
        // SAFETY: the chain holds locals alive for this call; the extension is enabled.
        unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
        AccelSupport {
            loader: ash::khr::acceleration_structure::Device::new(instance, device),
            scratch_alignment: u64::from(
                accel
                    .min_acceleration_structure_scratch_offset_alignment
                    .max(1),
            ),
            max_primitive_count: accel.max_primitive_count,
            max_instance_count: accel.max_instance_count,
            driver_uuid: id.driver_uuid,
        }
    }
}

/// The level of an acceleration structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccelLevel {
    /// Geometry: triangles or axis-aligned boxes.
    Bottom,
    /// Instances of bottom-level structures: what a kernel binds.
    Top,
}

/// One instance of a bottom-level structure in a top-level one.
#[derive(Debug, Clone, Copy)]
pub struct AccelInstance<'a> {
    /// The bottom-level structure instanced.
    pub blas: &'a AccelStruct,
    /// Object-to-world transform, a row-major 3×4 matrix (`VkTransformMatrixKHR`).
    pub transform: [f32; 12],
    /// What `RayQuery.committedInstanceId()` reports for a hit on this instance (24 bits).
    pub custom_index: u32,
    /// Compared with a ray's cull mask: the instance is seen when `mask & cullMask != 0`.
    pub mask: u8,
}

impl AccelInstance<'_> {
    /// The identity transform.
    pub const IDENTITY: [f32; 12] = [
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0,
    ];
}

pub(crate) struct AccelInner {
    pub(crate) shared: Arc<DeviceShared>,
    pub(crate) handle: vk::AccelerationStructureKHR,
    /// The device-local buffer the structure lives in.
    storage: RawBuffer,
    /// Its device address (what an instance refers to).
    address: u64,
    id: ResourceId,
    stats: AccelStats,
    /// The bottom-level structures a top-level one refers to: their memory must outlive it.
    _children: Vec<AccelStruct>,
}

impl Drop for AccelInner {
    fn drop(&mut self) {
        // Last reference: batches keep a clone until their fence signals, and the build
        // waited for its own work.
        if let Some(support) = &self.shared.accel {
            // SAFETY: created on this device; no pending command uses it.
            unsafe {
                support
                    .loader
                    .destroy_acceleration_structure(self.handle, None)
            };
        }
        self.storage.destroy(&self.shared);
    }
}

/// A built acceleration structure (`VkAccelerationStructureKHR`) in device-local memory,
/// immutable once built. Cheap to clone; it keeps its device (and, for a top-level structure,
/// the bottom-level ones it instances) alive, and is destroyed with the last clone.
#[derive(Clone)]
pub struct AccelStruct {
    pub(crate) inner: Arc<AccelInner>,
}

impl AccelStruct {
    /// The structure's resource id (unique within its context).
    pub fn id(&self) -> ResourceId {
        self.inner.id
    }

    /// Bottom or top level.
    pub fn level(&self) -> AccelLevel {
        self.inner.stats.level
    }

    /// What the build and the queries after it measured.
    pub fn stats(&self) -> &AccelStats {
        &self.inner.stats
    }

    /// The size the structure would have after compaction
    /// (`VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR`), in bytes.
    pub fn compacted_size(&self) -> u64 {
        self.inner.stats.compacted_size
    }

    /// The structure's device address (`vkGetAccelerationStructureDeviceAddressKHR`): what an
    /// instance of it refers to, and what a serialized top-level structure lists.
    pub fn device_address(&self) -> u64 {
        self.inner.address
    }
}

impl fmt::Debug for AccelStruct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccelStruct")
            .field("level", &self.inner.stats.level)
            .field("primitives", &self.inner.stats.primitive_count)
            .field("size", &self.inner.stats.build_size)
            .finish()
    }
}

/// The error for a device that cannot build acceleration structures.
pub(crate) fn unsupported(shared: &DeviceShared) -> RuntimeError {
    RuntimeError::AccelerationUnsupported {
        device: shared.info.name.clone(),
    }
}
