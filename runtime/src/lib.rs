//! Vulkan runtime for kernels compiled by `cajetac` (SPEC §6, §7, §9).
//!
//! A [`Context`] owns one logical device with a compute queue. Buffers and 2-D storage images
//! are made from it, kernels are loaded from SPIR-V plus the reflection document the compiler
//! writes, and a [`Stream`] records launches, uploads and downloads, inserting the barriers the
//! hazards between them need (see `sync.rs`) and submitting only on `sync()` or a download.
//!
//! ```no_run
//! use cajeta_runtime::*;
//! # fn demo(spirv: &[u32], reflection: &Reflection) -> Result<()> {
//! let ctx = Context::new()?;
//! let kernel = ctx.load_kernel(spirv, reflection)?;
//! let buf = ctx.create_buffer(4 * 1000)?;
//! let s = ctx.default_stream();
//! s.launch(&kernel, &LaunchConfig::new([16, 1, 1], [64, 1, 1]), &[
//!     KernelArg::Buffer(&buf),
//!     KernelArg::Scalar(ScalarValue::U32(1000)),
//! ])?;
//! let mut out = vec![0u8; 4000];
//! s.download_buffer(&buf, &mut out)?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod bounds;
pub mod checksum;
pub mod cpu;
mod device_profile;
mod error;
mod host_memory;
mod launch;
mod precision;
mod precision_codec;
mod psc;
pub mod reflection;
mod transfer_options;
mod vulkan;

// The device-kind modules under their former crate-root names, so paths inside the crate
// (`crate::device::DeviceShared`, …) did not change when the tree was grouped by concern.
use host_memory::{host_alloc, host_copy, host_pin};
use vulkan::{
    acceleration, batch, bfloat16, buffer_address, cache, coop_matrix2, coop_shapes, descriptors,
    device, event, feature_names, features, instance, kernel_needs, kernel_printf, logical_device,
    memory, peer, pipeline, pipeline_stats, profile, queues, resources, stream, sync, texture,
    transfer, transfer_import,
};

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub use acceleration::{AccelInstance, AccelLevel, AccelStats, AccelStruct, SerializedHeader};
pub use bounds::BoundsViolation;
pub use buffer_address::BufferAddressing;
pub use cache::cache_dir_from_env;
pub use coop_matrix2::{CoopMatrix2Info, CoopMatrixFlexible};
pub use coop_shapes::CoopMatrixShape;
pub use descriptors::BUFFER_ARRAY_CAPACITY;
pub use device::{DeviceInfo, DeviceLimits, DeviceType, VALIDATION_LAYER};
pub use device_profile::{DeviceProfile, ProfileLimits, COMPUTE_LIMITS, DEVICE_PROFILE_SCHEMA};
pub use error::{Result, RuntimeError};
pub use event::Event;
pub use features::{known_features, required_features};
pub use host_alloc::{
    provide as provide_host_memory, withdraw as withdraw_host_memory, HostAlloc,
    HostMemoryAllocator, HOST_ALLOC_MIN_BYTES,
};
pub use host_pin::HostPin;
pub use kernel_printf::{kernel_prints, KernelPrintf};
pub use launch::{KernelArg, LaunchConfig, ScalarValue};
pub use memory::MemoryUsage;
pub use peer::{copy_buffer_peer, PeerPath, PEER_CHUNK_BYTES};
pub use pipeline::Kernel;
pub use pipeline_stats::PipelineStatistic;
pub use precision::{FloatStorage, IntStorage, PrecisionOptions, PrecisionVariant};
pub use precision_codec::{decode_sfp, encode_sfp, sfp_buffer_bytes};
pub use profile::{ProfileEntry, ProfileKind, ProfileReport};
pub use reflection::*;
pub use resources::{
    Buffer, FormatClass, Image2D, ImageFormat, MemoryKind, ResourceId, ResourceKind, TextureFormat,
};
pub use stream::{CommandId, Stream};
pub use sync::{BarrierRecord, Hazard};
pub use texture::{AddressMode, Filter, Sampler, Texture, TextureDesc, TextureDim};
pub use transfer::PendingDownload;
pub use transfer_options::TransferOptions;

