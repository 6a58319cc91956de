//! Device description, physical-device selection, the logical device and its queue.
//! (The instance and the validation messenger live in `instance.rs`.)
//!
//! [`DeviceShared`] is the one object every other handle (`Buffer`, `Kernel`, the stream) keeps
//! an `Arc` to. It owns nothing that owns it back, so the last handle to go destroys the device
//! after all resources made from it, whatever the drop order in user code.

use std::collections::HashSet;
use std::ffi::CStr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use crate::error::{Result, RuntimeError};
use crate::features::{self, FeatureStructs};
use crate::instance::{Candidate, InstanceHandle};
use crate::logical_device::LogicalDevice;
use crate::profile::ProfileStats;
use crate::queues::{QueueSlot, DEFAULT_QUEUE_SLOTS, MAX_QUEUE_SLOTS};
use crate::sync::Tracker;
use crate::{lock, ContextOptions};

/// Name of the Khronos validation layer enabled in validation mode.
pub const VALIDATION_LAYER: &str = "VK_LAYER_KHRONOS_validation";

/// Kind of physical device, in the order the runtime prefers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceType {
    /// A discrete GPU.
    DiscreteGpu,
    /// A GPU sharing memory with the CPU.
    IntegratedGpu,
    /// A GPU exposed through a hypervisor.
    VirtualGpu,
    /// A CPU implementation such as lavapipe.
    Cpu,
    /// Anything else.
    Other,
}

impl DeviceType {
    pub(crate) fn from_vk(t: vk::PhysicalDeviceType) -> DeviceType {
        match t {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
            vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
            _ => DeviceType::Other,
        }
    }

    /// Preference rank used by default device selection; lower is better.
    fn rank(self) -> u32 {
        match self {
            DeviceType::DiscreteGpu => 0,
            DeviceType::IntegratedGpu => 1,
            DeviceType::VirtualGpu => 2,
            DeviceType::Cpu => 3,
            DeviceType::Other => 4,
        }
    }
}

