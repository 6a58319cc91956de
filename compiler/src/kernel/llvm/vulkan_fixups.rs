//! Fix-ups of LLVM's SPIR-V output that concern what Vulkan's `Shader` environment allows:
//! the storage-access capabilities 8- and 16-bit values in buffers and push constants need
//! (LLVM declares only `Int8`/`Int16`/`Float16`), and the `OpOrdered`/`OpUnordered` tests
//! LLVM makes of `x == x`/`x != x` (only `Kernel` modules may use them).

use std::collections::{BTreeSet, HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, StorageClass, Word};

/// Declares `StorageBuffer8BitAccess`/`StorageBuffer16BitAccess` and
/// `StoragePushConstant8`/`StoragePushConstant16` where a storage-buffer or push-constant
/// pointer reaches an 8- or 16-bit scalar, as the rspirv backend does (SPIR-V 1.6 has the
/// capabilities in core: no extension).
pub(crate) fn storage_access_capabilities(m: &mut Module) {
    let defs: HashMap<Word, &Instruction> = m
        .types_global_values
        .iter()
        .filter_map(|i| i.result_id.map(|id| (id, i)))
        .collect();
    let mut needed = Vec::new();
    for i in &m.types_global_values {
        if i.class.opcode != Op::TypePointer {
            continue;
        }
        let (Some(Operand::StorageClass(class)), Some(Operand::IdRef(pointee))) =
            (i.operands.first(), i.operands.get(1))
        else {
            continue;
        };
        // Ordered: the capabilities are appended in this order.
        let mut widths = BTreeSet::new();
        scalar_widths(&defs, *pointee, &mut widths, 0);
        for w in widths {
            let cap = match (class, w) {
                (StorageClass::StorageBuffer, 8) => Capability::StorageBuffer8BitAccess,
                (StorageClass::StorageBuffer, 16) => Capability::StorageBuffer16BitAccess,
                (StorageClass::PushConstant, 8) => Capability::StoragePushConstant8,
                (StorageClass::PushConstant, 16) => Capability::StoragePushConstant16,
                _ => continue,
            };
            if !needed.contains(&cap) {
                needed.push(cap);
            }
        }
    }
    for cap in needed {
        let declared = m
            .capabilities
            .iter()
            .any(|i| i.operands.first() == Some(&Operand::Capability(cap)));
        if !declared {
            m.capabilities.push(Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(cap)],
            ));
        }
    }
}

