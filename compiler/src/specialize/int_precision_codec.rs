//! Conversions of the integer precision families (see `int_precision`): packing and
//! unpacking word forms, packed lane loads, and lane-by-lane integer vector conversions.

use super::int_precision::IntLower;
use super::precision_codec::{bin, conv, lanes_type, mk};
use crate::diagnostics::Span;
use crate::ir::{
    BinaryOp, BitsFn, Constant, Expr, ExprKind, IntPrecisionFn, Intrinsic, Place, ScalarType, Stmt,
    Type,
};

use ScalarType::{Lint16, Sint16, Sint8, I32};

/// An integer precision operation.
pub(super) fn int_op(f: IntPrecisionFn, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::IntPrecision(f),
            args,
        },
        ty,
        span,
    )
}

/// A constant of the (integer) type of `like`.
pub(super) fn int_like(like: &Expr, v: u64) -> Expr {
    Expr::constant(Constant::Int(v), like.ty.clone(), like.span)
}

/// An `int32` constant.
pub(super) fn i32c(v: i32, span: Span) -> Expr {
    Expr::constant(Constant::Int(u64::from(v as u32)), Type::Scalar(I32), span)
}

/// Bits `offset .. offset + bits` of the `int32` word `w`, sign-extended.
pub(super) fn extract(w: Expr, offset: Expr, bits: u8) -> Expr {
    let span = w.span;
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::Bits(BitsFn::Extract),
            args: vec![w, offset, i32c(i32::from(bits), span)],
        },
        Type::Scalar(I32),
        span,
    )
}

/// Lanes `lanes` of a vector expression.
pub(super) fn swizzle(e: Expr, lanes: Vec<u8>, ty: Type) -> Expr {
    let span = e.span;
    mk(ExprKind::Swizzle(Box::new(e), lanes), ty, span)
}

impl IntLower<'_, '_> {
    /// Lane `index` (`bits` wide) of the packed `int32` buffer `words`, sign-extended.
    pub(super) fn packed_load(
        &mut self,
        bits: u8,
        words: Expr,
        index: Expr,
        pre: &mut Vec<Stmt>,
    ) -> Expr {
        let span = index.span;
        let i = self.b.bind(index, pre);
        let (log_lanes, log_bits) = if bits == 8 { (2, 3) } else { (1, 4) };
        let word = mk(
            ExprKind::Load(Place::Index {
                base: Box::new(words),
                index: Box::new(bin(BinaryOp::Shr, i.clone(), int_like(&i, log_lanes))),
            }),
            Type::Scalar(I32),
            span,
        );
        let lane = bin(
            BinaryOp::BitAnd,
            i.clone(),
            int_like(&i, (1 << log_lanes) - 1),
        );
        let offset = bin(BinaryOp::Shl, lane, int_like(&i, log_bits));
        extract(word, offset, bits)
    }

    /// `Convert(inner) : to` with symbolic types.
    pub(super) fn convert(&mut self, inner: Expr, to: &Type, pre: &mut Vec<Stmt>) -> Expr {
        let from = inner.ty.clone();
        // S → A → S: a copy of the stored bits (or word).
        if let (Some((ts, _)), ExprKind::Convert(x)) = (Type::vector_shape(to), &inner.kind) {
            if matches!(ts, Sint8 | Sint16 | Lint16) && x.ty == *to {
                let x = (**x).clone();
                return self.expr(x, pre);
            }
        }
        let x = self.expr(inner, pre);
        self.convert_lowered(x, &from, to, pre)
    }

    /// Converts the already lowered `x` (of symbolic type `from`) to symbolic `to`.
    pub(super) fn convert_lowered(
        &mut self,
        x: Expr,
        from: &Type,
        to: &Type,
        pre: &mut Vec<Stmt>,
    ) -> Expr {
        let target = self.forms.map_type(to);
        let (Some((fs, fnl)), Some((ts, tn))) = (Type::vector_shape(from), Type::vector_shape(to))
        else {
            return conv(x, &target);
        };
        let (from_word, to_word) = (self.forms.word_form(fs, fnl), self.forms.word_form(ts, tn));
        if from_word && to_word && self.forms.lanes(fs, fnl) == target {
            return x;
        }
        let x = if from_word {
            self.unpack(fs, fnl, x, pre)
        } else {
            x
        };
        if to_word {
            let v = self.conv_lanes(x, I32, pre);
            return self.pack(ts, tn, v, pre);
        }
        let s = target.elem_scalar().unwrap_or(I32);
        if target.lanes() > 1 {
            return self.conv_lanes(x, s, pre);
        }
        conv(x, &target)
    }

