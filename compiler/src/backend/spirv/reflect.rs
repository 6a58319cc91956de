//! Builds the reflection document (SPEC §7) from the layout decided while declaring the
//! globals, so the runtime never recomputes a layout.

use cajeta_runtime::reflection::{
    Binding, DescriptorArray, DescriptorType, Parameter, ParameterSlot, PushConstantBlock,
    PushConstantMember, Reflection, SpecConstant,
};

use super::module::{ParamPlace, ResourceKind, DEFAULT_WORKGROUP_SIZE};
use super::Ctx;
use crate::ir::{ImageFormat, ScalarType};

/// The reflection of the finished module in `cx`.
pub(crate) fn build(cx: &Ctx) -> Reflection {
    let (major, minor) = cx.env.spirv_version();
    let bindings = cx
        .globals
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (descriptor_type, element_type, element_stride, image_format) = match r.kind {
                ResourceKind::Buffer {
                    elem,
                    lanes,
                    stride,
                    ..
                } => (
                    DescriptorType::StorageBuffer,
                    Some(if lanes > 1 {
                        crate::ir::Type::Vector(elem, lanes).to_string()
                    } else {
                        elem.name().to_string()
                    }),
                    Some(stride),
                    None,
                ),
                ResourceKind::BufferArray {
                    elem,
                    lanes,
                    stride,
                    ..
                } => (
                    DescriptorType::StorageBuffer,
                    Some(if lanes > 1 {
                        crate::ir::Type::Vector(elem, lanes).to_string()
                    } else {
                        elem.name().to_string()
                    }),
                    Some(stride),
                    None,
                ),
                ResourceKind::Image { format, .. } => (
                    DescriptorType::StorageImage,
                    None,
                    None,
                    Some(format.reflection_name().to_string()),
                ),
                // A texture reads any format of its class; the reflection names the widest
                // format of that class so that the runtime checks the class at bind time.
                ResourceKind::Texture { texel, .. } => (
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
                ResourceKind::Sampler { .. } => (DescriptorType::Sampler, None, None, None),
                ResourceKind::AccelStruct { .. } => {
                    (DescriptorType::AccelerationStructure, None, None, None)
                }
            };
            Binding {
                name: r.name.clone(),
                set: 0,
                binding: i as u32,
                descriptor_type,
                element_type,
                element_stride,
                image_format,
                access: r.access,
                array: match r.kind {
                    ResourceKind::BufferArray { count_member, .. } => Some(DescriptorArray {
                        capacity_spec_id: cajeta_runtime::reflection::BUFFER_ARRAY_SPEC_BASE
                            + i as u32,
                        count_member,
                        non_uniform: r.non_uniform,
                    }),
                    _ => None,
                },
            }
        })
        .collect();
    let members = cx
        .globals
        .push_members
        .iter()
        .map(|m| PushConstantMember {
            name: m.name.clone(),
            offset: m.offset,
            size: m.size,
            ty: m.ty.to_string(),
        })
        .collect();
    let mut spec_constants: Vec<SpecConstant> =
        ["workgroup_size_x", "workgroup_size_y", "workgroup_size_z"]
            .iter()
            .zip(DEFAULT_WORKGROUP_SIZE)
            .enumerate()
            .map(|(id, (name, default))| SpecConstant {
                id: id as u32,
                name: name.to_string(),
                ty: "uint32".to_string(),
                default,
            })
            .collect();
    spec_constants.extend(cx.mem.spec_constants());
    for (i, r) in cx.globals.resources.iter().enumerate() {
        if let ResourceKind::BufferArray { .. } = r.kind {
            spec_constants.push(SpecConstant {
                id: cajeta_runtime::reflection::BUFFER_ARRAY_SPEC_BASE + i as u32,
                name: format!("{}.capacity", r.name),
                ty: "uint32".to_string(),
                default: 1,
            });
        }
    }
    let parameters = cx
        .kernel
        .params()
        .iter()
        .zip(&cx.globals.params)
        .enumerate()
        .map(|(i, (p, place))| Parameter {
            psc_spec_id: cx
                .mem
                .psc
                .contains_key(&i)
                .then_some(super::memory::PSC_SPEC_BASE + i as u32),
            name: p.name.clone(),
            slot: match *place {
                ParamPlace::Binding(i) => ParameterSlot::Binding(i),
                ParamPlace::Push(i) => ParameterSlot::PushConstant(i),
            },
        })
        .collect();
    Reflection {
        entry_point: cx.kernel.name.clone(),
        spirv_version: format!("{major}.{minor}"),
        target_env: cx.env.name().to_string(),
        workgroup_size_spec_ids: [0, 1, 2],
        default_workgroup_size: DEFAULT_WORKGROUP_SIZE,
        bindings,
        push_constants: PushConstantBlock {
            size: cx.globals.push_size,
            members,
        },
        spec_constants,
        capabilities: cx
            .features
            .capabilities()
            .iter()
            .map(|c| format!("{c:?}"))
            .collect(),
        extensions: cx
            .features
            .extensions()
            .iter()
            .map(|e| e.to_string())
            .collect(),
        vulkan_features: cx
            .features
            .vulkan_features()
            .iter()
            .map(|f| f.to_string())
            .collect(),
        precision_variant: "fp32".to_string(),
        parameters,
        static_shared_bytes: cx.mem.static_shared_bytes,
        bounds_check: super::bounds::reflection(cx),
        required_subgroup_size: cx.kernel.wave_width,
    }
}
