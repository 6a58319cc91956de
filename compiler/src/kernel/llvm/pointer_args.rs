//! Pointer arguments of placeholder instructions (see [`super::spirv_ops`]): where LLVM's
//! target hands over a pointer to an aggregate, the instruction gets a pointer to its
//! first scalar.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

/// Where a placeholder instruction with a result takes a pointer to an aggregate (LLVM folds
/// the pointer to element 0 of a one-element shared array into the array's own variable),
/// an `OpAccessChain` to its first scalar, of the instruction's result type, instead.
pub(super) fn element_pointers(
    m: &mut Module,
    uncast: &HashSet<Word>,
    casts: &HashMap<Word, Word>,
) {
    let sources: HashSet<Word> = uncast
        .iter()
        .filter_map(|c| casts.get(c))
        .copied()
        .collect();
    if sources.is_empty() {
        return;
    }
    let mut types: HashMap<Word, Instruction> = HashMap::new();
    let mut value_type: HashMap<Word, Word> = HashMap::new();
    for i in &m.types_global_values {
        if let Some(id) = i.result_id {
            types.insert(id, i.clone());
            value_type.extend(i.result_type.map(|t| (id, t)));
        }
    }
    for i in m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
    {
        if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
            value_type.insert(id, t);
        }
    }
    // (function, block, instruction, operand) of each pointer operand to re-point.
    let mut fixes = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.instructions.iter().enumerate() {
                let (Some(want), Some(Operand::IdRef(p))) =
                    (inst.result_type, inst.operands.first())
                else {
                    continue;
                };
                if !sources.contains(p) || !is_atomic(inst.class.opcode) {
                    continue;
                }
                let Some((class, pointee)) = value_type.get(p).and_then(|t| pointer_of(&types, *t))
                else {
                    continue;
                };
                if pointee == want {
                    continue;
                }
                // Element 0 of each level down to the scalar.
                let mut depth = 0;
                let mut ty = pointee;
                while ty != want {
                    match types.get(&ty).map(|t| (t.class.opcode, t.operands.first())) {
                        Some((
                            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct,
                            Some(Operand::IdRef(e)),
                        )) => {
                            ty = *e;
                            depth += 1;
                        }
                        _ => break,
                    }
                }
                if ty == want && depth > 0 {
                    fixes.push((fi, bi, ii, *p, class, want, depth));
                }
            }
        }
    }
    // Back to front, so that inserting keeps the earlier positions valid.
    for (fi, bi, ii, p, class, want, depth) in fixes.into_iter().rev() {
        let ptr_ty = super::post::type_id(
            m,
            Op::TypePointer,
            vec![Operand::StorageClass(class), Operand::IdRef(want)],
        );
        let zero = super::post::uint_const(m, 0);
        let id = super::post::next_id(m);
        let mut operands = vec![Operand::IdRef(p)];
        operands.extend(std::iter::repeat_n(Operand::IdRef(zero), depth));
        let chain = Instruction::new(Op::AccessChain, Some(ptr_ty), Some(id), operands);
        let block = &mut m.functions[fi].blocks[bi].instructions;
        block[ii].operands[0] = Operand::IdRef(id);
        block.insert(ii, chain);
    }
}

fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicCompareExchange
            | Op::AtomicLoad
            | Op::AtomicExchange
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
    )
}

/// The storage class and pointee of pointer type `t`.
fn pointer_of(
    types: &HashMap<Word, Instruction>,
    t: Word,
) -> Option<(rspirv::spirv::StorageClass, Word)> {
    let i = types.get(&t)?;
    match (i.class.opcode, i.operands.first(), i.operands.get(1)) {
        (Op::TypePointer, Some(Operand::StorageClass(c)), Some(Operand::IdRef(p))) => {
            Some((*c, *p))
        }
        _ => None,
    }
}
