//! Transfers between a `KernelBuffer<Vector<T,N>>` and a host array of the vectors
//! themselves (`Vector<float32,4>[]`), beside the flat `T[]` form: the elements' lanes are
//! laid out as the flat form's `T[]` of `N` times the length, which then travels exactly as
//! that form does (std430 padding, precision types, the CPU device), and a download lands
//! back element by element. An async download lands when it is issued, as a POD array's
//! does (the data is there earlier than needed, never later).

use std::cell::RefCell;
use std::rc::Rc;

use super::eval::{err, internal, Fail, Interp};
use super::operands::{array_of, buffer_of};
use super::value::{Array, Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp, Type};

/// Whether transfer `args` (buffer, array, …) moves an array of whole vectors.
pub(super) fn is_vector_array(args: &[Expr]) -> bool {
    match (args.first().map(|b| &b.ty), args.get(1).map(|a| &a.ty)) {
        (Some(Type::Buffer(elem)), Some(Type::Array(a))) => {
            matches!(**elem, Type::Vector(..)) && elem == a
        }
        _ => false,
    }
}

impl Interp<'_> {
    /// `buf.upload(vs)` / `buf.download(vs)` (and the stream and async forms) of an array
    /// `vs` of the buffer's vector type (see the module comment).
    pub(super) fn vector_array_transfer(
        &mut self,
        op: HostOp,
        (buffer, array, stream): (Value, Value, Option<Value>),
        args: &[Expr],
        span: Span,
    ) -> Result<Value, Fail> {
        let (Some(b), Some(a)) = (args.first(), args.get(1)) else {
            return internal(span, "a transfer needs a buffer and an array");
        };
        let Type::Buffer(elem) = &b.ty else {
            return internal(span, "a vector transfer of a non-buffer");
        };
        let Type::Vector(s, n) = **elem else {
            return internal(span, "a vector transfer of a buffer of non-vectors");
        };
        let n = n as usize;
        let upload = matches!(op, HostOp::BufferUpload | HostOp::BufferUploadAsync);
        let vectors = array_of(array, a)?;
        let len = vectors.borrow().len();
        let obj = buffer_of(buffer.clone(), b)?;
        if len as u64 != obj.len {
            let dir = if upload { "upload" } else { "download" };
            return err(
                span,
                format!(
                    "{dir} length mismatch: the KernelBuffer<{}> has {} elements but the host array has {len}",
                    obj.elem_type(),
                    obj.len
                ),
            );
        }
        let mut flat = Array::new(&Type::Scalar(s), len * n).or_else(|m| err(span, m))?;
        if upload {
            let v = vectors.borrow();
            for i in 0..len {
                let Some(Value::Vector(lanes)) = v.get(i) else {
                    continue; // a zero element: the flat array is zero already
                };
                for (k, x) in lanes.iter().enumerate().take(n) {
                    flat.set(i * n + k, Value::Scalar(*x))
                        .or_else(|m| internal(span, m))?;
                }
            }
        }
        let flat = Rc::new(RefCell::new(flat));
        let mut values = vec![buffer, Value::Array(flat.clone())];
        values.extend(stream);
        let op = match op {
            HostOp::BufferDownloadAsync => HostOp::BufferDownload,
            other => other,
        };
        self.element_transfer_values(op, values, args, span)?;
        if !upload {
            let flat = flat.borrow();
            let mut v = vectors.borrow_mut();
            for i in 0..len {
                let lanes: Rc<[Scalar]> = (i * n..(i + 1) * n)
                    .map(|k| match flat.get(k) {
                        Some(Value::Scalar(x)) => x,
                        _ => Scalar::zero(s),
                    })
                    .collect();
                v.set(i, Value::Vector(lanes))
                    .or_else(|m| internal(span, m))?;
            }
        }
        Ok(Value::Void)
    }
}
