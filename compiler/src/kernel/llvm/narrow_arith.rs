//! 8- and 16-bit integer operations of LLVM's modules computed in 32 bits: every `OpIAdd`,
//! `OpISub`, `OpIMul`, `OpSNegate`, shift, bitwise operation (`OpBitwiseAnd/Or/Xor`,
//! `OpNot`), division and remainder (`OpSDiv/UDiv/SRem/SMod/UMod`) on 8- or 16-bit scalars
//! or vectors becomes the 32-bit operation on the operands converted to 32 bits, converted
//! back; every integer comparison of 8- or 16-bit operands compares them extended to 32 bits
//! (by the comparison's signedness). The value is the same by construction; this is what the
//! rspirv backend emits (`kernel/spirv/arith.rs`, `narrow_in_32_bits`). A shift's count is
//! masked to the narrow width first, as the source's shifts are (LLVM may drop the source's
//! mask; below). The narrowing conversions this leaves are then made safe by
//! `narrow_convert`.
//!
//! Why: NVIDIA's 580 driver computes an int8 or int16 multiply or left shift of a negated
//! value that wraps to the type's minimum as its positive twin (`((int8) -t) * 4` for t = 32
//! gave 128, not -128; measured on an H100, `tests/device/narrow_wrap.cajeta`,
//! docs/fuzzing.md), while the same arithmetic in 32 bits followed by a narrowing conversion
//! is right; further narrow forms (bitwise, division, comparisons) went wrong in the fuzz
//! campaign on it until the rspirv backend did them in 32 bits too. LLVM's instcombine
//! narrows widened arithmetic back to i8/i16 in the IR, so the rewrite is made on the
//! finished SPIR-V, after LLVM.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::post::{next_id, type_id};

/// An integer type of the module: its scalar width, signedness and lane count (1 for a
/// scalar).
#[derive(Clone, Copy)]
pub(super) struct IntType {
    pub(super) width: u32,
    pub(super) signed: bool,
    pub(super) lanes: u32,
}

/// How an operand is extended to 32 bits.
#[derive(Clone, Copy, PartialEq)]
enum Extend {
    /// Sign extension (`OpSConvert`): the value of a signed narrow integer.
    Sign,
    /// Zero extension (`OpUConvert`): an unsigned value (a logical shift's base, any
    /// shift's count).
    Zero,
}

/// The extension each operand of `op` gets, if `op` is one this pass widens. Add, subtract,
/// multiply, negate, left shift and the bitwise operations keep the low bits whatever the
/// extension; the right shifts, division, remainder and the ordered comparisons need the one
/// that keeps their meaning (sign for the signed forms, zero for the unsigned ones); the
/// equality tests hold with either and take the sign, consistently.
fn operand_extensions(op: Op) -> Option<[Extend; 2]> {
    use Op::*;
    match op {
        IAdd | ISub | IMul | SNegate | BitwiseAnd | BitwiseOr | BitwiseXor | Not => {
            Some([Extend::Sign; 2])
        }
        ShiftLeftLogical | ShiftRightArithmetic => Some([Extend::Sign, Extend::Zero]),
        ShiftRightLogical => Some([Extend::Zero, Extend::Zero]),
        SDiv | SRem | SMod => Some([Extend::Sign; 2]),
        UDiv | UMod => Some([Extend::Zero; 2]),
        IEqual | INotEqual => Some([Extend::Sign; 2]),
        SLessThan | SLessThanEqual | SGreaterThan | SGreaterThanEqual => Some([Extend::Sign; 2]),
        ULessThan | ULessThanEqual | UGreaterThan | UGreaterThanEqual => Some([Extend::Zero; 2]),
        _ => None,
    }
}

/// Whether `op` is a shift (its count is masked to the narrow width).
fn is_shift(op: Op) -> bool {
    matches!(
        op,
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic
    )
}

