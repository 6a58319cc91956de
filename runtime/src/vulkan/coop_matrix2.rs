//! `VK_NV_cooperative_matrix2`, which ash 0.38 predates: its feature and property structs by
//! hand, and the query of the flexible-dimension shapes (workgroup-scope matrices of any size
//! that is a multiple of a granularity). Recorded in [`crate::DeviceInfo`] and device profiles
//! so whether a driver reaches its tensor cores through workgroup-scope matrices can be
//! measured (docs/PERFORMANCE.md, "Tensor cores").

use ash::vk;
use serde::{Deserialize, Serialize};

/// The device extension.
pub(crate) const COOP_MATRIX2_EXT: &str = "VK_NV_cooperative_matrix2";

/// Its name for `vkCreateDevice`.
pub(crate) const COOP_MATRIX2_EXT_NAME: &std::ffi::CStr = c"VK_NV_cooperative_matrix2";

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV`.
const FEATURES_TYPE: i32 = 1_000_593_000;
/// `VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV`.
const FLEXIBLE_TYPE: i32 = 1_000_593_001;
/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV`.
const PROPERTIES_TYPE: i32 = 1_000_593_002;

/// `VkPhysicalDeviceCooperativeMatrix2FeaturesNV`, laid out as the Vulkan header declares it.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct CoopMatrix2Features {
    s_type: vk::StructureType,
    pub(crate) p_next: *mut std::ffi::c_void,
    pub(crate) workgroup_scope: vk::Bool32,
    pub(crate) flexible_dimensions: vk::Bool32,
    pub(crate) reductions: vk::Bool32,
    pub(crate) conversions: vk::Bool32,
    pub(crate) per_element_operations: vk::Bool32,
    pub(crate) tensor_addressing: vk::Bool32,
    pub(crate) block_loads: vk::Bool32,
}

impl Default for CoopMatrix2Features {
    fn default() -> Self {
        CoopMatrix2Features {
            s_type: vk::StructureType::from_raw(FEATURES_TYPE),
            p_next: std::ptr::null_mut(),
            workgroup_scope: vk::FALSE,
            flexible_dimensions: vk::FALSE,
            reductions: vk::FALSE,
            conversions: vk::FALSE,
            per_element_operations: vk::FALSE,
            tensor_addressing: vk::FALSE,
            block_loads: vk::FALSE,
        }
    }
}

// SAFETY: a `VkPhysicalDeviceFeatures2` extension struct: `sType` then `pNext` first, as
// `push_next` requires; chained only when the device lists the extension.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for CoopMatrix2Features {}
// SAFETY: as ash's own feature structs: the pointer is only followed during the Vulkan call
// that the chain is built for.
unsafe impl Send for CoopMatrix2Features {}
// SAFETY: see `Send`.
unsafe impl Sync for CoopMatrix2Features {}

/// `VkPhysicalDeviceCooperativeMatrix2PropertiesNV`.
#[repr(C)]
struct Properties {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    workgroup_scope_max_workgroup_size: u32,
    flexible_dimensions_max_dimension: u32,
    workgroup_scope_reserved_shared_memory: u32,
}

// SAFETY: a `VkPhysicalDeviceProperties2` extension struct (`sType`, `pNext` first).
unsafe impl vk::ExtendsPhysicalDeviceProperties2 for Properties {}

/// `VkCooperativeMatrixFlexibleDimensionsPropertiesNV`.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawFlexible {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    m_granularity: u32,
    n_granularity: u32,
    k_granularity: u32,
    a_type: vk::ComponentTypeKHR,
    b_type: vk::ComponentTypeKHR,
    c_type: vk::ComponentTypeKHR,
    result_type: vk::ComponentTypeKHR,
    saturating_accumulation: vk::Bool32,
    scope: vk::ScopeKHR,
    workgroup_invocations: u32,
}

/// `vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV`.
type GetFlexible =
    unsafe extern "system" fn(vk::PhysicalDevice, *mut u32, *mut RawFlexible) -> vk::Result;

/// One flexible-dimension entry: M, N and K may be any multiple of their granularity (up to
/// `max_dimension`), component types by their Cajeta names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatrixFlexible {
    /// Granularity of M (rows of A and C).
    pub m_granularity: u32,
    /// Granularity of N (columns of B and C).
    pub n_granularity: u32,
    /// Granularity of K.
    pub k_granularity: u32,
    /// Component type of A.
    pub a: String,
    /// Component type of B.
    pub b: String,
    /// Component type of C.
    pub c: String,
    /// Component type of the result.
    pub result: String,
    /// `subgroup` or `workgroup`.
    pub scope: String,
    /// For workgroup scope, the workgroup's invocation count this entry needs (0: any).
    pub workgroup_invocations: u32,
}

/// What `VK_NV_cooperative_matrix2` offers on a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatrix2Info {
    /// Features the device reports true: `cooperativeMatrixWorkgroupScope`, …
    pub features: Vec<String>,
    /// `cooperativeMatrixWorkgroupScopeMaxWorkgroupSize`.
    pub workgroup_scope_max_workgroup_size: u32,
    /// `cooperativeMatrixFlexibleDimensionsMaxDimension`.
    pub flexible_dimensions_max_dimension: u32,
    /// `cooperativeMatrixWorkgroupScopeReservedSharedMemory` (bytes).
    pub workgroup_scope_reserved_shared_memory: u32,
    /// The flexible-dimension shapes.
    pub flexible: Vec<CoopMatrixFlexible>,
}

