//! Atomics on buffer and shared elements (SPEC §6). They use `Device` scope on buffers and
//! `Workgroup` scope on shared arrays. Float atomics other than a native add run as a
//! compare-exchange loop on the element's bits; such buffers and arrays are declared with
//! integer elements (a bit view) and every plain access bitcasts.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, GroupOperation, LoopControl, Op, Word};

use super::function::FnCx;
use super::memory::{
    order_bits, BUFFER_FLOAT_ADD, BUFFER_FLOAT_MIN_MAX, SCOPE_DEVICE, SCOPE_WORKGROUP, SEM_ACQUIRE,
    SEM_ACQ_REL, SEM_RELEASE, SEM_UNIFORM_MEMORY, SEM_WORKGROUP_MEMORY, SHARED_FLOAT_ADD,
    SHARED_FLOAT_MIN_MAX,
};
use super::wave::SCOPE_SUBGROUP;
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::Span;
use crate::ir::{AtomicOp, Expr, ScalarType, Type};

/// Which float32 atomics the device runs natively on one kind of memory (buffers or
/// workgroup memory); the others run as compare-exchange loops on the bits.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NativeFloatAtomics {
    /// `atomicAdd`/`atomicSub` (`VK_EXT_shader_atomic_float`).
    pub add: bool,
    /// `atomicMin`/`atomicMax` (`VK_EXT_shader_atomic_float2`).
    pub min_max: bool,
}

