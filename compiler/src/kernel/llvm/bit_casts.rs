//! Bit casts between floats and the integers of their width (`Float.floatToRawIntBits`…),
//! as the rspirv backend lowers them: one `bitcast`, except for `bfloat16`, whose encoding
//! is the 16 high bits of its float32 register.

use super::lower::{FnLower, Val};
use super::refuse;
use super::types::{self, int_const};
use crate::diagnostics::Diagnostic;
use crate::ir::{BitCast, Expr, ScalarType};

impl FnLower<'_> {
    /// Lowers `Float.floatToRawIntBits(x)` and the other [`BitCast`] methods.
    pub(super) fn bit_cast(
        &mut self,
        c: BitCast,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Val, Diagnostic> {
        let [arg] = args else {
            return Err(refuse(e.span, "a malformed bit cast"));
        };
        let Some(from) = arg.ty.as_scalar() else {
            return Err(refuse(arg.span, "a bit cast of a non-scalar"));
        };
        let x = self.expr(arg)?;
        let ty = types::value(&e.ty, e.span)?;
        let t = self.tmp();
        match c {
            BitCast::ToBits | BitCast::ToBitsCanonical => {
                let bits = if from == ScalarType::BF16 {
                    let wide = self.opaque_bitcast(&x, "i32");
                    let high = self.tmp();
                    self.emit(format!("{high} = ashr i32 {}, 16", wide.text));
                    self.emit(format!("{t} = trunc i32 {high} to {ty}"));
                    t
                } else {
                    self.opaque_bitcast(&x, ty).text
                };
                if c == BitCast::ToBits {
                    return Ok(Val::new(bits, ty));
                }
                // NaN by the register's bits (see `float_to_int`).
                let w = if from == ScalarType::BF16 {
                    32
                } else {
                    from.bits()
                };
                let wty = format!("i{w}");
                let unsigned = match w {
                    16 => ScalarType::U16,
                    64 => ScalarType::U64,
                    _ => ScalarType::U32,
                };
                let fraction = if from == ScalarType::BF16 {
                    23
                } else {
                    from.mantissa_bits() - 1
                };
                let mask = int_const(unsigned, (1u64 << (w - 1)) - 1);
                let inf = int_const(unsigned, ((1u64 << (w - 1 - fraction)) - 1) << fraction);
                let [rb, mag, nan, out] = self.tmps();
                self.emit(format!("{rb} = bitcast {} {} to {wty}", x.ty, x.text));
                self.emit(format!("{mag} = and {wty} {rb}, {mask}"));
                self.emit(format!("{nan} = icmp ugt {wty} {mag}, {inf}"));
                let to = e.ty.as_scalar().unwrap_or(ScalarType::I32);
                let canonical = int_const(to, BitCast::canonical_nan(from));
                self.emit(format!(
                    "{out} = select i1 {nan}, {ty} {canonical}, {ty} {bits}"
                ));
                Ok(Val::new(out, ty))
            }
            BitCast::ToFloat(ScalarType::BF16) => {
                let (wide, high) = (self.tmp(), self.tmp());
                self.emit(format!("{wide} = sext {} {} to i32", x.ty, x.text));
                self.emit(format!("{high} = shl i32 {wide}, 16"));
                Ok(self.opaque_bitcast(&Val::new(high, "i32"), "float"))
            }
            BitCast::ToFloat(_) => Ok(self.opaque_bitcast(&x, ty)),
        }
    }

    /// `x` reinterpreted as `ty` through `llvm.spv.bitcast` (one `OpBitcast`) rather than a
    /// `bitcast` instruction, which `instcombine` folds into the neighbouring load or store
    /// (a load or store of the other type through the same pointer): LLVM 23.1's SPIR-V
    /// target crashed (a segmentation fault) on an `i32` bit cast of a `float` buffer
    /// element stored to an `i32` buffer.
    pub(super) fn opaque_bitcast(&mut self, x: &Val, ty: &'static str) -> Val {
        if self.target == super::target::Target::Cpu {
            // (A work-around for the SPIR-V target only.)
            let t = self.tmp();
            self.emit(format!("{t} = bitcast {} {} to {ty}", x.ty, x.text));
            return Val::new(t, ty);
        }
        let name = format!(
            "llvm.spv.bitcast.{}.{}",
            types::mangle(ty),
            types::mangle(x.ty)
        );
        self.declare(format!("declare {ty} @{name}({})", x.ty));
        let t = self.tmp();
        self.emit(format!("{t} = call {ty} @{name}({} {})", x.ty, x.text));
        Val::new(t, ty)
    }
}
