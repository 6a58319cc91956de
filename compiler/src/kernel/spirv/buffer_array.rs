//! Buffer arrays (`KernelBuffer<T>[] bufs` kernel parameters, indexed `bufs[k][i]`): one
//! binding holding an array of storage-buffer descriptors whose length is a specialization
//! constant (`cajeta_runtime::BUFFER_ARRAY_SPEC_BASE` + binding) that the runtime sets to the
//! binding's capacity in its set layout. The binding, the spec id and the hidden count member
//! are decided by [`crate::layout`]; this file declares them and lowers the accesses. A sized array needs no `runtimeDescriptorArray`, so
//! uniformly indexed buffer arrays run wherever `shaderStorageBufferArrayDynamicIndexing` is
//! (lavapipe included).
//!
//! The number of buffers bound travels in a hidden `uint32` push constant (`bufs.length`),
//! which the runtime sets at launch. The array index `k` is checked against it like any
//! buffer index: in checked mode an out-of-range `k` is reported and the access skipped; in
//! unchecked mode `k` is clamped to the last buffer, so that no access ever reaches a
//! descriptor that was not bound (which is undefined behaviour that can lose the device).
//!
//! Uniformity: an index built only from constants, the kernel's scalar parameters,
//! `bufs.length` and locals that provably hold such values (`uniformity.rs`: loop counters of
//! loops with uniform bounds, for one) is dynamically uniform and needs only
//! `shaderStorageBufferArrayDynamicIndexing`. Any other index (one that depends on the thread
//! id or a buffer's contents) is decorated `NonUniform`, with the access chains built from it, as GLSL's `nonuniformEXT`
//! would be, but automatically; such a kernel needs `shaderStorageBufferArrayNonUniformIndexing`
//! (`SPV_EXT_descriptor_indexing` before SPIR-V 1.5), and a device without it refuses to load
//! it, naming the feature.

use rspirv::spirv::{Capability, Decoration, Op, StorageClass, Word};