/// Reads one feature field.
type FeatureField = fn(&CoopMatrix2Features) -> vk::Bool32;

/// The extension's features by Vulkan name, with the field each one reads.
pub(crate) const FEATURE_NAMES: [(&str, FeatureField); 7] = [
    ("cooperativeMatrixWorkgroupScope", |f| f.workgroup_scope),
    ("cooperativeMatrixFlexibleDimensions", |f| {
        f.flexible_dimensions
    }),
    ("cooperativeMatrixReductions", |f| f.reductions),
    ("cooperativeMatrixConversions", |f| f.conversions),
    ("cooperativeMatrixPerElementOperations", |f| {
        f.per_element_operations
    }),
    ("cooperativeMatrixTensorAddressing", |f| f.tensor_addressing),
    ("cooperativeMatrixBlockLoads", |f| f.block_loads),
];

/// What the extension offers on `physical`; `None` without it.
pub(crate) fn query(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    has_extension: bool,
) -> Option<CoopMatrix2Info> {
    if !has_extension {
        return None;
    }
    let mut features = CoopMatrix2Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut features);
    // SAFETY: valid physical device; the chain outlives the call.
    unsafe { instance.get_physical_device_features2(physical, &mut f2) };
    let mut props = Properties {
        s_type: vk::StructureType::from_raw(PROPERTIES_TYPE),
        p_next: std::ptr::null_mut(),
        workgroup_scope_max_workgroup_size: 0,
        flexible_dimensions_max_dimension: 0,
        workgroup_scope_reserved_shared_memory: 0,
    };
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
    // SAFETY: as above.
    unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
    let name = c"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV";
    // SAFETY: a valid instance and a NUL-terminated name.
    let raw = unsafe { entry.get_instance_proc_addr(instance.handle(), name.as_ptr()) };
    let flexible = raw
        .map(|f| {
            // SAFETY: the loader returned this command's entry point, whose signature is
            // `GetFlexible`.
            let get: GetFlexible = unsafe { std::mem::transmute(f) };
            flexible_shapes(get, physical)
        })
        .unwrap_or_default();
    Some(CoopMatrix2Info {
        features: FEATURE_NAMES
            .iter()
            .filter(|(_, read)| read(&features) == vk::TRUE)
            .map(|(n, _)| n.to_string())
            .collect(),
        workgroup_scope_max_workgroup_size: props.workgroup_scope_max_workgroup_size,
        flexible_dimensions_max_dimension: props.flexible_dimensions_max_dimension,
        workgroup_scope_reserved_shared_memory: props.workgroup_scope_reserved_shared_memory,
        flexible,
    })
}

fn flexible_shapes(get: GetFlexible, physical: vk::PhysicalDevice) -> Vec<CoopMatrixFlexible> {
    let mut count = 0u32;
    // SAFETY: the count query (null array).
    if unsafe { get(physical, &mut count, std::ptr::null_mut()) } != vk::Result::SUCCESS {
        return Vec::new();
    }
    let blank = RawFlexible {
        s_type: vk::StructureType::from_raw(FLEXIBLE_TYPE),
        p_next: std::ptr::null_mut(),
        m_granularity: 0,
        n_granularity: 0,
        k_granularity: 0,
        a_type: vk::ComponentTypeKHR::FLOAT16,
        b_type: vk::ComponentTypeKHR::FLOAT16,
        c_type: vk::ComponentTypeKHR::FLOAT16,
        result_type: vk::ComponentTypeKHR::FLOAT16,
        saturating_accumulation: vk::FALSE,
        scope: vk::ScopeKHR::SUBGROUP,
        workgroup_invocations: 0,
    };
    let mut raw = vec![blank; count as usize];
    // SAFETY: `raw` holds `count` initialized structs.
    let r = unsafe { get(physical, &mut count, raw.as_mut_ptr()) };
    if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
        return Vec::new();
    }
    raw.truncate(count as usize);
    raw.iter()
        .map(|p| CoopMatrixFlexible {
            m_granularity: p.m_granularity,
            n_granularity: p.n_granularity,
            k_granularity: p.k_granularity,
            a: crate::coop_shapes::component_name(p.a_type),
            b: crate::coop_shapes::component_name(p.b_type),
            c: crate::coop_shapes::component_name(p.c_type),
            result: crate::coop_shapes::component_name(p.result_type),
            scope: crate::coop_shapes::scope_name(p.scope),
            workgroup_invocations: p.workgroup_invocations,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn layouts_match_the_vulkan_header() {
        // sType (4) + padding (4) + pNext (8) + seven VkBool32 (28) + padding (4).
        assert_eq!(std::mem::size_of::<super::CoopMatrix2Features>(), 48);
        assert_eq!(std::mem::size_of::<super::Properties>(), 32);
        // sType, pNext, then ten 32-bit fields.
        assert_eq!(std::mem::size_of::<super::RawFlexible>(), 56);
        assert_eq!(
            std::mem::offset_of!(super::RawFlexible, workgroup_invocations),
            52
        );
    }
}
