//! The CPU device: kernels compiled to native code for the host CPU (by the compiler's LLVM
//! CPU target) run here on host memory, their workgroups spread over the machine's cores.
//!
//! This is the device kind's first version: buffers, storage images, textures and samplers,
//! scalar and vector push constants, built-in ids, `Shared` memory, workgroup barriers,
//! atomics, `Spec` slots and `psc`. The compiler refuses what the CPU target does not lower
//! yet (quad operations, ray queries…), naming it. A launch runs to completion before it returns, so the order of
//! launches, uploads and downloads is program order without any hazard tracking.
//! docs/cpu-device.md describes the execution model.

mod abi;
mod dispatch;
mod filter;
mod image;
mod profile;
mod texture;

use std::any::Any;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub use abi::{BarrierFn, BindingSlot, InvocationContext, KernelEntry, SCRATCH_BYTES};
pub use image::{CpuImage, MAX_IMAGE_DIMENSION_2D};
pub use texture::{
    CpuSampler, CpuTexture, FetchFn, SampleFn, SamplerAccess, TextureAccess, FAST_R32F,
};

use crate::reflection::{DescriptorType, ParameterSlot, Reflection};
use crate::{LaunchConfig, Result, RuntimeError, ScalarValue};

/// A kernel compiled for the CPU device: its native entries, its interface, and the code
/// they live in (kept alive as long as the kernel).
pub struct CpuKernel {
    entries: KernelEntries,
    reflection: Reflection,
    barriers: bool,
    _code: Arc<dyn Any + Send + Sync>,
}

/// The compiled entries of a kernel. At least one of the two is present.
#[derive(Debug, Clone, Copy)]
pub struct KernelEntries {
    /// Runs one invocation (calling the context's barrier at a workgroup barrier).
    pub invocation: Option<KernelEntry>,
    /// Runs every invocation of the context's workgroup on the calling thread: in turn for
    /// a kernel without barriers, region after region for one split at its barriers.
    pub workgroup: Option<KernelEntry>,
    /// Bytes of context arrays one invocation needs (`InvocationContext::private`); 0 but
    /// for split kernels.
    pub private_bytes: usize,
    /// How many of the kernel's loops over a workgroup's invocations run as SIMD lanes: 1
    /// for a kernel without barriers that got its vector form, the regions that got one for
    /// a kernel split at its barriers, 0 for the rest.
    pub lane_loops: usize,
}

impl std::fmt::Debug for CpuKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuKernel")
            .field("entry_point", &self.reflection.entry_point)
            .field("barriers", &self.barriers)
            .field("split", &self.is_split())
            .field("lane_loops", &self.entries.lane_loops)
            .finish()
    }
}

impl CpuKernel {
    /// A kernel from its compiled entries. `barriers`: whether it has workgroup barriers
    /// (one without a workgroup entry then runs each workgroup's invocations on threads of
    /// their own, which meet at the context's barrier).
    ///
    /// # Safety
    /// The entries must follow the [`InvocationContext`] interface for `reflection`'s
    /// bindings and push-constant block, and stay valid while `code` lives.
    pub unsafe fn new(
        entries: KernelEntries,
        reflection: Reflection,
        barriers: bool,
        code: Arc<dyn Any + Send + Sync>,
    ) -> CpuKernel {
        CpuKernel {
            entries,
            reflection,
            barriers,
            _code: code,
        }
    }

    /// The kernel's reflection (the same interface its SPIR-V build has).
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// Whether the kernel has workgroup barriers.
    pub fn has_barriers(&self) -> bool {
        self.barriers
    }

    /// Whether the kernel has barriers and was split at them, so one thread runs a whole
    /// workgroup (else its workgroups run on teams of threads).
    pub fn is_split(&self) -> bool {
        self.barriers && self.entries.workgroup.is_some()
    }

    /// How many loops over a workgroup's invocations run as SIMD lanes
    /// ([`KernelEntries::lane_loops`]).
    pub fn lane_loops(&self) -> usize {
        self.entries.lane_loops
    }
}

/// A buffer in host memory, 16-byte aligned (the most a kernel's accesses assume: the CPU
/// kernels' loads and stores are capped at 16-byte alignment), or a slice of
/// one ([`CpuBuffer::slice`]). Cheap to clone; clones and slices share the bytes.
#[derive(Clone)]
pub struct CpuBuffer {
    words: Arc<Storage>,
    /// Where this view starts in the storage, in bytes (0 but for slices).
    offset: u64,
    bytes: u64,
}

