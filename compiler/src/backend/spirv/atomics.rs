//! Atomics on buffer and shared elements (SPEC §6). They use `Device` scope on buffers and
//! `Workgroup` scope on shared arrays. Float atomics other than a native add run as a
//! compare-exchange loop on the element's bits; such buffers and arrays are declared with
//! integer elements (a bit view) and every plain access bitcasts.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, LoopControl, Op, Word};

use super::function::FnCx;
use super::memory::{
    order_bits, BUFFER_FLOAT_ADD, SCOPE_DEVICE, SCOPE_WORKGROUP, SEM_ACQUIRE, SEM_ACQ_REL,
    SEM_RELEASE, SEM_UNIFORM_MEMORY, SEM_WORKGROUP_MEMORY, SHARED_FLOAT_ADD,
};
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::Span;
use crate::ir::{AtomicOp, Expr, ScalarType, Type};

/// Whether an atomic on a receiver of type `ty` must run on a bit view (a compare-exchange
/// loop or an integer exchange) given native float add support.
pub(crate) fn atomic_needs_bits(op: AtomicOp, ty: &Type, native_add: bool) -> bool {
    let elem = match ty {
        Type::Buffer(e) => e.as_scalar(),
        Type::Shared(e) => e.as_scalar(),
        _ => None,
    };
    elem.is_some_and(|s| s.is_float())
        && !(native_add && matches!(op, AtomicOp::Add | AtomicOp::Sub))
}

/// The failure semantics of a compare-exchange with success order `order`: without
/// release, since a failed exchange writes nothing.
fn unequal_semantics(order: u32, class_bit: u32) -> u32 {
    match order {
        0 | SEM_RELEASE => 0,
        SEM_ACQ_REL => SEM_ACQUIRE | class_bit,
        o => o | class_bit,
    }
}

impl FnCx<'_, '_> {
    /// An atomic on a buffer or shared element; returns the old value.
    pub(crate) fn atomic(&mut self, op: AtomicOp, args: &[Expr], e: &Expr) -> Res<Word> {
        let span = e.span;
        // Receiver, index, one or two values, then the optional order.
        let base = if op == AtomicOp::CompareExchange {
            4
        } else {
            3
        };
        if args.len() != base && args.len() != base + 1 {
            return Err(unsupported(span, "internal error: atomic arity"));
        }
        let (recv, index) = (&args[0], &args[1]);
        let order = order_bits(args.get(base))?;
        let shared = matches!(recv.ty, Type::Shared(_));
        let (ptr, elem, storage) = if shared {
            self.shared_element(recv, index)?
        } else {
            self.buffer_element(recv, index)?
        };
        // Checked mode: the whole atomic (operands included) runs only in bounds.
        if let Some(guard) = self.take_guard() {
            let ty = self.cx.ir_value_type(&e.ty, span)?;
            let target = (ptr, elem, storage, shared, order);
            return self.guarded(Some(guard), Some(ty), |s| s.atomic_at(op, args, e, target));
        }
        self.atomic_at(op, args, e, (ptr, elem, storage, shared, order))
    }

