//! The CPU device's profile: what specialization folds `Device.*` queries against when a
//! program is compiled for it (docs/cpu-device.md, "Device queries").

use super::{
    CpuDevice, MAX_SHARED_MEMORY_BYTES, MAX_WORKGROUP_COUNT, MAX_WORKGROUP_INVOCATIONS,
    MAX_WORKGROUP_SIZE,
};
use crate::{DeviceProfile, ProfileLimits, DEVICE_PROFILE_SCHEMA};

impl CpuDevice {
    /// The device as a profile: type `cpu`, a subgroup of one invocation (its subgroup
    /// operations are refused, so `Device.subgroupSize` folds to 1 and code sized by it
    /// takes its one-lane path), no optional Vulkan features or extensions (so
    /// `hasExtension`/`hasFeature` fold to `false` and kernels take their portable paths),
    /// and the launch limits [`CpuDevice::launch`] checks. Its `index` is `usize::MAX`: it is
    /// no Vulkan device's position.
    pub fn profile(&self) -> DeviceProfile {
        DeviceProfile {
            schema: DEVICE_PROFILE_SCHEMA.to_string(),
            index: usize::MAX,
            name: self.name(),
            device_type: "cpu".to_string(),
            vendor_id: 0,
            device_id: 0,
            driver_name: "cajeta-cpu".to_string(),
            driver_info: format!("{} threads", self.threads),
            api_version: String::new(),
            subgroup_size: 1,
            subgroup_size_range: [1, 1],
            subgroup_operations: Vec::new(),
            limits: ProfileLimits {
                max_compute_work_group_count: [MAX_WORKGROUP_COUNT; 3],
                max_compute_work_group_size: MAX_WORKGROUP_SIZE,
                max_compute_work_group_invocations: MAX_WORKGROUP_INVOCATIONS,
                max_compute_shared_memory_size: MAX_SHARED_MEMORY_BYTES,
                max_push_constants_size: 256,
                max_storage_buffer_range: u32::MAX,
                max_image_dimension_2d: 0,
                timestamp_period_ns: 1.0,
            },
            features: Vec::new(),
            extensions: Vec::new(),
            all_features: Some(Vec::new()),
            extension_versions: None,
            coop_matrix_shapes: Vec::new(),
            coop_matrix2: None,
        }
    }
}
