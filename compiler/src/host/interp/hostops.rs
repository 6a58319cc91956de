//! Host operations that need no device: arrays, strings and printing. The device ones
//! (buffers, images, streams) are dispatched to `device.rs`.

use super::eval::{array_elem, err, internal, new_array, Fail, Frame, Interp};
use super::value::{Array, Scalar, Text, Value};

use crate::ir::{Expr, HostOp, Type};

impl Interp<'_> {
    /// Runs a host operation; `e` is the whole expression (for its type and span). After
    /// one that may have waited for the device, the lines kernels printed go out first.
    pub fn host_op(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let value = self.host_op_inner(f, op, args, e);
        if op.may_wait_for_device() {
            self.write_kernel_output(e.span)?;
        }
        value
    }

    /// Writes what kernels printed (collected at the waits so far) to the program's output.
    pub fn write_kernel_output(&mut self, span: crate::diagnostics::Span) -> Result<(), Fail> {
        for line in self.device.kernel_output() {
            // Each printf call's text is a line of its own, as the layer reports it.
            if let Err(x) = writeln!(self.out, "{line}") {
                return err(span, format!("cannot write to standard output: {x}"));
            }
        }
        Ok(())
    }

    fn host_op_inner(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        match op {
            HostOp::NewArray => {
                let [n] = args else {
                    return internal(span, "`heap T[n]` needs one length");
                };
                let len = self.eval_scalar(f, n)?;
                alloc_array(len, e)
            }
            HostOp::ArrayLiteral => {
                let values = self.eval_all(f, args)?;
                array_literal(values, e)
            }
            HostOp::ArrayLength => {
                let [a] = args else {
                    return internal(span, "`.length` needs a receiver");
                };
                let len = match self.eval(f, a)? {
                    Value::Array(a) => a.try_borrow().map(|a| a.len()).unwrap_or(0),
                    Value::Void => return err(span, "`.length` of a null array"),
                    other => return internal(span, format!("`.length` of {other:?}")),
                };
                int_value(len as u64, &e.ty, span)
            }
            HostOp::Println | HostOp::Print => {
                let text = match args {
                    [] => String::new(),
                    [x] => self.eval(f, x)?.to_string(),
                    _ => return internal(span, "print takes at most one argument"),
                };
                let r = if op == HostOp::Println {
                    writeln!(self.out, "{text}")
                } else {
                    write!(self.out, "{text}")
                };
                match r {
                    Ok(()) => Ok(Value::Void),
                    Err(io) => err(span, format!("cannot write to standard output: {io}")),
                }
            }
            HostOp::Concat => {
                let [a, b] = args else {
                    return internal(span, "string concatenation needs two operands");
                };
                let a = self.eval(f, a)?;
                let b = self.eval(f, b)?;
                Ok(Value::Str(concat(&a, &b)))
            }
            HostOp::ToString => {
                let [x] = args else {
                    return internal(span, "String.valueOf needs one argument");
                };
                match self.eval(f, x)? {
                    s @ Value::Str(_) => Ok(s),
                    v => Ok(Value::str(v.to_string())),
                }
            }
            HostOp::Printf => {
                let values = self.eval_all(f, args)?;
                let text =
                    crate::host::format::printf::printf_text(&values).or_else(|m| err(span, m))?;
                match write!(self.out, "{text}") {
                    Ok(()) => Ok(Value::Void),
                    Err(io) => err(span, format!("cannot write to standard output: {io}")),
                }
            }
            HostOp::ParseInt | HostOp::ParseLong | HostOp::ParseFloat | HostOp::ParseDouble => {
                let [x] = args else {
                    return internal(span, "parse needs one argument");
                };
                let v = self.eval(f, x)?;
                crate::host::format::printf::parse_value(op, &v)
                    .map(Value::Scalar)
                    .or_else(|m| err(span, m))
            }
            HostOp::NanoTime => Ok(Value::Scalar(Scalar::I64(nano_time()))),
            HostOp::Autotune(op) => self.autotune_op(f, op, args, e),
            HostOp::EmptyOptional => match args.first().map(|a| &a.kind) {
                Some(crate::ir::ExprKind::Str(message)) => err(span, message.clone()),
                _ => internal(span, "an empty Optional's error without its text"),
            },
            HostOp::SetCpuWorkerCap => {
                let [n] = args else {
                    return internal(span, "setCpuWorkerCap takes one count");
                };
                match self.eval_scalar(f, n)? {
                    Scalar::I32(n) if n >= 0 => {
                        self.cpu_worker_cap = n as usize;
                        Ok(Value::Void)
                    }
                    other => err(
                        span,
                        format!("Device.setCpuWorkerCap: a cap of {other} threads (0 for none, or a positive count)"),
                    ),
                }
            }
            HostOp::ExceptionWaiting => Ok(Value::Scalar(Scalar::Bool(self.waiting.is_some()))),
            HostOp::KernelFaultWaiting => Ok(Value::Scalar(Scalar::Bool(
                self.waiting.as_ref().is_some_and(|c| c.kernel_fault),
            ))),
            HostOp::TakeException => Ok(Value::str(
                self.waiting.take().map(|c| c.message).unwrap_or_default(),
            )),
            HostOp::KernelManifest(kernel) => self.kernel_manifest(kernel, e),
            HostOp::CatchKernelFault => {
                let [wait] = args else {
                    return internal(span, "a caught wait needs one operation");
                };
                let r = self.eval(f, wait);
                self.caught_fault(r)
            }
            HostOp::DeviceQuery(q) => self.device_query(q, e),
            HostOp::DeviceControl(op) => self.device_control(f, op, e),
            HostOp::Timer(op) => self.timer_op(f, op, args, e),
            HostOp::Rng(op) => {
                let values = self.eval_all(f, args)?;
                super::rng::rng_op(op, &values, e)
            }
            HostOp::AccelFromTriangles | HostOp::AccelFromAabbs | HostOp::AccelInstanced => {
                self.accel_op(f, op, args, e)
            }
            HostOp::StringMethod(m) => {
                let values = self.eval_all(f, args)?;
                super::strings::method(m, &values, span)
            }
            // Buffers, images, transfers, streams, files, textures, several devices, `Comm`,
            // `Blas.gemm`: the code native host code's typed calls run too (`value_ops.rs`).
            _ => {
                let values = self.operand_values(f, op, args, e)?;
                self.value_op(op, values, e)
            }
        }
    }
}

