//! Conversions between 8/16-bit integers and wider ones in LLVM's modules made exact however
//! a driver combines them, as the rspirv backend emits them (`kernel/spirv/arith.rs`,
//! `narrow_int`):
//!
//! - every narrowing `OpSConvert`/`OpUConvert` to an 8- or 16-bit scalar or vector gets its
//!   operand brought into the narrow range first, in the operand's width (32 or 64 bits; a
//!   16-bit operand is sign-extended to 32 first): `(x << (W - n)) >> (W - n)`, arithmetic.
//!   The wide value is then the sign extension of the narrow one;
//! - every zero extension (`OpUConvert`) of an 8- or 16-bit value is a sign extension to 32
//!   bits with the high bits masked off (then converted to the wanted width), so that a
//!   narrow value is only ever widened by its sign, which the first rule makes exact;
//! - every float-to-integer conversion (`OpConvertFToS/FToU`) to an 8- or 16-bit type
//!   converts to 32 bits and narrows that (by the first rule). LLVM's module has clamped the
//!   float into the narrow range before (the language saturates), so the value is the same.
//!
//! Why: NVIDIA's 580 driver took a narrowing conversion and the widening one after it for the
//! identity (`-v` of an int8 lane holding -128 read back as 128 on an H100;
//! `tests/device/narrow_forms.cajeta`, docs/fuzzing.md). With the operand normalized, the
//! identity is the right answer for a sign extension, and no zero extension of a narrow
//! value is left for the driver to fold.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::narrow_arith::{declares_narrow_ints, int_types, mask_const, wide_type, IntType};
use super::post::{next_id, value_types};

/// Where an instruction is: function, block and instruction positions.
type Site = (usize, usize, usize);

/// Applies both rules of the module comment: zero extensions first (they leave narrowing
/// conversions of their own for a 16-bit result), then narrowings. Returns how many
/// conversions were rewritten.
pub(crate) fn exact_narrow_conversions(m: &mut Module) -> usize {
    if !declares_narrow_ints(m) {
        return 0;
    }
    float_conversions_through_32_bits(m) + zero_extensions_by_sign(m) + normalize_narrowings(m)
}

/// Rewrites every conversion of a float to an 8- or 16-bit integer as the conversion to 32
/// bits followed by `OpUConvert` to the narrow type (normalized afterwards).
fn float_conversions_through_32_bits(m: &mut Module) -> usize {
    let types = int_types(m);
    let mut sites = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                let float_to_int = matches!(i.class.opcode, Op::ConvertFToS | Op::ConvertFToU);
                let to = int_of(&types, i.result_type.as_ref());
                if float_to_int && to.is_some_and(|t| t.width < 32) {
                    sites.push((fi, bi, ii));
                }
            }
        }
    }
    for &(fi, bi, ii) in sites.iter().rev() {
        let old = m.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(ty), Some(result), Some(to)) = (
            old.result_type,
            old.result_id,
            int_of(&types, old.result_type.as_ref()),
        ) else {
            continue;
        };
        let wide = wide_type(m, to.lanes);
        let w = next_id(m);
        let mut convert = old;
        convert.result_type = Some(wide);
        convert.result_id = Some(w);
        let seq = [
            convert,
            Instruction::new(
                Op::UConvert,
                Some(ty),
                Some(result),
                vec![Operand::IdRef(w)],
            ),
        ];
        m.functions[fi].blocks[bi].instructions.splice(ii..=ii, seq);
    }
    sites.len()
}

/// The integer type `t`, if it is one.
fn int_of(types: &HashMap<Word, IntType>, t: Option<&Word>) -> Option<IntType> {
    t.and_then(|t| types.get(t)).copied()
}

/// The positions of every conversion `op` whose operand and result widths satisfy `keep`.
fn conversion_sites(m: &Module, ops: &[Op], keep: impl Fn(u32, u32) -> bool) -> Vec<Site> {
    let types = int_types(m);
    let value_type = value_types(m);
    let mut sites = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if !ops.contains(&i.class.opcode) {
                    continue;
                }
                let Some(Operand::IdRef(x)) = i.operands.first() else {
                    continue;
                };
                let from = int_of(&types, value_type.get(x));
                let to = int_of(&types, i.result_type.as_ref());
                if let (Some(from), Some(to)) = (from, to) {
                    if keep(from.width, to.width) {
                        sites.push((fi, bi, ii));
                    }
                }
            }
        }
    }
    sites
}