    /// The atomic `op` on the element `ptr` (of `elem`, stored as `storage`).
    fn atomic_at(
        &mut self,
        op: AtomicOp,
        args: &[Expr],
        e: &Expr,
        (ptr, elem, storage, shared, order): (Word, ScalarType, Word, bool, u32),
    ) -> Res<Word> {
        let span = e.span;
        let (scope, class_bit) = if shared {
            (SCOPE_WORKGROUP, SEM_WORKGROUP_MEMORY)
        } else {
            (SCOPE_DEVICE, SEM_UNIFORM_MEMORY)
        };
        let sem = if order == 0 { 0 } else { order | class_bit };
        if elem.bits() == 64 {
            self.cx.features.require(Capability::Int64Atomics);
            self.cx.features.vulkan_feature(if shared {
                "shaderSharedInt64Atomics"
            } else {
                "shaderBufferInt64Atomics"
            });
        }
        let scope_c = self.cx.const_u32(scope);
        let sem_c = self.cx.const_u32(sem);
        let value = self.expr(&args[2])?;
        let ids = |v: &[Word]| v.iter().map(|&w| Operand::IdRef(w)).collect::<Vec<_>>();
        if op == AtomicOp::CompareExchange {
            let desired = self.expr(&args[3])?;
            let uneq_c = self.cx.const_u32(unequal_semantics(order, class_bit));
            let expected = self.value_to_store(value, elem, storage, 1)?;
            let desired = self.value_to_store(desired, elem, storage, 1)?;
            let old = self.emit(
                Op::AtomicCompareExchange,
                Some(storage),
                ids(&[ptr, scope_c, sem_c, uneq_c, desired, expected]),
            )?;
            return self.stored_value(old, elem, storage, 1);
        }
        if elem.is_float() {
            let fence = (scope, sem);
            let consts = [scope_c, sem_c];
            return self.float_atomic(op, ptr, elem, storage, value, consts, fence, shared, span);
        }
        let signed = elem.is_signed_integer();
        let opcode = match op {
            AtomicOp::Add => Op::AtomicIAdd,
            AtomicOp::Sub => Op::AtomicISub,
            AtomicOp::Min if signed => Op::AtomicSMin,
            AtomicOp::Min => Op::AtomicUMin,
            AtomicOp::Max if signed => Op::AtomicSMax,
            AtomicOp::Max => Op::AtomicUMax,
            AtomicOp::And => Op::AtomicAnd,
            AtomicOp::Or => Op::AtomicOr,
            AtomicOp::Xor => Op::AtomicXor,
            AtomicOp::Exchange | AtomicOp::CompareExchange => Op::AtomicExchange,
        };
        self.emit(opcode, Some(storage), ids(&[ptr, scope_c, sem_c, value]))
    }

    /// A float atomic: a native add, an integer exchange of the bits, or a
    /// compare-exchange loop on the bits.
    #[allow(clippy::too_many_arguments)]
    fn float_atomic(
        &mut self,
        op: AtomicOp,
        ptr: Word,
        elem: ScalarType,
        storage: Word,
        value: Word,
        [scope, sem]: [Word; 2],
        fence: (u32, u32),
        shared: bool,
        span: Span,
    ) -> Res<Word> {
        let fty = self.cx.value_type(elem, span)?;
        let ids = |v: &[Word]| v.iter().map(|&w| Operand::IdRef(w)).collect::<Vec<_>>();
        if storage == fty {
            if !matches!(op, AtomicOp::Add | AtomicOp::Sub) {
                // The access analysis gives every other float atomic a bit view.
                return Err(unsupported(
                    span,
                    format!("internal error: atomic {op:?} on a float view"),
                ));
            }
            // Native: only add (and sub as the add of the negation, which is exact).
            let v = if op == AtomicOp::Sub {
                self.op(Op::FNegate, fty, &[value])?
            } else {
                value
            };
            self.cx.features.require(Capability::AtomicFloat32AddEXT);
            self.cx
                .features
                .extension("SPV_EXT_shader_atomic_float_add");
            self.cx.features.vulkan_feature(if shared {
                SHARED_FLOAT_ADD
            } else {
                BUFFER_FLOAT_ADD
            });
            return self.emit(Op::AtomicFAddEXT, Some(fty), ids(&[ptr, scope, sem, v]));
        }
        if op == AtomicOp::Exchange {
            let bits = self.op(Op::Bitcast, storage, &[value])?;
            let old = self.emit(
                Op::AtomicExchange,
                Some(storage),
                ids(&[ptr, scope, sem, bits]),
            )?;
            return self.op(Op::Bitcast, fty, &[old]);
        }
        // The compare-exchange loop. Its atomics are relaxed; the order becomes fences
        // around the loop (a release fence before, an acquire fence after), which orders the
        // successful exchange as the ordered atomic would, and keeps memory barriers out of
        // divergent control flow (lavapipe loses updates with ordered atomics in the loop).
        let relaxed = self.cx.const_u32(0);
        let (scope_v, sem_v) = fence;
        let class = sem_v & (SEM_UNIFORM_MEMORY | SEM_WORKGROUP_MEMORY);
        if sem_v & (SEM_RELEASE | SEM_ACQ_REL) != 0 {
            let (sc, fs) = (
                self.cx.const_u32(scope_v),
                self.cx.const_u32(SEM_RELEASE | class),
            );
            self.cx.b.memory_barrier(sc, fs).ice(span)?;
        }
        let old = self.compare_exchange_loop([ptr, storage, scope, relaxed], span, |cx, old| {
            let oldf = cx.op(Op::Bitcast, fty, &[old])?;
            let bool_ty = cx.cx.bool_type();
            let newf = match op {
                AtomicOp::Add => cx.op(Op::FAdd, fty, &[oldf, value])?,
                AtomicOp::Sub => cx.op(Op::FSub, fty, &[oldf, value])?,
                AtomicOp::Min => {
                    let less = cx.op(Op::FOrdLessThan, bool_ty, &[value, oldf])?;
                    cx.op(Op::Select, fty, &[less, value, oldf])?
                }
                AtomicOp::Max => {
                    let more = cx.op(Op::FOrdGreaterThan, bool_ty, &[value, oldf])?;
                    cx.op(Op::Select, fty, &[more, value, oldf])?
                }
                _ => {
                    return Err(unsupported(
                        span,
                        format!("atomic {op:?} on float elements"),
                    ))
                }
            };
            cx.op(Op::Bitcast, storage, &[newf])
        })?;
        if sem_v & (SEM_ACQUIRE | SEM_ACQ_REL) != 0 {
            let (sc, fs) = (
                self.cx.const_u32(scope_v),
                self.cx.const_u32(SEM_ACQUIRE | class),
            );
            self.cx.b.memory_barrier(sc, fs).ice(span)?;
        }
        self.op(Op::Bitcast, fty, &[old])
    }