/// The widths of the scalars type `id` holds (through structs, arrays and vectors).
fn scalar_widths(
    defs: &HashMap<Word, &Instruction>,
    id: Word,
    out: &mut BTreeSet<u32>,
    depth: u32,
) {
    let Some(i) = defs.get(&id) else {
        return;
    };
    if depth > 16 {
        return;
    }
    match i.class.opcode {
        Op::TypeInt | Op::TypeFloat => {
            if let Some(Operand::LiteralBit32(w)) = i.operands.first() {
                out.insert(*w);
            }
        }
        Op::TypeStruct => {
            for op in &i.operands {
                if let Operand::IdRef(member) = op {
                    scalar_widths(defs, *member, out, depth + 1);
                }
            }
        }
        Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => {
            if let Some(Operand::IdRef(elem)) = i.operands.first() {
                scalar_widths(defs, *elem, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Rewrites `OpUnordered a b` as `IsNan a || IsNan b` and `OpOrdered a b` as its negation
/// (same result id), which the `Shader` capability allows.
pub(crate) fn ordered_tests(m: &mut Module, mut next_id: impl FnMut(&mut Module) -> Word) {
    let mut found = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if matches!(i.class.opcode, Op::Ordered | Op::Unordered) {
                    found.push((fi, bi, ii));
                }
            }
        }
    }
    // Back to front, so that earlier indices stay valid while instructions are inserted.
    for (fi, bi, ii) in found.into_iter().rev() {
        let i = m.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(ty), Some(result), [Operand::IdRef(a), Operand::IdRef(b)]) =
            (i.result_type, i.result_id, i.operands.as_slice())
        else {
            continue;
        };
        let (na, nb) = (next_id(m), next_id(m));
        let mut lines = vec![
            Instruction::new(Op::IsNan, Some(ty), Some(na), vec![Operand::IdRef(*a)]),
            Instruction::new(Op::IsNan, Some(ty), Some(nb), vec![Operand::IdRef(*b)]),
        ];
        let either = [Operand::IdRef(na), Operand::IdRef(nb)].to_vec();
        if i.class.opcode == Op::Unordered {
            lines.push(Instruction::new(
                Op::LogicalOr,
                Some(ty),
                Some(result),
                either,
            ));
        } else {
            let any = next_id(m);
            lines.push(Instruction::new(Op::LogicalOr, Some(ty), Some(any), either));
            lines.push(Instruction::new(
                Op::LogicalNot,
                Some(ty),
                Some(result),
                vec![Operand::IdRef(any)],
            ));
        }
        let block = &mut m.functions[fi].blocks[bi].instructions;
        block.splice(ii..=ii, lines);
    }
}

/// Sets the `ArrayStride` of runtime arrays of 3-lane vectors to std430's (four lanes: the
/// layout's stride, and what relaxed block layout requires); LLVM's SPIR-V target writes
/// the vector's 12-byte store size. The element pointers are access chains by element
/// index, so only the decoration changes.
pub(crate) fn std430_array_strides(m: &mut Module) {
    let defs: HashMap<Word, Instruction> = m
        .types_global_values
        .iter()
        .filter_map(|i| i.result_id.map(|id| (id, i.clone())))
        .collect();
    let lane_bytes = |id: Word| match defs.get(&id) {
        Some(i) if matches!(i.class.opcode, Op::TypeInt | Op::TypeFloat) => {
            match i.operands.first() {
                Some(Operand::LiteralBit32(w)) => Some(w / 8),
                _ => None,
            }
        }
        _ => None,
    };
    let mut strides = HashMap::new();
    for (id, i) in &defs {
        if i.class.opcode != Op::TypeRuntimeArray {
            continue;
        }
        let Some(Operand::IdRef(elem)) = i.operands.first() else {
            continue;
        };
        let Some(v) = defs.get(elem) else {
            continue;
        };
        if let (Op::TypeVector, [Operand::IdRef(lane), Operand::LiteralBit32(3)]) =
            (v.class.opcode, v.operands.as_slice())
        {
            if let Some(b) = lane_bytes(*lane) {
                strides.insert(*id, 4 * b);
            }
        }
    }
    for a in &mut m.annotations {
        if a.class.opcode != Op::Decorate {
            continue;
        }
        if let [Operand::IdRef(id), Operand::Decoration(rspirv::spirv::Decoration::ArrayStride), Operand::LiteralBit32(s)] =
            a.operands.as_mut_slice()
        {
            if let Some(&stride) = strides.get(id) {
                *s = stride;
            }
        }
    }
}

/// Moves each merge instruction (`OpSelectionMerge`/`OpLoopMerge`) down to just before its
/// block's branch, as structured control flow requires. LLVM's SPIR-V target sometimes
/// leaves ordinary instructions between the two (seen: the `l + 1` of a second guarded
/// store, `if (l < 8) out[l] = …; if (l < m) out[l + 1] = …;`, computed after the merge);
/// the merge only declares the construct, so moving it past them changes nothing they do.
pub(crate) fn merges_before_branches(m: &mut Module) {
    for b in m.functions.iter_mut().flat_map(|f| &mut f.blocks) {
        let n = b.instructions.len();
        let at = b
            .instructions
            .iter()
            .position(|i| matches!(i.class.opcode, Op::SelectionMerge | Op::LoopMerge));
        let Some(at) = at.filter(|&at| at + 2 < n) else {
            continue;
        };
        // Only plain instructions in between: another merge or a terminator there would be
        // a shape this does not understand, left for the structure check to refuse.
        let plain = b.instructions[at + 1..n - 1].iter().all(|i| {
            !matches!(
                i.class.opcode,
                Op::SelectionMerge
                    | Op::LoopMerge
                    | Op::Branch
                    | Op::BranchConditional
                    | Op::Switch
                    | Op::Return
                    | Op::ReturnValue
                    | Op::Kill
                    | Op::Unreachable
                    | Op::Phi
            )
        });
        if plain {
            let merge = b.instructions.remove(at);
            b.instructions.insert(n - 2, merge);
        }
    }
}

/// Declares the `SignedZeroInfNanPreserve` execution mode for each float width the module
/// uses whose `shaderSignedZeroInfNanPreserveFloat*` property the target device reports,
/// as the rspirv backend does (SPEC §4: float operations are IEEE operations; without the
/// mode a driver may fold `0.0 * x` to 0, a form LLVM's constant propagation creates from
/// operands that are not constants in the source). Returns the Vulkan features it needs.
pub(crate) fn float_controls(m: &mut Module, device_features: &[String]) -> Vec<&'static str> {
    let used: HashSet<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeFloat)
        .filter_map(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(w)) => Some(*w),
            _ => None,
        })
        .collect();
    let entry = match m.entry_points.first().and_then(|e| e.operands.get(1)) {
        Some(Operand::IdRef(id)) => *id,
        _ => return Vec::new(),
    };
    let mut features = Vec::new();
    for (width, feature) in [
        (32, "shaderSignedZeroInfNanPreserveFloat32"),
        (16, "shaderSignedZeroInfNanPreserveFloat16"),
        (64, "shaderSignedZeroInfNanPreserveFloat64"),
    ] {
        // float32 always, as rspirv: a kernel without floats loses nothing by it.
        let wanted = width == 32 || used.contains(&width);
        if !wanted || !device_features.iter().any(|f| f == feature) {
            continue;
        }
        m.execution_modes.push(Instruction::new(
            Op::ExecutionMode,
            None,
            None,
            vec![
                Operand::IdRef(entry),
                Operand::ExecutionMode(rspirv::spirv::ExecutionMode::SignedZeroInfNanPreserve),
                Operand::LiteralBit32(width),
            ],
        ));
        features.push(feature);
    }
    if !features.is_empty() {
        let declared = m.capabilities.iter().any(|i| {
            i.operands.first() == Some(&Operand::Capability(Capability::SignedZeroInfNanPreserve))
        });
        if !declared {
            m.capabilities.push(Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(Capability::SignedZeroInfNanPreserve)],
            ));
        }
    }
    features
}

