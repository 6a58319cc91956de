//! What the generated code hands to the interpreter, and the bookkeeping around it (see
//! `bridge.rs`): object values moved between frame slots, native calls with object
//! arguments and results, delegated expressions and statements, and keeping the frame and
//! the registers of scalar locals in step.
//!
//! A delegated piece of code reads the frame, so the scalar and string locals it mentions
//! are copied there first; it may store locals (the statements of a nested sequence), so
//! those are read back afterwards, and array views of stored array locals are refreshed.

use std::collections::BTreeSet;

use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

use super::bridge::scalar_code;
use super::codegen::{b, Codegen, FnState, Gen};
use super::repr::{fast_array, repr, Repr};
use crate::ir::visit::{for_each_local_use_in_expr, for_each_local_use_in_stmt, LocalUse};
use crate::ir::{Expr, ExprKind, LocalId, Place, ScalarType, Stmt, Type};

/// The locals a delegated piece reads and stores.
#[derive(Default)]
pub struct Uses {
    read: BTreeSet<LocalId>,
    stored: BTreeSet<LocalId>,
}

impl Uses {
    /// Of an expression.
    pub fn of_expr(e: &Expr) -> Uses {
        let mut u = Uses::default();
        for_each_local_use_in_expr(e, &mut |l, role| u.add(l, role));
        u
    }

    /// Of a statement.
    pub fn of_stmt(s: &Stmt) -> Uses {
        let mut u = Uses::default();
        for_each_local_use_in_stmt(s, &mut |l, role| u.add(l, role));
        u
    }

    fn add(&mut self, l: LocalId, role: LocalUse) {
        match role {
            LocalUse::Load => self.read.insert(l),
            LocalUse::Store => self.stored.insert(l),
        };
    }

    /// True when local `l` is stored.
    pub fn stores(&self, l: LocalId) -> bool {
        self.stored.contains(&l)
    }

    /// True when any local is stored.
    pub fn stores_any(&self) -> bool {
        !self.stored.is_empty()
    }

    /// True when local `l` is read or stored.
    pub fn mentions(&self, l: LocalId) -> bool {
        self.read.contains(&l) || self.stored.contains(&l)
    }
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    pub(super) fn rt_call(
        &self,
        name: &str,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let f = *self
            .rt
            .get(name)
            .ok_or_else(|| format!("internal error: no runtime function {name}"))?;
        let call = b(self.builder.build_call(f, args, ""))?;
        Ok(call.try_as_basic_value().basic())
    }

    /// Calls bridge function `name` (which returns an `i32` status) and unwinds on 0.
    pub(super) fn bridge(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        name: &str,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Gen<()> {
        let ok = self
            .rt_call(name, args)?
            .ok_or("internal error: bridge status")?
            .into_int_value();
        self.unwind_unless(st, ok)
    }

    /// Unwinds when the `i32` status `ok` of a runtime call is 0 (the error is recorded).
    pub fn unwind_unless(&mut self, st: &mut FnState<'ctx, 'm>, ok: IntValue<'ctx>) -> Gen<()> {
        let failed = b(self.builder.build_int_compare(
            IntPredicate::EQ,
            ok,
            ok.get_type().const_zero(),
            "failed",
        ))?;
        let ok_bb = self.ctx.append_basic_block(st.func, "delegate.ok");
        b(self
            .builder
            .build_conditional_branch(failed, st.failed, ok_bb))?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    pub(super) fn i64c(&self, v: u64) -> IntValue<'ctx> {
        self.ctx.i64_type().const_int(v, false)
    }

    /// The address of an IR node, as the bridge receives it.
    pub fn node_ptr<T>(&self, node: &T) -> PointerValue<'ctx> {
        let addr = self.i64c(node as *const T as usize as u64);
        let ptr = self.ctx.ptr_type(inkwell::AddressSpace::default());
        addr.const_to_pointer(ptr)
    }

    /// A fresh temporary slot of the frame.
    pub fn temp_slot(&self, st: &mut FnState<'ctx, 'm>) -> u64 {
        st.next_slot += 1;
        (st.next_slot - 1) as u64
    }

    /// Copies local `l` from its register into the frame.
    fn sync_in(&mut self, st: &mut FnState<'ctx, 'm>, l: LocalId) -> Gen<()> {
        let ty: &'m Type = &st.ir.locals[l.0].ty;
        let Some(p) = st.locals.get(l.0).copied().flatten() else {
            return Ok(());
        };
        let t = self.llvm_type(ty).ok_or("internal error: local type")?;
        match repr(ty) {
            Repr::Scalar(s) => {
                let v = b(self.builder.build_load(t, p, ""))?;
                self.scalar_into_slot(st, v, s, l.0 as u64)
            }
            Repr::Vector(..) | Repr::Pod => {
                let v = b(self.builder.build_load(t, p, ""))?;
                self.words_into_slot(st, v, ty, l.0 as u64)
            }
            Repr::Object | Repr::Void => Ok(()),
        }
    }

