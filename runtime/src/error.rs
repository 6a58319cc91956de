//! The runtime's error type.
//!
//! Every message names the problem in words a kernel author understands (the kernel, the
//! parameter, the limit, both sizes of a mismatch), because these errors surface verbatim as
//! host-code runtime errors of `cajetac run` (SPEC §9).

use ash::vk;

/// Everything that can go wrong in the runtime. The runtime never panics on bad input; it
/// returns one of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// The Vulkan loader (`libvulkan.so.1`) could not be loaded.
    #[error("could not load the Vulkan loader: {0}")]
    Loader(String),
    /// No physical device exposes a compute queue (and Vulkan 1.1).
    #[error("no Vulkan device with a compute queue found")]
    NoDevice,
    /// `CAJETA_DEVICE` (or [`crate::ContextOptions::device`]) matches no device.
    #[error("device selector `{selector}` matches no Vulkan device (available: {available})")]
    DeviceNotFound {
        /// The selector as given: an index or a name substring.
        selector: String,
        /// The devices that exist, as `index: name` pairs.
        available: String,
    },
    /// A required instance layer is not installed.
    #[error("Vulkan layer `{layer}` is not available (install the Vulkan validation layers or turn validation off)")]
    LayerMissing {
        /// The layer name, e.g. `VK_LAYER_KHRONOS_validation`.
        layer: String,
    },
    /// A required instance or device extension is not available.
    #[error("Vulkan extension `{extension}` is not available")]
    ExtensionMissing {
        /// The extension name.
        extension: String,
    },
    /// The device cannot build acceleration structures.
    #[error("building acceleration structures needs Vulkan extension `VK_KHR_acceleration_structure` (with `VK_KHR_deferred_host_operations` and the `accelerationStructure` and `bufferDeviceAddress` features), which device `{device}` does not support")]
    AccelerationUnsupported {
        /// Name of the device.
        device: String,
    },
    /// The Vulkan implementation is older than the runtime needs.
    #[error("{what} supports Vulkan {found}, but Vulkan 1.1 or newer is required")]
    VersionTooOld {
        /// "the Vulkan loader" or the device name.
        what: String,
        /// The version found, `major.minor.patch`.
        found: String,
    },
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan entry point, e.g. `vkCreateBuffer`.
        call: &'static str,
        /// The result code it returned.
        result: vk::Result,
    },
    /// The memory allocator could not satisfy a request.
    #[error("memory allocation for {what} failed: {message}")]
    Allocation {
        /// What was being allocated, e.g. "buffer of 4096 bytes".
        what: String,
        /// The allocator's explanation.
        message: String,
    },
    /// A kernel needs a device feature, SPIR-V version or capability the device lacks.
    #[error("kernel `{kernel}` needs {requirement}, which device `{device}` does not support")]
    Unsupported {
        /// Entry point of the kernel.
        kernel: String,
        /// What is missing, e.g. "Vulkan feature `shaderFloat64`".
        requirement: String,
        /// Name of the device.
        device: String,
    },
    /// The reflection document or the SPIR-V module is malformed or inconsistent.
    #[error("kernel `{kernel}`: invalid module or reflection: {message}")]
    InvalidKernel {
        /// Entry point of the kernel (or "?" when the reflection names none).
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// A launch was rejected before anything was recorded: bad arguments, a grid or block
    /// beyond the device limits, bad specialization values.
    #[error("launch of `{kernel}`: {message}")]
    Launch {
        /// Entry point of the kernel.
        kernel: String,
        /// What is wrong, naming the parameter or the limit.
        message: String,
    },
    /// Host data and device resource sizes differ on upload or download.
    #[error("{resource} length mismatch: {resource} holds {resource_bytes} bytes, host array {host_bytes} bytes")]
    LengthMismatch {
        /// "buffer" or "image".
        resource: &'static str,
        /// Size of the device resource in bytes.
        resource_bytes: u64,
        /// Size of the host slice in bytes.
        host_bytes: u64,
    },
    /// A resource could not be created with the requested shape or format.
    #[error("invalid resource: {0}")]
    InvalidResource(String),
    /// A resource belongs to another [`crate::Context`] than the stream or kernel using it.
    #[error("{0} belongs to a different Context")]
    ForeignResource(String),
    /// The context was asked to enable a Vulkan feature the device lacks.
    #[error("Vulkan feature `{feature}` is required but device `{device}` does not support it")]
    FeatureMissing {
        /// The feature's Vulkan name, e.g. `shaderFloat64`.
        feature: String,
        /// Name of the device.
        device: String,
    },
    /// The device was lost (driver reset, hang, or removal). The context cannot be used any
    /// more; create a new one.
    #[error("the Vulkan device was lost during {call}; create a new Context")]
    DeviceLost {
        /// The call that reported it.
        call: &'static str,
    },
    /// A kernel compiled in checked mode accessed a buffer, shared array or image out of
    /// bounds (the first violation of the submission; the access was skipped).
    #[error("{0}")]
    OutOfBounds(Box<crate::BoundsViolation>),
    /// The validation layer reported problems (validation mode only).
    #[error("Vulkan validation reported {} message(s):\n{}", messages.len(), messages.join("\n"))]
    Validation {
        /// The new VALIDATION-type messages since the last report.
        messages: Vec<String>,
    },
}

/// Result alias used throughout the runtime.
pub type Result<T> = std::result::Result<T, RuntimeError>;

/// Adapter so that `device.create_x(..).map_err(vk_err("vkCreateX"))?` reads naturally.
pub(crate) fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> RuntimeError {
    move |result| RuntimeError::Vulkan { call, result }
}
