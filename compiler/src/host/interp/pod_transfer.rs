//! Host arrays of PODs and their transfers to and from a `KernelBuffer` of that POD (a
//! structured buffer): each element is the std430 image of one value (the fields at their
//! offsets, booleans as 4-byte 0/1, padding zeroed), `stride` bytes apart.

use super::buffer_transfer::array_from_bytes;
use super::eval::{err, internal, Fail, Interp};
use super::lanes::pod_bytes;
use super::operands::{array_of, buffer_of};
use super::value::{Array, Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp, StructDef, Type};

/// The zero value of a POD field or POD: zero lanes, zero fields.
pub(super) fn zero_value(ty: &Type) -> Value {
    match ty {
        Type::Scalar(s) => Value::Scalar(Scalar::zero(*s)),
        Type::Vector(s, _) | Type::Matrix(s, _, _) => {
            Value::Vector(vec![Scalar::zero(*s); ty.lanes()].into())
        }
        Type::Struct(d) => Value::Struct(d.fields.iter().map(|(_, t)| zero_value(t)).collect()),
        _ => Value::Void,
    }
}

/// One lane of type `s` from its stored little-endian bytes.
fn lane_from_bytes(s: crate::ir::ScalarType, bytes: &[u8]) -> Scalar {
    let mut a = Array::new(&Type::Scalar(s), 1).unwrap_or(Array::Values(Vec::new()));
    array_from_bytes(&mut a, bytes);
    match a.get(0) {
        Some(Value::Scalar(x)) => x,
        _ => Scalar::zero(s),
    }
}

/// A POD value from the std430 image of one buffer element.
fn pod_from_bytes(d: &StructDef, bytes: &[u8]) -> Value {
    let fields = d.fields.iter().zip(d.offsets()).map(|((_, ty), offset)| {
        let Some(s) = ty.elem_scalar() else {
            return Value::Void;
        };
        let size = if s == crate::ir::ScalarType::Bool {
            4
        } else {
            s.size_bytes() as usize
        };
        let lane = |k: usize| {
            let at = offset as usize + k * size;
            bytes
                .get(at..at + size)
                .map_or(Scalar::zero(s), |b| lane_from_bytes(s, b))
        };
        match ty {
            Type::Vector(..) => Value::Vector((0..ty.lanes()).map(lane).collect()),
            _ => Value::Scalar(lane(0)),
        }
    });
    Value::Struct(fields.collect())
}

impl Interp<'_> {
    /// `buf.upload(a)` / `buf.download(a)` (and their stream and async forms) of a buffer of
    /// PODs `d`: the array must hold `Particle` values, one per element. An async download
    /// lands when it is issued (the data is there earlier than needed, never later).
    pub(super) fn pod_transfer(
        &mut self,
        (buffer, array, stream): (Value, Value, Option<Value>),
        op: HostOp,
        args: &[Expr],
        d: &StructDef,
        span: Span,
    ) -> Result<Value, Fail> {
        let [b, a, ..] = args else {
            return internal(span, "a transfer needs a buffer and an array");
        };
        let upload = matches!(op, HostOp::BufferUpload | HostOp::BufferUploadAsync);
        let dir = if upload { "upload" } else { "download" };
        let obj = buffer_of(buffer, b)?;
        let array = array_of(array, a)?;
        let buffer = self.live_buffer(&obj, b, span)?;
        let stream = self.transfer_stream(stream, args, span)?;
        let cpu = self.device.cpu;
        let len = array.borrow().len() as u64;
        if len != obj.len {
            return err(
                span,
                format!(
                    "{dir} length mismatch: the KernelBuffer<{}> has {} elements but the host array has {len}",
                    d.name, obj.len
                ),
            );
        }
        let stride = d.layout().0 as usize;
        let rt =
            |r: Result<(), cajeta_runtime::RuntimeError>| r.or_else(|x| err(span, x.to_string()));
        if upload {
            let mut bytes = Vec::with_capacity(stride * len as usize);
            let array = array.borrow();
            for i in 0..array.len() {
                match array.get(i) {
                    Some(Value::Struct(fields)) => bytes.extend(pod_bytes(d, &fields)),
                    _ => bytes.resize(bytes.len() + stride, 0),
                }
            }
            if let Some(cpu) = cpu {
                let buffer = super::cpu_run::cpu_buffer(&buffer, span)?;
                super::cpu_run::upload(cpu, buffer, &bytes, span)?;
                return Ok(Value::Void);
            }
            let (buffer, stream) = (
                buffer.vulkan(span, "a Vulkan buffer")?,
                stream.vk(span, "a Vulkan stream")?,
            );
            if !bytes.is_empty() {
                rt(stream.upload_buffer(buffer, &bytes).map(|_| ()))?;
            }
            if op == HostOp::BufferUploadAsync {
                rt(stream.flush())?;
            }
            return Ok(Value::Void);
        }
        let mut bytes = vec![0u8; stride * len as usize];
        if bytes.is_empty() {
            return Ok(Value::Void);
        }
        if let Some(cpu) = cpu {
            let buffer = super::cpu_run::cpu_buffer(&buffer, span)?;
            super::cpu_run::download(cpu, buffer, &mut bytes, span)?;
        } else {
            let r = stream
                .vk(span, "a Vulkan stream")?
                .download_buffer(buffer.vulkan(span, "a Vulkan buffer")?, &mut bytes);
            self.device.waited(span, r)?;
        }
        let mut array = array.borrow_mut();
        for (i, element) in bytes.chunks_exact(stride).enumerate() {
            array
                .set(i, pod_from_bytes(d, element))
                .or_else(|m| internal(span, m))?;
        }
        Ok(Value::Void)
    }
}
