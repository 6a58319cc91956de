//! Places inside values held in registers: fields of POD locals (any depth) and lanes of
//! vector locals or fields (`p.vel`, `p.vel.y = 0`, `v[2]`), read and written in place in
//! the local's `alloca`; elements of arrays of vectors, matrices and PODs and the fields and
//! lanes inside them (`vs[i]`, `ps[i].vel.y = 0`), read and written through the runtime
//! (`cajeta_element_get` / `_set`: the interpreter's own element access on the array,
//! without a tree walk); and POD values built from their fields.
//!
//! The order is the interpreter's: a store into a local evaluates its value first and then
//! replaces the field or lane (the value may itself store the local); a store into an
//! element evaluates the index, then the value, then reads the element (its range check),
//! replaces the part and writes it back. A place these do not cover (a field of a POD that
//! is an object) is handed to the interpreter as before.

use inkwell::values::{BasicValueEnum, PointerValue};

use super::codegen::{b, Codegen, FnState, Gen};
use super::delegate::Uses;
use super::repr::{aggregate, in_registers, repr, Repr};
use crate::diagnostics::Span;
use crate::ir::{Expr, ExprKind, LocalId, Place, ScalarType, Type};

/// Where a [`NativePlace`] starts.
#[derive(Clone, Copy)]
enum Root<'m> {
    /// A local held in registers.
    Local(LocalId),
    /// `array[index]`: an element of an array of vectors, matrices or PODs held by an
    /// object local, at a native integer index of type `is`.
    Element {
        array: LocalId,
        index: &'m Expr,
        is: ScalarType,
        elem: &'m Type,
    },
}

/// A place inside a local held in registers or inside an array element.
pub struct NativePlace<'m> {
    /// Where it starts.
    root: Root<'m>,
    /// The field indices from the root's value down.
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
                        root: Root::Local(*l),
                        fields: Vec::new(),
                        ty,
                        lane: None,
                    },
                )
            }
            Place::Index { base, index } => {
                let ExprKind::Load(Place::Local(array)) = base.kind else {
                    return None;
                };
                let Type::Array(elem) = &st.ir.locals.get(array.0)?.ty else {
                    return None;
                };
                let Repr::Scalar(is) = repr(&index.ty) else {
                    return None;
                };
                (aggregate(elem) && is.is_integer() && !Uses::of_expr(index).stores(array))
                    .then_some(NativePlace {
                        root: Root::Element {
                            array,
                            index,
                            is,
                            elem,
                        },
                        fields: Vec::new(),
                        ty: elem,
                        lane: None,
                    })
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
        }
    }

    /// The address of the value at the end of `p`'s fields (a place in a local).
    fn place_ptr(&self, st: &FnState<'ctx, 'm>, p: &NativePlace<'m>) -> Gen<PointerValue<'ctx>> {
        let Root::Local(local) = p.root else {
            return Err("internal error: address of an element place".into());
        };
        let mut ptr = st.locals[local.0].ok_or("internal error: local")?;
        let mut ty: &Type = &st.ir.locals[local.0].ty;
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

    /// Reads a place [`Self::native_place`] accepted (`e`: the load, where an element's
    /// errors are reported, as the interpreter does).
    pub fn place_load(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        place: &'m Place,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let p = self
            .native_place(st, place)
            .ok_or("internal error: place")?;
        let v = if let Root::Element {
            array,
            index,
            is,
            elem,
        } = p.root
        {
            let i = self.value(st, index)?;
            let mut v = self.element_get(st, (array, i, is), elem, &e.span)?;
            for &k in &p.fields {
                v = b(self
                    .builder
                    .build_extract_value(v.into_struct_value(), k, ""))?;
            }
            v
        } else {
            let ptr = self.place_ptr(st, &p)?;
            let t = self.llvm_type(p.ty).ok_or("internal error: place type")?;
            b(self.builder.build_load(t, ptr, ""))?
        };
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

    /// `place = value` for a field, lane or element place [`Self::native_place`] accepts
    /// (false for other places, which the caller handles); `span`: the store's.
    pub fn place_store(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        place: &'m Place,
        value: &'m Expr,
        span: &'m Span,
    ) -> Gen<bool> {
        if matches!(place, Place::Local(_)) || !in_registers(&value.ty) {
            return Ok(false);
        }
        let Some(p) = self.native_place(st, place) else {
            return Ok(false);
        };
        if let Root::Element {
            array,
            index,
            is,
            elem,
        } = p.root
        {
            // The interpreter holds the array it evaluated first: a value that stores the
            // local holding it is left to the interpreter.
            if Uses::of_expr(value).stores(array) {
                return Ok(false);
            }
            let i = self.value(st, index)?;
            let x = self.value(st, value)?;
            let whole = if p.fields.is_empty() && p.lane.is_none() {
                x
            } else {
                let old = self.element_get(st, (array, i, is), elem, span)?;
                self.rebuild(old, &p.fields, p.lane, x)?
            };
            self.element_set(st, (array, i, is), whole, elem, span)?;
            return Ok(true);
        }
        let x = self.value(st, value)?;
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

    /// `v` with the part at `fields` (then `lane`) replaced by `x`.
    fn rebuild(
        &self,
        v: BasicValueEnum<'ctx>,
        fields: &[u32],
        lane: Option<u8>,
        x: BasicValueEnum<'ctx>,
    ) -> Gen<BasicValueEnum<'ctx>> {
        match fields.split_first() {
            Some((&k, rest)) => {
                let sv = v.into_struct_value();
                let inner = b(self.builder.build_extract_value(sv, k, ""))?;
                let inner = self.rebuild(inner, rest, lane, x)?;
                Ok(b(self.builder.build_insert_value(sv, inner, k, ""))?
                    .into_struct_value()
                    .into())
            }
            None => match lane {
                None => Ok(x),
                Some(l) => {
                    let i = self.ctx.i32_type().const_int(u64::from(l), false);
                    Ok(b(self
                        .builder
                        .build_insert_element(v.into_vector_value(), x, i, ""))?
                    .into())
                }
            },
        }
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