/// Whether `op` is an integer comparison: its result is a bool, and its operands' type is
/// the one that decides whether it is narrow.
fn is_comparison(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IEqual
            | INotEqual
            | SLessThan
            | SLessThanEqual
            | SGreaterThan
            | SGreaterThanEqual
            | ULessThan
            | ULessThanEqual
            | UGreaterThan
            | UGreaterThanEqual
    )
}

/// Rewrites every 8- and 16-bit add, subtract, multiply, negate, shift, bitwise operation,
/// division, remainder and comparison (see the module comment). Returns how many were
/// rewritten.
pub(crate) fn arithmetic_in_32_bits(m: &mut Module) -> usize {
    if !declares_narrow_ints(m) {
        return 0;
    }
    let types = int_types(m);
    let value_type = super::post::value_types(m);
    let narrow = |t: Option<Word>| {
        t.and_then(|t| types.get(&t))
            .filter(|it| it.width < 32)
            .copied()
    };
    // The type that makes `i` narrow: its result's, or a comparison's first operand's.
    let operated_type = |i: &Instruction| {
        if is_comparison(i.class.opcode) {
            match i.operands.first() {
                Some(Operand::IdRef(x)) => value_type.get(x).copied(),
                _ => None,
            }
        } else {
            i.result_type
        }
    };
    let mut sites = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if operand_extensions(i.class.opcode).is_some()
                    && narrow(operated_type(i)).is_some()
                {
                    sites.push((fi, bi, ii, operated_type(i)));
                }
            }
        }
    }
    // Back to front, so that earlier positions in a block stay valid.
    for &(fi, bi, ii, operated) in sites.iter().rev() {
        let old = m.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(ty), Some(result), Some(it), Some(ext)) = (
            old.result_type,
            old.result_id,
            narrow(operated),
            operand_extensions(old.class.opcode),
        ) else {
            continue;
        };
        let wide = wide_type(m, it.lanes);
        let mut seq = Vec::new();
        let mut wide_args = Vec::new();
        for (k, operand) in old.operands.iter().enumerate() {
            let Operand::IdRef(x) = operand else {
                continue;
            };
            // A shift's count may have a width of its own (SPIR-V only asks for the same
            // lane count); one of 32 bits is only retyped.
            if value_type.get(x) == Some(&wide) {
                wide_args.push(*x);
                continue;
            }
            let from = value_type.get(x).and_then(|t| types.get(t));
            let opcode = match (from.map(|f| f.width), ext[k.min(1)]) {
                (Some(32), _) => Op::Bitcast,
                (_, Extend::Sign) => Op::SConvert,
                (_, Extend::Zero) => Op::UConvert,
            };
            let w = next_id(m);
            seq.push(Instruction::new(
                opcode,
                Some(wide),
                Some(w),
                vec![Operand::IdRef(*x)],
            ));
            wide_args.push(w);
        }
        if is_shift(old.class.opcode) {
            // A shift: its count masked to the narrow width, as the source's shifts are.
            // LLVM's module does not always keep the mask it was given (seen: `x >>> (c &
            // 7)` on an int8, fuzz seed 48 program 108, emitted as a shift by `c`): the
            // narrow shift is undefined from a count of 8 on (lavapipe masks it), and the
            // 32-bit one would shift those bits out.
            let mask = mask_const(m, wide, it.lanes, it.width - 1);
            let masked = next_id(m);
            seq.push(Instruction::new(
                Op::BitwiseAnd,
                Some(wide),
                Some(masked),
                vec![Operand::IdRef(wide_args[1]), Operand::IdRef(mask)],
            ));
            wide_args[1] = masked;
        }
        if is_comparison(old.class.opcode) {
            // A bool: nothing to narrow back.
            seq.push(Instruction::new(
                old.class.opcode,
                Some(ty),
                Some(result),
                wide_args.into_iter().map(Operand::IdRef).collect(),
            ));
            m.functions[fi].blocks[bi].instructions.splice(ii..=ii, seq);
            continue;
        }
        let r = next_id(m);
        seq.push(Instruction::new(
            old.class.opcode,
            Some(wide),
            Some(r),
            wide_args.into_iter().map(Operand::IdRef).collect(),
        ));
        // Truncation keeps the low bits with either conversion; `OpUConvert` may only
        // produce an unsigned type.
        let back = if it.signed {
            Op::SConvert
        } else {
            Op::UConvert
        };
        seq.push(Instruction::new(
            back,
            Some(ty),
            Some(result),
            vec![Operand::IdRef(r)],
        ));
        m.functions[fi].blocks[bi].instructions.splice(ii..=ii, seq);
    }
    sites.len()
}