/// Rewrites every `OpSConvert` to 64-bit integers, scalar or vector, as `zext(x) ^ 2^(n-1) -
/// 2^(n-1)`, the same value, as the rspirv backend emits it: lavapipe (Mesa 22.3) miscompiles
/// an `OpSConvert` to 64 bits whose result is compared (found by the four-way fuzz campaign,
/// seed 12 program 134, in this backend's module only; `kernel/spirv/arith.rs`). LLVM also
/// makes vector ones of scalar code, two loop counters sign-extended and compared at once
/// (seed 47 program 25, `wrong_results/seed47_program_25_llvm.cajeta`).
pub(crate) fn sign_extensions_to_64(m: &mut Module) {
    let int_width: HashMap<Word, u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeInt)
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralBit32(w))) => Some((id, *w)),
            _ => None,
        })
        .collect();
    if !int_width.values().any(|&w| w == 64) {
        // No 64-bit integer type, so nothing converts to one: no walk of every instruction.
        return;
    }
    // Each integer vector type: its component type and lane count.
    let vectors: HashMap<Word, (Word, u32)> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeVector)
        .filter_map(|i| match (i.result_id, i.operands.as_slice()) {
            (Some(id), [Operand::IdRef(c), Operand::LiteralBit32(k)])
                if int_width.contains_key(c) =>
            {
                Some((id, (*c, *k)))
            }
            _ => None,
        })
        .collect();
    // The width of an integer type's scalars, through vectors.
    let width = |t: &Word| {
        int_width
            .get(t)
            .or_else(|| vectors.get(t).and_then(|(c, _)| int_width.get(c)))
            .copied()
    };
    let value_type = super::post::value_types(m);
    // (block position, instruction position, narrow width) of each rewrite, per function.
    let mut sites = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if i.class.opcode != Op::SConvert
                    || i.result_type.and_then(|t| width(&t)) != Some(64)
                {
                    continue;
                }
                let from = match i.operands.first() {
                    Some(Operand::IdRef(x)) => value_type.get(x).and_then(width),
                    _ => None,
                };
                if let Some(n) = from.filter(|&n| n < 64) {
                    sites.push((fi, bi, ii, n));
                }
            }
        }
    }
    // Back to front, so that earlier positions in a block stay valid.
    for &(fi, bi, ii, n) in sites.iter().rev() {
        let old = m.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(t64), Some(result)) = (old.result_type, old.result_id) else {
            continue;
        };
        let sign = match vectors.get(&t64) {
            Some(&(c64, lanes)) => {
                let lane = super::post::u64_const(m, c64, 1u64 << (n - 1));
                let id = super::post::next_id(m);
                m.types_global_values.push(Instruction::new(
                    Op::ConstantComposite,
                    Some(t64),
                    Some(id),
                    vec![Operand::IdRef(lane); lanes as usize],
                ));
                id
            }
            None => super::post::u64_const(m, t64, 1u64 << (n - 1)),
        };
        let (z, flipped) = (super::post::next_id(m), super::post::next_id(m));
        let seq = [
            Instruction::new(Op::UConvert, Some(t64), Some(z), old.operands.clone()),
            Instruction::new(
                Op::BitwiseXor,
                Some(t64),
                Some(flipped),
                vec![Operand::IdRef(z), Operand::IdRef(sign)],
            ),
            Instruction::new(
                Op::ISub,
                Some(t64),
                Some(result),
                vec![Operand::IdRef(flipped), Operand::IdRef(sign)],
            ),
        ];
        m.functions[fi].blocks[bi].instructions.splice(ii..=ii, seq);
    }
}
