//! Optional Vulkan device features: which ones the runtime knows, how to query and enable them,
//! and which SPIR-V capabilities and extensions depend on them.
//!
//! The runtime enables every feature in [`FEATURES`] that the device supports, so a kernel that
//! the compiler specialized for the device never needs a second device. `load_kernel` checks a
//! kernel's needs against that enabled set before the driver sees the module: a module using a
//! capability the device lacks must be refused with a message, not crash the driver or lose the
//! device.

use ash::vk;

pub use crate::kernel_needs::required_features;
pub(crate) use crate::kernel_needs::{
    ExtensionNeed, CAPABILITY_FEATURES, SPIRV_EXTENSIONS, SUBGROUP_CAPABILITIES,
};

/// Which feature struct a feature lives in; decides whether the struct may be chained at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// `VkPhysicalDeviceFeatures` (Vulkan 1.0).
    Core,
    /// `VkPhysicalDeviceVulkan11Features`; only valid to chain on Vulkan 1.2+ devices.
    V11,
    /// `VkPhysicalDevice16BitStorageFeatures`; used instead of `V11` on Vulkan 1.1 devices.
    Storage16,
    /// `VkPhysicalDeviceVulkan12Features` (Vulkan 1.2+).
    V12,
    /// `VkPhysicalDeviceVulkan13Features` (Vulkan 1.3+).
    V13,
    /// `VkPhysicalDeviceShaderAtomicFloatFeaturesEXT` (`VK_EXT_shader_atomic_float`).
    AtomicFloat,
    /// `VkPhysicalDeviceCooperativeMatrixFeaturesKHR` (`VK_KHR_cooperative_matrix`).
    CoopMatrix,
    /// `VkPhysicalDeviceShaderBfloat16FeaturesKHR` (`VK_KHR_shader_bfloat16`).
    Bfloat16,
    /// `VkPhysicalDeviceCooperativeMatrix2FeaturesNV` (`VK_NV_cooperative_matrix2`).
    CoopMatrix2,
    /// `VkPhysicalDeviceShaderClockFeaturesKHR` (`VK_KHR_shader_clock`).
    ShaderClock,
    /// `VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT` (`VK_EXT_shader_atomic_float2`).
    AtomicFloat2,
    /// `VkPhysicalDeviceAccelerationStructureFeaturesKHR` (`VK_KHR_acceleration_structure`).
    AccelStruct,
    /// `VkPhysicalDeviceRayQueryFeaturesKHR` (`VK_KHR_ray_query`).
    RayQuery,
    /// `VkPhysicalDeviceRayTracingPipelineFeaturesKHR` (`VK_KHR_ray_tracing_pipeline`).
    RayTracingPipeline,
}

/// The device extension behind [`Level::AtomicFloat`].
pub(crate) const ATOMIC_FLOAT_EXT: &str = "VK_EXT_shader_atomic_float";

/// The device extension behind [`Level::ShaderClock`].
pub(crate) const SHADER_CLOCK_EXT: &str = "VK_KHR_shader_clock";

/// The device extension behind [`Level::AtomicFloat2`].
pub(crate) const ATOMIC_FLOAT2_EXT: &str = "VK_EXT_shader_atomic_float2";

/// The device extension behind [`Level::AccelStruct`].
pub(crate) const ACCEL_STRUCT_EXT: &str = "VK_KHR_acceleration_structure";

/// The device extension `VK_KHR_acceleration_structure` depends on.
pub(crate) const DEFERRED_HOST_OPS_EXT: &str = "VK_KHR_deferred_host_operations";

/// The device extension behind [`Level::RayQuery`].
pub(crate) const RAY_QUERY_EXT: &str = "VK_KHR_ray_query";

/// The device extension behind [`Level::RayTracingPipeline`].
pub(crate) const RAY_TRACING_PIPELINE_EXT: &str = "VK_KHR_ray_tracing_pipeline";

/// The device extension behind [`Level::CoopMatrix`].
pub(crate) const COOP_MATRIX_EXT: &str = "VK_KHR_cooperative_matrix";

