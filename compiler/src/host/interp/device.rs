//! The runtime side of a run (context, loaded kernels, streams) and the host objects that
//! touch the device through `cajeta-runtime`: buffers (allocation, slices, memory kinds) and
//! images. Transfers are in `async_transfer.rs`, streams and events in `streams.rs`,
//! launches in `launch.rs`, the interpreter's buffer operations in `device/buffers.rs`.
//!
//! The context is created on first use (or injected by the caller), each kernel is loaded
//! once per run, and plain transfers go through the one default stream
//! (`KernelStream.current()`), so that a `download` is ordered after the launches recorded
//! on it before. Every runtime error becomes a [`HostError`] at the span of the operation,
//! carrying the runtime's message.

mod buffers;

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use cajeta_runtime::{
    Buffer, CommandId, Context, Image2D, ImageFormat as RtImageFormat, Kernel, Stream,
};

use super::eval::{err, internal, Fail};
use super::HostError;

use crate::diagnostics::Span;
use crate::ir::{FunctionId, ScalarType, StructDef, Type};
use crate::kernel::spirv::CompiledKernel;

/// A `KernelBuffer<T>` of the host program.
pub struct BufferObj {
    /// Element (lane) type.
    pub elem: ScalarType,
    /// 1 for scalar elements, N for `Vector<elem, N>` elements.
    pub lanes: u8,
    /// The POD class of a structured buffer's elements (`KernelBuffer<Particle>`, laid out
    /// std430); `elem` is then `uint32` and `lanes` 1, unused.
    pub pod: Option<Arc<StructDef>>,
    /// Length in elements.
    pub len: u64,
    /// Size of its device memory in bytes.
    bytes: u64,
    /// The device memory.
    memory: RefCell<Memory>,
    /// True for `buf.slice(offset, count)`: a view of another buffer's memory, which it
    /// keeps alive, that cannot be freed or reallocated itself.
    slice: bool,
}

/// Whether a buffer has device memory.
enum Memory {
    /// Made by the legacy `heap Buffer<T>(0, n)`, not yet `allocate()`d.
    Unallocated,
    /// Usable.
    Live(DevBuffer),
    /// After `free()`.
    Freed,
}

/// A buffer's memory on the device the run uses: a Vulkan buffer, or host memory of the CPU
/// device (`cpu_run.rs`). Cheap to clone (shared handles).
#[derive(Clone)]
pub(super) enum DevBuffer {
    /// On a Vulkan device.
    Vulkan(Buffer),
    /// On the CPU device.
    Cpu(cajeta_runtime::cpu::CpuBuffer),
}

impl DevBuffer {
    /// The Vulkan buffer; on the CPU device, an error at `span` saying that `what` is not
    /// available there.
    pub(super) fn vulkan(&self, span: Span, what: &str) -> Result<&Buffer, Fail> {
        match self {
            DevBuffer::Vulkan(b) => Ok(b),
            DevBuffer::Cpu(_) => super::cpu_run::unsupported(span, what),
        }
    }

    /// Bytes `offset .. offset + len` as a buffer of their own, sharing the memory.
    fn slice(&self, offset: u64, len: u64) -> Result<DevBuffer, cajeta_runtime::RuntimeError> {
        Ok(match self {
            DevBuffer::Vulkan(b) => DevBuffer::Vulkan(b.slice(offset, len)?),
            DevBuffer::Cpu(b) => DevBuffer::Cpu(b.slice(offset, len)?),
        })
    }
}

/// An `Image2D` of the host program.
pub struct ImageObj {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    image: DevImage,
}

/// An image's memory on the device the run uses (as [`DevBuffer`] for buffers).
pub(super) enum DevImage {
    /// On a Vulkan device.
    Vulkan(Image2D),
    /// On the CPU device.
    Cpu(cajeta_runtime::cpu::CpuImage),
}

impl ImageObj {
    /// The Vulkan image; on the CPU device, an error at `span` saying that `what` is not
    /// available there.
    pub(super) fn vulkan(&self, span: Span, what: &str) -> Result<&Image2D, Fail> {
        match &self.image {
            DevImage::Vulkan(i) => Ok(i),
            DevImage::Cpu(_) => super::cpu_run::unsupported(span, what),
        }
    }

