//! The reflection entries (SPEC §7) that follow from a [`KernelLayout`] alone: bindings,
//! the push-constant block, the parameters' slots, the workgroup-size and buffer-array
//! capacity spec constants. A backend adds what only its lowering knows (capabilities,
//! `Spec` slots, `psc` ids, whether a buffer array is indexed non-uniformly).

use cajeta_runtime::reflection::{
    Access, Binding, DescriptorArray, DescriptorType, Parameter, ParameterSlot, PushConstantBlock,
    PushConstantMember, SpecConstant,
};

use super::{
    BindingKind, KernelLayout, ParamSlot, DEFAULT_WORKGROUP_SIZE, DESCRIPTOR_SET,
    WORKGROUP_SIZE_SPEC_IDS,
};
use crate::ir::{ImageFormat, ScalarType, Type};

/// The layout-determined part of a reflection document.
#[derive(Debug, Clone)]
pub struct ReflectedInterface {
    /// One entry per binding, in binding order.
    pub bindings: Vec<Binding>,
    /// The push-constant block.
    pub push_constants: PushConstantBlock,
    /// One entry per kernel parameter (`psc_spec_id` unset).
    pub parameters: Vec<Parameter>,
    /// The workgroup size's three spec constants.
    pub workgroup_spec_constants: Vec<SpecConstant>,
    /// One capacity spec constant per buffer array, in binding order.
    pub buffer_array_spec_constants: Vec<SpecConstant>,
}

/// How a resource the kernel reads (`reads`) and writes (`writes`) is reported. An unused
/// resource is reported as read-only: harmless for the runtime's hazard tracking and lets
/// drivers skip write tracking.
pub fn access_from_usage(reads: bool, writes: bool) -> Access {
    match (reads, writes) {
        (true, true) => Access::ReadWrite,
        (false, true) => Access::Write,
        _ => Access::Read,
    }
}

/// The reflection of `layout`, with `access[b]` the access of binding `b` and
/// `address_access[a]` that of addressed buffer `a`. A buffer array's
/// [`DescriptorArray::non_uniform`] is left false for the backend to set.
pub fn reflect_interface(
    layout: &KernelLayout,
    kernel_params: &[crate::ir::Local],
    access: &[Access],
    address_access: &[Access],
) -> ReflectedInterface {
    let bindings = layout
        .bindings
        .iter()
        .zip(access)
        .map(|(slot, &access)| {
            let mut array = None;
            let (descriptor_type, element_type, element_stride, image_format) = match &slot.kind {
                BindingKind::Buffer {
                    elem: Type::Struct(d),
                    stride,
                    ..
                } => (
                    DescriptorType::StorageBuffer,
                    Some(d.name.clone()),
                    Some(*stride),
                    None,
                ),
                BindingKind::Buffer {
                    lane,
                    lanes,
                    stride,
                    ..
                } => (
                    DescriptorType::StorageBuffer,
                    Some(element_name(*lane, *lanes)),
                    Some(*stride),
                    None,
                ),
                BindingKind::BufferArray {
                    lane,
                    lanes,
                    stride,
                    capacity_spec_id,
                    count_member,
                    ..
                } => {
                    array = Some(DescriptorArray {
                        capacity_spec_id: *capacity_spec_id,
                        count_member: *count_member,
                        non_uniform: false,
                    });
                    (
                        DescriptorType::StorageBuffer,
                        Some(element_name(*lane, *lanes)),
                        Some(*stride),
                        None,
                    )
                }
                BindingKind::StorageImage(format) => (
                    DescriptorType::StorageImage,
                    None,
                    None,
                    Some(format.reflection_name().to_string()),
                ),
                // A texture reads any format of its class; the reflection names the widest
                // format of that class so that the runtime checks the class at bind time.
                BindingKind::Texture(_, texel) => (
                    DescriptorType::SampledImage,
                    None,
                    None,
                    Some(
                        match texel {
                            ScalarType::I32 => ImageFormat::Rgba32i,
                            ScalarType::U32 => ImageFormat::Rgba32ui,
                            _ => ImageFormat::Rgba32f,
                        }
                        .reflection_name()
                        .to_string(),
                    ),
                ),
                BindingKind::Sampler => (DescriptorType::Sampler, None, None, None),
                BindingKind::AccelStruct => {
                    (DescriptorType::AccelerationStructure, None, None, None)
                }
            };
            Binding {
                name: slot.name.clone(),
                set: DESCRIPTOR_SET,
                binding: slot.binding,
                descriptor_type,
                element_type,
                element_stride,
                image_format,
                access,
                array,
            }
        })
        .collect();
    let members = layout
        .push
        .iter()
        .map(|m| PushConstantMember {
            name: m.name.clone(),
            offset: m.offset,
            size: m.size,
            ty: m.ty.to_string(),
        })
        .collect();
    let workgroup_spec_constants = ["workgroup_size_x", "workgroup_size_y", "workgroup_size_z"]
        .iter()
        .zip(WORKGROUP_SIZE_SPEC_IDS)
        .zip(DEFAULT_WORKGROUP_SIZE)
        .map(|((name, id), default)| SpecConstant {
            id,
            name: name.to_string(),
            ty: "uint32".to_string(),
            default,
        })
        .collect();
    let buffer_array_spec_constants = layout
        .bindings
        .iter()
        .filter_map(|slot| match slot.kind {
            BindingKind::BufferArray {
                capacity_spec_id, ..
            } => Some(SpecConstant {
                id: capacity_spec_id,
                name: format!("{}.capacity", slot.name),
                ty: "uint32".to_string(),
                default: 1,
            }),
            _ => None,
        })
        .collect();
    let parameters = kernel_params
        .iter()
        .zip(&layout.params)
        .map(|(p, slot)| Parameter {
            psc_spec_id: None,
            name: p.name.clone(),
            slot: match *slot {
                ParamSlot::Binding(i) => ParameterSlot::Binding(i),
                ParamSlot::Push(i) => ParameterSlot::PushConstant(i),
                ParamSlot::Address(a) => {
                    let slot = &layout.addressed[a];
                    ParameterSlot::Address {
                        address_member: slot.address_member,
                        length_member: slot.length_member,
                        element_stride: slot.stride,
                        access: address_access.get(a).copied().unwrap_or(Access::ReadWrite),
                    }
                }
            },
        })
        .collect();
    ReflectedInterface {
        bindings,
        push_constants: PushConstantBlock {
            size: layout.push_size,
            members,
        },
        parameters,
        workgroup_spec_constants,
        buffer_array_spec_constants,
    }
}

/// The reflection's name of a buffer element: the lane type, or `Vector<lane, N>`.
fn element_name(lane: ScalarType, lanes: u8) -> String {
    if lanes > 1 {
        Type::Vector(lane, lanes).to_string()
    } else {
        lane.name().to_string()
    }
}
