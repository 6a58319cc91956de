//! `float32` → `float16` conversions that a driver cannot fold away: the value is first
//! rounded to the nearest `float16` (ties to even, overflow to infinity, `float16`
//! subnormals kept) with integer operations on its bits, still as a `float32`, and only then
//! converted by `OpFConvert`, which is then exact.
//!
//! NVIDIA's 580 driver folds an `OpFConvert` to `float16` followed by one back to `float32`
//! into nothing when the narrow value stays in registers: `v.toF16().toF32()` gave
//! 199142.86 where `float16` holds infinity (measured on an H100,
//! tests/device/cajeta_vector_conversions.cajeta, docs/fuzzing.md). With the rounding done
//! first, such a fold gives the right value too.
//!
//! A conversion whose result goes straight to 16-bit memory (a store to a `float16` buffer
//! or shared array) is a plain `OpFConvert`: memory holds the 16-bit value, so nothing can
//! be folded, and the precision variants' stores stay as cheap as they were. So is one
//! whose operand holds `float16` values by construction ([`crate::kernel::holds_f16_values`]: a value
//! unpacked from packed halves, a widened `float16`): converting it is exact, and a fold of
//! the round trip gives the same value. That keeps the packed 16-bit variants with 16-bit
//! arithmetic (`fp16p+fp16a`: unpack, then narrow to compute) at the cost of one conversion.

use rspirv::spirv::{Op, Word};

use super::function::FnCx;
use super::{BuildExt, Res};
use crate::diagnostics::Span;
use crate::ir::{Expr, ExprKind, ScalarType};

impl FnCx<'_, '_> {
    /// The `float32` `x` (a scalar, or a vector of `lanes` lanes) rounded to the nearest
    /// `float16` value, as a `float32`.
    pub(crate) fn round_to_f16_value(&mut self, x: Word, lanes: u32, span: Span) -> Res<Word> {
        if lanes <= 1 {
            return self.round_scalar_to_f16(x, span);
        }
        let f32t = self.cx.float_type(32);
        let vt = self.cx.vector_type(f32t, lanes);
        let mut parts = Vec::with_capacity(lanes as usize);
        for i in 0..lanes {
            let lane = self.cx.b.composite_extract(f32t, None, x, [i]).ice(span)?;
            parts.push(self.round_scalar_to_f16(lane, span)?);
        }
        self.op(Op::CompositeConstruct, vt, &parts)
    }

