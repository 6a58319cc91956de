//! Buffer queries: `buf.length()` and `buf.length64()` of a buffer parameter, the element
//! count of its runtime array (`OpArrayLength`), as in the rspirv backend.
//!
//! LLVM 23's SPIR-V target has no intrinsic for `OpArrayLength` (its
//! `llvm.spv.resource.getdimensions.*` are for images, and abort code generation on a
//! buffer), so the count is a call of the external function `cajeta.array_length.<binding>`,
//! declared `memory(none)` (the count is fixed for a dispatch, so LLVM may merge and hoist
//! the calls), which [`replace_array_length_calls`] turns into `OpArrayLength` of that
//! binding's variable once LLVM has emitted the module.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Decoration, Op, Word};

use super::lower::{FnLower, Val};
use super::{refuse, Handle};
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, ExprKind, Place};

type Res<T> = Result<T, Diagnostic>;

/// The name prefix of the functions standing for `OpArrayLength` of a binding.
const ARRAY_LENGTH: &str = "cajeta.array_length.";

impl FnLower<'_> {
    /// `buf.length()` (`wide`: `length64()`, the same count zero-extended).
    pub(super) fn buffer_length(&mut self, args: &[Expr], e: &Expr, wide: bool) -> Res<Val> {
        let [buf] = args else {
            return Err(refuse(e.span, "a malformed `length()`"));
        };
        let handle = match &buf.kind {
            ExprKind::Load(Place::Local(l)) => self.handles.get(l.0).cloned().flatten(),
            _ => None,
        };
        let Some(Handle::Buffer { binding, .. }) = handle else {
            return Err(refuse(
                buf.span,
                "`length()` of a buffer that is not a parameter",
            ));
        };
        let name = format!("{ARRAY_LENGTH}{binding}");
        self.declare(format!(
            "declare i32 @\"{name}\"() nounwind willreturn memory(none)"
        ));
        let n = self.tmp();
        self.emit(format!("{n} = call i32 @\"{name}\"()"));
        if !wide {
            return Ok(Val::new(n, "i32"));
        }
        let w = self.tmp();
        self.emit(format!("{w} = zext i32 {n} to i64"));
        Ok(Val::new(w, "i64"))
    }
}

/// Replaces every call of a `cajeta.array_length.<binding>` function with `OpArrayLength`
/// of member 0 of that binding's variable, then removes the functions' declarations, their
/// `Import` linkage and the `Linkage` capability it implied.
pub(crate) fn replace_array_length_calls(m: &mut Module) -> Result<(), String> {
    // The declared functions, by id, with the binding each stands for.
    let mut markers: HashMap<Word, u32> = HashMap::new();
    for a in &m.annotations {
        if let [Operand::IdRef(id), Operand::Decoration(Decoration::LinkageAttributes), Operand::LiteralString(name), ..] =
            a.operands.as_slice()
        {
            if let Some(b) = name.strip_prefix(ARRAY_LENGTH).and_then(|b| b.parse().ok()) {
                markers.insert(*id, b);
            }
        }
    }
    if markers.is_empty() {
        return Ok(());
    }
    let mut vars: HashMap<u32, Word> = HashMap::new();
    for a in &m.annotations {
        if let [Operand::IdRef(id), Operand::Decoration(Decoration::Binding), Operand::LiteralBit32(b)] =
            a.operands.as_slice()
        {
            vars.insert(*b, *id);
        }
    }
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                if i.class.opcode != Op::FunctionCall {
                    continue;
                }
                let Some(Operand::IdRef(callee)) = i.operands.first() else {
                    continue;
                };
                let Some(binding) = markers.get(callee) else {
                    continue;
                };
                let Some(&var) = vars.get(binding) else {
                    return Err(format!(
                        "the length of buffer binding {binding}, which the kernel never accesses"
                    ));
                };
                *i = Instruction::new(
                    Op::ArrayLength,
                    i.result_type,
                    i.result_id,
                    vec![Operand::IdRef(var), Operand::LiteralBit32(0)],
                );
            }
        }
    }
    let is_marker = |i: &Instruction| matches!(i.operands.first(), Some(Operand::IdRef(id)) if markers.contains_key(id));
    m.functions.retain(|f| {
        !f.def
            .as_ref()
            .and_then(|d| d.result_id)
            .is_some_and(|id| markers.contains_key(&id))
    });
    m.annotations.retain(|a| !is_marker(a));
    m.debug_names.retain(|a| !is_marker(a));
    let linked = m
        .annotations
        .iter()
        .any(|a| a.operands.get(1) == Some(&Operand::Decoration(Decoration::LinkageAttributes)));
    if !linked {
        m.capabilities
            .retain(|c| c.operands.first() != Some(&Operand::Capability(Capability::Linkage)));
    }
    Ok(())
}
