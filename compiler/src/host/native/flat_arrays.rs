//! Elements of flat arrays (vectors, matrices and PODs, `host::interp::flat`) read and
//! written in place: the bounds check of a scalar array (`arrays.rs`), then one load or
//! store per scalar lane at the offset the layout gives, so `ps[i].vel.y = 0` or
//! `acc = acc + vs[i]` in a loop is plain memory access that LLVM can combine and hoist,
//! with no call. The layout is the interpreter's own (`flat::layout`), so both executors
//! read the same bytes.

use inkwell::values::{BasicValueEnum, PointerValue};
use inkwell::IntPredicate;

use super::codegen::{b, Codegen, FnState, Gen};
use crate::diagnostics::Span;
use crate::host::interp::flat::layout;
use crate::ir::{LocalId, ScalarType, Type};

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// The address of element `index` of flat array local `array`, bounds checked at
    /// `span`, and the element type's lanes with their offsets.
    fn flat_element(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        (array, index, is): (LocalId, BasicValueEnum<'ctx>, ScalarType),
        ty: &Type,
        span: Span,
    ) -> Gen<(PointerValue<'ctx>, Vec<(ScalarType, u32)>)> {
        let lanes = layout(ty).ok_or("internal error: flat layout")?.lanes;
        let p = self.element_ptr(st, array, index.into_int_value(), is, span)?;
        Ok((p, lanes))
    }

    /// Element `index` of flat array local `array` (element type `ty`), in registers.
    pub(super) fn flat_get(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        at: (LocalId, BasicValueEnum<'ctx>, ScalarType),
        ty: &Type,
        span: Span,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let (p, lanes) = self.flat_element(st, at, ty, span)?;
        let mut lanes = lanes.into_iter();
        self.load_lanes(ty, p, &mut lanes)
    }

    /// `array[index] = v` on flat array local `array`.
    pub(super) fn flat_set(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        at: (LocalId, BasicValueEnum<'ctx>, ScalarType),
        v: BasicValueEnum<'ctx>,
        ty: &Type,
        span: Span,
    ) -> Gen<()> {
        let (p, lanes) = self.flat_element(st, at, ty, span)?;
        let mut lanes = lanes.into_iter();
        self.store_lanes(v, ty, p, &mut lanes)
    }

    /// The address of the lane at byte `offset` of the element at `p`.
    fn lane_ptr(&self, p: PointerValue<'ctx>, offset: u32) -> Gen<PointerValue<'ctx>> {
        let i8t = self.ctx.i8_type();
        let off = self.ctx.i64_type().const_int(u64::from(offset), false);
        // SAFETY (of the generated code): the offset lies inside the element.
        b(unsafe { self.builder.build_in_bounds_gep(i8t, p, &[off], "lane") })
    }

    /// Loads the value of type `ty` whose lanes are the next of `lanes`, from element `p`.
    fn load_lanes(
        &self,
        ty: &Type,
        p: PointerValue<'ctx>,
        lanes: &mut impl Iterator<Item = (ScalarType, u32)>,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let scalar = |lanes: &mut dyn Iterator<Item = (ScalarType, u32)>| {
            let (s, off) = lanes.next().ok_or("internal error: lane")?;
            let q = self.lane_ptr(p, off)?;
            if s == ScalarType::Bool {
                // One byte, 0 or 1.
                let byte = b(self.builder.build_load(self.ctx.i8_type(), q, "b"))?;
                let zero = self.ctx.i8_type().const_zero();
                let v = b(self.builder.build_int_compare(
                    IntPredicate::NE,
                    byte.into_int_value(),
                    zero,
                    "bool",
                ))?;
                return Ok::<_, String>(v.into());
            }
            let t = self
                .llvm_type(&Type::Scalar(s))
                .ok_or("internal error: lane type")?;
            b(self.builder.build_load(t, q, "lane"))
        };
        match ty {
            Type::Scalar(_) => scalar(lanes),
            Type::Vector(s, _) | Type::Matrix(s, ..) => {
                let mut vs = Vec::with_capacity(ty.lanes());
                for _ in 0..ty.lanes() {
                    vs.push(scalar(lanes)?);
                }
                self.join_lanes(*s, &vs)
            }
            Type::Struct(d) => {
                let t = self
                    .llvm_type(ty)
                    .ok_or("internal error: POD type")?
                    .into_struct_type();
                let mut v = t.get_poison();
                for (k, (_, ft)) in d.fields.iter().enumerate() {
                    let f = self.load_lanes(ft, p, lanes)?;
                    v = b(self.builder.build_insert_value(v, f, k as u32, ""))?.into_struct_value();
                }
                Ok(v.into())
            }
            other => Err(format!("internal error: flat element of type {other}")),
        }
    }

    /// Stores `v` of type `ty` to the next of `lanes` of element `p`.
    fn store_lanes(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: &Type,
        p: PointerValue<'ctx>,
        lanes: &mut impl Iterator<Item = (ScalarType, u32)>,
    ) -> Gen<()> {
        let scalar = |x: BasicValueEnum<'ctx>,
                      lanes: &mut dyn Iterator<Item = (ScalarType, u32)>| {
            let (s, off) = lanes.next().ok_or("internal error: lane")?;
            let q = self.lane_ptr(p, off)?;
            let x: BasicValueEnum = if s == ScalarType::Bool {
                let i8t = self.ctx.i8_type();
                b(self
                    .builder
                    .build_int_z_extend(x.into_int_value(), i8t, "b"))?
                .into()
            } else {
                x
            };
            b(self.builder.build_store(q, x)).map(drop)
        };
        match ty {
            Type::Scalar(_) => scalar(v, lanes),
            Type::Vector(..) | Type::Matrix(..) => {
                for x in self.split_lanes(v, ty.lanes())? {
                    scalar(x, lanes)?;
                }
                Ok(())
            }
            Type::Struct(d) => {
                let sv = v.into_struct_value();
                for (k, (_, ft)) in d.fields.iter().enumerate() {
                    let f = b(self.builder.build_extract_value(sv, k as u32, ""))?;
                    self.store_lanes(f, ft, p, lanes)?;
                }
                Ok(())
            }
            other => Err(format!("internal error: flat element of type {other}")),
        }
    }
}
