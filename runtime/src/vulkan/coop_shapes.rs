//! The cooperative-matrix shapes a device offers (`vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`,
//! `VK_KHR_cooperative_matrix`), recorded in [`crate::DeviceInfo`] and device profiles so the
//! compiler can refuse a matrix shape or type the device does not list.

use ash::vk;
use serde::{Deserialize, Serialize};

/// One `VkCooperativeMatrixPropertiesKHR`: `A (M×K) × B (K×N) + C (M×N)`, component types by
/// their Cajeta names (`float16`, `bfloat16`, `float32`, `int8`, `uint8`, `int32`…).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatrixShape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Component type of A.
    pub a: String,
    /// Component type of B.
    pub b: String,
    /// Component type of C (the accumulator).
    pub c: String,
    /// Component type of the result.
    pub result: String,
    /// `subgroup`, `workgroup`… (the `VkScopeKHR`).
    pub scope: String,
}

impl CoopMatrixShape {
    /// The default form: 16×16×16, float16 × float16 + float32 at subgroup scope.
    pub fn emitted() -> CoopMatrixShape {
        CoopMatrixShape::subgroup16("float16", "float32")
    }

    /// 16×16×16 at subgroup scope, A and B of type `ab`, accumulator and result of type `acc`
    /// (the shapes the compiler emits).
    pub fn subgroup16(ab: &str, acc: &str) -> CoopMatrixShape {
        CoopMatrixShape::subgroup([16, 16, 16], ab, ab, acc)
    }

    /// `[m, n, k]` at subgroup scope: A of type `a` (M×K), B of type `b` (K×N), accumulator
    /// and result of type `acc` (M×N).
    pub fn subgroup([m, n, k]: [u32; 3], a: &str, b: &str, acc: &str) -> CoopMatrixShape {
        CoopMatrixShape {
            m,
            n,
            k,
            a: a.into(),
            b: b.into(),
            c: acc.into(),
            result: acc.into(),
            scope: "subgroup".into(),
        }
    }
}

/// `16x8x32 int8 x int8 + int32 at subgroup scope` (the result type added where it differs
/// from the accumulator's).
impl std::fmt::Display for CoopMatrixShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{} {} x {} + {}",
            self.m, self.n, self.k, self.a, self.b, self.c
        )?;
        if self.result != self.c {
            write!(f, " -> {}", self.result)?;
        }
        write!(f, " at {} scope", self.scope)
    }
}

impl CoopMatrixShape {
    /// The shape as `Device.hasCoopMatrix` spells it (`"16x8x32 int8 int32"`) where that form
    /// can say it (subgroup scope, A and B of one type, result of the accumulator's), the
    /// long form otherwise.
    pub fn query_form(&self) -> String {
        if self.scope == "subgroup" && self.a == self.b && self.c == self.result {
            format!("{}x{}x{} {} {}", self.m, self.n, self.k, self.a, self.c)
        } else {
            self.to_string()
        }
    }
}

/// A device's list of shapes for messages that say what it offers: each in
/// [`CoopMatrixShape::query_form`], `, `-separated; `none` for an empty list.
pub(crate) fn list_text(list: &[CoopMatrixShape]) -> String {
    if list.is_empty() {
        return "none".into();
    }
    let names: Vec<String> = list.iter().map(|s| s.query_form()).collect();
    names.join(", ")
}

/// A component type by its Cajeta name.
pub(crate) fn component_name(t: vk::ComponentTypeKHR) -> String {
    match t {
        vk::ComponentTypeKHR::FLOAT16 => "float16".into(),
        vk::ComponentTypeKHR::FLOAT32 => "float32".into(),
        vk::ComponentTypeKHR::FLOAT64 => "float64".into(),
        vk::ComponentTypeKHR::SINT8 => "int8".into(),
        vk::ComponentTypeKHR::SINT16 => "int16".into(),
        vk::ComponentTypeKHR::SINT32 => "int32".into(),
        vk::ComponentTypeKHR::SINT64 => "int64".into(),
        vk::ComponentTypeKHR::UINT8 => "uint8".into(),
        vk::ComponentTypeKHR::UINT16 => "uint16".into(),
        vk::ComponentTypeKHR::UINT32 => "uint32".into(),
        vk::ComponentTypeKHR::UINT64 => "uint64".into(),
        // VK_COMPONENT_TYPE_BFLOAT16_KHR (VK_KHR_shader_bfloat16), newer than ash's enum.
        t if t.as_raw() == 1_000_141_000 => "bfloat16".into(),
        t => format!("component type {}", t.as_raw()),
    }
}

