//! Host side of ray-query scenes: `AccelerationStructure.fromTriangles(vertices [, indices])`
//! and `fromAabbs(boxes)` (and Cajeta's constructors, with a count and a vertex stride) build one bottom-level structure and a top-level structure holding
//! a single identity instance of it (custom index 0, mask 0xFF), which is what an
//! `AccelerationStructure` kernel parameter binds; `instanced(part, transforms [,
//! customIndices, masks])` places a such scene's geometry several times. The runtime checks
//! the geometry arrays (whole vertices, whole triangles, indices in range, boxes with
//! min ≤ max) before it asks the device anything, and the instance arrays are checked here,
//! so bad input reads the same on every device.

use std::fmt;
use std::rc::Rc;

use cajeta_runtime::{AccelInstance, AccelStruct, RuntimeError};

use super::eval::{err, internal, Fail, Frame, Interp};
use super::value::{Array, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp};

/// An `AccelerationStructure` of the host program.
pub struct AccelObj {
    /// The top-level structure a kernel binds (it keeps its bottom-level ones alive).
    pub tlas: AccelStruct,
    /// The geometry of a `fromTriangles`/`fromAabbs` scene, which `instanced` may place
    /// again; `None` for an instanced scene.
    geometry: Option<AccelStruct>,
}

impl fmt::Debug for AccelObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AccelerationStructure")
    }
}