/// Rewrites every `OpUConvert` from an 8- or 16-bit value to a wider one as `OpSConvert` to
/// 32 bits, `&` the narrow mask, and (for a result other than 32 bits) `OpUConvert` of that.
fn zero_extensions_by_sign(m: &mut Module) -> usize {
    let sites = conversion_sites(m, &[Op::UConvert], |from, to| from < 32 && to > from);
    let types = int_types(m);
    let value_type = value_types(m);
    // Back to front, so that earlier positions in a block stay valid.
    for &(fi, bi, ii) in sites.iter().rev() {
        let old = m.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(ty), Some(result), Some(Operand::IdRef(x))) =
            (old.result_type, old.result_id, old.operands.first())
        else {
            continue;
        };
        let (Some(from), Some(to)) = (int_of(&types, value_type.get(x)), int_of(&types, Some(&ty)))
        else {
            continue;
        };
        let wide = wide_type(m, from.lanes);
        let mask = mask_const(m, wide, from.lanes, (1u32 << from.width) - 1);
        // A 32-bit result of the mask's own type is the mask itself.
        let direct = to.width == 32 && ty == wide;
        let extended = next_id(m);
        let masked = if direct { result } else { next_id(m) };
        let mut seq = vec![
            Instruction::new(
                Op::SConvert,
                Some(wide),
                Some(extended),
                vec![Operand::IdRef(*x)],
            ),
            Instruction::new(
                Op::BitwiseAnd,
                Some(wide),
                Some(masked),
                vec![Operand::IdRef(extended), Operand::IdRef(mask)],
            ),
        ];
        if !direct {
            // Another width (or a 32-bit type of other signedness): converted from 32 bits.
            let opcode = if to.width == 32 {
                Op::Bitcast
            } else {
                Op::UConvert
            };
            seq.push(Instruction::new(
                opcode,
                Some(ty),
                Some(result),
                vec![Operand::IdRef(masked)],
            ));
        }
        m.functions[fi].blocks[bi].instructions.splice(ii..=ii, seq);
    }
    sites.len()
}

/// Rewrites every narrowing conversion to an 8- or 16-bit type so that its operand is
/// brought into the narrow range first (see the module comment).
fn normalize_narrowings(m: &mut Module) -> usize {
    let sites = conversion_sites(m, &[Op::SConvert, Op::UConvert], |from, to| {
        to < 32 && from > to
    });
    let types = int_types(m);
    let value_type = value_types(m);
    for &(fi, bi, ii) in sites.iter().rev() {
        let old = m.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(ty), Some(Operand::IdRef(x))) = (old.result_type, old.operands.first()) else {
            continue;
        };
        let (Some(from_ty), Some(to)) = (value_type.get(x).copied(), int_of(&types, Some(&ty)))
        else {
            continue;
        };
        let Some(from) = int_of(&types, Some(&from_ty)) else {
            continue;
        };
        let mut seq = Vec::new();
        // A 16-bit operand is sign-extended to 32 bits first (exact: no narrowing).
        let (x, wty, width) = if from.width < 32 {
            let wide = wide_type(m, from.lanes);
            let w = next_id(m);
            seq.push(Instruction::new(
                Op::SConvert,
                Some(wide),
                Some(w),
                vec![Operand::IdRef(*x)],
            ));
            (w, wide, 32)
        } else {
            (*x, from_ty, from.width)
        };
        let k = shift_const(m, wty, width, from.lanes, width - to.width);
        let (up, norm) = (next_id(m), next_id(m));
        seq.push(Instruction::new(
            Op::ShiftLeftLogical,
            Some(wty),
            Some(up),
            vec![Operand::IdRef(x), Operand::IdRef(k)],
        ));
        seq.push(Instruction::new(
            Op::ShiftRightArithmetic,
            Some(wty),
            Some(norm),
            vec![Operand::IdRef(up), Operand::IdRef(k)],
        ));
        let mut conv = old;
        conv.operands[0] = Operand::IdRef(norm);
        seq.push(conv);
        m.functions[fi].blocks[bi].instructions.splice(ii..=ii, seq);
    }
    sites.len()
}

