//! What a kernel's SPIR-V needs from the device: the Vulkan feature behind each capability,
//! the subgroup operation behind each subgroup capability, and what each SPIR-V extension
//! needs (a core version or a device extension). `load_kernel` refuses a module whose needs
//! the context does not meet, naming the missing piece. (Split from `features.rs`, which
//! queries and enables the features themselves.)

use ash::vk;

use crate::features::{
    ATOMIC_FLOAT2_EXT, ATOMIC_FLOAT_EXT, COOP_MATRIX_EXT, RAY_QUERY_EXT, SHADER_CLOCK_EXT,
};

/// SPIR-V capabilities whose use needs a specific Vulkan feature. A backstop for reflection
/// documents that forget to list the feature: the module would otherwise reach the driver.
pub(crate) const CAPABILITY_FEATURES: &[(&str, &str)] = &[
    (
        "SignedZeroInfNanPreserve",
        "shaderSignedZeroInfNanPreserveFloat32",
    ),
    ("Int64", "shaderInt64"),
    ("PhysicalStorageBufferAddresses", "bufferDeviceAddress"),
    ("Float64", "shaderFloat64"),
    ("Int16", "shaderInt16"),
    ("Float16", "shaderFloat16"),
    ("Int8", "shaderInt8"),
    ("StorageBuffer16BitAccess", "storageBuffer16BitAccess"),
    (
        "UniformAndStorageBuffer16BitAccess",
        "uniformAndStorageBuffer16BitAccess",
    ),
    ("StoragePushConstant16", "storagePushConstant16"),
    ("StorageBuffer8BitAccess", "storageBuffer8BitAccess"),
    (
        "UniformAndStorageBuffer8BitAccess",
        "uniformAndStorageBuffer8BitAccess",
    ),
    ("StoragePushConstant8", "storagePushConstant8"),
    (
        "StorageImageExtendedFormats",
        "shaderStorageImageExtendedFormats",
    ),
    (
        "StorageImageReadWithoutFormat",
        "shaderStorageImageReadWithoutFormat",
    ),
    (
        "StorageImageWriteWithoutFormat",
        "shaderStorageImageWriteWithoutFormat",
    ),
    (
        "VariablePointersStorageBuffer",
        "variablePointersStorageBuffer",
    ),
    ("VariablePointers", "variablePointers"),
    ("VulkanMemoryModel", "vulkanMemoryModel"),
    (
        "VulkanMemoryModelDeviceScope",
        "vulkanMemoryModelDeviceScope",
    ),
    ("DotProduct", "shaderIntegerDotProduct"),
    ("RuntimeDescriptorArray", "runtimeDescriptorArray"),
    (
        "StorageBufferArrayNonUniformIndexing",
        "shaderStorageBufferArrayNonUniformIndexing",
    ),
    ("CooperativeMatrixKHR", "cooperativeMatrix"),
    ("BFloat16TypeKHR", "shaderBFloat16Type"),
    (
        "BFloat16CooperativeMatrixKHR",
        "shaderBFloat16CooperativeMatrix",
    ),
];

/// Subgroup capabilities and the `VkSubgroupFeatureFlags` bit each one needs in compute.
pub(crate) const SUBGROUP_CAPABILITIES: &[(&str, vk::SubgroupFeatureFlags)] = &[
    ("GroupNonUniform", vk::SubgroupFeatureFlags::BASIC),
    ("GroupNonUniformVote", vk::SubgroupFeatureFlags::VOTE),
    (
        "GroupNonUniformArithmetic",
        vk::SubgroupFeatureFlags::ARITHMETIC,
    ),
    ("GroupNonUniformBallot", vk::SubgroupFeatureFlags::BALLOT),
    ("GroupNonUniformShuffle", vk::SubgroupFeatureFlags::SHUFFLE),
    (
        "GroupNonUniformShuffleRelative",
        vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
    ),
    (
        "GroupNonUniformClustered",
        vk::SubgroupFeatureFlags::CLUSTERED,
    ),
    ("GroupNonUniformQuad", vk::SubgroupFeatureFlags::QUAD),
];

/// What a SPIR-V extension needs from the device.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ExtensionNeed {
    /// Core from this Vulkan 1.x minor version on.
    Core(u32),
    /// Needs this device extension enabled.
    Device(&'static str),
}

/// SPIR-V extensions the runtime can satisfy. Unknown ones are refused: a module using an
/// extension whose Vulkan counterpart was never enabled is invalid on the device.
pub(crate) const SPIRV_EXTENSIONS: &[(&str, ExtensionNeed)] = &[
    (
        "SPV_KHR_storage_buffer_storage_class",
        ExtensionNeed::Core(1),
    ),
    ("SPV_KHR_16bit_storage", ExtensionNeed::Core(1)),
    ("SPV_KHR_variable_pointers", ExtensionNeed::Core(1)),
    ("SPV_KHR_device_group", ExtensionNeed::Core(1)),
    ("SPV_KHR_multiview", ExtensionNeed::Core(1)),
    ("SPV_KHR_shader_draw_parameters", ExtensionNeed::Core(1)),
    ("SPV_KHR_8bit_storage", ExtensionNeed::Core(2)),
    ("SPV_KHR_vulkan_memory_model", ExtensionNeed::Core(2)),
    ("SPV_KHR_float_controls", ExtensionNeed::Core(2)),
    ("SPV_KHR_physical_storage_buffer", ExtensionNeed::Core(2)),
    (
        "SPV_KHR_shader_ballot",
        ExtensionNeed::Device("VK_EXT_shader_subgroup_ballot"),
    ),
    (
        "SPV_KHR_subgroup_vote",
        ExtensionNeed::Device("VK_EXT_shader_subgroup_vote"),
    ),
    ("SPV_EXT_descriptor_indexing", ExtensionNeed::Core(2)),
    ("SPV_KHR_integer_dot_product", ExtensionNeed::Core(3)),
    ("SPV_KHR_non_semantic_info", ExtensionNeed::Core(3)),
    ("SPV_KHR_terminate_invocation", ExtensionNeed::Core(3)),
    (
        "SPV_EXT_shader_atomic_float_add",
        ExtensionNeed::Device(ATOMIC_FLOAT_EXT),
    ),
    (
        "SPV_KHR_cooperative_matrix",
        ExtensionNeed::Device(COOP_MATRIX_EXT),
    ),
    (
        "SPV_KHR_bfloat16",
        ExtensionNeed::Device(crate::bfloat16::BFLOAT16_EXT),
    ),
    // Enabled (with `rayQuery`) wherever the device offers it next to acceleration
    // structures; elsewhere a ray-query kernel is refused at load, naming VK_KHR_ray_query.
    ("SPV_KHR_ray_query", ExtensionNeed::Device(RAY_QUERY_EXT)),
    (
        "SPV_KHR_shader_clock",
        ExtensionNeed::Device(SHADER_CLOCK_EXT),
    ),
    (
        "SPV_EXT_shader_atomic_float_min_max",
        ExtensionNeed::Device(ATOMIC_FLOAT2_EXT),
    ),
];

/// The Vulkan features a set of kernels needs: their `vulkan_features` plus the features their
/// SPIR-V capabilities imply, sorted and without repeats. Pass it to
/// [`crate::ContextOptions::with_features`] to enable exactly these.
pub fn required_features(reflections: &[&crate::Reflection]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in reflections {
        out.extend(r.vulkan_features.iter().cloned());
        for (cap, feature) in CAPABILITY_FEATURES {
            if r.capabilities.iter().any(|c| c == cap) {
                out.push(feature.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
