//! Lowering of expressions, with SPEC §4's semantics spelled out where LLVM's differ.
//!
//! - Integer `+ - *` are plain (wrapping) instructions: no `nsw`/`nuw` flags.
//! - `/` and `%` by zero branch to a runtime error. Signed `MIN / -1` is undefined in LLVM
//!   but `MIN` in Cajeta (and `MIN % -1` is 0): a divisor of -1 is replaced by 1 and the
//!   quotient negated (a wrapping negation), so the instruction never overflows.
//! - Shift counts are taken modulo the width with an explicit `and` (LLVM gives poison for a
//!   count ≥ the width).
//! - Float operations carry no fast-math flags (so no contraction into FMA, no reassociation)
//!   and `frem` is C's `fmod`, as the interpreter's Rust `%`.
//! - Float→int conversions use `llvm.fpto[su]i.sat`: truncating, saturating, NaN → 0, exactly
//!   Rust's `as` that the interpreter uses (LLVM's plain `fptosi` is poison out of range).
//! - Integer narrowing keeps the low bits (`trunc`); widening extends by the source's
//!   signedness.

use inkwell::intrinsics::Intrinsic;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

use super::codegen::{b, Codegen, FnState, Gen};
use super::intrinsic_calls::is_intrinsic_call;
use super::repr::{in_registers, repr, Repr};
use super::runtime::SiteKind;
use super::text::flatten;
use crate::ir::{BinaryOp, Constant, Expr, ExprKind, HostOp, Place, ScalarType, Type, UnaryOp};

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Lowers an expression; `None` for `void` calls. An object result (only from a call)
    /// is the boxed value.
    pub fn expr(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        if !self.native_node(st, e) {
            return self.delegate_value(st, e);
        }
        if let Some(v) = self.string_expr(st, e)? {
            return Ok(v);
        }
        if let Some(v) = self.vector_expr(st, e)? {
            return Ok(Some(v));
        }
        if let Some(v) = self.typed_expr(st, e)? {
            return Ok(v);
        }
        let v: BasicValueEnum = match &e.kind {
            ExprKind::Const(c) => self.constant(c, &e.ty)?,
            ExprKind::Load(Place::Local(id)) => {
                let slot = st.locals.get(id.0).copied().flatten();
                let (Some(p), Some(t)) = (slot, self.llvm_type(&e.ty)) else {
                    return Err(format!("internal error: load of local #{}", id.0));
                };
                b(self.builder.build_load(t, p, ""))?
            }
            ExprKind::Load(place @ (Place::Field { .. } | Place::Lane { .. })) => {
                self.place_load(st, place, e)?
            }
            ExprKind::Load(place @ Place::Index { .. }) if super::repr::aggregate(&e.ty) => {
                self.place_load(st, place, e)?
            }
            ExprKind::Construct(parts) => self.pod_construct(st, parts, &e.ty)?,
            ExprKind::Load(place @ Place::Index { .. }) => {
                let (array, index) = self
                    .fast_index(st, place)
                    .ok_or("internal error: array load")?;
                self.array_load(st, array, index, e)?
            }
            ExprKind::Unary(op, a) => {
                let x = self.value(st, a)?;
                self.unary(*op, x, scalar(&a.ty)?)?
            }
            ExprKind::Binary(op, a, x) => {
                let l = self.value(st, a)?;
                let r = self.value(st, x)?;
                self.binary(st, *op, l, r, scalar(&a.ty)?, scalar(&x.ty)?, e)?
            }
            ExprKind::LogicalAnd(a, x) => self.logical(st, true, a, x)?,
            ExprKind::LogicalOr(a, x) => self.logical(st, false, a, x)?,
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => self.select(st, cond, then, otherwise, &e.ty)?,
            ExprKind::Convert(a) => {
                let x = self.value(st, a)?;
                self.convert(x, scalar(&a.ty)?, scalar(&e.ty)?)?
            }
            ExprKind::Call { func, args } => {
                let mut vs: Vec<BasicMetadataValueEnum> = Vec::with_capacity(args.len());
                let mut temps = Vec::new();
                for a in args {
                    if repr(&a.ty) == Repr::Object {
                        let (p, temp) = self.object_arg(st, a)?;
                        vs.push(p.into());
                        temps.extend(temp);
                    } else {
                        vs.push(self.value(st, a)?.into());
                    }
                }
                let result = self.call(st, *func, &vs, e.span)?;
                for t in temps {
                    self.clear_slot(st, t)?;
                }
                return Ok(result);
            }
            ExprKind::Host {
                op: HostOp::ArrayLength,
                args,
            } => match args.first().map(|a| &a.kind) {
                Some(ExprKind::Load(Place::Local(l))) => self.array_length(st, *l, e)?,
                _ => return Err("internal error: array length".into()),
            },
            ExprKind::Host { op, args } => return self.host(st, *op, args, e),
            ExprKind::Intrinsic { .. } if super::scalar_fns::is_scalar_fn(e) => {
                self.scalar_fn(st, e)?
            }
            ExprKind::Intrinsic { .. } => self.intrinsic_by_values(st, e)?,
            ExprKind::Sequence(stmts, value) => {
                self.block(st, stmts)?;
                return self.expr(st, value);
            }
            _ => return Err("internal error: construct outside the native subset".into()),
        };
        Ok(Some(v))
    }

    /// Whether the node `e` itself lowers to native code (its operands may still be
    /// delegated); otherwise the interpreter evaluates it, operands and all.
    fn native_node(&self, st: &FnState<'ctx, 'm>, e: &'m Expr) -> bool {
        let scalar = |t: &Type| matches!(repr(t), Repr::Scalar(_));
        if let Some(native) = self.string_node(e) {
            return native;
        }
        if let Some(native) = self.vector_node(e) {
            return native || is_intrinsic_call(e);
        }
        if let Some(native) = self.typed_node(e) {
            return native;
        }
        match &e.kind {
            ExprKind::Load(place @ (Place::Field { .. } | Place::Lane { .. })) => {
                self.native_place(st, place).is_some()
            }
            ExprKind::Load(place @ Place::Index { .. }) if super::repr::aggregate(&e.ty) => {
                self.native_place(st, place).is_some()
            }
            ExprKind::Construct(parts) => {
                repr(&e.ty) == Repr::Pod && parts.iter().all(|p| in_registers(&p.ty))
            }
            ExprKind::Const(_) => scalar(&e.ty),
            ExprKind::Load(Place::Local(_)) => in_registers(&e.ty),
            ExprKind::Load(place @ Place::Index { .. }) => {
                scalar(&e.ty)
                    && self
                        .fast_index(st, place)
                        .is_some_and(|(a, i)| !super::delegate::Uses::of_expr(i).stores(a))
            }
            ExprKind::Unary(_, a) | ExprKind::Convert(a) => scalar(&e.ty) && scalar(&a.ty),
            ExprKind::Binary(_, a, x) => scalar(&e.ty) && scalar(&a.ty) && scalar(&x.ty),
            ExprKind::LogicalAnd(..) | ExprKind::LogicalOr(..) | ExprKind::Sequence(..) => true,
            ExprKind::Select { .. } => in_registers(&e.ty),
            ExprKind::Call { func, .. } => self
                .ir
                .functions
                .get(func.0)
                .is_some_and(|f| f.kind == crate::ir::FunctionKind::Host),
            ExprKind::Intrinsic { .. } => {
                super::scalar_fns::is_scalar_fn(e) || is_intrinsic_call(e)
            }
            ExprKind::Host { op, args } => match op {
                HostOp::Print | HostOp::Println => {
                    let mut leaves = Vec::new();
                    if let [x] = &args[..] {
                        flatten(x, &mut leaves);
                    }
                    // Objects print from their slots when native code has them without
                    // the interpreter (locals, strings it builds, call results); else the
                    // whole print is one hand-off rather than one per piece.
                    let printable = |l: &Expr| match repr(&l.ty) {
                        Repr::Object => {
                            matches!(
                                &l.kind,
                                ExprKind::Load(Place::Local(_))
                                    | ExprKind::Str(_)
                                    | ExprKind::Call { .. }
                                    | ExprKind::Select { .. }
                                    | ExprKind::Load(Place::Index { .. })
                                    | ExprKind::Host {
                                        op: HostOp::Concat
                                            | HostOp::ToString
                                            | HostOp::StringMethod(_),
                                        ..
                                    }
                            ) || super::typed_ops::typed_object(l)
                        }
                        Repr::Void => false,
                        _ => true,
                    };
                    args.len() <= 1 && leaves.iter().all(|l| printable(l))
                }
                HostOp::ArrayLength => {
                    scalar(&e.ty)
                        && matches!(&args[..], [a] if matches!(&a.kind,
                            ExprKind::Load(Place::Local(l)) if st.views.contains_key(l)
                                || matches!(&st.ir.locals[l.0].ty, Type::Array(_))))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Lowers an expression that has a value.
    pub fn value(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr) -> Gen<BasicValueEnum<'ctx>> {
        self.expr(st, e)?
            .ok_or_else(|| "internal error: void value used".to_string())
    }

    fn constant(&self, c: &Constant, ty: &Type) -> Gen<BasicValueEnum<'ctx>> {
        let t = self.llvm_type(ty).ok_or("internal error: constant type")?;
        Ok(match (c, t) {
            (Constant::Bool(v), BasicTypeEnum::IntType(t)) => {
                t.const_int(u64::from(*v), false).into()
            }
            (Constant::Int(v), BasicTypeEnum::IntType(t)) => t.const_int(*v, false).into(),
            (Constant::Float(v), BasicTypeEnum::FloatType(t))
                if ty.as_scalar() == Some(ScalarType::BF16) =>
            {
                t.const_float(f64::from(crate::host::interp::ops::round_bf16(*v)))
                    .into()
            }
            (Constant::Float(v), BasicTypeEnum::FloatType(t)) => t.const_float(*v).into(),
            _ => return Err(format!("internal error: constant {c:?} of type {ty}")),
        })
    }

    /// A string literal: a constant `{ ptr, i64 }` (a [`super::runtime::NStr`]) over a
    /// constant byte array, one per distinct text.
    pub fn literal(&mut self, text: &str) -> Gen<inkwell::values::PointerValue<'ctx>> {
        if let Some(p) = self.literals.get(text) {
            return Ok(*p);
        }
        let c = self.ctx;
        let bytes = c.const_string(text.as_bytes(), false);
        let data = self.module.add_global(bytes.get_type(), None, "str.data");
        data.set_initializer(&bytes);
        data.set_constant(true);
        data.set_linkage(inkwell::module::Linkage::Private);
        let len = c.i64_type().const_int(text.len() as u64, false);
        let value = c.const_struct(&[data.as_pointer_value().into(), len.into()], false);
        let s = self.module.add_global(value.get_type(), None, "str");
        s.set_initializer(&value);
        s.set_constant(true);
        s.set_linkage(inkwell::module::Linkage::Private);
        let p = s.as_pointer_value();
        self.literals.insert(text.to_string(), p);
        Ok(p)
    }

    pub(super) fn unary(
        &self,
        op: UnaryOp,
        x: BasicValueEnum<'ctx>,
        s: ScalarType,
    ) -> Gen<BasicValueEnum<'ctx>> {
        if let BasicValueEnum::VectorValue(v) = x {
            // A vector (of lane type `s`): the same instruction on every lane at once.
            return Ok(match (op, s.is_float()) {
                (UnaryOp::Neg, true) => b(self.builder.build_float_neg(v, ""))?.into(),
                (UnaryOp::Neg, false) => b(self.builder.build_int_neg(v, ""))?.into(),
                (UnaryOp::Not | UnaryOp::BitNot, _) => b(self.builder.build_not(v, ""))?.into(),
            });
        }
        Ok(match (op, s.is_float()) {
            (UnaryOp::Neg, true) => {
                b(self.builder.build_float_neg(x.into_float_value(), ""))?.into()
            }
            (UnaryOp::Neg, false) => b(self.builder.build_int_neg(x.into_int_value(), ""))?.into(),
            (UnaryOp::Not | UnaryOp::BitNot, _) => {
                b(self.builder.build_not(x.into_int_value(), ""))?.into()
            }
        })
    }

    /// A scalar binary operator; `ls`/`rs` are the operand types (they differ only for
    /// shifts), `e` the whole expression (division by zero is reported at it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn binary(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        op: BinaryOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
        ls: ScalarType,
        rs: ScalarType,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        if ls == ScalarType::BF16 {
            // Computed in `float`, rounded (`bfloat16.rs`); comparisons are exact.
            let v = self.float_binary(op, l, r)?;
            return Ok(match v {
                BasicValueEnum::FloatValue(f) => self.round_bf16(f)?.into(),
                other => other,
            });
        }
        if ls.is_float() {
            return self.float_binary(op, l, r);
        }
        let (x, y) = (l.into_int_value(), r.into_int_value());
        let bld = &self.builder;
        let signed = ls.is_signed_integer();
        Ok(match op {
            BinaryOp::Add => b(bld.build_int_add(x, y, ""))?.into(),
            BinaryOp::Sub => b(bld.build_int_sub(x, y, ""))?.into(),
            BinaryOp::Mul => b(bld.build_int_mul(x, y, ""))?.into(),
            BinaryOp::Div | BinaryOp::Rem => self.divide(st, op, x, y, signed, e)?.into(),
            BinaryOp::BitAnd => b(bld.build_and(x, y, ""))?.into(),
            BinaryOp::BitOr => b(bld.build_or(x, y, ""))?.into(),
            BinaryOp::BitXor => b(bld.build_xor(x, y, ""))?.into(),
            BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UShr => {
                // The count's low bits, in the left operand's width, modulo that width.
                let t = x.get_type();
                let width = t.get_bit_width();
                let count = if rs.bits() > width {
                    b(bld.build_int_truncate(y, t, ""))?
                } else if rs.bits() < width {
                    b(bld.build_int_z_extend(y, t, ""))?
                } else {
                    y
                };
                let n = b(bld.build_and(count, t.const_int(u64::from(width - 1), false), ""))?;
                match op {
                    BinaryOp::Shl => b(bld.build_left_shift(x, n, ""))?.into(),
                    BinaryOp::Shr => b(bld.build_right_shift(x, n, signed, ""))?.into(),
                    _ => b(bld.build_right_shift(x, n, false, ""))?.into(),
                }
            }
            cmp => {
                let pred = int_predicate(cmp, signed)
                    .ok_or_else(|| format!("internal error: operator {cmp:?}"))?;
                b(bld.build_int_compare(pred, x, y, ""))?.into()
            }
        })
    }

    /// Integer `/` or `%` with SPEC §4's division by zero and `MIN / -1`.
    fn divide(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        op: BinaryOp,
        x: IntValue<'ctx>,
        y: IntValue<'ctx>,
        signed: bool,
        e: &'m Expr,
    ) -> Gen<IntValue<'ctx>> {
        let t = x.get_type();
        let zero =
            b(self
                .builder
                .build_int_compare(IntPredicate::EQ, y, t.const_zero(), "divzero"))?;
        let kind = if op == BinaryOp::Div {
            SiteKind::Division
        } else {
            SiteKind::Remainder
        };
        let site = self.site(kind, e.span);
        self.fail_if(st, zero, site)?;
        let bld = &self.builder;
        if !signed {
            return b(if op == BinaryOp::Div {
                bld.build_int_unsigned_div(x, y, "")
            } else {
                bld.build_int_unsigned_rem(x, y, "")
            });
        }
        let minus_one = b(bld.build_int_compare(IntPredicate::EQ, y, t.const_all_ones(), ""))?;
        let safe = b(bld.build_select(minus_one, t.const_int(1, false), y, ""))?.into_int_value();
        if op == BinaryOp::Rem {
            // x % 1 == 0 == x % -1.
            return b(bld.build_int_signed_rem(x, safe, ""));
        }
        let q = b(bld.build_int_signed_div(x, safe, ""))?;
        let neg = b(bld.build_int_neg(x, ""))?;
        Ok(b(bld.build_select(minus_one, neg, q, ""))?.into_int_value())
    }

    fn float_binary(
        &self,
        op: BinaryOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let (x, y) = (l.into_float_value(), r.into_float_value());
        let bld = &self.builder;
        Ok(match op {
            BinaryOp::Add => b(bld.build_float_add(x, y, ""))?.into(),
            BinaryOp::Sub => b(bld.build_float_sub(x, y, ""))?.into(),
            BinaryOp::Mul => b(bld.build_float_mul(x, y, ""))?.into(),
            BinaryOp::Div => b(bld.build_float_div(x, y, ""))?.into(),
            BinaryOp::Rem => b(bld.build_float_rem(x, y, ""))?.into(),
            cmp => {
                let pred = float_predicate(cmp)
                    .ok_or_else(|| format!("internal error: operator {cmp:?} on floats"))?;
                b(bld.build_float_compare(pred, x, y, ""))?.into()
            }
        })
    }

    /// `&&` (`is_and`) / `||`: the right side only runs when it decides the result.
    fn logical(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        is_and: bool,
        a: &'m Expr,
        x: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let l = self.cond(st, a)?;
        let from_left = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        let rhs_bb = self.ctx.append_basic_block(st.func, "rhs");
        let join = self.ctx.append_basic_block(st.func, "logic");
        if is_and {
            b(self.builder.build_conditional_branch(l, rhs_bb, join))?;
        } else {
            b(self.builder.build_conditional_branch(l, join, rhs_bb))?;
        }
        self.builder.position_at_end(rhs_bb);
        let r = self.cond(st, x)?;
        let from_right = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        b(self.builder.build_unconditional_branch(join))?;
        self.builder.position_at_end(join);
        let phi = b(self.builder.build_phi(self.ctx.bool_type(), "logic"))?;
        let short = self.ctx.bool_type().const_int(u64::from(!is_and), false);
        phi.add_incoming(&[(&short, from_left), (&r, from_right)]);
        Ok(phi.as_basic_value())
    }

    /// `cond ? then : otherwise`, evaluating only the chosen arm.
    fn select(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        cond: &'m Expr,
        then: &'m Expr,
        otherwise: &'m Expr,
        ty: &Type,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let c = self.cond(st, cond)?;
        let t = self.llvm_type(ty).ok_or("internal error: select type")?;
        let then_bb = self.ctx.append_basic_block(st.func, "then");
        let else_bb = self.ctx.append_basic_block(st.func, "else");
        let join = self.ctx.append_basic_block(st.func, "select");
        b(self.builder.build_conditional_branch(c, then_bb, else_bb))?;
        let mut incoming = Vec::new();
        for (bb, arm) in [(then_bb, then), (else_bb, otherwise)] {
            self.builder.position_at_end(bb);
            let v = self.value(st, arm)?;
            let end = self
                .builder
                .get_insert_block()
                .ok_or("internal error: no block")?;
            b(self.builder.build_unconditional_branch(join))?;
            incoming.push((v, end));
        }
        self.builder.position_at_end(join);
        let phi = b(self.builder.build_phi(t, "select"))?;
        for (v, bb) in &incoming {
            phi.add_incoming(&[(v, *bb)]);
        }
        Ok(phi.as_basic_value())
    }

    /// Numeric conversion (SPEC §3), see the module comment.
    pub fn convert(
        &self,
        x: BasicValueEnum<'ctx>,
        from: ScalarType,
        to: ScalarType,
    ) -> Gen<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        if let Some(v) = self.convert_bf16(x, from, to)? {
            return Ok(v);
        }
        let t = self
            .llvm_type(&Type::Scalar(to))
            .ok_or("internal error: conversion type")?;
        let bld = &self.builder;
        Ok(match (from.is_float(), to.is_float()) {
            (false, false) => {
                let (v, it) = (x.into_int_value(), t.into_int_type());
                match from.bits().cmp(&to.bits()) {
                    std::cmp::Ordering::Greater => b(bld.build_int_truncate(v, it, ""))?.into(),
                    std::cmp::Ordering::Less if from.is_signed_integer() => {
                        b(bld.build_int_s_extend(v, it, ""))?.into()
                    }
                    std::cmp::Ordering::Less => b(bld.build_int_z_extend(v, it, ""))?.into(),
                    // Same width, other signedness: the same bits.
                    std::cmp::Ordering::Equal => v.into(),
                }
            }
            (false, true) => {
                let (v, ft) = (x.into_int_value(), t.into_float_type());
                if from.is_signed_integer() {
                    b(bld.build_signed_int_to_float(v, ft, ""))?.into()
                } else {
                    b(bld.build_unsigned_int_to_float(v, ft, ""))?.into()
                }
            }
            (true, false) => {
                let name = if to.is_signed_integer() {
                    "llvm.fptosi.sat"
                } else {
                    "llvm.fptoui.sat"
                };
                let intrinsic = Intrinsic::find(name).ok_or("internal error: no fpto*i.sat")?;
                let src = self
                    .llvm_type(&Type::Scalar(from))
                    .ok_or("internal error")?;
                let decl = intrinsic
                    .get_declaration(&self.module, &[t, src])
                    .ok_or("internal error: fpto*i.sat declaration")?;
                let call = b(bld.build_call(decl, &[x.into()], ""))?;
                call.try_as_basic_value()
                    .basic()
                    .ok_or("internal error: fpto*i.sat")?
            }
            (true, true) => {
                let (v, ft) = (x.into_float_value(), t.into_float_type());
                if from.bits() < to.bits() {
                    b(bld.build_float_ext(v, ft, ""))?.into()
                } else {
                    b(bld.build_float_trunc(v, ft, ""))?.into()
                }
            }
        })
    }
}