    /// Stores native scalar `v` of type `s` into frame slot `slot`.
    pub(super) fn scalar_into_slot(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        v: BasicValueEnum<'ctx>,
        s: ScalarType,
        slot: u64,
    ) -> Gen<()> {
        let frame = self.frame(st);
        let slot = self.i64c(slot);
        let code = self.ctx.i32_type().const_int(scalar_code(s), false);
        if s.is_float() {
            let f64t = self.ctx.f64_type();
            let w = b(self.builder.build_float_ext(v.into_float_value(), f64t, ""))?;
            let args = [frame.into(), slot.into(), w.into(), code.into()];
            self.rt_call("cajeta_frame_set_f64", &args)?;
        } else {
            let i64t = self.ctx.i64_type();
            let x = v.into_int_value();
            let w = if s.is_signed_integer() {
                b(self.builder.build_int_s_extend_or_bit_cast(x, i64t, ""))?
            } else {
                b(self.builder.build_int_z_extend_or_bit_cast(x, i64t, ""))?
            };
            let args = [frame.into(), slot.into(), w.into(), code.into()];
            self.rt_call("cajeta_frame_set_int", &args)?;
        }
        Ok(())
    }

    /// Reads local `l` back from the frame after delegated code stored it.
    fn sync_out(&mut self, st: &mut FnState<'ctx, 'm>, l: LocalId) -> Gen<()> {
        let ty = &st.ir.locals[l.0].ty;
        if super::repr::has_view(ty) {
            return self.refresh_view(st, l);
        }
        let Some(p) = st.locals.get(l.0).copied().flatten() else {
            return Ok(());
        };
        let frame = self.frame(st);
        let slot = self.i64c(l.0 as u64);
        let v: BasicValueEnum = match repr(ty) {
            Repr::Scalar(s) => {
                let t = self.llvm_type(ty).ok_or("internal error: local type")?;
                if s.is_float() {
                    let w = self
                        .rt_call("cajeta_frame_get_f64", &[frame.into(), slot.into()])?
                        .ok_or("internal error: get")?
                        .into_float_value();
                    if s == ScalarType::F64 {
                        w.into()
                    } else {
                        b(self.builder.build_float_trunc(w, t.into_float_type(), ""))?.into()
                    }
                } else {
                    let w = self
                        .rt_call("cajeta_frame_get_int", &[frame.into(), slot.into()])?
                        .ok_or("internal error: get")?
                        .into_int_value();
                    b(self
                        .builder
                        .build_int_truncate_or_bit_cast(w, t.into_int_type(), ""))?
                    .into()
                }
            }
            Repr::Vector(..) | Repr::Pod => self.words_from_slot(st, ty, l.0 as u64)?,
            Repr::Object | Repr::Void => return Ok(()),
        };
        b(self.builder.build_store(p, v))?;
        Ok(())
    }

    /// Re-reads the data pointer and length of the array local `l` holds.
    pub fn refresh_view(&mut self, st: &mut FnState<'ctx, 'm>, l: LocalId) -> Gen<()> {
        let Some(&(data, len)) = st.views.get(&l) else {
            return Ok(());
        };
        let frame = self.frame(st);
        let view = self
            .rt_call(
                "cajeta_array_view",
                &[frame.into(), self.i64c(l.0 as u64).into()],
            )?
            .ok_or("internal error: view")?
            .into_struct_value();
        let d = b(self.builder.build_extract_value(view, 0, "data"))?;
        let n = b(self.builder.build_extract_value(view, 1, "len"))?;
        b(self.builder.build_store(data, d))?;
        b(self.builder.build_store(len, n))?;
        Ok(())
    }

