//! Numeric literals typed from context (SPEC §3): an unsuffixed literal takes the type the
//! surrounding expression asks for, when it fits. An expression made only of literals is
//! typed and computed on its own, and its constant value then takes the context's type the
//! same way.

use super::body::{FnCtx, R};
use super::expr::*;
use super::literals::{fit_int, parse_float, parse_int};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::const_fold::round_to_float;
use crate::ir::const_fold::{convert_constant, fold_node, int_value, FloatArith};
use crate::ir::{self, Constant, ExprKind, ScalarType, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    pub(super) fn int_literal(
        &mut self,
        text: &str,
        negative: bool,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let lane_hint = hint.and_then(lane_of).map(Type::Scalar);
        let hint = lane_hint.as_ref().or(hint);
        let lit = match parse_int(text) {
            Ok(l) => l,
            Err(msg) => {
                let code = if msg.contains("too large") {
                    Code::LiteralOutOfRange
                } else {
                    Code::InvalidLiteral
                };
                return self.error(Diagnostic::error(code, span, msg));
            }
        };
        let hinted = match hint {
            Some(Type::Scalar(s)) if lit.suffix.is_none() => Some(*s),
            _ => None,
        };
        if let Some(t) = hinted {
            if t.is_float() {
                let v = lit.value as f64 * if negative { -1.0 } else { 1.0 };
                return Ok(ir::Expr::constant(
                    Constant::Float(round_to_float(t, v)),
                    scalar(t),
                    span,
                ));
            }
            if let Some(bits) = fit_int(&lit, negative, t) {
                return Ok(ir::Expr::constant(Constant::Int(bits), scalar(t), span));
            }
        }
        let suffixed;
        let order: &[ScalarType] = match lit.suffix {
            Some(t) => {
                suffixed = [t];
                &suffixed
            }
            None => &[ScalarType::I32, ScalarType::I64],
        };
        for t in order {
            if let Some(bits) = fit_int(&lit, negative, *t) {
                return Ok(ir::Expr::constant(Constant::Int(bits), scalar(*t), span));
            }
        }
        let sign = if negative { "-" } else { "" };
        let note = match lit.suffix {
            Some(ScalarType::U32) => {
                "a `u` literal is uint32: 0 to 4294967295 (not negative); `uL` makes it uint64"
            }
            Some(ScalarType::U64) => "a `uL` literal is uint64: 0 to 18446744073709551615 (not negative)",
            _ => "int64 holds -9223372036854775808 to 9223372036854775807; uint64 up to 18446744073709551615",
        };
        self.error(
            Diagnostic::error(
                Code::LiteralOutOfRange,
                span,
                format!("integer literal {sign}{text} is out of range"),
            )
            .with_label(format!(
                "does not fit in {}",
                order.last().copied().unwrap_or(ScalarType::I64)
            ))
            .with_note(note),
        )
    }

    pub(super) fn float_literal(
        &mut self,
        text: &str,
        negative: bool,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let lane_hint = hint.and_then(lane_of).map(Type::Scalar);
        let hint = lane_hint.as_ref().or(hint);
        let (v, suffix) = match parse_float(text) {
            Ok(x) => x,
            Err(msg) => return self.error(Diagnostic::error(Code::InvalidLiteral, span, msg)),
        };
        let v = if negative { -v } else { v };
        let ty = match (suffix, hint) {
            (Some(s), _) => s,
            (None, Some(Type::Scalar(s))) if s.is_float() => *s,
            _ => ScalarType::F64,
        };
        let rounded = round_to_float(ty, v);
        if rounded.is_infinite() && v.is_finite() {
            return self.error(
                Diagnostic::error(
                    Code::LiteralOutOfRange,
                    span,
                    format!("float literal {text} overflows {ty}"),
                )
                .with_label("rounds to infinity"),
            );
        }
        Ok(ir::Expr::constant(
            Constant::Float(rounded),
            scalar(ty),
            span,
        ))
    }

    /// An operator expression made only of literals (`7 / 2`, `~7`, `-1 - 5`): checked
    /// without the context's type (so `(float32) (7 / 2)` is int32 division, 3.0), folded,
    /// and its constant then typed like a literal: the context's type where the value fits
    /// (`uint32 u = 2 + 3;`, `x * (1.0 / 3.0)` with float32 `x`), else its own type, to
    /// which the context's conversion rules apply (`uint32 u = 0 - 1;` is E0005, a cast
    /// wraps it).
    pub(super) fn literal_compound(&mut self, e: &ast::Expr, hint: Option<&Type>) -> R<ir::Expr> {
        let natural = fold_tree(self.expr_form(e, None)?);
        let (ExprKind::Const(c), Type::Scalar(from)) = (&natural.kind, &natural.ty) else {
            return Ok(natural);
        };
        let lane_hint = hint.and_then(lane_of).map(Type::Scalar);
        let to = match lane_hint.as_ref().or(hint) {
            Some(Type::Scalar(t)) if t != from => *t,
            _ => return Ok(natural),
        };
        Ok(match context_constant(*c, *from, to) {
            Some(c) => ir::Expr::constant(c, scalar(to), natural.span),
            None => natural,
        })
    }
}

/// `c` of type `from` as a literal of type `to` would be: an integer whose value fits, a
/// number rounded to a float type (unless it overflows to infinity).
fn context_constant(c: Constant, from: ScalarType, to: ScalarType) -> Option<Constant> {
    match c {
        Constant::Int(v) if from.is_integer() && to.is_integer() => {
            let value = int_value(v, from);
            // The integer precision families hold 8 or 16 bits in every variant (SPEC §8).
            let bits = super::int_precision::value_bits(to).unwrap_or(to.bits());
            let (min, max) = if to.is_signed_integer() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if (min..=max).contains(&value) {
                convert_constant(c, from, to)
            } else {
                None
            }
        }
        Constant::Int(_) if from.is_integer() && to.is_float() => convert_constant(c, from, to),
        Constant::Float(f) if to.is_float() => {
            let rounded = round_to_float(to, f);
            (rounded.is_finite() || !f.is_finite()).then_some(Constant::Float(rounded))
        }
        _ => None,
    }
}

/// Folds an expression made only of literals bottom-up (it is at most the parser's nesting
/// limit deep). Float arithmetic folds too: such an expression is exact IEEE arithmetic.
fn fold_tree(mut e: ir::Expr) -> ir::Expr {
    match &mut e.kind {
        ExprKind::Unary(_, a) | ExprKind::Convert(a) => {
            **a = fold_tree(std::mem::replace(&mut **a, placeholder()))
        }
        ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
            **a = fold_tree(std::mem::replace(&mut **a, placeholder()));
            **b = fold_tree(std::mem::replace(&mut **b, placeholder()));
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            for x in [cond, then, otherwise] {
                **x = fold_tree(std::mem::replace(&mut **x, placeholder()));
            }
        }
        _ => {}
    }
    fold_node(&e, FloatArith::Fold).unwrap_or(e)
}

fn placeholder() -> ir::Expr {
    ir::Expr::constant(
        Constant::Bool(false),
        scalar(ScalarType::Bool),
        crate::diagnostics::Span::new(0, 0, 0),
    )
}