/// Whether the module declares an 8- or 16-bit integer type: without one there is nothing for
/// this file's or `narrow_convert`'s rules to rewrite, and the post-pass skips their walks
/// of every instruction (most kernels have none).
pub(super) fn declares_narrow_ints(m: &Module) -> bool {
    m.types_global_values.iter().any(|i| {
        i.class.opcode == Op::TypeInt
            && matches!(i.operands.first(), Some(Operand::LiteralBit32(w)) if *w < 32)
    })
}

/// Every integer scalar and vector type of the module, by id.
pub(super) fn int_types(m: &Module) -> HashMap<Word, IntType> {
    let mut types = HashMap::new();
    for i in &m.types_global_values {
        if let (Op::TypeInt, Some(id), [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) =
            (i.class.opcode, i.result_id, i.operands.as_slice())
        {
            let t = IntType {
                width: *w,
                signed: *s != 0,
                lanes: 1,
            };
            types.insert(id, t);
        }
    }
    for i in &m.types_global_values {
        if let (Op::TypeVector, Some(id), [Operand::IdRef(c), Operand::LiteralBit32(k)]) =
            (i.class.opcode, i.result_id, i.operands.as_slice())
        {
            if let Some(&t) = types.get(c) {
                types.insert(id, IntType { lanes: *k, ..t });
            }
        }
    }
    types
}

/// The `uint32` constant `value`, or (`lanes` > 1) the vector of type `wide` with it in
/// every lane, declared if missing.
pub(super) fn mask_const(m: &mut Module, wide: Word, lanes: u32, value: u32) -> Word {
    let scalar = super::post::uint_const(m, value);
    splat_const(m, wide, scalar, lanes)
}

/// `scalar` itself (`lanes` == 1), or the constant vector of type `ty` with `scalar` in every
/// lane, declared if missing.
pub(super) fn splat_const(m: &mut Module, ty: Word, scalar: Word, lanes: u32) -> Word {
    if lanes == 1 {
        return scalar;
    }
    let operands = vec![Operand::IdRef(scalar); lanes as usize];
    let found = m.types_global_values.iter().find(|i| {
        i.class.opcode == Op::ConstantComposite
            && i.result_type == Some(ty)
            && i.operands == operands
    });
    if let Some(id) = found.and_then(|i| i.result_id) {
        return id;
    }
    let id = next_id(m);
    m.types_global_values.push(Instruction::new(
        Op::ConstantComposite,
        Some(ty),
        Some(id),
        operands,
    ));
    id
}

/// The unsigned 32-bit scalar (`lanes` 1) or vector type, declared if missing.
pub(super) fn wide_type(m: &mut Module, lanes: u32) -> Word {
    let u32_type = type_id(
        m,
        Op::TypeInt,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    );
    match lanes {
        1 => u32_type,
        k => type_id(
            m,
            Op::TypeVector,
            vec![Operand::IdRef(u32_type), Operand::LiteralBit32(k)],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Assemble;

    /// `a * b` and `a << b` in `i8`, `-v` on a 2-lane `i16` vector, and an `i32` add
    /// (left alone).
    fn module() -> Module {
        let mut b = rspirv::dr::Builder::new();
        b.set_version(1, 6);
        let void = b.type_void();
        let fn_ty = b.type_function(void, []);
        let i8t = b.type_int(8, 0);
        let i16t = b.type_int(16, 0);
        let i32t = b.type_int(32, 0);
        let v16 = b.type_vector(i16t, 2);
        let c8 = b.constant_bit32(i8t, 200);
        let d8 = b.constant_bit32(i8t, 3);
        let c16 = b.constant_bit32(i16t, 7);
        let v = b.constant_composite(v16, [c16, c16]);
        let c32 = b.constant_bit32(i32t, 5);
        b.begin_function(void, None, rspirv::spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        b.i_mul(i8t, None, c8, d8).unwrap();
        b.shift_left_logical(i8t, None, c8, d8).unwrap();
        b.shift_right_logical(i8t, None, c8, c32).unwrap();
        b.s_negate(v16, None, v).unwrap();
        b.i_add(i32t, None, c32, c32).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.module()
    }

    fn ops(m: &Module) -> Vec<Op> {
        m.functions[0].blocks[0]
            .instructions
            .iter()
            .map(|i| i.class.opcode)
            .collect()
    }

    #[test]
    fn narrow_arithmetic_becomes_32_bit_arithmetic_between_conversions() {
        let mut m = module();
        assert_eq!(arithmetic_in_32_bits(&mut m), 4);
        use Op::*;
        let want = [
            // i8 multiply: both operands sign-extended, the product truncated.
            SConvert,
            SConvert,
            IMul,
            UConvert, //
            // i8 left shift: base sign-, count zero-extended and masked to 0..7.
            SConvert,
            UConvert,
            BitwiseAnd,
            ShiftLeftLogical,
            UConvert, //
            // i8 logical right shift: base zero-extended, the 32-bit count masked.
            UConvert,
            BitwiseAnd,
            ShiftRightLogical,
            UConvert, //
            // i16 vector negate.
            SConvert,
            SNegate,
            UConvert, //
            // The 32-bit add is left alone.
            IAdd,
            Return,
        ];
        assert_eq!(ops(&m), want);
        // Every widened operation has a 32-bit result type.
        let types = int_types(&m);
        for i in &m.functions[0].blocks[0].instructions {
            if operand_extensions(i.class.opcode).is_some() {
                let t = types[&i.result_type.unwrap()];
                assert_eq!(t.width, 32, "{i:?}");
            }
        }
        // And the module still assembles and parses.
        let words = m.assemble();
        assert!(rspirv::dr::load_words(words).is_ok());
    }

    #[test]
    fn narrow_division_and_comparisons_use_the_extension_of_their_signedness() {
        let mut b = rspirv::dr::Builder::new();
        b.set_version(1, 6);
        let void = b.type_void();
        let fn_ty = b.type_function(void, []);
        let boolean = b.type_bool();
        let i8t = b.type_int(8, 0);
        let c = b.constant_bit32(i8t, 200);
        let d = b.constant_bit32(i8t, 3);
        b.begin_function(void, None, rspirv::spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        b.s_div(i8t, None, c, d).unwrap();
        b.u_mod(i8t, None, c, d).unwrap();
        let lt = b.u_less_than(boolean, None, c, d).unwrap();
        b.i_equal(boolean, None, c, d).unwrap();
        b.bitwise_xor(i8t, None, c, d).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        assert_eq!(arithmetic_in_32_bits(&mut m), 5);
        use Op::*;
        let want = [
            SConvert, SConvert, SDiv, UConvert, // signed division: sign-extended
            UConvert, UConvert, UMod, UConvert, // unsigned remainder: zero-extended
            UConvert, UConvert, ULessThan, // unsigned comparison: zero-extended, a bool
            SConvert, SConvert, IEqual, // equality: sign-extended
            SConvert, SConvert, BitwiseXor, UConvert, // bitwise: either
            Return,
        ];
        assert_eq!(ops(&m), want);
        // The comparison keeps its id and bool type.
        let cmp = m.functions[0].blocks[0]
            .instructions
            .iter()
            .find(|i| i.class.opcode == ULessThan)
            .unwrap();
        assert_eq!((cmp.result_id, cmp.result_type), (Some(lt), Some(boolean)));
    }
}
