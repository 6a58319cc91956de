//! POD class parameters: one push-constant member per parameter, an explicitly laid out
//! struct (std430 offsets, booleans as `uint32`), read field by field with an access chain.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::function::{FnCx, Slot};
use super::{unsupported, BuildExt, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::{Expr, Place, StructDef, Type};

impl Ctx<'_> {
    /// The push-constant struct type of a POD class, declared once per module.
    pub(crate) fn pod_block_type(&mut self, d: &StructDef, span: Span) -> Res<Word> {
        if let Some(&id) = self.types.pods.get(&d.name) {
            return Ok(id);
        }
        let mut members = Vec::new();
        for (_, t) in &d.fields {
            members.push(self.storage_ir_type(t, span)?);
        }
        let id = self.unique_struct(members);
        self.b.name(id, d.name.as_str());
        for (i, ((name, _), offset)) in d.fields.iter().zip(d.offsets()).enumerate() {
            self.b.member_decorate(
                id,
                i as u32,
                Decoration::Offset,
                [Operand::LiteralBit32(offset)],
            );
            self.b.member_name(id, i as u32, name.as_str());
        }
        self.types.pods.insert(d.name.clone(), id);
        Ok(id)
    }

    /// A new `OpTypeStruct` of `members`, never merged with an equal one: rspirv's
    /// `type_struct` returns an existing struct of the same members, which would give a
    /// POD's laid-out and value types (or two PODs) one id and mix their decorations.
    fn unique_struct(&mut self, members: Vec<Word>) -> Word {
        let id = self.b.id();
        let operands = members.into_iter().map(Operand::IdRef).collect();
        self.b
            .module_mut()
            .types_global_values
            .push(rspirv::dr::Instruction::new(
                Op::TypeStruct,
                None,
                Some(id),
                operands,
            ));
        id
    }

    /// The struct type of POD values and locals: the fields of [`Self::pod_block_type`]
    /// (stored forms) without its `Offset` decorations.
    pub(crate) fn pod_value_type(&mut self, d: &StructDef, span: Span) -> Res<Word> {
        if let Some(&id) = self.types.pod_values.get(&d.name) {
            return Ok(id);
        }
        let mut members = Vec::new();
        for (_, t) in &d.fields {
            members.push(self.storage_ir_type(t, span)?);
        }
        let id = self.unique_struct(members);
        self.b.name(id, format!("{}.value", d.name));
        self.types.pod_values.insert(d.name.clone(), id);
        Ok(id)
    }
}

impl FnCx<'_, '_> {
    /// `p.field` of a POD kernel parameter: one load through an access chain into the
    /// push-constant block.
    pub(crate) fn load_field(&mut self, base: &Place, field: usize, e: &Expr) -> Res<Word> {
        let place = Place::Field {
            base: Box::new(base.clone()),
            field,
        };
        if let Some((ptr, ty, _)) = self.pod_element_pointer(&place, e.span)? {
            let lane = ty
                .elem_scalar()
                .ok_or_else(|| unsupported(e.span, format!("a field of type `{ty}`")))?;
            let guard = self.take_guard();
            let storage = self.cx.storage_ir_type(&ty, e.span)?;
            let v = self.guarded(guard, Some(storage), |s| s.op(Op::Load, storage, &[ptr]))?;
            return self.stored_value(v, lane, storage, ty.lanes() as u8);
        }
        let member = match base {
            Place::Local(l) => match self.slots.get(l.0) {
                Some(Slot::Push(m)) => *m,
                _ => None.ok_or_else(|| {
                    unsupported(
                        e.span,
                        "only POD kernel parameters have fields in device code",
                    )
                })?,
            },
            _ => return Err(unsupported(e.span, "a field of a non-parameter")),
        };
        let block = self
            .cx
            .globals
            .push_block
            .ok_or_else(|| unsupported(e.span, "internal error: no push constants"))?;
        let lane =
            e.ty.elem_scalar()
                .ok_or_else(|| unsupported(e.span, format!("a field of type `{}`", e.ty)))?;
        let storage = self.cx.storage_ir_type(&e.ty, e.span)?;
        let ptr_ty = self.cx.pointer_type(StorageClass::PushConstant, storage);
        let m = self.cx.const_u32(member as u32);
        let f = self.cx.const_u32(field as u32);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[block, m, f])?;
        let v = self.op(Op::Load, storage, &[ptr])?;
        self.stored_value(v, lane, storage, e.ty.lanes() as u8)
    }
}

