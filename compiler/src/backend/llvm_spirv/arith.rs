//! Operators and conversions with SPEC §4's semantics, as the rspirv backend lowers them:
//! wrapping integer arithmetic (no `nsw`/`nuw`), no fast-math flags, guarded integer
//! division, masked shift counts, saturating float-to-int conversion.

use super::lower::{FnLower, Val};
use super::refuse;
use super::types::{float_const, scalar, scalar_of};
use crate::diagnostics::Diagnostic;
use crate::ir::{BinaryOp, Expr, ScalarType, UnaryOp};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    pub(super) fn unary(&mut self, op: UnaryOp, x: &Expr, e: &Expr) -> Res<Val> {
        let s = scalar_of(&e.ty, e.span)?;
        let v = self.expr(x)?;
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
        let s = scalar_of(&a.ty, a.span)?;
        let x = self.expr(a)?;
        let mut y = self.expr(b)?;
        let ty = x.ty;
        let float = s.is_float();
        let signed = s.is_signed_integer();
        if op.is_shift() {
            // The count is converted to the left operand's type and masked to its width.
            let cs = scalar_of(&b.ty, b.span)?;
            let cy = scalar(cs, b.span)?;
            if cy != ty {
                return Err(refuse(b.span, "a shift count of another width"));
            }
            let m = self.tmp();
            self.emit(format!("{m} = and {ty} {}, {}", y.text, s.bits() - 1));
            y = Val { text: m, ty };
        }
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && !float {
            return self.int_divrem(op, signed, x, y);
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
                return Err(refuse(e.span, "ordering comparisons of booleans"));
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
                _ => return Err(refuse(e.span, format!("the operator {op:?} on `{s:?}`"))),
            };
            format!("{t} = {inst} {ty} {xa}, {ya}")
        };
        self.emit(line);
        Ok(Val { text: t, ty })
    }

    /// Integer `/` and `%` as the rspirv backend lowers them: the divisor is replaced by 1
    /// when it is 0 (the result is then forced to 0) or when a signed `MIN / -1` would
    /// overflow; signed `%` is `x - (x / y) * y`.
    pub(super) fn int_divrem(&mut self, op: BinaryOp, signed: bool, x: Val, y: Val) -> Res<Val> {
        let ty = x.ty;
        let (xa, ya) = (x.text, y.text);
        let by_zero = self.tmp();
        self.emit(format!("{by_zero} = icmp eq {ty} {ya}, 0"));
        let mut guard = by_zero.clone();
        if signed {
            let (xm, ym, ov, g) = (self.tmp(), self.tmp(), self.tmp(), self.tmp());
            self.emit(format!("{xm} = icmp eq {ty} {xa}, -2147483648"));
            self.emit(format!("{ym} = icmp eq {ty} {ya}, -1"));
            self.emit(format!("{ov} = and i1 {xm}, {ym}"));
            self.emit(format!("{g} = or i1 {by_zero}, {ov}"));
            guard = g;
        }
        let d = self.tmp();
        self.emit(format!("{d} = select i1 {guard}, {ty} 1, {ty} {ya}"));
        let q = self.tmp();
        match (op, signed) {
            (BinaryOp::Div, true) => self.emit(format!("{q} = sdiv {ty} {xa}, {d}")),
            (BinaryOp::Div, false) => self.emit(format!("{q} = udiv {ty} {xa}, {d}")),
            (_, true) => {
                let (quot, back) = (self.tmp(), self.tmp());
                self.emit(format!("{quot} = sdiv {ty} {xa}, {d}"));
                self.emit(format!("{back} = mul {ty} {quot}, {d}"));
                self.emit(format!("{q} = sub {ty} {xa}, {back}"));
            }
            (_, false) => self.emit(format!("{q} = urem {ty} {xa}, {d}")),
        }
        let r = self.tmp();
        self.emit(format!("{r} = select i1 {by_zero}, {ty} 0, {ty} {q}"));
        Ok(Val { text: r, ty })
    }

    pub(super) fn convert(&mut self, x: &Expr, e: &Expr) -> Res<Val> {
        let from = scalar_of(&x.ty, x.span)?;
        let to = scalar_of(&e.ty, e.span)?;
        let v = self.expr(x)?;
        let to_ty = scalar(to, e.span)?;
        if from == to || (from.is_integer() && to.is_integer() && v.ty == to_ty) {
            return Ok(Val {
                text: v.text,
                ty: to_ty,
            });
        }
        let t = self.tmp();
        let line = match (from.is_float(), to.is_float()) {
            (false, true) if from.is_signed_integer() => {
                format!("{t} = sitofp {} {} to {to_ty}", v.ty, v.text)
            }
            (false, true) => format!("{t} = uitofp {} {} to {to_ty}", v.ty, v.text),
            (true, false) if to.is_integer() => return self.float_to_int(v, to),
            _ => return Err(refuse(e.span, format!("the conversion {from:?} → {to:?}"))),
        };
        self.emit(line);
        Ok(Val { text: t, ty: to_ty })
    }

    /// float32 to a 32-bit integer, truncating, saturating, NaN → 0: clamped in the float
    /// domain first so that `fptosi`/`fptoui` never sees an out-of-range value.
    pub(super) fn float_to_int(&mut self, v: Val, to: ScalarType) -> Res<Val> {
        let signed = to.is_signed_integer();
        let limit = if signed { 2f64.powi(31) } else { 2f64.powi(32) };
        let below = limit - limit / 2f64.powi(24);
        let lower = if signed { -limit } else { 0.0 };
        let hi: i64 = if signed { i32::MAX as i64 } else { -1 };
        let x = &v.text;
        let (ge, c1, le, c2, r, over, r2, nan, out) = (
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
        );
        let (lo_c, up_c, lim_c) = (float_const(lower), float_const(below), float_const(limit));
        self.emit(format!("{ge} = fcmp oge float {x}, {lo_c}"));
        self.emit(format!("{c1} = select i1 {ge}, float {x}, float {lo_c}"));
        self.emit(format!("{le} = fcmp ole float {c1}, {up_c}"));
        self.emit(format!("{c2} = select i1 {le}, float {c1}, float {up_c}"));
        let inst = if signed { "fptosi" } else { "fptoui" };
        self.emit(format!("{r} = {inst} float {c2} to i32"));
        self.emit(format!("{over} = fcmp oge float {x}, {lim_c}"));
        self.emit(format!("{r2} = select i1 {over}, i32 {hi}, i32 {r}"));
        // NaN by its bits: LLVM canonicalizes `fcmp uno` and `fcmp une x, x` to an
        // `OpUnordered`, which the SPIR-V target emits although only kernels may use it.
        let (bits, mag) = (self.tmp(), self.tmp());
        self.emit(format!("{bits} = bitcast float {x} to i32"));
        self.emit(format!("{mag} = and i32 {bits}, 2147483647"));
        self.emit(format!("{nan} = icmp ugt i32 {mag}, 2139095040"));
        self.emit(format!("{out} = select i1 {nan}, i32 0, i32 {r2}"));
        Ok(Val {
            text: out,
            ty: "i32",
        })
    }
}