use device::DeviceShared;

/// Locks a mutex, ignoring poisoning: the runtime's critical sections leave consistent state
/// even if a panic unwound through one elsewhere, and a poisoned lock must not become a panic.
/// Serializes the driver calls that create and destroy instances and devices and compile
/// pipelines, process-wide. Vulkan allows them from several threads at once, but on the
/// H200's driver (580.159) 16 threads doing so with their own contexts while others compiled
/// pipelines now and then all stopped inside the driver (threads parked on its locks, no GPU
/// fault); these calls are rare and slow anyway, so one at a time costs nothing measurable.
/// Memory allocation and freeing (`memory.rs`, which may call `vkAllocateMemory` /
/// `vkFreeMemory`) take it too, after a fresh-cache run stopped with a thread allocating
/// past 4 GiB inside the driver while another created a device.
pub(crate) static DRIVER_SERIAL: Mutex<()> = Mutex::new(());

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How to create a [`Context`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextOptions {
    /// Device selector: an index into [`Context::list_devices`] or a case-insensitive name
    /// substring. `None` picks the best device (discrete, integrated, virtual, then CPU).
    pub device: Option<String>,
    /// Enable `VK_LAYER_KHRONOS_validation` with synchronization validation and collect its
    /// messages; `sync()` and downloads then fail when new messages appear.
    pub validation: bool,
    /// Time every launch and transfer with timestamp queries (see [`Context::profile_report`]).
    /// Ignored on queues without timestamp support.
    pub profile: bool,
    /// Time only whole submissions (first command start to last command end: two timestamps
    /// per submission, so back-to-back launches run as they would unprofiled). Only
    /// [`ProfileReport::span_ns`] is filled; implies profiling.
    pub profile_spans_only: bool,
    /// `Some(list)`: enable exactly these Vulkan features (by name), failing with
    /// [`RuntimeError::FeatureMissing`] if the device lacks one; kernels needing others are
    /// then refused at load. `None`: every supported feature the runtime knows.
    pub features: Option<Vec<String>>,
    /// Where the pipeline cache is persisted; `None` keeps it in memory only.
    pub cache_dir: Option<PathBuf>,
    /// Never place buffers in host-visible device-local memory (always stage uploads);
    /// `CAJETA_NO_HOST_VISIBLE=1` in [`ContextOptions::from_env`].
    pub no_host_visible: bool,
    /// Do not enable `VK_EXT_external_memory_host` even where the device offers it: pinning
    /// host memory and peer copies then take their staged paths (`CAJETA_NO_HOST_IMPORT=1`).
    pub no_host_import: bool,
    /// Ask the driver to record what it compiled each pipeline into (registers, instructions,
    /// spills: `VK_KHR_pipeline_executable_properties`) for [`Kernel::pipeline_statistics`];
    /// `CAJETA_PIPELINE_STATISTICS=1` in [`ContextOptions::from_env`]. Ignored where the
    /// device lacks the extension.
    pub pipeline_statistics: bool,
    /// Precision options (SPEC §8) for embedders that compile kernels for this context:
    /// [`Context::precision_variant`] resolves them against the device.
    pub precision: PrecisionOptions,
    /// Checked mode (`CAJETA_CHECKED=1`): compilers building kernels for this context
    /// (`cajetac run`, `cajetac::embed`) bounds-check every buffer, shared-array and image
    /// access. The runtime itself services any kernel whose reflection has `bounds_check`,
    /// whatever this says: it binds the violation record and reports the first violation as
    /// [`RuntimeError::OutOfBounds`].
    pub checked: bool,
    /// Turn on printing from kernels (`NonSemantic.DebugPrintf`) through the Khronos
    /// validation layer's debug printf, when the layer is installed; see
    /// [`Context::kernel_printf`] and [`Context::take_kernel_output`]. Off, or without the
    /// layer, printing kernels run with their printing removed.
    pub kernel_printf: bool,
    /// How buffer transfers move data: pipelining, chunk size, copy threads
    /// ([`TransferOptions::from_env`] in [`ContextOptions::from_env`]).
    pub transfer: TransferOptions,
    /// Queue slots streams are spread over (0: the default, 4; at most 8). The default stream
    /// submits to slot 0, streams from [`Context::create_stream`] to slots 1.. in turn; each
    /// slot is its own queue of the compute family while the device has enough, else slots
    /// share queues. 1: every stream on one queue. `CAJETA_QUEUES` sets it.
    pub queues: usize,
    /// Which kernel variant launches of compiled programs take ([`BufferAddressing`]);
    /// `None` reads `CAJETA_BUFFER_ADDRESS` once, when the context is made.
    pub buffer_addressing: Option<BufferAddressing>,
}

/// `CAJETA_KERNEL_PRINTF`: `1`/`true`/`yes`/`on` turns kernel printing on, `0`/`false`/
/// `no`/`off` off; `None` when unset or anything else (the caller decides: `cajetac`
/// turns printing on when a kernel of the program prints).
pub fn kernel_printf_from_env() -> Option<bool> {
    let v = std::env::var("CAJETA_KERNEL_PRINTF").ok()?;
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// The devices a program that uses several sees (`Device.count()`, `Device.set(i)`), from
/// `CAJETA_DEVICES`: a comma-separated list of device selectors (an index into
/// [`Context::list_devices`] or a name substring), one per program device, in order. The same
/// selector may appear twice: `CAJETA_DEVICES=0,0` gives two logical devices on one physical
/// device. `None` when unset or empty: the program then sees every physical device.
pub fn device_list_from_env() -> Option<Vec<String>> {
    let list: Vec<String> = std::env::var("CAJETA_DEVICES")
        .ok()?
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    (!list.is_empty()).then_some(list)
}

impl ContextOptions {
    /// Options from the environment: `CAJETA_DEVICE=<index|name substring>`,
    /// `CAJETA_VALIDATION=1` and `CAJETA_PROFILE=1` (also `true`, `yes`, `on`), and the cache
    /// directory of [`cache_dir_from_env`] (`CAJETA_CACHE_DIR`), `CAJETA_CHECKED=1`,
    /// `CAJETA_NO_HOST_VISIBLE=1`, `CAJETA_NO_HOST_IMPORT=1`, `CAJETA_QUEUES=<n>`, and the transfer tunables of
    /// [`TransferOptions::from_env`].
    pub fn from_env() -> Self {
        // Without CAJETA_DEVICE, a program's device list (CAJETA_DEVICES) names the first.
        let device = std::env::var("CAJETA_DEVICE")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .or_else(|| device_list_from_env().and_then(|l| l.into_iter().next()));
        let flag = |name: &str| {
            std::env::var(name)
                .map(|v| {
                    matches!(
                        v.trim().to_ascii_lowercase().as_str(),
                        "1" | "true" | "yes" | "on"
                    )
                })
                .unwrap_or(false)
        };
        ContextOptions {
            device,
            validation: flag("CAJETA_VALIDATION"),
            profile: flag("CAJETA_PROFILE"),
            profile_spans_only: false,
            features: None,
            cache_dir: cache_dir_from_env(),
            no_host_visible: flag("CAJETA_NO_HOST_VISIBLE"),
            no_host_import: flag("CAJETA_NO_HOST_IMPORT"),
            pipeline_statistics: flag("CAJETA_PIPELINE_STATISTICS"),
            precision: PrecisionOptions::default(),
            checked: flag("CAJETA_CHECKED"),
            kernel_printf: kernel_printf_from_env().unwrap_or(false),
            transfer: TransferOptions::from_env(),
            queues: std::env::var("CAJETA_QUEUES")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0),
            buffer_addressing: None,
        }
    }

    /// These options with kernel printing on or off (see [`ContextOptions::kernel_printf`]).
    pub fn with_kernel_printf(mut self, on: bool) -> Self {
        self.kernel_printf = on;
        self
    }

    /// These options with checked mode on or off (see [`ContextOptions::checked`]).
    pub fn with_checked(mut self, on: bool) -> Self {
        self.checked = on;
        self
    }

    /// These options with validation on or off.
    pub fn with_validation(mut self, on: bool) -> Self {
        self.validation = on;
        self
    }

    /// These options with pipeline statistics on or off (see
    /// [`ContextOptions::pipeline_statistics`]).
    pub fn with_pipeline_statistics(mut self, on: bool) -> Self {
        self.pipeline_statistics = on;
        self
    }

    /// These options with profiling on or off.
    pub fn with_profile(mut self, on: bool) -> Self {
        self.profile = on;
        self
    }

    /// These options with span-only profiling on or off (see
    /// [`ContextOptions::profile_spans_only`]).
    pub fn with_span_profile(mut self, on: bool) -> Self {
        self.profile_spans_only = on;
        self
    }

    /// These options enabling exactly `features`.
    pub fn with_features(mut self, features: Vec<String>) -> Self {
        self.features = Some(features);
        self
    }

    /// These options with the pipeline cache in `dir` (`None`: in memory only).
    pub fn with_cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = dir;
        self
    }

    /// These options with the transfer tunables `transfer`.
    pub fn with_transfer(mut self, transfer: TransferOptions) -> Self {
        self.transfer = transfer;
        self
    }

    /// These options with `queues` queue slots (see [`ContextOptions::queues`]).
    pub fn with_queues(mut self, queues: usize) -> Self {
        self.queues = queues;
        self
    }

    /// These options selecting `device` (index or name substring).
    pub fn with_device(mut self, device: Option<String>) -> Self {
        self.device = device;
        self
    }
}

