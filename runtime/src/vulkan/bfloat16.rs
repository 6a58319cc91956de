//! `VK_KHR_shader_bfloat16`, which ash 0.38 predates: the feature struct by hand, for the
//! bf16s precision variant (SPEC §8; SPIR-V `SPV_KHR_bfloat16`, `BFloat16TypeKHR`).

use ash::vk;

/// The device extension.
pub(crate) const BFLOAT16_EXT: &str = "VK_KHR_shader_bfloat16";

/// Its name for `vkCreateDevice`.
pub(crate) const BFLOAT16_EXT_NAME: &std::ffi::CStr = c"VK_KHR_shader_bfloat16";

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR`.
const STRUCTURE_TYPE: i32 = 1_000_141_000;

/// `VkPhysicalDeviceShaderBfloat16FeaturesKHR`, laid out as the Vulkan header declares it.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Bfloat16Features {
    s_type: vk::StructureType,
    pub(crate) p_next: *mut std::ffi::c_void,
    pub(crate) shader_bfloat16_type: vk::Bool32,
    pub(crate) shader_bfloat16_dot_product: vk::Bool32,
    pub(crate) shader_bfloat16_cooperative_matrix: vk::Bool32,
}

impl Default for Bfloat16Features {
    fn default() -> Self {
        Bfloat16Features {
            s_type: vk::StructureType::from_raw(STRUCTURE_TYPE),
            p_next: std::ptr::null_mut(),
            shader_bfloat16_type: vk::FALSE,
            shader_bfloat16_dot_product: vk::FALSE,
            shader_bfloat16_cooperative_matrix: vk::FALSE,
        }
    }
}

// SAFETY: a `VkPhysicalDeviceFeatures2` extension struct: `sType` then `pNext` first, as
// `push_next` requires; chained only when the device lists the extension.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for Bfloat16Features {}
// SAFETY: as ash's own feature structs: the pointer is only followed during the Vulkan call
// that the chain is built for.
unsafe impl Send for Bfloat16Features {}
// SAFETY: see `Send`.
unsafe impl Sync for Bfloat16Features {}

#[cfg(test)]
mod tests {
    #[test]
    fn layout_matches_the_vulkan_header() {
        // sType (4) + padding (4) + pNext (8) + three VkBool32 (12) + padding (4).
        assert_eq!(std::mem::size_of::<super::Bfloat16Features>(), 32);
        assert_eq!(std::mem::offset_of!(super::Bfloat16Features, p_next), 8);
        assert_eq!(
            std::mem::offset_of!(super::Bfloat16Features, shader_bfloat16_type),
            16
        );
    }
}
