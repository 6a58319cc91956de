//! SPIR-V instructions LLVM 23.1's SPIR-V target cannot be asked for, written as calls of
//! placeholder functions (`@"spirv.op.<Instruction>.<signature>"`, declared only) that the
//! post-pass replaces by the instruction itself, the call's arguments becoming its id
//! operands in order. LLVM treats such a call as an opaque function that may read and
//! write any memory (and, declared `convergent`, keeps it out of new control flow), so the
//! optimizer moves nothing across it; the target emits it as an `OpFunctionCall` of an
//! imported function, which [`replace_placeholders`] turns back into the instruction and
//! removes with its `Linkage` capability.
//!
//! Used for what the target crashes on or has no intrinsic for: `OpAtomicCompareExchange`
//! (LLVM's `cmpxchg` crashes the target for Vulkan), `OpControlBarrier`/`OpMemoryBarrier`
//! with the semantics of `Barrier.*(order)`.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Decoration, GroupOperation, Op, Word};

/// `OpAtomicCompareExchange(pointer, scope, equal, unequal, value, comparator)`.
pub(crate) const ATOMIC_COMPARE_EXCHANGE: &str = "AtomicCompareExchange";
/// `OpControlBarrier(execution, memory, semantics)`.
pub(crate) const CONTROL_BARRIER: &str = "ControlBarrier";
/// `OpMemoryBarrier(memory, semantics)`.
pub(crate) const MEMORY_BARRIER: &str = "MemoryBarrier";
/// `OpBitCount(x)`.
pub(crate) const BIT_COUNT: &str = "BitCount";
/// `OpBitReverse(x)`.
pub(crate) const BIT_REVERSE: &str = "BitReverse";
/// `OpBitFieldSExtract(x, offset, count)`.
pub(crate) const BIT_FIELD_S_EXTRACT: &str = "BitFieldSExtract";
/// `OpBitFieldUExtract(x, offset, count)`.
pub(crate) const BIT_FIELD_U_EXTRACT: &str = "BitFieldUExtract";
/// `OpBitFieldInsert(base, insert, offset, count)`.
pub(crate) const BIT_FIELD_INSERT: &str = "BitFieldInsert";
/// `OpIsNan(x)`.
pub(crate) const IS_NAN: &str = "IsNan";
/// `OpIsInf(x)`.
pub(crate) const IS_INF: &str = "IsInf";

const PREFIX: &str = "spirv.op.";
/// The prefix of a `GLSL.std.450` instruction's placeholder; its number follows.
pub(crate) const GLSL: &str = "glsl";

/// The instructions placeholders may stand for.
fn opcode(name: &str) -> Option<Op> {
    Some(match name {
        ATOMIC_COMPARE_EXCHANGE => Op::AtomicCompareExchange,
        CONTROL_BARRIER => Op::ControlBarrier,
        MEMORY_BARRIER => Op::MemoryBarrier,
        BIT_COUNT => Op::BitCount,
        BIT_REVERSE => Op::BitReverse,
        BIT_FIELD_S_EXTRACT => Op::BitFieldSExtract,
        BIT_FIELD_U_EXTRACT => Op::BitFieldUExtract,
        BIT_FIELD_INSERT => Op::BitFieldInsert,
        IS_NAN => Op::IsNan,
        IS_INF => Op::IsInf,
        _ => return None,
    })
}

/// The prefix of a core instruction's placeholder by opcode number (`core.<opcode>`, then
/// `.g<operation>` for a group operation, the literal operand after the scope).
const CORE: &str = "core";

/// The placeholder operation name of core instruction `op`, with a group operation.
pub(crate) fn core_op(op: Op, operation: Option<GroupOperation>) -> String {
    match operation {
        Some(g) => format!("{CORE}.{}.g{}", op as u32, g as u32),
        None => format!("{CORE}.{}", op as u32),
    }
}

/// What a placeholder stands for: a core instruction (with the group operation that
/// follows its scope operand) or a `GLSL.std.450` one (by number).
#[derive(Clone, Copy)]
enum Replacement {
    Core(Op, Option<GroupOperation>),
    Glsl(u32),
}

