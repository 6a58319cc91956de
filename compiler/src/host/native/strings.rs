//! Strings in native code: literals, `+` chains, `String.valueOf`, the `String` methods,
//! `==` on objects, `parse…` and `printf`, each lowered to typed calls of
//! `string_calls.rs` on the frame slots that hold the strings (see that module for the
//! representation), with no hand-off to the interpreter.
//!
//! A concatenation `a + b + c` is built left to right in one slot: its first piece starts
//! the string and every later piece is appended as it is computed (a number by its
//! formatting call, a literal from the module's constants, any other value by its text),
//! so `"item-" + i + ":" + (i * 3)` allocates once. `s = s + x` appends to `s`'s own slot
//! when `x` does not read `s` (in place when nothing else holds the string).

use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use inkwell::IntPredicate;

use super::bridge::scalar_code;
use super::codegen::{b, Codegen, FnState, Gen};
use super::delegate::Uses;
use super::repr::{repr, Repr};
use super::text::flatten;
use crate::ir::{BinaryOp, Expr, ExprKind, HostOp, LocalId, Place, ScalarType, StringOp};

/// True for the parse calls (`Integer.parseInt` and its kin).
fn is_parse(op: HostOp) -> bool {
    matches!(
        op,
        HostOp::ParseInt | HostOp::ParseLong | HostOp::ParseFloat | HostOp::ParseDouble
    )
}

