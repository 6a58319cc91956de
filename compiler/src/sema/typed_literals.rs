//! Numeric literals typed from context (SPEC §3): an unsuffixed literal takes the type the
//! surrounding expression asks for, when it fits.

use super::body::{FnCtx, R};
use super::expr::*;
use super::literals::{fit_int, parse_float, parse_int, round_to_float};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, Constant, ScalarType, Type};

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
            Some(Type::Scalar(s)) if !lit.long => Some(*s),
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
        let order: &[ScalarType] = if lit.long {
            &[ScalarType::I64]
        } else {
            &[ScalarType::I32, ScalarType::I64]
        };
        for t in order {
            if let Some(bits) = fit_int(&lit, negative, *t) {
                return Ok(ir::Expr::constant(Constant::Int(bits), scalar(*t), span));
            }
        }
        let sign = if negative { "-" } else { "" };
        self.error(
            Diagnostic::error(Code::LiteralOutOfRange, span, format!("integer literal {sign}{text} is out of range"))
                .with_label(format!("does not fit in {}", order.last().copied().unwrap_or(ScalarType::I64)))
                .with_note("int64 holds -9223372036854775808 to 9223372036854775807; uint64 up to 18446744073709551615"),
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
}