/// Whether an atomic on a receiver of type `ty` must run on a bit view (a compare-exchange
/// loop or an integer exchange) given the device's native float32 atomics. One such atomic
/// gives the whole buffer or array a bit view, so every float atomic on it then loops.
pub(crate) fn atomic_needs_bits(op: AtomicOp, ty: &Type, native: NativeFloatAtomics) -> bool {
    let elem = match ty {
        Type::Buffer(e) => e.as_scalar(),
        Type::Shared(e) => e.as_scalar(),
        _ => None,
    };
    let Some(elem) = elem.filter(|s| s.is_float()) else {
        return false;
    };
    let f32 = elem == ScalarType::F32;
    let natively = match op {
        AtomicOp::Add | AtomicOp::Sub => native.add,
        AtomicOp::Min | AtomicOp::Max => native.min_max,
        _ => false,
    };
    !(f32 && natively)
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
        let index_expr = index;
        let index = self.expr(index_expr)?;
        let (ptr, elem, storage) = if shared {
            self.shared_element_at(recv, index_expr, index)?
        } else {
            self.buffer_element_at(recv, index_expr, index)?
        };
        // Checked mode: the whole atomic (operands included) runs only in bounds.
        if let Some(guard) = self.take_guard() {
            let ty = self.cx.ir_value_type(&e.ty, span)?;
            let target = ((ptr, index), elem, storage, shared, order);
            return self.guarded(Some(guard), Some(ty), |s| s.atomic_at(op, args, e, target));
        }
        self.atomic_at(op, args, e, ((ptr, index), elem, storage, shared, order))
    }

    /// The atomic `op` on the element `ptr` at index `index` (of `elem`, stored as
    /// `storage`).
    fn atomic_at(
        &mut self,
        op: AtomicOp,
        args: &[Expr],
        e: &Expr,
        ((ptr, index), elem, storage, shared, order): ((Word, Word), ScalarType, Word, bool, u32),
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
            let at = (ptr, index);
            return self.float_atomic(op, at, elem, storage, value, consts, fence, shared, span);
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
        (ptr, index): (Word, Word),
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
            if matches!(op, AtomicOp::Min | AtomicOp::Max) {
                // Native (the access analysis gave the element a float view only because the
                // device has them).
                self.cx.features.require(Capability::AtomicFloat32MinMaxEXT);
                self.cx
                    .features
                    .extension("SPV_EXT_shader_atomic_float_min_max");
                self.cx.features.vulkan_feature(if shared {
                    SHARED_FLOAT_MIN_MAX
                } else {
                    BUFFER_FLOAT_MIN_MAX
                });
                let opcode = if op == AtomicOp::Min {
                    Op::AtomicFMinEXT
                } else {
                    Op::AtomicFMaxEXT
                };
                return self.emit(opcode, Some(fty), ids(&[ptr, scope, sem, value]));
            }
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
        let old = if matches!(op, AtomicOp::Add | AtomicOp::Sub) && self.cx.mem.subgroup_combining {
            let v = if op == AtomicOp::Sub {
                self.op(Op::FNegate, fty, &[value])?
            } else {
                value
            };
            self.subgroup_combined_add([ptr, index, storage, fty, scope, relaxed], v, span)?
        } else {
            self.float_cas_update(op, [ptr, storage, fty, scope, relaxed], value, span)?
        };
        if sem_v & (SEM_ACQUIRE | SEM_ACQ_REL) != 0 {
            let (sc, fs) = (
                self.cx.const_u32(scope_v),
                self.cx.const_u32(SEM_ACQUIRE | class),
            );
            self.cx.b.memory_barrier(sc, fs).ice(span)?;
        }
        self.op(Op::Bitcast, fty, &[old])
    }

    /// The compare-exchange loop applying `op` with `value` to the float at `ptr`; returns the
    /// old bits.
    fn float_cas_update(
        &mut self,
        op: AtomicOp,
        [ptr, storage, fty, scope, relaxed]: [Word; 5],
        value: Word,
        span: Span,
    ) -> Res<Word> {
        self.compare_exchange_loop([ptr, storage, scope, relaxed], span, |cx, old| {
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
        })
    }

    /// An emulated float add of `v` to the element at `ptr` (index `index`), combined within
    /// the subgroup when every active lane adds to the same element: one lane runs the
    /// compare-exchange loop with the subgroup's sum, so a contended counter costs one loop
    /// per subgroup instead of one per lane. Under heavy contention the per-lane loop makes
    /// progress only one lane at a time, and a kernel that spins that long can no longer be
    /// switched out in time when another context shares the GPU (the NVIDIA driver then
    /// loses the device). Each lane gets back the element's value before its own share:
    /// the old value plus the sum of the lanes before it. Float atomics are unordered, so
    /// this is one of the orders the loop could have taken, up to rounding of the partial sums.
    /// Returns the old bits.
    fn subgroup_combined_add(
        &mut self,
        [ptr, index, storage, fty, scope, relaxed]: [Word; 6],
        v: Word,
        span: Span,
    ) -> Res<Word> {
        self.cx.features.require(Capability::GroupNonUniform);
        self.cx.features.require(Capability::GroupNonUniformVote);
        self.cx
            .features
            .require(Capability::GroupNonUniformArithmetic);
        let sg = self.cx.const_u32(SCOPE_SUBGROUP);
        let boolean = self.cx.bool_type();
        let id = Operand::IdRef;
        let uniform = self.emit(
            Op::GroupNonUniformAllEqual,
            Some(boolean),
            vec![id(sg), id(index)],
        )?;
        let [combined, single, merge, lead, led] = [(); 5].map(|_| self.cx.b.id());
        self.selection(uniform, combined, single, merge)?;

        self.begin(combined)?;
        let group = |f: &mut Self, opcode: Op, ty: Word, operation: GroupOperation, x: Word| {
            f.emit(
                opcode,
                Some(ty),
                vec![id(sg), Operand::GroupOperation(operation), id(x)],
            )
        };
        let sum = group(
            self,
            Op::GroupNonUniformFAdd,
            fty,
            GroupOperation::Reduce,
            v,
        )?;
        let before = group(
            self,
            Op::GroupNonUniformFAdd,
            fty,
            GroupOperation::ExclusiveScan,
            v,
        )?;
        let elected = self.emit(Op::GroupNonUniformElect, Some(boolean), vec![id(sg)])?;
        self.selection(elected, lead, led, led)?;
        self.begin(lead)?;
        let lead_old = self.float_cas_update(
            AtomicOp::Add,
            [ptr, storage, fty, scope, relaxed],
            sum,
            span,
        )?;
        let lead_end = self.current_label()?;
        self.branch(led)?;
        self.begin(led)?;
        let zero = self.cx.const_u32(0);
        let mine = self
            .cx
            .b
            .phi(storage, None, [(lead_old, lead_end), (zero, combined)])
            .ice(span)?;
        // Only the elected lane contributes, so the integer sum of the bits is its old
        // value, exactly (a float sum would turn -0.0 into +0.0).
        let base = group(
            self,
            Op::GroupNonUniformIAdd,
            storage,
            GroupOperation::Reduce,
            mine,
        )?;
        let basef = self.op(Op::Bitcast, fty, &[base])?;
        let own = self.op(Op::FAdd, fty, &[basef, before])?;
        let own_bits = self.op(Op::Bitcast, storage, &[own])?;
        self.branch(merge)?;

        self.begin(single)?;
        let single_old =
            self.float_cas_update(AtomicOp::Add, [ptr, storage, fty, scope, relaxed], v, span)?;
        let single_end = self.current_label()?;
        self.branch(merge)?;

        self.begin(merge)?;
        self.cx
            .b
            .phi(storage, None, [(own_bits, led), (single_old, single_end)])
            .ice(span)
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
