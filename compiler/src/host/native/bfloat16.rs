//! `bfloat16` scalars in registers.
//!
//! A `bfloat16` value is held as the LLVM `float` it is exactly equal to, as the interpreter
//! holds it (`Scalar::BF16(f32)`), not as LLVM's `bfloat`: LLVM lowers `bfloat` conversions
//! to `vcvtneps2bf16` where the CPU has AVX512-BF16, which flushes subnormals, and to a
//! library call elsewhere, so results would depend on the machine. Here every operation
//! that makes a new value rounds explicitly, exactly as `host::interp::ops::round_bf16`:
//!
//! - arithmetic (`+ - * / %`) is computed in `float` and rounded, as the interpreter does;
//!   the rounding from `float` is inline (round to nearest even on the upper 16 bits, NaN
//!   made the canonical `0x7fc0`), which is `round_bf16` for every `float`;
//! - conversions from `float64` and from integers (which the interpreter widens to
//!   `float64` first) call [`cajeta_math_round_bf16`], the interpreter's `round_bf16`
//!   itself, so they round once from the wide value as there;
//! - comparisons, negation and widening need no rounding; a `bfloat16` bit pattern is the
//!   upper half of the `float`'s.
//!
//! Arrays of `bfloat16` hold the same `f32`s (`Array::BF16`), so native code indexes them
//! in place as arrays of `float32`. `Math` functions on `bfloat16` are typed calls of the
//! interpreter's (`intrinsic_calls.rs`); vectors, matrices and PODs of `bfloat16` stay
//! objects (`repr.rs`).

use inkwell::values::{BasicValueEnum, FloatValue};
use inkwell::FloatPredicate;

use super::codegen::{b, Codegen, Gen};
use crate::ir::{BitCast, ScalarType};

impl<'ctx> Codegen<'ctx, '_> {
    /// `x` (a `float`) rounded to the nearest `bfloat16` value, still a `float`.
    pub(super) fn round_bf16(&self, x: FloatValue<'ctx>) -> Gen<FloatValue<'ctx>> {
        let bld = &self.builder;
        let i32t = self.ctx.i32_type();
        let bits = b(bld.build_bit_cast(x, i32t, "bits"))?.into_int_value();
        // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit, then drop
        // the low half. A carry into the exponent gives the next binade or infinity, as
        // rounding the value does, subnormals included.
        let kept = b(bld.build_right_shift(bits, i32t.const_int(16, false), false, ""))?;
        let odd = b(bld.build_and(kept, i32t.const_int(1, false), ""))?;
        let bias = b(bld.build_int_add(odd, i32t.const_int(0x7fff, false), ""))?;
        let sum = b(bld.build_int_add(bits, bias, ""))?;
        let rounded = b(bld.build_and(sum, i32t.const_int(0xffff_0000, false), ""))?;
        let nan = b(bld.build_float_compare(FloatPredicate::UNO, x, x, "nan"))?;
        let canonical = i32t.const_int(0x7fc0_0000, false);
        let out = b(bld.build_select(nan, canonical, rounded, ""))?;
        Ok(b(bld.build_bit_cast(out, self.ctx.f32_type(), "bf16"))?.into_float_value())
    }

    /// Converts `x` of type `from` to `to` where either is `bfloat16` (SPEC §3, as
    /// `host::interp::ops::convert`); `None` when neither is.
    pub(super) fn convert_bf16(
        &self,
        x: BasicValueEnum<'ctx>,
        from: ScalarType,
        to: ScalarType,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let bf16 = ScalarType::BF16;
        if from != bf16 && to != bf16 {
            return Ok(None);
        }
        let bld = &self.builder;
        let f32t = self.ctx.f32_type();
        if from == bf16 {
            // The value is exactly a `float`: convert that.
            return self.convert(x, ScalarType::F32, to).map(Some);
        }
        let v = match from {
            ScalarType::F32 => x.into_float_value(),
            // Exact in `float`, so one rounding either way.
            ScalarType::F16 => b(bld.build_float_ext(x.into_float_value(), f32t, ""))?,
            _ => {
                // From `float64` or an integer (widened to `float64` as the interpreter
                // does): the interpreter's own rounding.
                let wide = self.convert(x, from, ScalarType::F64)?;
                let call = b(bld.build_call(
                    self.rt["cajeta_math_round_bf16"],
                    &[wide.into_float_value().into()],
                    "bf16",
                ))?;
                return Ok(Some(
                    call.try_as_basic_value()
                        .basic()
                        .ok_or("internal error: round_bf16")?,
                ));
            }
        };
        Ok(Some(self.round_bf16(v)?.into()))
    }

    /// A bit cast from or to `bfloat16` (`BFloat16.bfloat16ToRawShortBits`,
    /// `…ToShortBits`, `…FromShortBits`): the upper half of the `float`; `None` for other
    /// types. `ty` is the result type, `x` the operand.
    pub(super) fn bit_cast_bf16(
        &self,
        c: BitCast,
        ty: ScalarType,
        x: BasicValueEnum<'ctx>,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let bld = &self.builder;
        let (i16t, i32t) = (self.ctx.i16_type(), self.ctx.i32_type());
        if c == BitCast::ToFloat(ScalarType::BF16) {
            let wide = b(bld.build_int_z_extend(x.into_int_value(), i32t, ""))?;
            let bits = b(bld.build_left_shift(wide, i32t.const_int(16, false), ""))?;
            return Ok(Some(b(bld.build_bit_cast(bits, self.ctx.f32_type(), ""))?));
        }
        // A `float` operand with a 16-bit result is a `bfloat16` (a `float16` is `half`).
        let BasicValueEnum::FloatValue(f) = x else {
            return Ok(None);
        };
        if f.get_type().get_bit_width() != 32 || ty.bits() != 16 {
            return Ok(None);
        }
        let bits = b(bld.build_bit_cast(f, i32t, ""))?.into_int_value();
        let high = b(bld.build_right_shift(bits, i32t.const_int(16, false), false, ""))?;
        let raw = b(bld.build_int_truncate(high, i16t, "bits"))?;
        if c != BitCast::ToBitsCanonical {
            return Ok(Some(raw.into()));
        }
        let nan = b(bld.build_float_compare(FloatPredicate::UNO, f, f, "nan"))?;
        let canonical = i16t.const_int(BitCast::canonical_nan(ScalarType::BF16), false);
        Ok(Some(b(bld.build_select(nan, canonical, raw, "canonical"))?))
    }
}

/// `x` rounded to `bfloat16` (kept in a `float`): the interpreter's `round_bf16`, for
/// conversions from `float64` and integers. Pure, so named `cajeta_math_*`
/// (`scalar_fns::is_pure`).
pub extern "C" fn cajeta_math_round_bf16(x: f64) -> f32 {
    crate::host::interp::ops::round_bf16(x)
}

/// This file's C-ABI functions (see `runtime::functions`).
pub fn functions() -> [(&'static str, &'static str, usize); 1] {
    [(
        "cajeta_math_round_bf16",
        "f(d)",
        cajeta_math_round_bf16 as *const () as usize,
    )]
}
