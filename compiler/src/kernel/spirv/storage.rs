//! Values between their register form and their stored form: booleans as `uint32`,
//! `bfloat16` as the top 16 bits of a float32 (rounded to nearest even), vectors lane by lane.

use super::function::FnCx;
use super::{unsupported, Res};
use crate::ir::ScalarType;
use rspirv::spirv::{Op, Word};

impl FnCx<'_, '_> {
    /// A stored value in its register form: a `uint32` (or vector of them) read back as a
    /// boolean (`!= 0`), the 16 bits of a `bfloat16` widened to the float32 they are the top
    /// half of.
    pub(crate) fn read_stored(&mut self, v: Word, ty: ScalarType, lanes: u8) -> Res<Word> {
        match ty {
            ScalarType::Bool if lanes > 1 => {
                let bool_ty = self.cx.bool_type();
                let zero = self.cx.const_u32(0);
                let bvec = self.cx.vector_type(bool_ty, u32::from(lanes));
                let uint = self.cx.u32_type();
                let uvec = self.cx.vector_type(uint, u32::from(lanes));
                let zeros = self.cx.const_composite(uvec, vec![zero; lanes as usize]);
                self.op(Op::INotEqual, bvec, &[v, zeros])
            }
            ScalarType::Bool => {
                let bool_ty = self.cx.bool_type();
                let zero = self.cx.const_u32(0);
                self.op(Op::INotEqual, bool_ty, &[v, zero])
            }
            ScalarType::BF16 if lanes > 1 => Err(unsupported(
                self.func.span,
                "vectors of bfloat16 are not supported yet",
            )),
            ScalarType::BF16 => {
                let u32_ty = self.cx.u32_type();
                let f32_ty = self.cx.float_type(32);
                let wide = self.op(Op::UConvert, u32_ty, &[v])?;
                let sixteen = self.cx.const_u32(16);
                let bits = self.op(Op::ShiftLeftLogical, u32_ty, &[wide, sixteen])?;
                self.op(Op::Bitcast, f32_ty, &[bits])
            }
            _ => Ok(v),
        }
    }

    /// A value loaded from memory of SPIR-V type `storage` in its register form; float32
    /// elements kept as bits (a bit view, for compare-exchange atomics) are bitcast back.
    pub(crate) fn stored_value(
        &mut self,
        v: Word,
        elem: ScalarType,
        storage: Word,
        lanes: u8,
    ) -> Res<Word> {
        if elem == ScalarType::F32 && lanes == 1 && storage == self.cx.u32_type() {
            let f = self.cx.float_type(32);
            return self.op(Op::Bitcast, f, &[v]);
        }
        self.read_stored(v, elem, lanes)
    }

    /// A register value in its stored form, bit views included (see [`Self::stored_value`]).
    pub(crate) fn value_to_store(
        &mut self,
        v: Word,
        elem: ScalarType,
        storage: Word,
        lanes: u8,
    ) -> Res<Word> {
        if elem == ScalarType::F32 && lanes == 1 && storage == self.cx.u32_type() {
            return self.op(Op::Bitcast, storage, &[v]);
        }
        self.write_stored(v, elem, storage, lanes)
    }

    /// A register value in its stored form (inverse of [`Self::read_stored`]); `storage` is
    /// the stored type (a `uint32` vector for a boolean vector).
    pub(crate) fn write_stored(
        &mut self,
        v: Word,
        ty: ScalarType,
        storage: Word,
        lanes: u8,
    ) -> Res<Word> {
        match ty {
            ScalarType::Bool => {
                let mut one = self.cx.const_u32(1);
                let mut zero = self.cx.const_u32(0);
                if lanes > 1 {
                    one = self.cx.const_composite(storage, vec![one; lanes as usize]);
                    zero = self.cx.const_composite(storage, vec![zero; lanes as usize]);
                }
                self.op(Op::Select, storage, &[v, one, zero])
            }
            ScalarType::BF16 if lanes > 1 => Err(unsupported(
                self.func.span,
                "vectors of bfloat16 are not supported yet",
            )),
            ScalarType::BF16 => {
                // The register already holds a bfloat16-exact float32: keep the top 16 bits.
                let u32_ty = self.cx.u32_type();
                let bits = self.op(Op::Bitcast, u32_ty, &[v])?;
                let sixteen = self.cx.const_u32(16);
                let high = self.op(Op::ShiftRightLogical, u32_ty, &[bits, sixteen])?;
                self.op(Op::UConvert, storage, &[high])
            }
            _ => Ok(v),
        }
    }

    /// Rounds a float32 register to bfloat16 precision, to nearest even (NaN stays NaN).
    pub(crate) fn round_bf16(&mut self, v: Word) -> Res<Word> {
        let u32_ty = self.cx.u32_type();
        let f32_ty = self.cx.float_type(32);
        let bool_ty = self.cx.bool_type();
        let bits = self.op(Op::Bitcast, u32_ty, &[v])?;
        let sixteen = self.cx.const_u32(16);
        let one = self.cx.const_u32(1);
        let shifted = self.op(Op::ShiftRightLogical, u32_ty, &[bits, sixteen])?;
        let lsb = self.op(Op::BitwiseAnd, u32_ty, &[shifted, one])?;
        let half = self.cx.const_u32(0x7FFF);
        let bias = self.op(Op::IAdd, u32_ty, &[half, lsb])?;
        let rounded = self.op(Op::IAdd, u32_ty, &[bits, bias])?;
        let quiet = self.cx.const_u32(0x0040_0000);
        let nan_bits = self.op(Op::BitwiseOr, u32_ty, &[bits, quiet])?;
        let is_nan = self.op(Op::IsNan, bool_ty, &[v])?;
        let chosen = self.op(Op::Select, u32_ty, &[is_nan, nan_bits, rounded])?;
        let mask = self.cx.const_u32(0xFFFF_0000);
        let out = self.op(Op::BitwiseAnd, u32_ty, &[chosen, mask])?;
        self.op(Op::Bitcast, f32_ty, &[out])
    }
}
