//! Vector forms spelled as Cajeta spells them that lower onto existing operations: the 8-bit
//! integer dot product as a method (`Vector<int8,4>.dot(b [, acc])`, the `IntegerDot`
//! operation) and `Math.reflect` / `Math.refract` as the `Vector` methods of the same names;
//! and the `Matrix<T, R, C>` methods (`transpose determinant inverse hadamard`).

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, Intrinsic, ScalarType, Type, VecFn};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `a.dot(b)` / `a.dot(b, acc)` on `Vector<int8|uint8, 4>`: `IntegerDot`'s `sdot`/`udot`
    /// (`…AccSat` with `acc`, which saturates at the result's range). The result is `int32`
    /// for int8 lanes, `uint32` for uint8 lanes.
    pub(super) fn int8_dot(
        &mut self,
        recv: ir::Expr,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let vt = recv.ty.clone();
        let result = match vt {
            Type::Vector(ScalarType::U8, _) => ScalarType::U32,
            _ => ScalarType::I32,
        };
        if args.is_empty() || args.len() > 2 {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`{vt}.dot` takes `(other)` or `(other, acc)`"),
            ));
        }
        let mut values = vec![recv];
        let other = self.expr(&args[0].value, Some(&vt))?;
        values.push(self.coerce(other, &vt, args[0].value.span)?);
        if let Some(acc) = args.get(1) {
            let want = Type::Scalar(result);
            let v = self.expr(&acc.value, Some(&want))?;
            values.push(self.coerce(v, &want, acc.value.span)?);
        }
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::IntDot {
                    acc_sat: values.len() == 3,
                },
                args: values,
            },
            ty: Type::Scalar(result),
            span,
        })
    }

    /// `Math.reflect(i, n)` / `Math.refract(i, n, eta)`: the `Vector` methods on `i`
    /// (GLSL's free-function spelling). `None` when the call is something else.
    pub fn math_vector_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if self.class_name(recv) != Some("Math")
            || !matches!(name.name.as_str(), "reflect" | "refract")
        {
            return None;
        }
        let Some((first, rest)) = args.split_first() else {
            return Some(self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`Math.{}` needs the incident vector first", name.name),
            )));
        };
        Some(self.expr(&first.value, None).and_then(|i| match i.ty {
            Type::Vector(s, _) if s.is_float() => self.vector_method(i, name, rest, span),
            ref t => {
                let t = t.clone();
                self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        first.value.span,
                        format!("`Math.{}` takes float vectors, found {t}", name.name),
                    )
                    .with_label(format!("this is {t}")),
                )
            }
        }))
    }

    /// `m.transpose()`, `m.determinant()`, `m.inverse()` (square matrices) and
    /// `m.hadamard(other)` (a matrix of the receiver's type) on a matrix receiver.
    pub fn matrix_method(
        &mut self,
        recv: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let mt = recv.ty.clone();
        let Type::Matrix(s, r, c) = mt else {
            return self.error(Diagnostic::error(
                Code::UnknownMethod,
                name.span,
                "not a matrix",
            ));
        };
        let found = self
            .syms
            .intrinsic("Matrix", &name.name)
            .and_then(|o| o.iter().find(|m| m.decl.params.len() == args.len()))
            .and_then(|m| m.device);
        let Some(Intrinsic::Vector(f)) = found else {
            return self.error(
                Diagnostic::error(
                    Code::UnknownMethod,
                    name.span,
                    format!(
                        "`{mt}` has no method `{}` taking {} argument(s)",
                        name.name,
                        args.len()
                    ),
                )
                .with_note("matrix methods: transpose(), determinant(), inverse(), hadamard(m)"),
            );
        };
        if matches!(f, VecFn::Determinant | VecFn::Inverse) && r != c {
            return self.error(
                Diagnostic::error(
                    Code::InvalidOperator,
                    name.span,
                    format!("`{}` needs a square matrix, not {mt}", name.name),
                )
                .with_label(format!("called on {mt}")),
            );
        }
        let mut values = vec![recv];
        for a in args {
            let v = self.expr(&a.value, Some(&mt))?;
            values.push(self.coerce(v, &mt, a.value.span)?);
        }
        let ty = match f {
            VecFn::Transpose => Type::Matrix(s, c, r),
            VecFn::Determinant => Type::Scalar(s),
            _ => mt,
        };
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Vector(f),
                args: values,
            },
            ty,
            span,
        })
    }
}

/// E0024 for an 8- or 16-lane vector (`Vector<T, 8>`, `vload<16>`) of a lane type that
/// cajetac holds no wide vector of (sema/wide_vector.rs): the help says why and what to
/// write instead.
pub(super) fn wide_vector(n: u32, span: crate::diagnostics::Span, instead: &str) -> Diagnostic {
    Diagnostic::error(
        Code::UnsupportedFeature,
        span,
        format!("{n}-lane vectors are not supported on Vulkan"),
    )
    .with_label(format!("{n} lanes"))
    .with_note(
        "SPIR-V has 8- and 16-component vectors only with the `Vector16` capability, which Vulkan does not allow in shaders; Vulkan vectors have 2, 3 or 4 lanes",
    )
    .with_note(
        "cajetac holds 8- and 16-lane vectors of float16, float32, float64, int32, uint32, int64 and uint64 as Vector<T, 4> parts (and Vector<int8|uint8, 16> as four words); not of this lane type",
    )
    .with_note(format!(
        "help: split it into {} × {instead} (or loop over the lanes)",
        n / 4
    ))
}