    /// Runs `call` (a delegation) with the locals of `uses` kept in step around it.
    fn delegated(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        uses: &Uses,
        call: impl FnOnce(&mut Self, &mut FnState<'ctx, 'm>, PointerValue<'ctx>) -> Gen<()>,
    ) -> Gen<()> {
        for &l in &uses.read {
            self.sync_in(st, l)?;
        }
        // A store to a field or lane of a vector or POD local (`p.v.y = 1`) replaces part
        // of its value: the interpreter reads the rest from the frame.
        for &l in &uses.stored {
            if !uses.read.contains(&l) && super::repr::aggregate(&st.ir.locals[l.0].ty) {
                self.sync_in(st, l)?;
            }
        }
        let frame = self.frame(st);
        call(self, st, frame)?;
        for &l in &uses.stored {
            self.sync_out(st, l)?;
        }
        Ok(())
    }

    /// The value of scalar or void expression `e`, computed by the interpreter.
    pub fn delegate_value(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let node = self.node_ptr(e);
        let out = st.out;
        let r = repr(&e.ty);
        let uses = Uses::of_expr(e);
        if let Repr::Vector(..) | Repr::Pod = r {
            let t = self.temp_slot(st);
            self.delegated(st, &uses, |cg, st, frame| {
                let args = [frame.into(), node.into(), cg.i64c(t).into()];
                cg.bridge(st, "cajeta_eval_into", &args)
            })?;
            let v = self.words_from_slot(st, &e.ty, t)?;
            self.clear_slot(st, t)?;
            return Ok(Some(v));
        }
        self.delegated(st, &uses, |cg, st, frame| {
            let args = [frame.into(), node.into(), out.into()];
            match r {
                Repr::Void => cg.bridge(st, "cajeta_eval_void", &args[..2]),
                Repr::Scalar(s) if s.is_float() => cg.bridge(st, "cajeta_eval_f64", &args),
                Repr::Scalar(_) => cg.bridge(st, "cajeta_eval_int", &args),
                Repr::Object | Repr::Vector(..) | Repr::Pod => {
                    Err("internal error: object value in a scalar context".into())
                }
            }
        })?;
        Ok(Some(match r {
            Repr::Void | Repr::Object | Repr::Vector(..) | Repr::Pod => return Ok(None),
            Repr::Scalar(s) if s.is_float() => {
                let w = b(self.builder.build_load(self.ctx.f64_type(), out, ""))?;
                let t = self.llvm_type(&e.ty).ok_or("internal error: type")?;
                if s == ScalarType::F64 {
                    w
                } else {
                    b(self.builder.build_float_trunc(
                        w.into_float_value(),
                        t.into_float_type(),
                        "",
                    ))?
                    .into()
                }
            }
            Repr::Scalar(_) => {
                let w = b(self.builder.build_load(self.ctx.i64_type(), out, ""))?;
                let t = self.llvm_type(&e.ty).ok_or("internal error: type")?;
                b(self.builder.build_int_truncate_or_bit_cast(
                    w.into_int_value(),
                    t.into_int_type(),
                    "",
                ))?
                .into()
            }
        }))
    }

    /// Evaluates object expression `e` into frame slot `slot`.
    pub fn object_into(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr, slot: u64) -> Gen<()> {
        if self.string_into(st, e, slot)? || self.typed_into(st, e, slot)? {
            return Ok(());
        }
        match &e.kind {
            ExprKind::Load(Place::Local(from)) => {
                let frame = self.frame(st);
                let args = [
                    frame.into(),
                    self.i64c(from.0 as u64).into(),
                    self.i64c(slot).into(),
                ];
                self.rt_call("cajeta_frame_copy", &args)?;
                Ok(())
            }
            ExprKind::Call { .. } => {
                let boxed = self.value(st, e)?;
                let frame = self.frame(st);
                let args = [frame.into(), self.i64c(slot).into(), boxed.into()];
                self.rt_call("cajeta_frame_put", &args)?;
                Ok(())
            }
            ExprKind::Sequence(stmts, value) => {
                self.block(st, stmts)?;
                self.object_into(st, value, slot)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => self.select_into(st, cond, then, otherwise, slot),
            _ => {
                let node = self.node_ptr(e);
                let uses = Uses::of_expr(e);
                self.delegated(st, &uses, |cg, st, frame| {
                    let args = [frame.into(), node.into(), cg.i64c(slot).into()];
                    cg.bridge(st, "cajeta_eval_into", &args)
                })
            }
        }
    }

    /// `cond ? then : otherwise` choosing between objects: the condition is native code
    /// and only the chosen arm is evaluated, into `slot`, as any object expression.
    fn select_into(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        cond: &'m Expr,
        then: &'m Expr,
        otherwise: &'m Expr,
        slot: u64,
    ) -> Gen<()> {
        let c = self.cond(st, cond)?;
        let then_bb = self.ctx.append_basic_block(st.func, "then");
        let else_bb = self.ctx.append_basic_block(st.func, "else");
        let join = self.ctx.append_basic_block(st.func, "select");
        b(self.builder.build_conditional_branch(c, then_bb, else_bb))?;
        for (bb, arm) in [(then_bb, then), (else_bb, otherwise)] {
            self.builder.position_at_end(bb);
            self.object_into(st, arm, slot)?;
            b(self.builder.build_unconditional_branch(join))?;
        }
        self.builder.position_at_end(join);
        Ok(())
    }

    /// An object argument of a native call: the address of a value the callee clones, and
    /// the temporary to clear after the call, if one was used.
    pub fn object_arg(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<(BasicValueEnum<'ctx>, Option<u64>)> {
        let (slot, temp) = match &e.kind {
            ExprKind::Load(Place::Local(l)) => (l.0 as u64, None),
            _ => {
                let t = self.temp_slot(st);
                self.object_into(st, e, t)?;
                (t, Some(t))
            }
        };
        let p = self.slot_address(st, slot)?;
        Ok((p.into(), temp))
    }

    /// The address of frame slot `slot`: the frame's base plus the slot's offset (a frame
    /// never changes length after `cajeta_frame_new`, so its slots never move).
    pub fn slot_address(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        slot: u64,
    ) -> Gen<PointerValue<'ctx>> {
        self.frame(st);
        let offset = self.i64c(slot * super::bridge::SLOT_BYTES);
        // SAFETY (of the generated code): `slot` is below the frame's final slot count.
        b(unsafe {
            self.builder
                .build_in_bounds_gep(self.ctx.i8_type(), st.frame_base, &[offset], "slot")
        })
    }

    /// Clears a temporary slot.
    pub fn clear_slot(&mut self, st: &mut FnState<'ctx, 'm>, slot: u64) -> Gen<()> {
        let frame = self.frame(st);
        self.rt_call(
            "cajeta_frame_clear",
            &[frame.into(), self.i64c(slot).into()],
        )?;
        Ok(())
    }

    /// The boxed result of a function returning object `e`.
    pub fn object_result(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let t = self.temp_slot(st);
        self.object_into(st, e, t)?;
        let frame = self.frame(st);
        self.rt_call("cajeta_frame_take", &[frame.into(), self.i64c(t).into()])?
            .ok_or_else(|| "internal error: take".to_string())
    }

    /// An expression statement.
    pub fn effect(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr) -> Gen<()> {
        match repr(&e.ty) {
            Repr::Object => match &e.kind {
                ExprKind::Call { .. } => {
                    let boxed = self.value(st, e)?;
                    self.rt_call("cajeta_value_drop", &[boxed.into()])?;
                    Ok(())
                }
                ExprKind::Sequence(stmts, value) => {
                    self.block(st, stmts)?;
                    self.effect(st, value)
                }
                _ => {
                    let node = self.node_ptr(e);
                    let uses = Uses::of_expr(e);
                    self.delegated(st, &uses, |cg, st, frame| {
                        cg.bridge(st, "cajeta_eval_void", &[frame.into(), node.into()])
                    })
                }
            },
            _ => self.expr(st, e).map(drop),
        }
    }

    /// A store statement.
    pub fn store(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        stmt: &'m Stmt,
        place: &'m Place,
        value: &'m Expr,
    ) -> Gen<()> {
        if let Place::Local(id) = place {
            let ty = &st.ir.locals[id.0].ty;
            if repr(ty) == Repr::Object {
                self.object_into(st, value, id.0 as u64)?;
                return self.refresh_view(st, *id);
            }
            let v = self.value(st, value)?;
            let p = st.locals[id.0].ok_or("internal error: local")?;
            b(self.builder.build_store(p, v))?;
            return Ok(());
        }
        let span: &'m crate::diagnostics::Span = match stmt {
            Stmt::Store { span, .. } => span,
            _ => &value.span,
        };
        if self.place_store(st, place, value, span)? {
            return Ok(());
        }
        if let Some((array, index)) = self.fast_index(st, place) {
            let uses = Uses::of_expr(value);
            if !uses.stores(array) && !Uses::of_expr(index).stores(array) {
                let span = match stmt {
                    Stmt::Store { span, .. } => *span,
                    _ => value.span,
                };
                return self.array_store(st, array, index, value, span);
            }
        }
        let node = self.node_ptr(stmt);
        let uses = Uses::of_stmt(stmt);
        self.delegated(st, &uses, |cg, st, frame| {
            cg.bridge(st, "cajeta_exec", &[frame.into(), node.into()])
        })
    }

    /// `a[i]` where `a` is a local holding an array native code indexes in place and `i` a
    /// native integer: the local and the index.
    pub fn fast_index(
        &self,
        st: &FnState<'ctx, 'm>,
        place: &'m Place,
    ) -> Option<(LocalId, &'m Expr)> {
        let Place::Index { base, index } = place else {
            return None;
        };
        let ExprKind::Load(Place::Local(l)) = &base.kind else {
            return None;
        };
        if !st.views.contains_key(l) || fast_array(&st.ir.locals[l.0].ty).is_none() {
            return None;
        }
        match repr(&index.ty) {
            Repr::Scalar(s) if s.is_integer() => Some((*l, index)),
            _ => None,
        }
    }
}
