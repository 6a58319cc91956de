//! Drops `Int8`, `Int16` and `Float16` when the narrow type is only *stored*: SPIR-V lets a
//! module with just `StorageBuffer8BitAccess` / `StorageBuffer16BitAccess` (or the push-constant
//! forms) declare the type, load and store it and convert it to and from a 32-bit type, and
//! nothing else (SPV_KHR_8bit_storage, SPV_KHR_16bit_storage; spirv-val's "limited use" rule).
//! That is exactly what the int8s / int16s / fp16s precision variants do without arithmetic
//! in the narrow type (SPEC §8), and dropping the arithmetic capability lets such a module run
//! on a device that has narrow storage but not `shaderInt8` / `shaderInt16` / `shaderFloat16`.

use std::collections::HashSet;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, StorageClass, Word};

/// The arithmetic capabilities among `Int8`, `Int16`, `Float16` that `module` does not need
/// because every value of that narrow type is only loaded, stored or converted. `has` says
/// whether the module declares a capability: the narrow type needs a storage capability of
/// its width to exist without the arithmetic one.
pub(crate) fn unneeded(module: &Module, has: impl Fn(Capability) -> bool) -> Vec<Capability> {
    let storage8 =
        has(Capability::StorageBuffer8BitAccess) || has(Capability::StoragePushConstant8);
    let storage16 =
        has(Capability::StorageBuffer16BitAccess) || has(Capability::StoragePushConstant16);
    [
        (Capability::Int8, Op::TypeInt, 8, storage8),
        (Capability::Int16, Op::TypeInt, 16, storage16),
        (Capability::Float16, Op::TypeFloat, 16, storage16),
    ]
    .into_iter()
    .filter(|&(_, op, width, storage)| storage && only_stored(module, op, width))
    .map(|(cap, ..)| cap)
    .collect()
}

/// The first literal operand of `inst` as a number.
fn literal(inst: &Instruction, i: usize) -> Option<u32> {
    match inst.operands.get(i) {
        Some(Operand::LiteralBit32(w)) => Some(*w),
        _ => None,
    }
}

/// Whether every use of the `op`/`width` type (scalars and vectors) is storage-only.
fn only_stored(module: &Module, op: Op, width: u32) -> bool {
    let globals = &module.types_global_values;
    // A float type with an encoding operand (bfloat16) is a different type.
    let mut small: HashSet<Word> = globals
        .iter()
        .filter(|i| i.class.opcode == op && literal(i, 0) == Some(width))
        .filter(|i| op != Op::TypeFloat || i.operands.len() == 1)
        .filter_map(|i| i.result_id)
        .collect();
    if small.is_empty() {
        return true;
    }
    let ids = |i: &Instruction| -> Vec<Word> {
        i.operands.iter().filter_map(|o| o.id_ref_any()).collect()
    };
    // Vectors of the type are small too; aggregates holding it may only be memory types.
    let mut holds: HashSet<Word> = HashSet::new();
    for i in globals {
        let Some(id) = i.result_id else { continue };
        match i.class.opcode {
            Op::TypeVector if ids(i).iter().any(|c| small.contains(c)) => {
                small.insert(id);
            }
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct
                if ids(i)
                    .iter()
                    .any(|c| small.contains(c) || holds.contains(c)) =>
            {
                holds.insert(id);
            }
            // Cooperative matrices compute in their component type.
            Op::TypeCooperativeMatrixKHR if ids(i).iter().any(|c| small.contains(c)) => {
                return false;
            }
            Op::TypePointer => {
                let pointee = ids(i);
                let narrow = pointee
                    .iter()
                    .any(|c| small.contains(c) || holds.contains(c));
                let class = i.operands.first();
                let allowed = matches!(
                    class,
                    Some(Operand::StorageClass(
                        StorageClass::StorageBuffer
                            | StorageClass::Uniform
                            | StorageClass::PushConstant
                            | StorageClass::PhysicalStorageBuffer
                    ))
                );
                if narrow && !allowed {
                    return false;
                }
            }
            // No constants (nor undefs) of the narrow type.
            _ if i.result_type.is_some_and(|t| small.contains(&t)) => return false,
            _ => {}
        }
    }
    // Values of the narrow type: made only by loads and conversions, used only by stores
    // and conversions.
    let mut values: HashSet<Word> = HashSet::new();
    for f in &module.functions {
        let def = f.def.as_ref();
        if def
            .and_then(|d| d.result_type)
            .is_some_and(|t| small.contains(&t))
        {
            return false;
        }
        if f.parameters
            .iter()
            .any(|p| p.result_type.is_some_and(|t| small.contains(&t)))
        {
            return false;
        }
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            if let (Some(t), Some(id)) = (i.result_type, i.result_id) {
                if small.contains(&t) {
                    if !matches!(
                        i.class.opcode,
                        Op::Load | Op::SConvert | Op::UConvert | Op::FConvert | Op::CopyObject
                    ) {
                        return false;
                    }
                    values.insert(id);
                }
            }
        }
    }
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .all(|i| {
            let uses = ids(i).into_iter().any(|id| values.contains(&id));
            !uses
                || match i.class.opcode {
                    Op::SConvert | Op::UConvert | Op::FConvert | Op::CopyObject => true,
                    // Only as the stored object, never as the pointer.
                    Op::Store => i
                        .operands
                        .first()
                        .and_then(|o| o.id_ref_any())
                        .is_none_or(|p| !values.contains(&p)),
                    _ => false,
                }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::dr::Builder;

    /// A function that loads a narrow value from a storage buffer and widens it, or (with
    /// `arith`) also adds two narrow values.
    fn module(arith: bool) -> Module {
        let mut b = Builder::new();
        let void = b.type_void();
        let i8t = b.type_int(8, 1);
        let i32t = b.type_int(32, 1);
        let ptr = b.type_pointer(None, StorageClass::StorageBuffer, i8t);
        let var = b.variable(ptr, None, StorageClass::StorageBuffer, None);
        let fty = b.type_function(void, []);
        b.begin_function(void, None, rspirv::spirv::FunctionControl::NONE, fty)
            .unwrap();
        b.begin_block(None).unwrap();
        let x = b.load(i8t, None, var, None, []).unwrap();
        let y = if arith {
            b.i_add(i8t, None, x, x).unwrap()
        } else {
            x
        };
        b.s_convert(i32t, None, y).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.module()
    }

    #[test]
    fn storage_only_narrow_types_need_no_arithmetic_capability() {
        let storage = |c| c == Capability::StorageBuffer8BitAccess;
        assert!(unneeded(&module(false), storage).contains(&Capability::Int8));
        assert!(!unneeded(&module(true), storage).contains(&Capability::Int8));
        // Without the storage capability the type itself needs Int8.
        assert!(!unneeded(&module(false), |_| false).contains(&Capability::Int8));
    }
}
