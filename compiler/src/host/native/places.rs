//! Places inside values held in registers: fields of POD locals (any depth) and lanes of
//! vector locals or fields (`p.vel`, `p.vel.y = 0`, `v[2]`), read and written in place in
//! the local's `alloca`; and POD values built from their fields.
//!
//! A store evaluates its value first and then replaces the field or lane, as the
//! interpreter does (the value may itself store the local). A place these do not cover (a
//! lane of an array element, a field of a POD that is an object) is handed to the
//! interpreter as before.

use inkwell::values::{BasicValueEnum, PointerValue};

use super::codegen::{b, Codegen, FnState, Gen};
use super::repr::{in_registers, repr, Repr};
use crate::ir::{Expr, LocalId, Place, Type};

/// A place inside a local held in registers.
pub struct NativePlace<'m> {
    /// The local.
    local: LocalId,
    /// The field indices from the local's value down.
    fields: Vec<u32>,
    /// The type at the end of `fields`.
    ty: &'m Type,
    /// The lane of the vector there, for a lane place.
    lane: Option<u8>,
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// `place` as a [`NativePlace`], when it is one.
    pub fn native_place(
        &self,
        st: &FnState<'ctx, 'm>,
        place: &'m Place,
    ) -> Option<NativePlace<'m>> {
        match place {
            Place::Local(l) => {
                let ty = &st.ir.locals.get(l.0)?.ty;
                (in_registers(ty) && st.locals.get(l.0).copied().flatten().is_some()).then_some(
                    NativePlace {
                        local: *l,
                        fields: Vec::new(),
                        ty,
                        lane: None,
                    },
                )
            }
            Place::Field { base, field } => {
                let mut p = self.native_place(st, base)?;
                let Type::Struct(d) = p.ty else { return None };
                if p.lane.is_some() || repr(p.ty) != Repr::Pod {
                    return None;
                }
                p.ty = &d.fields.get(*field)?.1;
                p.fields.push(u32::try_from(*field).ok()?);
                Some(p)
            }
            Place::Lane { base, lane } => {
                let mut p = self.native_place(st, base)?;
                if p.lane.is_some() || !matches!(p.ty, Type::Vector(..)) {
                    return None;
                }
                p.lane = Some(*lane);
                Some(p)
            }
            Place::Index { .. } => None,
        }
    }

    /// The address of the value at the end of `p`'s fields.
    fn place_ptr(&self, st: &FnState<'ctx, 'm>, p: &NativePlace<'m>) -> Gen<PointerValue<'ctx>> {
        let mut ptr = st.locals[p.local.0].ok_or("internal error: local")?;
        let mut ty: &Type = &st.ir.locals[p.local.0].ty;
        for &k in &p.fields {
            let Type::Struct(d) = ty else {
                return Err("internal error: field of a non-POD".into());
            };
            let t = self
                .llvm_type(ty)
                .ok_or("internal error: POD type")?
                .into_struct_type();
            ptr = b(self.builder.build_struct_gep(t, ptr, k, "field"))?;
            ty = &d.fields[k as usize].1;
        }
        Ok(ptr)
    }

    /// Reads a field or lane place [`Self::native_place`] accepted.
    pub fn place_load(
        &self,
        st: &FnState<'ctx, 'm>,
        place: &'m Place,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let p = self
            .native_place(st, place)
            .ok_or("internal error: place")?;
        let ptr = self.place_ptr(st, &p)?;
        let t = self.llvm_type(p.ty).ok_or("internal error: place type")?;
        let v = b(self.builder.build_load(t, ptr, ""))?;
        match p.lane {
            None => Ok(v),
            Some(lane) => {
                let i = self.ctx.i32_type().const_int(u64::from(lane), false);
                b(self
                    .builder
                    .build_extract_element(v.into_vector_value(), i, ""))
            }
        }
    }

    /// `place = value` for a field or lane place [`Self::native_place`] accepts (false
    /// for other places, which the caller handles).
    pub fn place_store(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        place: &'m Place,
        value: &'m Expr,
    ) -> Gen<bool> {
        if matches!(place, Place::Local(_)) || !in_registers(&value.ty) {
            return Ok(false);
        }
        if self.native_place(st, place).is_none() {
            return Ok(false);
        }
        let x = self.value(st, value)?;
        let p = self
            .native_place(st, place)
            .ok_or("internal error: place")?;
        let ptr = self.place_ptr(st, &p)?;
        let x = match p.lane {
            None => x,
            Some(lane) => {
                let t = self.llvm_type(p.ty).ok_or("internal error: place type")?;
                let v = b(self.builder.build_load(t, ptr, ""))?.into_vector_value();
                let i = self.ctx.i32_type().const_int(u64::from(lane), false);
                b(self.builder.build_insert_element(v, x, i, ""))?.into()
            }
        };
        b(self.builder.build_store(ptr, x))?;
        Ok(true)
    }

    /// A POD value from its fields, in order.
    pub fn pod_construct(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        parts: &'m [Expr],
        ty: &Type,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let t = self
            .llvm_type(ty)
            .ok_or("internal error: POD type")?
            .into_struct_type();
        let mut v = t.get_poison();
        for (k, part) in parts.iter().enumerate() {
            let x = self.value(st, part)?;
            v = b(self.builder.build_insert_value(v, x, k as u32, ""))?.into_struct_value();
        }
        Ok(v.into())
    }
}
