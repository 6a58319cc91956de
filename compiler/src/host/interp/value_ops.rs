//! The host operations whose code runs on their operands' values: new arrays, buffers and
//! images, their transfers, streams and events, files and pictures, textures and samplers,
//! several devices, `Comm`, `Blas.gemm`, device queries. Both host executors reach them
//! through one dispatch, [`Interp::value_op`]: the interpreter after evaluating the
//! operands ([`Interp::operand_values`]), native host code from its typed calls into the
//! runtime (`host/native/device_calls.rs`) with the values it holds. So the two executors
//! run the same code and report the same errors, and each family's code is reached from
//! one place.

use super::eval::{internal, Fail, Frame, Interp};
use super::gemm::gemm_value_operands;
use super::hostops::{alloc_array, array_literal};
use super::value::Value;
use crate::ir::{CommOp, Expr, ExprKind, HostOp};

impl Interp<'_> {
    /// The values of host operation `op`'s operands `args` (expression `e`) that its code
    /// takes, evaluated in order: all of them but the constants it reads from the IR
    /// (`allocate`'s memory kind, `allReduce`'s operation, `Blas.gemm`'s layouts).
    pub(super) fn operand_values(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Vec<Value>, Fail> {
        match (op, args) {
            (HostOp::BufferAllocate, [buffer, ..]) => Ok(vec![self.eval(f, buffer)?]),
            (HostOp::Comm(CommOp::AllReduce), [data, _]) => Ok(vec![self.eval(f, data)?]),
            (HostOp::Gemm, _) => {
                let Some(operands) = gemm_value_operands(args) else {
                    return internal(e.span, format!("Blas.gemm with {} arguments", args.len()));
                };
                operands.into_iter().map(|x| self.eval(f, x)).collect()
            }
            _ => self.eval_all(f, args),
        }
    }

    /// Runs host operation `op` (expression `e`) on its operands' `values`, computed in
    /// order ([`Self::operand_values`] says which operands those are). An operation whose
    /// code does not take values (printing, strings, timers, …: the interpreter evaluates
    /// those itself) is an internal error.
    pub(crate) fn value_op(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        match op {
            HostOp::NewArray => {
                let len = match values.first() {
                    Some(Value::Scalar(s)) => *s,
                    _ => return internal(span, "a length that is not a scalar"),
                };
                alloc_array(len, e)
            }
            HostOp::ArrayLiteral => array_literal(values, e),
            HostOp::DeviceQuery(q) => self.device_query(q, e),
            HostOp::Devices(op) => self.devices_op_values(op, values, e),
            HostOp::Comm(op) => self.comm_op_values(op, values, e),
            HostOp::Gemm => self.gemm_values(values, e),
            HostOp::NewBuffer
            | HostOp::NewLegacyBuffer
            | HostOp::BufferAllocate
            | HostOp::NewImage2D
            | HostOp::BufferLength
            | HostOp::BufferSlice
            | HostOp::BufferFree
            | HostOp::ImageDownload
            | HostOp::ImageWidth
            | HostOp::ImageHeight => self.device_op_values(op, values, e),
            HostOp::BufferUpload
            | HostOp::BufferDownload
            | HostOp::BufferUploadAsync
            | HostOp::BufferDownloadAsync => {
                let ExprKind::Host { args, .. } = &e.kind else {
                    return internal(span, format!("{op:?} outside a host operation"));
                };
                self.buffer_transfer_values(op, values, args, span)
            }
            HostOp::StreamCurrent
            | HostOp::StreamCreate
            | HostOp::StreamSync
            | HostOp::StreamDestroy
            | HostOp::StreamWaitEvent
            | HostOp::EventCreate
            | HostOp::EventRecord
            | HostOp::EventWaitHost
            | HostOp::EventQuery
            | HostOp::EventElapsed
            | HostOp::EventDestroy => self.stream_op_values(op, values, e),
            HostOp::FileRead(_)
            | HostOp::FileWrite(_)
            | HostOp::ReadImage
            | HostOp::ReadImageRgba
            | HostOp::WriteImage(_)
            | HostOp::ImageFileWidth
            | HostOp::ImageFileHeight
            | HostOp::ImageSave => self.file_op_values(op, values, e),
            HostOp::NewTexture(..)
            | HostOp::NewSampler
            | HostOp::TextureUpload
            | HostOp::TextureUploadLevel
            | HostOp::TextureWidth
            | HostOp::TextureHeight
            | HostOp::TextureDepth => self.texture_op_values(op, values, e),
            // Listed, not `_`: a new operation has to be placed on one side or the other.
            HostOp::ArrayLength
            | HostOp::Timer(_)
            | HostOp::Rng(_)
            | HostOp::DeviceControl(_)
            | HostOp::Println
            | HostOp::Print
            | HostOp::Concat
            | HostOp::ToString
            | HostOp::Printf
            | HostOp::ParseInt
            | HostOp::ParseFloat
            | HostOp::ParseLong
            | HostOp::ParseDouble
            | HostOp::NanoTime
            | HostOp::SetCpuWorkerCap
            | HostOp::Autotune(_)
            | HostOp::EmptyOptional
            | HostOp::ExceptionWaiting
            | HostOp::KernelFaultWaiting
            | HostOp::TakeException
            | HostOp::KernelManifest(_)
            | HostOp::CatchKernelFault
            | HostOp::AccelFromTriangles
            | HostOp::AccelFromAabbs
            | HostOp::AccelInstanced
            | HostOp::StringMethod(_) => internal(span, format!("{op:?} has no typed call")),
        }
    }
}