/// The capabilities an instruction a placeholder stands for needs (as the rspirv backend
/// declares them); the target knows nothing of them.
fn capabilities_of(op: Op) -> &'static [Capability] {
    use Capability as C;
    match op {
        Op::GroupNonUniformElect => &[C::GroupNonUniform],
        Op::GroupNonUniformAny | Op::GroupNonUniformAll | Op::GroupNonUniformAllEqual => {
            &[C::GroupNonUniform, C::GroupNonUniformVote]
        }
        Op::GroupNonUniformBallot | Op::GroupNonUniformBroadcastFirst => {
            &[C::GroupNonUniform, C::GroupNonUniformBallot]
        }
        Op::GroupNonUniformShuffle => &[C::GroupNonUniform, C::GroupNonUniformShuffle],
        Op::GroupNonUniformQuadBroadcast | Op::GroupNonUniformQuadSwap => {
            &[C::GroupNonUniform, C::GroupNonUniformQuad]
        }
        Op::GroupNonUniformIAdd
        | Op::GroupNonUniformFAdd
        | Op::GroupNonUniformSMin
        | Op::GroupNonUniformUMin
        | Op::GroupNonUniformFMin
        | Op::GroupNonUniformSMax
        | Op::GroupNonUniformUMax
        | Op::GroupNonUniformFMax
        | Op::GroupNonUniformBitwiseAnd
        | Op::GroupNonUniformBitwiseOr
        | Op::GroupNonUniformBitwiseXor
        | Op::GroupNonUniformIMul
        | Op::GroupNonUniformFMul => &[C::GroupNonUniform, C::GroupNonUniformArithmetic],
        _ => &[],
    }
}

/// Declares `cap` unless the module has it.
fn require(m: &mut Module, cap: Capability) {
    let has = m
        .capabilities
        .iter()
        .any(|i| i.operands.first() == Some(&Operand::Capability(cap)));
    if !has {
        m.capabilities.push(Instruction::new(
            Op::Capability,
            None,
            None,
            vec![Operand::Capability(cap)],
        ));
    }
}

/// The `GLSL.std.450` import's id, declared if missing.
fn glsl_import(m: &mut Module) -> Word {
    let found = m.ext_inst_imports.iter().find(
        |i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"),
    );
    if let Some(id) = found.and_then(|i| i.result_id) {
        return id;
    }
    let id = super::post::next_id(m);
    m.ext_inst_imports.push(Instruction::new(
        Op::ExtInstImport,
        None,
        Some(id),
        vec![Operand::LiteralString("GLSL.std.450".to_string())],
    ));
    id
}

/// The LLVM name of the placeholder for `op` with this signature (one function per
/// signature: LLVM does not overload ordinary functions).
pub(crate) fn placeholder(op: &str, ret: &str, params: &[&str]) -> String {
    let signature: String = std::iter::once(ret)
        .chain(params.iter().copied())
        .collect::<Vec<_>>()
        .join("_")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    format!("@\"{PREFIX}{op}.{signature}\"")
}