    /// The image's memory on the CPU device (`None` on a Vulkan device).
    pub(super) fn cpu(&self) -> Option<&cajeta_runtime::cpu::CpuImage> {
        match &self.image {
            DevImage::Cpu(i) => Some(i),
            DevImage::Vulkan(_) => None,
        }
    }

    /// The texel format the image was created with.
    pub fn format(&self) -> RtImageFormat {
        match &self.image {
            DevImage::Vulkan(i) => i.format(),
            DevImage::Cpu(i) => i.format(),
        }
    }
}

/// A `KernelStream` of the host program.
pub struct StreamObj {
    /// The Vulkan stream; `None` on the CPU device, where every operation has finished when
    /// it returns, so a stream orders nothing.
    stream: Option<Stream>,
    /// True for `KernelStream.current()`, which cannot be destroyed.
    pub(super) default: bool,
    /// Set by `destroy()`: the stream takes no more work.
    pub(super) destroyed: std::cell::Cell<bool>,
    /// `downloadAsync` copies submitted and not yet landed in their arrays, oldest first.
    pub(super) downloads: RefCell<Vec<super::async_transfer::PendingArray>>,
    /// How many `downloadAsync` calls the stream has had (numbers its pending downloads).
    pub(super) issued: std::cell::Cell<u64>,
}

impl StreamObj {
    pub(super) fn new(stream: Option<Stream>, default: bool) -> StreamObj {
        StreamObj {
            stream,
            default,
            destroyed: std::cell::Cell::new(false),
            downloads: RefCell::new(Vec::new()),
            issued: std::cell::Cell::new(0),
        }
    }
}

impl StreamObj {
    /// The Vulkan stream; on the CPU device an error at `span` saying that `what` is not
    /// available there.
    pub(super) fn vk(&self, span: Span, what: &str) -> Result<&Stream, Fail> {
        match &self.stream {
            Some(s) => Ok(s),
            None => super::cpu_run::unsupported(span, what),
        }
    }

    /// The Vulkan stream, `None` on the CPU device.
    pub(super) fn vulkan(&self) -> Option<&Stream> {
        self.stream.as_ref()
    }
}

impl fmt::Debug for StreamObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KernelStream")
    }
}

/// The runtime side of one run.
///
/// The fields from `context` to `pins` are the *current* device's (`Device.set`); the other
/// devices of a program that uses several wait in `others` (`devices.rs`).
pub struct Device<'a> {
    pub(super) kernels: &'a HashMap<FunctionId, CompiledKernel>,
    pub(super) context: Option<Context>,
    /// The context being created elsewhere, when `context` is `None`.
    pending: Option<super::PendingContext>,
    /// Loaded kernels, by function and whether it is the address variant.
    pub(super) loaded: HashMap<(FunctionId, bool), Kernel>,
    pub(super) stream: Option<Rc<StreamObj>>,
    /// Streams made by `KernelStream.create()`, waited for at the end of the run.
    pub(super) created: Vec<Rc<StreamObj>>,
    /// Where each checked launch not yet waited for was made (checked mode's notes).
    pub(super) checked_launches: HashMap<CommandId, Span>,
    /// Large host arrays pinned for direct transfers.
    pub(super) pins: super::host_pins::HostPins,
    /// Large host blocks come from the context's device while the run uses it (where the
    /// program installed `cajeta_runtime::HostMemoryAllocator`, as `cajetac` does).
    provided: Option<ProvidedHostMemory>,
    /// Several devices: which is current, and the others' state.
    pub(super) others: super::devices::Others,
    /// The library GEMMs compiled so far (`Blas.gemm`), for every device of the run.
    pub(super) gemms: super::gemm::GemmCache,
    /// The CPU device and its kernels, when the run uses it instead of a Vulkan device.
    pub(super) cpu: Option<&'a super::cpu_run::CpuRun>,
    /// The CPU device made for a Vulkan run whose program calls `Device.force`, which may
    /// still choose it (`device_control.rs`).
    pub(super) spare_cpu: Option<&'a super::cpu_run::CpuRun>,
    /// Whether the run has used its device (a buffer, image, texture, stream, context or a
    /// device query), after which `Device.force` can no longer change it.
    pub(super) used: std::cell::Cell<bool>,
}

/// The run's context, provided for large host blocks ([`cajeta_runtime::provide_host_memory`])
/// from its first use to the end of the run.
struct ProvidedHostMemory(Context);

