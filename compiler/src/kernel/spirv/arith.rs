//! Integer division and shifts without undefined behavior, comparisons, and the numeric
//! conversions of SPEC §3 (saturating float → int, NaN → 0).

use super::expr::*;
use super::function::FnCx;
use super::Res;
use crate::diagnostics::Span;
use crate::ir::{BinaryOp, ScalarType};
use rspirv::spirv::{Op, Word};

impl FnCx<'_, '_> {
    /// Integer `/` and `%` without undefined behavior: the divisor is replaced by 1 when it
    /// is 0 (result then forced to 0) or when a signed `MIN / -1` would overflow (`MIN / 1`
    /// = `MIN` and `MIN % 1` = 0 are exactly the wrapped results).
    pub(crate) fn int_divrem(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Word,
        y: Word,
        span: Span,
    ) -> Res<Word> {
        if s.bits() < 32 {
            // In 32 bits on the extended operands and narrowed back: the same quotient and
            // remainder, `MIN / -1` wrapping to `MIN` as below (see `narrow_in_32_bits`).
            let wide = wide_of(s);
            let xw = self.convert_int(x, s, wide, span)?;
            let yw = self.convert_int(y, s, wide, span)?;
            let r = self.int_divrem(op, wide, xw, yw, span)?;
            return self.convert_int(r, wide, s, span);
        }
        let ty = self.cx.value_type(s, span)?;
        let signed = s.is_signed_integer();
        // A constant divisor other than 0 (and -1 when signed) needs no guard: `i / 8` in an
        // index stays one instruction, as in GLSL.
        let all_ones = if s.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << s.bits()) - 1
        };
        if let Some(d) = self.cx.constant_bits(ty, y) {
            if d != 0 && !(signed && d == all_ones) {
                return self.divrem_unguarded(op, signed, ty, x, y);
            }
        }
        let bool_ty = self.cx.bool_type();
        let zero = self.cx.const_int(s, 0, span)?;
        let one = self.cx.const_int(s, 1, span)?;
        let by_zero = self.op(Op::IEqual, bool_ty, &[y, zero])?;
        let mut guard = by_zero;
        if signed {
            let min = self.cx.const_int(s, 1i128 << (s.bits() - 1), span)?;
            let minus_one = self.cx.const_int(s, -1, span)?;
            let x_min = self.op(Op::IEqual, bool_ty, &[x, min])?;
            let y_m1 = self.op(Op::IEqual, bool_ty, &[y, minus_one])?;
            let overflow = self.op(Op::LogicalAnd, bool_ty, &[x_min, y_m1])?;
            guard = self.op(Op::LogicalOr, bool_ty, &[by_zero, overflow])?;
        }
        let divisor = self.op(Op::Select, ty, &[guard, one, y])?;
        let q = self.divrem_unguarded(op, signed, ty, x, divisor)?;
        self.op(Op::Select, ty, &[by_zero, zero, q])
    }

    /// `x / d` or `x % d` for a divisor known to be neither 0 nor (signed) -1.
    fn divrem_unguarded(
        &mut self,
        op: BinaryOp,
        signed: bool,
        ty: Word,
        x: Word,
        d: Word,
    ) -> Res<Word> {
        match (op, signed) {
            (BinaryOp::Div, true) => self.op(Op::SDiv, ty, &[x, d]),
            (BinaryOp::Div, false) => self.op(Op::UDiv, ty, &[x, d]),
            // Signed `%` is `x - (x / y) * y` rather than OpSRem: NVIDIA's 580 driver returned
            // -100 for -100 srem -31 and 63 for -129 srem 64 (measured on the H200), while
            // OpSDiv matched Java on every case. The identity is exact with wrapping ops.
            (_, true) => {
                let quot = self.op(Op::SDiv, ty, &[x, d])?;
                let back = self.op(Op::IMul, ty, &[quot, d])?;
                self.op(Op::ISub, ty, &[x, back])
            }
            (_, false) => self.op(Op::UMod, ty, &[x, d]),
        }
    }

    /// Shifts: the count is converted to the left operand's type and masked to the width.
    pub(crate) fn shift(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Word,
        cs: ScalarType,
        c: Word,
        span: Span,
    ) -> Res<Word> {
        if !s.is_integer() || !cs.is_integer() {
            return Err(invalid(span, format!("shift of `{s}` by `{cs}`")));
        }
        let ty = self.cx.value_type(s, span)?;
        // The count is masked in the operand's width, or in 32 bits for an 8- or 16-bit
        // operand (no narrow arithmetic reaches a driver; see `narrow_in_32_bits`).
        let count_s = if s.bits() < 32 { ScalarType::U32 } else { s };
        let count_ty = self.cx.value_type(count_s, span)?;
        let count = self.convert_int(c, cs, count_s, span)?;
        let mask = self.cx.const_int(count_s, i128::from(s.bits() - 1), span)?;
        let count = self.op(Op::BitwiseAnd, count_ty, &[count, mask])?;
        let opcode = match op {
            BinaryOp::Shl => Op::ShiftLeftLogical,
            BinaryOp::Shr if s.is_signed_integer() => Op::ShiftRightArithmetic,
            _ => Op::ShiftRightLogical,
        };
        if s.bits() < 32 {
            // The count is below the narrow width, so the 32-bit shift of the extended value
            // has the same low bits (see `narrow_in_32_bits`). A logical right shift (`>>>`)
            // shifts the narrow bit pattern: its operand is zero-extended, also when signed.
            let logical = opcode == Op::ShiftRightLogical;
            let (narrow, wide) = match logical {
                true => (unsigned_of(s), ScalarType::U32),
                false => (s, wide_of(s)),
            };
            let xn = match narrow == s {
                true => x,
                false => {
                    let nty = self.cx.value_type(narrow, span)?;
                    self.op(Op::Bitcast, nty, &[x])?
                }
            };
            let count = self.convert_int(count, ScalarType::U32, wide, span)?;
            let xw = self.convert_int(xn, narrow, wide, span)?;
            let wty = self.cx.value_type(wide, span)?;
            let r = self.op(opcode, wty, &[xw, count])?;
            let r = self.convert_int(r, wide, narrow, span)?;
            return match narrow == s {
                true => Ok(r),
                false => self.op(Op::Bitcast, ty, &[r]),
            };
        }
        self.op(opcode, ty, &[x, count])
    }

    /// An 8- or 16-bit integer `opcode` (add, subtract, multiply, negate, the bitwise
    /// operations) computed on the operands extended to 32 bits and narrowed back: the same
    /// low bits, so the same value. Every 8/16-bit integer operation of a kernel (these,
    /// shifts, division, remainder, comparisons) is done in 32 bits, so that a driver sees
    /// narrow types only in memory, variables and conversions.
    /// NVIDIA's 580 driver got the narrow forms wrong: an int8 or int16 multiply or left
    /// shift of a negated value that should wrap to the type's minimum gave its positive
    /// twin instead (`((int8) -t) * 4` for t = 32 was 128 when widened, int16 likewise;
    /// measured on an H100, tests/device/narrow_wrap.cajeta, docs/fuzzing.md), while the
    /// same arithmetic in 32 bits followed by a narrowing conversion was right.
    pub(crate) fn narrow_in_32_bits(
        &mut self,
        opcode: Op,
        s: ScalarType,
        args: &[Word],
        span: Span,
    ) -> Res<Word> {
        let wide = wide_of(s);
        let wty = self.cx.value_type(wide, span)?;
        let mut wide_args = Vec::with_capacity(args.len());
        for &a in args {
            wide_args.push(self.convert_int(a, s, wide, span)?);
        }
        let r = self.op(opcode, wty, &wide_args)?;
        self.convert_int(r, wide, s, span)
    }

    pub(crate) fn compare(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Word,
        y: Word,
        span: Span,
    ) -> Res<Word> {
        use BinaryOp::*;
        let signed = s.is_signed_integer();
        let opcode = if s == ScalarType::Bool {
            match op {
                Eq => Op::LogicalEqual,
                Ne => Op::LogicalNotEqual,
                _ => return Err(invalid(span, format!("{op:?} on `boolean`"))),
            }
        } else if s.is_float() {
            // Ordered, except `!=`, which is true when either side is NaN.
            match op {
                Eq => Op::FOrdEqual,
                Ne => Op::FUnordNotEqual,
                Lt => Op::FOrdLessThan,
                Le => Op::FOrdLessThanEqual,
                Gt => Op::FOrdGreaterThan,
                _ => Op::FOrdGreaterThanEqual,
            }
        } else {
            match (op, signed) {
                (Eq, _) => Op::IEqual,
                (Ne, _) => Op::INotEqual,
                (Lt, true) => Op::SLessThan,
                (Lt, false) => Op::ULessThan,
                (Le, true) => Op::SLessThanEqual,
                (Le, false) => Op::ULessThanEqual,
                (Gt, true) => Op::SGreaterThan,
                (Gt, false) => Op::UGreaterThan,
                (_, true) => Op::SGreaterThanEqual,
                (_, false) => Op::UGreaterThanEqual,
            }
        };
        let bool_ty = self.cx.bool_type();
        if s.is_integer() && s.bits() < 32 {
            // Compared in 32 bits on the values extended by their own sign: the same order.
            let wide = wide_of(s);
            let xw = self.convert_int(x, s, wide, span)?;
            let yw = self.convert_int(y, s, wide, span)?;
            return self.op(opcode, bool_ty, &[xw, yw]);
        }
        self.op(opcode, bool_ty, &[x, y])
    }

    /// Numeric conversion (SPEC §3).
    pub(crate) fn convert(
        &mut self,
        v: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        // bfloat16 lives in float32 registers; `expr` rounds results to bfloat16.
        let (from, to) = (from.register_type(), to.register_type());
        if from == to {
            return Ok(v);
        }
        if from == ScalarType::Bool || to == ScalarType::Bool {
            return Err(invalid(span, format!("conversion from `{from}` to `{to}`")));
        }
        let ty = self.cx.value_type(to, span)?;
        self.cx.value_type(from, span)?;
        match (from.is_float(), to.is_float()) {
            (false, false) => self.convert_int(v, from, to, span),
            (false, true) if from.is_signed_integer() => self.op(Op::ConvertSToF, ty, &[v]),
            (false, true) => self.op(Op::ConvertUToF, ty, &[v]),
            (true, true) if to == ScalarType::F16 => self.narrow_to_f16(v, from, ty, 1, span),
            (true, true) => self.op(Op::FConvert, ty, &[v]),
            (true, false) => self.float_to_int(v, from, to, span),
        }
    }

    /// Integer to integer: low bits kept when narrowing, sign- or zero-extension by the
    /// source's signedness when widening, a bitcast when only the signedness changes.
    pub(crate) fn convert_int(
        &mut self,
        v: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        if from == to {
            return Ok(v);
        }
        let ty = self.cx.value_type(to, span)?;
        let (fb, tb) = (from.bits(), to.bits());
        if fb == tb {
            return self.op(Op::Bitcast, ty, &[v]);
        }
        if tb == 64 && from.is_signed_integer() {
            // Sign extension to 64 bits without OpSConvert to 64 bits: lavapipe (Mesa 22.3)
            // miscompiles one whose result is compared (`127L >= (int64) s` is false for
            // s == 0; docs/fuzzing.md, tests/fuzz_findings/wrong_results/
            // lavapipe_int64_compare.cajeta). Built from two 32-bit words instead.
            return self.sign_extend_to_64(v, from, to, span);
        }
        if tb < fb && tb < 32 {
            return self.narrow_int(v, from, to, span);
        }
        if tb < fb || from.is_signed_integer() {
            // OpSConvert truncates or sign-extends; OpUConvert needs an unsigned result.
            let opcode = if to.is_signed_integer() || tb > fb {
                Op::SConvert
            } else {
                Op::UConvert
            };
            return self.op(opcode, ty, &[v]);
        }
        let wide_unsigned = self.cx.int_type(tb, false);
        let z = self.op(Op::UConvert, wide_unsigned, &[v])?;
        if to.is_signed_integer() {
            self.op(Op::Bitcast, ty, &[z])
        } else {
            Ok(z)
        }
    }

    /// `v` of the wider `from` narrowed to the 8- or 16-bit `to`. The value is first brought
    /// into `to`'s range in 32 (or 64) bits, by a shift left and back (arithmetic for a signed
    /// `to`, logical for an unsigned one), and only then converted. A narrowing conversion
    /// followed by a widening one is then exact however a driver combines the two: NVIDIA's
    /// 580 driver treated the pair as the identity when the narrow value went through a
    /// vector (`-v` of an int8 lane holding -128 read back as 128; tests/device/
    /// narrow_forms.cajeta, measured on an H100, docs/fuzzing.md).
    fn narrow_int(&mut self, v: Word, from: ScalarType, to: ScalarType, span: Span) -> Res<Word> {
        let ty = self.cx.value_type(to, span)?;
        let from_ty = self.cx.value_type(from, span)?;
        let tb = to.bits();
        // A constant narrows to a constant.
        if let Some(bits) = self.cx.constant_bits(from_ty, v) {
            return self
                .cx
                .const_int(to, i128::from(bits & ((1u64 << tb) - 1)), span);
        }
        // An 8- or 16-bit source is widened to 32 bits first (exactly, by its own sign).
        let (v, from) = if from.bits() < 32 {
            let wide = wide_of(from);
            (self.convert_int(v, from, wide, span)?, wide)
        } else {
            (v, from)
        };
        let wty = self.cx.value_type(from, span)?;
        let k = self
            .cx
            .const_int(from, i128::from(from.bits() - tb), span)?;
        let up = self.op(Op::ShiftLeftLogical, wty, &[v, k])?;
        let back = if to.is_signed_integer() {
            Op::ShiftRightArithmetic
        } else {
            Op::ShiftRightLogical
        };
        let norm = self.op(back, wty, &[up, k])?;
        let opcode = if to.is_signed_integer() {
            Op::SConvert
        } else {
            Op::UConvert
        };
        self.op(opcode, ty, &[norm])
    }

    /// `v` of the signed `from` widened to the 64-bit `to` with its sign, without OpSConvert
    /// (see [`Self::convert_int`]).
    fn sign_extend_to_64(
        &mut self,
        v: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        let fb = from.bits();
        // A constant widens to a constant: no instruction for a driver to get wrong, and the
        // module keeps the folded form other compilers emit.
        let narrow = self.cx.value_type(from, span)?;
        if let Some(bits) = self.cx.constant_bits(narrow, v) {
            let shift = 64 - fb;
            let value = ((bits << shift) as i64) >> shift;
            return self.cx.const_int(to, i128::from(value), span);
        }
        // The low word is the value sign-extended to 32 bits (a 32-bit OpSConvert, or the
        // value itself), the high word its sign (an arithmetic shift by 31), and the pair is
        // bitcast to 64 bits: no 64-bit sign operation at all. Both 64-bit forms tried
        // before were miscompiled by a driver: lavapipe answers compares of an OpSConvert to
        // 64 bits wrongly (above), and NVIDIA's 580 driver computed `zext(x) ^ 2^(n-1) -
        // 2^(n-1)` as `zext(x)` for an int8 -128 (docs/fuzzing.md,
        // tests/fuzz_findings/wrong_results/nvidia_seed_c47e7a_program_16.cajeta).
        let int32 = self.cx.int_type(32, true);
        let uint32 = self.cx.u32_type();
        let s32 = match fb {
            32 if from == ScalarType::I32 => v,
            32 => self.op(Op::Bitcast, int32, &[v])?,
            _ => self.op(Op::SConvert, int32, &[v])?,
        };
        let c31 = self.cx.const_int(ScalarType::I32, 31, span)?;
        let sign = self.op(Op::ShiftRightArithmetic, int32, &[s32, c31])?;
        let lo = self.op(Op::Bitcast, uint32, &[s32])?;
        let hi = self.op(Op::Bitcast, uint32, &[sign])?;
        let pair_ty = self.cx.vector_type(uint32, 2);
        let pair = self.op(Op::CompositeConstruct, pair_ty, &[lo, hi])?;
        let ty = self.cx.value_type(to, span)?;
        self.op(Op::Bitcast, ty, &[pair])
    }

    /// Float to integer, truncating toward zero and saturating, NaN → 0, with no
    /// out-of-range `OpConvertFTo*` (whose result SPIR-V leaves undefined): clamp in the
    /// float domain to the largest floats inside the integer range, then fix up values at or
    /// beyond the range ends and NaN with selects.
    pub(crate) fn float_to_int(
        &mut self,
        v: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        let fty = self.cx.value_type(from, span)?;
        // An 8- or 16-bit result is converted in 32 bits (the clamped value is in its range)
        // and narrowed after: no float-to-narrow conversion reaches a driver (NVIDIA's 580
        // driver got 8/16-bit forms wrong, docs/fuzzing.md).
        let work = if to.bits() < 32 { wide_of(to) } else { to };
        let ity = self.cx.value_type(work, span)?;
        let bool_ty = self.cx.bool_type();
        let signed = to.is_signed_integer();
        let n = to.bits();
        let crate::ir::const_fold::SaturationBounds {
            lower,
            below_limit,
            threshold,
            representable,
        } = crate::ir::const_fold::saturation_bounds(from, to);
        let lower_c = self.cx.const_float(from, lower, span)?;
        let upper_c = self.cx.const_float(from, below_limit, span)?;
        let threshold_c = self.cx.const_float(from, threshold, span)?;
        let (lo, hi) = if signed {
            (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
        } else {
            (0, (1i128 << n) - 1)
        };
        let hi_c = self.cx.const_int(work, hi, span)?;
        let zero_c = self.cx.const_int(work, 0, span)?;
        // NaN fails the ordered test and becomes `lower`; fixed up last.
        let ge = self.op(Op::FOrdGreaterThanEqual, bool_ty, &[v, lower_c])?;
        let c = self.op(Op::Select, fty, &[ge, v, lower_c])?;
        let le = self.op(Op::FOrdLessThanEqual, bool_ty, &[c, upper_c])?;
        let c = self.op(Op::Select, fty, &[le, c, upper_c])?;
        let opcode = if signed {
            Op::ConvertFToS
        } else {
            Op::ConvertFToU
        };
        // A 64-bit result in two 32-bit halves: NVIDIA's driver shortened a 64-bit
        // conversion whose low word alone was used into a saturating 32-bit one.
        let mut r = match work.bits() {
            64 => self.float_to_64_in_halves(c, from, to, span)?,
            _ => self.op(opcode, ity, &[c])?,
        };
        let over = self.op(Op::FOrdGreaterThanEqual, bool_ty, &[v, threshold_c])?;
        r = self.op(Op::Select, ity, &[over, hi_c, r])?;
        if signed && !representable {
            // The range's low end is not a finite float of this type: only -inf is below.
            let neg_inf = self.cx.const_float(from, f64::NEG_INFINITY, span)?;
            let lo_c = self.cx.const_int(work, lo, span)?;
            let under = self.op(Op::FOrdLessThanEqual, bool_ty, &[v, neg_inf])?;
            r = self.op(Op::Select, ity, &[under, lo_c, r])?;
        }
        let nan = self.op(Op::IsNan, bool_ty, &[v])?;
        let r = self.op(Op::Select, ity, &[nan, zero_c, r])?;
        self.convert_int(r, work, to, span)
    }
}

/// The 32-bit integer type of the same signedness as the narrow `s`.
fn wide_of(s: ScalarType) -> ScalarType {
    if s.is_signed_integer() {
        ScalarType::I32
    } else {
        ScalarType::U32
    }
}

/// The unsigned integer type of the same width as `s`.
fn unsigned_of(s: ScalarType) -> ScalarType {
    match s {
        ScalarType::I8 => ScalarType::U8,
        ScalarType::I16 => ScalarType::U16,
        ScalarType::I32 => ScalarType::U32,
        ScalarType::I64 => ScalarType::U64,
        other => other,
    }
}