#[cfg(feature = "native-host")]
impl Interp<'_> {
    /// Runs host operation `op` (expression `e`) on its operands' `values`, already
    /// computed in order: what native host code's typed calls into the runtime run
    /// (`host/native/device_calls.rs`), by the interpreter's own code for each operation
    /// ([`Self::value_op`]), kernel output included.
    pub(crate) fn host_op_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let value = self.value_op(op, values, e);
        if op.may_wait_for_device() {
            self.write_kernel_output(e.span)?;
        }
        value
    }
}

/// `heap T[n]` (expression `e`, of type `T[]`) with `len`, the value of `n`: both host
/// executors run this (native code through `cajeta_array_new`).
pub(crate) fn alloc_array(len: Scalar, e: &Expr) -> Result<Value, Fail> {
    let span = e.span;
    let Some(len) = len.as_int() else {
        return internal(span, format!("array length of type {}", len.ty()));
    };
    if len < 0 {
        return err(span, format!("negative array length {len}"));
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let elem = array_elem(&e.ty, span)?;
    let array = new_array(elem, len, span)?;
    if let (Type::Struct(_), Value::Array(a)) = (elem, &array) {
        // POD elements are values: a fresh array holds zeroed ones, not nulls.
        let zero = super::pod_transfer::zero_value(elem);
        if let Array::Values(v) = &mut *a.borrow_mut() {
            v.fill(zero);
        }
    }
    Ok(array)
}

/// The array literal `e` (`[a, b, c]`) of its elements' `values` (both host executors run
/// this; native code through a typed call).
pub(super) fn array_literal(values: Vec<Value>, e: &Expr) -> Result<Value, Fail> {
    let elem = array_elem(&e.ty, e.span)?;
    Array::from_values(elem, values)
        .map(Value::array)
        .or_else(|m| err(e.span, m))
}

/// The text of a value as `+` on strings uses it: a string as it is, a scalar written into
/// `buf` (no allocation: a string grown in a loop appends one number per step), anything
/// else (or a scalar whose text does not fit) as an owned string.
fn text_of<'a>(v: &'a Value, buf: &'a mut StackText) -> std::borrow::Cow<'a, str> {
    use std::fmt::Write;
    match v {
        Value::Str(s) => std::borrow::Cow::Borrowed(&**s),
        Value::Scalar(_) if write!(buf, "{v}").is_ok() => std::borrow::Cow::Borrowed(buf.as_str()),
        other => std::borrow::Cow::Owned(other.to_string()),
    }
}

/// A short text written in place (a scalar's digits); writing past its capacity fails.
struct StackText {
    bytes: [u8; 64],
    len: usize,
}

impl StackText {
    fn new() -> StackText {
        StackText {
            bytes: [0; 64],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only whole `&str` pieces are ever copied in, so the bytes are UTF-8.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `a + b` as strings, written once into the new string's own allocation.
pub(crate) fn concat(a: &Value, b: &Value) -> Text {
    let (mut abuf, mut bbuf) = (StackText::new(), StackText::new());
    let (a, b) = (text_of(a, &mut abuf), text_of(b, &mut bbuf));
    let mut s = String::with_capacity(a.len() + b.len());
    s.push_str(&a);
    s.push_str(&b);
    Text::from(s)
}

/// `dst = dst + b` as strings. When `dst` is a string nothing else holds, `b`'s text is
/// appended in place (the string's capacity grows geometrically, so a string built by
/// `s = s + x` in a loop costs amortized time per character, not a copy per step); else a
/// new string is made and `dst` replaced, leaving every other holder's string unchanged.
#[cfg_attr(not(feature = "native-host"), allow(dead_code))]
pub(crate) fn append(dst: &mut Value, b: &Value) {
    let mut bbuf = StackText::new();
    append_text(dst, &text_of(b, &mut bbuf));
}

/// `dst = dst + b` where `b` is already text (see [`append`]): native code appends string
/// literals and numbers it formatted this way. Appending nothing to a string changes
/// nothing (and copies nothing); to anything else it makes the value's text (`null`).
#[cfg_attr(not(feature = "native-host"), allow(dead_code))]
pub(crate) fn append_text(dst: &mut Value, b: &str) {
    if let Value::Str(t) = dst {
        if b.is_empty() {
            return;
        }
        if let Some(s) = t.unique_mut() {
            s.push_str(b);
            return;
        }
    }
    let mut abuf = StackText::new();
    let a = text_of(dst, &mut abuf);
    let mut s = String::with_capacity(a.len() + b.len());
    s.push_str(&a);
    s.push_str(b);
    *dst = Value::Str(Text::from(s));
}

pub fn int_value(n: u64, ty: &Type, span: crate::diagnostics::Span) -> Result<Value, Fail> {
    match ty.as_scalar() {
        Some(s) if s.is_integer() => Ok(Value::Scalar(Scalar::from_int_wrapping(n as i128, s))),
        _ => internal(span, format!("integer result of type {ty}")),
    }
}

/// Nanoseconds since the first call in this process, on the monotonic clock (Java's
/// `System.nanoTime()` has an arbitrary origin too); saturates after 292 years.
pub(crate) fn nano_time() -> i64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let origin = *ORIGIN.get_or_init(std::time::Instant::now);
    i64::try_from(origin.elapsed().as_nanos()).unwrap_or(i64::MAX)
}
