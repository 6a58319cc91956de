//! `IntegerDot.*`: dot products of four 8-bit lanes accumulated in 32 bits. Natively
//! `OpSDot`/`OpUDot`/`OpSUDot` (and their `AccSat` forms) where the target device has
//! `shaderIntegerDotProduct`; otherwise the same value computed lane by lane, which is exact
//! (a product of two 8-bit lanes and a sum of four fit easily in 32 bits).

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Op, PackedVectorFormat, Word};

use super::function::FnCx;
use super::{unsupported, Res};
use crate::ir::{Expr, ScalarType, Type};

/// The device feature behind the native instructions.
const INTEGER_DOT: &str = "shaderIntegerDotProduct";

impl FnCx<'_, '_> {
    /// Lowers `IntegerDot.sdot(a, b)` and the other forms (`args`: a, b and, with
    /// `acc_sat`, the accumulator).
    pub(crate) fn int_dot(&mut self, acc_sat: bool, args: &[Expr], e: &Expr) -> Res<Word> {
        let want = if acc_sat { 3 } else { 2 };
        if args.len() != want {
            return Err(unsupported(e.span, "internal error: IntegerDot arity"));
        }
        let signed = |t: &Type| match t {
            Type::Vector(s, _) | Type::Scalar(s) => s.is_signed_integer(),
            _ => false,
        };
        let packed = matches!(args[0].ty, Type::Scalar(_));
        let (sa, sb) = (signed(&args[0].ty), signed(&args[1].ty));
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a)?);
        }
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        if self.cx.mem.has_feature(INTEGER_DOT) {
            return self.native_int_dot(acc_sat, packed, (sa, sb), &vals, ty);
        }
        let dot = self.emulated_int_dot(packed, (sa, sb), &vals, e)?;
        if !acc_sat {
            return Ok(dot);
        }
        self.saturating_add(vals[2], dot, e.ty.as_scalar().unwrap_or(ScalarType::I32), e)
    }

    fn native_int_dot(
        &mut self,
        acc_sat: bool,
        packed: bool,
        (sa, sb): (bool, bool),
        vals: &[Word],
        ty: Word,
    ) -> Res<Word> {
        let f = &mut self.cx.features;
        f.require(Capability::DotProduct);
        f.require(if packed {
            Capability::DotProductInput4x8BitPacked
        } else {
            Capability::DotProductInput4x8Bit
        });
        f.vulkan_feature(INTEGER_DOT);
        if self.cx.env.spirv_version() < (1, 6) {
            self.cx.features.extension("SPV_KHR_integer_dot_product");
        }
        let op = match (sa, sb, acc_sat) {
            (true, true, false) => Op::SDot,
            (false, false, false) => Op::UDot,
            (_, _, false) => Op::SUDot,
            (true, true, true) => Op::SDotAccSat,
            (false, false, true) => Op::UDotAccSat,
            (_, _, true) => Op::SUDotAccSat,
        };
        let mut operands: Vec<Operand> = vals.iter().map(|&v| Operand::IdRef(v)).collect();
        if packed {
            operands.push(Operand::PackedVectorFormat(
                PackedVectorFormat::PackedVectorFormat4x8Bit,
            ));
        }
        self.emit(op, Some(ty), operands)
    }

    /// The four lane products summed in int32 (uint32 when both operands are unsigned).
    fn emulated_int_dot(
        &mut self,
        packed: bool,
        (sa, sb): (bool, bool),
        vals: &[Word],
        e: &Expr,
    ) -> Res<Word> {
        let unsigned = !sa && !sb;
        let lane_ty = self.cx.int_type(32, !unsigned);
        let mut sum = None;
        for lane in 0..4u32 {
            let a = self.int_dot_lane(vals[0], sa, packed, lane, lane_ty)?;
            let b = self.int_dot_lane(vals[1], sb, packed, lane, lane_ty)?;
            let p = self.op(Op::IMul, lane_ty, &[a, b])?;
            sum = Some(match sum {
                None => p,
                Some(s) => self.op(Op::IAdd, lane_ty, &[s, p])?,
            });
        }
        let sum = sum.unwrap_or_default();
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        if ty == lane_ty {
            Ok(sum)
        } else {
            self.op(Op::Bitcast, ty, &[sum])
        }
    }

    /// Lane `lane` of a dot operand, sign- or zero-extended to 32 bits (of type `lane_ty`).
    fn int_dot_lane(
        &mut self,
        v: Word,
        signed: bool,
        packed: bool,
        lane: u32,
        lane_ty: Word,
    ) -> Res<Word> {
        if packed {
            let word = self.op(Op::Bitcast, lane_ty, &[v])?;
            let offset = self.cx.const_u32(8 * lane);
            let count = self.cx.const_u32(8);
            let extract = if signed {
                Op::BitFieldSExtract
            } else {
                Op::BitFieldUExtract
            };
            return self.op(extract, lane_ty, &[word, offset, count]);
        }
        let byte_ty = self.cx.int_type(8, signed);
        let byte = self.emit(
            Op::CompositeExtract,
            Some(byte_ty),
            vec![Operand::IdRef(v), Operand::LiteralBit32(lane)],
        )?;
        let wide_ty = self.cx.int_type(32, signed);
        let convert = if signed { Op::SConvert } else { Op::UConvert };
        let wide = self.op(convert, wide_ty, &[byte])?;
        if wide_ty == lane_ty {
            Ok(wide)
        } else {
            self.op(Op::Bitcast, lane_ty, &[wide])
        }
    }

    /// `acc + d` saturated to the range of `s` (int32 or uint32); `d` is a dot product, small
    /// enough that only one direction can overflow for a given sign of `d`.
    fn saturating_add(&mut self, acc: Word, d: Word, s: ScalarType, e: &Expr) -> Res<Word> {
        let ty = self.cx.ir_value_type(&Type::Scalar(s), e.span)?;
        let bool_ty = self.cx.bool_type();
        let sum = self.op(Op::IAdd, ty, &[acc, d])?;
        if !s.is_signed_integer() {
            // Unsigned: overflow wrapped below the accumulator.
            let max = self.cx.const_int(s, i128::from(u32::MAX), e.span)?;
            let wrapped = self.op(Op::ULessThan, bool_ty, &[sum, acc])?;
            return self.op(Op::Select, ty, &[wrapped, max, sum]);
        }
        let zero = self.cx.const_int(s, 0, e.span)?;
        let max = self.cx.const_int(s, i128::from(i32::MAX), e.span)?;
        let min = self.cx.const_int(s, i128::from(i32::MIN), e.span)?;
        // Overflow: the sum's sign differs from both operands' (which agree).
        let d_neg = self.op(Op::SLessThan, bool_ty, &[d, zero])?;
        let up = self.op(Op::SLessThan, bool_ty, &[sum, acc])?;
        let down = self.op(Op::SGreaterThan, bool_ty, &[sum, acc])?;
        let not_neg = self.op(Op::LogicalNot, bool_ty, &[d_neg])?;
        let over = self.op(Op::LogicalAnd, bool_ty, &[not_neg, up])?;
        let under = self.op(Op::LogicalAnd, bool_ty, &[d_neg, down])?;
        let r = self.op(Op::Select, ty, &[over, max, sum])?;
        self.op(Op::Select, ty, &[under, min, r])
    }
}
