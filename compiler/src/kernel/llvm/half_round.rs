//! `float32` → `float16` conversions for the SPIR-V target that a driver cannot fold away,
//! as the rspirv backend emits them (`kernel/spirv/half_round.rs`): the value is rounded to
//! the nearest `float16` (ties to even, overflow to infinity, `float16` subnormals kept) on
//! its bits first, still as a `float32`, so the `fptrunc` after it is exact. NVIDIA's 580
//! driver folds an `OpFConvert` to `float16` and one back to `float32` into nothing when the
//! value stays in registers (measured on an H100, docs/fuzzing.md).

use super::lower::{FnLower, Val};
use super::types::float_const_of;
use crate::ir::ScalarType;

impl FnLower<'_> {
    /// The `float` value `v` rounded to the nearest `float16` value, as a `float` (the name
    /// of the result). The steps are those of the rspirv backend's `round_scalar_to_f16`.
    pub(super) fn round_to_f16_value(&mut self, v: &str) -> String {
        // Through `llvm.spv.bitcast`: a plain `bitcast` of a loaded float is folded into the
        // load, which LLVM 23.1's SPIR-V target crashes on (`bit_casts::opaque_bitcast`).
        let b = self
            .opaque_bitcast(&Val::new(v.to_string(), "float"), "i32")
            .text;
        let [sign, a, kept, lsb, bias, up, normal] = self.tmps();
        self.emit(format!("{sign} = and i32 {b}, -2147483648"));
        self.emit(format!("{a} = and i32 {b}, 2147483647"));
        // Normal range: add 0xFFF plus the lowest kept bit, clear the 13 dropped bits.
        self.emit(format!("{kept} = lshr i32 {a}, 13"));
        self.emit(format!("{lsb} = and i32 {kept}, 1"));
        self.emit(format!("{bias} = add i32 4095, {lsb}"));
        self.emit(format!("{up} = add i32 {a}, {bias}"));
        self.emit(format!("{normal} = and i32 {up}, -8192"));
        // Below 2^-14: the significand shifted right by 126 - exponent (at most 25), rounded
        // to nearest even by the remainder, times 2^-24.
        let [exp, frac, sig, s_raw, s_big, s, q, ones, mask, rem, half] = self.tmps();
        self.emit(format!("{exp} = lshr i32 {a}, 23"));
        self.emit(format!("{frac} = and i32 {a}, 8388607"));
        self.emit(format!("{sig} = or i32 {frac}, 8388608"));
        self.emit(format!("{s_raw} = sub i32 126, {exp}"));
        self.emit(format!("{s_big} = icmp ugt i32 {s_raw}, 25"));
        self.emit(format!("{s} = select i1 {s_big}, i32 25, i32 {s_raw}"));
        self.emit(format!("{q} = lshr i32 {sig}, {s}"));
        self.emit(format!("{ones} = shl i32 1, {s}"));
        self.emit(format!("{mask} = sub i32 {ones}, 1"));
        self.emit(format!("{rem} = and i32 {sig}, {mask}"));
        self.emit(format!("{half} = lshr i32 {ones}, 1"));
        let [odd, rem_odd, round_up, inc, steps, steps_f, tiny_f, tiny] = self.tmps();
        self.emit(format!("{odd} = and i32 {q}, 1"));
        self.emit(format!("{rem_odd} = add i32 {rem}, {odd}"));
        self.emit(format!("{round_up} = icmp ugt i32 {rem_odd}, {half}"));
        self.emit(format!("{inc} = zext i1 {round_up} to i32"));
        self.emit(format!("{steps} = add i32 {q}, {inc}"));
        self.emit(format!("{steps_f} = uitofp i32 {steps} to float"));
        let step = float_const_of(ScalarType::F32, 2f64.powi(-24));
        self.emit(format!("{tiny_f} = fmul float {steps_f}, {step}"));
        self.emit(format!("{tiny} = bitcast float {tiny_f} to i32"));
        // Choose by magnitude: subnormal, normal, overflow (infinity); NaN keeps `v`.
        let [is_tiny, is_big, is_nan, finite, magnitude, signed, bits, r] = self.tmps();
        self.emit(format!("{is_tiny} = icmp ult i32 {a}, 947912704"));
        self.emit(format!("{is_big} = icmp uge i32 {a}, 1199566848"));
        self.emit(format!("{is_nan} = icmp ugt i32 {a}, 2139095040"));
        self.emit(format!(
            "{finite} = select i1 {is_tiny}, i32 {tiny}, i32 {normal}"
        ));
        self.emit(format!(
            "{magnitude} = select i1 {is_big}, i32 2139095040, i32 {finite}"
        ));
        self.emit(format!("{signed} = or i32 {magnitude}, {sign}"));
        self.emit(format!(
            "{bits} = select i1 {is_nan}, i32 {b}, i32 {signed}"
        ));
        self.emit(format!("{r} = bitcast i32 {bits} to float"));
        r
    }
}
