//! The Vulkan instance: loading the loader, creating the instance (with the validation layer,
//! synchronization validation and a debug-utils messenger in validation mode), and describing
//! the physical devices it exposes.

use std::ffi::{c_void, CStr, CString};
use std::sync::Mutex;

use ash::vk;

use crate::device::{DeviceInfo, DeviceLimits, DeviceType, VALIDATION_LAYER};
use crate::error::{vk_err, Result, RuntimeError};
use crate::features::{
    FeatureStructs, Levels, ACCEL_STRUCT_EXT, ATOMIC_FLOAT2_EXT, ATOMIC_FLOAT_EXT, COOP_MATRIX_EXT,
    DEFERRED_HOST_OPS_EXT, RAY_QUERY_EXT, RAY_TRACING_PIPELINE_EXT, SHADER_CLOCK_EXT,
};
use crate::kernel_printf::{KernelPrintf, PrintfSink, PRINTF_MESSAGE_ID};
use crate::lock;

/// Collects validation-layer messages; the messenger callback's user data points here.
#[derive(Debug, Default)]
pub(crate) struct MessageSink {
    messages: Mutex<Vec<String>>,
    reported: Mutex<usize>,
    /// Messages that only say the layer is older than an extension the device enabled.
    notices: Mutex<Vec<String>>,
    /// Whether validation messages are collected (validation mode; with the layer on for
    /// printing only, its few remaining checks are not this run's business).
    collect_validation: bool,
    /// Kernel printf output.
    pub(crate) printf: PrintfSink,
}

/// Extensions newer than some validation layers in use (Debian's is 1.3.239), with the
/// `VkStructureType` of their feature struct.
const NEWER_THAN_OLD_LAYERS: [(&str, &str); 4] = [
    ("VK_KHR_cooperative_matrix", "(1000506000)"),
    ("VK_KHR_shader_bfloat16", "(1000141000)"),
    ("VK_NV_cooperative_matrix2", "(1000593000)"),
    // Its properties struct, chained into vkGetPhysicalDeviceProperties2.
    ("VK_NV_cooperative_matrix2", "(1000593002)"),
];

/// The messages of a layer that meets a struct it does not know in a `pNext` chain.
const UNKNOWN_STRUCT_VUIDS: [&str; 3] = [
    "VUID-VkDeviceCreateInfo-pNext-pNext",
    "VUID-VkPhysicalDeviceFeatures2-pNext-pNext",
    "VUID-VkPhysicalDeviceProperties2-pNext-pNext",
];

/// Whether a message only says that the layer predates one of [`NEWER_THAN_OLD_LAYERS`]: it
/// cannot validate that extension's struct or name, which is no fault of the program. Anything
/// else the layer reports about the same call still counts.
fn layer_predates_extension(id: &str, message: &str) -> bool {
    NEWER_THAN_OLD_LAYERS.iter().any(|(ext, s_type)| {
        (id == "VUID_Undefined"
            && message.contains(&format!(
                "Device Extension {ext} is not supported by this layer"
            )))
            || (UNKNOWN_STRUCT_VUIDS.contains(&id)
                && message.contains(&format!("unknown VkStructureType {s_type}")))
    })
}

impl MessageSink {
    /// Messages set aside by [`layer_predates_extension`].
    pub(crate) fn notices(&self) -> Vec<String> {
        lock(&self.notices).clone()
    }

    /// Every message collected so far.
    pub(crate) fn all(&self) -> Vec<String> {
        lock(&self.messages).clone()
    }

    /// Messages that arrived since the previous call; `sync` and downloads turn them into an
    /// error so a test sees the problem at the point where the work completed.
    pub(crate) fn take_new(&self) -> Vec<String> {
        let messages = lock(&self.messages);
        let mut reported = lock(&self.reported);
        let new = messages.get(*reported..).unwrap_or_default().to_vec();
        *reported = messages.len();
        new
    }
}

/// Messenger callback. Must not unwind into the driver, so it only formats and pushes.
unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    let wanted = vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR;
    if user.is_null() || data.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes a valid callback-data struct; `user` is the `MessageSink` boxed
    // in `InstanceHandle`, which outlives the messenger.
    let (data, sink) = unsafe { (&*data, &*(user as *const MessageSink)) };
    let text = |c: Option<&CStr>| {
        c.map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    // SAFETY: the strings are NUL-terminated or null, as the layer guarantees.
    let (id, message) = unsafe {
        (
            text(data.message_id_name_as_c_str()),
            text(data.message_as_c_str()),
        )
    };
    if id.trim() == PRINTF_MESSAGE_ID {
        sink.printf.push(&message);
        return vk::FALSE;
    }
    if !sink.collect_validation
        || !types.contains(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION)
        || !severity.intersects(wanted)
    {
        return vk::FALSE;
    }
    let level = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        "error"
    } else {
        "warning"
    };
    let line = format!("[{level}] {id}: {message}");
    if layer_predates_extension(&id, &message) {
        lock(&sink.notices).push(line);
    } else {
        lock(&sink.messages).push(line);
    }
    vk::FALSE
}