/// Replaces every call of a placeholder by its instruction and removes the placeholders;
/// returns the specialization constants declared for spec-constant placeholders.
pub(crate) fn replace_placeholders(
    m: &mut Module,
) -> Result<Vec<super::spec::SpecConstant>, String> {
    let mut ops: HashMap<Word, Replacement> = HashMap::new();
    let mut specs: HashMap<Word, super::spec::SpecConstant> = HashMap::new();
    for i in &m.annotations {
        let (
            Some(Operand::IdRef(target)),
            Some(Operand::Decoration(Decoration::LinkageAttributes)),
        ) = (i.operands.first(), i.operands.get(1))
        else {
            continue;
        };
        let Some(Operand::LiteralString(name)) = i.operands.get(2) else {
            continue;
        };
        if let Some(rest) = name.strip_prefix(super::spec::SPEC_PREFIX) {
            let parts: Vec<&str> = rest.split('.').collect();
            let (Some(id), Some(default), Some(ty)) = (
                parts.first().and_then(|p| p.parse().ok()),
                parts.get(1).and_then(|p| p.parse().ok()),
                parts.get(2),
            ) else {
                return Err(format!("malformed placeholder `{name}`"));
            };
            let ty = ty.to_string();
            specs.insert(*target, super::spec::SpecConstant { id, ty, default });
            continue;
        }
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let mut parts = rest.split('.');
        let base = parts.next().unwrap_or_default();
        let op = if base == GLSL {
            parts
                .next()
                .and_then(|n| n.parse().ok())
                .map(Replacement::Glsl)
        } else if base == CORE {
            let code = parts.next().and_then(|n| n.parse::<u32>().ok());
            let operation = parts
                .next()
                .and_then(|g| g.strip_prefix('g'))
                .and_then(|g| g.parse::<u32>().ok())
                .and_then(GroupOperation::from_u32);
            code.and_then(Op::from_u32)
                .map(|op| Replacement::Core(op, operation))
        } else {
            opcode(base).map(|op| Replacement::Core(op, None))
        };
        let op = op.ok_or_else(|| format!("unknown placeholder `{name}`"))?;
        ops.insert(*target, op);
    }
    let glsl = if ops.values().any(|r| matches!(r, Replacement::Glsl(_))) {
        glsl_import(m)
    } else {
        0
    };
    let void_types: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeVoid)
        .filter_map(|i| i.result_id)
        .collect();
    // The target passes a pointer argument through an `OpBitcast` to the `i8` pointer it
    // gives an undefined function's parameter; the instruction takes the pointer itself.
    let pointer_types: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .filter_map(|i| i.result_id)
        .collect();
    let mut casts: HashMap<Word, Word> = HashMap::new();
    for f in &m.functions {
        for b in &f.blocks {
            for inst in &b.instructions {
                let to_pointer = inst.result_type.is_some_and(|t| pointer_types.contains(&t));
                if let (Op::Bitcast, true, Some(id), Some(Operand::IdRef(from))) = (
                    inst.class.opcode,
                    to_pointer,
                    inst.result_id,
                    inst.operands.first(),
                ) {
                    casts.insert(id, *from);
                }
            }
        }
    }
    let mut uncast = HashSet::new();
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for inst in &mut b.instructions {
                if inst.class.opcode != Op::FunctionCall {
                    continue;
                }
                let Some(Operand::IdRef(callee)) = inst.operands.first() else {
                    continue;
                };
                let Some(&op) = ops.get(callee) else {
                    continue;
                };
                let void = inst.result_type.is_some_and(|t| void_types.contains(&t));
                let (ty, id) = if void {
                    (None, None)
                } else {
                    (inst.result_type, inst.result_id)
                };
                let operands = inst.operands[1..]
                    .iter()
                    .map(|o| match o {
                        Operand::IdRef(a) if casts.contains_key(a) => {
                            uncast.insert(*a);
                            Operand::IdRef(casts[a])
                        }
                        o => o.clone(),
                    })
                    .collect();
                *inst = match op {
                    Replacement::Core(op, None) => Instruction::new(op, ty, id, operands),
                    Replacement::Core(op, Some(g)) => {
                        let mut operands: Vec<Operand> = operands;
                        operands.insert(1.min(operands.len()), Operand::GroupOperation(g));
                        Instruction::new(op, ty, id, operands)
                    }
                    Replacement::Glsl(n) => {
                        let mut all = vec![Operand::IdRef(glsl), Operand::LiteralExtInstInteger(n)];
                        all.extend(operands);
                        Instruction::new(Op::ExtInst, ty, id, all)
                    }
                };
            }
        }
    }
    super::pointer_args::element_pointers(m, &uncast, &casts);
    // The casts fed only placeholders (the target makes one per call), unless another
    // instruction still uses them.
    let mut used = HashSet::new();
    for f in &m.functions {
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            used.extend(i.operands.iter().filter_map(|o| o.id_ref_any()));
        }
    }
    for f in &mut m.functions {
        for b in &mut f.blocks {
            b.instructions.retain(|i| {
                !i.result_id
                    .is_some_and(|id| uncast.contains(&id) && !used.contains(&id))
            });
        }
    }
    // By id, not in the map's order: the capabilities are appended in this order.
    let mut by_id: Vec<_> = ops.iter().collect();
    by_id.sort_unstable_by_key(|(id, _)| **id);
    for (_, op) in by_id {
        if let Replacement::Core(op, _) = op {
            for &cap in capabilities_of(*op) {
                require(m, cap);
            }
        }
    }
    let spec_constants = super::spec::declare_spec_constants(m, &specs)?;
    let removed: HashSet<Word> = ops.keys().chain(specs.keys()).copied().collect();
    let mut gone = removed.clone();
    m.functions.retain(|f| {
        let id = f.def.as_ref().and_then(|d| d.result_id);
        if id.is_some_and(|id| removed.contains(&id)) {
            gone.extend(f.parameters.iter().filter_map(|p| p.result_id));
            false
        } else {
            true
        }
    });
    let targets_gone =
        |i: &Instruction| matches!(i.operands.first(), Some(Operand::IdRef(t)) if gone.contains(t));
    m.annotations.retain(|i| !targets_gone(i));
    m.debug_names.retain(|i| !targets_gone(i));
    // LLVM's target writes the helpers it makes for some intrinsics (`llvm.fshl`, which
    // instcombine forms from a rotation's shifts) as exported functions; a Vulkan module
    // links nothing, so they are plain functions.
    m.annotations.retain(|i| {
        !(i.operands.get(1) == Some(&Operand::Decoration(Decoration::LinkageAttributes))
            && i.operands.get(3) == Some(&Operand::LinkageType(rspirv::spirv::LinkageType::Export)))
    });
    let still_linked = m
        .annotations
        .iter()
        .any(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::LinkageAttributes)));
    if !still_linked {
        m.capabilities
            .retain(|i| i.operands.first() != Some(&Operand::Capability(Capability::Linkage)));
    }
    Ok(spec_constants)
}
