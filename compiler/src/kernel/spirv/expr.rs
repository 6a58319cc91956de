//! Expressions: places, operators with SPEC §3/§4 semantics, conversions, short-circuit
//! forms and calls of device helpers.
//!
//! Every operation the SPIR-V specification leaves undefined is guarded so kernels have no
//! undefined behavior: integer division by zero yields 0 (and `MIN / -1` wraps), shift
//! counts are masked to the width, and float → int conversion saturates with NaN → 0.
//! `&&`, `||` and `?:` branch so that only the needed operand is evaluated.

use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::function::FnCx;
use super::module::ResourceKind;
use super::types::host_only;
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ExprKind, FunctionKind, Place, ScalarType, Type, UnaryOp};

use super::function::Slot;

/// The scalar type of an expression, or an error for non-scalars.
pub(crate) fn scalar_of(e: &Expr) -> Res<ScalarType> {
    e.ty.as_scalar()
        .ok_or_else(|| unsupported(e.span, format!("expected a scalar, found `{}`", e.ty)))
}

impl FnCx<'_, '_> {
    /// Lowers an expression and returns its value id (an unused id for `void` calls).
    pub(crate) fn expr(&mut self, e: &Expr) -> Res<Word> {
        let v = self.expr_unrounded(e)?;
        let rounds = matches!(
            e.kind,
            ExprKind::Unary(..)
                | ExprKind::Binary(..)
                | ExprKind::Convert(_)
                | ExprKind::Intrinsic { .. }
        );
        if rounds && e.ty == Type::Scalar(ScalarType::BF16) {
            // bfloat16 arithmetic is float32 arithmetic rounded after each operation, as
            // the host interpreter does it.
            return self.round_bf16(v);
        }
        Ok(v)
    }

