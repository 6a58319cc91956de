//! Host operations that touch the device through `cajeta-runtime`: buffers, images,
//! streams, transfers and kernel launches.
//!
//! The context is created on first use (or injected by the caller), each kernel is loaded
//! once per run, and every stream operation goes through one shared default stream, so that
//! a `download` is ordered after the launches recorded before it. Every runtime error becomes
//! a [`HostError`] at the span of the operation, carrying the runtime's message.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use cajeta_runtime::{
    Buffer, CommandId, Context, Image2D, ImageFormat as RtImageFormat, Kernel, KernelArg,
    LaunchConfig, ScalarValue, Stream,
};

use super::eval::{err, internal, Fail, Frame, Interp};
use super::hostops::int_value;
use super::ops::{bf16_to_bits, f16_to_bits};
use super::textures::{rt_format, SamplerObj, TextureObj};
use super::value::{Scalar, Value};
use super::HostError;

use crate::backend::spirv::CompiledKernel;
use crate::diagnostics::Span;
use crate::ir::{Expr, FunctionId, HostOp, Launch, ScalarType, Type};

/// A `KernelBuffer<T>` of the host program.
pub struct BufferObj {
    /// Element (lane) type.
    pub elem: ScalarType,
    /// 1 for scalar elements, N for `Vector<elem, N>` elements.
    pub lanes: u8,
    /// Length in elements.
    pub len: u64,
    /// Size of its device memory in bytes.
    bytes: u64,
    /// The device memory.
    memory: RefCell<Memory>,
}

/// Whether a buffer has device memory.
enum Memory {
    /// Made by the legacy `heap Buffer<T>(0, n)`, not yet `allocate()`d.
    Unallocated,
    /// Usable.
    Live(Buffer),
    /// After `free()`.
    Freed,
}

/// An `Image2D` of the host program.
pub struct ImageObj {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    image: Image2D,
}

impl ImageObj {
    /// The runtime image.
    pub(super) fn raw(&self) -> &Image2D {
        &self.image
    }

    /// The texel format the image was created with.
    pub fn format(&self) -> RtImageFormat {
        self.image.format()
    }
}

/// A `KernelStream` of the host program.
pub struct StreamObj {
    pub(super) stream: Stream,
}

impl fmt::Debug for StreamObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KernelStream")
    }
}