struct ContextInner {
    shared: Arc<DeviceShared>,
    stream: Stream,
    precision: PrecisionOptions,
    /// [`ContextOptions::buffer_addressing`], or `CAJETA_BUFFER_ADDRESS` read when the
    /// context was made (an unknown spelling is kept as its error, reported by launches
    /// that need the choice): read once, not at every launch, where it cost a lock of the
    /// environment and an allocation per launch.
    buffer_addressing: std::result::Result<BufferAddressing, String>,
    /// What it was made with, for [`Context::sibling`].
    options: ContextOptions,
}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // Submitted work finishes before the context's handles go; streams, resources and
        // kernels still held by the user keep the device alive on their own.
        self.stream.wait_submitted();
        // SAFETY: valid device; waiting has no other effect.
        let _ = unsafe { self.shared.device().device_wait_idle() };
    }
}

/// A Vulkan device ready for compute. Cheap to clone; all clones share the device.
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.inner.shared.info.name)
            .field("validation", &self.inner.shared.validation)
            .finish()
    }
}

impl Context {
    /// A context with [`ContextOptions::from_env`].
    pub fn new() -> Result<Context> {
        Context::with_options(ContextOptions::from_env())
    }

    /// A context with explicit options.
    pub fn with_options(opts: ContextOptions) -> Result<Context> {
        let shared = Arc::new(DeviceShared::new(&opts)?);
        let stream = Stream::new(&shared, 0)?;
        Ok(Context {
            inner: Arc::new(ContextInner {
                shared,
                stream,
                precision: opts.precision,
                buffer_addressing: opts
                    .buffer_addressing
                    .map_or_else(BufferAddressing::from_env, Ok),
                options: opts,
            }),
        })
    }

