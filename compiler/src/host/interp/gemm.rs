//! `Blas.gemm(…)`: the library GEMM (`crate::blas::Gemm`) from host code. The precision
//! follows from the buffers' element types (the stdlib's overloads admit only the four
//! combinations); each context compiles a precision's kernels once, at its first call, and
//! keeps them for the rest of the run. Native host code runs [`Interp::gemm_values`] through
//! a typed call (`cajeta_gemm`, `host/native/device_calls.rs`) on the operands it computed.

use std::collections::HashMap;
use std::rc::Rc;

use super::eval::{err, internal, Fail, Interp};
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

/// The operands of `Blas.gemm` that are values, in source order: `a`, `b`, `c`, `m`, `n`, `k`
/// and the stream when given (the layouts are constants read from the call); `None` for a
/// call of another arity. Both host executors evaluate these and run [`Interp::gemm_values`].
pub(crate) fn gemm_value_operands(args: &[Expr]) -> Option<Vec<&Expr>> {
    Some(match args {
        [a, b, c, m, n, k] => vec![a, b, c, m, n, k],
        [a, b, c, m, n, k, s] => vec![a, b, c, m, n, k, s],
        [a, _, b, _, c, m, n, k] => vec![a, b, c, m, n, k],
        [a, _, b, _, c, m, n, k, s] => vec![a, b, c, m, n, k, s],
        _ => return None,
    })
}

/// The layouts of `Blas.gemm`'s A and B: row-major unless the call names them.
fn layouts(args: &[Expr]) -> Result<(GemmLayout, GemmLayout), Fail> {
    let (al, bl) = match args {
        [_, al, _, bl, ..] if args.len() >= 8 => (Some(al), Some(bl)),
        _ => (None, None),
    };
    Ok((layout(al)?, layout(bl)?))
}

impl Interp<'_> {
    /// `Blas.gemm` (expression `e`) on the values of its value operands
    /// ([`gemm_value_operands`]): C = A·B recorded on the stream (the default stream when the
    /// call names none). Both host executors run this (native code through a typed call).
    pub(crate) fn gemm_values(&mut self, values: Vec<Value>, e: &Expr) -> Result<Value, Fail> {
        let span = e.span;
        let ExprKind::Host { args, .. } = &e.kind else {
            return internal(span, "Blas.gemm outside a host operation");
        };
        let Some(operands) = gemm_value_operands(args) else {
            return internal(span, format!("Blas.gemm with {} arguments", args.len()));
        };
        if values.len() != operands.len() {
            return internal(span, "Blas.gemm with a missing operand");
        }
        let (al, bl) = layouts(args)?;
        let mut values = values.into_iter();
        let mut next = || values.next().unwrap_or(Value::Void);
        let (a, b, c) = (operands[0], operands[1], operands[2]);
        let objs = [
            buffer_of(next(), a)?,
            buffer_of(next(), b)?,
            buffer_of(next(), c)?,
        ];
        let [m, n, k] = [
            u32_of(
                scalar_of(next(), operands[3])?,
                operands[3],
                "Blas.gemm's m",
            )?,
            u32_of(
                scalar_of(next(), operands[4])?,
                operands[4],
                "Blas.gemm's n",
            )?,
            u32_of(
                scalar_of(next(), operands[5])?,
                operands[5],
                "Blas.gemm's k",
            )?,
        ];
        let stream = match operands.get(6) {
            Some(s) => stream_of(next(), s)?,
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
