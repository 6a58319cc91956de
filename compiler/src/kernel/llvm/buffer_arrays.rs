//! Buffer arrays (`KernelBuffer<T>[] bufs`, indexed `bufs[k][i]`), as the rspirv backend
//! lowers them: one binding holding an array of storage-buffer descriptors whose length is
//! the spec constant the layout names, the number of buffers bound in a hidden push
//! constant, and `k` clamped to the last bound buffer (`umin(k, count - 1)`) so that no
//! access reaches a descriptor that was not bound. An index that is not provably uniform
//! goes through `llvm.spv.resource.nonuniformindex` (a `NonUniform` decoration, as GLSL's
//! `nonuniformEXT`).
//!
//! Each access makes the handle of buffer `k` with `llvm.spv.resource.handlefrombinding`
//! (array size [`marker_size`] of the binding: a length no real array has, which
//! [`specialize_array_lengths`] replaces with the capacity spec constant once LLVM has
//! emitted the module).

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, Word};

use super::lower::{FnLower, Val};
use super::{refuse, Handle};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Place, ScalarType};
use crate::layout::{BindingKind, KernelLayout};

type Res<T> = Result<T, Diagnostic>;

/// The descriptor-array length LLVM is told for buffer-array binding `binding`.
pub(crate) fn marker_size(binding: u32) -> u32 {
    0x00C0_0000 + binding
}

/// Whether `e` is `bufs[k]` for a buffer array `bufs`: the array and the index.
pub(crate) fn array_element(e: &Expr) -> Option<(&Expr, &Expr)> {
    match &e.kind {
        ExprKind::Load(Place::Index { base, index }) if base.ty.is_buffer_array() => {
            Some((base, index))
        }
        _ => None,
    }
}

impl FnLower<'_> {
    /// The handle of the buffer-array parameter `arr`.
    fn array_handle(&self, arr: &Expr) -> Res<Handle> {
        let handle = match &arr.kind {
            ExprKind::Load(Place::Local(l)) => self.handles.get(l.0).cloned().flatten(),
            _ => None,
        };
        match handle {
            Some(h @ Handle::BufferArray { .. }) => Ok(h),
            _ => Err(refuse(
                arr.span,
                "a buffer array that is not a kernel parameter",
            )),
        }
    }

    /// `bufs.length`: the number of buffers bound (the hidden push constant).
    pub(super) fn buffer_array_count(&mut self, arr: &Expr, span: Span) -> Res<Val> {
        let Handle::BufferArray { count_member, .. } = self.array_handle(arr)? else {
            return Err(refuse(span, "a buffer array"));
        };
        self.load_member(
            count_member,
            &crate::ir::Type::Scalar(ScalarType::U32),
            span,
        )
    }

    /// The handle of buffer `bufs[k]` (`element`), with `k` clamped to the last bound buffer
    /// and marked non-uniform unless provably uniform; also the clamped index.
    pub(super) fn select_buffer(&mut self, element: &Expr) -> Res<(Handle, Val)> {
        let Some((arr, k)) = array_element(element) else {
            return Err(refuse(element.span, "a buffer array element"));
        };
        let h = self.array_handle(arr)?;
        let Handle::BufferArray {
            ty,
            mangled,
            binding,
            name,
            elem,
            lanes,
            ..
        } = h.clone()
        else {
            return Err(refuse(arr.span, "a buffer array"));
        };
        let uniform = crate::kernel::spirv::uniformity::uniform_locals(self.kernel);
        let non_uniform = !crate::kernel::spirv::uniformity::is_uniform_expr(k, &uniform);
        let kv = self.expr(k)?;
        let count = self.buffer_array_count(arr, k.span)?;
        let (last, clamped) = (self.tmp(), self.tmp());
        self.emit(format!("{last} = sub i32 {}, 1", count.text));
        self.declare("declare i32 @llvm.umin.i32(i32, i32)".to_string());
        self.emit(format!(
            "{clamped} = call i32 @llvm.umin.i32(i32 {}, i32 {last})",
            kv.text
        ));
        let mut index = clamped;
        if non_uniform {
            let nu = self.tmp();
            self.declare("declare i32 @llvm.spv.resource.nonuniformindex(i32)".to_string());
            self.emit(format!(
                "{nu} = call i32 @llvm.spv.resource.nonuniformindex(i32 {index})"
            ));
            index = nu;
        }
        let var = self.tmp();
        self.emit(format!(
            "{var} = call {ty} @llvm.spv.resource.handlefrombinding.{mangled}(i32 0, i32 {binding}, i32 {}, i32 {index}, ptr {name})",
            marker_size(binding)
        ));
        let buffer = Handle::Buffer {
            var,
            ty,
            mangled,
            elem,
            lanes,
            binding,
            create: String::new(),
        };
        Ok((buffer, Val::new(index, "i32")))
    }

    /// A pointer to `bufs[k][i]` (`base` is `bufs[k]`): (pointer, address space, lane type).
    pub(super) fn array_element_pointer(
        &mut self,
        base: &Expr,
        index: &Expr,
    ) -> Res<(String, u32, ScalarType)> {
        let (buffer, _) = self.select_buffer(base)?;
        let Handle::Buffer {
            var,
            ty,
            mangled,
            elem,
            ..
        } = buffer
        else {
            return Err(refuse(base.span, "a buffer array"));
        };
        let i = self.expr(index)?;
        let p = self.buffer_pointer(&var, &ty, &mangled, &i);
        Ok((p, 11, elem))
    }
}

