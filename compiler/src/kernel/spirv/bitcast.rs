//! Bit casts between floats and the integers of their width: one `OpBitcast`, except for
//! `bfloat16`, which lives in float32 registers (its encoding is their 16 high bits).

use rspirv::spirv::{Op, Word};

use super::function::FnCx;
use super::{unsupported, Res};
use crate::ir::{BitCast, Expr, ScalarType};

impl FnCx<'_, '_> {
    /// Lowers `Float.floatToRawIntBits(x)` and the other [`BitCast`] methods.
    pub(crate) fn bit_cast(&mut self, c: BitCast, args: &[Expr], e: &Expr) -> Res<Word> {
        let [arg] = args else {
            return Err(unsupported(
                e.span,
                "internal error: a bit cast has one operand",
            ));
        };
        let Some(from) = arg.ty.as_scalar() else {
            return Err(unsupported(
                arg.span,
                "internal error: bit cast of a non-scalar",
            ));
        };
        let x = self.expr(arg)?;
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        match c {
            BitCast::ToBits | BitCast::ToBitsCanonical => {
                let bits = if from == ScalarType::BF16 {
                    // The float32 register holds a bfloat16 value exactly: its high half.
                    let i32t = self.cx.int_type(32, true);
                    let wide = self.op(Op::Bitcast, i32t, &[x])?;
                    let sixteen = self.cx.const_int(ScalarType::I32, 16, e.span)?;
                    let high = self.op(Op::ShiftRightArithmetic, i32t, &[wide, sixteen])?;
                    self.op(Op::SConvert, ty, &[high])?
                } else {
                    self.op(Op::Bitcast, ty, &[x])?
                };
                if c == BitCast::ToBits {
                    return Ok(bits);
                }
                let to = e.ty.as_scalar().unwrap_or(ScalarType::I32);
                let canonical =
                    self.cx
                        .const_int(to, i128::from(BitCast::canonical_nan(from)), e.span)?;
                let bool_ty = self.cx.bool_type();
                let nan = self.op(Op::IsNan, bool_ty, &[x])?;
                self.op(Op::Select, ty, &[nan, canonical, bits])
            }
            BitCast::ToFloat(ScalarType::BF16) => {
                let i32t = self.cx.int_type(32, true);
                let wide = self.op(Op::SConvert, i32t, &[x])?;
                let sixteen = self.cx.const_int(ScalarType::I32, 16, e.span)?;
                let high = self.op(Op::ShiftLeftLogical, i32t, &[wide, sixteen])?;
                self.op(Op::Bitcast, ty, &[high])
            }
            BitCast::ToFloat(_) => self.op(Op::Bitcast, ty, &[x]),
        }
    }
}
