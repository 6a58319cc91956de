//! Every Vulkan 1.0-1.3 core feature (`VkPhysicalDeviceFeatures`, `…Vulkan11Features`,
//! `…Vulkan12Features`, `…Vulkan13Features`) and the integer dot-product properties, by Vulkan
//! name: what a device profile's `all_features` reports and `Device.hasFeature` accepts (as
//! ncnn defines a `ncnn_<feature>` macro per feature). Generated from ash's struct definitions;
//! these are reported, not enabled (the runtime enables only its own table, `features.rs`).

use ash::vk;

/// A reader of one boolean of a struct.
pub(crate) type Reader<T> = (&'static str, fn(&T) -> vk::Bool32);

/// The booleans of `VkPhysicalDeviceFeatures`.
pub(crate) const CORE_FEATURES: &[Reader<vk::PhysicalDeviceFeatures>] = &[
    ("robustBufferAccess", |s| s.robust_buffer_access),
    ("fullDrawIndexUint32", |s| s.full_draw_index_uint32),
    ("imageCubeArray", |s| s.image_cube_array),
    ("independentBlend", |s| s.independent_blend),
    ("geometryShader", |s| s.geometry_shader),
    ("tessellationShader", |s| s.tessellation_shader),
    ("sampleRateShading", |s| s.sample_rate_shading),
    ("dualSrcBlend", |s| s.dual_src_blend),
    ("logicOp", |s| s.logic_op),
    ("multiDrawIndirect", |s| s.multi_draw_indirect),
    ("drawIndirectFirstInstance", |s| {
        s.draw_indirect_first_instance
    }),
    ("depthClamp", |s| s.depth_clamp),
    ("depthBiasClamp", |s| s.depth_bias_clamp),
    ("fillModeNonSolid", |s| s.fill_mode_non_solid),
    ("depthBounds", |s| s.depth_bounds),
    ("wideLines", |s| s.wide_lines),
    ("largePoints", |s| s.large_points),
    ("alphaToOne", |s| s.alpha_to_one),
    ("multiViewport", |s| s.multi_viewport),
    ("samplerAnisotropy", |s| s.sampler_anisotropy),
    ("textureCompressionETC2", |s| s.texture_compression_etc2),
    ("textureCompressionASTC_LDR", |s| {
        s.texture_compression_astc_ldr
    }),
    ("textureCompressionBC", |s| s.texture_compression_bc),
    ("occlusionQueryPrecise", |s| s.occlusion_query_precise),
    ("pipelineStatisticsQuery", |s| s.pipeline_statistics_query),
    ("vertexPipelineStoresAndAtomics", |s| {
        s.vertex_pipeline_stores_and_atomics
    }),
    ("fragmentStoresAndAtomics", |s| {
        s.fragment_stores_and_atomics
    }),
    ("shaderTessellationAndGeometryPointSize", |s| {
        s.shader_tessellation_and_geometry_point_size
    }),
    ("shaderImageGatherExtended", |s| {
        s.shader_image_gather_extended
    }),
    ("shaderStorageImageExtendedFormats", |s| {
        s.shader_storage_image_extended_formats
    }),
    ("shaderStorageImageMultisample", |s| {
        s.shader_storage_image_multisample
    }),
    ("shaderStorageImageReadWithoutFormat", |s| {
        s.shader_storage_image_read_without_format
    }),
    ("shaderStorageImageWriteWithoutFormat", |s| {
        s.shader_storage_image_write_without_format
    }),
    ("shaderUniformBufferArrayDynamicIndexing", |s| {
        s.shader_uniform_buffer_array_dynamic_indexing
    }),
    ("shaderSampledImageArrayDynamicIndexing", |s| {
        s.shader_sampled_image_array_dynamic_indexing
    }),
    ("shaderStorageBufferArrayDynamicIndexing", |s| {
        s.shader_storage_buffer_array_dynamic_indexing
    }),
    ("shaderStorageImageArrayDynamicIndexing", |s| {
        s.shader_storage_image_array_dynamic_indexing
    }),
    ("shaderClipDistance", |s| s.shader_clip_distance),
    ("shaderCullDistance", |s| s.shader_cull_distance),
    ("shaderFloat64", |s| s.shader_float64),
    ("shaderInt64", |s| s.shader_int64),
    ("shaderInt16", |s| s.shader_int16),
    ("shaderResourceResidency", |s| s.shader_resource_residency),
    ("shaderResourceMinLod", |s| s.shader_resource_min_lod),
    ("sparseBinding", |s| s.sparse_binding),
    ("sparseResidencyBuffer", |s| s.sparse_residency_buffer),
    ("sparseResidencyImage2D", |s| s.sparse_residency_image2_d),
    ("sparseResidencyImage3D", |s| s.sparse_residency_image3_d),
    ("sparseResidency2Samples", |s| s.sparse_residency2_samples),
    ("sparseResidency4Samples", |s| s.sparse_residency4_samples),
    ("sparseResidency8Samples", |s| s.sparse_residency8_samples),
    ("sparseResidency16Samples", |s| s.sparse_residency16_samples),
    ("sparseResidencyAliased", |s| s.sparse_residency_aliased),
    ("variableMultisampleRate", |s| s.variable_multisample_rate),
    ("inheritedQueries", |s| s.inherited_queries),
];

/// The booleans of `VkPhysicalDeviceVulkan11Features`.
pub(crate) const V11_FEATURES: &[Reader<vk::PhysicalDeviceVulkan11Features<'static>>] = &[
    ("storageBuffer16BitAccess", |s| {
        s.storage_buffer16_bit_access
    }),
    ("uniformAndStorageBuffer16BitAccess", |s| {
        s.uniform_and_storage_buffer16_bit_access
    }),
    ("storagePushConstant16", |s| s.storage_push_constant16),
    ("storageInputOutput16", |s| s.storage_input_output16),
    ("multiview", |s| s.multiview),
    ("multiviewGeometryShader", |s| s.multiview_geometry_shader),
    ("multiviewTessellationShader", |s| {
        s.multiview_tessellation_shader
    }),
    ("variablePointersStorageBuffer", |s| {
        s.variable_pointers_storage_buffer
    }),
    ("variablePointers", |s| s.variable_pointers),
    ("protectedMemory", |s| s.protected_memory),
    ("samplerYcbcrConversion", |s| s.sampler_ycbcr_conversion),
    ("shaderDrawParameters", |s| s.shader_draw_parameters),
];

/// The booleans of `VkPhysicalDeviceVulkan12Features`.
pub(crate) const V12_FEATURES: &[Reader<vk::PhysicalDeviceVulkan12Features<'static>>] = &[
    ("samplerMirrorClampToEdge", |s| {
        s.sampler_mirror_clamp_to_edge
    }),
    ("drawIndirectCount", |s| s.draw_indirect_count),
    ("storageBuffer8BitAccess", |s| s.storage_buffer8_bit_access),
    ("uniformAndStorageBuffer8BitAccess", |s| {
        s.uniform_and_storage_buffer8_bit_access
    }),
    ("storagePushConstant8", |s| s.storage_push_constant8),
    ("shaderBufferInt64Atomics", |s| {
        s.shader_buffer_int64_atomics
    }),
    ("shaderSharedInt64Atomics", |s| {
        s.shader_shared_int64_atomics
    }),
    ("shaderFloat16", |s| s.shader_float16),
    ("shaderInt8", |s| s.shader_int8),
    ("descriptorIndexing", |s| s.descriptor_indexing),
    ("shaderInputAttachmentArrayDynamicIndexing", |s| {
        s.shader_input_attachment_array_dynamic_indexing
    }),
    ("shaderUniformTexelBufferArrayDynamicIndexing", |s| {
        s.shader_uniform_texel_buffer_array_dynamic_indexing
    }),
    ("shaderStorageTexelBufferArrayDynamicIndexing", |s| {
        s.shader_storage_texel_buffer_array_dynamic_indexing
    }),
    ("shaderUniformBufferArrayNonUniformIndexing", |s| {
        s.shader_uniform_buffer_array_non_uniform_indexing
    }),
    ("shaderSampledImageArrayNonUniformIndexing", |s| {
        s.shader_sampled_image_array_non_uniform_indexing
    }),
    ("shaderStorageBufferArrayNonUniformIndexing", |s| {
        s.shader_storage_buffer_array_non_uniform_indexing
    }),
    ("shaderStorageImageArrayNonUniformIndexing", |s| {
        s.shader_storage_image_array_non_uniform_indexing
    }),
    ("shaderInputAttachmentArrayNonUniformIndexing", |s| {
        s.shader_input_attachment_array_non_uniform_indexing
    }),
    ("shaderUniformTexelBufferArrayNonUniformIndexing", |s| {
        s.shader_uniform_texel_buffer_array_non_uniform_indexing
    }),
    ("shaderStorageTexelBufferArrayNonUniformIndexing", |s| {
        s.shader_storage_texel_buffer_array_non_uniform_indexing
    }),
    ("descriptorBindingUniformBufferUpdateAfterBind", |s| {
        s.descriptor_binding_uniform_buffer_update_after_bind
    }),
    ("descriptorBindingSampledImageUpdateAfterBind", |s| {
        s.descriptor_binding_sampled_image_update_after_bind
    }),
    ("descriptorBindingStorageImageUpdateAfterBind", |s| {
        s.descriptor_binding_storage_image_update_after_bind
    }),
    ("descriptorBindingStorageBufferUpdateAfterBind", |s| {
        s.descriptor_binding_storage_buffer_update_after_bind
    }),
    ("descriptorBindingUniformTexelBufferUpdateAfterBind", |s| {
        s.descriptor_binding_uniform_texel_buffer_update_after_bind
    }),
    ("descriptorBindingStorageTexelBufferUpdateAfterBind", |s| {
        s.descriptor_binding_storage_texel_buffer_update_after_bind
    }),
    ("descriptorBindingUpdateUnusedWhilePending", |s| {
        s.descriptor_binding_update_unused_while_pending
    }),
    ("descriptorBindingPartiallyBound", |s| {
        s.descriptor_binding_partially_bound
    }),
    ("descriptorBindingVariableDescriptorCount", |s| {
        s.descriptor_binding_variable_descriptor_count
    }),
    ("runtimeDescriptorArray", |s| s.runtime_descriptor_array),
    ("samplerFilterMinmax", |s| s.sampler_filter_minmax),
    ("scalarBlockLayout", |s| s.scalar_block_layout),
    ("imagelessFramebuffer", |s| s.imageless_framebuffer),
    ("uniformBufferStandardLayout", |s| {
        s.uniform_buffer_standard_layout
    }),
    ("shaderSubgroupExtendedTypes", |s| {
        s.shader_subgroup_extended_types
    }),
    ("separateDepthStencilLayouts", |s| {
        s.separate_depth_stencil_layouts
    }),
    ("hostQueryReset", |s| s.host_query_reset),
    ("timelineSemaphore", |s| s.timeline_semaphore),
    ("bufferDeviceAddress", |s| s.buffer_device_address),
    ("bufferDeviceAddressCaptureReplay", |s| {
        s.buffer_device_address_capture_replay
    }),
    ("bufferDeviceAddressMultiDevice", |s| {
        s.buffer_device_address_multi_device
    }),
    ("vulkanMemoryModel", |s| s.vulkan_memory_model),
    ("vulkanMemoryModelDeviceScope", |s| {
        s.vulkan_memory_model_device_scope
    }),
    ("vulkanMemoryModelAvailabilityVisibilityChains", |s| {
        s.vulkan_memory_model_availability_visibility_chains
    }),
    ("shaderOutputViewportIndex", |s| {
        s.shader_output_viewport_index
    }),
    ("shaderOutputLayer", |s| s.shader_output_layer),
    ("subgroupBroadcastDynamicId", |s| {
        s.subgroup_broadcast_dynamic_id
    }),
];

/// The booleans of `VkPhysicalDeviceVulkan13Features`.
pub(crate) const V13_FEATURES: &[Reader<vk::PhysicalDeviceVulkan13Features<'static>>] = &[
    ("robustImageAccess", |s| s.robust_image_access),
    ("inlineUniformBlock", |s| s.inline_uniform_block),
    ("descriptorBindingInlineUniformBlockUpdateAfterBind", |s| {
        s.descriptor_binding_inline_uniform_block_update_after_bind
    }),
    ("pipelineCreationCacheControl", |s| {
        s.pipeline_creation_cache_control
    }),
    ("privateData", |s| s.private_data),
    ("shaderDemoteToHelperInvocation", |s| {
        s.shader_demote_to_helper_invocation
    }),
    ("shaderTerminateInvocation", |s| {
        s.shader_terminate_invocation
    }),
    ("subgroupSizeControl", |s| s.subgroup_size_control),
    ("computeFullSubgroups", |s| s.compute_full_subgroups),
    ("synchronization2", |s| s.synchronization2),
    ("textureCompressionASTC_HDR", |s| {
        s.texture_compression_astc_hdr
    }),
    ("shaderZeroInitializeWorkgroupMemory", |s| {
        s.shader_zero_initialize_workgroup_memory
    }),
    ("dynamicRendering", |s| s.dynamic_rendering),
    ("shaderIntegerDotProduct", |s| s.shader_integer_dot_product),
    ("maintenance4", |s| s.maintenance4),
];

/// The booleans of `VkPhysicalDeviceShaderIntegerDotProductProperties`.
pub(crate) const DOT_PRODUCT_PROPERTIES: &[Reader<
    vk::PhysicalDeviceShaderIntegerDotProductProperties<'static>,
>] = &[
    ("integerDotProduct8BitUnsignedAccelerated", |s| {
        s.integer_dot_product8_bit_unsigned_accelerated
    }),
    ("integerDotProduct8BitSignedAccelerated", |s| {
        s.integer_dot_product8_bit_signed_accelerated
    }),
    ("integerDotProduct8BitMixedSignednessAccelerated", |s| {
        s.integer_dot_product8_bit_mixed_signedness_accelerated
    }),
    ("integerDotProduct4x8BitPackedUnsignedAccelerated", |s| {
        s.integer_dot_product4x8_bit_packed_unsigned_accelerated
    }),
    ("integerDotProduct4x8BitPackedSignedAccelerated", |s| {
        s.integer_dot_product4x8_bit_packed_signed_accelerated
    }),
    (
        "integerDotProduct4x8BitPackedMixedSignednessAccelerated",
        |s| s.integer_dot_product4x8_bit_packed_mixed_signedness_accelerated,
    ),
    ("integerDotProduct16BitUnsignedAccelerated", |s| {
        s.integer_dot_product16_bit_unsigned_accelerated
    }),
    ("integerDotProduct16BitSignedAccelerated", |s| {
        s.integer_dot_product16_bit_signed_accelerated
    }),
    ("integerDotProduct16BitMixedSignednessAccelerated", |s| {
        s.integer_dot_product16_bit_mixed_signedness_accelerated
    }),
    ("integerDotProduct32BitUnsignedAccelerated", |s| {
        s.integer_dot_product32_bit_unsigned_accelerated
    }),
    ("integerDotProduct32BitSignedAccelerated", |s| {
        s.integer_dot_product32_bit_signed_accelerated
    }),
    ("integerDotProduct32BitMixedSignednessAccelerated", |s| {
        s.integer_dot_product32_bit_mixed_signedness_accelerated
    }),
    ("integerDotProduct64BitUnsignedAccelerated", |s| {
        s.integer_dot_product64_bit_unsigned_accelerated
    }),
    ("integerDotProduct64BitSignedAccelerated", |s| {
        s.integer_dot_product64_bit_signed_accelerated
    }),
    ("integerDotProduct64BitMixedSignednessAccelerated", |s| {
        s.integer_dot_product64_bit_mixed_signedness_accelerated
    }),
    (
        "integerDotProductAccumulatingSaturating8BitUnsignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating8_bit_unsigned_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating8BitSignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating8_bit_signed_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating8BitMixedSignednessAccelerated",
        |s| s.integer_dot_product_accumulating_saturating8_bit_mixed_signedness_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating4x8BitPackedUnsignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating4x8_bit_packed_unsigned_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating4x8BitPackedSignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating4x8_bit_packed_signed_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating16BitUnsignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating16_bit_unsigned_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating16BitSignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating16_bit_signed_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating16BitMixedSignednessAccelerated",
        |s| s.integer_dot_product_accumulating_saturating16_bit_mixed_signedness_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating32BitUnsignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating32_bit_unsigned_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating32BitSignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating32_bit_signed_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating32BitMixedSignednessAccelerated",
        |s| s.integer_dot_product_accumulating_saturating32_bit_mixed_signedness_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating64BitUnsignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating64_bit_unsigned_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating64BitSignedAccelerated",
        |s| s.integer_dot_product_accumulating_saturating64_bit_signed_accelerated,
    ),
    (
        "integerDotProductAccumulatingSaturating64BitMixedSignednessAccelerated",
        |s| s.integer_dot_product_accumulating_saturating64_bit_mixed_signedness_accelerated,
    ),
];

/// Every name of the tables: the features and properties `Device.hasFeature` may ask about
/// beyond the runtime's own table.
pub(crate) fn all_names() -> impl Iterator<Item = &'static str> {
    CORE_FEATURES
        .iter()
        .map(|r| r.0)
        .chain(V11_FEATURES.iter().map(|r| r.0))
        .chain(V12_FEATURES.iter().map(|r| r.0))
        .chain(V13_FEATURES.iter().map(|r| r.0))
        .chain(DOT_PRODUCT_PROPERTIES.iter().map(|r| r.0))
}

/// The names of `table` whose boolean is true in `s`.
pub(crate) fn true_in<T>(table: &[Reader<T>], s: &T) -> Vec<String> {
    table
        .iter()
        .filter(|(_, read)| read(s) == vk::TRUE)
        .map(|(name, _)| name.to_string())
        .collect()
}