    fn expr_unrounded(&mut self, e: &Expr) -> Res<Word> {
        match &e.kind {
            ExprKind::Const(c) => self.cx.ir_constant(c, &e.ty, e.span),
            ExprKind::Load(place) => self.load(place, e),
            ExprKind::Unary(op, a) => self.unary(*op, a, e),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e),
            ExprKind::LogicalAnd(a, b) => self.short_circuit(a, b, true),
            ExprKind::LogicalOr(a, b) => self.short_circuit(a, b, false),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => self.select(cond, then, otherwise, e),
            ExprKind::Convert(a) => {
                if crate::kernel::holds_f16_values(a) {
                    if let Some(r) = self.plain_f16_narrowing(e) {
                        return r;
                    }
                }
                if let Some(r) = self.convert_float_vector(a, e) {
                    return r;
                }
                let v = self.expr(a)?;
                self.convert(v, scalar_of(a)?, scalar_of(e)?, e.span)
            }
            ExprKind::Call { func, args } => self.call(*func, args, e),
            ExprKind::Intrinsic { op, args } => self.intrinsic(*op, args, e),
            ExprKind::Host {
                op: crate::ir::HostOp::ArrayLength,
                args,
            } if args.len() == 1 && args[0].ty.is_buffer_array() => {
                self.buffer_array_length(&args[0], e)
            }
            ExprKind::Host {
                op: crate::ir::HostOp::Printf,
                args,
            } => self.debug_printf(args, e),
            ExprKind::Host { .. } | ExprKind::Launch(_) | ExprKind::Str(_) => {
                Err(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    e.span,
                    "host-only operation in device code",
                ))
            }
            ExprKind::Construct(parts) => self.construct(parts, e),
            ExprKind::Splat(a) => self.splat(a, e),
            ExprKind::Swizzle(a, lanes) => self.swizzle(a, lanes, e),
            ExprKind::Sequence(stmts, value) => {
                self.block(stmts)?;
                if self.terminated() {
                    return Err(unsupported(e.span, "control flow leaving an expression"));
                }
                self.expr(value)
            }
        }
    }

    /// The resource an expression denotes: its global variable and kind. Resource
    /// expressions are always reads of resource locals, resolved statically.
    /// An addressed buffer has no variable (its `var` is 0): its element pointers and lengths
    /// come from its push-constant address and count ([`Self::buffer_element_pointer`]).
    pub(crate) fn resource_of(&mut self, e: &Expr) -> Res<(Word, ResourceKind)> {
        let found = self
            .resource_param(e)
            .and_then(|p| self.cx.resource(p))
            .map(|r| (r.var, r.kind));
        found.ok_or_else(|| {
                if super::buffer_array::array_element(e).is_some() {
                    return unsupported(
                        e.span,
                        "a buffer of a buffer array used other than by indexing it (`bufs[k][i]`) or asking its `length()`",
                    );
                }
                unsupported(
                    e.span,
                    "a resource here must be a kernel or helper parameter (or a local assigned one)",
                )
            })
    }

    /// The kernel parameter a resource expression (a read of a resource local) denotes.
    fn resource_param(&self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Load(Place::Local(l)) => match self.slots.get(l.0) {
                Some(Slot::Resource(Some(p))) => Some(*p),
                _ => None,
            },
            _ => None,
        }
    }

    /// Pointer to `buffer[index]`, with the element's lane type and its stored SPIR-V type.
    pub(crate) fn buffer_element(
        &mut self,
        base: &Expr,
        index: &Expr,
    ) -> Res<(Word, ScalarType, Word)> {
        let i = self.expr(index)?;
        self.buffer_element_at(base, index, i)
    }

    /// [`Self::buffer_element`] with `index` already computed as `i`.
    pub(crate) fn buffer_element_at(
        &mut self,
        base: &Expr,
        index: &Expr,
        i: Word,
    ) -> Res<(Word, ScalarType, Word)> {
        if super::buffer_array::array_element(base).is_some() {
            return self.buffer_array_element(base, index, i);
        }
        let (var, kind) = self.resource_of(base)?;
        let ResourceKind::Buffer {
            elem,
            storage,
            address,
        } = kind
        else {
            return Err(unsupported(
                base.span,
                "only buffers can be indexed in device code",
            ));
        };
        let mut i = i;
        let mut index_ty = super::bounds::index_type(index)?;
        if let (Some(a), true) = (address, self.checked()) {
            let len = self.address_length(a)?;
            let name = self.resource_name(base);
            let ty = super::bounds::index_type(index)?;
            let at = base.span.to(index.span);
            i = self.check_index_wide(i, ty, len, &name, at)?;
        } else if self.checked() {
            let len = self.hoisted_array_length(var)?;
            let name = self.resource_name(base);
            let ty = super::bounds::index_type(index)?;
            let at = base.span.to(index.span);
            let checked = self.check_index(i, ty, len, &name, "buffer", at)?;
            // The check's in-bounds index is a `uint32` (the index itself where a loop's
            // range proved it in bounds).
            if checked != i {
                index_ty = ScalarType::U32;
            }
            i = checked;
        }
        // A checked addressed index is the bounds check's `uint64` already.
        if address.is_some() && self.checked() {
            index_ty = ScalarType::U64;
        }
        let ptr = self.buffer_element_pointer(var, kind, i, index_ty)?;
        Ok((ptr, elem, storage))
    }

    /// The storage class of pointers into the buffer `base` denotes (`StorageBuffer` unless
    /// it is addressed).
    pub(crate) fn buffer_class(&self, base: &Expr) -> StorageClass {
        self.resource_param(base)
            .and_then(|p| self.cx.resource(p))
            .map_or(StorageClass::StorageBuffer, |r| r.kind.buffer_class())
    }

    /// The source name of the resource parameter an expression denotes.
    pub(crate) fn resource_name(&self, e: &Expr) -> String {
        self.resource_param(e)
            .and_then(|p| self.cx.resource(p))
            .map(|r| r.name.clone())
            .unwrap_or_default()
    }

    /// Reads push-constant member `member` (booleans are stored as `uint32`).
    pub(crate) fn load_push(&mut self, member: usize) -> Res<Word> {
        let span = self.func.span;
        let m = self.cx.globals.push_members[member].clone();
        let block = self
            .cx
            .globals
            .push_block
            .ok_or_else(|| unsupported(span, "internal error: no push constants"))?;
        let ptr_ty = self.cx.pointer_type(StorageClass::PushConstant, m.storage);
        let index = self.cx.const_u32(member as u32);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[block, index])?;
        let v = self.op(Op::Load, m.storage, &[ptr])?;
        if let Type::Struct(d) = &m.ty {
            return self.convert_pod(v, d, false, span);
        }
        let lanes = m.ty.lanes() as u8;
        self.read_stored(v, m.ty.elem_scalar().unwrap_or(ScalarType::U32), lanes)
    }

    fn load(&mut self, place: &Place, e: &Expr) -> Res<Word> {
        match place {
            Place::Local(_) if e.ty == Type::RayQuery => Err(unsupported(
                e.span,
                "a RayQuery used as a value (it is used only through its methods, `q.proceed()`)",
            )),
            Place::Local(l) => match self.slots.get(l.0).copied() {
                Some(Slot::Var(var)) => {
                    let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                    self.op(Op::Load, ty, &[var])
                }
                Some(Slot::Value(v)) => Ok(v),
                Some(Slot::Push(member)) => self.load_push(member),
                Some(Slot::Resource(_) | Slot::Shared(_)) => Err(unsupported(
                    e.span,
                    "a resource can only be indexed, passed to a helper or used as a receiver",
                )),
                Some(Slot::Unit) | None => Err(unsupported(e.span, "read of a void local")),
            },
            Place::Index { base, index } => {
                let (ptr, elem, storage) = if let Type::Shared(_) = base.ty {
                    // A read is not clamped: it cannot write outside the array, and in a
                    // tiled kernel's inner loop the clamp cost a third of sgemm's time on
                    // an H100 (docs/language.md, "Out-of-bounds accesses").
                    let i = self.expr(index)?;
                    self.shared_element_clamped(base, index, i, false)?
                } else if base.ty.is_resource() {
                    self.buffer_element(base, index)?
                } else {
                    return Err(host_only(base.span, &base.ty));
                };
                let guard = self.take_guard();
                let load = |s: &mut Self| s.op(Op::Load, storage, &[ptr]);
                let v = match guard {
                    Some(g) if g.readable => self.guarded_read(guard, storage, load)?,
                    _ => self.guarded(guard, Some(storage), load)?,
                };
                if let Type::Struct(d) = &e.ty {
                    return self.convert_pod(v, d, false, e.span);
                }
                self.stored_value(v, elem, storage, e.ty.lanes() as u8)
            }
            Place::Lane { base, lane } => self.load_lane(base, *lane, e),
            Place::Field { base, field } => self.load_field(base, *field, e),
        }
    }

    /// The value of `value` for a store to memory: a conversion of `float32` to `float16`
    /// at its top is a plain `OpFConvert`, since memory holds the 16-bit value (see
    /// `half_round`); anything else is [`Self::expr`].
    fn stored_expr(&mut self, value: &Expr) -> Res<Word> {
        match self.plain_f16_narrowing(value) {
            Some(r) => r,
            None => self.expr(value),
        }
    }

    /// `place = value`.
    pub(crate) fn store(&mut self, place: &Place, value: &Expr, span: Span) -> Res<()> {
        match place {
            Place::Local(_) if value.ty == Type::RayQuery => {
                if super::ray_query::is_create(value) {
                    // The variable is the query; a fresh one needs no instruction.
                    Ok(())
                } else {
                    Err(unsupported(
                        span,
                        "a RayQuery local given anything but `RayQuery.create()` (queries are not copied)",
                    ))
                }
            }
            Place::Local(l) => match self.slots.get(l.0).copied() {
                Some(Slot::Var(var)) => {
                    let v = self.expr(value)?;
                    self.cx.b.store(var, v, None, []).ice(span)
                }
                Some(Slot::Shared(current)) => self.bind_shared(l.0, current, value, span),
                Some(Slot::Resource(current)) => {
                    // Resource locals are aliases, resolved at compile time.
                    match (current, self.resource_param(value)) {
                        (_, None) => Err(unsupported(
                            span,
                            "a resource local must be assigned a resource parameter",
                        )),
                        (Some(old), Some(new)) if old != new => Err(unsupported(
                            span,
                            "a resource local cannot be reassigned to another resource",
                        )),
                        (_, Some(p)) => {
                            self.slots[l.0] = Slot::Resource(Some(p));
                            Ok(())
                        }
                    }
                }
                _ => Err(unsupported(
                    span,
                    "internal error: store to a read-only local",
                )),
            },
            Place::Index { base, index } => {
                let (ptr, elem, storage) = if let Type::Shared(_) = base.ty {
                    self.shared_element(base, index)?
                } else if base.ty.is_resource() {
                    self.buffer_element(base, index)?
                } else {
                    return Err(host_only(base.span, &base.ty));
                };
                let guard = self.take_guard();
                let v = self.stored_expr(value)?;
                let v = match &value.ty {
                    Type::Struct(d) => self.convert_pod(v, d, true, span)?,
                    _ => self.value_to_store(v, elem, storage, value.ty.lanes() as u8)?,
                };
                self.guarded(guard, None, |s| {
                    s.cx.b.store(ptr, v, None, []).ice(span).map(|_| 0)
                })?;
                Ok(())
            }
            Place::Lane { base, lane } => self.store_lane(base, *lane, value, span),
            Place::Field { .. } => self.store_pod_element_field(place, value, span),
        }
    }

    fn unary(&mut self, op: UnaryOp, a: &Expr, e: &Expr) -> Res<Word> {
        if let Type::Vector(..) = a.ty {
            return self.vector_unary(op, a, e);
        }
        let s = scalar_of(a)?;
        let ty = self.cx.value_type(s, e.span)?;
        let v = self.expr(a)?;
        let opcode = match (op, s) {
            (UnaryOp::Neg, s) if s.is_integer() => Op::SNegate,
            (UnaryOp::Neg, s) if s.is_float() => Op::FNegate,
            (UnaryOp::Not, ScalarType::Bool) | (UnaryOp::BitNot, ScalarType::Bool) => {
                Op::LogicalNot
            }
            (UnaryOp::BitNot, s) if s.is_integer() => Op::Not,
            _ => return Err(invalid(e.span, format!("{op:?} on `{s}`"))),
        };
        if matches!(opcode, Op::SNegate | Op::Not) && s.bits() < 32 {
            return self.narrow_in_32_bits(opcode, s, &[v], e.span);
        }
        self.op(opcode, ty, &[v])
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> Res<Word> {
        if let Type::Vector(..) | Type::Matrix(..) = a.ty {
            return self.vector_binary(op, a, b, e);
        }
        if let Type::Matrix(..) = b.ty {
            return self.vector_binary(op, a, b, e);
        }
        let s = scalar_of(a)?;
        let ty = self.cx.value_type(s, e.span)?;
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        if op.is_shift() {
            return self.shift(op, s, x, scalar_of(b)?, y, e.span);
        }
        if op.is_comparison() {
            return self.compare(op, s, x, y, e.span);
        }
        let int = s.is_integer();
        let float = s.is_float();
        let opcode = match op {
            BinaryOp::Add if int => Op::IAdd,
            BinaryOp::Sub if int => Op::ISub,
            BinaryOp::Mul if int => Op::IMul,
            BinaryOp::Div | BinaryOp::Rem if int => return self.int_divrem(op, s, x, y, e.span),
            BinaryOp::Add if float => Op::FAdd,
            BinaryOp::Sub if float => Op::FSub,
            BinaryOp::Mul if float => Op::FMul,
            BinaryOp::Div if float => Op::FDiv,
            // OpFRem takes the dividend's sign, like Java's `%`.
            BinaryOp::Rem if float => Op::FRem,
            BinaryOp::BitAnd if int => Op::BitwiseAnd,
            BinaryOp::BitOr if int => Op::BitwiseOr,
            BinaryOp::BitXor if int => Op::BitwiseXor,
            BinaryOp::BitAnd if s == ScalarType::Bool => Op::LogicalAnd,
            BinaryOp::BitOr if s == ScalarType::Bool => Op::LogicalOr,
            BinaryOp::BitXor if s == ScalarType::Bool => Op::LogicalNotEqual,
            _ => return Err(invalid(e.span, format!("{op:?} on `{s}`"))),
        };
        if int && s.bits() < 32 {
            return self.narrow_in_32_bits(opcode, s, &[x, y], e.span);
        }
        let r = self.op(opcode, ty, &[x, y])?;
        if float && !self.func.fast_math {
            // SPEC §4: each float op rounds once; no FMA contraction without @FastMath.
            self.cx.b.decorate(r, Decoration::NoContraction, []);
        }
        Ok(r)
    }

    /// `a && b` / `a || b`: `b` is evaluated only when needed, the result is an `OpPhi`.
    fn short_circuit(&mut self, a: &Expr, b: &Expr, is_and: bool) -> Res<Word> {
        let bool_ty = self.cx.bool_type();
        let x = self.expr(a)?;
        let from_a = self.current_label()?;
        let rhs = self.cx.b.id();
        let merge = self.cx.b.id();
        if is_and {
            self.selection(x, rhs, merge, merge)?;
        } else {
            self.selection(x, merge, rhs, merge)?;
        }
        self.begin(rhs)?;
        let y = self.expr(b)?;
        let from_b = self.current_label()?;
        self.branch(merge)?;
        self.begin(merge)?;
        // Coming straight from `a`, the result is `a` itself (false for &&, true for ||).
        let short = self.cx.const_bool(!is_and);
        self.cx
            .b
            .phi(bool_ty, None, [(short, from_a), (y, from_b)])
            .ice(a.span)
    }

    /// `cond ? then : otherwise`, evaluating only the chosen arm.
    fn select(&mut self, cond: &Expr, then: &Expr, otherwise: &Expr, e: &Expr) -> Res<Word> {
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        if e.ty == Type::Void {
            return Err(unsupported(e.span, "a `?:` without a value"));
        }
        let c = self.expr(cond)?;
        let [t, f, merge] = [(); 3].map(|_| self.cx.b.id());
        self.selection(c, t, f, merge)?;
        self.begin(t)?;
        let tv = self.expr(then)?;
        let from_t = self.current_label()?;
        self.branch(merge)?;
        self.begin(f)?;
        let fv = self.expr(otherwise)?;
        let from_f = self.current_label()?;
        self.branch(merge)?;
        self.begin(merge)?;
        self.cx
            .b
            .phi(ty, None, [(tv, from_t), (fv, from_f)])
            .ice(e.span)
    }

    /// Call of a device helper: resource arguments select the specialization, scalars are
    /// passed by value.
    fn call(&mut self, func: crate::ir::FunctionId, args: &[Expr], e: &Expr) -> Res<Word> {
        let ir = self.cx.ir;
        let callee = ir
            .functions
            .get(func.0)
            .ok_or_else(|| unsupported(e.span, "call of an unknown function"))?;
        match callee.kind {
            FunctionKind::Device => {}
            FunctionKind::Host => {
                return Err(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    e.span,
                    format!(
                        "host method `{}` cannot be called from device code",
                        callee.name
                    ),
                ))
            }
            FunctionKind::Kernel => {
                return Err(unsupported(
                    e.span,
                    format!(
                        "kernel `{}` cannot be called; launch it from host code",
                        callee.name
                    ),
                ))
            }
        }
        super::check_shape(callee)?;
        if args.len() != callee.param_count {
            return Err(Diagnostic::error(
                Code::ArgumentCount,
                e.span,
                "wrong number of arguments",
            ));
        }
        let mut resources = Vec::new();
        let mut values = Vec::new();
        for (arg, param) in args.iter().zip(callee.params()) {
            if let Type::Shared(_) = param.ty {
                let handle = match &arg.kind {
                    ExprKind::Load(Place::Local(l)) => match self.slots.get(l.0) {
                        Some(Slot::Shared(Some(a))) => Some(a.handle),
                        _ => None,
                    },
                    _ => None,
                };
                let h = handle.ok_or_else(|| {
                    unsupported(
                        arg.span,
                        "a Shared<T> argument must be a declared shared array",
                    )
                })?;
                resources.push(Some(super::memory::SHARED_HANDLE_BASE + h));
            } else if param.ty.is_resource() {
                let p = self.resource_param(arg).ok_or_else(|| {
                    unsupported(arg.span, "a resource argument must be a resource parameter")
                })?;
                resources.push(Some(p));
            } else {
                resources.push(None);
                values.push(self.expr(arg)?);
            }
        }
        let ret = self.cx.ir_value_type(&callee.return_type, e.span)?;
        let id = self.cx.helper_id((func, resources));
        self.cx.b.function_call(ret, None, id, values).ice(e.span)
    }
}

/// An `InvalidOperator` error (sema normally prevents these).
pub(crate) fn invalid(span: Span, what: String) -> Diagnostic {
    Diagnostic::error(
        Code::InvalidOperator,
        span,
        format!("unsupported operation: {what}"),
    )
}