    /// Another context made with this one's options (features, checking, profiling…) on the
    /// device `device` selects (as [`ContextOptions::device`]): a second device of a program
    /// that uses several. Two contexts on one physical device are two logical devices, with
    /// nothing shared between them.
    pub fn sibling(&self, device: Option<String>) -> Result<Context> {
        Context::with_options(self.inner.options.clone().with_device(device))
    }

    /// The options this context was made with.
    pub fn options(&self) -> &ContextOptions {
        &self.inner.options
    }

    /// Every physical device with a compute queue (and Vulkan 1.1), in enumeration order; the
    /// index of each is what `CAJETA_DEVICE=<index>` selects.
    pub fn list_devices() -> Result<Vec<DeviceInfo>> {
        device::list_devices()
    }

    /// The precision variant (SPEC §8) kernels for this context should be compiled as:
    /// [`ContextOptions::precision`] intersected with the device's features, with a note per
    /// fallback.
    pub fn precision_variant(&self) -> (PrecisionVariant, Vec<String>) {
        self.inner
            .precision
            .resolve(&self.inner.shared.info.features)
    }

    /// The device this context runs on.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.inner.shared.info
    }

    /// What the device's allocator holds now (live allocations and their bytes).
    pub fn memory_usage(&self) -> MemoryUsage {
        memory::usage(&self.inner.shared)
    }

    /// A device-local storage buffer of `size_bytes` bytes (contents undefined).
    pub fn create_buffer(&self, size_bytes: u64) -> Result<Buffer> {
        Buffer::new(&self.inner.shared, size_bytes, MemoryKind::Device)
    }

    /// A buffer of `size_bytes` bytes in memory of `kind` (see [`MemoryKind`]).
    pub fn create_buffer_in(&self, size_bytes: u64, kind: MemoryKind) -> Result<Buffer> {
        Buffer::new(&self.inner.shared, size_bytes, kind)
    }

    /// A 2-D storage image (contents undefined, layout `UNDEFINED` until first use).
    pub fn create_image2d(&self, width: u32, height: u32, format: ImageFormat) -> Result<Image2D> {
        Image2D::new(&self.inner.shared, width, height, format)
    }

    /// A sampled texture (`SAMPLED | TRANSFER_DST`; contents undefined until uploaded with
    /// [`Stream::upload_texture`]). Refuses shapes beyond the device limits and formats the
    /// device cannot sample.
    pub fn create_texture(&self, desc: TextureDesc) -> Result<Texture> {
        Texture::new(&self.inner.shared, desc)
    }

    /// A separate sampler with `filter` and `address` on every axis.
    pub fn create_sampler(&self, filter: Filter, address: AddressMode) -> Result<Sampler> {
        Sampler::new(&self.inner.shared, filter, address)
    }

    /// A bottom-level acceleration structure of triangles: `vertices` holds `x y z` per vertex;
    /// `indices`, three per triangle, index the vertices (without it, every three vertices
    /// make one triangle). Built on the device and waited for. Needs
    /// `VK_KHR_acceleration_structure` ([`RuntimeError::AccelerationUnsupported`] otherwise);
    /// an empty array, a length that is no multiple of 3 or an index past the vertices is
    /// [`RuntimeError::InvalidResource`].
    pub fn build_blas_triangles(
        &self,
        vertices: &[f32],
        indices: Option<&[u32]>,
    ) -> Result<AccelStruct> {
        acceleration::build(
            &self.inner.shared,
            acceleration::Geometry::Triangles { vertices, indices },
        )
    }

    /// A bottom-level acceleration structure of axis-aligned boxes, `minX minY minZ maxX maxY
    /// maxZ` each (a ray query reports them as candidates for the kernel to decide on).
    pub fn build_blas_aabbs(&self, boxes: &[f32]) -> Result<AccelStruct> {
        acceleration::build(&self.inner.shared, acceleration::Geometry::Aabbs(boxes))
    }

    /// A top-level acceleration structure over `instances` (at least one): what an
    /// `AccelerationStructure` kernel parameter binds. It keeps the bottom-level structures
    /// alive.
    pub fn build_tlas(&self, instances: &[AccelInstance<'_>]) -> Result<AccelStruct> {
        acceleration::build(
            &self.inner.shared,
            acceleration::Geometry::Instances(instances),
        )
    }

    /// Whether this context can build acceleration structures (the device offers
    /// `VK_KHR_acceleration_structure` and the runtime enabled it, with the
    /// `accelerationStructure` and `bufferDeviceAddress` features).
    pub fn supports_acceleration_structures(&self) -> bool {
        self.inner.shared.accel.is_some()
    }

    /// Whether this context runs ray-query kernels: `VK_KHR_ray_query` and its `rayQuery`
    /// feature are enabled (the runtime enables them wherever the device offers them next to
    /// acceleration structures).
    pub fn supports_ray_queries(&self) -> bool {
        self.inner
            .shared
            .enabled_extensions
            .contains(crate::features::RAY_QUERY_EXT)
    }

    /// Loads a kernel from SPIR-V words and its reflection document. Refuses kernels needing a
    /// feature, capability, extension or SPIR-V version the device lacks, naming it.
    pub fn load_kernel(&self, spirv: &[u32], reflection: &Reflection) -> Result<Kernel> {
        Kernel::load(&self.inner.shared, spirv, reflection)
    }

    /// Whether kernel printing works in this context.
    pub fn kernel_printf(&self) -> KernelPrintf {
        self.inner.shared.instance.printf_state.clone()
    }

    /// What kernels printed since the previous call, one entry per printf call (its final
    /// newline removed), in launch order (within a launch, in the order the device wrote
    /// them). The layer delivers a launch's messages
    /// when the host waits for it, so they are here after the `sync()` or download that
    /// completed the launch.
    pub fn take_kernel_output(&self) -> Vec<String> {
        if self.inner.shared.instance.printf_state != KernelPrintf::Active {
            return Vec::new();
        }
        self.inner.shared.instance.sink.printf.take()
    }

    /// The context's stream; every call returns the same stream.
    pub fn default_stream(&self) -> Stream {
        self.inner.stream.clone()
    }

    /// The resource barriers recorded so far, in recording order (at most the newest 65,536;
    /// older ones are dropped so long runs do not grow without bound).
    pub fn barrier_log(&self) -> Vec<BarrierRecord> {
        lock(&self.inner.shared.tracker).log()
    }

    /// Empties the barrier log (hazard tracking itself is unaffected).
    pub fn clear_barrier_log(&self) {
        lock(&self.inner.shared.tracker).clear_log();
    }

    /// The optional Vulkan features enabled on this context's device, sorted.
    pub fn enabled_features(&self) -> Vec<String> {
        let mut v: Vec<String> = self.inner.shared.enabled_features.iter().cloned().collect();
        v.sort();
        v
    }

    /// Size in bytes of the largest device-local memory heap.
    pub fn device_local_heap_bytes(&self) -> u64 {
        self.inner.shared.device_local_heap
    }

    /// Per-kernel and per-transfer GPU times recorded so far (profiling mode; empty otherwise).
    /// Commands count once their batch has finished (after `sync()` or a download).
    pub fn profile_report(&self) -> ProfileReport {
        lock(&self.inner.shared.profile).report()
    }

    /// Forgets the recorded GPU times.
    pub fn clear_profile(&self) {
        lock(&self.inner.shared.profile).clear();
    }

    /// Whether launches and transfers are being timed.
    pub fn is_profiling(&self) -> bool {
        self.inner.shared.profiling
    }

    /// A new in-order stream with its own command buffers, on the next queue slot (see
    /// [`ContextOptions::queues`]): where the device has a second compute queue, its work
    /// runs beside the default stream's. Work on different streams is unordered, as with
    /// CUDA streams: order work on a shared resource with an [`Event`] (`wait_event` makes
    /// this stream's later submissions wait on a semaphore the event's stream signals) or a
    /// `sync()`. The barriers the hazard tracker records order each stream's own commands.
    pub fn create_stream(&self) -> Result<Stream> {
        Stream::new(&self.inner.shared, self.inner.shared.slot_for_new_stream())
    }

    /// Validation messages (type VALIDATION, severity warning or error) collected so far;
    /// always empty without validation.
    pub fn validation_messages(&self) -> Vec<String> {
        self.inner.shared.instance.sink.all()
    }

    /// Validation messages that only say the layer is older than an extension this device
    /// enabled (`VK_KHR_cooperative_matrix`, `VK_KHR_shader_bfloat16` under Debian's 1.3.239
    /// layer): the layer cannot check that extension, which is not an error of the program, so
    /// these are kept here instead of in [`Context::validation_messages`].
    pub fn validation_notices(&self) -> Vec<String> {
        self.inner.shared.instance.sink.notices()
    }
}