/// The feature structs the runtime chains into `vkGetPhysicalDeviceFeatures2` and
/// `vkCreateDevice`. Kept together so one accessor table can read and write any field.
#[derive(Default)]
pub(crate) struct FeatureStructs {
    core: vk::PhysicalDeviceFeatures,
    v11: vk::PhysicalDeviceVulkan11Features<'static>,
    storage16: vk::PhysicalDevice16BitStorageFeatures<'static>,
    v12: vk::PhysicalDeviceVulkan12Features<'static>,
    v13: vk::PhysicalDeviceVulkan13Features<'static>,
    atomic_float: vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>,
    coop_matrix: vk::PhysicalDeviceCooperativeMatrixFeaturesKHR<'static>,
    bfloat16: crate::bfloat16::Bfloat16Features,
    coop_matrix2: crate::coop_matrix2::CoopMatrix2Features,
    shader_clock: vk::PhysicalDeviceShaderClockFeaturesKHR<'static>,
    atomic_float2: vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT<'static>,
    accel_struct: vk::PhysicalDeviceAccelerationStructureFeaturesKHR<'static>,
    ray_query: vk::PhysicalDeviceRayQueryFeaturesKHR<'static>,
    ray_tracing: vk::PhysicalDeviceRayTracingPipelineFeaturesKHR<'static>,
}

/// Accessor for one `VkBool32` feature field.
type Field = fn(&mut FeatureStructs) -> &mut vk::Bool32;