    /// `x` with its lanes converted to `s`: integer vectors lane by lane (the backend converts
    /// scalars), everything else with one `Convert`.
    pub(super) fn conv_lanes(&mut self, x: Expr, s: ScalarType, pre: &mut Vec<Stmt>) -> Expr {
        let Some((xs, n)) = Type::vector_shape(&x.ty) else {
            return x;
        };
        if n == 1 || xs == s {
            return conv(x, &lanes_type(s, n));
        }
        let span = x.span;
        let t = self.b.bind(x, pre);
        let parts = (0..n)
            .map(|k| {
                conv(
                    swizzle(t.clone(), vec![k], Type::Scalar(xs)),
                    &Type::Scalar(s),
                )
            })
            .collect();
        mk(ExprKind::Construct(parts), Type::Vector(s, n), span)
    }

    /// A word-form value of `n` lanes of `s` as `Vector<int32, n>`.
    pub(super) fn unpack(&mut self, s: ScalarType, n: u8, w: Expr, pre: &mut Vec<Stmt>) -> Expr {
        let span = w.span;
        if s == Sint8 {
            return int_op(
                IntPrecisionFn::UnpackInt4x8,
                vec![w],
                Type::Vector(I32, 4),
                span,
            );
        }
        let half = |w: Expr| {
            int_op(
                IntPrecisionFn::UnpackInt2x16,
                vec![w],
                Type::Vector(I32, 2),
                span,
            )
        };
        if n == 2 {
            return half(w);
        }
        let t = self.b.bind(w, pre);
        let words = [0, 1].map(|k| half(swizzle(t.clone(), vec![k], Type::Scalar(I32))));
        mk(
            ExprKind::Construct(words.to_vec()),
            Type::Vector(I32, 4),
            span,
        )
    }

    /// `Vector<int32, n>` lanes as the word form of `n` lanes of `s`.
    pub(super) fn pack(&mut self, s: ScalarType, n: u8, v: Expr, pre: &mut Vec<Stmt>) -> Expr {
        let span = v.span;
        if s == Sint8 {
            return int_op(IntPrecisionFn::PackInt4x8, vec![v], Type::Scalar(I32), span);
        }
        let half = |v: Expr| {
            int_op(
                IntPrecisionFn::PackInt2x16,
                vec![v],
                Type::Scalar(I32),
                span,
            )
        };
        if n == 2 {
            return half(v);
        }
        let t = self.b.bind(v, pre);
        let words =
            [[0, 1], [2, 3]].map(|l| half(swizzle(t.clone(), l.to_vec(), Type::Vector(I32, 2))));
        mk(
            ExprKind::Construct(words.to_vec()),
            Type::Vector(I32, 2),
            span,
        )
    }

    /// `Precision.i16st2(buf, i, v)` on packed int16 storage: at an even `i` both lanes are
    /// one whole word, stored plainly; at an odd `i` they straddle two words, each lane
    /// stored with a compare-exchange loop.
    pub(super) fn store_pair(&mut self, buf: Expr, i: Expr, v: Expr, out: &mut Vec<Stmt>) {
        let span = v.span;
        let words = self.expr(buf, out);
        let i = self.expr(i, out);
        let i = self.b.bind(i, out);
        let v = self.expr(v, out);
        let v = self.conv_lanes(v, I32, out);
        let v = self.b.bind(v, out);
        let word = int_op(
            IntPrecisionFn::PackInt2x16,
            vec![v.clone()],
            Type::Scalar(I32),
            span,
        );
        let whole = Stmt::Store {
            place: Place::Index {
                base: Box::new(words.clone()),
                index: Box::new(bin(BinaryOp::Shr, i.clone(), int_like(&i, 1))),
            },
            value: word,
            span,
        };
        let mut halves = Vec::new();
        let next = bin(BinaryOp::Add, i.clone(), int_like(&i, 1));
        let lane = |k: u8| swizzle(v.clone(), vec![k], Type::Scalar(I32));
        self.store_lane(16, words.clone(), i.clone(), lane(0), &mut halves);
        self.store_lane(16, words, next, lane(1), &mut halves);
        let odd = bin(BinaryOp::BitAnd, i.clone(), int_like(&i, 1));
        out.push(Stmt::If {
            cond: bin(BinaryOp::Eq, odd, int_like(&i, 0)),
            then: vec![whole],
            otherwise: halves,
        });
    }
}
