//! `KernelThread.clock()` / `deviceClock()`: `OpReadClockKHR` with subgroup or device scope
//! and a `uint64` result, as the rspirv backend emits it. LLVM 23.1's SPIR-V target has no
//! intrinsic for it, so it is a [`super::spirv_ops`] placeholder that may touch any memory
//! (the optimizer keeps the memory accesses between two readings between them), and the
//! post-pass ([`declare_clock`]) adds `ShaderClockKHR`, `SPV_KHR_shader_clock` and the
//! Vulkan feature of each scope read.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, Word};

use super::lower::{FnLower, Val};
use super::spirv_ops;

/// Scope `Device` and `Subgroup` (SPIR-V numbering).
const SCOPE_DEVICE: u32 = 1;
const SCOPE_SUBGROUP: u32 = 3;

impl FnLower<'_> {
    /// A reading of the device (`device`) or subgroup clock.
    pub(super) fn read_clock(&mut self, device: bool) -> Val {
        let scope = if device { SCOPE_DEVICE } else { SCOPE_SUBGROUP };
        let op = spirv_ops::core_op(Op::ReadClockKHR, None);
        let name = self.spirv_op(&op, "i64", &["i32"], false);
        let t = self.tmp();
        self.emit(format!("{t} = call i64 {name}(i32 {scope})"));
        Val::new(t, "i64")
    }
}

/// Declares what the module's `OpReadClockKHR`s need; returns their Vulkan features
/// (`shaderDeviceClock`, `shaderSubgroupClock`).
pub(crate) fn declare_clock(m: &mut Module) -> Vec<&'static str> {
    let constants: std::collections::HashMap<Word, u32> = m
        .types_global_values
        .iter()
        .filter_map(
            |i| match (i.class.opcode, i.result_id, i.operands.first()) {
                (Op::Constant, Some(id), Some(Operand::LiteralBit32(v))) => Some((id, *v)),
                _ => None,
            },
        )
        .collect();
    let mut features = Vec::new();
    for i in m.all_inst_iter() {
        if i.class.opcode != Op::ReadClockKHR {
            continue;
        }
        let scope = i
            .operands
            .first()
            .and_then(Operand::id_ref_any)
            .and_then(|s| constants.get(&s));
        let feature = if scope == Some(&SCOPE_DEVICE) {
            "shaderDeviceClock"
        } else {
            "shaderSubgroupClock"
        };
        if !features.contains(&feature) {
            features.push(feature);
        }
    }
    if features.is_empty() {
        return features;
    }
    let has = m
        .capabilities
        .iter()
        .any(|i| i.operands.first() == Some(&Operand::Capability(Capability::ShaderClockKHR)));
    if !has {
        m.capabilities.push(Instruction::new(
            Op::Capability,
            None,
            None,
            vec![Operand::Capability(Capability::ShaderClockKHR)],
        ));
    }
    let ext = "SPV_KHR_shader_clock";
    let declared = m
        .extensions
        .iter()
        .any(|i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == ext));
    if !declared {
        m.extensions.push(Instruction::new(
            Op::Extension,
            None,
            None,
            vec![Operand::LiteralString(ext.to_string())],
        ));
    }
    features.sort_unstable();
    features
}
