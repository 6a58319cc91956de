//! Arrays of native scalars, indexed in place.
//!
//! A local holding such an array has a *view*: the data pointer and length of the array's
//! storage (`bridge::cajeta_array_view`), kept in two `alloca`s that are refreshed whenever
//! the local is stored, so that a loop over the array is plain loads, stores and one
//! bounds check per access, which LLVM can hoist and vectorize. The storage is the
//! interpreter's: `float16` elements are `f32`s (already rounded), `boolean`s one byte each.
//! A failed check reports the interpreter's message at the interpreter's position (the
//! access for a load, the statement for a store), after Java's evaluation order: index,
//! then the stored value, then the check.

use inkwell::basic_block::BasicBlock;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue, PhiValue, PointerValue};
use inkwell::IntPredicate;

use super::codegen::{b, Codegen, FnState, Gen};
use super::repr::fast_array;
use super::runtime::SiteKind;
use crate::diagnostics::Span;
use crate::ir::{Expr, LocalId, ScalarType};

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// The type of one element as stored.
    fn storage_type(&self, s: ScalarType) -> Gen<BasicTypeEnum<'ctx>> {
        Ok(match s {
            ScalarType::Bool => self.ctx.i8_type().into(),
            ScalarType::F16 => self.ctx.f32_type().into(),
            other => self
                .llvm_type(&crate::ir::Type::Scalar(other))
                .ok_or("internal error: element type")?,
        })
    }

    /// The element type of array local `l`.
    fn elem_of(&self, st: &FnState<'ctx, 'm>, l: LocalId) -> Gen<ScalarType> {
        fast_array(&st.ir.locals[l.0].ty).ok_or_else(|| "internal error: not an array".into())
    }

    /// Checks `index` against the view of `l` (failing at `span`) and returns the element's
    /// address (of a scalar array's element type, or the first byte of a flat array's).
    pub(super) fn element_ptr(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        l: LocalId,
        index: IntValue<'ctx>,
        index_type: ScalarType,
        span: Span,
    ) -> Gen<PointerValue<'ctx>> {
        let (data_p, len_p) = *st.views.get(&l).ok_or("internal error: no view")?;
        let i64t = self.ctx.i64_type();
        let ptr = self.ctx.ptr_type(inkwell::AddressSpace::default());
        let i = if index_type.is_signed_integer() {
            b(self
                .builder
                .build_int_s_extend_or_bit_cast(index, i64t, "i"))?
        } else {
            b(self
                .builder
                .build_int_z_extend_or_bit_cast(index, i64t, "i"))?
        };
        let data = b(self.builder.build_load(ptr, data_p, "data"))?.into_pointer_value();
        let len = b(self.builder.build_load(i64t, len_p, "len"))?.into_int_value();
        // Negative indices are huge unsigned; a null array has length -1.
        let outside = b(self
            .builder
            .build_int_compare(IntPredicate::UGE, i, len, "outside"))?;
        let null =
            b(self
                .builder
                .build_int_compare(IntPredicate::SLT, len, i64t.const_zero(), "null"))?;
        let bad = b(self.builder.build_or(outside, null, "bad"))?;
        let site = self.site(SiteKind::Index, span);
        let unsigned = u64::from(index_type == ScalarType::U64);
        let i32t = self.ctx.i32_type();
        let here = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        let (fail_bb, phis) = self.index_fail_block(st)?;
        let incoming: [BasicValueEnum<'ctx>; 4] = [
            i32t.const_int(site as u64, false).into(),
            i.into(),
            i32t.const_int(unsigned, false).into(),
            len.into(),
        ];
        for (phi, v) in phis.iter().zip(incoming) {
            phi.add_incoming(&[(&v, here)]);
        }
        let ok_bb = self.ctx.append_basic_block(st.func, "index.ok");
        b(self.builder.build_conditional_branch(bad, fail_bb, ok_bb))?;
        self.builder.position_at_end(ok_bb);
        // SAFETY (of the generated code): `i` was checked against the length above.
        if let Some(elem) = super::repr::flat_elem(&st.ir.locals[l.0].ty) {
            // A flat array: elements `stride` bytes apart.
            let stride = crate::host::interp::flat::layout(elem)
                .ok_or("internal error: flat layout")?
                .stride;
            let at =
                b(self
                    .builder
                    .build_int_mul(i, i64t.const_int(u64::from(stride), false), "at"))?;
            let i8t = self.ctx.i8_type();
            return unsafe { b(self.builder.build_in_bounds_gep(i8t, data, &[at], "elem")) };
        }
        let elem = self.storage_type(self.elem_of(st, l)?)?;
        let p = unsafe { b(self.builder.build_in_bounds_gep(elem, data, &[i], "elem"))? };
        Ok(p)
    }

    /// The function's one `cajeta_index_fail(site, index, unsigned, len)` call, its
    /// arguments phis that each failing bounds check adds to (made at the first).
    fn index_fail_block(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
    ) -> Gen<(BasicBlock<'ctx>, [PhiValue<'ctx>; 4])> {
        if let Some(f) = st.index_fail {
            return Ok(f);
        }
        let here = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        let bb = self.ctx.append_basic_block(st.func, "index.fail");
        self.builder.position_at_end(bb);
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let phis = [
            b(self.builder.build_phi(i32t, "site"))?,
            b(self.builder.build_phi(i64t, "index"))?,
            b(self.builder.build_phi(i32t, "unsigned"))?,
            b(self.builder.build_phi(i64t, "len"))?,
        ];
        let args: Vec<BasicMetadataValueEnum> =
            phis.iter().map(|p| p.as_basic_value().into()).collect();
        b(self
            .builder
            .build_call(self.rt["cajeta_index_fail"], &args, ""))?;
        b(self.builder.build_unconditional_branch(st.failed))?;
        self.builder.position_at_end(here);
        st.index_fail = Some((bb, phis));
        Ok((bb, phis))
    }

    /// `l[index]` (expression `e`).
    pub fn array_load(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        l: LocalId,
        index: &'m Expr,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let it = index.ty.as_scalar().ok_or("internal error: index type")?;
        let i = self.value(st, index)?.into_int_value();
        let p = self.element_ptr(st, l, i, it, e.span)?;
        let s = self.elem_of(st, l)?;
        let v = b(self.builder.build_load(self.storage_type(s)?, p, "elem"))?;
        Ok(match s {
            ScalarType::Bool => {
                b(self
                    .builder
                    .build_int_truncate(v.into_int_value(), self.ctx.bool_type(), ""))?
                .into()
            }
            // Stored rounded, so the truncation is exact.
            ScalarType::F16 => {
                b(self
                    .builder
                    .build_float_trunc(v.into_float_value(), self.ctx.f16_type(), ""))?
                .into()
            }
            _ => v,
        })
    }

    /// `l[index] = value` (a statement at `span`).
    pub fn array_store(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        l: LocalId,
        index: &'m Expr,
        value: &'m Expr,
        span: Span,
    ) -> Gen<()> {
        let it = index.ty.as_scalar().ok_or("internal error: index type")?;
        let i = self.value(st, index)?.into_int_value();
        let v = self.value(st, value)?;
        let p = self.element_ptr(st, l, i, it, span)?;
        let s = self.elem_of(st, l)?;
        let stored: BasicValueEnum = match s {
            ScalarType::Bool => {
                b(self
                    .builder
                    .build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), ""))?
                .into()
            }
            ScalarType::F16 => {
                b(self
                    .builder
                    .build_float_ext(v.into_float_value(), self.ctx.f32_type(), ""))?
                .into()
            }
            _ => v,
        };
        b(self.builder.build_store(p, stored))?;
        Ok(())
    }

    /// `l.length` (expression `e`).
    pub fn array_length(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        l: LocalId,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let i64t = self.ctx.i64_type();
        let t = self
            .llvm_type(&e.ty)
            .ok_or("internal error: length type")?
            .into_int_type();
        let len = match st.views.get(&l) {
            Some(&(_, len_p)) => b(self.builder.build_load(i64t, len_p, "len"))?.into_int_value(),
            // An array native code does not index in place (of strings, vectors, PODs…):
            // its length from the runtime (-1: null).
            None => {
                let frame = self.frame(st);
                let slot = i64t.const_int(l.0 as u64, false);
                b(self.builder.build_call(
                    self.rt["cajeta_array_len"],
                    &[frame.into(), slot.into()],
                    "len",
                ))?
                .try_as_basic_value()
                .basic()
                .ok_or("internal error: length")?
                .into_int_value()
            }
        };
        let null =
            b(self
                .builder
                .build_int_compare(IntPredicate::SLT, len, i64t.const_zero(), "null"))?;
        let site = self.site(SiteKind::NullLength, e.span);
        self.fail_if(st, null, site)?;
        Ok(b(self.builder.build_int_truncate_or_bit_cast(len, t, "n"))?.into())
    }
}
