//! Descriptor bookkeeping of a kernel's set: how many descriptors of each type one set takes
//! (what sizes the batches' descriptor pools), and how many a buffer-array binding holds.

use ash::vk;

/// How many descriptors of each type one set of a kernel needs; sizes descriptor pools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DescriptorCounts {
    pub storage_buffers: u32,
    pub storage_images: u32,
    pub sampled_images: u32,
    pub samplers: u32,
    pub acceleration_structures: u32,
}

impl DescriptorCounts {
    /// Pool sizes for `sets` sets of at least this shape each.
    pub(crate) fn pool_sizes(&self) -> Vec<vk::DescriptorPoolSize> {
        [
            (vk::DescriptorType::STORAGE_BUFFER, self.storage_buffers),
            (vk::DescriptorType::STORAGE_IMAGE, self.storage_images),
            (vk::DescriptorType::SAMPLED_IMAGE, self.sampled_images),
            (vk::DescriptorType::SAMPLER, self.samplers),
            (
                vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
                self.acceleration_structures,
            ),
        ]
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .map(|(ty, descriptor_count)| vk::DescriptorPoolSize {
            ty,
            descriptor_count,
        })
        .collect()
    }

    /// Whether `self` (what is left in a pool) can hold `need`.
    pub(crate) fn covers(&self, need: &DescriptorCounts) -> bool {
        self.storage_buffers >= need.storage_buffers
            && self.storage_images >= need.storage_images
            && self.sampled_images >= need.sampled_images
            && self.samplers >= need.samplers
            && self.acceleration_structures >= need.acceleration_structures
    }

    /// Takes `need` out of what is left.
    pub(crate) fn take(&mut self, need: &DescriptorCounts) {
        self.storage_buffers -= need.storage_buffers;
        self.storage_images -= need.storage_images;
        self.sampled_images -= need.sampled_images;
        self.samplers -= need.samplers;
        self.acceleration_structures -= need.acceleration_structures;
    }

    /// Component-wise maximum.
    pub(crate) fn max(&self, other: &DescriptorCounts) -> DescriptorCounts {
        DescriptorCounts {
            storage_buffers: self.storage_buffers.max(other.storage_buffers),
            storage_images: self.storage_images.max(other.storage_images),
            sampled_images: self.sampled_images.max(other.sampled_images),
            samplers: self.samplers.max(other.samplers),
            acceleration_structures: self
                .acceleration_structures
                .max(other.acceleration_structures),
        }
    }
}

/// Most buffers one buffer-array binding (`KernelBuffer<T>[]`) holds; fewer where the device's
/// storage-buffer limits leave less room.
pub const BUFFER_ARRAY_CAPACITY: u32 = 256;

/// The capacity of each of `arrays` buffer-array bindings of a kernel that has `singles` other
/// storage buffers: an equal share of what the device's per-stage and per-set storage-buffer
/// limits leave, at most [`BUFFER_ARRAY_CAPACITY`].
pub(crate) fn buffer_array_capacity(
    limits: &vk::PhysicalDeviceLimits,
    singles: u32,
    arrays: u32,
) -> u32 {
    let limit = limits
        .max_per_stage_descriptor_storage_buffers
        .min(limits.max_descriptor_set_storage_buffers);
    (limit.saturating_sub(singles) / arrays.max(1)).min(BUFFER_ARRAY_CAPACITY)
}
