//! Vector access to scalar buffers: `buf.vload<N>(i)` and `buf.vstore(i, v)`, the only
//! methods that take an explicit generic argument (`recv.name<N>(…)`).

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, Intrinsic, ScalarType, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `recv.name<args>(…)`: only `vload<N>` takes explicit generic arguments.
    pub fn generic_method_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        targs: &[ast::TypeArg],
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        if name.name != "vload" {
            return self.error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    name.span,
                    format!("`{}` does not take explicit generic arguments", name.name),
                )
                .with_note("only `buf.vload<N>(i)` is written with one"),
            );
        }
        let r = self.expr(recv, None)?;
        self.buffer_vector_call(r, name, Some(targs), args, span)
    }

    /// `buf.vload<N>(i)` / `buf.vstore(i, v)` on a `KernelBuffer<T>` of scalars (device only).
    pub fn buffer_vector_call(
        &mut self,
        buf: ir::Expr,
        name: &ast::Ident,
        targs: Option<&[ast::TypeArg]>,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Buffer(elem) = &buf.ty else {
            return self.error(Diagnostic::error(
                Code::UnknownMethod,
                name.span,
                format!("`{}` has no method `{}`", buf.ty, name.name),
            ));
        };
        let Type::Scalar(s) = **elem else {
            let t = buf.ty.clone();
            return self.error(
                Diagnostic::error(
                    Code::InvalidOperator,
                    name.span,
                    format!("`{}` needs a buffer of scalars, not {t}", name.name),
                )
                .with_note("help: index a buffer of vectors directly: `buf[i]`"),
            );
        };
        if !self.is_device() {
            return self.error(
                Diagnostic::error(
                    Code::DeviceOnlyInHost,
                    span,
                    format!(
                        "`KernelBuffer.{}` is only available in kernels and @Device methods",
                        name.name
                    ),
                )
                .with_note("help: download into a host array, then index that"),
            );
        }
        let vload = name.name == "vload";
        let want = if vload { 1 } else { 2 };
        if args.len() != want || args.iter().any(|a| a.name.is_some()) {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "`KernelBuffer.{}` takes {want} positional argument(s)",
                    name.name
                ),
            ));
        }
        let u32_ty = Type::Scalar(ScalarType::U32);
        let i = self.expr(&args[0].value, Some(&u32_ty))?;
        let i = self.coerce_index(i, args[0].value.span)?;
        if vload {
            let n = match targs {
                Some([ast::TypeArg::Int(text, tspan)]) => match text.parse::<u8>() {
                    Ok(n @ 2..=4) => n,
                    Ok(n @ (8 | 16)) if super::wide_vector::wide_lane_ok(s) => {
                        return self.wide_vload(buf, i, s, n, span);
                    }
                    Ok(n @ (8 | 16)) => {
                        let d =
                            super::vector_methods::wide_vector(u32::from(n), *tspan, "`vload<4>`");
                        return self.error(d);
                    }
                    _ => {
                        return self.error(
                            Diagnostic::error(
                                Code::TypeMismatch,
                                *tspan,
                                "the lane count N of vload<N> must be 2, 3 or 4",
                            )
                            .with_label("not 2, 3 or 4"),
                        )
                    }
                },
                _ => {
                    return self.error(
                        Diagnostic::error(
                            Code::TypeMismatch,
                            name.span,
                            "vload needs its lane count: `buf.vload<4>(i)`",
                        )
                        .with_label("missing or malformed <N>"),
                    )
                }
            };
            return Ok(ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::BufferVload,
                    args: vec![buf, i],
                },
                ty: Type::Vector(s, n),
                span,
            });
        }
        let v = self.expr(&args[1].value, None)?;
        if matches!(v.ty, Type::Wide(ws, _) if ws == s) {
            return self.wide_vstore(buf, i, v, span);
        }
        let Type::Vector(vs, _) = v.ty else {
            let t = v.ty.clone();
            return self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    args[1].value.span,
                    format!("vstore stores a Vector<{s},N>, found {t}"),
                )
                .with_label(format!("this is {t}")),
            );
        };
        if vs != s {
            let t = v.ty.clone();
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                args[1].value.span,
                format!("vstore into a KernelBuffer<{s}> needs a Vector<{s},N>, found {t}"),
            ));
        }
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::BufferVstore,
                args: vec![buf, i, v],
            },
            ty: Type::Void,
            span,
        })
    }

    /// A buffer index: any 32-bit-or-narrower integer, converted to `uint32`.
    fn coerce_index(&mut self, i: ir::Expr, span: Span) -> R<ir::Expr> {
        match i.ty {
            Type::Scalar(s) if s.is_integer() && s.bits() <= 32 => {
                Ok(super::expr::convert(i, ScalarType::U32))
            }
            ref t => {
                let t = t.clone();
                self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("an index must be a 32-bit or narrower integer, found {t}"),
                ))
            }
        }
    }
}