/// Replaces the marker length of every buffer-array binding's descriptor array with a
/// specialization constant (default 1) decorated with the layout's `capacity_spec_id`.
pub(crate) fn specialize_array_lengths(
    m: &mut Module,
    layout: &KernelLayout,
    mut uint_const: impl FnMut(&mut Module, u32) -> Word,
    mut next_id: impl FnMut(&mut Module) -> Word,
) -> Result<(), String> {
    for slot in &layout.bindings {
        let BindingKind::BufferArray {
            capacity_spec_id, ..
        } = slot.kind
        else {
            continue;
        };
        let marker = uint_const(m, marker_size(slot.binding));
        let uint = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(marker))
            .and_then(|i| i.result_type);
        let Some(uint) = uint else {
            continue;
        };
        let arrays: Vec<usize> = m
            .types_global_values
            .iter()
            .enumerate()
            .filter(|(_, i)| {
                i.class.opcode == Op::TypeArray
                    && i.operands.get(1) == Some(&Operand::IdRef(marker))
            })
            .map(|(n, _)| n)
            .collect();
        if arrays.len() > 1 {
            return Err(format!(
                "buffer array binding {}: more than one descriptor array type",
                slot.binding
            ));
        }
        let Some(&at) = arrays.first() else {
            // Never accessed: LLVM declared no variable for it.
            continue;
        };
        let spec = next_id(m);
        m.types_global_values.insert(
            at,
            Instruction::new(
                Op::SpecConstant,
                Some(uint),
                Some(spec),
                vec![Operand::LiteralBit32(1)],
            ),
        );
        m.types_global_values[at + 1].operands[1] = Operand::IdRef(spec);
        m.annotations.push(Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![
                Operand::IdRef(spec),
                Operand::Decoration(Decoration::SpecId),
                Operand::LiteralBit32(capacity_spec_id),
            ],
        ));
    }
    Ok(())
}

/// The bindings whose variable a `NonUniform` access chain indexes.
pub(crate) fn non_uniform_bindings(m: &Module) -> Vec<u32> {
    let mut binding_of = std::collections::HashMap::new();
    let mut non_uniform = std::collections::HashSet::new();
    for a in &m.annotations {
        match a.operands.as_slice() {
            [Operand::IdRef(id), Operand::Decoration(Decoration::Binding), Operand::LiteralBit32(b)] =>
            {
                binding_of.insert(*id, *b);
            }
            [Operand::IdRef(id), Operand::Decoration(Decoration::NonUniform)] => {
                non_uniform.insert(*id);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for i in m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        let chain = matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
        if let (true, Some(id), Some(Operand::IdRef(base))) =
            (chain, i.result_id, i.operands.first())
        {
            if let Some(&b) = binding_of.get(base) {
                if non_uniform.contains(&id) && !out.contains(&b) {
                    out.push(b);
                }
            }
        }
    }
    out
}