/// True for `==` / `!=` on two objects (strings compare their text).
fn is_object_eq(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Binary(BinaryOp::Eq | BinaryOp::Ne, a, x)
        if repr(&a.ty) == Repr::Object && repr(&x.ty) == Repr::Object)
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Whether `e` is a string operation with a scalar or no result that native code does
    /// itself (`None`: not one of those, the caller decides).
    pub(super) fn string_node(&self, e: &'m Expr) -> Option<bool> {
        match &e.kind {
            ExprKind::Host {
                op: HostOp::StringMethod(_),
                ..
            } => Some(matches!(repr(&e.ty), Repr::Scalar(_))),
            ExprKind::Host { op, args } if is_parse(*op) => Some(args.len() == 1),
            ExprKind::Host {
                op: HostOp::Printf,
                args,
            } => Some(!args.is_empty()),
            _ if is_object_eq(e) => Some(true),
            _ => None,
        }
    }

    /// Lowers a node [`Self::string_node`] accepted (`None`: not one of those); the inner
    /// option is the value (`None` for `printf`).
    pub(super) fn string_expr(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<Option<Option<BasicValueEnum<'ctx>>>> {
        if self.string_node(e) != Some(true) {
            return Ok(None);
        }
        match &e.kind {
            ExprKind::Host {
                op: HostOp::StringMethod(_),
                args,
            } => self.string_method(st, e, args, 0).map(Some),
            ExprKind::Host {
                op: HostOp::Printf,
                args,
            } => {
                self.printf(st, e, args)?;
                Ok(Some(None))
            }
            ExprKind::Host { args, .. } => {
                let mut temps = Vec::new();
                let s = self.operand_slot(st, &args[0], &[], &mut temps)?;
                let frame = self.frame(st);
                let node = self.node_ptr(e);
                let out = st.out;
                let args = [frame.into(), node.into(), self.i64c(s).into(), out.into()];
                self.bridge(st, "cajeta_parse", &args)?;
                self.clear_temps(st, temps)?;
                self.scalar_out(st, e).map(|v| Some(Some(v)))
            }
            ExprKind::Binary(op, a, x) => {
                let mut temps = Vec::new();
                let sa = self.operand_slot(st, a, &[x], &mut temps)?;
                let sx = self.operand_slot(st, x, &[], &mut temps)?;
                let frame = self.frame(st);
                let args = [frame.into(), self.i64c(sa).into(), self.i64c(sx).into()];
                let same = self
                    .rt_call("cajeta_same", &args)?
                    .ok_or("internal error: same")?
                    .into_int_value();
                self.clear_temps(st, temps)?;
                let pred = if *op == BinaryOp::Eq {
                    IntPredicate::NE
                } else {
                    IntPredicate::EQ
                };
                let zero = same.get_type().const_zero();
                let v = b(self.builder.build_int_compare(pred, same, zero, "same"))?;
                Ok(Some(Some(v.into())))
            }
            _ => Err("internal error: string operation".into()),
        }
    }

    /// Evaluates the string-valued `e` into frame slot `slot` when it is one native code
    /// builds itself (a literal, a concatenation, `String.valueOf`, a `String` method);
    /// false for any other expression.
    pub(super) fn string_into(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        slot: u64,
    ) -> Gen<bool> {
        match &e.kind {
            ExprKind::Str(text) => {
                let lit = self.literal(text)?;
                let frame = self.frame(st);
                let args = [frame.into(), self.i64c(slot).into(), lit.into()];
                self.rt_call("cajeta_str_literal", &args)?;
            }
            ExprKind::Host {
                op: HostOp::Concat,
                args,
            } if args.len() == 2 => self.chain_into(st, e, slot)?,
            ExprKind::Host {
                op: HostOp::ToString,
                args,
            } if args.len() == 1 => self.chain_into(st, e, slot)?,
            ExprKind::Host {
                op: HostOp::StringMethod(_),
                args,
            } if !args.is_empty() => {
                self.string_method(st, e, args, slot)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The concatenation (or `String.valueOf`) `e` into `slot`, piece by piece (see the
    /// module comment).
    fn chain_into(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr, slot: u64) -> Gen<()> {
        let mut leaves = Vec::new();
        flatten(e, &mut leaves);
        let Some((&first, rest)) = leaves.split_first() else {
            return Err("internal error: empty concatenation".into());
        };
        // Building in the destination directly is right unless it is a local that a piece
        // reads: then the pieces must see its old value, and the string is built aside.
        let dest = (slot as usize) < st.ir.locals.len();
        let local = LocalId(slot as usize);
        let is_dest = matches!(&first.kind, ExprKind::Load(Place::Local(l)) if dest && *l == local);
        let mentions = |x: &Expr| dest && Uses::of_expr(x).mentions(local);
        let direct = !rest.iter().any(|x| mentions(x)) && (is_dest || !mentions(first));
        let target = if direct { slot } else { self.temp_slot(st) };
        let frame = self.frame(st);
        if !(direct && is_dest) {
            match (&first.kind, repr(&first.ty)) {
                (ExprKind::Str(_), _) | (_, Repr::Object) => self.object_into(st, first, target)?,
                _ => {
                    let empty = self.literal("")?;
                    let args = [frame.into(), self.i64c(target).into(), empty.into()];
                    self.rt_call("cajeta_str_literal", &args)?;
                    self.push_piece(st, first, target)?;
                }
            }
        }
        if rest.is_empty() && repr(&first.ty) == Repr::Object {
            // `String.valueOf(x)` of an object: its text (`null` for a null string).
            let empty = self.literal("")?;
            let args = [frame.into(), self.i64c(target).into(), empty.into()];
            self.rt_call("cajeta_str_push_str", &args)?;
        }
        for &x in rest {
            self.push_piece(st, x, target)?;
        }
        if !direct {
            let args = [
                frame.into(),
                self.i64c(target).into(),
                self.i64c(slot).into(),
            ];
            self.rt_call("cajeta_frame_move", &args)?;
        }
        Ok(())
    }

    /// Appends the text of piece `x` to the string in slot `target`.
    fn push_piece(&mut self, st: &mut FnState<'ctx, 'm>, x: &'m Expr, target: u64) -> Gen<()> {
        let frame = self.frame(st);
        let t = self.i64c(target);
        match (&x.kind, repr(&x.ty)) {
            (ExprKind::Str(text), _) => {
                let lit = self.literal(text)?;
                self.rt_call("cajeta_str_push_str", &[frame.into(), t.into(), lit.into()])?;
            }
            (_, Repr::Scalar(s)) => {
                let v = self.value(st, x)?;
                let code = self.ctx.i32_type().const_int(scalar_code(s), false);
                let bits = self.scalar_bits(v, s)?;
                if s.is_float() {
                    let d = b(self.builder.build_bit_cast(bits, self.ctx.f64_type(), "f"))?;
                    let args = [frame.into(), t.into(), d.into(), code.into()];
                    self.rt_call("cajeta_str_push_f64", &args)?;
                } else {
                    let args = [frame.into(), t.into(), bits.into(), code.into()];
                    self.rt_call("cajeta_str_push_int", &args)?;
                }
            }
            (_, Repr::Void) => return Err("internal error: void piece of `+`".into()),
            _ => {
                let mut temps = Vec::new();
                let s = self.operand_slot(st, x, &[], &mut temps)?;
                let frame = self.frame(st);
                let args = [frame.into(), t.into(), self.i64c(s).into()];
                self.rt_call("cajeta_str_push_slot", &args)?;
                self.clear_temps(st, temps)?;
            }
        }
        Ok(())
    }

    /// The `String` method call `e` (receiver and arguments `args`): its scalar value, or
    /// its string stored in `dst` (and `None`).
    fn string_method(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        args: &'m [Expr],
        dst: u64,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        if args.len() > 3 {
            return Err("internal error: String method arguments".into());
        }
        let mut temps = Vec::new();
        let mut slots = [-1i64; 3];
        for (k, a) in args.iter().enumerate() {
            let later: Vec<&Expr> = args[k + 1..].iter().collect();
            slots[k] = self.operand_slot(st, a, &later, &mut temps)? as i64;
        }
        let frame = self.frame(st);
        let node = self.node_ptr(e);
        let i64t = self.ctx.i64_type();
        let mut call: Vec<BasicMetadataValueEnum> = vec![frame.into(), node.into()];
        let length = matches!(
            e.kind,
            ExprKind::Host {
                op: HostOp::StringMethod(StringOp::Length),
                ..
            }
        );
        if length && args.len() == 1 {
            // The commonest method gets its own call, which reads the length directly.
            call.push(self.i64c(slots[0] as u64).into());
            call.push(st.out.into());
            self.bridge(st, "cajeta_str_length", &call)?;
        } else {
            for s in slots {
                call.push(i64t.const_int(s as u64, true).into());
            }
            call.push(self.i64c(dst).into());
            call.push(st.out.into());
            self.bridge(st, "cajeta_str_method", &call)?;
        }
        self.clear_temps(st, temps)?;
        if matches!(repr(&e.ty), Repr::Scalar(_)) {
            return self.scalar_out(st, e).map(Some);
        }
        Ok(None)
    }

    /// `System.out.printf(args…)`: the format and arguments in consecutive slots, formatted
    /// and printed by one call.
    fn printf(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr, args: &'m [Expr]) -> Gen<()> {
        let first = self.temp_slot(st);
        for _ in 1..args.len() {
            self.temp_slot(st);
        }
        for (k, a) in args.iter().enumerate() {
            let s = first + k as u64;
            match repr(&a.ty) {
                Repr::Scalar(t) => {
                    let v = self.value(st, a)?;
                    self.scalar_into_slot(st, v, t, s)?;
                }
                Repr::Vector(..) | Repr::Pod => {
                    let v = self.value(st, a)?;
                    self.words_into_slot(st, v, &a.ty, s)?;
                }
                Repr::Object => self.object_into(st, a, s)?,
                Repr::Void => return Err("internal error: void printf argument".into()),
            }
        }
        let frame = self.frame(st);
        let node = self.node_ptr(e);
        let n = args.len() as u64;
        let call = [
            frame.into(),
            node.into(),
            self.i64c(first).into(),
            self.i64c(n).into(),
        ];
        self.bridge(st, "cajeta_printf", &call)?;
        self.clear_temps(st, (first..first + n).collect())
    }

    /// The slot holding operand `e`'s value: an object local's own slot (unless a `later`
    /// operand stores that local), else a temporary (recorded in `temps` when it holds an
    /// object, to be cleared after use).
    pub(super) fn operand_slot(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        later: &[&'m Expr],
        temps: &mut Vec<u64>,
    ) -> Gen<u64> {
        match (&e.kind, repr(&e.ty)) {
            (ExprKind::Load(Place::Local(l)), Repr::Object)
                if !later.iter().any(|x| Uses::of_expr(x).stores(*l)) =>
            {
                Ok(l.0 as u64)
            }
            (_, Repr::Object) => {
                let t = self.temp_slot(st);
                self.object_into(st, e, t)?;
                temps.push(t);
                Ok(t)
            }
            (_, Repr::Scalar(s)) => {
                let v = self.value(st, e)?;
                let t = self.temp_slot(st);
                self.scalar_into_slot(st, v, s, t)?;
                Ok(t)
            }
            (_, Repr::Vector(..) | Repr::Pod) => {
                let v = self.value(st, e)?;
                let t = self.temp_slot(st);
                self.words_into_slot(st, v, &e.ty, t)?;
                temps.push(t);
                Ok(t)
            }
            (_, Repr::Void) => Err("internal error: void operand".into()),
        }
    }

    /// Clears the temporaries `temps` (drops the objects they hold).
    pub(super) fn clear_temps(&mut self, st: &mut FnState<'ctx, 'm>, temps: Vec<u64>) -> Gen<()> {
        for t in temps {
            self.clear_slot(st, t)?;
        }
        Ok(())
    }

    /// The scalar result of `e` a string call left in `st.out` (see `scalar_fns`).
    fn scalar_out(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr) -> Gen<BasicValueEnum<'ctx>> {
        let ty: ScalarType = e.ty.as_scalar().ok_or("internal error: result")?;
        let i64t = self.ctx.i64_type();
        let bits = b(self.builder.build_load(i64t, st.out, "bits"))?.into_int_value();
        self.scalar_from_bits(bits, ty)
    }
}