/// A shift count `value` for a base of type `ty` (`width` bits, `lanes` lanes): a `uint32`
/// (vector) for 32 bits, a constant of `ty`'s own scalar type for 64.
fn shift_const(m: &mut Module, ty: Word, width: u32, lanes: u32, value: u32) -> Word {
    if width == 32 {
        let wide = wide_type(m, lanes);
        return mask_const(m, wide, lanes, value);
    }
    let scalar = scalar_of(m, ty);
    let c = super::post::u64_const(m, scalar, u64::from(value));
    super::narrow_arith::splat_const(m, ty, c, lanes)
}

/// The component type of the vector type `ty`, or `ty` itself.
fn scalar_of(m: &Module, ty: Word) -> Word {
    m.types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeVector && i.result_id == Some(ty))
        .and_then(|i| match i.operands.first() {
            Some(Operand::IdRef(c)) => Some(*c),
            _ => None,
        })
        .unwrap_or(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowings_are_normalized_and_zero_extensions_go_by_the_sign() {
        let mut b = rspirv::dr::Builder::new();
        b.set_version(1, 6);
        let void = b.type_void();
        let fn_ty = b.type_function(void, []);
        let i8t = b.type_int(8, 0);
        let i16t = b.type_int(16, 0);
        let i32t = b.type_int(32, 0);
        let i64t = b.type_int(64, 0);
        let f32t = b.type_float(32, None);
        let fl = b.constant_bit32(f32t, (-128.0f32).to_bits());
        let x = b.constant_bit32(i32t, 0x1_80);
        let y = b.constant_bit64(i64t, 0x1_0000_8000);
        b.begin_function(void, None, rspirv::spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        let n8 = b.u_convert(i8t, None, x).unwrap();
        b.u_convert(i16t, None, y).unwrap();
        b.u_convert(i32t, None, n8).unwrap();
        b.u_convert(i16t, None, n8).unwrap();
        b.s_convert(i32t, None, n8).unwrap();
        b.convert_f_to_s(i8t, None, fl).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        // A float conversion, two zero extensions, then four narrowings (one made by the
        // 8-to-16 extension, one by the float conversion).
        assert_eq!(exact_narrow_conversions(&mut m), 7);
        let ops: Vec<Op> = m.functions[0].blocks[0]
            .instructions
            .iter()
            .map(|i| i.class.opcode)
            .collect();
        use Op::*;
        let want = [
            // 32 to 8 bits: shifted by 24 in 32 bits.
            ShiftLeftLogical,
            ShiftRightArithmetic,
            UConvert,
            // 64 to 16 bits: shifted by 48 in 64 bits.
            ShiftLeftLogical,
            ShiftRightArithmetic,
            UConvert,
            // 8 to 32 bits, zero: sign-extended and masked.
            SConvert,
            BitwiseAnd,
            // 8 to 16 bits, zero: sign-extended, masked, narrowed back.
            SConvert,
            BitwiseAnd,
            ShiftLeftLogical,
            ShiftRightArithmetic,
            UConvert,
            // A sign extension is left alone.
            SConvert,
            // Float to 8 bits: to 32 bits, then narrowed.
            ConvertFToS,
            ShiftLeftLogical,
            ShiftRightArithmetic,
            UConvert,
            Return,
        ];
        assert_eq!(ops, want);
        let counts: Vec<&Operand> = m.functions[0].blocks[0]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == ShiftLeftLogical)
            .map(|i| &i.operands[1])
            .collect();
        let value = |o: &Operand| {
            let Operand::IdRef(id) = o else {
                panic!("{o:?}")
            };
            m.types_global_values
                .iter()
                .find(|i| i.result_id == Some(*id))
                .map(|i| i.operands[0].clone())
        };
        assert_eq!(value(counts[0]), Some(Operand::LiteralBit32(24)));
        assert_eq!(value(counts[1]), Some(Operand::LiteralBit64(48)));
        assert_eq!(value(counts[2]), Some(Operand::LiteralBit32(16)));
    }
}