    /// A compare-exchange loop on the word at `ptr` of type `storage`, with atomics at `scope`
    /// and `relaxed` semantics (ids): `update` emits the new word from the old one inside the
    /// loop, which repeats until the exchange finds the word unchanged. Returns the old word of
    /// the successful exchange. Ordering, when wanted, is the caller's fences around the loop.
    pub(super) fn compare_exchange_loop(
        &mut self,
        [ptr, storage, scope, relaxed]: [Word; 4],
        span: Span,
        update: impl FnOnce(&mut Self, Word) -> Res<Word>,
    ) -> Res<Word> {
        let ids = |v: &[Word]| v.iter().map(|&w| Operand::IdRef(w)).collect::<Vec<_>>();
        let init = self.emit(Op::AtomicLoad, Some(storage), ids(&[ptr, scope, relaxed]))?;
        let pre = self.current_label()?;
        let [header, body, cont, merge] = [(); 4].map(|_| self.cx.b.id());
        let got = self.cx.b.id();
        self.branch(header)?;
        self.begin(header)?;
        let old = self
            .cx
            .b
            .phi(storage, None, [(init, pre), (got, cont)])
            .ice(span)?;
        self.cx
            .b
            .loop_merge(merge, cont, LoopControl::NONE, [])
            .ice(span)?;
        self.branch(body)?;
        self.begin(body)?;
        let new = update(self, old)?;
        self.emit_as(
            got,
            Op::AtomicCompareExchange,
            Some(storage),
            ids(&[ptr, scope, relaxed, relaxed, new, old]),
        )?;
        let boolean = self.cx.bool_type();
        let done = self.op(Op::IEqual, boolean, &[got, old])?;
        self.cx
            .b
            .branch_conditional(done, merge, cont, [])
            .ice(span)?;
        self.begin(cont)?;
        self.branch(header)?;
        self.begin(merge)?;
        Ok(old)
    }
}