/// The device limits launches are checked against.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceLimits {
    /// `maxComputeWorkGroupCount`: the largest grid per dimension.
    pub max_compute_work_group_count: [u32; 3],
    /// `maxComputeWorkGroupSize`: the largest block per dimension.
    pub max_compute_work_group_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`: the largest block volume.
    pub max_compute_work_group_invocations: u32,
    /// `maxComputeSharedMemorySize` in bytes.
    pub max_compute_shared_memory_size: u32,
    /// `maxPushConstantsSize` in bytes.
    pub max_push_constants_size: u32,
    /// `timestampPeriod`: nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// `maxStorageBufferRange` in bytes.
    pub max_storage_buffer_range: u32,
    /// `maxImageDimension2D` in texels.
    pub max_image_dimension_2d: u32,
    /// `maxBufferSize` (Vulkan 1.3, `VkPhysicalDeviceMaintenance4Properties`): the largest
    /// buffer the device creates; `None` on devices before Vulkan 1.3, which do not report it.
    pub max_buffer_size: Option<u64>,
}

/// Description of one physical device with a compute queue.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// Position in [`crate::Context::list_devices`]; what `CAJETA_DEVICE=<index>` selects.
    pub index: usize,
    /// `deviceName`.
    pub name: String,
    /// `deviceType`.
    pub device_type: DeviceType,
    /// PCI vendor id (or Khronos vendor id for CPU drivers).
    pub vendor_id: u32,
    /// Vendor-specific device id.
    pub device_id: u32,
    /// `driverName` (empty on Vulkan 1.1 devices, where the query is an extension).
    pub driver_name: String,
    /// `driverInfo` (empty on Vulkan 1.1 devices).
    pub driver_info: String,
    /// Device API version, `major.minor.patch`.
    pub api_version: String,
    /// Compute limits.
    pub limits: DeviceLimits,
    /// The optional features the runtime knows that the device supports (and that a context
    /// on it enables), by Vulkan name: `shaderInt64`, `shaderFloat16`…
    pub features: Vec<String>,
    /// Every device extension the device offers.
    pub extensions: Vec<String>,
    /// Every Vulkan 1.0-1.3 core feature and integer dot-product property the device reports
    /// true (`robustBufferAccess`, `integerDotProduct4x8BitPackedSignedAccelerated`…), enabled
    /// or not.
    pub all_features: Vec<String>,
    /// The version (`specVersion`) of each extension in `extensions`.
    pub extension_versions: Vec<(String, u32)>,
    /// The cooperative-matrix shapes the device lists (`VK_KHR_cooperative_matrix`; empty
    /// without it).
    pub coop_matrix_shapes: Vec<crate::CoopMatrixShape>,
    /// What `VK_NV_cooperative_matrix2` offers (workgroup-scope and flexible-dimension
    /// matrices); `None` without it.
    pub coop_matrix2: Option<crate::CoopMatrix2Info>,
    /// `subgroupSize`.
    pub subgroup_size: u32,
    /// `[minSubgroupSize, maxSubgroupSize]`: the subgroup sizes a kernel may require
    /// (`@Wave(width = N)`); `[0, 0]` where the device cannot require one in compute.
    pub subgroup_size_range: [u32; 2],
    /// Subgroup operations supported in compute shaders: `basic`, `vote`, `arithmetic`,
    /// `ballot`, `shuffle`, `shuffle_relative`, `clustered`, `quad`.
    pub subgroup_operations: Vec<String>,
}

/// [`select`] over plain device descriptions (for profiles).
pub(crate) fn select_info(devices: &[DeviceInfo], selector: Option<&str>) -> Result<usize> {
    if devices.is_empty() {
        return Err(RuntimeError::NoDevice);
    }
    if let Some(s) = selector.map(str::trim).filter(|s| !s.is_empty()) {
        let found = match s.parse::<usize>() {
            Ok(i) => (i < devices.len()).then_some(i),
            Err(_) => {
                let needle = s.to_lowercase();
                devices
                    .iter()
                    .position(|d| d.name.to_lowercase().contains(&needle))
            }
        };
        return found.ok_or_else(|| RuntimeError::DeviceNotFound {
            selector: s.to_string(),
            available: devices
                .iter()
                .map(|d| format!("{}: {}", d.index, d.name))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    Ok(devices
        .iter()
        .enumerate()
        .min_by_key(|(i, d)| (d.device_type.rank(), *i))
        .map(|(i, _)| i)
        .unwrap_or(0))
}

/// Picks a device: the selector (index or case-insensitive name substring) if given, else the
/// best type (discrete, integrated, virtual, CPU), first in enumeration order among equals.
pub(crate) fn select(candidates: &[Candidate], selector: Option<&str>) -> Result<usize> {
    let infos: Vec<DeviceInfo> = candidates.iter().map(|c| c.info.clone()).collect();
    select_info(&infos, selector)
}

/// Everything device-wide: handles, limits, enabled features, the allocator, the pipeline
/// cache, id counters, and the hazard tracker with its barrier log.
pub(crate) struct DeviceShared {
    pub(crate) physical: vk::PhysicalDevice,
    /// The queue slots streams submit to (see [`QueueSlot`]); slot 0 is the default
    /// stream's.
    pub(crate) queues: Vec<QueueSlot>,
    /// The slot the next created stream gets (round robin over slots 1.., then 0).
    next_slot: AtomicUsize,
    pub(crate) queue_family: u32,
    pub(crate) info: DeviceInfo,
    /// Full limits, for checks `DeviceLimits` does not expose (image size, buffer range).
    pub(crate) raw_limits: vk::PhysicalDeviceLimits,
    /// Device API version used (capped at the instance's, at most 1.3).
    pub(crate) api_version: u32,
    pub(crate) enabled_features: HashSet<String>,
    pub(crate) enabled_extensions: HashSet<String>,
    pub(crate) subgroup_ops: vk::SubgroupFeatureFlags,
    /// `None` only during drop, so that memory goes back before the device does.
    pub(crate) allocator: Mutex<Option<Allocator>>,
    pub(crate) pipeline_cache: vk::PipelineCache,
    /// Where the pipeline cache is saved on drop, if anywhere.
    pipeline_cache_path: Option<PathBuf>,
    /// Whether launches and transfers are timed.
    pub(crate) profiling: bool,
    /// Profiling times whole submissions only (two timestamps per submission).
    pub(crate) profile_spans_only: bool,
    /// `timestampValidBits` of the compute queue family.
    pub(crate) timestamp_valid_bits: u32,
    /// Whether `hostQueryReset` is enabled: timestamp queries are then reset from the host
    /// (`vkResetQueryPool`) instead of by a command, so no reset runs on the queue inside a
    /// span that events or the profile time.
    pub(crate) host_query_reset: bool,
    /// Accumulated GPU times.
    pub(crate) profile: Mutex<ProfileStats>,
    /// Set once a call reported `VK_ERROR_DEVICE_LOST`.
    lost: AtomicBool,
    /// Whether device-local memory is also host-visible (unified memory, ReBAR, lavapipe):
    /// uploads then write buffers directly instead of going through a staging copy.
    pub(crate) host_visible_device_local: bool,
    /// `VK_KHR_pipeline_executable_properties`, where [`crate::ContextOptions::pipeline_statistics`]
    /// asked for it and the device has it: pipelines are then created with
    /// `CAPTURE_STATISTICS`.
    pub(crate) executable_properties: Option<ash::khr::pipeline_executable_properties::Device>,
    /// Whether `bufferDeviceAddress` is enabled: buffers are then created with
    /// `SHADER_DEVICE_ADDRESS` usage, so kernels can address them past
    /// `maxStorageBufferRange` (`ParameterSlot::Address`).
    pub(crate) buffer_address: bool,
    /// Size of the largest device-local heap.
    pub(crate) device_local_heap: u64,
    /// How buffer transfers are pipelined (normalized).
    pub(crate) transfer: crate::TransferOptions,
    /// `VK_EXT_external_memory_host`, when asked for and present (`transfer_import.rs`).
    pub(crate) host_import: Option<crate::transfer_import::HostImport>,
    next_resource: AtomicU64,
    next_command: AtomicU64,
    pub(crate) tracker: Mutex<Tracker>,
    pub(crate) validation: bool,
    /// Acceleration-structure entry points and limits, where the device can build them.
    pub(crate) accel: Option<crate::acceleration::AccelSupport>,
    // Drop order matters: device before instance.
    pub(crate) logical: LogicalDevice,
    pub(crate) instance: InstanceHandle,
}

/// The Vulkan feature behind buffer device addresses.
const BUFFER_DEVICE_ADDRESS: &str = "bufferDeviceAddress";

impl DeviceShared {
    /// Creates the instance, selects the device and creates the logical device with every
    /// supported feature from the runtime's table enabled.
    pub(crate) fn new(opts: &ContextOptions) -> Result<DeviceShared> {
        let instance = InstanceHandle::new(opts.validation, opts.kernel_printf)?;
        let candidates = instance.candidates()?;
        let chosen = select(&candidates, opts.device.as_deref())?;
        let Some(c) = candidates.into_iter().nth(chosen) else {
            return Err(RuntimeError::NoDevice);
        };
        let mut supported = FeatureStructs::query(&instance.instance, c.physical, c.levels);
        let (mut enabled, mut enabled_names) = supported.enable_supported(c.levels);
        // Properties listed as features need no enabling: the device has them.
        enabled_names.extend(
            c.info
                .features
                .iter()
                .filter(|f| features::FLOAT_CONTROL_PROPERTIES.contains(&f.as_str()))
                .cloned(),
        );
        if let Some(only) = &opts.features {
            // Enable exactly what the caller's kernels need, refusing what the device lacks.
            for feature in only {
                if !c.info.features.contains(feature) {
                    return Err(RuntimeError::FeatureMissing {
                        feature: feature.clone(),
                        device: c.info.name.clone(),
                    });
                }
            }
            enabled = supported.enable_only(c.levels, only);
            enabled_names = only.clone();
        }
        // Acceleration structures (and ray queries) whenever the device offers them: a host
        // program builds its scenes whether or not a kernel asked for a feature. They are not
        // listed among the enabled kernel features (`Context::supports_acceleration_structures`
        // and `supports_ray_queries` report them), so a context made for an exact feature
        // list still lists exactly those.
        let accel_names = enabled.enable_acceleration(&supported, c.levels);
        // Host query resets (core in Vulkan 1.2) whenever offered, for the runtime's own
        // timestamps; like the above, not listed among the kernel features.
        let host_query_reset = enabled.enable_host_query_reset(&supported, c.levels);
        let accel_on = accel_names.contains(&"accelerationStructure");
        let ray_query_on = accel_names.contains(&"rayQuery");
        let ray_tracing_on = accel_names.contains(&"rayTracingPipeline");
        // Buffers are made addressable (`SHADER_DEVICE_ADDRESS`) once the feature is on: with
        // every supported feature, or when the caller's kernels (their address variants) need it.
        let buffer_address = enabled_names.iter().any(|f| f == BUFFER_DEVICE_ADDRESS);
        // The extension-gated structs are chained (and their extensions enabled) only when one
        // of their features is enabled: a device made for kernels that need neither stays
        // within what older validation layers know.
        let wants = |f: &str| enabled_names.iter().any(|n| n == f);
        let levels = crate::features::Levels {
            coop_matrix: c.levels.coop_matrix && wants("cooperativeMatrix"),
            bfloat16: c.levels.bfloat16 && wants("shaderBFloat16Type"),
            coop_matrix2: c.levels.coop_matrix2
                && crate::coop_matrix2::FEATURE_NAMES
                    .iter()
                    .any(|(name, _)| wants(name)),
            shader_clock: c.levels.shader_clock
                && (wants("shaderSubgroupClock") || wants("shaderDeviceClock")),
            atomic_float2: c.levels.atomic_float2
                && (wants("shaderBufferFloat32AtomicMinMax")
                    || wants("shaderSharedFloat32AtomicMinMax")),
            accel_struct: accel_on,
            ray_query: ray_query_on,
            ray_tracing_pipeline: ray_tracing_on,
            ..c.levels
        };
        let mut ext_names: Vec<&CStr> = Vec::new();
        if c.levels.atomic_float {
            ext_names.push(ash::ext::shader_atomic_float::NAME);
        }
        if levels.coop_matrix {
            ext_names.push(ash::khr::cooperative_matrix::NAME);
        }
        if levels.bfloat16 {
            ext_names.push(crate::bfloat16::BFLOAT16_EXT_NAME);
        }
        if levels.coop_matrix2 {
            ext_names.push(crate::coop_matrix2::COOP_MATRIX2_EXT_NAME);
        }
        if levels.shader_clock {
            ext_names.push(ash::khr::shader_clock::NAME);
        }
        if levels.atomic_float2 {
            ext_names.push(ash::ext::shader_atomic_float2::NAME);
        }
        if levels.accel_struct {
            ext_names.push(ash::khr::acceleration_structure::NAME);
            ext_names.push(ash::khr::deferred_host_operations::NAME);
        }
        if levels.ray_query {
            ext_names.push(ash::khr::ray_query::NAME);
        }
        if levels.ray_tracing_pipeline {
            ext_names.push(ash::khr::ray_tracing_pipeline::NAME);
        }
        // Enabled wherever offered: host arrays are pinned through it (`Context::pin_host`);
        // importing at every large transfer is the separate `import_host` option.
        let host_import = c
            .info
            .extensions
            .iter()
            .any(|e| e == "VK_EXT_external_memory_host")
            && !opts.no_host_import;
        if host_import {
            ext_names.push(ash::ext::external_memory_host::NAME);
        }
        let statistics = opts.pipeline_statistics
            && c.info
                .extensions
                .iter()
                .any(|e| e == "VK_KHR_pipeline_executable_properties");
        if statistics {
            ext_names.push(ash::khr::pipeline_executable_properties::NAME);
        }
        let ext_ptrs: Vec<*const std::ffi::c_char> = ext_names.iter().map(|e| e.as_ptr()).collect();
        // SAFETY: valid physical device.
        let families = unsafe {
            instance
                .instance
                .get_physical_device_queue_family_properties(c.physical)
        };
        let family = families.get(c.queue_family as usize).copied();
        let slots = if opts.queues == 0 {
            DEFAULT_QUEUE_SLOTS
        } else {
            opts.queues.min(MAX_QUEUE_SLOTS)
        };
        let wanted = (family.map_or(1, |f| f.queue_count) as usize).clamp(1, slots);
        let (logical, hardware) = crate::logical_device::create(wanted, |hardware| {
            let priorities = vec![1.0f32; hardware];
            let queue_info = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(c.queue_family)
                .queue_priorities(&priorities)];
            let mut executable_info =
                vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                    .pipeline_executable_info(true);
            enabled.with_chain(levels, |features2| {
                let mut info = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queue_info)
                    .enabled_extension_names(&ext_ptrs)
                    .push_next(features2);
                if statistics {
                    info = info.push_next(&mut executable_info);
                }
                // SAFETY: all pointers refer to locals alive for this call.
                unsafe { instance.instance.create_device(c.physical, &info, None) }
            })
        })?;
        let host_import = host_import.then(|| {
            crate::transfer_import::HostImport::new(&instance.instance, c.physical, &logical.0)
        });
        // Slots beyond the hardware queues share them, lock included (a queue is externally
        // synchronized).
        let hardware_queues: Vec<QueueSlot> = (0..hardware as u32)
            .map(|i| QueueSlot {
                // SAFETY: family and index were requested above.
                queue: unsafe { logical.0.get_device_queue(c.queue_family, i) },
                hardware_index: i,
                lock: Arc::new(Mutex::new(())),
            })
            .collect();
        let queues: Vec<QueueSlot> = (0..slots)
            .map(|i| hardware_queues[i % hardware].clone())
            .collect();
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.instance.clone(),
            device: logical.0.clone(),
            physical_device: c.physical,
            debug_settings: Default::default(),
            // Address variants' buffers and acceleration-structure builds use device addresses.
            buffer_device_address: buffer_address || accel_on,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| RuntimeError::Allocation {
            what: "the allocator".into(),
            message: e.to_string(),
        })?;
        let executable_properties = statistics.then(|| {
            ash::khr::pipeline_executable_properties::Device::new(&instance.instance, &logical.0)
        });
        let accel = accel_on.then(|| {
            crate::acceleration::AccelSupport::new(&instance.instance, c.physical, &logical.0)
        });
        let pipeline_cache_path = opts
            .cache_dir
            .as_deref()
            .map(|d| crate::cache::pipeline_cache_path(d, &c.info));
        let pipeline_cache =
            crate::cache::create_pipeline_cache(&logical.0, pipeline_cache_path.as_deref())?;
        let timestamp_valid_bits = family.map_or(0, |f| f.timestamp_valid_bits);
        // SAFETY: valid physical device.
        let memory = unsafe {
            instance
                .instance
                .get_physical_device_memory_properties(c.physical)
        };
        let unified = vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT;
        // Only when such memory covers a whole device-local heap: small ReBAR-less windows
        // (256 MiB BAR) must stay free for what really needs them.
        let host_visible_device_local = memory.memory_types_as_slice().iter().any(|t| {
            t.property_flags.contains(unified)
                && memory
                    .memory_heaps_as_slice()
                    .get(t.heap_index as usize)
                    .is_some_and(|h| h.size > 1 << 30)
        }) && !opts.no_host_visible;
        let enabled_extensions = ext_names
            .iter()
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        Ok(DeviceShared {
            physical: c.physical,
            queues,
            next_slot: AtomicUsize::new(1),
            queue_family: c.queue_family,
            enabled_features: enabled_names.into_iter().collect(),
            info: c.info,
            raw_limits: c.raw_limits,
            api_version: c.api_version,
            enabled_extensions,
            subgroup_ops: c.subgroup_ops,
            allocator: Mutex::new(Some(allocator)),
            pipeline_cache,
            pipeline_cache_path,
            profiling: (opts.profile || opts.profile_spans_only) && timestamp_valid_bits > 0,
            profile_spans_only: opts.profile_spans_only,
            timestamp_valid_bits,
            host_query_reset,
            profile: Mutex::new(ProfileStats::default()),
            lost: AtomicBool::new(false),
            host_visible_device_local,
            transfer: opts.transfer.normalized(),
            host_import,
            buffer_address,
            device_local_heap: memory
                .memory_heaps_as_slice()
                .iter()
                .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
                .map(|h| h.size)
                .max()
                .unwrap_or(0),
            next_resource: AtomicU64::new(1),
            next_command: AtomicU64::new(1),
            tracker: Mutex::new(Tracker::default()),
            validation: opts.validation,
            accel,
            executable_properties,
            logical,
            instance,
        })
    }

    /// The logical device.
    pub(crate) fn device(&self) -> &ash::Device {
        &self.logical.0
    }

    /// The features `format` has with optimal tiling on this device.
    pub(crate) fn optimal_format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        // SAFETY: valid physical device of this instance.
        unsafe {
            self.instance
                .instance
                .get_physical_device_format_properties(self.physical, format)
        }
        .optimal_tiling_features
    }

    /// A fresh resource id, unique within the context.
    pub(crate) fn next_resource_id(&self) -> u64 {
        self.next_resource.fetch_add(1, Ordering::Relaxed)
    }

    /// The queue slot for a newly created stream: slots 1.. in turn, then slot 0 again, so
    /// that created streams run beside the default stream where the device has the queues.
    pub(crate) fn slot_for_new_stream(&self) -> usize {
        let n = self.queues.len();
        if n <= 1 {
            return 0;
        }
        let k = self.next_slot.fetch_add(1, Ordering::Relaxed);
        1 + (k - 1) % (n - 1)
    }

    /// A fresh command sequence number, unique and increasing within the context.
    pub(crate) fn next_command_id(&self) -> u64 {
        self.next_command.fetch_add(1, Ordering::Relaxed)
    }

    /// Device API minor version (1.x).
    pub(crate) fn api_minor(&self) -> u32 {
        vk::api_version_minor(self.api_version)
    }

    /// Maps a failed call's error to [`RuntimeError::DeviceLost`] when the device is gone (and
    /// remembers that), leaving other errors as they are.
    pub(crate) fn note_device_lost(&self, e: RuntimeError) -> RuntimeError {
        match e {
            RuntimeError::Vulkan {
                call,
                result: vk::Result::ERROR_DEVICE_LOST,
            } => {
                self.lost.store(true, Ordering::Relaxed);
                RuntimeError::DeviceLost { call }
            }
            other => other,
        }
    }

    /// Whether the device was reported lost.
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }

    /// Returns `Err` with the validation messages that arrived since the last check.
    pub(crate) fn check_validation(&self) -> Result<()> {
        if !self.validation {
            return Ok(());
        }
        let messages = self.instance.sink.take_new();
        if messages.is_empty() {
            Ok(())
        } else {
            Err(RuntimeError::Validation { messages })
        }
    }
}

impl Drop for DeviceShared {
    fn drop(&mut self) {
        // SAFETY: nothing else uses the device any more (this is the last Arc); waiting first
        // makes sure no queued work still references memory freed below.
        unsafe {
            let _ = self.logical.0.device_wait_idle();
        }
        if let Some(path) = &self.pipeline_cache_path {
            if !self.is_lost() {
                crate::cache::save_pipeline_cache(&self.logical.0, self.pipeline_cache, path);
            }
        }
        // SAFETY: no pipeline creation can be running: this is the last owner.
        unsafe {
            self.logical
                .0
                .destroy_pipeline_cache(self.pipeline_cache, None);
        }
        // The allocator frees its memory blocks through the device, so it must go first;
        // those `vkFreeMemory` calls are serialized as in `memory.rs`.
        let allocator = lock(&self.allocator).take();
        let _serial = lock(&crate::DRIVER_SERIAL);
        drop(allocator);
    }
}

/// Lists every usable device (for `Context::list_devices`) with a throw-away instance.
pub(crate) fn list_devices() -> Result<Vec<DeviceInfo>> {
    let instance = InstanceHandle::new(false, false)?;
    Ok(instance.candidates()?.into_iter().map(|c| c.info).collect())
}

/// Feature names a kernel needs beyond its explicit `vulkan_features`, derived from its
/// capabilities; used by `load_kernel`.
pub(crate) fn capability_requirements(
    capabilities: &[String],
) -> Vec<(&'static str, &'static str)> {
    features::CAPABILITY_FEATURES
        .iter()
        .filter(|(cap, _)| capabilities.iter().any(|c| c == cap))
        .copied()
        .collect()
}