use super::access::Usage;
use super::bounds::Guard;
use super::function::{FnCx, Slot};
use super::module::{ParamPlace, ResourceKind};
use super::{unsupported, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::{Expr, ExprKind, Place, ScalarType};
use crate::layout::{BindingKind, BindingSlot};

/// GLSL.std.450 `UMin`.
const GLSL_UMIN: u32 = 38;

impl Ctx<'_> {
    /// Declares the buffer-array binding `slot` (a `KernelBuffer<T>[]` parameter) as the
    /// layout placed it: its capacity spec constant and its descriptor array.
    pub(crate) fn declare_buffer_array(
        &mut self,
        slot: &BindingSlot,
        span: Span,
        usage: Usage,
    ) -> Res<ParamPlace> {
        let BindingKind::BufferArray {
            elem,
            lane,
            stride,
            capacity_spec_id,
            count_member,
            ..
        } = &slot.kind
        else {
            return Err(unsupported(span, "internal error: not a buffer array"));
        };
        if usage.bits_view {
            return Err(unsupported(
                span,
                "float atomics on the elements of a buffer array",
            ));
        }
        let storage = self.storage_ir_type(elem, span)?;
        self.small_buffer_storage(elem)?;
        let block = self.buffer_block_type(storage, *stride);
        let uint = self.u32_type();
        let capacity = self.b.spec_constant_bit32(uint, 1);
        self.b.decorate(
            capacity,
            Decoration::SpecId,
            [rspirv::dr::Operand::LiteralBit32(*capacity_spec_id)],
        );
        self.b
            .name(capacity, format!("{}.capacity", slot.name).as_str());
        let array = self.descriptor_array_type(block, capacity);
        self.features
            .vulkan_feature("shaderStorageBufferArrayDynamicIndexing");
        let kind = ResourceKind::BufferArray {
            elem: *lane,
            storage,
            block,
            count_member: *count_member,
        };
        Ok(self.declare_resource(&slot.name, array, StorageClass::StorageBuffer, kind, usage))
    }
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

/// One buffer of a buffer array, selected for an access.
pub(crate) struct SelectedBuffer {
    /// Pointer to the buffer's block.
    pub(crate) block_ptr: Word,
    /// Lane type of the elements.
    pub(crate) elem: ScalarType,
    /// SPIR-V type of a stored element.
    pub(crate) storage: Word,
    /// Whether the accesses through it must be decorated `NonUniform`.
    pub(crate) non_uniform: bool,
    /// The array parameter's name.
    pub(crate) name: String,
}

impl FnCx<'_, '_> {
    /// The buffer-array parameter `arr` denotes: its resource index and kind.
    fn array_resource(&self, arr: &Expr) -> Res<(usize, Word, ResourceKind)> {
        let param = match &arr.kind {
            ExprKind::Load(Place::Local(l)) => match self.slots.get(l.0) {
                Some(Slot::Resource(Some(p))) => Some(*p),
                _ => None,
            },
            _ => None,
        };
        let place = param.and_then(|p| self.cx.globals.params.get(p).copied());
        match place {
            Some(ParamPlace::Binding(r)) => {
                let res = &self.cx.globals.resources[r];
                Ok((r, res.var, res.kind))
            }
            _ => Err(unsupported(
                arr.span,
                "a buffer array here must be the kernel's parameter",
            )),
        }
    }

    /// The number of buffers bound to `arr`, as `uint32`.
    fn array_count(&mut self, arr: &Expr) -> Res<Word> {
        let (_, _, kind) = self.array_resource(arr)?;
        let ResourceKind::BufferArray { count_member, .. } = kind else {
            return Err(unsupported(arr.span, "internal error: not a buffer array"));
        };
        self.load_push(count_member)
    }

    /// `bufs.length`: the number of buffers bound, as the `int32` the expression has.
    pub(crate) fn buffer_array_length(&mut self, arr: &Expr, e: &Expr) -> Res<Word> {
        let n = self.array_count(arr)?;
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        if ty == self.cx.u32_type() {
            return Ok(n);
        }
        self.op(Op::Bitcast, ty, &[n])
    }

    /// Selects buffer `bufs[k]` (`element` is that expression): the index checked (checked
    /// mode, leaving its guard pending) or clamped, and the pointer to the buffer's block.
    pub(crate) fn select_buffer(&mut self, element: &Expr) -> Res<SelectedBuffer> {
        let Some((arr, k)) = array_element(element) else {
            return Err(unsupported(
                element.span,
                "internal error: not a buffer array element",
            ));
        };
        let (r, var, kind) = self.array_resource(arr)?;
        let ResourceKind::BufferArray {
            elem,
            storage,
            block,
            count_member,
            ..
        } = kind
        else {
            return Err(unsupported(arr.span, "internal error: not a buffer array"));
        };
        let name = self.cx.globals.resources[r].name.clone();
        let non_uniform = !self.is_uniform(k);
        if non_uniform {
            self.cx.globals.resources[r].non_uniform = true;
            self.cx.features.require(Capability::ShaderNonUniform);
            if self.cx.env.spirv_version() < (1, 5) {
                self.cx.features.extension("SPV_EXT_descriptor_indexing");
            }
            self.cx
                .features
                .require(Capability::StorageBufferArrayNonUniformIndexing);
            self.cx
                .features
                .vulkan_feature("shaderStorageBufferArrayNonUniformIndexing");
        }
        let index = self.expr(k)?;
        let count = self.load_push(count_member)?;
        let index = if self.checked() {
            let ty = super::bounds::index_type(k)?;
            let at = arr.span.to(k.span);
            self.check_index(index, ty, count, &name, "buffer array", at)?
        } else {
            let uint = self.cx.u32_type();
            let one = self.cx.const_u32(1);
            let last = self.op(Op::ISub, uint, &[count, one])?;
            let set = self.cx.glsl();
            self.cx
                .b
                .ext_inst(
                    uint,
                    None,
                    set,
                    GLSL_UMIN,
                    [
                        rspirv::dr::Operand::IdRef(index),
                        rspirv::dr::Operand::IdRef(last),
                    ],
                )
                .map_err(|e| unsupported(k.span, format!("internal error: {e}")))?
        };
        let ptr_ty = self.cx.pointer_type(StorageClass::StorageBuffer, block);
        let block_ptr = self.op(Op::AccessChain, ptr_ty, &[var, index])?;
        if non_uniform {
            self.non_uniform(index);
            self.non_uniform(block_ptr);
        }
        Ok(SelectedBuffer {
            block_ptr,
            elem,
            storage,
            non_uniform,
            name,
        })
    }

    /// Pointer to `bufs[k][i]` (`base` is `bufs[k]`, `i` the computed element index), with
    /// the element's lane type and stored type; both indices checked in checked mode (one
    /// pending guard covering both).
    pub(crate) fn buffer_array_element(
        &mut self,
        base: &Expr,
        index: &Expr,
        i: Word,
    ) -> Res<(Word, ScalarType, Word)> {
        let sel = self.select_buffer(base)?;
        let mut i = i;
        if self.checked() {
            let outer = self.take_guard();
            let len = self.buffer_length_at(&sel)?;
            let ty = super::bounds::index_type(index)?;
            let at = base.span.to(index.span);
            // The buffer the element is in: `bufs[1]`, `bufs[k]`, `bufs[…]`.
            let which =
                array_element(base).map_or_else(|| "…".to_string(), |(_, k)| self.index_text(k));
            let name = format!("{}[{which}]", sel.name);
            i = self.check_index(i, ty, len, &name, "buffer", at)?;
            self.merge_pending_guard(outer)?;
        }
        let ptr_ty = self
            .cx
            .pointer_type(StorageClass::StorageBuffer, sel.storage);
        let zero = self.cx.const_u32(0);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[sel.block_ptr, zero, i])?;
        if sel.non_uniform {
            self.non_uniform(ptr);
        }
        Ok((ptr, sel.elem, sel.storage))
    }

    /// How a buffer-array index reads in a checked-mode report: a constant's value, a
    /// local's name, else `…`.
    fn index_text(&self, k: &Expr) -> String {
        match &k.kind {
            ExprKind::Convert(inner) => self.index_text(inner),
            ExprKind::Const(crate::ir::Constant::Int(bits)) => match k.ty.as_scalar() {
                Some(s) if s.is_signed_integer() => {
                    let shift = 64 - s.bits();
                    (((*bits << shift) as i64) >> shift).to_string()
                }
                _ => bits.to_string(),
            },
            ExprKind::Load(Place::Local(l)) => match self.func.locals.get(l.0) {
                Some(local) if !local.name.starts_with('$') => local.name.clone(),
                _ => "…".to_string(),
            },
            _ => "…".to_string(),
        }
    }

    /// `bufs[k].length()`.
    pub(crate) fn buffer_array_elem_length(&mut self, base: &Expr) -> Res<Word> {
        let sel = self.select_buffer(base)?;
        // The length query is not an access: an out-of-range `k` reads buffer 0's length
        // after reporting, like any skipped access.
        if let Some(g) = self.take_guard() {
            let uint = self.cx.u32_type();
            return self.guarded(Some(g), Some(uint), |s| s.buffer_length_at(&sel));
        }
        self.buffer_length_at(&sel)
    }

    /// `OpArrayLength` of the selected buffer.
    pub(crate) fn buffer_length_at(&mut self, sel: &SelectedBuffer) -> Res<Word> {
        let uint = self.cx.u32_type();
        let len = self.emit(
            Op::ArrayLength,
            Some(uint),
            vec![
                rspirv::dr::Operand::IdRef(sel.block_ptr),
                rspirv::dr::Operand::LiteralBit32(0),
            ],
        )?;
        if sel.non_uniform {
            self.non_uniform(len);
        }
        Ok(len)
    }

    fn non_uniform(&mut self, id: Word) {
        self.cx.b.decorate(id, Decoration::NonUniform, []);
    }

    /// Whether `e` is provably dynamically uniform (see `uniformity.rs`).
    fn is_uniform(&mut self, e: &Expr) -> bool {
        let func = self.func;
        let uniform = self
            .uniform
            .get_or_insert_with(|| super::uniformity::uniform_locals(func));
        super::uniformity::is_uniform_expr(e, uniform)
    }

    /// Pointer to element `i` (`uint32`) of a selected buffer (`block_ptr`, stored element
    /// type, whether it is selected non-uniformly).
    pub(crate) fn selected_element(
        &mut self,
        (block_ptr, storage, non_uniform): (Word, Word, bool),
        i: Word,
    ) -> Res<Word> {
        let ptr_ty = self.cx.pointer_type(StorageClass::StorageBuffer, storage);
        let zero = self.cx.const_u32(0);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[block_ptr, zero, i])?;
        if non_uniform {
            self.non_uniform(ptr);
        }
        Ok(ptr)
    }

    /// Folds guard `outer` (the array index's) into the pending guard (the element index's):
    /// the access runs when both hold, and reports the array index's violation first.
    pub(crate) fn merge_pending_guard(&mut self, outer: Option<Guard>) -> Res<()> {
        let Some(outer) = outer else {
            return Ok(());
        };
        let inner = self.take_guard();
        let merged = match inner {
            None => outer,
            Some(inner) => {
                let bool_ty = self.cx.bool_type();
                let uint = self.cx.u32_type();
                let ok = self.op(Op::LogicalAnd, bool_ty, &[outer.ok, inner.ok])?;
                let mut args = [0; 1 + super::bounds::REPORT_VALUES];
                for (j, a) in args.iter_mut().enumerate() {
                    *a = self.op(Op::Select, uint, &[outer.ok, inner.args[j], outer.args[j]])?;
                }
                Guard {
                    ok,
                    args,
                    values: outer.values.max(inner.values),
                    readable: false,
                }
            }
        };
        self.set_pending_guard(merged);
        Ok(())
    }
}