impl Drop for ProvidedHostMemory {
    fn drop(&mut self) {
        cajeta_runtime::withdraw_host_memory(&self.0);
    }
}

impl<'a> Device<'a> {
    /// No device work done yet; `context` is used instead of a new one when given.
    pub fn new(
        kernels: &'a HashMap<FunctionId, CompiledKernel>,
        context: Option<Context>,
    ) -> Device<'a> {
        Device {
            kernels,
            context,
            pending: None,
            loaded: HashMap::new(),
            stream: None,
            created: Vec::new(),
            checked_launches: HashMap::new(),
            pins: Default::default(),
            provided: None,
            others: Default::default(),
            gemms: Default::default(),
            cpu: None,
            spare_cpu: None,
            used: Default::default(),
        }
    }

    /// The run uses the CPU device `cpu` (and its kernels) instead of a Vulkan device.
    pub fn on_cpu(mut self, cpu: Option<&'a super::cpu_run::CpuRun>) -> Device<'a> {
        self.cpu = cpu;
        self
    }

    /// `Device.force("cpu")` may move the run to the CPU device `cpu` (compiled beforehand,
    /// as the run itself starts on a Vulkan device).
    pub fn with_spare_cpu(mut self, cpu: Option<&'a super::cpu_run::CpuRun>) -> Device<'a> {
        self.spare_cpu = cpu;
        self
    }

    /// The context comes from `pending` (when none was given): the first device use waits
    /// for it, so whatever the run does first (compiling native host code) overlaps with
    /// the device's creation.
    pub fn with_pending(mut self, pending: Option<super::PendingContext>) -> Device<'a> {
        if self.context.is_none() {
            self.pending = pending;
        }
        self
    }

    /// The `sfp` storage form the kernels were compiled for (SPEC §8): every kernel of one
    /// compile shares the variant, which its reflection names; fp32 without kernels.
    pub(super) fn sfp_storage(&self) -> cajeta_runtime::FloatStorage {
        self.kernels
            .iter()
            .min_by_key(|(id, _)| **id)
            .and_then(|(_, k)| {
                cajeta_runtime::PrecisionVariant::from_name(&k.reflection.precision_variant)
            })
            .map(|v| v.float_storage)
            .unwrap_or_default()
    }

    /// The result of a call that waited for the device (sync, download): a bounds violation
    /// of a checked kernel points at the access in the kernel, with its launch as a note;
    /// any other error at `span`. Every launch before it has finished either way.
    pub(super) fn waited(
        &mut self,
        span: Span,
        r: Result<(), cajeta_runtime::RuntimeError>,
    ) -> Result<(), Fail> {
        let launches = std::mem::take(&mut self.checked_launches);
        match r {
            Ok(()) => Ok(()),
            Err(cajeta_runtime::RuntimeError::OutOfBounds(v)) => {
                let (file, offset) = v.site;
                let mut notes = Vec::new();
                // Every invocation that arrived at an unevenly reached barrier reports it: one
                // finding, not many.
                if v.count > 1 && v.kind != "barrier" {
                    let more = v.count - 1;
                    notes.push(format!(
                        "and {more} more out-of-bounds access(es) in the same launch"
                    ));
                }
                Err(Box::new(HostError {
                    message: v.message(),
                    span: Some(Span::new(file as usize, offset as usize, offset as usize)),
                    launch: launches.get(&v.command).copied(),
                    notes,
                }))
            }
            Err(e) => err(span, e.to_string()),
        }
    }

    /// Waits for the work still pending on the stream, so that launches a program never
    /// synchronized still run, and their failures are reported rather than lost.
    pub fn finish(&mut self) -> Result<(), Fail> {
        self.finish_others()?;
        self.finish_current()
    }

    /// [`Device::finish`] for the current device only.
    pub(super) fn finish_current(&mut self) -> Result<(), Fail> {
        let created = std::mem::take(&mut self.created);
        for s in created.iter().filter(|s| !s.destroyed.get()) {
            if let Some(vk) = &s.stream {
                self.finish_stream(vk)?;
            }
        }
        match self.stream.clone() {
            Some(s) => match &s.stream {
                Some(vk) => self.finish_stream(vk),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }

    pub(super) fn finish_stream(&mut self, stream: &Stream) -> Result<(), Fail> {
        match stream.sync() {
            r @ Err(cajeta_runtime::RuntimeError::OutOfBounds(_)) => {
                self.waited(Span::default(), r)
            }
            r => r.map_err(|e| {
                Box::new(HostError {
                    message: format!("GPU work pending at the end of the run failed: {e}"),
                    span: None,
                    launch: None,
                    notes: Vec::new(),
                })
            }),
        }
    }

    /// The lines kernels printed since the last call (none before a context exists).
    pub fn kernel_output(&self) -> Vec<String> {
        self.context
            .as_ref()
            .map(Context::take_kernel_output)
            .unwrap_or_default()
    }

    /// Every stream of the run the program can still use: the default one and those it made.
    pub(super) fn streams(&self) -> impl Iterator<Item = &Rc<StreamObj>> {
        self.stream.iter().chain(self.created.iter())
    }

    /// Ends the run, giving back the context (if one was made or injected).
    pub fn into_context(mut self) -> Option<Context> {
        // Device 0's state back in place; the other devices' objects go first.
        self.release_others();
        let Device {
            context,
            pending,
            loaded,
            stream,
            created,
            ..
        } = self;
        // Drop the objects made from the context before handing it back.
        drop(stream);
        drop(created);
        drop(loaded);
        // A context still being made is waited for: the caller may use it after the run.
        context.or_else(|| pending.and_then(|p| p.recv().ok()?.ok()))
    }

    pub(super) fn context(&mut self, span: Span) -> Result<&Context, Fail> {
        self.used.set(true);
        if self.cpu.is_some() {
            return super::cpu_run::unsupported(span, "this operation");
        }
        if let Some(p) = self.pending.take() {
            // When it could not be made with the kernels' features, a plain context is
            // made below, so that a launch names the feature its kernel lacks.
            if let Ok(Ok(c)) = p.recv() {
                self.context = Some(c);
            }
        }
        if self.context.is_none() {
            match Context::new() {
                Ok(c) => self.context = Some(c),
                Err(e) => return err(span, format!("cannot use the GPU: {e}")),
            }
        }
        if self.provided.is_none() {
            if let Some(c) = &self.context {
                // Host arrays allocated from here on, when large, are driver memory: their
                // transfers are one device copy at the bus's rate (docs/runtime.md).
                cajeta_runtime::provide_host_memory(c, cajeta_runtime::HOST_ALLOC_MIN_BYTES);
                self.provided = Some(ProvidedHostMemory(c.clone()));
            }
        }
        match &self.context {
            Some(c) => Ok(c),
            None => internal(span, "context vanished"),
        }
    }

    pub(super) fn stream(&mut self, span: Span) -> Result<Rc<StreamObj>, Fail> {
        self.used.set(true);
        if let Some(s) = &self.stream {
            return Ok(s.clone());
        }
        let stream = match self.cpu {
            Some(_) => None,
            None => Some(self.context(span)?.default_stream()),
        };
        let s = Rc::new(StreamObj::new(stream, true));
        self.stream = Some(s.clone());
        Ok(s)
    }
}

impl BufferObj {
    /// Its Vulkan buffer when it has live device memory on a Vulkan device (a handle: cheap
    /// to clone); `None` otherwise (unallocated, freed, on the CPU device).
    #[cfg(feature = "native-host")]
    pub(super) fn vulkan_live(&self) -> Option<Buffer> {
        self.with_vulkan_live(Buffer::clone)
    }

    /// `f` of its Vulkan buffer, borrowed, when it has live device memory on a Vulkan device.
    /// Borrowed, not cloned, for an upload: the runtime writes straight into the buffer's
    /// mapping only while nothing else holds a handle to it.
    #[cfg(feature = "native-host")]
    pub(super) fn with_vulkan_live<R>(&self, f: impl FnOnce(&Buffer) -> R) -> Option<R> {
        match &*self.memory.borrow() {
            Memory::Live(DevBuffer::Vulkan(b)) => Some(f(b)),
            _ => None,
        }
    }

    /// The element type as written (`float32`, `Vector<float32,4>`).
    pub fn elem_type(&self) -> Type {
        if let Some(d) = &self.pod {
            Type::Struct(d.clone())
        } else if self.lanes > 1 {
            Type::Vector(self.elem, self.lanes)
        } else {
            Type::Scalar(self.elem)
        }
    }
}
