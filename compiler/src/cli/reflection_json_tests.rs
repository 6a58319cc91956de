//! [`super::reflection_json`] against serde_json on documents with every optional part
//! absent, and with every one present (each struct written out in full, so a field added to
//! the reflection later fails to compile here until the writer knows it).

use super::reflection_json;
use cajeta_runtime::{
    Access, Binding, BoundsCheck, CheckSite, CoopMatrixShape, DescriptorArray, DescriptorType,
    Parameter, ParameterSlot, PushConstantBlock, PushConstantMember, Reflection, SpecConstant,
};

fn bare() -> Reflection {
    Reflection {
        entry_point: "k".into(),
        spirv_version: "1.3".into(),
        target_env: "vulkan1.1".into(),
        workgroup_size_spec_ids: [0, 1, 2],
        default_workgroup_size: [64, 1, 1],
        bindings: vec![],
        push_constants: PushConstantBlock::default(),
        spec_constants: vec![],
        capabilities: vec![],
        extensions: vec![],
        vulkan_features: vec![],
        precision_variant: "fp32".into(),
        parameters: vec![],
        static_shared_bytes: 0,
        bounds_check: None,
        required_subgroup_size: None,
        coop_matrix_shapes: vec![],
    }
}

fn full() -> Reflection {
    let binding = |i: u32, ty, access, array| Binding {
        name: format!("b{i}"),
        set: 0,
        binding: i,
        descriptor_type: ty,
        element_type: Some("float32".into()),
        element_stride: Some(4),
        image_format: Some("rgba8".into()),
        access,
        array,
    };
    Reflection {
        entry_point: "weird \"name\" \\ \n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f} é ∑".into(),
        spirv_version: "1.6".into(),
        target_env: "vulkan1.3".into(),
        workgroup_size_spec_ids: [0, 1, 2],
        default_workgroup_size: [u32::MAX, 0, 10],
        bindings: vec![
            binding(0, DescriptorType::StorageBuffer, Access::Read, None),
            binding(
                1,
                DescriptorType::StorageImage,
                Access::Write,
                Some(DescriptorArray {
                    capacity_spec_id: 4096,
                    count_member: 3,
                    non_uniform: true,
                }),
            ),
            binding(2, DescriptorType::SampledImage, Access::ReadWrite, None),
            binding(3, DescriptorType::Sampler, Access::Read, None),
            Binding {
                element_type: None,
                element_stride: None,
                image_format: None,
                ..binding(4, DescriptorType::AccelerationStructure, Access::Read, None)
            },
        ],
        push_constants: PushConstantBlock {
            size: 24,
            members: vec![PushConstantMember {
                name: "a".into(),
                offset: 0,
                size: 8,
                ty: "uint64".into(),
            }],
        },
        spec_constants: vec![SpecConstant {
            id: 7,
            name: "n".into(),
            ty: "int32".into(),
            default: 12,
        }],
        capabilities: vec!["Shader".into(), "Int64".into()],
        extensions: vec!["SPV_KHR_16bit_storage".into()],
        vulkan_features: vec!["shaderInt64".into()],
        precision_variant: "fp16".into(),
        parameters: vec![
            Parameter {
                name: "x".into(),
                slot: ParameterSlot::Binding(0),
                psc_spec_id: None,
            },
            Parameter {
                name: "n".into(),
                slot: ParameterSlot::PushConstant(1),
                psc_spec_id: Some(9),
            },
            Parameter {
                name: "p".into(),
                slot: ParameterSlot::Address {
                    address_member: 2,
                    length_member: 3,
                    element_stride: 16,
                    access: Access::ReadWrite,
                },
                psc_spec_id: None,
            },
        ],
        static_shared_bytes: 1024,
        bounds_check: Some(BoundsCheck {
            binding: 5,
            sites: vec![
                CheckSite {
                    resource: "x".into(),
                    kind: "buffer".into(),
                    signed: true,
                    shape: vec![4, 2],
                    position: "a.cajeta:3:9".into(),
                    file: 1,
                    offset: 77,
                },
                CheckSite {
                    resource: "y".into(),
                    kind: "shared".into(),
                    signed: false,
                    shape: vec![],
                    position: String::new(),
                    file: 0,
                    offset: 0,
                },
            ],
        }),
        required_subgroup_size: Some(32),
        coop_matrix_shapes: vec![CoopMatrixShape {
            m: 16,
            n: 16,
            k: 16,
            a: "float16".into(),
            b: "float16".into(),
            c: "float32".into(),
            result: "float32".into(),
            scope: "subgroup".into(),
        }],
    }
}

#[test]
fn the_same_bytes_as_serde_json() {
    for r in [bare(), full()] {
        let ours = reflection_json(&r);
        let serde = serde_json::to_vec_pretty(&r).expect("serde_json");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&serde)
        );
        let back: Reflection = serde_json::from_slice(&ours).expect("reads back");
        assert_eq!(back, r);
    }
}
