//! Checks on operands of host operations once they are values: a null buffer, a negative
//! count, a size past `uint32`. The interpreter applies them to what it evaluated, and
//! native host code to what it passes to the runtime's typed C-ABI calls
//! (`host/native/device_calls.rs`), so both report the same errors at the same operand.

use std::rc::Rc;

use super::device::{BufferObj, ImageObj, StreamObj};
use super::eval::{err, internal, Fail};
use super::value::{Scalar, Value};
use crate::ir::{Expr, ExprKind};

/// The count operand `e` evaluated to (`s`): a length or offset, not negative.
pub(crate) fn count_of(s: Scalar, e: &Expr, what: &str) -> Result<u64, Fail> {
    match s.as_int() {
        Some(n) if n >= 0 => Ok(u64::try_from(n).unwrap_or(u64::MAX)),
        Some(n) => err(e.span, format!("{what} must not be negative, got {n}")),
        None => internal(e.span, format!("{what} of type {}", s.ty())),
    }
}

/// [`count_of`] that must also fit in `uint32` (grid and block sizes, widths).
pub(crate) fn u32_of(s: Scalar, e: &Expr, what: &str) -> Result<u32, Fail> {
    let n = count_of(s, e, what)?;
    u32::try_from(n).or_else(|_| err(e.span, format!("{what} {n} does not fit in uint32")))
}

/// The buffer operand `e` evaluated to (`v`); null is an error at `e`.
pub(crate) fn buffer_of(v: Value, e: &Expr) -> Result<Rc<BufferObj>, Fail> {
    match v {
        Value::Buffer(b) => Ok(b),
        Value::Void => err(e.span, "use of a null KernelBuffer"),
        other => internal(e.span, format!("expected a KernelBuffer, found {other:?}")),
    }
}

/// The image operand `e` evaluated to (`v`); null is an error at `e`.
pub(crate) fn image_of(v: Value, e: &Expr) -> Result<Rc<ImageObj>, Fail> {
    match v {
        Value::Image(i) => Ok(i),
        Value::Void => err(e.span, "use of a null Image2D"),
        other => internal(e.span, format!("expected an Image2D, found {other:?}")),
    }
}

/// The array operand `e` evaluated to (`v`); null is an error at `e`.
pub(crate) fn array_of(v: Value, e: &Expr) -> Result<super::value::ArrayRef, Fail> {
    match v {
        Value::Array(a) => Ok(a),
        Value::Void => err(e.span, "use of a null array"),
        other => internal(e.span, format!("expected an array, found {other:?}")),
    }
}

/// The stream operand `e` evaluated to (`v`); a null or destroyed stream is an error at `e`.
pub(crate) fn stream_of(v: Value, e: &Expr) -> Result<Rc<StreamObj>, Fail> {
    match v {
        Value::Stream(s) if s.destroyed.get() => {
            err(e.span, "use of a KernelStream after destroy()")
        }
        Value::Stream(s) => Ok(s),
        Value::Void => err(e.span, "use of a null KernelStream"),
        other => internal(e.span, format!("expected a KernelStream, found {other:?}")),
    }
}

/// The `String` path operand `e` evaluated to (`v`).
pub(crate) fn path_of(v: Value, e: &Expr) -> Result<String, Fail> {
    match v {
        Value::Str(s) => Ok(s.to_string()),
        Value::Void => err(e.span, "the path is null"),
        other => internal(e.span, format!("expected a String path, found {other:?}")),
    }
}

/// The scalar operand `e` evaluated to (`v`).
pub(crate) fn scalar_of(v: Value, e: &Expr) -> Result<Scalar, Fail> {
    match v {
        Value::Scalar(s) => Ok(s),
        Value::Void => err(e.span, "use of a null or void value"),
        other => internal(e.span, format!("expected a scalar, found {other:?}")),
    }
}

/// The operand expressions of host operation `e` (`op`, named in the internal error when `e`
/// is not a host operation) and a reader of their `values`, computed in the same order: each
/// call gives the next value, `Void` past the last (which the operation's operand checks
/// then refuse). The opening of every family's `…_op_values`.
pub(crate) fn host_operands(
    op: impl std::fmt::Debug,
    values: Vec<Value>,
    e: &Expr,
) -> Result<(&[Expr], impl FnMut() -> Value), Fail> {
    let ExprKind::Host { args, .. } = &e.kind else {
        return internal(e.span, format!("{op:?} outside a host operation"));
    };
    let mut values = values.into_iter();
    Ok((&args[..], move || values.next().unwrap_or(Value::Void)))
}