impl FnCx<'_, '_> {
    /// A pointer into an element of a `KernelBuffer` of PODs: `buf[i]` itself, or a field
    /// of one (`buf[i].pos`), with the pointee's type and the pointer's storage class.
    /// A POD local of device code is such a place too (its `Function` variable). `None` for
    /// POD parameters (read through the push-constant block). A bounds
    /// check of `i` is left pending for the caller's load or store to take.
    pub(crate) fn pod_element_pointer(
        &mut self,
        place: &Place,
        span: Span,
    ) -> Res<Option<(Word, Type, StorageClass)>> {
        match place {
            Place::Index { base, index } => {
                let Type::Buffer(elem) = &base.ty else {
                    return Ok(None);
                };
                if !matches!(**elem, Type::Struct(_)) {
                    return Ok(None);
                }
                let elem = (**elem).clone();
                let (ptr, _, _) = self.buffer_element(base, index)?;
                Ok(Some((ptr, elem, self.buffer_class(base))))
            }
            Place::Field { base, field } => {
                let Some((ptr, Type::Struct(d), class)) = self.pod_element_pointer(base, span)?
                else {
                    return Ok(None);
                };
                let ty = d.fields[*field].1.clone();
                let storage = self.cx.storage_ir_type(&ty, span)?;
                let ptr_ty = self.cx.pointer_type(class, storage);
                let f = self.cx.const_u32(*field as u32);
                let p = self.op(Op::AccessChain, ptr_ty, &[ptr, f])?;
                Ok(Some((p, ty, class)))
            }
            Place::Local(l) => match (self.slots.get(l.0), &self.func.local(*l).ty) {
                (Some(Slot::Var(var)), ty @ Type::Struct(_)) => {
                    Ok(Some((*var, ty.clone(), StorageClass::Function)))
                }
                _ => Ok(None),
            },
            Place::Lane { .. } => Ok(None),
        }
    }

    /// `buf[i].field = value` (a field of an element of a `KernelBuffer` of PODs): one store
    /// through an access chain to the field.
    pub(crate) fn store_pod_element_field(
        &mut self,
        place: &Place,
        value: &Expr,
        span: Span,
    ) -> Res<()> {
        let Some((ptr, ty, _)) = self.pod_element_pointer(place, span)? else {
            return Err(unsupported(
                span,
                "POD parameters are read-only in device code",
            ));
        };
        let lane = ty
            .elem_scalar()
            .ok_or_else(|| unsupported(span, format!("a field of type `{ty}`")))?;
        let guard = self.take_guard();
        let storage = self.cx.storage_ir_type(&ty, span)?;
        let v = self.expr(value)?;
        let v = self.value_to_store(v, lane, storage, ty.lanes() as u8)?;
        self.guarded(guard, None, |s| {
            s.cx.b.store(ptr, v, None, []).ice(span).map(|_| 0)
        })?;
        Ok(())
    }
}

impl FnCx<'_, '_> {
    /// A POD value converted between its laid-out form (as loaded from a buffer or the
    /// push constants) and its value form (locals): the same fields rebuilt into the other
    /// struct type. `to_memory` picks the direction.
    pub(crate) fn convert_pod(
        &mut self,
        v: Word,
        d: &StructDef,
        to_memory: bool,
        span: Span,
    ) -> Res<Word> {
        let target = if to_memory {
            self.cx.pod_block_type(d, span)?
        } else {
            self.cx.pod_value_type(d, span)?
        };
        let mut fields = Vec::new();
        for (i, (_, t)) in d.fields.iter().enumerate() {
            let ty = self.cx.storage_ir_type(t, span)?;
            fields.push(rspirv::dr::Operand::IdRef(self.extract(ty, v, i as u32)?));
        }
        self.op_with(Op::CompositeConstruct, target, fields)
    }
}