/// Decorates `NonUniform` every access chain built from a `NonUniform` pointer (the lane
/// of a vector element, for one), so that the pointer operand of every load and store
/// through a non-uniformly selected buffer carries the decoration, as Vulkan requires.
pub(crate) fn propagate_non_uniform(module: &mut rspirv::dr::Module) {
    use std::collections::HashSet;
    let mut marked: HashSet<Word> = module
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::Decorate
                && matches!(
                    a.operands.get(1),
                    Some(rspirv::dr::Operand::Decoration(Decoration::NonUniform))
                )
        })
        .filter_map(|a| a.operands.first().and_then(|o| o.id_ref_any()))
        .collect();
    let mut added = Vec::new();
    for f in &module.functions {
        for block in &f.blocks {
            for inst in &block.instructions {
                let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
                let base = inst.operands.first().and_then(|o| o.id_ref_any());
                if let (true, Some(base), Some(result)) = (chain, base, inst.result_id) {
                    if marked.contains(&base) && marked.insert(result) {
                        added.push(result);
                    }
                }
            }
        }
    }
    for id in added {
        module.annotations.push(rspirv::dr::Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![
                rspirv::dr::Operand::IdRef(id),
                rspirv::dr::Operand::Decoration(Decoration::NonUniform),
            ],
        ));
    }
}