/// The instance and its messenger; destroys both on drop, after everything made from them.
pub(crate) struct InstanceHandle {
    /// Keeps the loader library loaded while the instance lives.
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// Boxed so the pointer handed to the layer stays put when the handle moves.
    pub(crate) sink: Box<MessageSink>,
    /// API version the instance was created with.
    api_version: u32,
    /// Whether kernel printing works (see `kernel_printf.rs`).
    pub(crate) printf_state: KernelPrintf,
}

impl Drop for InstanceHandle {
    fn drop(&mut self) {
        // SAFETY: the logical device is destroyed before (DeviceShared drops it first), and the
        // messenger is destroyed before the instance it was made from.
        let _serial = crate::lock(&crate::DRIVER_SERIAL);
        unsafe {
            if let Some((utils, messenger)) = self.debug.take() {
                utils.destroy_debug_utils_messenger(messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// A plain instance that lives until the process exits, so that the Vulkan loader never
/// unloads the driver.
///
/// The loader `dlclose`s a driver when the last instance is destroyed. A driver that keeps
/// per-thread state registers thread-exit destructors in its own code, and a thread that used
/// it and exits after the unload runs them in unmapped memory: NVIDIA's 580 driver crashed
/// that way (a SIGSEGV at thread exit in about one run of three when test threads each
/// created and destroyed their own contexts). One extra instance, created once with the
/// first real one (the driver is loaded then anyway), keeps the driver mapped.
fn pin_driver(entry: &ash::Entry, app: &vk::ApplicationInfo<'_>) {
    static PIN: std::sync::OnceLock<Option<(ash::Entry, vk::Instance)>> =
        std::sync::OnceLock::new();
    PIN.get_or_init(|| {
        let info = vk::InstanceCreateInfo::default().application_info(app);
        // SAFETY: `info` points at locals alive for this call; the instance is never
        // destroyed (its driver must stay loaded), and its entry is kept with it.
        unsafe { entry.create_instance(&info, None) }
            .ok()
            .map(|i| (entry.clone(), i.handle()))
    });
}

fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

fn c_name(bytes: std::result::Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    bytes
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl InstanceHandle {
    /// Loads the Vulkan loader and creates an instance (Vulkan 1.1 to 1.3), with the validation
    /// layer, synchronization validation and a messenger when `validation` is set, and the
    /// layer's debug printf when `printf` is set and the layer is installed.
    pub(crate) fn new(validation: bool, printf: bool) -> Result<InstanceHandle> {
        // SAFETY: loading the system loader library; failure is reported, not linked.
        let entry =
            unsafe { ash::Entry::load() }.map_err(|e| RuntimeError::Loader(e.to_string()))?;
        // SAFETY: plain global query.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vk_err("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_1 {
            return Err(RuntimeError::VersionTooOld {
                what: "the Vulkan loader".into(),
                found: version_string(loader_version),
            });
        }
        let api_version = loader_version.min(vk::API_VERSION_1_3);
        let sink = Box::new(MessageSink {
            collect_validation: validation,
            ..MessageSink::default()
        });
        let app_name = c"cajeta-runtime";
        let app = vk::ApplicationInfo::default()
            .application_name(app_name)
            .engine_name(app_name)
            .api_version(api_version);

        let mut layers: Vec<CString> = Vec::new();
        let mut extensions: Vec<CString> = Vec::new();
        let mut printf_state = KernelPrintf::Off;
        if validation || printf {
            match layer_extensions(&entry)? {
                Ok(found) => {
                    layers.push(found.0);
                    extensions = found.1;
                    if printf {
                        printf_state = KernelPrintf::Active;
                    }
                }
                Err(e) if validation => return Err(e),
                Err(RuntimeError::LayerMissing { layer }) => {
                    printf_state = KernelPrintf::Unavailable(format!(
                        "kernel printing needs the Khronos validation layer ({layer}), which is not installed"
                    ))
                }
                Err(e) => {
                    printf_state = KernelPrintf::Unavailable(format!(
                        "kernel printing needs the Khronos validation layer: {e}"
                    ))
                }
            }
        }
        let layer_on = !layers.is_empty();
        let layer_ptrs: Vec<*const std::ffi::c_char> = layers.iter().map(|l| l.as_ptr()).collect();
        let ext_ptrs: Vec<*const std::ffi::c_char> =
            extensions.iter().map(|e| e.as_ptr()).collect();

        let printing = printf_state == KernelPrintf::Active;
        let mut enables = Vec::new();
        if validation {
            enables.push(vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION);
        }
        if printing {
            enables.push(vk::ValidationFeatureEnableEXT::DEBUG_PRINTF);
        }
        // Printing alone: the layer's checks would only cost time.
        let disables = if validation {
            Vec::new()
        } else {
            vec![
                vk::ValidationFeatureDisableEXT::CORE_CHECKS,
                vk::ValidationFeatureDisableEXT::THREAD_SAFETY,
                vk::ValidationFeatureDisableEXT::API_PARAMETERS,
                vk::ValidationFeatureDisableEXT::OBJECT_LIFETIMES,
            ]
        };
        let mut validation_features = vk::ValidationFeaturesEXT::default()
            .enabled_validation_features(&enables)
            .disabled_validation_features(&disables);
        let sink_ptr = &*sink as *const MessageSink as *mut c_void;
        let mut messenger_info = messenger_create_info(sink_ptr, printing);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_ptrs)
            .enabled_extension_names(&ext_ptrs);
        if layer_on {
            // Chained into instance creation too, so messages from vkCreateInstance and
            // vkDestroyInstance are collected as well.
            info = info
                .push_next(&mut validation_features)
                .push_next(&mut messenger_info);
        }
        // SAFETY: every pointer in `info` refers to locals alive for this call.
        let created = {
            let _serial = crate::lock(&crate::DRIVER_SERIAL);
            // Any instance with the layer: the layer reads its settings once per process,
            // and a later printing context must still get the larger buffer.
            if layer_on {
                crate::kernel_printf::configure_layer();
            }
            let created = unsafe { entry.create_instance(&info, None) };
            if created.is_ok() {
                pin_driver(&entry, &app);
            }
            created
        };
        let instance = created.map_err(|result| {
            // The loader answers INCOMPATIBLE_DRIVER when it found no usable driver at all
            // (no ICD, or one that failed to initialize): to the user that is "no device".
            if result == vk::Result::ERROR_INCOMPATIBLE_DRIVER {
                RuntimeError::NoDevice
            } else {
                RuntimeError::Vulkan {
                    call: "vkCreateInstance",
                    result,
                }
            }
        })?;
        let mut handle = InstanceHandle {
            entry,
            instance,
            debug: None,
            sink,
            api_version,
            printf_state,
        };
        if layer_on {
            let utils = ash::ext::debug_utils::Instance::new(&handle.entry, &handle.instance);
            let info =
                messenger_create_info(&*handle.sink as *const MessageSink as *mut c_void, printing);
            // SAFETY: the sink outlives the messenger (both owned by `handle`, messenger
            // destroyed first in Drop).
            let messenger = unsafe { utils.create_debug_utils_messenger(&info, None) }
                .map_err(vk_err("vkCreateDebugUtilsMessengerEXT"))?;
            handle.debug = Some((utils, messenger));
        }
        Ok(handle)
    }

    /// Every physical device with Vulkan 1.1+ and a compute queue, in enumeration order.
    pub(crate) fn candidates(&self) -> Result<Vec<Candidate>> {
        // SAFETY: valid instance.
        let physicals = unsafe { self.instance.enumerate_physical_devices() }
            .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
        let mut out = Vec::new();
        for physical in physicals {
            if let Some(c) = self.describe(physical, out.len())? {
                out.push(c);
            }
        }
        Ok(out)
    }

    fn describe(&self, physical: vk::PhysicalDevice, index: usize) -> Result<Option<Candidate>> {
        let instance = &self.instance;
        // SAFETY: `physical` came from this instance.
        let props = unsafe { instance.get_physical_device_properties(physical) };
        if props.api_version < vk::API_VERSION_1_1 {
            return Ok(None);
        }
        // SAFETY: as above.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let Some(queue_family) = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0)
        else {
            return Ok(None);
        };
        // SAFETY: as above.
        let extension_versions: Vec<(String, u32)> =
            unsafe { instance.enumerate_device_extension_properties(physical) }
                .map_err(vk_err("vkEnumerateDeviceExtensionProperties"))?
                .iter()
                .map(|e| (c_name(e.extension_name_as_c_str()), e.spec_version))
                .collect();
        let extensions: Vec<String> = extension_versions.iter().map(|e| e.0.clone()).collect();
        let api_version = props.api_version.min(self.api_version);
        let minor = vk::api_version_minor(api_version);
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut dot_product = vk::PhysicalDeviceShaderIntegerDotProductProperties::default();
        let mut maintenance4 = vk::PhysicalDeviceMaintenance4Properties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        if minor >= 2 {
            props2 = props2.push_next(&mut driver).push_next(&mut float_controls);
        }
        if minor >= 3 {
            props2 = props2
                .push_next(&mut size_control)
                .push_next(&mut dot_product)
                .push_next(&mut maintenance4);
        }
        // SAFETY: the chain holds locals alive for this call.
        unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
        let (driver_name, driver_info) = if minor >= 2 {
            (
                c_name(driver.driver_name_as_c_str()),
                c_name(driver.driver_info_as_c_str()),
            )
        } else {
            (String::new(), String::new())
        };
        let accel_struct_offered = minor >= 2
            && extensions.iter().any(|e| e == ACCEL_STRUCT_EXT)
            && extensions.iter().any(|e| e == DEFERRED_HOST_OPS_EXT);
        let levels = Levels {
            minor,
            atomic_float: extensions.iter().any(|e| e == ATOMIC_FLOAT_EXT),
            coop_matrix: extensions.iter().any(|e| e == COOP_MATRIX_EXT),
            bfloat16: extensions
                .iter()
                .any(|e| e == crate::bfloat16::BFLOAT16_EXT),
            coop_matrix2: extensions
                .iter()
                .any(|e| e == crate::coop_matrix2::COOP_MATRIX2_EXT),
            shader_clock: extensions.iter().any(|e| e == SHADER_CLOCK_EXT),
            atomic_float2: extensions.iter().any(|e| e == ATOMIC_FLOAT2_EXT),
            accel_struct: accel_struct_offered,
            ray_query: accel_struct_offered && extensions.iter().any(|e| e == RAY_QUERY_EXT),
            ray_tracing_pipeline: accel_struct_offered
                && extensions.iter().any(|e| e == RAY_TRACING_PIPELINE_EXT),
        };
        let mut supported = FeatureStructs::query(instance, physical, levels);
        let (_, mut feature_names) = supported.enable_supported(levels);
        let mut all_features = supported.reported_names(levels);
        if minor >= 3 {
            all_features.extend(crate::feature_names::true_in(
                crate::feature_names::DOT_PRODUCT_PROPERTIES,
                &dot_product,
            ));
        }
        if minor >= 2 {
            feature_names.extend(crate::features::float_control_names(&float_controls));
        }
        let l = props.limits;
        let info = DeviceInfo {
            index,
            name: c_name(props.device_name_as_c_str()),
            device_type: DeviceType::from_vk(props.device_type),
            vendor_id: props.vendor_id,
            device_id: props.device_id,
            driver_name,
            driver_info,
            api_version: version_string(props.api_version),
            limits: DeviceLimits {
                max_compute_work_group_count: l.max_compute_work_group_count,
                max_compute_work_group_size: l.max_compute_work_group_size,
                max_compute_work_group_invocations: l.max_compute_work_group_invocations,
                max_compute_shared_memory_size: l.max_compute_shared_memory_size,
                max_push_constants_size: l.max_push_constants_size,
                timestamp_period_ns: l.timestamp_period,
                max_storage_buffer_range: l.max_storage_buffer_range,
                max_image_dimension_2d: l.max_image_dimension2_d,
                max_buffer_size: (minor >= 3).then_some(maintenance4.max_buffer_size),
            },
            all_features,
            features: feature_names,
            coop_matrix_shapes: crate::coop_shapes::query(
                &self.entry,
                instance,
                physical,
                levels.coop_matrix,
            ),
            coop_matrix2: crate::coop_matrix2::query(
                &self.entry,
                instance,
                physical,
                levels.coop_matrix2,
            ),
            extensions,
            extension_versions,
            subgroup_size: subgroup.subgroup_size,
            subgroup_size_range: if size_control
                .required_subgroup_size_stages
                .contains(vk::ShaderStageFlags::COMPUTE)
            {
                [
                    size_control.min_subgroup_size,
                    size_control.max_subgroup_size,
                ]
            } else {
                [0, 0]
            },
            subgroup_operations: Vec::new(),
        };
        let subgroup_ops = if subgroup
            .supported_stages
            .contains(vk::ShaderStageFlags::COMPUTE)
        {
            subgroup.supported_operations
        } else {
            vk::SubgroupFeatureFlags::empty()
        };
        let mut info = info;
        info.subgroup_operations = crate::device_profile::subgroup_op_names(subgroup_ops);
        Ok(Some(Candidate {
            physical,
            info,
            queue_family: queue_family as u32,
            api_version,
            levels,
            raw_limits: l,
            subgroup_ops,
        }))
    }
}

/// The messenger: warnings and errors, and the layer's printf output (an information
/// message) when `printing`.
fn messenger_create_info(
    user: *mut c_void,
    printing: bool,
) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    let mut severity = vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR;
    if printing {
        severity |= vk::DebugUtilsMessageSeverityFlagsEXT::INFO;
    }
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(severity)
        .message_type(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION)
        .pfn_user_callback(Some(debug_callback))
        .user_data(user)
}

/// The validation layer's name and the instance extensions it needs (debug utils and
/// validation features); the inner error says what is missing.
fn layer_extensions(
    entry: &ash::Entry,
) -> Result<std::result::Result<(CString, Vec<CString>), RuntimeError>> {
    // SAFETY: plain global queries.
    let available = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(vk_err("vkEnumerateInstanceLayerProperties"))?;
    let missing = || RuntimeError::LayerMissing {
        layer: VALIDATION_LAYER.into(),
    };
    if !available
        .iter()
        .any(|l| c_name(l.layer_name_as_c_str()) == VALIDATION_LAYER)
    {
        return Ok(Err(missing()));
    }
    let Ok(layer) = CString::new(VALIDATION_LAYER) else {
        return Ok(Err(missing()));
    };
    // SAFETY: `layer` is a valid NUL-terminated name.
    let mut ext_names: Vec<String> =
        unsafe { entry.enumerate_instance_extension_properties(Some(&layer)) }
            .map_err(vk_err("vkEnumerateInstanceExtensionProperties"))?
            .iter()
            .map(|e| c_name(e.extension_name_as_c_str()))
            .collect();
    // SAFETY: plain global query.
    ext_names.extend(
        unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(vk_err("vkEnumerateInstanceExtensionProperties"))?
            .iter()
            .map(|e| c_name(e.extension_name_as_c_str())),
    );
    let mut extensions = Vec::new();
    for needed in [
        ash::ext::debug_utils::NAME,
        ash::ext::validation_features::NAME,
    ] {
        let name = needed.to_string_lossy().into_owned();
        if !ext_names.contains(&name) {
            return Ok(Err(RuntimeError::ExtensionMissing { extension: name }));
        }
        extensions.push(needed.to_owned());
    }
    Ok(Ok((layer, extensions)))
}

/// A physical device the runtime could use.
pub(crate) struct Candidate {
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) info: DeviceInfo,
    pub(crate) queue_family: u32,
    pub(crate) api_version: u32,
    pub(crate) levels: Levels,
    pub(crate) raw_limits: vk::PhysicalDeviceLimits,
    pub(crate) subgroup_ops: vk::SubgroupFeatureFlags,
}

#[cfg(test)]
mod tests {
    use super::layer_predates_extension;

    #[test]
    fn only_messages_about_newer_extensions_are_set_aside() {
        let unknown_bf16 = "vkCreateDevice: pCreateInfo->pNext chain includes a structure with unknown VkStructureType (1000141000); Allowed structures are [...]";
        assert!(layer_predates_extension(
            "VUID-VkDeviceCreateInfo-pNext-pNext",
            unknown_bf16
        ));
        let nv2_properties = "vkGetPhysicalDeviceProperties2: pProperties->pNext chain includes a structure with unknown VkStructureType (1000593002); Allowed structures are [...]";
        assert!(layer_predates_extension(
            "VUID-VkPhysicalDeviceProperties2-pNext-pNext",
            nv2_properties
        ));
        let unknown_other = "vkCreateDevice: pCreateInfo->pNext chain includes a structure with unknown VkStructureType (1000999000)";
        assert!(!layer_predates_extension(
            "VUID-VkDeviceCreateInfo-pNext-pNext",
            unknown_other
        ));
        let ext = "Device Extension VK_KHR_cooperative_matrix is not supported by this layer.  Using this extension may adversely affect validation results";
        assert!(layer_predates_extension("VUID_Undefined", ext));
        assert!(!layer_predates_extension(
            "VUID-vkCmdDispatch-None-02691",
            ext
        ));
        let hazard = "Hazard READ_AFTER_WRITE for VkBuffer";
        assert!(!layer_predates_extension(
            "SYNC-HAZARD-READ-AFTER-WRITE",
            hazard
        ));
    }
}
