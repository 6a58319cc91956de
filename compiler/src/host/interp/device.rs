//! The runtime side of a run (context, loaded kernels, streams) and the host objects that
//! touch the device through `cajeta-runtime`: buffers (allocation, slices, memory kinds) and
//! images. Transfers are in `async_transfer.rs`, streams and events in `streams.rs`,
//! launches in `launch.rs`.
//!
//! The context is created on first use (or injected by the caller), each kernel is loaded
//! once per run, and plain transfers go through the one default stream
//! (`KernelStream.current()`), so that a `download` is ordered after the launches recorded
//! on it before. Every runtime error becomes a [`HostError`] at the span of the operation,
//! carrying the runtime's message.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use cajeta_runtime::{
    Buffer, CommandId, Context, Image2D, ImageFormat as RtImageFormat, Kernel, MemoryKind, Stream,
};

use super::eval::{err, internal, Fail, Frame, Interp};
use super::hostops::int_value;
use super::operands::{array_of, buffer_of, count_of, image_of, scalar_of, u32_of};
use super::textures::rt_format;
use super::value::{Scalar, Value};
use super::HostError;

use crate::diagnostics::Span;
use crate::ir::{Constant, Expr, ExprKind, FunctionId, HostOp, ScalarType, StructDef, Type};
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

/// The `MemoryKind` constant of `allocate(kind)` (the stdlib's order: Device, HostVisible,
/// HostCached).
fn memory_kind(k: &Expr) -> Result<MemoryKind, Fail> {
    match k.kind {
        ExprKind::Const(Constant::Int(0)) => Ok(MemoryKind::Device),
        ExprKind::Const(Constant::Int(1)) => Ok(MemoryKind::HostVisible),
        ExprKind::Const(Constant::Int(2)) => Ok(MemoryKind::HostCached),
        _ => err(
            k.span,
            "write the memory kind as MemoryKind.Device, MemoryKind.HostVisible or MemoryKind.HostCached",
        ),
    }
}