    /// One lane of [`Self::round_to_f16_value`], on the bits `b` of `x`:
    /// - NaN stays `x`;
    /// - a magnitude of 65520 (halfway from `float16`'s largest, 65504, to 2^16) or more
    ///   becomes infinity of `x`'s sign;
    /// - a normal `float16` magnitude (2^-14 or more) drops 13 mantissa bits, rounding to
    ///   nearest even (a carry into the exponent is the right next value);
    /// - a smaller one becomes a multiple of 2^-24 (`float16`'s subnormal step): its
    ///   significand shifted right with the same rounding, scaled back by 2^-24 (exact).
    fn round_scalar_to_f16(&mut self, x: Word, span: Span) -> Res<Word> {
        let f32t = self.cx.float_type(32);
        let u32t = self.cx.u32_type();
        let bt = self.cx.bool_type();
        let c = |s: &mut Self, v: u32| s.cx.const_u32(v);
        let b = self.op(Op::Bitcast, u32t, &[x])?;
        let k_sign = c(self, 0x8000_0000);
        let k_abs = c(self, 0x7FFF_FFFF);
        let sign = self.op(Op::BitwiseAnd, u32t, &[b, k_sign])?;
        let a = self.op(Op::BitwiseAnd, u32t, &[b, k_abs])?;
        // Normal range: add 0xFFF plus the lowest kept bit, clear the 13 dropped bits.
        let k13 = c(self, 13);
        let k1 = c(self, 1);
        let kept = self.op(Op::ShiftRightLogical, u32t, &[a, k13])?;
        let lsb = self.op(Op::BitwiseAnd, u32t, &[kept, k1])?;
        let k_fff = c(self, 0xFFF);
        let bias = self.op(Op::IAdd, u32t, &[k_fff, lsb])?;
        let up = self.op(Op::IAdd, u32t, &[a, bias])?;
        let k_mask = c(self, !0x1FFF);
        let normal = self.op(Op::BitwiseAnd, u32t, &[up, k_mask])?;
        // Below 2^-14: q = significand >> s with s = 126 - exponent (at most 25, where
        // every such significand rounds to 0), rounded to nearest even by the remainder.
        let k23 = c(self, 23);
        let k126 = c(self, 126);
        let k25 = c(self, 25);
        let k_frac = c(self, 0x7F_FFFF);
        let k_hidden = c(self, 0x80_0000);
        let exp = self.op(Op::ShiftRightLogical, u32t, &[a, k23])?;
        let frac = self.op(Op::BitwiseAnd, u32t, &[a, k_frac])?;
        let sig = self.op(Op::BitwiseOr, u32t, &[frac, k_hidden])?;
        // `exp` is at most 112 here (the value is below 2^-14); the subtraction is only
        // used under that condition, and `UMin` keeps the shift in range regardless.
        let s_raw = self.op(Op::ISub, u32t, &[k126, exp])?;
        let s_big = self.op(Op::UGreaterThan, bt, &[s_raw, k25])?;
        let s = self.op(Op::Select, u32t, &[s_big, k25, s_raw])?;
        let q = self.op(Op::ShiftRightLogical, u32t, &[sig, s])?;
        let one_s = self.op(Op::ShiftLeftLogical, u32t, &[k1, s])?;
        let rem_mask = self.op(Op::ISub, u32t, &[one_s, k1])?;
        let rem = self.op(Op::BitwiseAnd, u32t, &[sig, rem_mask])?;
        let half = self.op(Op::ShiftRightLogical, u32t, &[one_s, k1])?;
        let q_odd = self.op(Op::BitwiseAnd, u32t, &[q, k1])?;
        // Round up when rem > half, or rem == half and q is odd: rem + (q & 1) > half.
        let rem_odd = self.op(Op::IAdd, u32t, &[rem, q_odd])?;
        let round_up = self.op(Op::UGreaterThan, bt, &[rem_odd, half])?;
        let k0 = c(self, 0);
        let inc = self.op(Op::Select, u32t, &[round_up, k1, k0])?;
        let steps = self.op(Op::IAdd, u32t, &[q, inc])?;
        let steps_f = self.op(Op::ConvertUToF, f32t, &[steps])?;
        let step = self.cx.const_float(ScalarType::F32, 2f64.powi(-24), span)?;
        let tiny_f = self.op(Op::FMul, f32t, &[steps_f, step])?;
        let tiny = self.op(Op::Bitcast, u32t, &[tiny_f])?;
        // Choose by magnitude: subnormal, normal, overflow (infinity); NaN keeps `x`.
        let k_min_normal = c(self, 0x3880_0000);
        let k_overflow = c(self, 0x477F_F000);
        let k_inf = c(self, 0x7F80_0000);
        let is_tiny = self.op(Op::ULessThan, bt, &[a, k_min_normal])?;
        let is_big = self.op(Op::UGreaterThanEqual, bt, &[a, k_overflow])?;
        let is_nan = self.op(Op::UGreaterThan, bt, &[a, k_inf])?;
        let finite = self.op(Op::Select, u32t, &[is_tiny, tiny, normal])?;
        let magnitude = self.op(Op::Select, u32t, &[is_big, k_inf, finite])?;
        let signed = self.op(Op::BitwiseOr, u32t, &[magnitude, sign])?;
        let bits = self.op(Op::Select, u32t, &[is_nan, b, signed])?;
        self.op(Op::Bitcast, f32t, &[bits])
    }

    /// `value`, a `Convert` of `float32` to `float16` (scalar or vector), as one plain
    /// `OpFConvert` of its operand: for a value stored straight to 16-bit memory, or one whose
    /// operand [`crate::kernel::holds_f16_values`]. `None` for any other expression.
    pub(crate) fn plain_f16_narrowing(&mut self, value: &Expr) -> Option<Res<Word>> {
        let ExprKind::Convert(a) = &value.kind else {
            return None;
        };
        let (from, to) = (a.ty.vector_shape(), value.ty.vector_shape());
        let (Some((ScalarType::F32, n)), Some((ScalarType::F16, m))) = (from, to) else {
            return None;
        };
        debug_assert_eq!(n, m);
        Some((|| {
            let v = self.expr(a)?;
            let ty = self.cx.ir_value_type(&value.ty, value.span)?;
            self.op(Op::FConvert, ty, &[v])
        })())
    }

    /// `x` of float type `from` converted to `float16` (`lanes` lanes) so that the value is
    /// exact in registers (see the module's notes); other sources convert directly.
    pub(crate) fn narrow_to_f16(
        &mut self,
        x: Word,
        from: ScalarType,
        ty: Word,
        lanes: u32,
        span: Span,
    ) -> Res<Word> {
        let x = match from {
            ScalarType::F32 => self.round_to_f16_value(x, lanes, span)?,
            _ => x,
        };
        self.op(Op::FConvert, ty, &[x])
    }
}
