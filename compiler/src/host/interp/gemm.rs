//! `Blas.gemm(…)`: the library GEMM (`crate::blas::Gemm`) from host code. The precision
//! follows from the buffers' element types (the stdlib's overloads admit only the four
//! combinations); each context compiles a precision's kernels once, at its first call, and
//! keeps them for the rest of the run. Native host code hands the call over to this.

use std::collections::HashMap;
use std::rc::Rc;

use super::eval::{err, internal, Fail, Frame, Interp};
use super::operands::{buffer_of, scalar_of, stream_of, u32_of};
use super::value::Value;
use crate::blas::{Gemm, GemmLayout, GemmPrecision};
use crate::ir::{Constant, Expr, ExprKind, ScalarType};

/// The library GEMMs a run has made, by device index and precision.
#[derive(Default)]
pub struct GemmCache(HashMap<(usize, GemmPrecision), Rc<Gemm>>);

/// A `CoopLayout` argument: like `MemoryKind`, a constant written at the call.
fn layout(e: Option<&Expr>) -> Result<GemmLayout, Fail> {
    match e.map(|e| &e.kind) {
        None | Some(ExprKind::Const(Constant::Int(0))) => Ok(GemmLayout::RowMajor),
        Some(ExprKind::Const(Constant::Int(1))) => Ok(GemmLayout::ColumnMajor),
        _ => {
            let span = e.map(|e| e.span).unwrap_or_default();
            err(
                span,
                "write the layout as CoopLayout.RowMajor or CoopLayout.ColumnMajor",
            )
        }
    }
}

/// The precision of operands of `ab` and a result of `c`.
fn precision(ab: ScalarType, c: ScalarType) -> Option<GemmPrecision> {
    Some(match (ab, c) {
        (ScalarType::F16, ScalarType::F32) => GemmPrecision::F16F32,
        (ScalarType::F16, ScalarType::F16) => GemmPrecision::F16F16,
        (ScalarType::BF16, ScalarType::F32) => GemmPrecision::Bf16F32,
        (ScalarType::I8, ScalarType::I32) => GemmPrecision::I8I32,
        _ => return None,
    })
}

impl Interp<'_> {
    /// `Blas.gemm(a, b, c, m, n, k [, s])` and `Blas.gemm(a, aLayout, b, bLayout, c, m, n, k
    /// [, s])`: C = A·B recorded on `s` (the default stream when not given).
    pub(super) fn gemm_op(
        &mut self,
        f: &mut Frame,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (a, al, b, bl, c, dims, s) = match args {
            [a, b, c, m, n, k] => (a, None, b, None, c, [m, n, k], None),
            [a, b, c, m, n, k, s] => (a, None, b, None, c, [m, n, k], Some(s)),
            [a, al, b, bl, c, m, n, k] => (a, Some(al), b, Some(bl), c, [m, n, k], None),
            [a, al, b, bl, c, m, n, k, s] => (a, Some(al), b, Some(bl), c, [m, n, k], Some(s)),
            _ => return internal(span, format!("Blas.gemm with {} arguments", args.len())),
        };
        let (al, bl) = (layout(al)?, layout(bl)?);
        let objs = [
            buffer_of(self.eval(f, a)?, a)?,
            buffer_of(self.eval(f, b)?, b)?,
            buffer_of(self.eval(f, c)?, c)?,
        ];
        let [m, n, k] = [
            u32_of(
                scalar_of(self.eval(f, dims[0])?, dims[0])?,
                dims[0],
                "Blas.gemm's m",
            )?,
            u32_of(
                scalar_of(self.eval(f, dims[1])?, dims[1])?,
                dims[1],
                "Blas.gemm's n",
            )?,
            u32_of(
                scalar_of(self.eval(f, dims[2])?, dims[2])?,
                dims[2],
                "Blas.gemm's k",
            )?,
        ];
        let stream = match s {
            Some(s) => stream_of(self.eval(f, s)?, s)?,
            None => self.device.stream(span)?,
        };
        if objs.iter().any(|o| o.lanes != 1 || o.pod.is_some()) || objs[0].elem != objs[1].elem {
            return internal(span, "Blas.gemm on buffers the overloads do not admit");
        }
        let Some(p) = precision(objs[0].elem, objs[2].elem) else {
            return internal(
                span,
                "Blas.gemm on element types the overloads do not admit",
            );
        };
        if m == 0 || n == 0 || k == 0 {
            return err(
                span,
                format!("Blas.gemm of {m}×{n}×{k}: m, n and k must be at least 1"),
            );
        }
        let (m64, n64, k64) = (u64::from(m), u64::from(n), u64::from(k));
        for (name, obj, rows, cols, what) in [
            ("a", &objs[0], m64, k64, "m × k"),
            ("b", &objs[1], k64, n64, "k × n"),
            ("c", &objs[2], m64, n64, "m × n"),
        ] {
            if obj.len < rows * cols {
                return err(
                    span,
                    format!(
                        "Blas.gemm: {name} has {} elements, fewer than {what} = {rows} × {cols} = {}",
                        obj.len,
                        rows * cols
                    ),
                );
            }
        }
        let ra = self.live_buffer(&objs[0], a, span)?;
        let rb = self.live_buffer(&objs[1], b, span)?;
        let rc = self.live_buffer(&objs[2], c, span)?;
        if let Some(cpu) = self.device.cpu {
            let ops = super::cpu_gemm::CpuOperands {
                a: super::cpu_run::cpu_buffer(&ra, span)?,
                a_layout: al,
                b: super::cpu_run::cpu_buffer(&rb, span)?,
                b_layout: bl,
                c: super::cpu_run::cpu_buffer(&rc, span)?,
            };
            super::cpu_gemm::cpu_gemm(cpu, p, &ops, [m, n, k], span)?;
            return Ok(Value::Void);
        }
        let ctx = self.device.context(span)?.clone();
        let key = (ctx.device_info().index, p);
        let gemm = match self.device.gemms.0.get(&key) {
            Some(g) => g.clone(),
            None => {
                let g = Rc::new(Gemm::new(&ctx, p).or_else(|x| err(span, x.to_string()))?);
                self.device.gemms.0.insert(key, g.clone());
                g
            }
        };
        let vk_stream = stream.vk(span, "Blas.gemm")?;
        let (va, vb, vc) = (
            ra.vulkan(span, "Blas.gemm")?,
            rb.vulkan(span, "Blas.gemm")?,
            rc.vulkan(span, "Blas.gemm")?,
        );
        gemm.multiply(vk_stream, va, al, vb, bl, vc, m, n, k)
            .or_else(|x| err(span, format!("Blas.gemm: {x}")))?;
        Ok(Value::Void)
    }
}
