//! Masks of Cajeta's wide vectors (see sema/wide_vector.rs for how they are held): a
//! comparison of `Vector<T, 8>` or `Vector<T, 16>` values gives a `Vector<boolean, N>` mask,
//! held as `Vector<boolean, 4>` parts as the 4-lane comparison gives them, and
//! `m.select(a, b)`, `m.all()` and `m.any()` are the 4-lane forms part by part. `c ? a : b`
//! with a `boolean` `c` picks a whole wide vector, evaluating one arm as Java does.

use super::body::{FnCtx, R};
use super::bytes16::sequence;
use super::wide_vector::{vec4, wide_lane_ok, wide_refused, wide_value};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, Intrinsic, ScalarType, Type, VecFn};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `m.select(a, b)`, `m.all()`, `m.any()` on a wide mask `m`; other methods are E0024.
    pub(super) fn wide_mask_method(
        &mut self,
        m: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let ty = m.ty.clone();
        let Type::Wide(_, n) = ty else {
            unreachable!("wide_mask_method of another type")
        };
        let want = match name.name.as_str() {
            "select" => 2,
            "all" | "any" => 0,
            other => return self.error(wide_refused(&ty, name.span, &format!("`{other}`"))),
        };
        if args.len() != want || args.iter().any(|a| a.name.is_some()) {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`{ty}.{}` takes {want} positional argument(s)", name.name),
            ));
        }
        let mut stmts = Vec::new();
        if want == 0 {
            let parts = self.pure_parts(m, &mut stmts)?;
            let reduce = |p: ir::Expr| ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::Vector(if name.name == "all" {
                        VecFn::All
                    } else {
                        VecFn::Any
                    }),
                    args: vec![p],
                },
                ty: Type::Scalar(ScalarType::Bool),
                span,
            };
            let value = parts
                .into_iter()
                .map(reduce)
                .reduce(|acc, p| ir::Expr {
                    kind: if name.name == "all" {
                        ExprKind::LogicalAnd(Box::new(acc), Box::new(p))
                    } else {
                        ExprKind::LogicalOr(Box::new(acc), Box::new(p))
                    },
                    ty: Type::Scalar(ScalarType::Bool),
                    span,
                })
                .expect("a wide mask has parts");
            return Ok(sequence(stmts, value));
        }
        // The selected values: a wide vector of N lanes, or a scalar broadcast to the type of
        // the other (two scalars: a wide vector of the first's type).
        let a = self.expr(&args[0].value, None)?;
        let b = self.expr(&args[1].value, Some(&a.ty))?;
        let target = match (&a.ty, &b.ty) {
            (Type::Wide(s, k), _) | (_, Type::Wide(s, k)) if *k == n => Type::Wide(*s, n),
            (Type::Scalar(s), Type::Scalar(_)) if wide_lane_ok(*s) => Type::Wide(*s, n),
            (other, _) => {
                let other = other.clone();
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        args[0].value.span,
                        format!("`{ty}.select` takes two Vector<T, {n}> values or scalars, found {other}"),
                    )
                    .with_note(format!("help: select between Vector<T, {n}> values of one type, e.g. `m.select(a, b)`")),
                );
            }
        };
        let Type::Wide(lane, _) = target else {
            unreachable!("a wide select target")
        };
        let a = self.as_wide(a, &target)?;
        let b = self.as_wide(b, &target)?;
        let operands = self.ordered_parts(vec![m, a, b], &mut stmts)?;
        let parts = (0..operands[0].len())
            .map(|k| ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::Vector(VecFn::Select),
                    args: operands.iter().map(|o| o[k].clone()).collect(),
                },
                ty: vec4(lane),
                span,
            })
            .collect();
        Ok(sequence(stmts, wide_value(parts, lane, span)))
    }

    /// `c ? a : b` of wide vectors: fresh part temporaries stored in an `if` on `c`, each
    /// branch running its arm (and only it, as Java evaluates one arm).
    pub(super) fn wide_conditional(
        &mut self,
        c: ir::Expr,
        a: ir::Expr,
        b: ir::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Wide(lane, n) = a.ty else {
            unreachable!("wide_conditional of another type")
        };
        let temps: Vec<_> = (0..n / 4).map(|_| self.temp(vec4(lane), span)).collect();
        let arm = |this: &mut Self, v: ir::Expr| -> R<Vec<ir::Stmt>> {
            let (mut stmts, parts) = this.wide_parts(v)?;
            for (t, p) in temps.iter().zip(parts) {
                stmts.push(ir::Stmt::Store {
                    place: ir::Place::Local(*t),
                    value: p,
                    span,
                });
            }
            Ok(stmts)
        };
        let then = arm(self, a)?;
        let otherwise = arm(self, b)?;
        let choose = ir::Stmt::If {
            cond: c,
            then,
            otherwise,
        };
        let loads = temps
            .iter()
            .map(|t| ir::Expr {
                kind: ExprKind::Load(ir::Place::Local(*t)),
                ty: vec4(lane),
                span,
            })
            .collect();
        Ok(sequence(vec![choose], wide_value(loads, lane, span)))
    }
}