/// Every optional feature the runtime queries and enables, by its Vulkan name (the names the
/// reflection's `vulkan_features` uses).
const FEATURES: &[(&str, Level, Field)] = &[
    ("shaderInt64", Level::Core, |f| &mut f.core.shader_int64),
    ("shaderFloat64", Level::Core, |f| &mut f.core.shader_float64),
    ("shaderInt16", Level::Core, |f| &mut f.core.shader_int16),
    ("shaderStorageImageExtendedFormats", Level::Core, |f| {
        &mut f.core.shader_storage_image_extended_formats
    }),
    (
        "shaderStorageBufferArrayDynamicIndexing",
        Level::Core,
        |f| &mut f.core.shader_storage_buffer_array_dynamic_indexing,
    ),
    ("shaderStorageImageReadWithoutFormat", Level::Core, |f| {
        &mut f.core.shader_storage_image_read_without_format
    }),
    ("shaderStorageImageWriteWithoutFormat", Level::Core, |f| {
        &mut f.core.shader_storage_image_write_without_format
    }),
    ("storageBuffer16BitAccess", Level::V11, |f| {
        &mut f.v11.storage_buffer16_bit_access
    }),
    ("uniformAndStorageBuffer16BitAccess", Level::V11, |f| {
        &mut f.v11.uniform_and_storage_buffer16_bit_access
    }),
    ("storagePushConstant16", Level::V11, |f| {
        &mut f.v11.storage_push_constant16
    }),
    ("variablePointersStorageBuffer", Level::V11, |f| {
        &mut f.v11.variable_pointers_storage_buffer
    }),
    ("variablePointers", Level::V11, |f| {
        &mut f.v11.variable_pointers
    }),
    ("storageBuffer16BitAccess", Level::Storage16, |f| {
        &mut f.storage16.storage_buffer16_bit_access
    }),
    (
        "uniformAndStorageBuffer16BitAccess",
        Level::Storage16,
        |f| &mut f.storage16.uniform_and_storage_buffer16_bit_access,
    ),
    ("storagePushConstant16", Level::Storage16, |f| {
        &mut f.storage16.storage_push_constant16
    }),
    ("storageBuffer8BitAccess", Level::V12, |f| {
        &mut f.v12.storage_buffer8_bit_access
    }),
    ("uniformAndStorageBuffer8BitAccess", Level::V12, |f| {
        &mut f.v12.uniform_and_storage_buffer8_bit_access
    }),
    ("storagePushConstant8", Level::V12, |f| {
        &mut f.v12.storage_push_constant8
    }),
    ("shaderBufferInt64Atomics", Level::V12, |f| {
        &mut f.v12.shader_buffer_int64_atomics
    }),
    ("shaderSharedInt64Atomics", Level::V12, |f| {
        &mut f.v12.shader_shared_int64_atomics
    }),
    ("runtimeDescriptorArray", Level::V12, |f| {
        &mut f.v12.runtime_descriptor_array
    }),
    (
        "shaderStorageBufferArrayNonUniformIndexing",
        Level::V12,
        |f| &mut f.v12.shader_storage_buffer_array_non_uniform_indexing,
    ),
    ("shaderFloat16", Level::V12, |f| &mut f.v12.shader_float16),
    ("bufferDeviceAddress", Level::V12, |f| {
        &mut f.v12.buffer_device_address
    }),
    ("shaderInt8", Level::V12, |f| &mut f.v12.shader_int8),
    ("scalarBlockLayout", Level::V12, |f| {
        &mut f.v12.scalar_block_layout
    }),
    ("uniformBufferStandardLayout", Level::V12, |f| {
        &mut f.v12.uniform_buffer_standard_layout
    }),
    ("shaderSubgroupExtendedTypes", Level::V12, |f| {
        &mut f.v12.shader_subgroup_extended_types
    }),
    ("hostQueryReset", Level::V12, |f| {
        &mut f.v12.host_query_reset
    }),
    ("vulkanMemoryModel", Level::V12, |f| {
        &mut f.v12.vulkan_memory_model
    }),
    ("vulkanMemoryModelDeviceScope", Level::V12, |f| {
        &mut f.v12.vulkan_memory_model_device_scope
    }),
    ("subgroupSizeControl", Level::V13, |f| {
        &mut f.v13.subgroup_size_control
    }),
    ("computeFullSubgroups", Level::V13, |f| {
        &mut f.v13.compute_full_subgroups
    }),
    ("shaderIntegerDotProduct", Level::V13, |f| {
        &mut f.v13.shader_integer_dot_product
    }),
    ("shaderZeroInitializeWorkgroupMemory", Level::V13, |f| {
        &mut f.v13.shader_zero_initialize_workgroup_memory
    }),
    ("synchronization2", Level::V13, |f| {
        &mut f.v13.synchronization2
    }),
    ("maintenance4", Level::V13, |f| &mut f.v13.maintenance4),
    ("shaderBufferFloat32Atomics", Level::AtomicFloat, |f| {
        &mut f.atomic_float.shader_buffer_float32_atomics
    }),
    ("shaderBufferFloat32AtomicAdd", Level::AtomicFloat, |f| {
        &mut f.atomic_float.shader_buffer_float32_atomic_add
    }),
    ("shaderSharedFloat32Atomics", Level::AtomicFloat, |f| {
        &mut f.atomic_float.shader_shared_float32_atomics
    }),
    ("shaderSharedFloat32AtomicAdd", Level::AtomicFloat, |f| {
        &mut f.atomic_float.shader_shared_float32_atomic_add
    }),
    ("shaderBufferFloat64Atomics", Level::AtomicFloat, |f| {
        &mut f.atomic_float.shader_buffer_float64_atomics
    }),
    ("shaderBufferFloat64AtomicAdd", Level::AtomicFloat, |f| {
        &mut f.atomic_float.shader_buffer_float64_atomic_add
    }),
    ("cooperativeMatrix", Level::CoopMatrix, |f| {
        &mut f.coop_matrix.cooperative_matrix
    }),
    ("shaderBFloat16Type", Level::Bfloat16, |f| {
        &mut f.bfloat16.shader_bfloat16_type
    }),
    ("shaderBFloat16CooperativeMatrix", Level::Bfloat16, |f| {
        &mut f.bfloat16.shader_bfloat16_cooperative_matrix
    }),
    ("cooperativeMatrixWorkgroupScope", Level::CoopMatrix2, |f| {
        &mut f.coop_matrix2.workgroup_scope
    }),
    (
        "cooperativeMatrixFlexibleDimensions",
        Level::CoopMatrix2,
        |f| &mut f.coop_matrix2.flexible_dimensions,
    ),
    ("cooperativeMatrixReductions", Level::CoopMatrix2, |f| {
        &mut f.coop_matrix2.reductions
    }),
    ("cooperativeMatrixConversions", Level::CoopMatrix2, |f| {
        &mut f.coop_matrix2.conversions
    }),
    (
        "cooperativeMatrixPerElementOperations",
        Level::CoopMatrix2,
        |f| &mut f.coop_matrix2.per_element_operations,
    ),
    (
        "cooperativeMatrixTensorAddressing",
        Level::CoopMatrix2,
        |f| &mut f.coop_matrix2.tensor_addressing,
    ),
    ("cooperativeMatrixBlockLoads", Level::CoopMatrix2, |f| {
        &mut f.coop_matrix2.block_loads
    }),
    ("shaderSubgroupClock", Level::ShaderClock, |f| {
        &mut f.shader_clock.shader_subgroup_clock
    }),
    ("shaderDeviceClock", Level::ShaderClock, |f| {
        &mut f.shader_clock.shader_device_clock
    }),
    (
        "shaderBufferFloat32AtomicMinMax",
        Level::AtomicFloat2,
        |f| &mut f.atomic_float2.shader_buffer_float32_atomic_min_max,
    ),
    (
        "shaderSharedFloat32AtomicMinMax",
        Level::AtomicFloat2,
        |f| &mut f.atomic_float2.shader_shared_float32_atomic_min_max,
    ),
];

