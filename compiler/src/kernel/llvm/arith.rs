//! Operators and conversions with SPEC §4's semantics, as the rspirv backend lowers them:
//! wrapping integer arithmetic (no `nsw`/`nuw`), no fast-math flags, guarded integer
//! division, masked shift counts, saturating float-to-int conversion.

use super::lower::{FnLower, Val};
use super::refuse;
use super::types::{float_const_of, int_const, scalar, scalar_of};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ScalarType, Type, UnaryOp};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    pub(super) fn unary(&mut self, op: UnaryOp, x: &Expr, e: &Expr) -> Res<Val> {
        if let Type::Vector(s, n) = e.ty {
            let v = self.expr(x)?;
            return self.per_lane((s, n), s, &[v], e.span, |f, l| {
                f.unary_value(op, s, l[0].clone())
            });
        }
        let s = scalar_of(&e.ty, e.span)?;
        let v = self.expr(x)?;
        self.unary_value(op, s, v)
    }

    /// A unary operator on a scalar of type `s`.
    pub(super) fn unary_value(&mut self, op: UnaryOp, s: ScalarType, v: Val) -> Res<Val> {
        let t = self.tmp();
        let line = match (op, s.is_float()) {
            (UnaryOp::Neg, true) => format!("{t} = fneg {} {}", v.ty, v.text),
            (UnaryOp::Neg, false) => format!("{t} = sub {} 0, {}", v.ty, v.text),
            (UnaryOp::Not, _) => format!("{t} = xor i1 {}, true", v.text),
            (UnaryOp::BitNot, _) => format!("{t} = xor {} {}, -1", v.ty, v.text),
        };
        self.emit(line);
        Ok(Val { text: t, ty: v.ty })
    }

    pub(super) fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> Res<Val> {
        if matches!(a.ty, Type::Matrix(..)) || matches!(b.ty, Type::Matrix(..)) {
            return self.matrix_binary(op, a, b, e);
        }
        if let Type::Vector(s, n) = a.ty {
            // Lane by lane through the scalar lowering, which keeps its SPEC §4 guards (as
            // the rspirv backend does for division and comparisons); LLVM revectorizes
            // what it can.
            let cs = b.ty.elem_scalar().unwrap_or(s);
            let out = if op.is_comparison() {
                ScalarType::Bool
            } else {
                s
            };
            let (x, y) = (self.expr(a)?, self.expr(b)?);
            return self.per_lane((s, n), out, &[x, y], e.span, |f, l| {
                f.binary_value(op, s, l[0].clone(), cs, l[1].clone(), e.span)
            });
        }
        let s = scalar_of(&a.ty, a.span)?;
        let cs = scalar_of(&b.ty, b.span)?;
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        self.binary_value(op, s, x, cs, y, e.span)
    }

    /// A binary operator on scalars: `x` of type `s`, `y` of type `cs` (which differs from
    /// `s` only for a shift count).
    pub(super) fn binary_value(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Val,
        cs: ScalarType,
        mut y: Val,
        span: Span,
    ) -> Res<Val> {
        let ty = x.ty;
        let float = s.is_float();
        let signed = s.is_signed_integer();
        if op.is_shift() {
            // The count is converted to the left operand's type and masked to its width.
            if !cs.is_integer() || !s.is_integer() {
                return Err(refuse(span, format!("a shift of `{s}` by `{cs}`")));
            }
            y = self.convert_int(y, cs, s, span)?;
            let m = self.tmp();
            self.emit(format!("{m} = and {ty} {}, {}", y.text, s.bits() - 1));
            y = Val { text: m, ty };
        }
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && !float {
            return self.int_divrem(op, s, x, y);
        }
        let t = self.tmp();
        let (xa, ya) = (&x.text, &y.text);
        let line = if op.is_comparison() {
            let cond = match (op, float, signed || s == ScalarType::Bool) {
                (BinaryOp::Eq, true, _) => "fcmp oeq",
                (BinaryOp::Ne, true, _) => "fcmp une",
                (BinaryOp::Lt, true, _) => "fcmp olt",
                (BinaryOp::Le, true, _) => "fcmp ole",
                (BinaryOp::Gt, true, _) => "fcmp ogt",
                (BinaryOp::Ge, true, _) => "fcmp oge",
                (BinaryOp::Eq, false, _) => "icmp eq",
                (BinaryOp::Ne, false, _) => "icmp ne",
                (BinaryOp::Lt, false, true) => "icmp slt",
                (BinaryOp::Le, false, true) => "icmp sle",
                (BinaryOp::Gt, false, true) => "icmp sgt",
                (BinaryOp::Ge, false, true) => "icmp sge",
                (BinaryOp::Lt, false, false) => "icmp ult",
                (BinaryOp::Le, false, false) => "icmp ule",
                (BinaryOp::Gt, false, false) => "icmp ugt",
                _ => "icmp uge",
            };
            if s == ScalarType::Bool && !matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
                return Err(refuse(span, "ordering comparisons of booleans"));
            }
            self.emit(format!("{t} = {cond} {ty} {xa}, {ya}"));
            return Ok(Val { text: t, ty: "i1" });
        } else {
            let inst = match (op, float) {
                (BinaryOp::Add, true) => "fadd",
                (BinaryOp::Sub, true) => "fsub",
                (BinaryOp::Mul, true) => "fmul",
                (BinaryOp::Div, true) => "fdiv",
                (BinaryOp::Rem, true) => "frem",
                (BinaryOp::Add, false) => "add",
                (BinaryOp::Sub, false) => "sub",
                (BinaryOp::Mul, false) => "mul",
                (BinaryOp::Shl, false) => "shl",
                (BinaryOp::Shr, false) if signed => "ashr",
                (BinaryOp::Shr | BinaryOp::UShr, false) => "lshr",
                (BinaryOp::BitAnd, false) => "and",
                (BinaryOp::BitOr, false) => "or",
                (BinaryOp::BitXor, false) => "xor",
                _ => return Err(refuse(span, format!("the operator {op:?} on `{s:?}`"))),
            };
            format!("{t} = {inst} {ty} {xa}, {ya}")
        };
        self.emit(line);
        Ok(Val { text: t, ty })
    }

    /// Integer `/` and `%` as the rspirv backend lowers them: the divisor is replaced by 1
    /// when it is 0 (the result is then forced to 0) or when a signed `MIN / -1` would
    /// overflow; signed `%` is `x - (x / y) * y`. Signed 8- and 16-bit operands are divided
    /// in 32 bits instead (sign-extended, the result truncated), where `MIN / -1` cannot
    /// overflow and wraps to `MIN` when truncated, the value the guard gives: no guard, and
    /// no compare of the dividend with `MIN`. With that compare, LLVM's instcombine rewrote
    /// `-x == MIN` as `x == MIN` for a negated 16-bit dividend, and NVIDIA's 580 driver then
    /// divided the negation unwrapped (32768 / 32767 = 1 for x = -32768, where the language
    /// gives -1; program 0 of fuzz seed 0xC47E7A, docs/fuzzing.md). rspirv divides such
    /// operands in 32 bits too.
    pub(super) fn int_divrem(&mut self, op: BinaryOp, s: ScalarType, x: Val, y: Val) -> Res<Val> {
        let signed = s.is_signed_integer();
        let widen = signed && s.bits() < 32;
        let ty = x.ty;
        let min = int_const(s, 1u64 << (s.bits() - 1));
        let (xa, ya) = (x.text, y.text);
        let by_zero = self.tmp();
        self.emit(format!("{by_zero} = icmp eq {ty} {ya}, 0"));
        let mut guard = by_zero.clone();
        if signed && !widen {
            let [xm, ym, ov, g] = self.tmps();
            self.emit(format!("{xm} = icmp eq {ty} {xa}, {min}"));
            self.emit(format!("{ym} = icmp eq {ty} {ya}, -1"));
            self.emit(format!("{ov} = and i1 {xm}, {ym}"));
            self.emit(format!("{g} = or i1 {by_zero}, {ov}"));
            guard = g;
        }
        let d = self.tmp();
        self.emit(format!("{d} = select i1 {guard}, {ty} 1, {ty} {ya}"));
        // The type the division runs in, and the operands in it.
        let (wty, xa, d) = if widen {
            let (xw, dw) = (self.tmp(), self.tmp());
            self.emit(format!("{xw} = sext {ty} {xa} to i32"));
            self.emit(format!("{dw} = sext {ty} {d} to i32"));
            ("i32", xw, dw)
        } else {
            (ty, xa, d)
        };
        // A constant divisor other than a power of two goes through an opaque copy: with
        // it and a dividend bounded by a branch LLVM's correlated value propagation
        // narrows the division to 8 or 16 bits, which needs the `Int8`/`Int16`
        // capabilities (and device features) the rspirv module does not (measured on
        // tests/device/texture_fetch.cajeta). Drivers still see the constant through the
        // copy; powers of two stay visible to LLVM, which makes them shifts and masks.
        let d = match ya.parse::<i64>() {
            Ok(c) if c.unsigned_abs().count_ones() > 1 => self.opaque_copy(Val::new(d, wty)).text,
            _ => d,
        };
        let q = self.tmp();
        match (op, signed) {
            (BinaryOp::Div, true) => self.emit(format!("{q} = sdiv {wty} {xa}, {d}")),
            (BinaryOp::Div, false) => self.emit(format!("{q} = udiv {wty} {xa}, {d}")),
            (_, true) => {
                // The quotient goes through an opaque copy: LLVM folds `x - (x / y) * y`
                // back into `srem`, which becomes OpSRem, and NVIDIA's 580 driver computes
                // OpSRem wrongly for negative operands (measured on the H200 for int64
                // lanes through this backend; rspirv avoids OpSRem for the same reason).
                let (quot, back) = (self.tmp(), self.tmp());
                self.emit(format!("{quot} = sdiv {wty} {xa}, {d}"));
                let quot = self.opaque_copy(Val::new(quot, wty));
                self.emit(format!("{back} = mul {wty} {}, {d}", quot.text));
                self.emit(format!("{q} = sub {wty} {xa}, {back}"));
            }
            (_, false) => self.emit(format!("{q} = urem {wty} {xa}, {d}")),
        }
        let q = if widen {
            let narrow = self.tmp();
            self.emit(format!("{narrow} = trunc i32 {q} to {ty}"));
            narrow
        } else {
            q
        };
        let r = self.tmp();
        self.emit(format!("{r} = select i1 {by_zero}, {ty} 0, {ty} {q}"));
        Ok(Val { text: r, ty })
    }

    /// A numeric conversion (SPEC §3), instruction for instruction as the rspirv backend's.
    pub(super) fn convert(&mut self, x: &Expr, e: &Expr) -> Res<Val> {
        // float32 lanes that are float16 values already narrow exactly, so without the
        // rounding `convert_value` puts first for the SPIR-V target (`half_round`).
        let shapes = (x.ty.vector_shape(), e.ty.vector_shape());
        if let (Some((ScalarType::F32, _)), Some((ScalarType::F16, _))) = shapes {
            if crate::kernel::holds_f16_values(x) {
                let v = self.expr(x)?;
                let ty = super::types::value(&e.ty, e.span)?;
                let t = self.tmp();
                self.emit(format!("{t} = fptrunc {} {} to {ty}", v.ty, v.text));
                return Ok(Val::new(t, ty));
            }
        }
        if let (Type::Vector(from, n), Type::Vector(to, _)) = (&x.ty, &e.ty) {
            let (from, to) = (*from, *to);
            let v = self.expr(x)?;
            return self.per_lane((from, *n), to, &[v], e.span, |f, l| {
                f.convert_value(l[0].clone(), from, to, e.span)
            });
        }
        let from = scalar_of(&x.ty, x.span)?;
        let to = scalar_of(&e.ty, e.span)?;
        let v = self.expr(x)?;
        self.convert_value(v, from, to, e.span)
    }

    /// A scalar conversion from `from` to `to`.
    pub(super) fn convert_value(
        &mut self,
        v: Val,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Val> {
        // bfloat16 lives in float32 registers (`expr` rounds the result to bfloat16).
        let (from, to) = (from.register_type(), to.register_type());
        if from == to {
            return Ok(v);
        }
        if from == ScalarType::Bool || to == ScalarType::Bool {
            return Err(refuse(
                span,
                format!("the conversion from `{from}` to `{to}`"),
            ));
        }
        let to_ty = scalar(to, span)?;
        let t = self.tmp();
        let line = match (from.is_float(), to.is_float()) {
            (false, false) => return self.convert_int(v, from, to, span),
            (false, true) if from.is_signed_integer() => {
                format!("{t} = sitofp {} {} to {to_ty}", v.ty, v.text)
            }
            (false, true) => {
                if let Some(f) = self.cpu_unsigned_to_narrower_float(&v, from, to, to_ty) {
                    return Ok(f);
                }
                format!("{t} = uitofp {} {} to {to_ty}", v.ty, v.text)
            }
            (true, true) if from.bits() < to.bits() => {
                format!("{t} = fpext {} {} to {to_ty}", v.ty, v.text)
            }
            // Round to nearest even, as `OpFConvert` does by default; for the SPIR-V target
            // a float32 is rounded to a float16 value first (`half_round`).
            (true, true)
                if to == ScalarType::F16
                    && from == ScalarType::F32
                    && self.target == super::target::Target::Spirv =>
            {
                let r = self.round_to_f16_value(&v.text);
                format!("{t} = fptrunc float {r} to {to_ty}")
            }
            (true, true) => format!("{t} = fptrunc {} {} to {to_ty}", v.ty, v.text),
            (true, false) => return self.float_to_int(v, from, to, span),
        };
        self.emit(line);
        Ok(Val { text: t, ty: to_ty })
    }

    /// Integer to integer: the low bits when narrowing, sign- or zero-extension by the
    /// source's signedness when widening, the same bits when only the signedness changes.
    pub(super) fn convert_int(
        &mut self,
        v: Val,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Val> {
        let to_ty = scalar(to, span)?;
        let (fb, tb) = (from.bits(), to.bits());
        if fb == tb {
            return Ok(Val {
                text: v.text,
                ty: to_ty,
            });
        }
        let inst = if tb < fb {
            "trunc"
        } else if from.is_signed_integer() {
            "sext"
        } else {
            "zext"
        };
        let t = self.tmp();
        self.emit(format!("{t} = {inst} {} {} to {to_ty}", v.ty, v.text));
        Ok(Val { text: t, ty: to_ty })
    }

    /// Float to integer, truncating toward zero and saturating, NaN → 0, with the rspirv
    /// backend's constants: clamped in the float domain first so that `fptosi`/`fptoui`
    /// never sees an out-of-range value, then values at or past the range's ends and NaN
    /// fixed up with selects.
    pub(super) fn float_to_int(
        &mut self,
        v: Val,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Val> {
        let fty = v.ty;
        let ity = scalar(to, span)?;
        let signed = to.is_signed_integer();
        let n = to.bits();
        let crate::ir::const_fold::SaturationBounds {
            lower,
            below_limit: below,
            threshold,
            representable,
        } = crate::ir::const_fold::saturation_bounds(from, to);
        let c = |x: f64| float_const_of(from, x);
        let (lo_c, up_c, th_c) = (c(lower), c(below), c(threshold));
        let (lo_i, hi_i) = if signed {
            (1u64 << (n - 1), (1u64 << (n - 1)) - 1)
        } else {
            (0, if n == 64 { u64::MAX } else { (1u64 << n) - 1 })
        };
        let (lo_i, hi_i) = (int_const(to, lo_i), int_const(to, hi_i));
        let x = v.text;
        let [ge, c1, le, c2, r, over, mut out] = self.tmps();
        self.emit(format!("{ge} = fcmp oge {fty} {x}, {lo_c}"));
        self.emit(format!("{c1} = select i1 {ge}, {fty} {x}, {fty} {lo_c}"));
        self.emit(format!("{le} = fcmp ole {fty} {c1}, {up_c}"));
        self.emit(format!("{c2} = select i1 {le}, {fty} {c1}, {fty} {up_c}"));
        let inst = if signed { "fptosi" } else { "fptoui" };
        if n == 64 && self.target == super::target::Target::Spirv {
            self.float_to_64_in_halves(&c2, fty, from, signed, &r);
        } else {
            self.emit(format!("{r} = {inst} {fty} {c2} to {ity}"));
        }
        self.emit(format!("{over} = fcmp oge {fty} {x}, {th_c}"));
        self.emit(format!("{out} = select i1 {over}, {ity} {hi_i}, {ity} {r}"));
        if signed && !representable {
            // The range's low end is no finite float of this type: only -inf is below it.
            let (under, r3) = (self.tmp(), self.tmp());
            let neg_inf = c(f64::NEG_INFINITY);
            self.emit(format!("{under} = fcmp ole {fty} {x}, {neg_inf}"));
            self.emit(format!(
                "{r3} = select i1 {under}, {ity} {lo_i}, {ity} {out}"
            ));
            out = r3;
        }
        // NaN by its bits: LLVM canonicalizes `fcmp uno` and `fcmp une x, x` to an
        // `OpUnordered`, which the SPIR-V target emits although only kernels may use it.
        let w = from.bits();
        let bty = format!("i{w}");
        let mag_mask = int_const(from_bits_type(w), (1u64 << (w - 1)) - 1);
        // `mantissa_bits` counts the implicit bit: the stored fraction is one bit less.
        let fraction = from.mantissa_bits() - 1;
        let inf_bits = int_const(
            from_bits_type(w),
            ((1u64 << (w - 1 - fraction)) - 1) << fraction,
        );
        let [bits, mag, nan, done] = self.tmps();
        self.emit(format!("{bits} = bitcast {fty} {x} to {bty}"));
        self.emit(format!("{mag} = and {bty} {bits}, {mag_mask}"));
        self.emit(format!("{nan} = icmp ugt {bty} {mag}, {inf_bits}"));
        self.emit(format!("{done} = select i1 {nan}, {ity} 0, {ity} {out}"));
        Ok(Val {
            text: done,
            ty: ity,
        })
    }
}

impl FnLower<'_> {
    /// `r = (int64 or uint64) c` for a clamped float `c` (no NaN, within the range), built
    /// from two 32-bit conversions for the SPIR-V target, as the rspirv backend does
    /// (`kernel/spirv/float_to_wide.rs`): NVIDIA's 580 driver shortened a 64-bit conversion
    /// whose low word alone was used into a saturating 32-bit one. The magnitude's high word
    /// is `trunc(|c| / 2^32)`, its low word `|c| - high * 2^32` (both exact, below 2^32); a
    /// negative value is negated in 64 bits. A float16 converts in 32 bits (it fits).
    fn float_to_64_in_halves(
        &mut self,
        c: &str,
        fty: &str,
        from: ScalarType,
        signed: bool,
        r: &str,
    ) {
        let (conv, ext) = if signed {
            ("fptosi", "sext")
        } else {
            ("fptoui", "zext")
        };
        if from.bits() < 32 {
            let w = self.tmp();
            self.emit(format!("{w} = {conv} {fty} {c} to i32"));
            self.emit(format!("{r} = {ext} i32 {w} to i64"));
            return;
        }
        let [neg, flipped, abs, scaled, hi, hi_f, back, lo_f, lo] = self.tmps();
        let m = if signed {
            let zero = float_const_of(from, 0.0);
            self.emit(format!("{neg} = fcmp olt {fty} {c}, {zero}"));
            self.emit(format!("{flipped} = fneg {fty} {c}"));
            self.emit(format!(
                "{abs} = select i1 {neg}, {fty} {flipped}, {fty} {c}"
            ));
            abs
        } else {
            c.to_string()
        };
        let (inv, word) = (
            float_const_of(from, 2f64.powi(-32)),
            float_const_of(from, 2f64.powi(32)),
        );
        self.emit(format!("{scaled} = fmul {fty} {m}, {inv}"));
        self.emit(format!("{hi} = fptoui {fty} {scaled} to i32"));
        self.emit(format!("{hi_f} = uitofp i32 {hi} to {fty}"));
        self.emit(format!("{back} = fmul {fty} {hi_f}, {word}"));
        self.emit(format!("{lo_f} = fsub {fty} {m}, {back}"));
        self.emit(format!("{lo} = fptoui {fty} {lo_f} to i32"));
        let [hz, hs, lz, mag, negated] = self.tmps();
        self.emit(format!("{hz} = zext i32 {hi} to i64"));
        self.emit(format!("{hs} = shl i64 {hz}, 32"));
        self.emit(format!("{lz} = zext i32 {lo} to i64"));
        let whole = if signed { mag.clone() } else { r.to_string() };
        self.emit(format!("{whole} = or i64 {hs}, {lz}"));
        if signed {
            self.emit(format!("{negated} = sub i64 0, {mag}"));
            self.emit(format!("{r} = select i1 {neg}, i64 {negated}, i64 {mag}"));
        }
    }
}

/// The unsigned integer type of a float's width (for constants over its bits).
fn from_bits_type(w: u32) -> ScalarType {
    match w {
        16 => ScalarType::U16,
        64 => ScalarType::U64,
        _ => ScalarType::U32,
    }
}
