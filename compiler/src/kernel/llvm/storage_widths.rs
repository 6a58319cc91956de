//! 8- and 16-bit types used for storage only. LLVM declares `Int8`/`Int16`/`Float16` for any
//! use of a narrow type, but a module that only loads narrow buffer elements, converts them
//! to wider types and stores converted values back needs just the storage-access
//! capabilities (`StorageBuffer8BitAccess`…, which `vulkan_fixups` declares), as the rspirv
//! backend's modules do: `Int8` would demand the device's `shaderInt8` for nothing. The
//! storage-access capabilities of the kernel's narrow buffer parameters are declared from the
//! layout, used or not, again as rspirv declares them.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, StorageClass, Word};

use crate::layout::{BindingKind, KernelLayout};

/// Drops `Int8`, `Int16` and `Float16` where values of that width are only loaded from and
/// stored to buffers or push constants, and converted.
pub(crate) fn drop_storage_only_widths(m: &mut Module) {
    for (cap, op, width) in [
        (Capability::Int8, Op::TypeInt, 8),
        (Capability::Int16, Op::TypeInt, 16),
        (Capability::Float16, Op::TypeFloat, 16),
    ] {
        // The storage-access capabilities are what allow a narrow type without the
        // arithmetic one (its loads, stores and conversions): without one of them (a kernel
        // with no narrow buffer that only truncates through a narrow type, found by the fuzz
        // campaign) the arithmetic capability stays.
        if storage_only(m, op, width) && has_storage_access(m, width) {
            m.capabilities.retain(
                |i| !matches!(i.operands.first(), Some(Operand::Capability(c)) if *c == cap),
            );
        }
    }
}

/// Whether the module declares a storage-access capability for `width`-bit types.
fn has_storage_access(m: &Module, width: u32) -> bool {
    let access: &[Capability] = if width == 8 {
        &[
            Capability::StorageBuffer8BitAccess,
            Capability::UniformAndStorageBuffer8BitAccess,
            Capability::StoragePushConstant8,
        ]
    } else {
        &[
            Capability::StorageBuffer16BitAccess,
            Capability::UniformAndStorageBuffer16BitAccess,
            Capability::StoragePushConstant16,
        ]
    };
    m.capabilities
        .iter()
        .any(|i| matches!(i.operands.first(), Some(Operand::Capability(c)) if access.contains(c)))
}

fn storage_only(m: &Module, op: Op, width: u32) -> bool {
    // The narrow scalar types and vectors of them.
    let mut narrow: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == op && i.operands.first() == Some(&Operand::LiteralBit32(width))
        })
        .filter_map(|i| i.result_id)
        .collect();
    if narrow.is_empty() {
        return false;
    }
    for i in &m.types_global_values {
        if i.class.opcode == Op::TypeVector
            && matches!(i.operands.first(), Some(Operand::IdRef(c)) if narrow.contains(c))
        {
            narrow.extend(i.result_id);
        }
    }
    let defs: HashMap<Word, &Instruction> = m
        .types_global_values
        .iter()
        .filter_map(|i| i.result_id.map(|id| (id, i)))
        .collect();
    for i in &m.types_global_values {
        match i.class.opcode {
            // A narrow constant needs the arithmetic capability.
            _ if i.result_type.is_some_and(|t| narrow.contains(&t)) => return false,
            Op::TypePointer => {
                let (Some(Operand::StorageClass(class)), Some(Operand::IdRef(pointee))) =
                    (i.operands.first(), i.operands.get(1))
                else {
                    continue;
                };
                let storage = matches!(
                    class,
                    StorageClass::StorageBuffer
                        | StorageClass::PushConstant
                        | StorageClass::PhysicalStorageBuffer
                        | StorageClass::Uniform
                );
                if !storage && contains(&defs, &narrow, *pointee, 0) {
                    return false;
                }
            }
            _ => {}
        }
    }
    // The result type of every value the functions make.
    let value_type: HashMap<Word, Word> = m
        .functions
        .iter()
        .flat_map(|f| {
            f.parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| &b.instructions))
        })
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let narrow_value = |id: &Word| value_type.get(id).is_some_and(|t| narrow.contains(t));
    for inst in m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
    {
        let conversion = matches!(
            inst.class.opcode,
            Op::SConvert | Op::UConvert | Op::FConvert
        );
        if inst.result_type.is_some_and(|t| narrow.contains(&t))
            && !(conversion || inst.class.opcode == Op::Load)
        {
            return false;
        }
        let uses_narrow = inst
            .operands
            .iter()
            .any(|o| matches!(o, Operand::IdRef(id) if narrow_value(id)));
        if uses_narrow && !(conversion || inst.class.opcode == Op::Store) {
            return false;
        }
    }
    true
}

/// Whether type `id` is or holds (arrays, structs) a narrow type.
fn contains(
    defs: &HashMap<Word, &Instruction>,
    narrow: &HashSet<Word>,
    id: Word,
    depth: u32,
) -> bool {
    if narrow.contains(&id) {
        return true;
    }
    if depth > 16 {
        return true;
    }
    let Some(i) = defs.get(&id) else {
        return false;
    };
    match i.class.opcode {
        Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct | Op::TypeMatrix => {
            i.operands.iter().any(|o| match o {
                Operand::IdRef(member)
                    if defs
                        .get(member)
                        .is_some_and(|d| d.class.opcode != Op::Constant) =>
                {
                    contains(defs, narrow, *member, depth + 1)
                }
                _ => false,
            })
        }
        _ => false,
    }
}

/// Declares the storage-access capability of each 8- or 16-bit buffer parameter of the
/// layout, whether or not the kernel's code still touches it.
pub(crate) fn layout_storage_capabilities(m: &mut Module, layout: &KernelLayout) {
    for b in &layout.bindings {
        let lane = match &b.kind {
            BindingKind::Buffer { lane, .. } | BindingKind::BufferArray { lane, .. } => *lane,
            _ => continue,
        };
        use crate::ir::ScalarType as S;
        let cap = match lane {
            S::I8 | S::U8 => Capability::StorageBuffer8BitAccess,
            S::I16 | S::U16 | S::F16 | S::BF16 | S::BF16Native => {
                Capability::StorageBuffer16BitAccess
            }
            _ => continue,
        };
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
