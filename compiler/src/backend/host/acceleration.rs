//! Host side of ray-query scenes: `AccelerationStructure.fromTriangles(vertices [, indices])`
//! and `AccelerationStructure.fromAabbs(boxes)`. Each builds one bottom-level structure and a
//! top-level structure holding a single identity instance of it (custom index 0, mask 0xFF),
//! which is what an `AccelerationStructure` kernel parameter binds. The runtime checks the
//! arrays (whole vertices, whole triangles, indices in range, boxes with min ≤ max) before it
//! asks the device anything, so bad input reads the same on every device.

use std::fmt;
use std::rc::Rc;

use cajeta_runtime::{AccelInstance, AccelStruct};

use super::eval::{err, internal, Fail, Frame, Interp};
use super::value::{Array, Value};
use crate::ir::{Expr, HostOp};

/// An `AccelerationStructure` of the host program: the top-level structure a kernel binds
/// (which keeps its bottom-level structure alive).
pub struct AccelObj {
    /// The top-level structure.
    pub tlas: AccelStruct,
}

impl fmt::Debug for AccelObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AccelerationStructure")
    }
}

impl Interp<'_> {
    /// The elements of a `float32[]` argument.
    fn f32_elements(&mut self, f: &mut Frame, e: &Expr) -> Result<Vec<f32>, Fail> {
        let a = self.eval_array(f, e)?;
        let a = a.borrow();
        match &*a {
            Array::F32(v) => Ok(v.clone()),
            _ => internal(e.span, "a scene array that is not float32[]"),
        }
    }

    /// `AccelerationStructure.fromTriangles(…)` and `fromAabbs(…)`.
    pub(super) fn accel_op(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (method, blas) = match (op, args) {
            (HostOp::AccelFromTriangles, [v, rest @ ..]) if rest.len() <= 1 => {
                let vertices = self.f32_elements(f, v)?;
                let indices = match rest {
                    [i] => {
                        let a = self.eval_array(f, i)?;
                        let a = a.borrow();
                        match &*a {
                            Array::U32(v) => Some(v.clone()),
                            _ => return internal(i.span, "scene indices that are not uint32[]"),
                        }
                    }
                    _ => None,
                };
                let ctx = self.device.context(span)?;
                (
                    "fromTriangles",
                    ctx.build_blas_triangles(&vertices, indices.as_deref()),
                )
            }
            (HostOp::AccelFromAabbs, [b]) => {
                let boxes = self.f32_elements(f, b)?;
                let ctx = self.device.context(span)?;
                ("fromAabbs", ctx.build_blas_aabbs(&boxes))
            }
            (op, args) => return internal(span, format!("{op:?} with {} arguments", args.len())),
        };
        // Bad input reads as what is wrong with it, without the error kind's prefix.
        let fail = |x: cajeta_runtime::RuntimeError| {
            let why = match x {
                cajeta_runtime::RuntimeError::InvalidResource(m) => m,
                other => other.to_string(),
            };
            err(span, format!("AccelerationStructure.{method}: {why}"))
        };
        let blas = blas.or_else(fail)?;
        let tlas = self
            .device
            .context(span)?
            .build_tlas(&[AccelInstance {
                blas: &blas,
                transform: AccelInstance::IDENTITY,
                custom_index: 0,
                mask: 0xFF,
            }])
            .or_else(fail)?;
        Ok(Value::AccelStruct(Rc::new(AccelObj { tlas })))
    }
}