/// The bytes behind a [`CpuBuffer`]: written through raw pointers by kernels running on
/// several threads, which is why they sit in an `UnsafeCell`.
struct Storage(UnsafeCell<Box<[u128]>>);

// SAFETY: the host reads and writes the storage only between launches (a launch returns
// when its kernels are done); during a launch only the kernel's invocations touch it, and a
// kernel's concurrent accesses are its own (as on a GPU: atomics where it needs them).
unsafe impl Sync for Storage {}
// SAFETY: as above.
unsafe impl Send for Storage {}

impl std::fmt::Debug for CpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuBuffer({} bytes)", self.bytes)
    }
}

impl CpuBuffer {
    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes
    }

    /// Bytes `offset .. offset + len` of this buffer as a buffer of their own, sharing its
    /// memory (`buf.slice(first, count)` of host code). Like a Vulkan slice it must be
    /// non-empty and inside the buffer.
    pub fn slice(&self, offset: u64, len: u64) -> Result<CpuBuffer> {
        if len == 0 || offset.checked_add(len).is_none_or(|end| end > self.bytes) {
            return Err(RuntimeError::InvalidResource(format!(
                "slice of {len} bytes at offset {offset} of a {}-byte buffer",
                self.bytes
            )));
        }
        Ok(CpuBuffer {
            words: self.words.clone(),
            offset: self.offset + offset,
            bytes: len,
        })
    }

    /// Whether this view's first `bytes` bytes and `other`'s first `other_bytes` bytes share
    /// memory (views of one buffer whose ranges overlap).
    pub fn overlaps(&self, bytes: u64, other: &CpuBuffer, other_bytes: u64) -> bool {
        Arc::ptr_eq(&self.words, &other.words)
            && self.offset < other.offset + other_bytes
            && other.offset < self.offset + bytes
    }

    fn ptr(&self) -> *mut u8 {
        // SAFETY: see `Storage`: only the pointer is taken here; `offset` is inside the
        // storage (checked by `slice`).
        unsafe {
            (*self.words.0.get())
                .as_mut_ptr()
                .cast::<u8>()
                .add(self.offset as usize)
        }
    }
}