pub fn scalar(ty: &Type) -> Gen<ScalarType> {
    ty.as_scalar()
        .ok_or_else(|| format!("internal error: expected a scalar, found {ty}"))
}

/// The LLVM predicate of integer comparison `op` (`signed` picks the ordering); `None` for an
/// operator that is not a comparison. Scalars and vector lanes compare alike.
pub(super) fn int_predicate(op: BinaryOp, signed: bool) -> Option<IntPredicate> {
    Some(match (op, signed) {
        (BinaryOp::Eq, _) => IntPredicate::EQ,
        (BinaryOp::Ne, _) => IntPredicate::NE,
        (BinaryOp::Lt, true) => IntPredicate::SLT,
        (BinaryOp::Le, true) => IntPredicate::SLE,
        (BinaryOp::Gt, true) => IntPredicate::SGT,
        (BinaryOp::Ge, true) => IntPredicate::SGE,
        (BinaryOp::Lt, false) => IntPredicate::ULT,
        (BinaryOp::Le, false) => IntPredicate::ULE,
        (BinaryOp::Gt, false) => IntPredicate::UGT,
        (BinaryOp::Ge, false) => IntPredicate::UGE,
        _ => return None,
    })
}

/// The LLVM predicate of float comparison `op`, as IEEE orders it: ordered comparisons are
/// false with a NaN, `!=` (unordered) is true. `None` for an operator that is not one.
pub(super) fn float_predicate(op: BinaryOp) -> Option<FloatPredicate> {
    Some(match op {
        BinaryOp::Eq => FloatPredicate::OEQ,
        BinaryOp::Ne => FloatPredicate::UNE,
        BinaryOp::Lt => FloatPredicate::OLT,
        BinaryOp::Le => FloatPredicate::OLE,
        BinaryOp::Gt => FloatPredicate::OGT,
        BinaryOp::Ge => FloatPredicate::OGE,
        _ => return None,
    })
}
