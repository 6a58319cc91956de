//! Unary, binary and conditional operators and casts, with the operand typing of SPEC §4.

use super::body::{FnCtx, R};
use super::conversions::{is_castable, is_implicit, operand_type};
use super::expr::*;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, HostOp, ScalarType, Type, UnaryOp};
use crate::syntax::ast::{self, BinOp, UnOp};

impl<'s, 'a> FnCtx<'s, 'a> {
    pub(super) fn unary(
        &mut self,
        op: UnOp,
        inner: &ast::Expr,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        match op {
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let (stmts, value) = self.increment(op, inner, span, true)?;
                let ty = value.ty.clone();
                Ok(ir::Expr {
                    kind: ExprKind::Sequence(stmts, Box::new(value)),
                    ty,
                    span,
                })
            }
            UnOp::Plus => {
                let v = self.expr(inner, hint)?;
                match v.ty {
                    Type::Scalar(s) if s.is_numeric() => Ok(v),
                    _ => self.bad_unary("+", &v, span),
                }
            }
            UnOp::Neg => {
                let v = self.expr(inner, hint)?;
                match v.ty {
                    Type::Wide(..) => self.wide_neg(v, span),
                    Type::Scalar(s) | Type::Vector(s, _) | Type::Quaternion(s)
                        if s.is_numeric() =>
                    {
                        let ty = v.ty.clone();
                        Ok(ir::Expr {
                            kind: ExprKind::Unary(UnaryOp::Neg, Box::new(v)),
                            ty,
                            span,
                        })
                    }
                    _ => self.bad_unary("-", &v, span),
                }
            }
            UnOp::Not => {
                let v = self.expr(inner, Some(&scalar(ScalarType::Bool)))?;
                match v.ty {
                    Type::Scalar(ScalarType::Bool) | Type::Vector(ScalarType::Bool, _) => {
                        let ty = v.ty.clone();
                        Ok(ir::Expr {
                            kind: ExprKind::Unary(UnaryOp::Not, Box::new(v)),
                            ty,
                            span,
                        })
                    }
                    _ => self.bad_unary("!", &v, span),
                }
            }
            UnOp::BitNot => {
                let v = self.expr(inner, hint)?;
                match v.ty {
                    Type::Scalar(s) if s.is_integer() => {
                        let ty = v.ty.clone();
                        Ok(ir::Expr {
                            kind: ExprKind::Unary(UnaryOp::BitNot, Box::new(v)),
                            ty,
                            span,
                        })
                    }
                    _ => self.bad_unary("~", &v, span),
                }
            }
        }
    }

    pub(super) fn bad_unary<T>(&mut self, op: &str, v: &ir::Expr, span: Span) -> R<T> {
        let t = v.ty.clone();
        self.error(Diagnostic::error(
            Code::InvalidOperator,
            span,
            format!("operator `{op}` cannot be applied to {t}"),
        ))
    }

    /// Checks both operands, typing a context literal from the other side.
    pub fn operands(
        &mut self,
        l: &ast::Expr,
        r: &ast::Expr,
        hint: Option<&Type>,
    ) -> R<(ir::Expr, ir::Expr)> {
        match (is_context_literal(l), is_context_literal(r)) {
            (true, false) => {
                let rv = self.expr(r, hint);
                let lv = self.expr(l, rv.as_ref().ok().map(|v| &v.ty).or(hint));
                Ok((lv?, rv?))
            }
            (false, true) => {
                let lv = self.expr(l, hint);
                let rv = self.expr(r, lv.as_ref().ok().map(|v| &v.ty).or(hint));
                Ok((lv?, rv?))
            }
            _ => {
                let lv = self.expr(l, hint);
                let rv = self.expr(r, hint);
                Ok((lv?, rv?))
            }
        }
    }

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        l: &ast::Expr,
        r: &ast::Expr,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let is_cmp = matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        );
        let operand_hint = if is_cmp || matches!(op, BinOp::And | BinOp::Or) {
            None
        } else {
            hint
        };
        if matches!(op, BinOp::Shl | BinOp::Shr | BinOp::UShr) {
            let lv = self.expr(l, operand_hint);
            let rv = self.expr(r, None);
            let (lv, rv) = (lv?, rv?);
            if let Type::Bytes16(_) = lv.ty {
                return self.bytes16_binary(ir_binop(op), lv, rv, span);
            }
            return match (&lv.ty, &rv.ty) {
                (Type::Scalar(a), Type::Scalar(b)) if a.is_integer() && b.is_integer() => {
                    let ty = lv.ty.clone();
                    Ok(ir::Expr {
                        kind: ExprKind::Binary(ir_binop(op), Box::new(lv), Box::new(rv)),
                        ty,
                        span,
                    })
                }
                _ => self.bad_binary(op, &lv, &rv, span),
            };
        }
        let (lv, rv) = self.operands(l, r, operand_hint)?;
        if op == BinOp::Add && (lv.ty == Type::String || rv.ty == Type::String) {
            if self.is_device() {
                return self.error(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    span,
                    "strings are host-only",
                ));
            }
            let lv = self.wide_as_text(lv)?;
            let rv = self.wide_as_text(rv)?;
            let (lv, rv) = (self.optional_as_text(lv), self.optional_as_text(rv));
            return Ok(ir::Expr {
                kind: ExprKind::Host {
                    op: HostOp::Concat,
                    args: vec![lv, rv],
                },
                ty: Type::String,
                span,
            });
        }
        // `==` / `!=` on two strings compare their text, as a reader of host code expects
        // (`args[1] == "full"`); the host evaluator's `Value::same` does exactly that.
        if matches!(op, BinOp::Eq | BinOp::Ne) && lv.ty == Type::String && rv.ty == Type::String {
            if self.is_device() {
                return self.error(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    span,
                    "strings are host-only",
                ));
            }
            return Ok(ir::Expr {
                kind: ExprKind::Binary(ir_binop(op), Box::new(lv), Box::new(rv)),
                ty: scalar(ScalarType::Bool),
                span,
            });
        }
        if let (Type::Bytes16(_), BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) = (&lv.ty, op) {
            return self.bytes16_binary(ir_binop(op), lv, rv, span);
        }
        if matches!(lv.ty, Type::Wide(..)) || matches!(rv.ty, Type::Wide(..)) {
            return self.wide_binary(op, lv, rv, span);
        }
        if matches!(lv.ty, Type::Quaternion(_)) || matches!(rv.ty, Type::Quaternion(_)) {
            return self.quaternion_binary(op, lv, rv, span);
        }
        if matches!(lv.ty, Type::Vector(..) | Type::Matrix(..))
            || matches!(rv.ty, Type::Vector(..) | Type::Matrix(..))
        {
            return self.vector_binary(op, lv, rv, span);
        }
        let (Type::Scalar(a), Type::Scalar(b)) = (&lv.ty, &rv.ty) else {
            return self.bad_binary(op, &lv, &rv, span);
        };
        let Some(common) = operand_type(op, *a, *b) else {
            return self.bad_binary(op, &lv, &rv, span);
        };
        let (lv, rv) = (convert(lv, common), convert(rv, common));
        let result = if is_cmp {
            scalar(ScalarType::Bool)
        } else {
            scalar(common)
        };
        let kind = match op {
            BinOp::And => ExprKind::LogicalAnd(Box::new(lv), Box::new(rv)),
            BinOp::Or => ExprKind::LogicalOr(Box::new(lv), Box::new(rv)),
            _ => ExprKind::Binary(ir_binop(op), Box::new(lv), Box::new(rv)),
        };
        Ok(ir::Expr {
            kind,
            ty: result,
            span,
        })
    }

    pub(super) fn bad_binary<T>(
        &mut self,
        op: BinOp,
        l: &ir::Expr,
        r: &ir::Expr,
        span: Span,
    ) -> R<T> {
        let (a, b) = (l.ty.clone(), r.ty.clone());
        let mut d = Diagnostic::error(
            Code::InvalidOperator,
            span,
            format!(
                "operator `{}` cannot be applied to {a} and {b}",
                op.symbol()
            ),
        );
        if matches!(op, BinOp::And | BinOp::Or) {
            d = d.with_note("`&&` and `||` take boolean operands");
        }
        self.error(d)
    }

    pub(super) fn conditional(
        &mut self,
        c: &ast::Expr,
        a: &ast::Expr,
        b: &ast::Expr,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let cv = self.expr(c, Some(&scalar(ScalarType::Bool)));
        let arms = self.operands(a, b, hint);
        let (cv, (av, bv)) = (cv?, arms?);
        if cv.ty != scalar(ScalarType::Bool) {
            let t = cv.ty.clone();
            let mut d = Diagnostic::error(
                Code::TypeMismatch,
                c.span,
                format!("condition must be boolean, found {t}"),
            );
            if let Type::Vector(ScalarType::Bool, _) | Type::Wide(ScalarType::Bool, _) = t {
                d = d.with_note(
                    "help: pick lane by lane with `m.select(a, b)`, or test `m.all()` / `m.any()`",
                );
            }
            return self.error(d);
        }
        let ty = if av.ty == bv.ty {
            av.ty.clone()
        } else {
            match (&av.ty, &bv.ty) {
                (Type::Scalar(x), Type::Scalar(y)) if is_implicit(*x, *y) => bv.ty.clone(),
                (Type::Scalar(x), Type::Scalar(y)) if is_implicit(*y, *x) => av.ty.clone(),
                _ => {
                    let (x, y) = (av.ty.clone(), bv.ty.clone());
                    return self.error(
                        Diagnostic::error(
                            Code::TypeMismatch,
                            span,
                            format!("the arms of `?:` have different types: {x} and {y}"),
                        )
                        .with_note("help: cast one arm to the other's type"),
                    );
                }
            }
        };
        let av = self.coerce(av, &ty, a.span)?;
        let bv = self.coerce(bv, &ty, b.span)?;
        if let Type::Wide(..) = ty {
            return self.wide_conditional(cv, av, bv, span);
        }
        Ok(ir::Expr {
            kind: ExprKind::Select {
                cond: Box::new(cv),
                then: Box::new(av),
                otherwise: Box::new(bv),
            },
            ty,
            span,
        })
    }

    pub(super) fn cast(&mut self, t: &ast::TypeExpr, inner: &ast::Expr, span: Span) -> R<ir::Expr> {
        let target = match super::type_names::resolve_type(t, &self.syms.pods) {
            Ok(t) => t,
            Err(d) => return self.error(d),
        };
        let v = self.expr(inner, Some(&target))?;
        match (&v.ty, &target) {
            (a, b) if a == b => Ok(v),
            (Type::Scalar(a), Type::Scalar(b)) if is_castable(*a, *b) => {
                let b = *b;
                Ok(ir::Expr {
                    span,
                    ..convert(v, b)
                })
            }
            (a, b) => {
                let (a, b) = (a.clone(), b.clone());
                self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("cannot cast {a} to {b}"),
                ))
            }
        }
    }
}
