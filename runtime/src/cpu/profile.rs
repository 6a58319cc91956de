//! The CPU device's profile: what specialization folds `Device.*` queries against when a
//! program is compiled for it (docs/cpu-device.md, "Device queries").

use super::{
    CpuDevice, MAX_SHARED_MEMORY_BYTES, MAX_WORKGROUP_COUNT, MAX_WORKGROUP_INVOCATIONS,
    MAX_WORKGROUP_SIZE,
};
use crate::{DeviceProfile, ProfileLimits, DEVICE_PROFILE_SCHEMA};

impl CpuDevice {
    /// The device as a profile: type `cpu`, a subgroup of one invocation (so
    /// `Device.subgroupSize` folds to 1 and code sized by it takes its one-lane path) whose
    /// operations all run but quad ones, the features of the types it runs natively
    /// (`CPU_FEATURES`) and no extensions (so `hasExtension` folds to `false` and kernels take
    /// their portable paths), and the launch and image limits it checks. Its `index` is `usize::MAX`: it is
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
            // Every subgroup operation runs, on a subgroup of one, but quad ones (E0048).
            subgroup_operations: ["basic", "vote", "arithmetic", "ballot", "shuffle"]
                .into_iter()
                .chain(["shuffle_relative", "clustered"])
                .map(String::from)
                .collect(),
            limits: ProfileLimits {
                max_compute_work_group_count: [MAX_WORKGROUP_COUNT; 3],
                max_compute_work_group_size: MAX_WORKGROUP_SIZE,
                max_compute_work_group_invocations: MAX_WORKGROUP_INVOCATIONS,
                max_compute_shared_memory_size: MAX_SHARED_MEMORY_BYTES,
                max_push_constants_size: 256,
                max_storage_buffer_range: u32::MAX,
                max_image_dimension_2d: super::image::MAX_IMAGE_DIMENSION_2D,
                timestamp_period_ns: 1.0,
            },
            features: CPU_FEATURES.iter().map(|f| f.to_string()).collect(),
            extensions: Vec::new(),
            all_features: Some(CPU_FEATURES.iter().map(|f| f.to_string()).collect()),
            extension_versions: None,
            coop_matrix_shapes: Vec::new(),
            coop_matrix2: None,
        }
    }
}

/// The Vulkan features whose SPIR-V forms the CPU device's kernels run: its types are LLVM's,
/// so 8-, 16- and 64-bit integers and floats are native in buffers, push constants, shared
/// memory and arithmetic. Precision options resolve against these (native storage, which the
/// CPU device runs, rather than packing, which it refuses), as do `Device.hasFeature` queries.
/// Not `shaderBFloat16Type`: the bf16s variant's SPIR-V `bfloat16` type is not lowered here.
const CPU_FEATURES: [&str; 10] = [
    "shaderFloat16",
    "shaderFloat64",
    "shaderInt8",
    "shaderInt16",
    "shaderInt64",
    "storageBuffer8BitAccess",
    "storageBuffer16BitAccess",
    "uniformAndStorageBuffer8BitAccess",
    "uniformAndStorageBuffer16BitAccess",
    "storagePushConstant8",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precision::{FloatStorage, IntStorage, PrecisionOptions};

    /// The profile answers what the device does: images up to its limit (a query read 0),
    /// subgroup operations but quad ones, and native 16-bit storage, so `--fp16-storage`
    /// resolves to fp16s, which it runs, instead of falling back to fp16p, which it refuses.
    #[test]
    fn profile_reports_what_the_cpu_device_runs() {
        let p = CpuDevice::new().profile();
        assert_eq!(
            p.limits.max_image_dimension_2d,
            super::super::MAX_IMAGE_DIMENSION_2D
        );
        assert!(p.subgroup_operations.iter().any(|o| o == "arithmetic"));
        assert!(!p.subgroup_operations.iter().any(|o| o == "quad"));
        let options = PrecisionOptions {
            fp16_storage: true,
            fp16_arithmetic: true,
            int8_storage: true,
            ..Default::default()
        };
        let (variant, notes) = options.resolve(&p.features);
        assert_eq!(variant.float_storage, FloatStorage::Fp16, "{notes:?}");
        assert!(variant.fp16_arithmetic && variant.int8_storage == IntStorage::Native);
        assert!(notes.is_empty(), "{notes:?}");
    }
}