/// A runtime error of `AccelerationStructure.{method}` at `span`; bad input reads as what
/// is wrong with it, without the error kind's prefix.
fn failure<T>(span: Span, method: &str, x: RuntimeError) -> Result<T, Fail> {
    let why = match x {
        RuntimeError::InvalidResource(m) => m,
        other => other.to_string(),
    };
    err(span, format!("AccelerationStructure.{method}: {why}"))
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

    /// A `uint32` count argument.
    fn count_arg(&mut self, f: &mut Frame, e: &Expr) -> Result<usize, Fail> {
        match self.eval_scalar(f, e)?.as_int() {
            Some(n) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => internal(e.span, "a scene count that is not an unsigned integer"),
        }
    }

    /// The elements of a `uint32[]` argument.
    fn u32_elements(&mut self, f: &mut Frame, e: &Expr) -> Result<Vec<u32>, Fail> {
        let a = self.eval_array(f, e)?;
        let a = a.borrow();
        match &*a {
            Array::U32(v) => Ok(v.clone()),
            _ => internal(e.span, "a scene array that is not uint32[]"),
        }
    }

    /// `AccelerationStructure.fromTriangles(…)`, `fromAabbs(…)` and `instanced(…)`.
    pub(super) fn accel_op(
        &mut self,
        f: &mut Frame,
        op: HostOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (method, geometry) = match (op, args) {
            // Cajeta's `heap AccelerationStructure(vertices, triangleCount, vertexStride)`:
            // vertex `k` of triangle `t` starts at `vertices[(3t + k) * vertexStride]`.
            (HostOp::AccelFromTriangles, [v, count, stride]) => {
                let vertices = self.f32_elements(f, v)?;
                let n = self.count_arg(f, count)?;
                let stride = self.count_arg(f, stride)?;
                let mut packed = Vec::with_capacity(n.saturating_mul(9).min(vertices.len()));
                for k in 0..n.saturating_mul(3) {
                    let at = k.saturating_mul(stride);
                    let Some(xyz) = vertices.get(at..at.saturating_add(3)) else {
                        return err(
                            span,
                            format!(
                                "AccelerationStructure: {n} triangles of stride {stride} need \
                                 {} floats, the array has {}",
                                (3 * n - 1).saturating_mul(stride).saturating_add(3),
                                vertices.len()
                            ),
                        );
                    };
                    packed.extend_from_slice(xyz);
                }
                let ctx = self.device.context(span)?;
                ("fromTriangles", ctx.build_blas_triangles(&packed, None))
            }
            (HostOp::AccelFromTriangles, [v, rest @ ..]) if rest.len() <= 1 => {
                let vertices = self.f32_elements(f, v)?;
                let indices = match rest {
                    [i] => Some(self.u32_elements(f, i)?),
                    _ => None,
                };
                let ctx = self.device.context(span)?;
                (
                    "fromTriangles",
                    ctx.build_blas_triangles(&vertices, indices.as_deref()),
                )
            }
            (HostOp::AccelFromAabbs, [b, rest @ ..]) if rest.len() <= 1 => {
                let mut boxes = self.f32_elements(f, b)?;
                // Cajeta's `heap AccelerationStructure(boxes, count)`: the first `count`.
                if let [count] = rest {
                    let n = self.count_arg(f, count)?;
                    if n.saturating_mul(6) > boxes.len() {
                        return err(
                            span,
                            format!(
                                "AccelerationStructure: {n} boxes need {} floats, the array has {}",
                                n.saturating_mul(6),
                                boxes.len()
                            ),
                        );
                    }
                    boxes.truncate(n * 6);
                }
                let ctx = self.device.context(span)?;
                ("fromAabbs", ctx.build_blas_aabbs(&boxes))
            }
            (HostOp::AccelInstanced, [part, transforms, rest @ ..]) => {
                return self.instanced(f, part, transforms, rest, span)
            }
            (op, args) => return internal(span, format!("{op:?} with {} arguments", args.len())),
        };
        let blas = geometry.or_else(|x| failure(span, method, x))?;
        let tlas = self
            .device
            .context(span)?
            .build_tlas(&[AccelInstance {
                blas: &blas,
                transform: AccelInstance::IDENTITY,
                custom_index: 0,
                mask: 0xFF,
            }])
            .or_else(|x| failure(span, method, x))?;
        Ok(Value::AccelStruct(Rc::new(AccelObj {
            tlas,
            geometry: Some(blas),
        })))
    }

    /// `AccelerationStructure.instanced(part, transforms [, customIndices, masks])`.
    fn instanced(
        &mut self,
        f: &mut Frame,
        part: &Expr,
        transforms: &Expr,
        rest: &[Expr],
        span: Span,
    ) -> Result<Value, Fail> {
        const METHOD: &str = "instanced";
        let part = match self.eval(f, part)? {
            Value::AccelStruct(a) => a,
            Value::Void => return err(part.span, "use of a null AccelerationStructure"),
            other => return internal(part.span, format!("expected a scene, found {other:?}")),
        };
        let Some(blas) = part.geometry.clone() else {
            return err(
                span,
                "AccelerationStructure.instanced: the part is itself an instanced scene; instance a scene made by fromTriangles or fromAabbs",
            );
        };
        let transforms = self.f32_elements(f, transforms)?;
        if transforms.is_empty() || transforms.len() % 12 != 0 {
            return err(
                span,
                format!(
                    "AccelerationStructure.instanced: the transform array holds {} floats, not a non-zero multiple of 12 (a row-major 3x4 matrix per instance)",
                    transforms.len()
                ),
            );
        }
        let count = transforms.len() / 12;
        let (indices, masks) = match rest {
            [] => (
                (0..count as u32).collect::<Vec<u32>>(),
                vec![0xFFu32; count],
            ),
            [i, m] => (self.u32_elements(f, i)?, self.u32_elements(f, m)?),
            _ => return internal(span, format!("instanced with {} arguments", rest.len() + 2)),
        };
        for (what, n) in [("custom index", indices.len()), ("mask", masks.len())] {
            if n != count {
                return err(
                    span,
                    format!(
                        "AccelerationStructure.instanced: {count} transforms but {n} {what} values (one per instance)"
                    ),
                );
            }
        }
        if let Some((k, m)) = masks.iter().enumerate().find(|(_, &m)| m > 0xFF) {
            return err(
                span,
                format!("AccelerationStructure.instanced: mask {m} of instance {k} does not fit in 8 bits"),
            );
        }
        let instances: Vec<AccelInstance<'_>> = transforms
            .chunks_exact(12)
            .zip(indices.iter().zip(&masks))
            .map(|(t, (&custom_index, &mask))| {
                let mut transform = [0f32; 12];
                transform.copy_from_slice(t);
                AccelInstance {
                    blas: &blas,
                    transform,
                    custom_index,
                    mask: mask as u8,
                }
            })
            .collect();
        let tlas = self
            .device
            .context(span)?
            .build_tlas(&instances)
            .or_else(|x| failure(span, METHOD, x))?;
        Ok(Value::AccelStruct(Rc::new(AccelObj {
            tlas,
            geometry: None,
        })))
    }
}
