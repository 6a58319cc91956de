//! Folds a phi whose incoming values are each `OpUndef` or the same as another phi's of its
//! block into that other phi.
//!
//! LLVM's SPIR-V target leaves loop headers with pairs such as `%a = OpPhi %gid %pre %x
//! %latch` and `%b = OpPhi %undef %pre %x %latch` (a value live only on some paths out of
//! the loop, after structurization). lavapipe (Mesa 22.3) computes `%a` as `%b` there: a
//! loop whose `break` is taken in different trips by different invocations stored the undef
//! path's value for the invocations that left in the first trip (found by the four-way fuzz
//! campaign, seed 12 program 190; docs/fuzzing.md). Replacing `%b` by `%a` is a refinement
//! (an undefined value may be any value, `%a`'s among them), so the module means the same,
//! and with one phi left the driver has nothing to mix up.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, Word};

/// Replaces every phi that a sibling phi refines (see the module doc) by that sibling.
pub(crate) fn fold_undef_phis(m: &mut Module) {
    let mut undef: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Undef)
        .filter_map(|i| i.result_id)
        .collect();
    for f in &m.functions {
        for b in &f.blocks {
            undef.extend(
                b.instructions
                    .iter()
                    .filter(|i| i.class.opcode == Op::Undef)
                    .filter_map(|i| i.result_id),
            );
        }
    }
    for f in &mut m.functions {
        let mut replace: HashMap<Word, Word> = HashMap::new();
        for b in &f.blocks {
            let phis: Vec<_> = b
                .instructions
                .iter()
                .take_while(|i| i.class.opcode == Op::Phi)
                .collect();
            for p in &phis {
                let Some(pid) = p.result_id else { continue };
                let target = phis.iter().find(|q| {
                    q.result_id != Some(pid)
                        && q.result_type == p.result_type
                        && q.result_id.is_some_and(|qid| !replace.contains_key(&qid))
                        && refines(&p.operands, &q.operands, &undef)
                });
                if let Some(qid) = target.and_then(|q| q.result_id) {
                    // The other direction must not fold too, or both would go.
                    if replace.get(&qid) != Some(&pid) {
                        replace.insert(pid, qid);
                    }
                }
            }
        }
        if replace.is_empty() {
            continue;
        }
        // `%b` may fold into `%a` and `%a` later into `%c`: every use ends at `%c`.
        let ends: HashMap<Word, Word> = replace
            .keys()
            .map(|&from| {
                let mut to = replace[&from];
                for _ in 0..replace.len() {
                    match replace.get(&to) {
                        Some(&next) => to = next,
                        None => break,
                    }
                }
                (from, to)
            })
            .collect();
        let replace = ends;
        for b in &mut f.blocks {
            b.instructions
                .retain(|i| !i.result_id.is_some_and(|id| replace.contains_key(&id)));
            for i in &mut b.instructions {
                for op in &mut i.operands {
                    if let Operand::IdRef(id) = op {
                        if let Some(to) = replace.get(id) {
                            *id = *to;
                        }
                    }
                }
            }
        }
    }
}

/// Whether, for every predecessor, phi operands `p` bring an undefined value or the value `q`
/// brings (both list `value, parent` pairs). Phis of one block name the same predecessors,
/// but not necessarily in the same order.
fn refines(p: &[Operand], q: &[Operand], undef: &HashSet<Word>) -> bool {
    let pairs = |ops: &[Operand]| -> Option<HashMap<Word, Word>> {
        ops.chunks(2)
            .map(|c| match c {
                [Operand::IdRef(v), Operand::IdRef(parent)] => Some((*parent, *v)),
                _ => None,
            })
            .collect()
    };
    let (Some(p), Some(q)) = (pairs(p), pairs(q)) else {
        return false;
    };
    let mut any_undef = false;
    for (parent, v) in &p {
        match q.get(parent) {
            Some(w) if w == v => {}
            Some(_) if undef.contains(v) => any_undef = true,
            _ => return false,
        }
    }
    // Two phis with the same values everywhere are left to the driver: only an undefined
    // incoming value is what lavapipe gets wrong.
    any_undef && p.len() == q.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{AddressingModel, Capability, ExecutionModel, FunctionControl};

    /// A loop header with `%a = phi(%one, %x)` and `%b = phi(%undef, %x)`, `%b` stored.
    fn module() -> (Module, Word, Word) {
        let mut b = Builder::new();
        b.capability(Capability::Shader);
        b.memory_model(
            AddressingModel::Logical,
            rspirv::spirv::MemoryModel::GLSL450,
        );
        let void = b.type_void();
        let fnty = b.type_function(void, vec![]);
        let uint = b.type_int(32, 0);
        let one = b.constant_bit32(uint, 1);
        let undef = b.undef(uint, None);
        let f = b
            .begin_function(void, None, FunctionControl::NONE, fnty)
            .unwrap();
        b.entry_point(ExecutionModel::GLCompute, f, "k", vec![]);
        let entry = b.id();
        let header = b.id();
        let latch = b.id();
        let exit = b.id();
        let (a, bb, x) = (b.id(), b.id(), b.id());
        b.begin_block(Some(entry)).unwrap();
        b.branch(header).unwrap();
        b.begin_block(Some(header)).unwrap();
        b.phi(uint, Some(a), vec![(one, entry), (x, latch)])
            .unwrap();
        b.phi(uint, Some(bb), vec![(undef, entry), (x, latch)])
            .unwrap();
        b.i_add(uint, Some(x), a, bb).unwrap();
        b.loop_merge(exit, latch, rspirv::spirv::LoopControl::NONE, vec![])
            .unwrap();
        b.branch(latch).unwrap();
        b.begin_block(Some(latch)).unwrap();
        b.branch(header).unwrap();
        b.begin_block(Some(exit)).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        (b.module(), a, bb)
    }

    #[test]
    fn a_phi_with_an_undefined_incoming_value_becomes_its_sibling() {
        let (mut m, a, bb) = module();
        fold_undef_phis(&mut m);
        let header = &m.functions[0].blocks[1];
        let phis: Vec<_> = header
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .collect();
        assert_eq!(phis.len(), 1);
        assert_eq!(phis[0].result_id, Some(a));
        let add = header
            .instructions
            .iter()
            .find(|i| i.class.opcode == Op::IAdd)
            .expect("add");
        assert_eq!(add.operands, vec![Operand::IdRef(a), Operand::IdRef(a)]);
        assert!(!header.instructions.iter().any(|i| i.result_id == Some(bb)));
    }

    #[test]
    fn phis_with_different_defined_values_stay() {
        let (mut m, _, _) = module();
        let undef = m
            .types_global_values
            .iter()
            .position(|i| i.class.opcode == Op::Undef)
            .expect("undef");
        // The second phi's `%undef` becomes a defined value: no refinement any more.
        let old = &m.types_global_values[undef];
        m.types_global_values[undef] =
            rspirv::dr::Instruction::new(Op::ConstantNull, old.result_type, old.result_id, vec![]);
        fold_undef_phis(&mut m);
        let phis = m.functions[0].blocks[1]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .count();
        assert_eq!(phis, 2);
    }
}
