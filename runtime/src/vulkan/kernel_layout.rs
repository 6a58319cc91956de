//! The checks of a kernel's reflection document before its Vulkan objects are made: every
//! binding in set 0 and used once, buffer arrays with their count in the push block and room
//! in the device's limits, known image formats, parameters that name real slots. A module
//! that fails one is refused with a message naming the binding or parameter.

use crate::descriptors::{buffer_array_capacity, DescriptorCounts};
use crate::device::DeviceShared;
use crate::reflection::{DescriptorType, ParameterSlot, Reflection};
use crate::resources::ImageFormat;

/// Checks bindings, parameters and the push block; returns the descriptor counts and each
/// binding's descriptor count.
pub(crate) fn check_layout(
    shared: &DeviceShared,
    r: &Reflection,
) -> std::result::Result<(DescriptorCounts, Vec<u32>), String> {
    let mut counts = DescriptorCounts::default();
    let pc = &r.push_constants;
    let arrays = r.bindings.iter().filter(|b| b.array.is_some()).count() as u32;
    let singles = r.bindings.len() as u32 - arrays + u32::from(r.bounds_check.is_some());
    let capacity = buffer_array_capacity(&shared.raw_limits, singles, arrays);
    let mut binding_counts = Vec::with_capacity(r.bindings.len());
    for (i, b) in r.bindings.iter().enumerate() {
        if b.set != 0 {
            return Err(format!(
                "binding `{}` is in set {}, but kernels use set 0 only",
                b.name, b.set
            ));
        }
        if r.bindings[..i].iter().any(|o| o.binding == b.binding) {
            return Err(format!("binding number {} is used twice", b.binding));
        }
        if let Some(a) = &b.array {
            if b.descriptor_type != DescriptorType::StorageBuffer {
                return Err(format!(
                    "binding `{}` is an array of {:?} descriptors; only storage-buffer arrays are supported",
                    b.name, b.descriptor_type
                ));
            }
            if capacity == 0 {
                return Err(format!(
                    "binding `{}` is a buffer array, but the device's storage-buffer limits leave no room for one",
                    b.name
                ));
            }
            match pc.members.get(a.count_member) {
                Some(m) if m.ty == "uint32" => {}
                _ => {
                    return Err(format!(
                        "buffer array `{}` has no uint32 push constant for its count",
                        b.name
                    ))
                }
            }
            counts.storage_buffers += capacity;
            binding_counts.push(capacity);
            continue;
        }
        binding_counts.push(1);
        match b.descriptor_type {
            DescriptorType::StorageBuffer => counts.storage_buffers += 1,
            DescriptorType::StorageImage => {
                let format = b.image_format.as_deref().unwrap_or("r32f");
                if ImageFormat::from_reflection_name(format).is_none() {
                    return Err(format!(
                        "binding `{}` has unknown image format `{format}`",
                        b.name
                    ));
                }
                counts.storage_images += 1;
            }
            DescriptorType::SampledImage => counts.sampled_images += 1,
            DescriptorType::Sampler => counts.samplers += 1,
            DescriptorType::AccelerationStructure => counts.acceleration_structures += 1,
        }
    }
    if let Some(check) = &r.bounds_check {
        if r.bindings.iter().any(|b| b.binding == check.binding) {
            return Err(format!(
                "the bounds-check binding {} is also a parameter's binding",
                check.binding
            ));
        }
        counts.storage_buffers += 1;
    }
    let limit = shared.info.limits.max_push_constants_size;
    if pc.size > limit {
        return Err(format!(
            "a push-constant block of {} bytes (maxPushConstantsSize = {limit})",
            pc.size
        ));
    }
    if !pc.size.is_multiple_of(4) {
        // vkCmdPushConstants and VkPushConstantRange take whole words only.
        return Err(format!(
            "push-constant block size {} is not a multiple of 4",
            pc.size
        ));
    }
    for m in &pc.members {
        if m.offset.checked_add(m.size).is_none_or(|end| end > pc.size) {
            return Err(format!(
                "push constant `{}` at offset {} size {} overruns the {}-byte block",
                m.name, m.offset, m.size, pc.size
            ));
        }
    }
    for p in &r.parameters {
        let ok = match p.slot {
            ParameterSlot::Binding(i) => i < r.bindings.len(),
            ParameterSlot::PushConstant(i) => i < pc.members.len(),
            ParameterSlot::Address {
                address_member,
                length_member,
                element_stride,
                ..
            } => {
                let fits = |m: usize| pc.members.get(m).is_some_and(|m| m.size == 8);
                fits(address_member) && fits(length_member) && element_stride > 0
            }
        };
        if !ok {
            return Err(format!(
                "parameter `{}` points at a missing {:?}",
                p.name, p.slot
            ));
        }
    }
    Ok((counts, binding_counts))
}
