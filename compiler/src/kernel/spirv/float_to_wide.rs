//! Float to 64-bit integer conversions built from two 32-bit ones, so that no module holds
//! an `OpConvertFToU`/`OpConvertFToS` with a 64-bit result.
//!
//! NVIDIA's 580 driver folds a 64-bit conversion whose result is only partly used (its low
//! 32 bits: `(uint32) ((uint64) f)`, `v &= (uint64) f` on a `uint32` `v`, a shift count taken
//! from it) into a 32-bit conversion that saturates, so `(uint32) ((uint64) 7.3e10f)` became
//! `0xFFFFFFFF` where the low word of the exact value is meant (measured on an H100, the
//! campaign's seed 62 program 222 and 30 others; docs/fuzzing.md). Computing the high and
//! low words separately leaves nothing for such a fold to shorten.

use super::function::FnCx;
use super::Res;
use crate::diagnostics::Span;
use crate::ir::ScalarType;
use rspirv::spirv::{GlslStd450Op as G, Op, Word};

impl FnCx<'_, '_> {
    /// The clamped float `c` (no NaN; within the 64-bit `to`'s range, which the caller has
    /// made sure of) converted to `to`, truncating toward zero: the magnitude's high word is
    /// `floor(|c| / 2^32)` and its low word `|c| - high * 2^32`, both exact in the float type
    /// and below 2^32, converted by two 32-bit `OpConvertFToU`s and joined by a bitcast; a
    /// negative value is negated in 64 bits after.
    pub(crate) fn float_to_64_in_halves(
        &mut self,
        c: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        let signed = to.is_signed_integer();
        let ty = self.cx.value_type(to, span)?;
        let u32t = self.cx.u32_type();
        if from.bits() < 32 {
            // Every finite float16 fits in 32 bits (2^32 is not a float16, so no halves).
            let (w, opcode) = match signed {
                true => (ScalarType::I32, Op::ConvertFToS),
                false => (ScalarType::U32, Op::ConvertFToU),
            };
            let wt = self.cx.value_type(w, span)?;
            let r = self.op(opcode, wt, &[c])?;
            return self.convert_int(r, w, to, span);
        }
        let fty = self.cx.value_type(from, span)?;
        let m = match signed {
            true => self.glsl_op(G::FAbs, fty, &[c], span)?,
            false => c,
        };
        let inv = self.cx.const_float(from, 2f64.powi(-32), span)?;
        let word = self.cx.const_float(from, 2f64.powi(32), span)?;
        let scaled = self.op(Op::FMul, fty, &[m, inv])?;
        let hi_f = self.glsl_op(G::Floor, fty, &[scaled], span)?;
        let hi_back = self.op(Op::FMul, fty, &[hi_f, word])?;
        let lo_f = self.op(Op::FSub, fty, &[m, hi_back])?;
        let hi = self.op(Op::ConvertFToU, u32t, &[hi_f])?;
        let lo = self.op(Op::ConvertFToU, u32t, &[lo_f])?;
        let pair_ty = self.cx.vector_type(u32t, 2);
        let pair = self.op(Op::CompositeConstruct, pair_ty, &[lo, hi])?;
        let magnitude = self.op(Op::Bitcast, ty, &[pair])?;
        if !signed {
            return Ok(magnitude);
        }
        let negated = self.op(Op::SNegate, ty, &[magnitude])?;
        let zero = self.cx.const_float(from, 0.0, span)?;
        let bool_ty = self.cx.bool_type();
        let negative = self.op(Op::FOrdLessThan, bool_ty, &[c, zero])?;
        self.op(Op::Select, ty, &[negative, negated, magnitude])
    }
}
