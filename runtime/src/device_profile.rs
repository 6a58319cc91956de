//! Device profiles (SPEC §8): the JSON `cajetac devices --json` writes and
//! `cajetac build --device-profile FILE|auto` reads. The schema is documented in
//! `docs/runtime.md`; it only grows by optional fields, and `schema` names its version.

use ash::vk;
use serde::{Deserialize, Serialize};

use crate::device::{DeviceInfo, DeviceType};
use crate::error::Result;
use crate::features::{CAPABILITY_FEATURES, SUBGROUP_CAPABILITIES};
use crate::reflection::Reflection;

/// The `schema` value of this version of the format.
pub const DEVICE_PROFILE_SCHEMA: &str = "cajeta-device-profile/1";

/// Subgroup operation names, in `VkSubgroupFeatureFlagBits` order.
const SUBGROUP_OPS: [(vk::SubgroupFeatureFlags, &str); 8] = [
    (vk::SubgroupFeatureFlags::BASIC, "basic"),
    (vk::SubgroupFeatureFlags::VOTE, "vote"),
    (vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic"),
    (vk::SubgroupFeatureFlags::BALLOT, "ballot"),
    (vk::SubgroupFeatureFlags::SHUFFLE, "shuffle"),
    (
        vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
        "shuffle_relative",
    ),
    (vk::SubgroupFeatureFlags::CLUSTERED, "clustered"),
    (vk::SubgroupFeatureFlags::QUAD, "quad"),
];

/// The names of the operations in `flags`.
pub(crate) fn subgroup_op_names(flags: vk::SubgroupFeatureFlags) -> Vec<String> {
    SUBGROUP_OPS
        .iter()
        .filter(|(f, _)| flags.contains(*f))
        .map(|(_, n)| n.to_string())
        .collect()
}

/// The limits a profile records (the ones the compiler and launch checks use).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileLimits {
    /// `maxComputeWorkGroupCount`.
    pub max_compute_work_group_count: [u32; 3],
    /// `maxComputeWorkGroupSize`.
    pub max_compute_work_group_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`.
    pub max_compute_work_group_invocations: u32,
    /// `maxComputeSharedMemorySize` in bytes.
    pub max_compute_shared_memory_size: u32,
    /// `maxPushConstantsSize` in bytes.
    pub max_push_constants_size: u32,
    /// `maxStorageBufferRange` in bytes.
    pub max_storage_buffer_range: u32,
    /// `maxImageDimension2D` in texels.
    pub max_image_dimension_2d: u32,
    /// `timestampPeriod` in nanoseconds.
    pub timestamp_period_ns: f32,
}

/// The limits `Device.limit("…")` answers, by Vulkan name (`maxComputeWorkGroupSize[0]` is
/// `maxComputeWorkGroupSizeX`), each with the minimum Vulkan guarantees on every device: the
/// value without a profile.
pub const COMPUTE_LIMITS: &[(&str, u32)] = &[
    ("maxComputeSharedMemorySize", 16384),
    ("maxComputeWorkGroupCountX", 65535),
    ("maxComputeWorkGroupCountY", 65535),
    ("maxComputeWorkGroupCountZ", 65535),
    ("maxComputeWorkGroupInvocations", 128),
    ("maxComputeWorkGroupSizeX", 128),
    ("maxComputeWorkGroupSizeY", 128),
    ("maxComputeWorkGroupSizeZ", 64),
    ("maxPushConstantsSize", 128),
    ("maxStorageBufferRange", 1 << 27),
    ("maxImageDimension2D", 4096),
];

/// What the compiler may assume about a device. Serialized as the JSON of
/// `cajetac devices --json` (an array of these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceProfile {
    /// Format version: [`DEVICE_PROFILE_SCHEMA`].
    pub schema: String,
    /// Index in the device list (what `CAJETA_DEVICE=<index>` selects).
    pub index: usize,
    /// `deviceName`.
    pub name: String,
    /// `discrete_gpu`, `integrated_gpu`, `virtual_gpu`, `cpu` or `other`.
    pub device_type: String,
    /// PCI vendor id (`0x10de` NVIDIA, `0x1002` AMD, `0x8086` Intel, `0x10005` Mesa CPU).
    pub vendor_id: u32,
    /// Vendor-specific device id.
    pub device_id: u32,
    /// `driverName` (empty on Vulkan 1.1 devices).
    pub driver_name: String,
    /// `driverInfo` (empty on Vulkan 1.1 devices).
    pub driver_info: String,
    /// Device Vulkan version, `major.minor.patch`.
    pub api_version: String,
    /// `subgroupSize`.
    pub subgroup_size: u32,
    /// The subgroup sizes a kernel may require (`[min, max]`; `[0, 0]`: none, or unknown in
    /// a profile saved before the runtime recorded it).
    #[serde(default)]
    pub subgroup_size_range: [u32; 2],
    /// Subgroup operations in compute: `basic`, `vote`, `arithmetic`, `ballot`, `shuffle`,
    /// `shuffle_relative`, `clustered`, `quad`.
    pub subgroup_operations: Vec<String>,
    /// Limits.
    pub limits: ProfileLimits,
    /// Optional Vulkan features the device supports (the runtime's known set), by Vulkan name.
    pub features: Vec<String>,
    /// Device extensions.
    pub extensions: Vec<String>,
    /// Every Vulkan 1.0-1.3 core feature and integer dot-product property the device reports
    /// true, enabled by the runtime or not (`robustBufferAccess`, `integerDotProduct…`);
    /// `None` in a profile saved before the runtime recorded them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_features: Option<Vec<String>>,
    /// `specVersion` of each extension; `None` in a profile saved before the runtime
    /// recorded them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_versions: Option<std::collections::BTreeMap<String, u32>>,
    /// The cooperative-matrix shapes the device lists (empty: none, or a profile saved
    /// before the runtime recorded them; then no shape is checked).
    #[serde(default)]
    pub coop_matrix_shapes: Vec<crate::CoopMatrixShape>,
    /// What `VK_NV_cooperative_matrix2` offers; absent without it (or in a profile saved
    /// before the runtime recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coop_matrix2: Option<crate::CoopMatrix2Info>,
}

fn type_name(t: DeviceType) -> &'static str {
    match t {
        DeviceType::DiscreteGpu => "discrete_gpu",
        DeviceType::IntegratedGpu => "integrated_gpu",
        DeviceType::VirtualGpu => "virtual_gpu",
        DeviceType::Cpu => "cpu",
        DeviceType::Other => "other",
    }
}

impl DeviceProfile {
    /// The profile of a listed device.
    pub fn from_info(d: &DeviceInfo) -> DeviceProfile {
        let l = &d.limits;
        DeviceProfile {
            schema: DEVICE_PROFILE_SCHEMA.to_string(),
            index: d.index,
            name: d.name.clone(),
            device_type: type_name(d.device_type).to_string(),
            vendor_id: d.vendor_id,
            device_id: d.device_id,
            driver_name: d.driver_name.clone(),
            driver_info: d.driver_info.clone(),
            api_version: d.api_version.clone(),
            subgroup_size: d.subgroup_size,
            subgroup_size_range: d.subgroup_size_range,
            subgroup_operations: d.subgroup_operations.clone(),
            limits: ProfileLimits {
                max_compute_work_group_count: l.max_compute_work_group_count,
                max_compute_work_group_size: l.max_compute_work_group_size,
                max_compute_work_group_invocations: l.max_compute_work_group_invocations,
                max_compute_shared_memory_size: l.max_compute_shared_memory_size,
                max_push_constants_size: l.max_push_constants_size,
                max_storage_buffer_range: l.max_storage_buffer_range,
                max_image_dimension_2d: l.max_image_dimension_2d,
                timestamp_period_ns: l.timestamp_period_ns,
            },
            features: d.features.clone(),
            extensions: d.extensions.clone(),
            all_features: Some(d.all_features.clone()),
            extension_versions: Some(d.extension_versions.iter().cloned().collect()),
            coop_matrix_shapes: d.coop_matrix_shapes.clone(),
            coop_matrix2: d.coop_matrix2.clone(),
        }
    }

    /// Profiles of every usable device, in list order.
    pub fn list() -> Result<Vec<DeviceProfile>> {
        Ok(crate::device::list_devices()?
            .iter()
            .map(DeviceProfile::from_info)
            .collect())
    }

    /// The profile of the device a `Context` would pick now (`CAJETA_DEVICE`, else the best
    /// type): what `--device-profile auto` uses.
    pub fn auto() -> Result<DeviceProfile> {
        let devices = crate::device::list_devices()?;
        let selector = std::env::var("CAJETA_DEVICE").ok();
        let i = crate::device::select_info(&devices, selector.as_deref())?;
        Ok(DeviceProfile::from_info(&devices[i]))
    }

    /// Parses a profile: one profile object, or the array `cajetac devices --json` prints
    /// (the entry `CAJETA_DEVICE` would select, else the best device type). `Err` says what
    /// is wrong.
    pub fn from_json(text: &str) -> std::result::Result<DeviceProfile, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let parse = |v: serde_json::Value| {
            serde_json::from_value::<DeviceProfile>(v)
                .map_err(|e| format!("not a device profile: {e}"))
        };
        let profile = match value {
            serde_json::Value::Array(items) => {
                let all: Vec<DeviceProfile> = items
                    .into_iter()
                    .map(parse)
                    .collect::<std::result::Result<_, _>>()?;
                let rank = |p: &DeviceProfile| {
                    ["discrete_gpu", "integrated_gpu", "virtual_gpu", "cpu"]
                        .iter()
                        .position(|t| *t == p.device_type)
                        .unwrap_or(4)
                };
                let wanted = std::env::var("CAJETA_DEVICE").ok();
                let by_selector = wanted.as_deref().and_then(|s| {
                    all.iter().find(|p| {
                        s.parse::<usize>().ok() == Some(p.index)
                            || p.name.to_lowercase().contains(&s.to_lowercase())
                    })
                });
                match by_selector.or_else(|| all.iter().min_by_key(|p| rank(p))) {
                    Some(p) => p.clone(),
                    None => return Err("the profile list is empty".into()),
                }
            }
            other => parse(other)?,
        };
        if !profile.schema.starts_with("cajeta-device-profile/") {
            return Err(format!("unknown schema `{}`", profile.schema));
        }
        Ok(profile)
    }

    /// Pretty JSON of one profile.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Device Vulkan minor version (1.x).
    pub fn api_minor(&self) -> u32 {
        self.api_version
            .split('.')
            .nth(1)
            .and_then(|m| m.parse().ok())
            .unwrap_or(1)
    }

    /// Whether the device has `feature`.
    /// A name of the runtime's own table is answered by `features` (what a context enables,
    /// so a profile edited to drop one drops it); any other core feature by `all_features`.
    pub fn has_feature(&self, feature: &str) -> bool {
        if crate::features::is_known_feature(feature) {
            return self.features.iter().any(|f| f == feature);
        }
        self.all_features
            .as_ref()
            .is_some_and(|all| all.iter().any(|f| f == feature))
    }

    /// `specVersion` of `extension`: 0 when the device lacks it, `None` when the profile
    /// does not record versions (saved by an older runtime).
    pub fn extension_version(&self, extension: &str) -> Option<u32> {
        if !self.has_extension(extension) {
            return Some(0);
        }
        self.extension_versions.as_ref()?.get(extension).copied()
    }

    /// Whether `feature` is one the profile can answer for: the runtime's own table always,
    /// every other Vulkan core feature only when the profile records `all_features`.
    pub fn answers_feature(&self, feature: &str) -> bool {
        self.all_features.is_some() || crate::features::is_known_feature(feature)
    }

    /// The compute limit `name` (one of [`COMPUTE_LIMITS`]) of this device.
    pub fn limit(&self, name: &str) -> Option<u32> {
        let l = &self.limits;
        Some(match name {
            "maxComputeSharedMemorySize" => l.max_compute_shared_memory_size,
            "maxComputeWorkGroupCountX" => l.max_compute_work_group_count[0],
            "maxComputeWorkGroupCountY" => l.max_compute_work_group_count[1],
            "maxComputeWorkGroupCountZ" => l.max_compute_work_group_count[2],
            "maxComputeWorkGroupInvocations" => l.max_compute_work_group_invocations,
            "maxComputeWorkGroupSizeX" => l.max_compute_work_group_size[0],
            "maxComputeWorkGroupSizeY" => l.max_compute_work_group_size[1],
            "maxComputeWorkGroupSizeZ" => l.max_compute_work_group_size[2],
            "maxPushConstantsSize" => l.max_push_constants_size,
            "maxStorageBufferRange" => l.max_storage_buffer_range,
            "maxImageDimension2D" => l.max_image_dimension_2d,
            _ => return None,
        })
    }

    /// Whether the device offers `extension`.
    pub fn has_extension(&self, extension: &str) -> bool {
        self.extensions.iter().any(|e| e == extension)
    }

    /// Checks a compiled kernel against the profile; `Err` names the first requirement the
    /// device lacks (feature, capability, subgroup operation, Vulkan version, push-constant
    /// size).
    pub fn check(&self, r: &Reflection) -> std::result::Result<(), String> {
        if let Some(m) = r
            .target_env
            .strip_prefix("vulkan1.")
            .and_then(|m| m.parse::<u32>().ok())
        {
            if m > self.api_minor() {
                return Err(format!("target environment {}", r.target_env));
            }
        }
        for f in &r.vulkan_features {
            if !self.has_feature(f) {
                return Err(format!("Vulkan feature `{f}`"));
            }
        }
        for (cap, feature) in CAPABILITY_FEATURES {
            if r.capabilities.iter().any(|c| c == cap) && !self.has_feature(feature) {
                return Err(format!(
                    "SPIR-V capability `{cap}` (Vulkan feature `{feature}`)"
                ));
            }
        }
        for (cap, op) in SUBGROUP_CAPABILITIES {
            let names = subgroup_op_names(*op);
            if r.capabilities.iter().any(|c| c == cap)
                && !names.iter().all(|n| self.subgroup_operations.contains(n))
            {
                return Err(format!(
                    "SPIR-V capability `{cap}` (subgroup operations {})",
                    names.join(", ")
                ));
            }
        }
        // A profile that lists shapes must list every one the kernel multiplies in.
        let fallback = [crate::CoopMatrixShape::emitted()];
        let used = if r.coop_matrix_shapes.is_empty()
            && r.capabilities.iter().any(|c| c == "CooperativeMatrixKHR")
        {
            &fallback[..]
        } else {
            &r.coop_matrix_shapes[..]
        };
        if !self.coop_matrix_shapes.is_empty() {
            if let Some(s) = used.iter().find(|s| !self.coop_matrix_shapes.contains(s)) {
                return Err(format!(
                    "cooperative matrices {s} (the device offers: {})",
                    crate::coop_shapes::list_text(&self.coop_matrix_shapes)
                ));
            }
        }
        if let Some(n) = r.required_subgroup_size {
            subgroup_size_allowed(n, self.subgroup_size_range)?;
        }
        let max = self.limits.max_compute_shared_memory_size;
        if r.static_shared_bytes > max {
            return Err(format!(
                "{} bytes of shared memory (maxComputeSharedMemorySize = {max})",
                r.static_shared_bytes
            ));
        }
        if r.push_constants.size > self.limits.max_push_constants_size {
            return Err(format!(
                "a push-constant block of {} bytes (maxPushConstantsSize = {})",
                r.push_constants.size, self.limits.max_push_constants_size
            ));
        }
        Ok(())
    }
}

/// Whether a kernel may require subgroup size `n` (`@Wave(width = n)`) on a device whose
/// compute subgroups can be sized within `range` (`[0, 0]`: not at all); the error names
/// what the device allows.
pub(crate) fn subgroup_size_allowed(n: u32, range: [u32; 2]) -> std::result::Result<(), String> {
    match range {
        [0, 0] => Err(format!(
            "a required subgroup width of {n} (@Wave): the device cannot set the subgroup size of compute shaders"
        )),
        [lo, hi] if n < lo || n > hi => Err(format!(
            "a required subgroup width of {n} (@Wave): the device's compute subgroups are {lo} to {hi} wide"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CoopMatrixShape;

    fn sample(name: &str, device_type: &str, index: usize) -> DeviceProfile {
        DeviceProfile {
            schema: DEVICE_PROFILE_SCHEMA.into(),
            index,
            name: name.into(),
            device_type: device_type.into(),
            vendor_id: 0x10de,
            device_id: 1,
            driver_name: String::new(),
            driver_info: String::new(),
            api_version: "1.2.0".into(),
            subgroup_size: 32,
            subgroup_size_range: [32, 32],
            subgroup_operations: vec!["basic".into(), "vote".into()],
            limits: ProfileLimits {
                max_compute_work_group_count: [65535; 3],
                max_compute_work_group_size: [1024, 1024, 64],
                max_compute_work_group_invocations: 1024,
                max_compute_shared_memory_size: 49152,
                max_push_constants_size: 128,
                max_storage_buffer_range: u32::MAX,
                max_image_dimension_2d: 16384,
                timestamp_period_ns: 1.0,
            },
            features: vec!["shaderInt64".into()],
            extensions: vec![],
            all_features: None,
            extension_versions: None,
            coop_matrix_shapes: vec![],
            coop_matrix2: None,
        }
    }

    #[test]
    fn lists_pick_the_best_device_and_bad_json_is_named() {
        let list = vec![sample("cpu", "cpu", 0), sample("gpu", "discrete_gpu", 1)];
        let text = serde_json::to_string(&list).unwrap();
        assert_eq!(DeviceProfile::from_json(&text).unwrap().name, "gpu");
        let one = DeviceProfile::from_json(&list[0].to_json()).unwrap();
        assert_eq!(one, list[0]);
        assert!(DeviceProfile::from_json("[]")
            .unwrap_err()
            .contains("empty"));
        assert!(DeviceProfile::from_json("{")
            .unwrap_err()
            .starts_with("not JSON"));
        assert!(DeviceProfile::from_json("{}")
            .unwrap_err()
            .starts_with("not a device profile"));
        let mut other = list[0].clone();
        other.schema = "something/2".into();
        assert!(DeviceProfile::from_json(&other.to_json())
            .unwrap_err()
            .contains("unknown schema"));
    }

    #[test]
    fn check_names_what_the_device_lacks() {
        let p = sample("gpu", "discrete_gpu", 0);
        let mut r: Reflection = serde_json::from_value(serde_json::json!({
            "entry_point": "k", "spirv_version": "1.3", "target_env": "vulkan1.1",
            "workgroup_size_spec_ids": [0, 1, 2], "default_workgroup_size": [64, 1, 1],
            "bindings": [], "push_constants": {"size": 0, "members": []},
            "spec_constants": [], "capabilities": ["Shader", "Int64"], "extensions": [],
            "vulkan_features": [], "precision_variant": "fp32", "parameters": []
        }))
        .unwrap();
        assert_eq!(p.check(&r), Ok(()));
        r.capabilities.push("Float64".into());
        assert_eq!(
            p.check(&r).unwrap_err(),
            "SPIR-V capability `Float64` (Vulkan feature `shaderFloat64`)"
        );
        r.capabilities.pop();
        r.capabilities.push("GroupNonUniformBallot".into());
        assert!(p.check(&r).unwrap_err().contains("ballot"));
        r.capabilities.pop();
        r.target_env = "vulkan1.3".into();
        assert_eq!(p.check(&r).unwrap_err(), "target environment vulkan1.3");
        r.target_env = "vulkan1.1".into();
        // Cooperative matrices: checked against the listed shapes when there are any.
        let mut p = p;
        p.features.push("cooperativeMatrix".into());
        r.capabilities.push("CooperativeMatrixKHR".into());
        assert_eq!(p.check(&r), Ok(()));
        let mut other = CoopMatrixShape::emitted();
        other.n = 8;
        p.coop_matrix_shapes = vec![other];
        assert_eq!(
            p.check(&r).unwrap_err(),
            "cooperative matrices 16x16x16 float16 x float16 + float32 at subgroup scope \
             (the device offers: 16x8x16 float16 float32)"
        );
        p.coop_matrix_shapes.push(CoopMatrixShape::emitted());
        assert_eq!(p.check(&r), Ok(()));
        // A kernel that records its shapes is checked against those instead.
        r.coop_matrix_shapes = vec![CoopMatrixShape::subgroup16("float16", "float16")];
        assert!(p.check(&r).unwrap_err().starts_with(
            "cooperative matrices 16x16x16 float16 x float16 + float16 at subgroup scope \
             (the device offers: 16x8x16 float16 float32"
        ));
        p.coop_matrix_shapes = r.coop_matrix_shapes.clone();
        assert_eq!(p.check(&r), Ok(()));
        r.coop_matrix_shapes.clear();
        r.capabilities.pop();
        r.push_constants.size = 256;
        assert!(p
            .check(&r)
            .unwrap_err()
            .contains("maxPushConstantsSize = 128"));
    }
}
