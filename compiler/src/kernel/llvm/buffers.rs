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
        if super::buffer_arrays::array_element(buf).is_some() {
            // `bufs[k].length()`: the marker takes the (clamped) index of the buffer.
            let (h, index) = self.select_buffer(buf)?;
            let name = format!("{ARRAY_LENGTH}{}", h.binding());
            self.declare(format!(
                "declare i32 @\"{name}\"(i32) nounwind willreturn memory(none)"
            ));
            let n = self.tmp();
            self.emit(format!("{n} = call i32 @\"{name}\"(i32 {})", index.text));
            return self.widen_length(n, wide);
        }
        let handle = match &buf.kind {
            ExprKind::Load(Place::Local(l)) => self.handles.get(l.0).cloned().flatten(),
            _ => None,
        };
        let Some(Handle::Buffer {
            binding, var, ty, ..
        }) = handle
        else {
            return Err(refuse(
                buf.span,
                "`length()` of a buffer that is not a parameter",
            ));
        };
        if self.target == super::target::Target::Cpu {
            let n = self.cpu_buffer_length(&var, &ty);
            return self.widen_length(n, wide);
        }
        let name = format!("{ARRAY_LENGTH}{binding}");
        self.declare(format!(
            "declare i32 @\"{name}\"() nounwind willreturn memory(none)"
        ));
        let n = self.tmp();
        self.emit(format!("{n} = call i32 @\"{name}\"()"));
        self.widen_length(n, wide)
    }

    /// `llvm.spv.resource.getpointer` of element `index` (an `i32`, or an `i64` saturated
    /// to `i32` for a `uint64` index, as in the rspirv backend) of the buffer handle `var` of
    /// type `ty`.
    pub(super) fn buffer_pointer(
        &mut self,
        var: &str,
        ty: &str,
        mangled: &str,
        index: &Val,
    ) -> String {
        let suffix = if index.ty == "i32" { "" } else { ".i64" };
        let index = if matches!(index.ty, "i32" | "i64") {
            index.text.clone()
        } else {
            // Narrower indices are unsigned counts: zero-extended.
            let w = self.tmp();
            self.emit(format!("{w} = zext {} {} to i32", index.ty, index.text));
            w
        };
        let index_ty = if suffix.is_empty() { "i32" } else { "i64" };
        if self.target == super::target::Target::Cpu {
            // On the CPU target a buffer handle's `ty` is its element type.
            return self.cpu_buffer_pointer(var, ty, &Val::new(index, index_ty));
        }
        // Drivers compute the access chain's offset in 32 bits (the rspirv backend's
        // `buffer_element_pointer` says more): a 64-bit index past 2^32 - 1, out of bounds
        // of any descriptor's range, saturates there and stays out of bounds.
        let (index, index_ty, suffix) = if suffix.is_empty() {
            (index, index_ty, suffix)
        } else {
            let [past, most, narrow] = [self.tmp(), self.tmp(), self.tmp()];
            self.emit(format!("{past} = icmp ugt i64 {index}, 4294967295"));
            self.emit(format!(
                "{most} = select i1 {past}, i64 4294967295, i64 {index}"
            ));
            self.emit(format!("{narrow} = trunc i64 {most} to i32"));
            (narrow, "i32", "")
        };
        let name = format!("llvm.spv.resource.getpointer.p11.{mangled}{suffix}");
        self.declare(format!(
            "declare ptr addrspace(11) @{name}({ty}, {index_ty})"
        ));
        let p = self.tmp();
        self.emit(format!(
            "{p} = call ptr addrspace(11) @{name}({ty} {var}, {index_ty} {index})"
        ));
        p
    }

    /// The count `n` as `uint32`, or zero-extended to `uint64` for `length64()`.
    fn widen_length(&mut self, n: String, wide: bool) -> Res<Val> {
        if !wide {
            return Ok(Val::new(n, "i32"));
        }
        let w = self.tmp();
        self.emit(format!("{w} = zext i32 {n} to i64"));
        Ok(Val::new(w, "i64"))
    }
}

/// Replaces every call of a `cajeta.array_length.<binding>` function with `OpArrayLength`
/// of member 0 of that binding's variable (of a buffer array's chosen buffer, through an
/// access chain by the call's index argument, `NonUniform` where the index is), then
/// removes the functions' declarations, their `Import` linkage and the `Linkage`
/// capability it implied.
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
    let mut non_uniform: Vec<Word> = Vec::new();
    for a in &m.annotations {
        match a.operands.as_slice() {
            [Operand::IdRef(id), Operand::Decoration(Decoration::Binding), Operand::LiteralBit32(b)] =>
            {
                vars.insert(*b, *id);
            }
            [Operand::IdRef(id), Operand::Decoration(Decoration::NonUniform)] => {
                non_uniform.push(*id);
            }
            _ => {}
        }
    }
    let mut calls = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                let callee = match i.operands.first() {
                    Some(Operand::IdRef(c)) if i.class.opcode == Op::FunctionCall => *c,
                    _ => continue,
                };
                if let Some(&binding) = markers.get(&callee) {
                    calls.push((fi, bi, ii, binding));
                }
            }
        }
    }
    // Back to front, so that earlier positions stay valid while instructions are inserted.
    for (fi, bi, ii, binding) in calls.into_iter().rev() {
        let Some(&var) = vars.get(&binding) else {
            return Err(format!(
                "the length of buffer binding {binding}, which the kernel never accesses"
            ));
        };
        let call = m.functions[fi].blocks[bi].instructions[ii].clone();
        let mut lines = Vec::new();
        let mut block = var;
        if let Some(Operand::IdRef(k)) = call.operands.get(1) {
            let pointer = block_pointer_type(m, var)
                .ok_or_else(|| format!("buffer array binding {binding}: no descriptor array"))?;
            block = super::post::next_id(m);
            lines.push(Instruction::new(
                Op::AccessChain,
                Some(pointer),
                Some(block),
                vec![Operand::IdRef(var), Operand::IdRef(*k)],
            ));
            if non_uniform.contains(k) {
                let result = call.result_id.filter(|r| !non_uniform.contains(r));
                for id in [Some(block), result].into_iter().flatten() {
                    m.annotations.push(Instruction::new(
                        Op::Decorate,
                        None,
                        None,
                        vec![
                            Operand::IdRef(id),
                            Operand::Decoration(Decoration::NonUniform),
                        ],
                    ));
                }
            }
        }
        lines.push(Instruction::new(
            Op::ArrayLength,
            call.result_type,
            call.result_id,
            vec![Operand::IdRef(block), Operand::LiteralBit32(0)],
        ));
        m.functions[fi].blocks[bi]
            .instructions
            .splice(ii..=ii, lines);
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

/// The `StorageBuffer` pointer type to one buffer of the descriptor array `var` points to.
fn block_pointer_type(m: &mut Module, var: Word) -> Option<Word> {
    let def = |m: &Module, id: Word| {
        m.types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
            .cloned()
    };
    let var_ty = def(m, var)?.result_type?;
    let Some(Operand::IdRef(array)) = def(m, var_ty)?.operands.get(1).cloned() else {
        return None;
    };
    let array = def(m, array)?;
    if array.class.opcode != Op::TypeArray {
        return None;
    }
    let Some(Operand::IdRef(block)) = array.operands.first().cloned() else {
        return None;
    };
    Some(super::post::type_id(
        m,
        Op::TypePointer,
        vec![
            Operand::StorageClass(rspirv::spirv::StorageClass::StorageBuffer),
            Operand::IdRef(block),
        ],
    ))
}