/// Which feature structs a device can take, from its API version and extensions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Levels {
    /// Device API minor version (1.x).
    pub minor: u32,
    /// Whether `VK_EXT_shader_atomic_float` is available.
    pub atomic_float: bool,
    /// Whether `VK_KHR_cooperative_matrix` is available.
    pub coop_matrix: bool,
    /// Whether `VK_KHR_shader_bfloat16` is available.
    pub bfloat16: bool,
    /// Whether `VK_NV_cooperative_matrix2` is available.
    pub coop_matrix2: bool,
    /// Whether `VK_KHR_shader_clock` is available.
    pub shader_clock: bool,
    /// Whether `VK_EXT_shader_atomic_float2` is available.
    pub atomic_float2: bool,
    /// Whether `VK_KHR_acceleration_structure` and `VK_KHR_deferred_host_operations` are
    /// available on a Vulkan 1.2+ device (whose 1.2 features hold `bufferDeviceAddress`).
    pub accel_struct: bool,
    /// Whether `VK_KHR_ray_query` is available too (it depends on acceleration structures).
    pub ray_query: bool,
    /// Whether `VK_KHR_ray_tracing_pipeline` is available too (likewise).
    pub ray_tracing_pipeline: bool,
}

impl Levels {
    fn allows(self, level: Level) -> bool {
        match level {
            Level::Core => true,
            Level::V11 => self.minor >= 2,
            Level::Storage16 => self.minor < 2,
            Level::V12 => self.minor >= 2,
            Level::V13 => self.minor >= 3,
            Level::AtomicFloat => self.atomic_float,
            Level::CoopMatrix => self.coop_matrix,
            Level::Bfloat16 => self.bfloat16,
            Level::CoopMatrix2 => self.coop_matrix2,
            Level::ShaderClock => self.shader_clock,
            Level::AtomicFloat2 => self.atomic_float2,
            Level::AccelStruct => self.accel_struct,
            Level::RayQuery => self.ray_query,
            Level::RayTracingPipeline => self.ray_tracing_pipeline,
        }
    }
}