/// One argument of a CPU launch, in parameter order.
#[derive(Debug, Clone, Copy)]
pub enum CpuArg<'a> {
    /// A `KernelBuffer<T>` parameter.
    Buffer(&'a CpuBuffer),
    /// An `Image2D` parameter.
    Image(&'a CpuImage),
    /// A texture parameter.
    Texture(&'a CpuTexture),
    /// A `Sampler` parameter.
    Sampler(&'a CpuSampler),
    /// A scalar parameter.
    Scalar(ScalarValue),
    /// A vector or POD push-constant parameter as raw std430 bytes.
    Bytes(&'a [u8]),
}

/// The CPU device. Launches are synchronous: when [`CpuDevice::launch`] returns, the
/// kernel's writes are in the buffers.
#[derive(Debug, Clone)]
pub struct CpuDevice {
    threads: usize,
    /// Cajeta's `Device.setCpuWorkerCap(n)`: at most this many worker threads per launch
    /// (0: no cap). Shared by the clones of one device.
    worker_cap: Arc<AtomicUsize>,
    /// The worker threads (or barrier teams) the last launch ran on, 0 before any.
    last_workers: Arc<AtomicUsize>,
}

/// The largest workgroup, per axis and in total: the limits every Vulkan device here
/// reports (lavapipe's), so a launch refused on one is refused on the other.
pub const MAX_WORKGROUP_SIZE: [u32; 3] = [1024, 1024, 64];
/// See [`MAX_WORKGROUP_SIZE`].
pub const MAX_WORKGROUP_INVOCATIONS: u32 = 1024;

/// The most workgroups a CPU launch takes in each dimension: 2^31 - 1, as Vulkan devices
/// commonly report, so that a grid size computed as a negative `int32` (-1 reads as
/// 4294967295) is refused rather than run as 4 billion workgroups.
pub const MAX_WORKGROUP_COUNT: u32 = i32::MAX as u32;
/// The shared memory a workgroup may use, as `Device.sharedBytesPerBlock()` reports it:
/// lavapipe's `maxComputeSharedMemorySize`, so that a program sizing its tiles from it
/// makes the same choice on both.
pub const MAX_SHARED_MEMORY_BYTES: u32 = 32768;

/// The host's memory in bytes (`MemTotal` of `/proc/meminfo`), what the CPU device's
/// buffers come from; 0 where it cannot be read.
pub fn host_memory_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0)
}

impl Default for CpuDevice {
    fn default() -> Self {
        CpuDevice::new()
    }
}

impl CpuDevice {
    /// The device on every core (`CAJETA_CPU_THREADS=N` caps the worker threads).
    pub fn new() -> CpuDevice {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = std::env::var("CAJETA_CPU_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(cores);
        CpuDevice {
            threads,
            worker_cap: Arc::new(AtomicUsize::new(0)),
            last_workers: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Caps the worker threads of later launches at `n` (0: no cap, every thread).
    pub fn set_worker_cap(&self, n: usize) {
        self.worker_cap.store(n, Ordering::Relaxed);
    }

    /// The cap [`Self::set_worker_cap`] set, 0 for none.
    pub fn worker_cap(&self) -> usize {
        self.worker_cap.load(Ordering::Relaxed)
    }

    /// The worker threads the last launch ran on (1 when it ran serially), 0 before any.
    pub fn last_launch_workers(&self) -> usize {
        self.last_workers.load(Ordering::Relaxed)
    }

    /// The worker threads a launch may use: every thread, or fewer under the cap.
    pub(crate) fn usable_threads(&self) -> usize {
        match self.worker_cap() {
            0 => self.threads,
            cap => self.threads.min(cap),
        }
    }

    /// Records the worker threads a launch ran on.
    pub(crate) fn record_workers(&self, n: usize) {
        self.last_workers.store(n, Ordering::Relaxed);
    }

    /// The device's name as `cajetac devices` lists it.
    pub fn name(&self) -> String {
        format!("cajeta cpu ({} threads)", self.threads)
    }

    /// Worker threads workgroups are spread over.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// A zeroed buffer of `size_bytes` bytes.
    pub fn create_buffer(&self, size_bytes: u64) -> Result<CpuBuffer> {
        if size_bytes == 0 {
            return Err(RuntimeError::InvalidResource(
                "a buffer of 0 bytes".to_string(),
            ));
        }
        let words = usize::try_from(size_bytes.div_ceil(16)).map_err(|_| {
            RuntimeError::InvalidResource(format!("a buffer of {size_bytes} bytes"))
        })?;
        Ok(CpuBuffer {
            words: Arc::new(Storage(UnsafeCell::new(
                vec![0u128; words].into_boxed_slice(),
            ))),
            offset: 0,
            bytes: size_bytes,
        })
    }

    /// Copies `data` into `buf` (the lengths must be equal).
    pub fn upload(&self, buf: &CpuBuffer, data: &[u8]) -> Result<()> {
        check_length(buf, data.len())?;
        // SAFETY: no launch is running (launches are synchronous); lengths checked.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf.ptr(), data.len()) };
        Ok(())
    }

    /// Copies `buf` into `out` (the lengths must be equal).
    pub fn download(&self, buf: &CpuBuffer, out: &mut [u8]) -> Result<()> {
        check_length(buf, out.len())?;
        // SAFETY: as in `upload`.
        unsafe { std::ptr::copy_nonoverlapping(buf.ptr(), out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Runs `kernel` on a grid of `config.grid` workgroups of `config.block` invocations,
    /// with the same argument and shape checks as a Vulkan launch.
    pub fn launch(&self, kernel: &CpuKernel, config: &LaunchConfig, args: &[CpuArg]) -> Result<()> {
        let r = &kernel.reflection;
        let fail = |message: String| RuntimeError::Launch {
            kernel: r.entry_point.clone(),
            message,
        };
        check_shape(config).map_err(fail)?;
        check_shared(r.static_shared_bytes, config.shared_bytes).map_err(fail)?;
        let (slots, push) = pack(r, args).map_err(fail)?;
        dispatch::run(self, kernel, config, &slots, &push).map_err(fail)?;
        let crossed = args
            .iter()
            .any(|a| matches!(a, CpuArg::Texture(t) if t.take_edge_crossed()));
        if crossed {
            return Err(fail(
                "a linear sample of a cube texture crossed a face edge, which needs Vulkan's seamless cube filtering; the cpu device does not do it (sample nearest, or run on a Vulkan device)".to_string(),
            ));
        }
        Ok(())
    }
}

/// The fixed-size arrays' `fixed` bytes and the dynamic array's `dynamic` within
/// [`MAX_SHARED_MEMORY_BYTES`], refused with the Vulkan launch's words otherwise.
fn check_shared(fixed: u32, dynamic: Option<u32>) -> std::result::Result<(), String> {
    let max = MAX_SHARED_MEMORY_BYTES;
    let total = u64::from(fixed) + u64::from(dynamic.unwrap_or(0));
    if total <= u64::from(max) {
        return Ok(());
    }
    Err(match dynamic {
        Some(bytes) if fixed == 0 => {
            format!("shared_bytes {bytes} exceeds maxComputeSharedMemorySize = {max}")
        }
        Some(bytes) => format!(
            "{total} bytes of shared memory ({fixed} in fixed-size arrays + shared_bytes {bytes}) exceed maxComputeSharedMemorySize = {max}"
        ),
        None => format!(
            "the kernel's shared arrays take {fixed} bytes, exceeding maxComputeSharedMemorySize = {max}"
        ),
    })
}

fn check_length(buf: &CpuBuffer, host: usize) -> Result<()> {
    if buf.bytes != host as u64 {
        return Err(RuntimeError::LengthMismatch {
            resource: "buffer",
            resource_bytes: buf.bytes,
            host_bytes: host as u64,
        });
    }
    Ok(())
}

/// The launch shape against the device limits, in the words of a Vulkan launch's check
/// (`launch/mod.rs`), so that a bad launch reads the same on either kind of device.
fn check_shape(config: &LaunchConfig) -> std::result::Result<(), String> {
    let fmt3 = |v: [u32; 3]| format!("[{},{},{}]", v[0], v[1], v[2]);
    if config.grid.contains(&0) {
        return Err(format!("grid {} has a zero dimension", fmt3(config.grid)));
    }
    if config.block.contains(&0) {
        return Err(format!("block {} has a zero dimension", fmt3(config.block)));
    }
    for (i, g) in config.grid.iter().enumerate() {
        if *g > MAX_WORKGROUP_COUNT {
            return Err(format!(
                "grid {} exceeds maxComputeWorkGroupCount[{i}] = {MAX_WORKGROUP_COUNT}",
                fmt3(config.grid)
            ));
        }
    }
    for (i, (b, max)) in config.block.iter().zip(MAX_WORKGROUP_SIZE).enumerate() {
        if *b > max {
            return Err(format!(
                "block {} exceeds maxComputeWorkGroupSize[{i}] = {max}",
                fmt3(config.block)
            ));
        }
    }
    let invocations: u64 = config.block.iter().map(|&b| u64::from(b)).product();
    if invocations > u64::from(MAX_WORKGROUP_INVOCATIONS) {
        return Err(format!(
            "block {} has {invocations} invocations, exceeding maxComputeWorkGroupInvocations = {MAX_WORKGROUP_INVOCATIONS}",
            fmt3(config.block)
        ));
    }
    Ok(())
}

/// The binding table (indexed by binding number) and push-constant bytes of `args`.
fn pack(
    r: &Reflection,
    args: &[CpuArg],
) -> std::result::Result<(Vec<BindingSlot>, Vec<u8>), String> {
    if args.len() != r.parameters.len() {
        return Err(format!(
            "expected {} argument(s), got {}",
            r.parameters.len(),
            args.len()
        ));
    }
    let slots_len = r.bindings.iter().map(|b| b.binding + 1).max().unwrap_or(0);
    let empty = BindingSlot {
        data: std::ptr::null_mut(),
        bytes: 0,
        width: 0,
        height: 0,
    };
    let mut slots = vec![empty; slots_len as usize];
    let mut push = vec![0u8; r.push_constants.size as usize];
    for (param, arg) in r.parameters.iter().zip(args) {
        let name = &param.name;
        match (param.slot, arg) {
            (ParameterSlot::Binding(i), CpuArg::Buffer(buf)) => {
                let b = r
                    .bindings
                    .get(i)
                    .ok_or_else(|| format!("parameter `{name}` points at missing binding {i}"))?;
                if b.descriptor_type != DescriptorType::StorageBuffer || b.array.is_some() {
                    return Err(format!("parameter `{name}` is not a buffer"));
                }
                slots[b.binding as usize] = BindingSlot {
                    data: buf.ptr(),
                    bytes: buf.bytes,
                    width: 0,
                    height: 0,
                };
            }
            (ParameterSlot::Binding(i), CpuArg::Image(img)) => {
                let b = r
                    .bindings
                    .get(i)
                    .ok_or_else(|| format!("parameter `{name}` points at missing binding {i}"))?;
                if b.descriptor_type != DescriptorType::StorageImage {
                    return Err(format!("parameter `{name}` is not an image"));
                }
                slots[b.binding as usize] = BindingSlot {
                    data: img.texels().ptr(),
                    bytes: img.texels().bytes,
                    width: img.width(),
                    height: img.height(),
                };
            }
            (ParameterSlot::Binding(i), CpuArg::Texture(_) | CpuArg::Sampler(_)) => {
                let b = r
                    .bindings
                    .get(i)
                    .ok_or_else(|| format!("parameter `{name}` points at missing binding {i}"))?;
                let (data, want) = match arg {
                    CpuArg::Texture(t) => (t.access().cast::<u8>(), DescriptorType::SampledImage),
                    CpuArg::Sampler(s) => (s.access().cast::<u8>(), DescriptorType::Sampler),
                    _ => unreachable!("matched above"),
                };
                if b.descriptor_type != want {
                    return Err(format!("parameter `{name}` is not a {want:?}"));
                }
                slots[b.binding as usize] = BindingSlot {
                    data: data.cast_mut(),
                    bytes: 0,
                    width: 0,
                    height: 0,
                };
            }
            (ParameterSlot::PushConstant(m), CpuArg::Scalar(_) | CpuArg::Bytes(_)) => {
                let member = r
                    .push_constants
                    .members
                    .get(m)
                    .ok_or_else(|| format!("parameter `{name}` has no push constant"))?;
                let bytes = match arg {
                    CpuArg::Scalar(v) => v.to_le_bytes(),
                    CpuArg::Bytes(b) => b.to_vec(),
                    _ => unreachable!("matched above"),
                };
                if bytes.len() != member.size as usize {
                    return Err(format!(
                        "parameter `{name}` is a {}-byte `{}`, got {} bytes",
                        member.size,
                        member.ty,
                        bytes.len()
                    ));
                }
                let start = member.offset as usize;
                push.get_mut(start..start + bytes.len())
                    .ok_or_else(|| format!("parameter `{name}` overruns the push-constant block"))?
                    .copy_from_slice(&bytes);
            }
            (slot, arg) => {
                return Err(format!(
                    "parameter `{name}` ({slot:?}) cannot take {arg:?} on the cpu device"
                ))
            }
        }
    }
    Ok((slots, push))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_shapes_are_refused_with_the_vulkan_limits() {
        let ok = LaunchConfig::new([4, 1, 1], [256, 4, 1]);
        assert!(check_shape(&ok).is_ok());
        // The messages are a Vulkan launch's (`launch/mod.rs`), word for word.
        let zero = LaunchConfig::new([0, 1, 1], [64, 1, 1]);
        assert_eq!(
            check_shape(&zero).unwrap_err(),
            "grid [0,1,1] has a zero dimension"
        );
        let deep = LaunchConfig::new([1, 1, 1], [1, 1, 65]);
        assert_eq!(
            check_shape(&deep).unwrap_err(),
            "block [1,1,65] exceeds maxComputeWorkGroupSize[2] = 64"
        );
        let big = LaunchConfig::new([1, 1, 1], [64, 32, 1]);
        assert_eq!(
            check_shape(&big).unwrap_err(),
            "block [64,32,1] has 2048 invocations, exceeding maxComputeWorkGroupInvocations = 1024"
        );
    }

    #[test]
    fn buffers_copy_in_and_out_and_check_lengths() {
        let dev = CpuDevice::new();
        assert!(dev.create_buffer(0).is_err());
        let b = dev.create_buffer(5).unwrap();
        dev.upload(&b, &[1, 2, 3, 4, 5]).unwrap();
        let mut out = [0u8; 5];
        dev.download(&b, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4, 5]);
        assert!(matches!(
            dev.upload(&b, &[0; 4]),
            Err(RuntimeError::LengthMismatch { .. })
        ));
        // A slice sees (and writes) its part of the buffer.
        let s = b.slice(1, 3).unwrap();
        let mut part = [0u8; 3];
        dev.download(&s, &mut part).unwrap();
        assert_eq!(part, [2, 3, 4]);
        dev.upload(&s, &[9, 9, 9]).unwrap();
        dev.download(&b, &mut out).unwrap();
        assert_eq!(out, [1, 9, 9, 9, 5]);
        assert!(b.slice(3, 3).is_err() && b.slice(0, 0).is_err());
        assert_eq!(s.slice(1, 2).unwrap().size(), 2);
    }
}