impl Interp<'_> {
    /// `heap KernelBuffer<T>(n)` of type `e.ty` with `len`, the value of its operand `n`
    /// (both host executors run this: the interpreter after evaluating `n`, native code
    /// through `cajeta_buffer_new`).
    pub(crate) fn new_buffer(&mut self, len: Scalar, n: &Expr, e: &Expr) -> Result<Value, Fail> {
        let len = count_of(len, n, "buffer length")?;
        let obj = self.buffer_obj(&e.ty, len, e.span)?;
        *obj.memory.borrow_mut() =
            Memory::Live(self.buffer_memory(&obj, MemoryKind::Device, e.span)?);
        Ok(Value::Buffer(Rc::new(obj)))
    }

    /// A buffer of type `ty` (a `KernelBuffer<T>`) of `len` elements, without memory yet.
    fn buffer_obj(&self, ty: &Type, len: u64, span: Span) -> Result<BufferObj, Fail> {
        let Type::Buffer(elem_ty) = ty else {
            return internal(span, format!("buffer of type {ty}"));
        };
        if let Type::Struct(d) = elem_ty.as_ref() {
            let stride = u64::from(d.layout().0);
            let Some(bytes) = len.checked_mul(stride) else {
                return err(span, format!("buffer of {len} elements is too large"));
            };
            return Ok(BufferObj {
                elem: ScalarType::U32,
                lanes: 1,
                pod: Some(d.clone()),
                len,
                bytes,
                memory: RefCell::new(Memory::Unallocated),
                slice: false,
            });
        }
        let (Some(elem), Some(stride)) = (elem_ty.elem_scalar(), elem_ty.std430_stride()) else {
            return internal(span, format!("buffer of type {ty}"));
        };
        let lanes = elem_ty.lanes() as u8;
        let stride = super::int_transfer::stride(elem, lanes, stride)
            .or_else(|m| err(span, format!("a KernelBuffer<{elem_ty}> {m}")))?;
        let Some(bytes) = len.checked_mul(u64::from(stride)) else {
            return err(span, format!("buffer of {len} elements is too large"));
        };
        let mut bytes = super::int_transfer::to_words(bytes, elem);
        if elem == ScalarType::Sfp {
            // SPEC §8: sized for the variant's storage form (2 bytes in 16-bit forms).
            let form = self.device.sfp_storage();
            bytes = cajeta_runtime::sfp_buffer_bytes(form, len * u64::from(lanes));
        }
        Ok(BufferObj {
            elem,
            lanes,
            pod: None,
            len,
            bytes,
            memory: RefCell::new(Memory::Unallocated),
            slice: false,
        })
    }

    /// `buf.slice(offset, count)`: elements `offset .. offset + count` of `buf` as a buffer
    /// of their own, bounds checked.
    fn buffer_slice(
        &mut self,
        (buffer, first, count): (Value, Value, Value),
        (b, offset, count_e): (&Expr, &Expr, &Expr),
        span: Span,
    ) -> Result<Value, Fail> {
        let obj = buffer_of(buffer, b)?;
        let first = count_of(scalar_of(first, offset)?, offset, "slice offset")?;
        let count = count_of(scalar_of(count, count_e)?, count_e, "slice count")?;
        if obj.elem == ScalarType::Sfp || super::int_transfer::native_lane(obj.elem).is_some() {
            return err(
                span,
                format!(
                    "a KernelBuffer<{}> cannot be sliced: its elements are packed in a variant-dependent layout",
                    obj.elem_type()
                ),
            );
        }
        if count == 0 || first.checked_add(count).is_none_or(|end| end > obj.len) {
            return err(
                span,
                format!(
                    "{}.slice({first}, {count}) is out of bounds: the buffer has {} elements (a slice needs 1 <= count and offset + count <= length)",
                    self.buffer_name(b),
                    obj.len
                ),
            );
        }
        let stride = obj.bytes / obj.len.max(1);
        let memory = self.live_buffer(&obj, b, span)?;
        let view = memory
            .slice(first * stride, count * stride)
            .or_else(|x| err(span, x.to_string()))?;
        Ok(Value::Buffer(Rc::new(BufferObj {
            elem: obj.elem,
            lanes: obj.lanes,
            pod: obj.pod.clone(),
            len: count,
            bytes: count * stride,
            memory: RefCell::new(Memory::Live(view)),
            slice: true,
        })))
    }

    /// New device memory of `kind` for `obj`.
    fn buffer_memory(
        &mut self,
        obj: &BufferObj,
        kind: MemoryKind,
        span: Span,
    ) -> Result<DevBuffer, Fail> {
        if let Some(cpu) = self.device.cpu {
            // Every memory kind is the host's memory on the CPU device.
            return cpu
                .device
                .create_buffer(obj.bytes)
                .map(DevBuffer::Cpu)
                .or_else(|x| err(span, x.to_string()));
        }
        self.device
            .context(span)?
            .create_buffer_in(obj.bytes, kind)
            .map(DevBuffer::Vulkan)
            .or_else(|x| err(span, x.to_string()))
    }

    /// The device memory of the buffer `e` evaluated to (cheap clone of a shared handle),
    /// or an error at `span` when it has none.
    pub(super) fn live_buffer(
        &self,
        obj: &BufferObj,
        e: &Expr,
        span: Span,
    ) -> Result<DevBuffer, Fail> {
        let local = match &*obj.memory.borrow() {
            Memory::Live(b) => return Ok(b.clone()),
            Memory::Freed => {
                return err(span, format!("use of {} after free()", self.buffer_name(e)))
            }
            Memory::Unallocated => self.local_name(e),
        };
        let (name, call) = match local {
            Some(b) => (format!("KernelBuffer `{b}`"), format!("`{b}.allocate()`")),
            None => ("this KernelBuffer".into(), "`allocate()` on it".into()),
        };
        err(
            span,
            format!("{name} has no device memory: `heap Buffer<T>(0, n)` makes none; call {call} before using it"),
        )
    }

    /// "KernelBuffer `b`" when `e` reads local `b`, for messages.
    fn buffer_name(&self, e: &Expr) -> String {
        match self.local_name(e) {
            Some(local) => format!("KernelBuffer `{local}`"),
            None => "a KernelBuffer".to_string(),
        }
    }

    pub(super) fn eval_array(
        &mut self,
        f: &mut Frame,
        e: &Expr,
    ) -> Result<super::value::ArrayRef, Fail> {
        array_of(self.eval(f, e)?, e)
    }

    /// The buffer and image operations of [`HostOp`].
    pub fn device_op(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let values = match (op, args) {
            // `allocate(kind)`: the kind is a constant read from the IR, not a value.
            (HostOp::BufferAllocate, [b, ..]) => vec![self.eval(f, b)?],
            _ => self.eval_all(f, args)?,
        };
        self.device_op_values(op, values, e)
    }

    /// Runs buffer or image operation `op` (expression `e`) on its operands' `values`, in
    /// order (both host executors run this; native code through typed calls).
    pub(crate) fn device_op_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        self.device.used.set(true);
        let span = e.span;
        let ExprKind::Host { args, .. } = &e.kind else {
            return internal(span, format!("{op:?} outside a host operation"));
        };
        let mut values = values.into_iter();
        let mut next = || values.next().unwrap_or(Value::Void);
        match (op, &args[..]) {
            (HostOp::NewBuffer, [n]) => {
                let len = scalar_of(next(), n)?;
                self.new_buffer(len, n, e)
            }
            (HostOp::NewLegacyBuffer, [d, n]) => {
                let device = scalar_of(next(), d)?.as_int();
                let len = count_of(scalar_of(next(), n)?, n, "buffer length")?;
                match device {
                    Some(0) => {}
                    Some(other) => {
                        return err(
                            d.span,
                            format!("there is no device {other}: buffers live on device 0, the one host code runs on"),
                        )
                    }
                    None => return internal(d.span, "device index of a non-integer type"),
                }
                Ok(Value::Buffer(Rc::new(self.buffer_obj(&e.ty, len, span)?)))
            }
            (HostOp::BufferAllocate, [b, kind @ ..]) => {
                let kind = match kind {
                    [] => MemoryKind::Device,
                    [k] => memory_kind(k)?,
                    _ => return internal(span, "allocate with more than one memory kind"),
                };
                let obj = buffer_of(next(), b)?;
                if let Memory::Live(_) = *obj.memory.borrow() {
                    let name = self.buffer_name(b);
                    return err(
                        span,
                        format!("{name} is already allocated: allocate() makes memory for a buffer that has none (made by `heap Buffer<T>(0, n)`, or freed); free() it first to replace its memory"),
                    );
                }
                let memory = self.buffer_memory(&obj, kind, span)?;
                *obj.memory.borrow_mut() = Memory::Live(memory);
                Ok(Value::Void)
            }
            (HostOp::NewImage2D, [w, h]) => {
                let format = match e.ty {
                    Type::Image2D(format) => rt_format(format),
                    _ => return internal(span, format!("image of type {}", e.ty)),
                };
                let width = u32_of(scalar_of(next(), w)?, w, "image width")?;
                let height = u32_of(scalar_of(next(), h)?, h, "image height")?;
                let image = if let Some(cpu) = &self.device.cpu {
                    DevImage::Cpu(
                        cpu.device
                            .create_image2d(width, height, format)
                            .or_else(|x| err(span, x.to_string()))?,
                    )
                } else {
                    let ctx = self.device.context(span)?;
                    DevImage::Vulkan(
                        ctx.create_image2d(width, height, format)
                            .or_else(|x| err(span, x.to_string()))?,
                    )
                };
                Ok(Value::Image(Rc::new(ImageObj {
                    width,
                    height,
                    image,
                })))
            }
            (HostOp::BufferSlice, [b, offset, count]) => {
                let operands = (next(), next(), next());
                self.buffer_slice(operands, (b, offset, count), span)
            }
            (HostOp::BufferLength, [b]) => {
                let obj = buffer_of(next(), b)?;
                // `length()` (uint32) saturates past 0xFFFFFFFF elements, as in kernels;
                // `length64()` gives the whole count.
                let len = match e.ty {
                    Type::Scalar(ScalarType::U32) => obj.len.min(u64::from(u32::MAX)),
                    _ => obj.len,
                };
                int_value(len, &e.ty, span)
            }
            (HostOp::BufferFree, [b]) => {
                let obj = buffer_of(next(), b)?;
                if obj.slice {
                    return err(
                        span,
                        "a buffer slice cannot be freed: free() the buffer it was cut from",
                    );
                }
                let mut memory = obj.memory.borrow_mut();
                match *memory {
                    Memory::Live(_) => {
                        *memory = Memory::Freed;
                        Ok(Value::Void)
                    }
                    Memory::Freed => err(span, format!("{} freed twice", self.buffer_name(b))),
                    Memory::Unallocated => err(
                        span,
                        format!("{} cannot be freed: it was never allocated (`heap Buffer<T>(0, n)` makes no memory until allocate())", self.buffer_name(b)),
                    ),
                }
            }
            (HostOp::ImageDownload, [i, a]) => {
                let img = image_of(next(), i)?;
                let array = array_of(next(), a)?;
                self.image_download(img, array, span)
            }
            (HostOp::ImageWidth | HostOp::ImageHeight, [i]) => {
                let img = image_of(next(), i)?;
                let n = if op == HostOp::ImageWidth {
                    img.width
                } else {
                    img.height
                };
                int_value(n as u64, &e.ty, span)
            }
            (op, args) => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }
}