/// The runtime side of one run.
pub struct Device<'a> {
    kernels: &'a HashMap<FunctionId, CompiledKernel>,
    context: Option<Context>,
    /// The context being created elsewhere, when `context` is `None`.
    pending: Option<super::PendingContext>,
    loaded: HashMap<FunctionId, Kernel>,
    stream: Option<Rc<StreamObj>>,
    /// Where each checked launch not yet waited for was made (checked mode's notes).
    checked_launches: HashMap<CommandId, Span>,
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
            checked_launches: HashMap::new(),
        }
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
                if v.count > 1 {
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
        let Some(s) = &self.stream else {
            return Ok(());
        };
        match s.stream.sync() {
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

    /// Ends the run, giving back the context (if one was made or injected).
    pub fn into_context(self) -> Option<Context> {
        let Device {
            context,
            pending,
            loaded,
            stream,
            ..
        } = self;
        // Drop the objects made from the context before handing it back.
        drop(stream);
        drop(loaded);
        // A context still being made is waited for: the caller may use it after the run.
        context.or_else(|| pending.and_then(|p| p.recv().ok()?.ok()))
    }

    pub(super) fn context(&mut self, span: Span) -> Result<&Context, Fail> {
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
        match &self.context {
            Some(c) => Ok(c),
            None => internal(span, "context vanished"),
        }
    }

    pub(super) fn stream(&mut self, span: Span) -> Result<Rc<StreamObj>, Fail> {
        if let Some(s) = &self.stream {
            return Ok(s.clone());
        }
        let stream = self.context(span)?.default_stream();
        let s = Rc::new(StreamObj { stream });
        self.stream = Some(s.clone());
        Ok(s)
    }

    fn kernel(&mut self, id: FunctionId, name: &str, span: Span) -> Result<&Kernel, Fail> {
        if !self.loaded.contains_key(&id) {
            let Some(compiled) = self.kernels.get(&id) else {
                return err(
                    span,
                    format!("kernel `{name}` has no compiled SPIR-V module"),
                );
            };
            let kernel = self
                .context(span)?
                .load_kernel(&compiled.words, &compiled.reflection)
                .or_else(|e| err(span, e.to_string()))?;
            self.loaded.insert(id, kernel);
        }
        match self.loaded.get(&id) {
            Some(k) => Ok(k),
            None => internal(span, "kernel vanished"),
        }
    }
}

impl BufferObj {
    /// The element type as written (`float32`, `Vector<float32,4>`).
    pub fn elem_type(&self) -> Type {
        if self.lanes > 1 {
            Type::Vector(self.elem, self.lanes)
        } else {
            Type::Scalar(self.elem)
        }
    }
}

/// A kernel argument with the resources it names kept alive for the launch.
enum OwnedArg {
    Buffer(Buffer),
    Buffers(Vec<Buffer>),
    Image(Rc<ImageObj>),
    Texture(Rc<TextureObj>),
    Sampler(Rc<SamplerObj>),
    Scalar(ScalarValue),
    Bytes(Vec<u8>),
}

impl OwnedArg {
    fn as_arg(&self) -> KernelArg<'_> {
        match self {
            OwnedArg::Buffer(b) => KernelArg::Buffer(b),
            OwnedArg::Buffers(b) => KernelArg::Buffers(b),
            OwnedArg::Image(i) => KernelArg::Image(&i.image),
            OwnedArg::Texture(t) => KernelArg::Texture(&t.texture),
            OwnedArg::Sampler(s) => KernelArg::Sampler(&s.sampler),
            OwnedArg::Scalar(s) => KernelArg::Scalar(*s),
            OwnedArg::Bytes(b) => KernelArg::Bytes(b),
        }
    }
}

/// The push-constant form of a scalar argument. The runtime has no 16-bit float scalar,
/// so `float16`/`bfloat16` travel as their 2 raw bytes.
fn scalar_arg(s: Scalar) -> OwnedArg {
    OwnedArg::Scalar(match s {
        Scalar::Bool(x) => ScalarValue::Bool(x),
        Scalar::I8(x) => ScalarValue::I8(x),
        Scalar::I16(x) => ScalarValue::I16(x),
        Scalar::I32(x) => ScalarValue::I32(x),
        Scalar::I64(x) => ScalarValue::I64(x),
        Scalar::U8(x) => ScalarValue::U8(x),
        Scalar::U16(x) => ScalarValue::U16(x),
        Scalar::U32(x) => ScalarValue::U32(x),
        Scalar::U64(x) => ScalarValue::U64(x),
        Scalar::F32(x) => ScalarValue::F32(x),
        Scalar::F64(x) => ScalarValue::F64(x),
        Scalar::F16(x) => return OwnedArg::Bytes(f16_to_bits(x).to_le_bytes().to_vec()),
        Scalar::BF16(x) => return OwnedArg::Bytes(bf16_to_bits(x).to_le_bytes().to_vec()),
    })
}

