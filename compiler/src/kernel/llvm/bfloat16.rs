//! `bfloat16` as the rspirv backend computes it: values live in `float` registers, every
//! operation's result (unary, binary, conversion, intrinsic) is rounded to bfloat16 to
//! nearest even (NaN stays NaN, quieted), and memory holds the 16 high bits of the float32
//! (a `uint16`). Vectors of `bfloat16` are refused, as in the rspirv backend.

use super::lower::{FnLower, Val};
use crate::ir::{Expr, ExprKind, ScalarType, Type};

impl FnLower<'_> {
    /// Whether `e`'s result is rounded to bfloat16 (an operation of that type).
    pub(super) fn rounds_to_bf16(e: &Expr) -> bool {
        e.ty == Type::Scalar(ScalarType::BF16)
            && matches!(
                e.kind,
                ExprKind::Unary(..)
                    | ExprKind::Binary(..)
                    | ExprKind::Convert(_)
                    | ExprKind::Intrinsic { .. }
            )
    }

    /// Rounds the float32 `v` to bfloat16 precision, to nearest even; a NaN keeps its
    /// payload's top bits and is quieted (the rspirv backend's bit sequence).
    pub(super) fn round_bf16(&mut self, v: Val) -> Val {
        // Through `llvm.spv.bitcast` for the SPIR-V target: a plain `bitcast` of a float just
        // loaded from a buffer becomes an `i32` load of the float buffer, which LLVM 23.1's
        // SPIR-V target reads as 0 (`bit_casts::opaque_bitcast`).
        let bits = self.opaque_bitcast(&v, "i32").text;
        let [shifted, lsb, bias, rounded, quiet, mag, nan, chosen, out, f] = self.tmps();
        self.emit(format!("{shifted} = lshr i32 {bits}, 16"));
        self.emit(format!("{lsb} = and i32 {shifted}, 1"));
        self.emit(format!("{bias} = add i32 {lsb}, 32767"));
        self.emit(format!("{rounded} = add i32 {bits}, {bias}"));
        self.emit(format!("{quiet} = or i32 {bits}, 4194304"));
        // NaN by its bits (see `float_to_int`).
        self.emit(format!("{mag} = and i32 {bits}, 2147483647"));
        self.emit(format!("{nan} = icmp ugt i32 {mag}, 2139095040"));
        self.emit(format!(
            "{chosen} = select i1 {nan}, i32 {quiet}, i32 {rounded}"
        ));
        self.emit(format!("{out} = and i32 {chosen}, -65536"));
        self.emit(format!("{f} = bitcast i32 {out} to float"));
        Val::new(f, "float")
    }

    /// A bfloat16 register as stored: its 16 high bits.
    pub(super) fn bf16_to_bits(&mut self, v: Val) -> Val {
        let bits = self.opaque_bitcast(&v, "i32").text;
        let [high, t] = self.tmps();
        self.emit(format!("{high} = lshr i32 {bits}, 16"));
        self.emit(format!("{t} = trunc i32 {high} to i16"));
        Val::new(t, "i16")
    }

    /// Stored bfloat16 bits as a float32 register.
    pub(super) fn bf16_from_bits(&mut self, v: Val) -> Val {
        let [wide, bits, f] = self.tmps();
        self.emit(format!("{wide} = zext i16 {} to i32", v.text));
        self.emit(format!("{bits} = shl i32 {wide}, 16"));
        self.emit(format!("{f} = bitcast i32 {bits} to float"));
        Val::new(f, "float")
    }
}
