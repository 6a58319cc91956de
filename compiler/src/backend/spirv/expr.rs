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
                let v = self.expr(a)?;
                self.convert(v, scalar_of(a)?, scalar_of(e)?, e.span)
            }
            ExprKind::Call { func, args } => self.call(*func, args, e),
            ExprKind::Intrinsic { op, args } => self.intrinsic(*op, args, e),
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
    pub(crate) fn resource_of(&self, e: &Expr) -> Res<(Word, ResourceKind)> {
        self.resource_param(e)
            .and_then(|p| self.cx.resource(p))
            .map(|r| (r.var, r.kind))
            .ok_or_else(|| {
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
        let (var, kind) = self.resource_of(base)?;
        let ResourceKind::Buffer { elem, storage, .. } = kind else {
            return Err(unsupported(
                base.span,
                "only buffers can be indexed in device code",
            ));
        };
        let i = self.expr(index)?;
        let ptr_ty = self.cx.pointer_type(StorageClass::StorageBuffer, storage);
        let zero = self.cx.const_u32(0);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[var, zero, i])?;
        Ok((ptr, elem, storage))
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
        let lanes = m.ty.lanes() as u8;
        self.read_stored(v, m.ty.elem_scalar().unwrap_or(ScalarType::U32), lanes)
    }

    /// A stored value in its register form: a `uint32` (or vector of them) read back as a
    /// boolean (`!= 0`), the 16 bits of a `bfloat16` widened to the float32 they are the top
    /// half of.
    pub(crate) fn read_stored(&mut self, v: Word, ty: ScalarType, lanes: u8) -> Res<Word> {
        match ty {
            ScalarType::Bool if lanes > 1 => {
                let bool_ty = self.cx.bool_type();
                let zero = self.cx.const_u32(0);
                let bvec = self.cx.vector_type(bool_ty, u32::from(lanes));
                let uint = self.cx.u32_type();
                let uvec = self.cx.vector_type(uint, u32::from(lanes));
                let zeros = self.cx.const_composite(uvec, vec![zero; lanes as usize]);
                self.op(Op::INotEqual, bvec, &[v, zeros])
            }
            ScalarType::Bool => {
                let bool_ty = self.cx.bool_type();
                let zero = self.cx.const_u32(0);
                self.op(Op::INotEqual, bool_ty, &[v, zero])
            }
            ScalarType::BF16 if lanes > 1 => Err(unsupported(
                self.func.span,
                "vectors of bfloat16 are not supported yet",
            )),
            ScalarType::BF16 => {
                let u32_ty = self.cx.u32_type();
                let f32_ty = self.cx.float_type(32);
                let wide = self.op(Op::UConvert, u32_ty, &[v])?;
                let sixteen = self.cx.const_u32(16);
                let bits = self.op(Op::ShiftLeftLogical, u32_ty, &[wide, sixteen])?;
                self.op(Op::Bitcast, f32_ty, &[bits])
            }
            _ => Ok(v),
        }
    }

    /// A value loaded from memory of SPIR-V type `storage` in its register form; float32
    /// elements kept as bits (a bit view, for compare-exchange atomics) are bitcast back.
    pub(crate) fn stored_value(
        &mut self,
        v: Word,
        elem: ScalarType,
        storage: Word,
        lanes: u8,
    ) -> Res<Word> {
        if elem == ScalarType::F32 && lanes == 1 && storage == self.cx.u32_type() {
            let f = self.cx.float_type(32);
            return self.op(Op::Bitcast, f, &[v]);
        }
        self.read_stored(v, elem, lanes)
    }

    /// A register value in its stored form, bit views included (see [`Self::stored_value`]).
    pub(crate) fn value_to_store(
        &mut self,
        v: Word,
        elem: ScalarType,
        storage: Word,
        lanes: u8,
    ) -> Res<Word> {
        if elem == ScalarType::F32 && lanes == 1 && storage == self.cx.u32_type() {
            return self.op(Op::Bitcast, storage, &[v]);
        }
        self.write_stored(v, elem, storage, lanes)
    }

    /// A register value in its stored form (inverse of [`Self::read_stored`]); `storage` is
    /// the stored type (a `uint32` vector for a boolean vector).
    pub(crate) fn write_stored(
        &mut self,
        v: Word,
        ty: ScalarType,
        storage: Word,
        lanes: u8,
    ) -> Res<Word> {
        match ty {
            ScalarType::Bool => {
                let mut one = self.cx.const_u32(1);
                let mut zero = self.cx.const_u32(0);
                if lanes > 1 {
                    one = self.cx.const_composite(storage, vec![one; lanes as usize]);
                    zero = self.cx.const_composite(storage, vec![zero; lanes as usize]);
                }
                self.op(Op::Select, storage, &[v, one, zero])
            }
            ScalarType::BF16 if lanes > 1 => Err(unsupported(
                self.func.span,
                "vectors of bfloat16 are not supported yet",
            )),
            ScalarType::BF16 => {
                // The register already holds a bfloat16-exact float32: keep the top 16 bits.
                let u32_ty = self.cx.u32_type();
                let bits = self.op(Op::Bitcast, u32_ty, &[v])?;
                let sixteen = self.cx.const_u32(16);
                let high = self.op(Op::ShiftRightLogical, u32_ty, &[bits, sixteen])?;
                self.op(Op::UConvert, storage, &[high])
            }
            _ => Ok(v),
        }
    }

    /// Rounds a float32 register to bfloat16 precision, to nearest even (NaN stays NaN).
    pub(crate) fn round_bf16(&mut self, v: Word) -> Res<Word> {
        let u32_ty = self.cx.u32_type();
        let f32_ty = self.cx.float_type(32);
        let bool_ty = self.cx.bool_type();
        let bits = self.op(Op::Bitcast, u32_ty, &[v])?;
        let sixteen = self.cx.const_u32(16);
        let one = self.cx.const_u32(1);
        let shifted = self.op(Op::ShiftRightLogical, u32_ty, &[bits, sixteen])?;
        let lsb = self.op(Op::BitwiseAnd, u32_ty, &[shifted, one])?;
        let half = self.cx.const_u32(0x7FFF);
        let bias = self.op(Op::IAdd, u32_ty, &[half, lsb])?;
        let rounded = self.op(Op::IAdd, u32_ty, &[bits, bias])?;
        let quiet = self.cx.const_u32(0x0040_0000);
        let nan_bits = self.op(Op::BitwiseOr, u32_ty, &[bits, quiet])?;
        let is_nan = self.op(Op::IsNan, bool_ty, &[v])?;
        let chosen = self.op(Op::Select, u32_ty, &[is_nan, nan_bits, rounded])?;
        let mask = self.cx.const_u32(0xFFFF_0000);
        let out = self.op(Op::BitwiseAnd, u32_ty, &[chosen, mask])?;
        self.op(Op::Bitcast, f32_ty, &[out])
    }

    fn load(&mut self, place: &Place, e: &Expr) -> Res<Word> {
        match place {
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
                    self.shared_element(base, index)?
                } else if base.ty.is_resource() {
                    self.buffer_element(base, index)?
                } else {
                    return Err(host_only(base.span, &base.ty));
                };
                let v = self.op(Op::Load, storage, &[ptr])?;
                self.stored_value(v, elem, storage, e.ty.lanes() as u8)
            }
            Place::Lane { base, lane } => self.load_lane(base, *lane, e),
            Place::Field { base, field } => self.load_field(base, *field, e),
        }
    }

    /// `place = value`.
    pub(crate) fn store(&mut self, place: &Place, value: &Expr, span: Span) -> Res<()> {
        match place {
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
                let v = self.expr(value)?;
                let v = self.value_to_store(v, elem, storage, value.ty.lanes() as u8)?;
                self.cx.b.store(ptr, v, None, []).ice(span)
            }
            Place::Lane { base, lane } => self.store_lane(base, *lane, value, span),
            Place::Field { .. } => Err(unsupported(
                span,
                "POD parameters are read-only in device code",
            )),
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
        let r = self.op(opcode, ty, &[x, y])?;
        if float && !self.func.fast_math {
            // SPEC §4: each float op rounds once; no FMA contraction without @FastMath.
            self.cx.b.decorate(r, Decoration::NoContraction, []);
        }
        Ok(r)
    }

    /// Integer `/` and `%` without undefined behavior: the divisor is replaced by 1 when it
    /// is 0 (result then forced to 0) or when a signed `MIN / -1` would overflow (`MIN / 1`
    /// = `MIN` and `MIN % 1` = 0 are exactly the wrapped results).
    pub(crate) fn int_divrem(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Word,
        y: Word,
        span: Span,
    ) -> Res<Word> {
        let ty = self.cx.value_type(s, span)?;
        let bool_ty = self.cx.bool_type();
        let zero = self.cx.const_int(s, 0, span)?;
        let one = self.cx.const_int(s, 1, span)?;
        let by_zero = self.op(Op::IEqual, bool_ty, &[y, zero])?;
        let signed = s.is_signed_integer();
        let mut guard = by_zero;
        if signed {
            let min = self.cx.const_int(s, 1i128 << (s.bits() - 1), span)?;
            let minus_one = self.cx.const_int(s, -1, span)?;
            let x_min = self.op(Op::IEqual, bool_ty, &[x, min])?;
            let y_m1 = self.op(Op::IEqual, bool_ty, &[y, minus_one])?;
            let overflow = self.op(Op::LogicalAnd, bool_ty, &[x_min, y_m1])?;
            guard = self.op(Op::LogicalOr, bool_ty, &[by_zero, overflow])?;
        }
        let divisor = self.op(Op::Select, ty, &[guard, one, y])?;
        let q = match (op, signed) {
            (BinaryOp::Div, true) => self.op(Op::SDiv, ty, &[x, divisor])?,
            (BinaryOp::Div, false) => self.op(Op::UDiv, ty, &[x, divisor])?,
            // Signed `%` is `x - (x / y) * y` rather than OpSRem: NVIDIA's 580 driver returned
            // -100 for -100 srem -31 and 63 for -129 srem 64 (measured on the H200), while
            // OpSDiv matched Java on every case. The identity is exact with wrapping ops.
            (_, true) => {
                let quot = self.op(Op::SDiv, ty, &[x, divisor])?;
                let back = self.op(Op::IMul, ty, &[quot, divisor])?;
                self.op(Op::ISub, ty, &[x, back])?
            }
            (_, false) => self.op(Op::UMod, ty, &[x, divisor])?,
        };
        self.op(Op::Select, ty, &[by_zero, zero, q])
    }

    /// Shifts: the count is converted to the left operand's type and masked to the width.
    fn shift(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Word,
        cs: ScalarType,
        c: Word,
        span: Span,
    ) -> Res<Word> {
        if !s.is_integer() || !cs.is_integer() {
            return Err(invalid(span, format!("shift of `{s}` by `{cs}`")));
        }
        let ty = self.cx.value_type(s, span)?;
        let count = self.convert_int(c, cs, s, span)?;
        let mask = self.cx.const_int(s, i128::from(s.bits() - 1), span)?;
        let count = self.op(Op::BitwiseAnd, ty, &[count, mask])?;
        let opcode = match op {
            BinaryOp::Shl => Op::ShiftLeftLogical,
            BinaryOp::Shr if s.is_signed_integer() => Op::ShiftRightArithmetic,
            _ => Op::ShiftRightLogical,
        };
        self.op(opcode, ty, &[x, count])
    }

    pub(crate) fn compare(
        &mut self,
        op: BinaryOp,
        s: ScalarType,
        x: Word,
        y: Word,
        span: Span,
    ) -> Res<Word> {
        use BinaryOp::*;
        let signed = s.is_signed_integer();
        let opcode = if s == ScalarType::Bool {
            match op {
                Eq => Op::LogicalEqual,
                Ne => Op::LogicalNotEqual,
                _ => return Err(invalid(span, format!("{op:?} on `boolean`"))),
            }
        } else if s.is_float() {
            // Ordered, except `!=`, which is true when either side is NaN.
            match op {
                Eq => Op::FOrdEqual,
                Ne => Op::FUnordNotEqual,
                Lt => Op::FOrdLessThan,
                Le => Op::FOrdLessThanEqual,
                Gt => Op::FOrdGreaterThan,
                _ => Op::FOrdGreaterThanEqual,
            }
        } else {
            match (op, signed) {
                (Eq, _) => Op::IEqual,
                (Ne, _) => Op::INotEqual,
                (Lt, true) => Op::SLessThan,
                (Lt, false) => Op::ULessThan,
                (Le, true) => Op::SLessThanEqual,
                (Le, false) => Op::ULessThanEqual,
                (Gt, true) => Op::SGreaterThan,
                (Gt, false) => Op::UGreaterThan,
                (_, true) => Op::SGreaterThanEqual,
                (_, false) => Op::UGreaterThanEqual,
            }
        };
        let bool_ty = self.cx.bool_type();
        self.op(opcode, bool_ty, &[x, y])
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

    /// Numeric conversion (SPEC §3).
    pub(crate) fn convert(
        &mut self,
        v: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        // bfloat16 lives in float32 registers; `expr` rounds results to bfloat16.
        let bf = |s: ScalarType| {
            if s == ScalarType::BF16 {
                ScalarType::F32
            } else {
                s
            }
        };
        let (from, to) = (bf(from), bf(to));
        if from == to {
            return Ok(v);
        }
        if from == ScalarType::Bool || to == ScalarType::Bool {
            return Err(invalid(span, format!("conversion from `{from}` to `{to}`")));
        }
        let ty = self.cx.value_type(to, span)?;
        self.cx.value_type(from, span)?;
        match (from.is_float(), to.is_float()) {
            (false, false) => self.convert_int(v, from, to, span),
            (false, true) if from.is_signed_integer() => self.op(Op::ConvertSToF, ty, &[v]),
            (false, true) => self.op(Op::ConvertUToF, ty, &[v]),
            (true, true) => self.op(Op::FConvert, ty, &[v]),
            (true, false) => self.float_to_int(v, from, to, span),
        }
    }

    /// Integer to integer: low bits kept when narrowing, sign- or zero-extension by the
    /// source's signedness when widening, a bitcast when only the signedness changes.
    pub(crate) fn convert_int(
        &mut self,
        v: Word,
        from: ScalarType,
        to: ScalarType,
        span: Span,
    ) -> Res<Word> {
        if from == to {
            return Ok(v);
        }
        let ty = self.cx.value_type(to, span)?;
        let (fb, tb) = (from.bits(), to.bits());
        if fb == tb {
            return self.op(Op::Bitcast, ty, &[v]);
        }
        if tb < fb || from.is_signed_integer() {
            // OpSConvert truncates or sign-extends; OpUConvert needs an unsigned result.
            let opcode = if to.is_signed_integer() || tb > fb {
                Op::SConvert
            } else {
                Op::UConvert
            };
            return self.op(opcode, ty, &[v]);
        }
        let wide_unsigned = self.cx.int_type(tb, false);
        let z = self.op(Op::UConvert, wide_unsigned, &[v])?;
        if to.is_signed_integer() {
            self.op(Op::Bitcast, ty, &[z])
        } else {
            Ok(z)
        }
    }

    /// Float to integer, truncating toward zero and saturating, NaN → 0, with no
    /// out-of-range `OpConvertFTo*` (whose result SPIR-V leaves undefined): clamp in the
    /// float domain to the largest floats inside the integer range, then fix up values at or
    /// beyond the range ends and NaN with selects.
    fn float_to_int(&mut self, v: Word, from: ScalarType, to: ScalarType, span: Span) -> Res<Word> {
        let fty = self.cx.value_type(from, span)?;
        let ity = self.cx.value_type(to, span)?;
        let bool_ty = self.cx.bool_type();
        let signed = to.is_signed_integer();
        let n = to.bits();
        let max_finite = match from {
            ScalarType::F16 => 65504.0,
            ScalarType::F32 => f64::from(f32::MAX),
            _ => f64::MAX,
        };
        // 2^(N-1) or 2^N: the first value above the range.
        let limit = 2f64.powi(if signed { n as i32 - 1 } else { n as i32 });
        let below_limit = (limit - limit / 2f64.powi(from.mantissa_bits() as i32)).min(max_finite);
        let (threshold, representable) = if limit <= max_finite {
            (limit, true)
        } else {
            (f64::INFINITY, false)
        };
        let lower = if signed {
            (-limit).max(-max_finite)
        } else {
            0.0
        };
        let lower_c = self.cx.const_float(from, lower, span)?;
        let upper_c = self.cx.const_float(from, below_limit, span)?;
        let threshold_c = self.cx.const_float(from, threshold, span)?;
        let (lo, hi) = if signed {
            (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
        } else {
            (0, (1i128 << n) - 1)
        };
        let hi_c = self.cx.const_int(to, hi, span)?;
        let zero_c = self.cx.const_int(to, 0, span)?;
        // NaN fails the ordered test and becomes `lower`; fixed up last.
        let ge = self.op(Op::FOrdGreaterThanEqual, bool_ty, &[v, lower_c])?;
        let c = self.op(Op::Select, fty, &[ge, v, lower_c])?;
        let le = self.op(Op::FOrdLessThanEqual, bool_ty, &[c, upper_c])?;
        let c = self.op(Op::Select, fty, &[le, c, upper_c])?;
        let opcode = if signed {
            Op::ConvertFToS
        } else {
            Op::ConvertFToU
        };
        let mut r = self.op(opcode, ity, &[c])?;
        let over = self.op(Op::FOrdGreaterThanEqual, bool_ty, &[v, threshold_c])?;
        r = self.op(Op::Select, ity, &[over, hi_c, r])?;
        if signed && !representable {
            // The range's low end is not a finite float of this type: only -inf is below.
            let neg_inf = self.cx.const_float(from, f64::NEG_INFINITY, span)?;
            let lo_c = self.cx.const_int(to, lo, span)?;
            let under = self.op(Op::FOrdLessThanEqual, bool_ty, &[v, neg_inf])?;
            r = self.op(Op::Select, ity, &[under, lo_c, r])?;
        }
        let nan = self.op(Op::IsNan, bool_ty, &[v])?;
        self.op(Op::Select, ity, &[nan, zero_c, r])
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
fn invalid(span: Span, what: String) -> Diagnostic {
    Diagnostic::error(
        Code::InvalidOperator,
        span,
        format!("unsupported operation: {what}"),
    )
}
