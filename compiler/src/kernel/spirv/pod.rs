//! POD class parameters: one push-constant member per parameter, an explicitly laid out
//! struct (std430 offsets, booleans as `uint32`), read field by field with an access chain.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::function::{FnCx, Slot};
use super::{unsupported, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::{Expr, Place, StructDef};

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
        let id = self.b.type_struct(members);
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
}

impl FnCx<'_, '_> {
    /// `p.field` of a POD kernel parameter: one load through an access chain into the
    /// push-constant block.
    pub(crate) fn load_field(&mut self, base: &Place, field: usize, e: &Expr) -> Res<Word> {
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
