//! Carries every boolean phi as a 32-bit integer: `%b = OpPhi %bool %x %p %y %q` becomes
//! `%w = OpPhi %uint %x' %p %y' %q` and `%b = OpINotEqual %bool %w %0` after the block's phis,
//! with `%x' = OpSelect %uint %x %1 %0` at the end of `%p` (constants fold to `%1`/`%0`).
//!
//! NVIDIA's driver 580.159.04 segfaults inside its SPIR-V front end
//! (`libnvidia-glvkspirv.so`) when it creates the pipeline of some modules that LLVM's SPIR-V
//! target made: every one of the twelve kernels found by the fuzz campaign on an H100
//! (docs/fuzzing.md) carries a boolean phi in a loop header, against two of the 23 kernels of
//! the same programs that compile. The crash takes the whole process with it, so the
//! modules are kept clear of the form altogether. rspirv's kernels keep booleans in
//! variables and have no such phis. The rewrite means the same thing: each incoming value
//! is mapped to 1 or 0 on its edge and compared back at the top of the block, where the
//! phi's result was defined, so every use still sees a boolean defined at the same place.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::post::{next_id, uint_const};

/// Rewrites the scalar boolean phis of every function (see the module doc).
pub(crate) fn widen_bool_phis(m: &mut Module) {
    let Some(bool_ty) = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeBool)
        .and_then(|i| i.result_id)
    else {
        return;
    };
    let has_bool_phi = m.functions.iter().any(|f| {
        f.blocks.iter().any(|b| {
            b.instructions
                .iter()
                .any(|i| i.class.opcode == Op::Phi && i.result_type == Some(bool_ty))
        })
    });
    if !has_bool_phi {
        return;
    }
    let consts: HashMap<Word, bool> = m
        .types_global_values
        .iter()
        .filter_map(|i| match i.class.opcode {
            Op::ConstantTrue => i.result_id.map(|id| (id, true)),
            Op::ConstantFalse | Op::ConstantNull if i.result_type == Some(bool_ty) => {
                i.result_id.map(|id| (id, false))
            }
            _ => None,
        })
        .collect();
    let zero = uint_const(m, 0);
    let one = uint_const(m, 1);
    let uint = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(zero))
        .and_then(|i| i.result_type)
        .expect("uint_const declares its type");
    for fi in 0..m.functions.len() {
        let label_index: HashMap<Word, usize> = m.functions[fi]
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.label.as_ref().and_then(|l| l.result_id).map(|id| (id, i)))
            .collect();
        // Selects to append to each predecessor, and per block its rewritten phis.
        let mut edge_selects: HashMap<usize, Vec<Instruction>> = HashMap::new();
        for bi in 0..m.functions[fi].blocks.len() {
            let phi_count = m.functions[fi].blocks[bi]
                .instructions
                .iter()
                .take_while(|i| i.class.opcode == Op::Phi)
                .count();
            let mut compares = Vec::new();
            for pi in 0..phi_count {
                let phi = &m.functions[fi].blocks[bi].instructions[pi];
                if phi.result_type != Some(bool_ty) {
                    continue;
                }
                let Some(result) = phi.result_id else {
                    continue;
                };
                let pairs: Vec<(Word, Word)> = phi
                    .operands
                    .chunks(2)
                    .filter_map(|c| match c {
                        [Operand::IdRef(v), Operand::IdRef(p)] => Some((*v, *p)),
                        _ => None,
                    })
                    .collect();
                if pairs.len() * 2 != phi.operands.len()
                    || pairs.iter().any(|(_, p)| !label_index.contains_key(p))
                {
                    continue;
                }
                let mut operands = Vec::with_capacity(phi.operands.len());
                for (value, pred) in pairs {
                    let widened = match consts.get(&value) {
                        Some(true) => one,
                        Some(false) => zero,
                        None => {
                            let id = next_id(m);
                            edge_selects.entry(label_index[&pred]).or_default().push(
                                Instruction::new(
                                    Op::Select,
                                    Some(uint),
                                    Some(id),
                                    vec![
                                        Operand::IdRef(value),
                                        Operand::IdRef(one),
                                        Operand::IdRef(zero),
                                    ],
                                ),
                            );
                            id
                        }
                    };
                    operands.push(Operand::IdRef(widened));
                    operands.push(Operand::IdRef(pred));
                }
                let wide = next_id(m);
                let phi = &mut m.functions[fi].blocks[bi].instructions[pi];
                phi.result_type = Some(uint);
                phi.result_id = Some(wide);
                phi.operands = operands;
                compares.push(Instruction::new(
                    Op::INotEqual,
                    Some(bool_ty),
                    Some(result),
                    vec![Operand::IdRef(wide), Operand::IdRef(zero)],
                ));
            }
            let block = &mut m.functions[fi].blocks[bi];
            for (k, c) in compares.into_iter().enumerate() {
                block.instructions.insert(phi_count + k, c);
            }
        }
        for (bi, selects) in edge_selects {
            let block = &mut m.functions[fi].blocks[bi];
            // Before the terminator, and before the merge instruction that must precede it.
            let mut at = block.instructions.len().saturating_sub(1);
            if at > 0
                && matches!(
                    block.instructions[at - 1].class.opcode,
                    Op::SelectionMerge | Op::LoopMerge
                )
            {
                at -= 1;
            }
            for (k, s) in selects.into_iter().enumerate() {
                block.instructions.insert(at + k, s);
            }
        }
    }
}
