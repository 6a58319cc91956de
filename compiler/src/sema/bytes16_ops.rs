//! Bitwise operators on Cajeta's 16-lane byte vectors (`Vector<int8, 16>`, held as four
//! words, sema/bytes16.rs): `q & m`, `q | m`, `q ^ m` with another byte vector of the type or
//! an integer (every lane), and shifts by a constant `q >> c`, `q >>> c`, `q << c`. Cajeta's
//! nibble lookups are written `(q & 15).lut4(kv)` and `((q >> 4) & 15).lut4(kv)`.
//!
//! Each lane gets Java's value for its byte: the lane promoted to `int`, the operation, then
//! narrowed back to 8 bits. `&`, `|` and `^` never carry between bytes, so they act on the
//! words directly; a shift moves bits across byte boundaries, so the word shift is followed by
//! a mask of each byte (and, for `>>` on `int8` lanes, each byte's sign copied into the bits
//! it vacated).

use super::body::{FnCtx, R};
use super::bytes16::{bin, int, sequence, word_of};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, ExprKind, ScalarType, Type};

/// `b` in each byte of a word: `b * 0x01010101` for a byte `b`.
fn repeated(b: u64) -> u64 {
    (b & 0xFF) * 0x0101_0101
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `l op r` with `l` a 16-lane byte vector; `op` is a bitwise or shift operator.
    pub(super) fn bytes16_binary(
        &mut self,
        op: BinaryOp,
        l: ir::Expr,
        r: ir::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        let ty = l.ty.clone();
        let Type::Bytes16(lane) = ty else {
            unreachable!("bytes16_binary of another type")
        };
        let word = word_of(lane);
        let words = Type::Vector(word, 4);
        match op {
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
                let mut stmts = Vec::new();
                let rhs = match &r.ty {
                    t if *t == ty => ir::Expr {
                        ty: words.clone(),
                        ..r
                    },
                    Type::Scalar(s) if s.is_integer() => {
                        // Every lane: the low byte of the value (what Java's narrowing keeps),
                        // repeated into each byte of each word.
                        let low = convert(r, word, span);
                        let byte = bin(BinaryOp::BitAnd, low, int(0xFF, word, span), span);
                        let w = bin(BinaryOp::Mul, byte, int(repeated(1), word, span), span);
                        let w = self.bind_value(&mut stmts, w);
                        ir::Expr {
                            kind: ExprKind::Construct(vec![w.clone(), w.clone(), w.clone(), w]),
                            ty: words.clone(),
                            span,
                        }
                    }
                    _ => return self.bad_bytes16(op, &ty, &r.ty, span),
                };
                let lhs = ir::Expr {
                    ty: words.clone(),
                    ..l
                };
                let value = ir::Expr {
                    kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                    ty: words,
                    span,
                };
                Ok(retype(sequence(stmts, value), ty))
            }
            BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UShr => {
                let count = match super::memory::const_int(&r) {
                    Some(c) if r.ty.as_scalar().is_some_and(|s| s.is_integer()) => c,
                    _ => {
                        return self.error(
                            Diagnostic::error(
                                Code::InvalidOperator,
                                r.span,
                                format!("a shift of a `{ty}` needs a constant count"),
                            )
                            .with_note("help: write the count as a constant (`q >> 4`), or shift each word (`q.asWords().x >> n`) and mask its bytes"),
                        )
                    }
                };
                // Java masks an `int` shift count to 0..31; past 7 every bit has left the
                // byte (or, for `>>` of a signed lane, only its sign remains).
                let c = (count & 31) as u64;
                let mut stmts = Vec::new();
                let w = self.bind_value(
                    &mut stmts,
                    ir::Expr {
                        ty: words.clone(),
                        ..l
                    },
                );
                let signed = lane == ScalarType::I8 && op != BinaryOp::Shl;
                // `>>>` of a sign-extended byte keeps the same low 8 bits as `>>` for counts
                // below 25, and Java narrows back to the byte.
                let arithmetic = signed && (op == BinaryOp::Shr || c < 25);
                // Per word (the backends shift scalars): a shift of the whole word, then a
                // mask keeping in each byte only the bits that came from that byte. The
                // word's own `>>` is arithmetic for `int32`; the mask drops what it brings in.
                let per_word = |wk: ir::Expr| -> ir::Expr {
                    let k = |v: u64| int(v, word, span);
                    if op == BinaryOp::Shl {
                        if c >= 8 {
                            return k(0);
                        }
                        let moved = bin(BinaryOp::Shl, wk, k(c), span);
                        return bin(BinaryOp::BitAnd, moved, k(repeated(0xFF << c)), span);
                    }
                    let c = if arithmetic { c.min(7) } else { c.min(8) };
                    if c >= 8 {
                        return k(0);
                    }
                    let moved = bin(BinaryOp::Shr, wk.clone(), k(c), span);
                    let logical = bin(BinaryOp::BitAnd, moved, k(repeated(0xFF >> c)), span);
                    if !arithmetic || c == 0 {
                        return logical;
                    }
                    // Each byte's sign bit, as 0 or 1 in its lowest bit, times the bits the
                    // shift vacated (at most 0xFF: no carry into the next byte).
                    let sign = bin(BinaryOp::Shr, wk, k(7), span);
                    let sign = bin(BinaryOp::BitAnd, sign, k(repeated(1)), span);
                    let fill = bin(BinaryOp::Mul, sign, k((0xFF << (8 - c)) & 0xFF), span);
                    bin(BinaryOp::BitOr, logical, fill, span)
                };
                let value = ir::Expr {
                    kind: ExprKind::Construct(
                        (0..4u8)
                            .map(|k| {
                                per_word(ir::Expr {
                                    kind: ExprKind::Swizzle(Box::new(w.clone()), vec![k]),
                                    ty: Type::Scalar(word),
                                    span,
                                })
                            })
                            .collect(),
                    ),
                    ty: words,
                    span,
                };
                Ok(retype(sequence(stmts, value), ty))
            }
            _ => self.bad_bytes16(op, &ty, &r.ty, span),
        }
    }

    fn bad_bytes16<T>(&mut self, op: BinaryOp, l: &Type, r: &Type, span: Span) -> R<T> {
        self.error(
            Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!("operator `{}` cannot be applied to {l} and {r}", symbol(op)),
            )
            .with_note("a 16-lane byte vector takes `&`, `|`, `^` (with one of its type or an integer) and shifts by a constant; for other arithmetic work on `asWords()`"),
        )
    }
}

fn symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::UShr => ">>>",
        _ => "this",
    }
}

fn convert(v: ir::Expr, to: ScalarType, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Convert(Box::new(v)),
        ty: Type::Scalar(to),
        span,
    }
}

/// The byte-vector type back on an expression computed on its words.
fn retype(e: ir::Expr, ty: Type) -> ir::Expr {
    match e.kind {
        ExprKind::Sequence(stmts, value) => ir::Expr {
            kind: ExprKind::Sequence(stmts, Box::new(retype(*value, ty.clone()))),
            ty,
            span: e.span,
        },
        kind => ir::Expr {
            kind,
            ty,
            span: e.span,
        },
    }
}
