//! The interpreter's buffer operations on the device (`heap KernelBuffer<T>(n)`, slices,
//! memory kinds, the live Vulkan buffer of a value) and the dispatch of device host
//! operations (`device_op`); the objects they make are in `device.rs`, whose
//! private parts they use.

use std::cell::RefCell;
use std::rc::Rc;

use cajeta_runtime::MemoryKind;

use super::{BufferObj, DevBuffer, DevImage, ImageObj, Memory};
use crate::diagnostics::Span;
use crate::host::interp::eval::{err, internal, Fail, Frame, Interp};
use crate::host::interp::hostops::int_value;
use crate::host::interp::operands::{array_of, buffer_of, count_of, image_of, scalar_of, u32_of};
use crate::host::interp::textures::rt_format;
use crate::host::interp::value::{Scalar, Value};
use crate::ir::{Constant, Expr, ExprKind, HostOp, ScalarType, Type};

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
        let stride = crate::host::interp::int_transfer::stride(elem, lanes, stride)
            .or_else(|m| err(span, format!("a KernelBuffer<{elem_ty}> {m}")))?;
        let Some(bytes) = len.checked_mul(u64::from(stride)) else {
            return err(span, format!("buffer of {len} elements is too large"));
        };
        let mut bytes = crate::host::interp::int_transfer::to_words(bytes, elem);
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
        if obj.elem == ScalarType::Sfp
            || crate::host::interp::int_transfer::native_lane(obj.elem).is_some()
        {
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
    pub(in crate::host::interp) fn live_buffer(
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

    pub(in crate::host::interp) fn eval_array(
        &mut self,
        f: &mut Frame,
        e: &Expr,
    ) -> Result<crate::host::interp::value::ArrayRef, Fail> {
        array_of(self.eval(f, e)?, e)
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
        let (args, mut next) = super::super::operands::host_operands(op, values, e)?;
        match (op, args) {
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
