//! `Comm.*` in host code (docs/distributed.md): the ranks of an MPI job, through
//! [`crate::comm::world`]. Data is a host array or a `KernelBuffer` of a numeric scalar type
//! (sema checks it); a buffer is downloaded into host memory, handed to MPI and uploaded back
//! where the operation changed it. `allReduce` gathers every rank's data and combines it in
//! rank order, `((r0 op r1) op r2) …`, on every rank: the result has the same bits on every
//! rank, and equals a one-rank program that adds the same partial results in that order.

use std::rc::Rc;

use super::device::BufferObj;
use super::eval::{err, internal, Fail, Interp};
use super::value::{Array, Scalar, Value};

use crate::diagnostics::Span;
use crate::ir::{CommOp, Constant, Expr, ExprKind, ScalarType};

/// What a collective works on: a host array or a device buffer.
enum Data {
    Array(super::value::ArrayRef),
    Buffer(Rc<BufferObj>, super::device::DevBuffer),
}

/// The elements of a numeric array as the bytes they occupy (little-endian hosts only,
/// which is all MPI's byte transfers between ranks of one build assume too).
fn bytes_mut(a: &mut Array) -> Option<(&mut [u8], ScalarType)> {
    fn view<T>(v: &mut [T]) -> &mut [u8] {
        // SAFETY: plain numeric elements without padding; every bit pattern is valid.
        unsafe {
            std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(v))
        }
    }
    Some(match a {
        Array::I8(v) => (view(v), ScalarType::I8),
        Array::I16(v) => (view(v), ScalarType::I16),
        Array::I32(v) => (view(v), ScalarType::I32),
        Array::I64(v) => (view(v), ScalarType::I64),
        Array::U8(v) => (view(v), ScalarType::U8),
        Array::U16(v) => (view(v), ScalarType::U16),
        Array::U32(v) => (view(v), ScalarType::U32),
        Array::U64(v) => (view(v), ScalarType::U64),
        Array::F32(v) => (view(v), ScalarType::F32),
        Array::F64(v) => (view(v), ScalarType::F64),
        _ => return None,
    })
}

/// The combining operation of `allReduce` (the stdlib's `ReduceOp` order).
#[derive(Clone, Copy)]
enum Reduce {
    Sum,
    Min,
    Max,
}

/// `acc[i] = acc[i] op x[i]` for every element, both little-endian images of `elem`. Integer
/// sums wrap, as host arithmetic does; float min and max are Java's (`Math.min`: NaN wins,
/// -0.0 below +0.0), as the host's `Math.min`/`Math.max`.
fn combine(acc: &mut [u8], x: &[u8], elem: ScalarType, op: Reduce) {
    macro_rules! each {
        ($t:ty, $sum:expr, $min:expr, $max:expr) => {{
            const N: usize = std::mem::size_of::<$t>();
            for (a, b) in acc.chunks_exact_mut(N).zip(x.chunks_exact(N)) {
                let l = <$t>::from_le_bytes(a.try_into().unwrap_or([0; N]));
                let r = <$t>::from_le_bytes(b.try_into().unwrap_or([0; N]));
                let v: $t = match op {
                    Reduce::Sum => $sum(l, r),
                    Reduce::Min => $min(l, r),
                    Reduce::Max => $max(l, r),
                };
                a.copy_from_slice(&v.to_le_bytes());
            }
        }};
    }
    macro_rules! int {
        ($t:ty) => {
            each!($t, <$t>::wrapping_add, std::cmp::min, std::cmp::max)
        };
    }
    match elem {
        ScalarType::I8 => int!(i8),
        ScalarType::I16 => int!(i16),
        ScalarType::I32 => int!(i32),
        ScalarType::I64 => int!(i64),
        ScalarType::U8 => int!(u8),
        ScalarType::U16 => int!(u16),
        ScalarType::U32 => int!(u32),
        ScalarType::U64 => int!(u64),
        ScalarType::F32 => each!(
            f32,
            |l: f32, r: f32| l + r,
            |l: f32, r: f32| super::math::java_min(l.into(), r.into()) as f32,
            |l: f32, r: f32| super::math::java_max(l.into(), r.into()) as f32
        ),
        ScalarType::F64 => each!(
            f64,
            |l: f64, r: f64| l + r,
            super::math::java_min,
            super::math::java_max
        ),
        _ => {}
    }
}

/// A rank argument as an index, checked against the job's size.
fn rank_arg(v: Value, size: usize, what: &str, span: Span) -> Result<usize, Fail> {
    match v {
        Value::Scalar(Scalar::I32(r)) if r >= 0 && (r as usize) < size => Ok(r as usize),
        Value::Scalar(Scalar::I32(r)) => err(
            span,
            format!("{what} {r} is not a rank of this job (0 .. {})", size - 1),
        ),
        other => internal(span, format!("rank {other:?}")),
    }
}

/// A transport failure, at the operation.
fn mpi<T>(span: Span, r: Result<T, String>) -> Result<T, Fail> {
    r.or_else(|e| err(span, e))
}