impl FeatureStructs {
    /// Builds a `VkPhysicalDeviceFeatures2` chain over the structs `levels` allows and hands it
    /// to `f` (query or device creation). The `p_next` fields are reset first: `push_next`
    /// follows the pushed struct's own chain, and a stale pointer from an earlier chain would
    /// be followed into freed memory.
    pub(crate) fn with_chain<R>(
        &mut self,
        levels: Levels,
        f: impl FnOnce(&mut vk::PhysicalDeviceFeatures2<'_>) -> R,
    ) -> R {
        self.v11.p_next = std::ptr::null_mut();
        self.storage16.p_next = std::ptr::null_mut();
        self.v12.p_next = std::ptr::null_mut();
        self.v13.p_next = std::ptr::null_mut();
        self.atomic_float.p_next = std::ptr::null_mut();
        self.coop_matrix.p_next = std::ptr::null_mut();
        self.bfloat16.p_next = std::ptr::null_mut();
        self.coop_matrix2.p_next = std::ptr::null_mut();
        self.shader_clock.p_next = std::ptr::null_mut();
        self.atomic_float2.p_next = std::ptr::null_mut();
        self.accel_struct.p_next = std::ptr::null_mut();
        self.ray_query.p_next = std::ptr::null_mut();
        self.ray_tracing.p_next = std::ptr::null_mut();
        let mut features2 = vk::PhysicalDeviceFeatures2::default().features(self.core);
        if levels.allows(Level::V11) {
            features2 = features2.push_next(&mut self.v11);
        }
        if levels.allows(Level::Storage16) {
            features2 = features2.push_next(&mut self.storage16);
        }
        if levels.allows(Level::V12) {
            features2 = features2.push_next(&mut self.v12);
        }
        if levels.allows(Level::V13) {
            features2 = features2.push_next(&mut self.v13);
        }
        if levels.allows(Level::AtomicFloat) {
            features2 = features2.push_next(&mut self.atomic_float);
        }
        if levels.allows(Level::CoopMatrix) {
            features2 = features2.push_next(&mut self.coop_matrix);
        }
        if levels.allows(Level::Bfloat16) {
            features2 = features2.push_next(&mut self.bfloat16);
        }
        if levels.allows(Level::CoopMatrix2) {
            features2 = features2.push_next(&mut self.coop_matrix2);
        }
        if levels.allows(Level::ShaderClock) {
            features2 = features2.push_next(&mut self.shader_clock);
        }
        if levels.allows(Level::AtomicFloat2) {
            features2 = features2.push_next(&mut self.atomic_float2);
        }
        if levels.allows(Level::AccelStruct) {
            features2 = features2.push_next(&mut self.accel_struct);
        }
        if levels.allows(Level::RayQuery) {
            features2 = features2.push_next(&mut self.ray_query);
        }
        if levels.allows(Level::RayTracingPipeline) {
            features2 = features2.push_next(&mut self.ray_tracing);
        }
        let result = f(&mut features2);
        let core = features2.features;
        self.core = core;
        result
    }

    /// Every Vulkan 1.0-1.3 core feature of these structs that is true (the chained levels
    /// only), by Vulkan name: what a profile reports beyond the runtime's enabled table.
    pub(crate) fn reported_names(&self, levels: Levels) -> Vec<String> {
        use crate::feature_names::{
            true_in, CORE_FEATURES, V11_FEATURES, V12_FEATURES, V13_FEATURES,
        };
        let mut out = true_in(CORE_FEATURES, &self.core);
        if levels.allows(Level::V11) {
            out.extend(true_in(V11_FEATURES, &self.v11));
        }
        if levels.allows(Level::V12) {
            out.extend(true_in(V12_FEATURES, &self.v12));
        }
        if levels.allows(Level::V13) {
            out.extend(true_in(V13_FEATURES, &self.v13));
        }
        out
    }

    /// Reads the features a physical device supports.
    pub(crate) fn query(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        levels: Levels,
    ) -> FeatureStructs {
        let mut supported = FeatureStructs::default();
        supported.with_chain(levels, |chain| {
            // SAFETY: the chain only holds structs owned by `supported`, alive for this call.
            unsafe { instance.get_physical_device_features2(physical, chain) }
        });
        supported
    }

    /// The names of the supported features and a struct set with exactly those enabled.
    pub(crate) fn enable_supported(&mut self, levels: Levels) -> (FeatureStructs, Vec<String>) {
        let mut enabled = FeatureStructs::default();
        let mut names: Vec<String> = Vec::new();
        for &(name, level, field) in FEATURES {
            if levels.allows(level) && *field(self) == vk::TRUE {
                *field(&mut enabled) = vk::TRUE;
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
        }
        (enabled, names)
    }

    /// Turns on, in this set of enabled features, what building acceleration structures needs
    /// (`accelerationStructure` and `bufferDeviceAddress`) and what ray-query kernels need
    /// (`rayQuery`), where `supported` has them. These are not in [`FEATURES`]: they are
    /// enabled whenever the device offers them, also in a context made for an exact feature
    /// list, because a host program builds its scenes without any kernel asking for them.
    /// Returns the names enabled; `accelerationStructure` is absent when the device cannot
    /// build acceleration structures (and then nothing else is enabled). The names are not
    /// added to the context's enabled kernel features.
    pub(crate) fn enable_acceleration(
        &mut self,
        supported: &FeatureStructs,
        levels: Levels,
    ) -> Vec<&'static str> {
        let mut names = Vec::new();
        let ray_query = levels.allows(Level::RayQuery) && supported.ray_query.ray_query == vk::TRUE;
        let pipeline = levels.allows(Level::RayTracingPipeline)
            && supported.ray_tracing.ray_tracing_pipeline == vk::TRUE;
        // Building and sizing structures is valid only with `rayQuery` or
        // `rayTracingPipeline` enabled (VUID-vkGetAccelerationStructureBuildSizesKHR-
        // rayTracingPipeline-03617): a device with neither builds none.
        if !levels.allows(Level::AccelStruct)
            || supported.accel_struct.acceleration_structure != vk::TRUE
            || supported.v12.buffer_device_address != vk::TRUE
            || !(ray_query || pipeline)
        {
            return names;
        }
        self.accel_struct.acceleration_structure = vk::TRUE;
        self.v12.buffer_device_address = vk::TRUE;
        names.extend(["accelerationStructure", "bufferDeviceAddress"]);
        if ray_query {
            self.ray_query.ray_query = vk::TRUE;
            names.push("rayQuery");
        } else {
            // The H200's driver: acceleration structures and ray-tracing pipelines, no ray
            // queries. The pipeline feature is enabled only to make building valid.
            self.ray_tracing.ray_tracing_pipeline = vk::TRUE;
            names.push("rayTracingPipeline");
        }
        names
    }

    /// Enables `hostQueryReset` when the device supports it (Vulkan 1.2): whether it did.
    pub(crate) fn enable_host_query_reset(
        &mut self,
        supported: &FeatureStructs,
        levels: Levels,
    ) -> bool {
        let on = levels.allows(Level::V12) && supported.v12.host_query_reset == vk::TRUE;
        if on {
            self.v12.host_query_reset = vk::TRUE;
        }
        on
    }

    /// A struct set enabling only the supported features named in `only`; unknown or
    /// unsupported names are left out (the caller checks them first).
    pub(crate) fn enable_only(&mut self, levels: Levels, only: &[String]) -> FeatureStructs {
        let mut enabled = FeatureStructs::default();
        for &(name, level, field) in FEATURES {
            if levels.allows(level) && *field(self) == vk::TRUE && only.iter().any(|n| n == name) {
                *field(&mut enabled) = vk::TRUE;
            }
        }
        enabled
    }
}

/// Float-control properties (`VkPhysicalDeviceFloatControlsProperties`, Vulkan 1.2) that
/// the runtime lists among a device's features: a kernel whose SPIR-V asks for the
/// `SignedZeroInfNanPreserve` execution mode of a width needs the matching one. They are
/// properties, so nothing is enabled for them; a context simply has them or not.
pub(crate) const FLOAT_CONTROL_PROPERTIES: &[&str] = &[
    "shaderSignedZeroInfNanPreserveFloat16",
    "shaderSignedZeroInfNanPreserveFloat32",
    "shaderSignedZeroInfNanPreserveFloat64",
];

/// The float-control properties a device has, by name.
pub(crate) fn float_control_names(p: &vk::PhysicalDeviceFloatControlsProperties) -> Vec<String> {
    let has = [
        p.shader_signed_zero_inf_nan_preserve_float16,
        p.shader_signed_zero_inf_nan_preserve_float32,
        p.shader_signed_zero_inf_nan_preserve_float64,
    ];
    FLOAT_CONTROL_PROPERTIES
        .iter()
        .zip(has)
        .filter(|(_, h)| *h == vk::TRUE)
        .map(|(n, _)| n.to_string())
        .collect()
}

/// Whether the runtime knows (and so would have enabled, if supported) a feature name.
pub(crate) fn is_known_feature(name: &str) -> bool {
    FEATURES.iter().any(|&(n, _, _)| n == name) || FLOAT_CONTROL_PROPERTIES.contains(&name)
}

/// The Vulkan features the runtime knows, by Vulkan name, without repeats: the names a device
/// profile's `features` can hold (the runtime's enabled table, first) and then every other
/// Vulkan 1.0-1.3 core feature and integer dot-product property (`all_features`): what
/// `Device.hasFeature` accepts.
pub fn known_features() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for &(n, _, _) in FEATURES {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out.extend(FLOAT_CONTROL_PROPERTIES);
    for n in crate::feature_names::all_names() {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}