impl Interp<'_> {
    fn eval_count(&mut self, f: &mut Frame, e: &Expr, what: &str) -> Result<u64, Fail> {
        let s = self.eval_scalar(f, e)?;
        match s.as_int() {
            Some(n) if n >= 0 => Ok(u64::try_from(n).unwrap_or(u64::MAX)),
            Some(n) => err(e.span, format!("{what} must not be negative, got {n}")),
            None => internal(e.span, format!("{what} of type {}", s.ty())),
        }
    }

    pub(super) fn eval_u32(&mut self, f: &mut Frame, e: &Expr, what: &str) -> Result<u32, Fail> {
        let n = self.eval_count(f, e, what)?;
        u32::try_from(n).or_else(|_| err(e.span, format!("{what} {n} does not fit in uint32")))
    }

    /// A buffer of type `ty` (a `KernelBuffer<T>`) of `len` elements, without memory yet.
    fn buffer_obj(&self, ty: &Type, len: u64, span: Span) -> Result<BufferObj, Fail> {
        let Type::Buffer(elem_ty) = ty else {
            return internal(span, format!("buffer of type {ty}"));
        };
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
            len,
            bytes,
            memory: RefCell::new(Memory::Unallocated),
        })
    }

    /// New device memory for `obj`.
    fn buffer_memory(&mut self, obj: &BufferObj, span: Span) -> Result<Buffer, Fail> {
        self.device
            .context(span)?
            .create_buffer(obj.bytes)
            .or_else(|x| err(span, x.to_string()))
    }

    /// The device memory of the buffer `e` evaluated to (cheap clone of a shared handle),
    /// or an error at `span` when it has none.
    pub(super) fn live_buffer(
        &self,
        obj: &BufferObj,
        e: &Expr,
        span: Span,
    ) -> Result<Buffer, Fail> {
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

    pub(super) fn eval_buffer(&mut self, f: &mut Frame, e: &Expr) -> Result<Rc<BufferObj>, Fail> {
        match self.eval(f, e)? {
            Value::Buffer(b) => Ok(b),
            Value::Void => err(e.span, "use of a null KernelBuffer"),
            other => internal(e.span, format!("expected a KernelBuffer, found {other:?}")),
        }
    }

    pub(super) fn eval_image(&mut self, f: &mut Frame, e: &Expr) -> Result<Rc<ImageObj>, Fail> {
        match self.eval(f, e)? {
            Value::Image(i) => Ok(i),
            Value::Void => err(e.span, "use of a null Image2D"),
            other => internal(e.span, format!("expected an Image2D, found {other:?}")),
        }
    }

    pub(super) fn eval_array(
        &mut self,
        f: &mut Frame,
        e: &Expr,
    ) -> Result<super::value::ArrayRef, Fail> {
        match self.eval(f, e)? {
            Value::Array(a) => Ok(a),
            Value::Void => err(e.span, "use of a null array"),
            other => internal(e.span, format!("expected an array, found {other:?}")),
        }
    }

    /// The buffer, image and stream operations of [`HostOp`].
    pub fn device_op(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let rt =
            |r: Result<(), cajeta_runtime::RuntimeError>| r.or_else(|x| err(span, x.to_string()));
        match (op, args) {
            (HostOp::NewBuffer, [n]) => {
                let len = self.eval_count(f, n, "buffer length")?;
                let obj = self.buffer_obj(&e.ty, len, span)?;
                *obj.memory.borrow_mut() = Memory::Live(self.buffer_memory(&obj, span)?);
                Ok(Value::Buffer(Rc::new(obj)))
            }
            (HostOp::NewLegacyBuffer, [d, n]) => {
                let device = self.eval_scalar(f, d)?.as_int();
                let len = self.eval_count(f, n, "buffer length")?;
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
            (HostOp::BufferAllocate, [b]) => {
                let obj = self.eval_buffer(f, b)?;
                if let Memory::Live(_) = *obj.memory.borrow() {
                    let name = self.buffer_name(b);
                    return err(
                        span,
                        format!("{name} is already allocated: allocate() makes memory for a buffer that has none (made by `heap Buffer<T>(0, n)`, or freed); free() it first to replace its memory"),
                    );
                }
                let memory = self.buffer_memory(&obj, span)?;
                *obj.memory.borrow_mut() = Memory::Live(memory);
                Ok(Value::Void)
            }
            (HostOp::NewImage2D, [w, h]) => {
                let format = match e.ty {
                    Type::Image2D(format) => rt_format(format),
                    _ => return internal(span, format!("image of type {}", e.ty)),
                };
                let width = self.eval_u32(f, w, "image width")?;
                let height = self.eval_u32(f, h, "image height")?;
                let ctx = self.device.context(span)?;
                let image = ctx
                    .create_image2d(width, height, format)
                    .or_else(|x| err(span, x.to_string()))?;
                Ok(Value::Image(Rc::new(ImageObj {
                    width,
                    height,
                    image,
                })))
            }
            (HostOp::BufferUpload, _) => {
                let t = self.transfer(f, args, span, "upload")?;
                let bytes = match t.sfp {
                    Some(form) => super::precision::encode(form, &t.array.borrow()),
                    None => {
                        let bytes = super::int_transfer::to_bytes(&t.array.borrow(), t.int_lane);
                        super::int_transfer::pad_words(t.layout.pad(bytes), t.int_lane)
                    }
                };
                if bytes.is_empty() {
                    return Ok(Value::Void);
                }
                let stream = self.device.stream(span)?;
                let r = stream.stream.upload_buffer(&t.buffer, &bytes).map(|_| ());
                rt(r)?;
                Ok(Value::Void)
            }
            (HostOp::BufferDownload, _) => {
                let t = self.transfer(f, args, span, "download")?;
                if let Some(form) = t.sfp {
                    let mut bytes = super::precision::encode(form, &t.array.borrow());
                    if bytes.is_empty() {
                        return Ok(Value::Void);
                    }
                    let stream = self.device.stream(span)?;
                    let r = stream.stream.download_buffer(&t.buffer, &mut bytes);
                    self.device.waited(span, r)?;
                    super::precision::decode(form, &bytes, &mut t.array.borrow_mut());
                    return Ok(Value::Void);
                }
                let bytes = super::int_transfer::to_bytes(&t.array.borrow(), t.int_lane);
                let bytes = t.layout.pad(bytes);
                if bytes.is_empty() {
                    return Ok(Value::Void);
                }
                let exact = bytes.len();
                let mut bytes = super::int_transfer::pad_words(bytes, t.int_lane);
                let stream = self.device.stream(span)?;
                let r = stream.stream.download_buffer(&t.buffer, &mut bytes);
                self.device.waited(span, r)?;
                bytes.truncate(exact);
                let bytes = t.layout.unpad(bytes);
                super::int_transfer::from_bytes(&mut t.array.borrow_mut(), &bytes, t.int_lane);
                Ok(Value::Void)
            }
            (HostOp::BufferLength, [b]) => {
                let obj = self.eval_buffer(f, b)?;
                int_value(obj.len, &e.ty, span)
            }
            (HostOp::BufferFree, [b]) => {
                let obj = self.eval_buffer(f, b)?;
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
            (HostOp::ImageDownload, [i, a]) => self.image_download(f, i, a, span),
            (HostOp::ImageWidth | HostOp::ImageHeight, [i]) => {
                let img = self.eval_image(f, i)?;
                let n = if op == HostOp::ImageWidth {
                    img.width
                } else {
                    img.height
                };
                int_value(n as u64, &e.ty, span)
            }
            (HostOp::StreamCurrent, []) => Ok(Value::Stream(self.device.stream(span)?)),
            (HostOp::StreamSync, [s]) => {
                let stream = self.eval_stream(f, s)?;
                self.device.waited(span, stream.stream.sync())?;
                Ok(Value::Void)
            }
            (op, args) => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }

    /// The device memory of every buffer in the host array bound to buffer-array parameter
    /// `param` (`e` is the argument): a null or unallocated element is an error naming it.
    fn array_buffers(
        &self,
        a: &super::value::ArrayRef,
        e: &Expr,
        param: &str,
    ) -> Result<Vec<Buffer>, Fail> {
        let a = a.borrow();
        let mut out = Vec::with_capacity(a.len());
        for k in 0..a.len() {
            match a.get(k) {
                Some(Value::Buffer(b)) => {
                    let live = self.live_buffer(&b, e, e.span).map_err(|mut f| {
                        f.message = format!(
                            "element {k} of the buffer array for `{param}`: {}",
                            f.message
                        );
                        f
                    })?;
                    out.push(live);
                }
                Some(Value::Void) => {
                    return err(
                        e.span,
                        format!("element {k} of the buffer array for `{param}` is null"),
                    )
                }
                _ => return internal(e.span, format!("element {k} of a buffer array")),
            }
        }
        Ok(out)
    }

    fn eval_stream(&mut self, f: &mut Frame, e: &Expr) -> Result<Rc<StreamObj>, Fail> {
        match self.eval(f, e)? {
            Value::Stream(s) => Ok(s),
            Value::Void => err(e.span, "use of a null KernelStream"),
            other => internal(e.span, format!("expected a KernelStream, found {other:?}")),
        }
    }

    fn eval_dims(
        &mut self,
        f: &mut Frame,
        es: &[Expr],
        what: &str,
        span: Span,
    ) -> Result<[u32; 3], Fail> {
        if es.is_empty() || es.len() > 3 {
            return internal(span, format!("{what} with {} dimensions", es.len()));
        }
        let mut dims = [1u32; 3];
        for (d, e) in dims.iter_mut().zip(es) {
            *d = self.eval_u32(f, e, what)?;
        }
        Ok(dims)
    }

    /// `kernel.launch(stream, grid: [...], block: [...])(args...)`.
    pub fn launch(&mut self, f: &mut Frame, l: &Launch, span: Span) -> Result<Value, Fail> {
        let module = self.module;
        let Some(kernel_fn) = module.functions.get(l.kernel.0) else {
            return internal(span, format!("launch of unknown function #{}", l.kernel.0));
        };
        let stream = self.eval_stream(f, &l.stream)?;
        let grid = self.eval_dims(f, &l.grid, "grid", span)?;
        let block = self.eval_dims(f, &l.block, "block", span)?;
        let values = self.eval_all(f, &l.args)?;
        let params = kernel_fn.params();
        if values.len() != params.len() {
            return internal(
                span,
                format!(
                    "`{}` launched with {} arguments",
                    kernel_fn.name,
                    values.len()
                ),
            );
        }
        let arg_scalars: Vec<Option<Scalar>> = values.iter().map(Value::as_scalar).collect();
        let mut owned = Vec::with_capacity(values.len());
        for ((v, p), e) in values.into_iter().zip(params).zip(&l.args) {
            owned.push(match (&p.ty, v) {
                (Type::Buffer(_), Value::Buffer(b)) => {
                    OwnedArg::Buffer(self.live_buffer(&b, e, e.span)?)
                }
                (ty, Value::Array(a)) if ty.is_buffer_array() => {
                    OwnedArg::Buffers(self.array_buffers(&a, e, &p.name)?)
                }
                (Type::Image2D(_), Value::Image(i)) => OwnedArg::Image(i),
                (Type::Texture(..), Value::Texture(t)) => OwnedArg::Texture(t),
                (Type::Sampler, Value::Sampler(s)) => OwnedArg::Sampler(s),
                (Type::Scalar(_), Value::Scalar(s)) => scalar_arg(s),
                (ty @ (Type::Vector(..) | Type::Matrix(..)), Value::Vector(lanes)) => {
                    OwnedArg::Bytes(super::lanes::push_bytes(ty, &lanes))
                }
                (Type::Struct(d), Value::Struct(fields)) => {
                    OwnedArg::Bytes(super::lanes::pod_bytes(d, &fields))
                }
                (_, Value::Void) => {
                    return err(e.span, format!("null argument for parameter `{}`", p.name))
                }
                (ty, v) => {
                    return internal(
                        e.span,
                        format!("argument {v:?} for parameter `{}` of type {ty}", p.name),
                    )
                }
            });
        }
        let args: Vec<KernelArg<'_>> = owned.iter().map(OwnedArg::as_arg).collect();
        let shared_bytes = match &l.shared_bytes {
            Some(e) => Some(self.eval_u32(f, e, "sharedBytes")?),
            None => None,
        };
        let mut spec_values = Vec::with_capacity(l.spec.len());
        for e in &l.spec {
            spec_values.push((self.eval_scalar(f, e)?, e.span));
        }
        let kernel = self.device.kernel(l.kernel, &kernel_fn.name, span)?;
        let spec = super::launch_opts::spec_bits(kernel.reflection(), &spec_values)?;
        let shared_bytes =
            super::launch_opts::shared_size(kernel_fn, &arg_scalars, shared_bytes, span)?;
        let config = LaunchConfig {
            grid,
            block,
            spec,
            shared_bytes,
            psc: l.psc,
        };
        let checked = kernel.reflection().bounds_check.is_some();
        let id = stream
            .stream
            .launch(kernel, &config, &args)
            .or_else(|x| err(span, x.to_string()))?;
        if checked {
            self.device.checked_launches.insert(id, span);
        }
        Ok(Value::Void)
    }
}