impl Interp<'_> {
    fn data_of(&mut self, v: Value, e: &Expr) -> Result<Data, Fail> {
        match v {
            Value::Array(a) => Ok(Data::Array(a)),
            Value::Buffer(b) => {
                let raw = self.live_buffer(&b, e, e.span)?;
                Ok(Data::Buffer(b, raw))
            }
            other => internal(e.span, format!("Comm data {other:?}")),
        }
    }

    /// Runs `body` on the bytes of `data` and its element type. A buffer's bytes are
    /// downloaded first (after the work recorded on the default stream) and, when `write`,
    /// uploaded back after.
    fn with_bytes<T>(
        &mut self,
        data: &Data,
        write: bool,
        span: Span,
        body: impl FnOnce(&mut [u8], ScalarType) -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        match data {
            Data::Array(a) => {
                let mut a = a.borrow_mut();
                let Some((bytes, elem)) = bytes_mut(&mut a) else {
                    return internal(span, "Comm on an array of a non-numeric type");
                };
                body(bytes, elem)
            }
            Data::Buffer(obj, raw) => {
                if obj.lanes != 1 || obj.pod.is_some() {
                    return internal(span, "Comm on a buffer of vectors or PODs");
                }
                if let (Some(cpu), super::device::DevBuffer::Cpu(raw)) = (self.device.cpu, raw) {
                    let mut bytes = vec![0u8; raw.size() as usize];
                    super::cpu_run::download(cpu, raw, &mut bytes, span)?;
                    let out = body(&mut bytes, obj.elem)?;
                    if write {
                        super::cpu_run::upload(cpu, raw, &bytes, span)?;
                    }
                    return Ok(out);
                }
                let raw = raw.vulkan(span, "a Vulkan buffer")?;
                let stream = self.device.stream(span)?;
                let stream = stream.vk(span, "a Vulkan stream")?;
                let mut bytes = vec![0u8; raw.size() as usize];
                let r = stream.download_buffer(raw, &mut bytes);
                self.device.waited(span, r)?;
                let out = body(&mut bytes, obj.elem)?;
                if write {
                    let r = stream.upload_buffer(raw, &bytes).map(|_| ());
                    self.device.waited(span, r)?;
                }
                Ok(out)
            }
        }
    }

    /// Runs `Comm.*` operation `op` (expression `e`) on its operands' `values`, in order
    /// (both host executors run this; native code through typed calls).
    pub(crate) fn comm_op_values(
        &mut self,
        op: CommOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (args, mut next) = super::operands::host_operands(op, values, e)?;
        let int = |n: usize| Ok(Value::Scalar(Scalar::I32(n as i32)));
        let size = crate::comm::world().size();
        match (op, args) {
            (CommOp::Rank, []) => int(crate::comm::world().rank()),
            (CommOp::Size, []) => int(size),
            (CommOp::LocalRank, []) => int(crate::comm::world().local_rank()),
            (CommOp::LocalDevice, []) => {
                let local = crate::comm::world().local_rank();
                let devices = self.eval_devices_count(span)?;
                int(local % devices.max(1))
            }
            (CommOp::Barrier, []) => {
                mpi(span, crate::comm::world().barrier())?;
                Ok(Value::Void)
            }
            (CommOp::Broadcast, [data, _root]) => {
                let data = self.data_of(next(), data)?;
                let root = rank_arg(next(), size, "root", span)?;
                self.with_bytes(&data, true, span, |b, _| {
                    mpi(span, crate::comm::world().broadcast(b, root))
                })?;
                Ok(Value::Void)
            }
            (CommOp::Send | CommOp::Recv, [data, _peer, _tag]) => {
                let data = self.data_of(next(), data)?;
                let what = if op == CommOp::Send { "dest" } else { "source" };
                let peer = rank_arg(next(), size, what, span)?;
                let tag = match next() {
                    Value::Scalar(Scalar::I32(t)) if t >= 0 => t,
                    other => return err(span, format!("tag {other}: a tag is an int32 >= 0")),
                };
                if peer == crate::comm::world().rank() {
                    return err(
                        span,
                        format!(
                            "rank {peer} cannot {} itself",
                            if op == CommOp::Send {
                                "send to"
                            } else {
                                "receive from"
                            }
                        ),
                    );
                }
                self.with_bytes(&data, op == CommOp::Recv, span, |b, _| {
                    let mut w = crate::comm::world();
                    mpi(
                        span,
                        if op == CommOp::Send {
                            w.send(b, peer, tag)
                        } else {
                            w.recv(b, peer, tag)
                        },
                    )
                })?;
                Ok(Value::Void)
            }
            (CommOp::AllReduce, [data, how]) => {
                let data = self.data_of(next(), data)?;
                // Like MemoryKind, an enum-like constant written at the call (no value of
                // its type exists at run time).
                let how = match &how.kind {
                    ExprKind::Const(Constant::Int(0)) => Reduce::Sum,
                    ExprKind::Const(Constant::Int(1)) => Reduce::Min,
                    ExprKind::Const(Constant::Int(2)) => Reduce::Max,
                    _ => {
                        return err(
                            how.span,
                            "write the operation as ReduceOp.Sum, ReduceOp.Min or ReduceOp.Max",
                        )
                    }
                };
                self.with_bytes(&data, true, span, |b, elem| {
                    let mut all = vec![0u8; b.len() * size];
                    mpi(span, crate::comm::world().all_gather(b, &mut all))?;
                    let n = b.len();
                    b.copy_from_slice(&all[..n]);
                    if n > 0 {
                        for piece in all[n..].chunks_exact(n) {
                            combine(b, piece, elem, how);
                        }
                    }
                    Ok(())
                })?;
                Ok(Value::Void)
            }
            (CommOp::AllGather, [data, out]) => {
                let (data_v, out_v) = (next(), next());
                let (data, out) = (self.data_of(data_v, data)?, self.data_of(out_v, out)?);
                let piece = self.with_bytes(&data, false, span, |b, _| Ok(b.to_vec()))?;
                self.with_bytes(&out, true, span, |o, _| {
                    if o.len() != piece.len() * size {
                        return err(
                            span,
                            format!(
                                "allGather: out holds {} bytes, {} ranks of {} bytes need {}",
                                o.len(),
                                size,
                                piece.len(),
                                piece.len() * size
                            ),
                        );
                    }
                    mpi(span, crate::comm::world().all_gather(&piece, o))
                })?;
                Ok(Value::Void)
            }
            _ => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }
}
