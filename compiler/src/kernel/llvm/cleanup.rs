//! Removes what LLVM's SPIR-V target leaves behind unused, so that a module declares only
//! the capabilities its code needs: the `i8` strings naming each resource (function-scope
//! variables nothing reads), then the types and constants only they used; 64-bit constant
//! access-chain indices (LLVM's canonical GEP index width) narrowed to 32 bits. A width
//! capability (`Int8`, `Int16`, `Int64`, `Float16`, `Float64`) is dropped when no type of
//! that width is left: `Int8` alone would need the device's `shaderInt8`.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, StorageClass, Word};

/// Narrows constant 64-bit access-chain indices to `uint32` constants.
pub(crate) fn narrow_constant_indices(
    m: &mut Module,
    uint_const: impl Fn(&mut Module, u32) -> Word,
) {
    let wide_types: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt && i.operands.first() == Some(&Operand::LiteralBit32(64))
        })
        .filter_map(|i| i.result_id)
        .collect();
    // In module order, not a map's: each narrow constant is a new id, and the order they
    // are made in is the order of the emitted module (a `HashMap` here made the module
    // differ from one compile to the next).
    let wide: Vec<(Word, u64)> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter(|i| i.result_type.is_some_and(|t| wide_types.contains(&t)))
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralBit64(v))) => Some((id, *v)),
            _ => None,
        })
        .collect();
    let mut narrow: HashMap<Word, Word> = HashMap::new();
    for &(id, v) in &wide {
        if let Ok(v) = u32::try_from(v) {
            narrow.insert(id, uint_const(m, v));
        }
    }
    // An index LLVM widened (`sext`/`zext` of a 32-bit value to the 64-bit GEP index type)
    // indexes as well unwidened: the arrays are far shorter than 2^31 elements.
    let narrow_types: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt && i.operands.first() == Some(&Operand::LiteralBit32(32))
        })
        .filter_map(|i| i.result_id)
        .collect();
    let mut defined_type: HashMap<Word, Word> = HashMap::new();
    for i in m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
            defined_type.insert(id, t);
        }
    }
    for i in m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        let widening = matches!(i.class.opcode, Op::SConvert | Op::UConvert)
            && i.result_type.is_some_and(|t| wide_types.contains(&t));
        if let (true, Some(id), Some(Operand::IdRef(src))) =
            (widening, i.result_id, i.operands.first())
        {
            if defined_type
                .get(src)
                .is_some_and(|t| narrow_types.contains(t))
            {
                narrow.insert(id, *src);
            }
        }
    }
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for inst in &mut b.instructions {
                if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                    continue;
                }
                for op in inst.operands.iter_mut().skip(1) {
                    if let Operand::IdRef(id) = op {
                        if let Some(&n) = narrow.get(id) {
                            *op = Operand::IdRef(n);
                        }
                    }
                }
            }
        }
    }
}

fn ids_used_by(inst: &Instruction, out: &mut IdSet) {
    out.extend(inst.result_type);
    // Scopes and memory semantics are ids too (`IdScope`, `IdMemorySemantics`).
    out.extend(inst.operands.iter().filter_map(Operand::id_ref_any));
}

/// A set of SPIR-V ids as one bit per id. Ids are dense, below the module's bound, so this
/// is a fraction of a `HashSet`'s work: the sets below are rebuilt over every instruction of
/// the module on each round, and hashing them was most of this post-pass's time.
#[derive(Default)]
struct IdSet {
    bits: Vec<u64>,
}

impl IdSet {
    fn insert(&mut self, id: Word) {
        let (word, bit) = (id as usize / 64, id % 64);
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << bit;
    }

    fn contains(&self, id: &Word) -> bool {
        let (word, bit) = (*id as usize / 64, id % 64);
        self.bits.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    fn extend(&mut self, ids: impl IntoIterator<Item = Word>) {
        for id in ids {
            self.insert(id);
        }
    }
}

/// Removes unreferenced function-scope variables, global types, constants and variables
/// (specialization constants stay: the `WorkgroupSize` built-in is referenced by
/// decoration only), then the names and decorations of what is gone.
pub(crate) fn remove_unused(m: &mut Module) {
    loop {
        let mut used = IdSet::default();
        for i in m.entry_points.iter().chain(&m.execution_modes) {
            ids_used_by(i, &mut used);
        }
        for i in &m.types_global_values {
            ids_used_by(i, &mut used);
        }
        for f in &m.functions {
            for i in f.def.iter().chain(&f.parameters).chain(&f.end) {
                ids_used_by(i, &mut used);
            }
            for b in &f.blocks {
                for i in &b.instructions {
                    ids_used_by(i, &mut used);
                }
            }
        }
        let dead = |i: &Instruction| i.result_id.is_some_and(|id| !used.contains(&id));
        let before = count(m);
        m.types_global_values.retain(|i| {
            let keep_anyway = matches!(
                i.class.opcode,
                Op::SpecConstant
                    | Op::SpecConstantComposite
                    | Op::SpecConstantTrue
                    | Op::SpecConstantFalse
                    | Op::TypeVoid
            );
            keep_anyway || !dead(i)
        });
        for f in &mut m.functions {
            for b in &mut f.blocks {
                b.instructions.retain(|i| {
                    let local = i.class.opcode == Op::Variable
                        && i.operands.first()
                            == Some(&Operand::StorageClass(StorageClass::Function));
                    let widening = matches!(i.class.opcode, Op::SConvert | Op::UConvert);
                    !((local || widening) && dead(i))
                });
            }
        }
        if count(m) == before {
            break;
        }
    }
    let mut defined = IdSet::default();
    for i in &m.types_global_values {
        defined.extend(i.result_id);
    }
    for f in &m.functions {
        for i in f.def.iter().chain(&f.parameters) {
            defined.extend(i.result_id);
        }
        for b in &f.blocks {
            defined.extend(b.label.as_ref().and_then(|l| l.result_id));
            for i in &b.instructions {
                defined.extend(i.result_id);
            }
        }
    }
    let targets_defined = |i: &Instruction| match i.operands.first() {
        Some(Operand::IdRef(id)) => defined.contains(id),
        _ => true,
    };
    m.annotations.retain(targets_defined);
    m.debug_names.retain(targets_defined);
}

fn count(m: &Module) -> usize {
    m.types_global_values.len()
        + m.functions
            .iter()
            .flat_map(|f| &f.blocks)
            .map(|b| b.instructions.len())
            .sum::<usize>()
}

/// Drops the width capabilities no declared type needs.
pub(crate) fn drop_unused_width_capabilities(m: &mut Module) {
    let has = |op: Op, width: u32| {
        m.types_global_values.iter().any(|i| {
            i.class.opcode == op && i.operands.first() == Some(&Operand::LiteralBit32(width))
        })
    };
    let unused: Vec<Capability> = [
        (Capability::Int8, Op::TypeInt, 8),
        (Capability::Int16, Op::TypeInt, 16),
        (Capability::Int64, Op::TypeInt, 64),
        (Capability::Float16, Op::TypeFloat, 16),
        (Capability::Float64, Op::TypeFloat, 64),
    ]
    .into_iter()
    .filter(|&(_, op, width)| !has(op, width))
    .map(|(cap, _, _)| cap)
    .collect();
    m.capabilities.retain(
        |i| !matches!(i.operands.first(), Some(Operand::Capability(c)) if unused.contains(c)),
    );
}