/// A scope by its lower-case name.
pub(crate) fn scope_name(s: vk::ScopeKHR) -> String {
    match s {
        vk::ScopeKHR::DEVICE => "device".into(),
        vk::ScopeKHR::WORKGROUP => "workgroup".into(),
        vk::ScopeKHR::SUBGROUP => "subgroup".into(),
        vk::ScopeKHR::QUEUE_FAMILY => "queue_family".into(),
        s => format!("scope {}", s.as_raw()),
    }
}

/// The shapes of `physical`, empty when the device lacks the extension or the query fails.
pub(crate) fn query(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    has_extension: bool,
) -> Vec<CoopMatrixShape> {
    if !has_extension {
        return Vec::new();
    }
    let khr = ash::khr::cooperative_matrix::Instance::new(entry, instance);
    // SAFETY: `physical` came from `instance`, which has the extension's instance-level
    // command (the device lists VK_KHR_cooperative_matrix).
    let props = unsafe { khr.get_physical_device_cooperative_matrix_properties(physical) };
    props
        .unwrap_or_default()
        .iter()
        .map(|p| CoopMatrixShape {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            a: component_name(p.a_type),
            b: component_name(p.b_type),
            c: component_name(p.c_type),
            result: component_name(p.result_type),
            scope: scope_name(p.scope),
        })
        .collect()
}

/// Load-time check: every shape a kernel multiplies in (`used`, its reflection's list) must be
/// one the device lists (`offered`). `Err` names the first missing one, with the device's list,
/// or says the device has no `VK_KHR_cooperative_matrix` (`has_extension` false). A device
/// that has the extension but reported no shapes (the query failed) is left to the driver.
pub(crate) fn check_kernel(
    offered: &[CoopMatrixShape],
    has_extension: bool,
    used: &[CoopMatrixShape],
) -> Result<(), String> {
    if has_extension && offered.is_empty() {
        return Ok(());
    }
    match used.iter().find(|s| !offered.contains(s)) {
        Some(s) if !has_extension => Err(format!(
            "cooperative matrices {s} (the device has no VK_KHR_cooperative_matrix)"
        )),
        Some(s) => Err(format!(
            "cooperative matrices {s} (the device offers: {})",
            list_text(offered)
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_needs_every_shape_it_multiplies_in_listed() {
        let int8 = CoopMatrixShape::subgroup([16, 16, 32], "int8", "int8", "int32");
        let f16 = CoopMatrixShape::subgroup16("float16", "float32");
        let mixed = CoopMatrixShape::subgroup([16, 16, 32], "int8", "uint8", "int32");
        let list = [f16.clone(), int8.clone()];
        assert_eq!(
            check_kernel(&list, true, &[int8.clone(), f16.clone()]),
            Ok(())
        );
        assert_eq!(
            check_kernel(&list, true, &[f16.clone(), mixed.clone()]).unwrap_err(),
            "cooperative matrices 16x16x32 int8 x uint8 + int32 at subgroup scope (the device \
             offers: 16x16x16 float16 float32, 16x16x32 int8 int32)"
        );
        assert_eq!(
            check_kernel(&[], false, std::slice::from_ref(&int8)).unwrap_err(),
            "cooperative matrices 16x16x32 int8 x int8 + int32 at subgroup scope (the device \
             has no VK_KHR_cooperative_matrix)"
        );
        // No shapes used, or a device whose list could not be read: nothing to refuse.
        assert_eq!(check_kernel(&[], false, &[]), Ok(()));
        assert_eq!(check_kernel(&[], true, &[mixed]), Ok(()));
    }
}
