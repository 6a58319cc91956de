//! Atomics on buffer and shared elements and the `Barrier.*` forms, with the scopes and
//! memory semantics of the rspirv backend (SPEC §6): `Device` scope on buffers, `Workgroup`
//! scope on shared arrays; a relaxed atomic has no semantics bits, an ordered one its order
//! plus the storage-class bit of its memory (`SeqCst` is `AcqRel`: Vulkan has no
//! sequentially consistent order).
//!
//! Read-modify-write atomics are LLVM's `atomicrmw` (the SPIR-V target emits `OpAtomicIAdd`
//! and friends, always with the storage-class bit; [`super::spirv_ops::fix_atomic_semantics`]
//! clears it on relaxed ones). Compare-exchange and barriers with an explicit order are
//! calls of [`super::spirv_ops`] placeholders the post-pass replaces by the instruction:
//! LLVM 23.1's SPIR-V target crashes (a segmentation fault) on `cmpxchg` for Vulkan, and
//! has no intrinsic for a barrier with another order than acquire-release.

use std::collections::HashMap;

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, Word};

use super::lower::{FnLower, Val};
use super::refuse;
use super::spirv_ops;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{AtomicOp, BarrierKind, Constant, Expr, ExprKind, ScalarType, Type};

type Res<T> = Result<T, Diagnostic>;

const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;
const SEM_ACQUIRE: u32 = 0x2;
const SEM_RELEASE: u32 = 0x4;
const SEM_ACQ_REL: u32 = 0x8;
const SEM_UNIFORM_MEMORY: u32 = 0x40;
const SEM_WORKGROUP_MEMORY: u32 = 0x100;
const SEM_IMAGE_MEMORY: u32 = 0x800;

/// The order bits of an optional `MemoryOrder` argument (0 relaxed, 1 acquire, 2 release,
/// 3 acq-rel, 4 seq-cst as acq-rel), or `None` when there is none.
fn order_bits(order: Option<&Expr>) -> Res<Option<u32>> {
    let Some(e) = order else {
        return Ok(None);
    };
    match &e.kind {
        ExprKind::Const(Constant::Int(v)) => Ok(Some(match v {
            0 => 0,
            1 => SEM_ACQUIRE,
            2 => SEM_RELEASE,
            _ => SEM_ACQ_REL,
        })),
        _ => Err(Diagnostic::error(
            Code::NotConstant,
            e.span,
            "a MemoryOrder argument must be a constant",
        )),
    }
}

/// The LLVM ordering of order bits (the SPIR-V target maps it back to the same bits).
fn llvm_ordering(order: u32) -> &'static str {
    match order {
        0 => "monotonic",
        SEM_ACQUIRE => "acquire",
        SEM_RELEASE => "release",
        _ => "acq_rel",
    }
}

/// The failure semantics of a compare-exchange whose success semantics are `order` on
/// memory `class_bit`: without release, since a failed exchange writes nothing (as the
/// rspirv backend).
fn unequal_semantics(order: u32, class_bit: u32) -> u32 {
    match order {
        0 | SEM_RELEASE => 0,
        SEM_ACQ_REL => SEM_ACQUIRE | class_bit,
        o => o | class_bit,
    }
}

impl FnLower<'_> {
    /// An atomic on a buffer or shared element; returns the element's old value.
    pub(super) fn atomic(&mut self, op: AtomicOp, args: &[Expr], e: &Expr) -> Res<Val> {
        let values = if op == AtomicOp::CompareExchange {
            2
        } else {
            1
        };
        let (Some(recv), Some(index)) = (args.first(), args.get(1)) else {
            return Err(refuse(e.span, "a malformed atomic"));
        };
        if args.len() != 2 + values && args.len() != 3 + values {
            return Err(refuse(e.span, "a malformed atomic"));
        }
        let order = order_bits(args.get(2 + values))?.unwrap_or(0);
        let elem = match &recv.ty {
            Type::Buffer(t) | Type::Shared(t) => t.as_scalar(),
            _ => None,
        };
        let (float, ity) = match elem {
            Some(ScalarType::I32 | ScalarType::U32) => (false, "i32"),
            Some(ScalarType::I64 | ScalarType::U64) => (false, "i64"),
            Some(ScalarType::F32) => (true, "i32"),
            _ => return Err(refuse(e.span, format!("atomics on `{}`", recv.ty))),
        };
        let signed = matches!(elem, Some(ScalarType::I32 | ScalarType::I64));
        let (p, space, _) = self.element_pointer(recv, index)?;
        if float && !self.bit_pointers.contains(&p) {
            if self.target != super::target::Target::Cpu {
                return Err(refuse(e.span, "a float atomic outside a bit view"));
            }
            // On the CPU an element is plain memory at an address: its float bits are the
            // `i32` the atomic works on, whatever type the buffer's other accesses use.
            self.bit_pointers.insert(p.clone());
        }
        let (scope, class_bit, sync) = if space == 3 {
            (SCOPE_WORKGROUP, SEM_WORKGROUP_MEMORY, "workgroup")
        } else {
            (SCOPE_DEVICE, SEM_UNIFORM_MEMORY, "device")
        };
        let value = self.expr(&args[2])?;
        let value = self.bits_for_store(&p, value);
        if float && !matches!(op, AtomicOp::CompareExchange | AtomicOp::Exchange) {
            let at = (p.as_str(), space, scope, class_bit);
            return self.float_atomic(op, at, order, value);
        }
        let t = self.tmp();
        if op == AtomicOp::CompareExchange {
            let desired = self.expr(&args[3])?;
            let desired = self.bits_for_store(&p, desired);
            let sem = if order == 0 { 0 } else { order | class_bit };
            let uneq = unequal_semantics(order, class_bit);
            let name = self.spirv_op(
                spirv_ops::ATOMIC_COMPARE_EXCHANGE,
                ity,
                &[
                    &format!("ptr addrspace({space})"),
                    "i32",
                    "i32",
                    "i32",
                    ity,
                    ity,
                ],
                false,
            );
            self.emit(format!(
                "{t} = call {ity} {name}(ptr addrspace({space}) {p}, i32 {scope}, i32 {sem}, i32 {uneq}, {ity} {}, {ity} {})",
                desired.text, value.text
            ));
            return Ok(self.float_from_bits_if(float, Val::new(t, ity)));
        }
        let rmw = match op {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Min if signed => "min",
            AtomicOp::Min => "umin",
            AtomicOp::Max if signed => "max",
            AtomicOp::Max => "umax",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exchange | AtomicOp::CompareExchange => "xchg",
        };
        if space == 3 && self.region {
            // A region of a split CPU kernel: one thread runs the whole workgroup, so its
            // shared memory has no other writer and the atomic is a plain read-modify-write.
            let r = self.cpu_plain_shared_rmw(rmw, &p, ity, &value.text);
            return Ok(self.float_from_bits_if(float, r));
        }
        if space == 3 {
            // On shared memory the instruction itself: LLVM 23.1's target crashed (a
            // segmentation fault) on an `atomicrmw` at element 0 of a shared array, whose
            // pointer LLVM folds into the array's global.
            let opcode = match rmw {
                "add" => Op::AtomicIAdd,
                "sub" => Op::AtomicISub,
                "min" => Op::AtomicSMin,
                "umin" => Op::AtomicUMin,
                "max" => Op::AtomicSMax,
                "umax" => Op::AtomicUMax,
                "and" => Op::AtomicAnd,
                "or" => Op::AtomicOr,
                "xor" => Op::AtomicXor,
                _ => Op::AtomicExchange,
            };
            let sem = if order == 0 { 0 } else { order | class_bit };
            let operands = [
                format!("i32 {scope}"),
                format!("i32 {sem}"),
                format!("{ity} {}", value.text),
            ];
            let r = self.shared_atomic_op(opcode, p.as_str(), ity, &operands);
            return Ok(self.float_from_bits_if(float, r));
        }
        let align = if ity == "i64" { 8 } else { 4 };
        self.emit(format!(
            "{t} = atomicrmw {rmw} ptr addrspace({space}) {p}, {ity} {} syncscope(\"{sync}\") {}, align {align}",
            value.text,
            llvm_ordering(order)
        ));
        Ok(self.float_from_bits_if(float, Val::new(t, ity)))
    }

    /// The atomic instruction `opcode` on the shared element at `p` (an `i32` or `i64`,
    /// `ity`), with these further operands (typed), through its placeholder (which may
    /// touch any memory).
    fn shared_atomic_op(
        &mut self,
        opcode: Op,
        p: &str,
        ity: &'static str,
        operands: &[String],
    ) -> Val {
        let mut params = vec!["ptr addrspace(3)"];
        params.extend(
            operands
                .iter()
                .map(|o| o.split(' ').next().unwrap_or("i32")),
        );
        let name = self.spirv_op(&spirv_ops::core_op(opcode, None), ity, &params, false);
        let t = self.tmp();
        self.emit(format!(
            "{t} = call {ity} {name}(ptr addrspace(3) {p}, {})",
            operands.join(", ")
        ));
        Val::new(t, ity)
    }

    /// A float add, subtract, min or max on the bits at `p`: a compare-exchange loop, as the
    /// rspirv backend on a device without native float atomics. Its atomics are relaxed;
    /// an order becomes a release fence before the loop and an acquire fence after it.
    /// Returns the old value.
    fn float_atomic(
        &mut self,
        op: AtomicOp,
        (p, space, scope, class_bit): (&str, u32, u32, u32),
        order: u32,
        bits: Val,
    ) -> Res<Val> {
        let fence = |f: &mut Self, sem: u32| {
            let name = f.spirv_op(spirv_ops::MEMORY_BARRIER, "void", &["i32"; 2], true);
            f.emit(format!(
                "call void {name}(i32 {scope}, i32 {})",
                sem | class_bit
            ));
        };
        if order & (SEM_RELEASE | SEM_ACQ_REL) != 0 {
            fence(self, SEM_RELEASE);
        }
        let sync = if space == 3 { "workgroup" } else { "device" };
        let init = if space == 3 {
            let operands = [format!("i32 {scope}"), "i32 0".to_string()];
            self.shared_atomic_op(Op::AtomicLoad, p, "i32", &operands)
                .text
        } else {
            let init = self.tmp();
            self.emit(format!(
                "{init} = load atomic i32, ptr addrspace({space}) {p} syncscope(\"{sync}\") monotonic, align 4"
            ));
            init
        };
        let v = self.tmp();
        self.emit(format!("{v} = bitcast i32 {} to float", bits.text));
        let old = self.cas_loop_i32(p, space, scope, &init, |fl, old| {
            let (oldf, new, newb) = (fl.tmp(), fl.tmp(), fl.tmp());
            fl.emit(format!("{oldf} = bitcast i32 {old} to float"));
            match op {
                AtomicOp::Add => fl.emit(format!("{new} = fadd float {oldf}, {v}")),
                AtomicOp::Sub => fl.emit(format!("{new} = fsub float {oldf}, {v}")),
                AtomicOp::Min | AtomicOp::Max => {
                    let c = fl.tmp();
                    let cmp = if op == AtomicOp::Min { "olt" } else { "ogt" };
                    fl.emit(format!("{c} = fcmp {cmp} float {v}, {oldf}"));
                    fl.emit(format!("{new} = select i1 {c}, float {v}, float {oldf}"));
                }
                other => {
                    return Err(refuse(
                        crate::diagnostics::Span::default(),
                        format!("the float atomic {other:?}"),
                    ))
                }
            }
            fl.emit(format!("{newb} = bitcast float {new} to i32"));
            Ok(newb)
        })?;
        if order & (SEM_ACQUIRE | SEM_ACQ_REL) != 0 {
            fence(self, SEM_ACQUIRE);
        }
        Ok(self.float_from_bits_if(true, Val::new(old, "i32")))
    }

    /// A compare-exchange loop on the 32-bit word at `p` (address space `space`, Vulkan
    /// scope `scope`, relaxed), first reading `init`: `next` computes the word to store
    /// from the word read (an `i32` value) until the exchange finds what was read; returns
    /// the word the successful round replaced. Float atomics without native instructions
    /// and the packed lane stores are such loops.
    pub(super) fn cas_loop_i32(
        &mut self,
        p: &str,
        space: u32,
        scope: u32,
        init: &str,
        next: impl FnOnce(&mut Self, &str) -> Res<String>,
    ) -> Res<String> {
        let (pre, head, done) = (
            self.block.clone(),
            self.label("cas"),
            self.label("cas_done"),
        );
        self.emit(format!("br label %{head}"));
        self.start_block(&head);
        let [old, got, same] = self.tmps();
        self.emit(format!(
            "{old} = phi i32 [ {init}, %{pre} ], [ {got}, %{head} ]"
        ));
        let new = next(self, &old)?;
        let ptr_ty = format!("ptr addrspace({space})");
        let name = self.spirv_op(
            spirv_ops::ATOMIC_COMPARE_EXCHANGE,
            "i32",
            &[&ptr_ty, "i32", "i32", "i32", "i32", "i32"],
            false,
        );
        self.emit(format!(
            "{got} = call i32 {name}({ptr_ty} {p}, i32 {scope}, i32 0, i32 0, i32 {new}, i32 {old})"
        ));
        self.emit(format!("{same} = icmp eq i32 {got}, {old}"));
        self.emit(format!("br i1 {same}, label %{done}, label %{head}"));
        self.start_block(&done);
        Ok(old)
    }

    /// The element type of shared array `local` in LLVM IR: `i32` bits for a `float32`
    /// array some atomic works on (the atomics run on its bit view), else its stored type.
    pub(super) fn shared_element_type(
        &self,
        local: usize,
        elem: ScalarType,
        span: crate::diagnostics::Span,
    ) -> Res<&'static str> {
        let atomic_here = |e: &Expr| match &e.kind {
            ExprKind::Intrinsic {
                op: crate::ir::Intrinsic::Atomic(_),
                args,
            } => matches!(
                args.first().map(|a| &a.kind),
                Some(ExprKind::Load(crate::ir::Place::Local(l))) if l.0 == local
            ),
            _ => false,
        };
        // Float atomics exist on `float32` only (sema), so only its arrays get a bit view.
        if elem == ScalarType::F32
            && (self.helpers_share_atomics
                || crate::ir::visit::find_expr(&self.kernel.body, &atomic_here).is_some())
        {
            return Ok("i32");
        }
        super::types::stored(elem, span)
    }

    /// `v` as the `i32` bits a store through `p` takes when `p` points into a bit view.
    pub(super) fn bits_for_store(&mut self, p: &str, v: Val) -> Val {
        if !self.bit_pointers.contains(p) || v.ty != "float" {
            return v;
        }
        let t = self.tmp();
        self.emit(format!("{t} = bitcast float {} to i32", v.text));
        Val::new(t, "i32")
    }

    /// `v` (bits) as a `float32` when `float`.
    fn float_from_bits_if(&mut self, float: bool, v: Val) -> Val {
        if !float {
            return v;
        }
        let t = self.tmp();
        self.emit(format!("{t} = bitcast i32 {} to float", v.text));
        Val::new(t, "float")
    }

    /// A plain load of the float whose bits are at `p`.
    pub(super) fn load_bits(&mut self, p: &str, space: u32) -> Val {
        let t = self.tmp();
        self.emit(format!("{t} = load i32, ptr addrspace({space}) {p}"));
        self.float_from_bits_if(true, Val::new(t, "i32"))
    }

    /// `Barrier.workgroup/workgroupMemory/deviceMemory([order])`, as the rspirv backend:
    /// `OpControlBarrier(Workgroup, Workgroup, sem)` or `OpMemoryBarrier(scope, sem)`.
    pub(super) fn barrier(&mut self, kind: BarrierKind, args: &[Expr]) -> Res<()> {
        let order = order_bits(args.first())?;
        if self.target == super::target::Target::Cpu {
            // A workgroup barrier meets the workgroup's other invocations; the others order
            // memory only (an invocation is its own subgroup on the CPU device).
            match kind {
                BarrierKind::Workgroup => self.cpu_barrier(),
                BarrierKind::WorkgroupMemory | BarrierKind::DeviceMemory if order == Some(0) => {}
                _ => {
                    self.emit("fence seq_cst");
                    return Ok(());
                }
            }
            if kind == BarrierKind::Workgroup {
                return Ok(());
            }
        }
        match kind {
            BarrierKind::Wave => {
                // OpControlBarrier(Subgroup, Subgroup, AcquireRelease | WorkgroupMemory).
                let name = self.spirv_op(spirv_ops::CONTROL_BARRIER, "void", &["i32"; 3], true);
                self.emit(format!(
                    "call void {name}(i32 3, i32 3, i32 {})",
                    SEM_ACQ_REL | SEM_WORKGROUP_MEMORY
                ));
            }
            BarrierKind::Workgroup if order.is_none() => {
                // OpControlBarrier(Workgroup, Workgroup, AcquireRelease | WorkgroupMemory).
                // The intrinsic may read and write any memory (LLVM's default for it), so
                // the optimizer keeps shared-memory accesses on their side of it.
                let name = "llvm.spv.group.memory.barrier.with.group.sync";
                self.declare(format!("declare void @{name}()"));
                self.emit(format!("call void @{name}()"));
            }
            BarrierKind::Workgroup => {
                let sem = match order {
                    Some(0) => 0,
                    Some(o) => o | SEM_WORKGROUP_MEMORY,
                    None => SEM_ACQ_REL | SEM_WORKGROUP_MEMORY,
                };
                let name = self.spirv_op(spirv_ops::CONTROL_BARRIER, "void", &["i32"; 3], true);
                self.emit(format!(
                    "call void {name}(i32 {SCOPE_WORKGROUP}, i32 {SCOPE_WORKGROUP}, i32 {sem})"
                ));
            }
            BarrierKind::WorkgroupMemory | BarrierKind::DeviceMemory => {
                let o = order.unwrap_or(SEM_ACQ_REL);
                if o == 0 {
                    // A relaxed fence orders nothing: no instruction, as in the rspirv backend.
                    return Ok(());
                }
                let (scope, storage) = if kind == BarrierKind::WorkgroupMemory {
                    (SCOPE_WORKGROUP, SEM_WORKGROUP_MEMORY)
                } else {
                    (SCOPE_DEVICE, SEM_UNIFORM_MEMORY | SEM_IMAGE_MEMORY)
                };
                let name = self.spirv_op(spirv_ops::MEMORY_BARRIER, "void", &["i32"; 2], true);
                self.emit(format!(
                    "call void {name}(i32 {scope}, i32 {})",
                    o | storage
                ));
            }
        }
        Ok(())
    }

    /// Declares the placeholder function of SPIR-V instruction `op` with this signature
    /// (`convergent` for barriers, which must stay where they are in the control flow) and
    /// returns its name.
    pub(super) fn spirv_op(
        &mut self,
        op: &str,
        ret: &str,
        params: &[&str],
        convergent: bool,
    ) -> String {
        let name = spirv_ops::placeholder(op, ret, params);
        let attrs = if convergent { " convergent" } else { "" };
        self.declare(format!(
            "declare {ret} {name}({}){attrs}",
            params.join(", ")
        ));
        name
    }
}

/// The order bits of memory semantics (Acquire, Release, AcquireRelease,
/// SequentiallyConsistent).
const ORDER_BITS: u32 = 0x2 | 0x4 | 0x8 | 0x10;

/// Gives relaxed atomics no semantics bits, as the rspirv backend: LLVM's target adds the
/// storage-class bit (`UniformMemory`, `WorkgroupMemory`) to every atomic's semantics, also
/// a `monotonic` one's.
pub(crate) fn fix_atomic_semantics(m: &mut Module) {
    let constants: HashMap<Word, u32> = m
        .types_global_values
        .iter()
        .filter_map(
            |i| match (i.class.opcode, i.result_id, i.operands.first()) {
                (Op::Constant, Some(id), Some(Operand::LiteralBit32(v))) => Some((id, *v)),
                (Op::ConstantNull, Some(id), _) => Some((id, 0)),
                _ => None,
            },
        )
        .collect();
    let mut relaxed = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.instructions.iter().enumerate() {
                let rmw = matches!(
                    inst.class.opcode,
                    Op::AtomicIAdd
                        | Op::AtomicISub
                        | Op::AtomicSMin
                        | Op::AtomicUMin
                        | Op::AtomicSMax
                        | Op::AtomicUMax
                        | Op::AtomicAnd
                        | Op::AtomicOr
                        | Op::AtomicXor
                        | Op::AtomicExchange
                        | Op::AtomicLoad
                );
                // Scope and semantics are `IdScope`/`IdMemorySemantics` operands.
                let Some(sem) = inst.operands.get(2).and_then(Operand::id_ref_any) else {
                    continue;
                };
                if rmw && constants.get(&sem).is_some_and(|v| v & ORDER_BITS == 0) {
                    relaxed.push((fi, bi, ii));
                }
            }
        }
    }
    if relaxed.is_empty() {
        return;
    }
    let zero = super::post::uint_const(m, 0);
    for (fi, bi, ii) in relaxed {
        m.functions[fi].blocks[bi].instructions[ii].operands[2] = Operand::IdMemorySemantics(zero);
    }
}

/// Declares `Int64Atomics` where an atomic works on a 64-bit integer (LLVM's target does
/// not for the placeholder instructions) and returns the Vulkan features those atomics
/// need, per storage class, as the rspirv backend reports them
/// (`shaderBufferInt64Atomics`, `shaderSharedInt64Atomics`).
pub(crate) fn int64_atomics(m: &mut Module) -> Vec<&'static str> {
    let int64: std::collections::HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt && i.operands.first() == Some(&Operand::LiteralBit32(64))
        })
        .filter_map(|i| i.result_id)
        .collect();
    if int64.is_empty() {
        // No 64-bit integer type, so no 64-bit atomic: no walk of every instruction.
        return Vec::new();
    }
    let pointer_class: HashMap<Word, rspirv::spirv::StorageClass> = m
        .types_global_values
        .iter()
        .filter_map(
            |i| match (i.class.opcode, i.result_id, i.operands.first()) {
                (Op::TypePointer, Some(id), Some(Operand::StorageClass(c))) => Some((id, *c)),
                _ => None,
            },
        )
        .collect();
    let result_types: HashMap<Word, Word> = m
        .all_inst_iter()
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let mut features = Vec::new();
    for i in m.all_inst_iter() {
        let atomic = matches!(
            i.class.opcode,
            Op::AtomicIAdd
                | Op::AtomicISub
                | Op::AtomicSMin
                | Op::AtomicUMin
                | Op::AtomicSMax
                | Op::AtomicUMax
                | Op::AtomicAnd
                | Op::AtomicOr
                | Op::AtomicXor
                | Op::AtomicExchange
                | Op::AtomicCompareExchange
                | Op::AtomicLoad
        );
        if !atomic || !i.result_type.is_some_and(|t| int64.contains(&t)) {
            continue;
        }
        let class = i
            .operands
            .first()
            .and_then(Operand::id_ref_any)
            .and_then(|p| result_types.get(&p))
            .and_then(|t| pointer_class.get(t));
        let feature = if class == Some(&rspirv::spirv::StorageClass::Workgroup) {
            "shaderSharedInt64Atomics"
        } else {
            "shaderBufferInt64Atomics"
        };
        if !features.contains(&feature) {
            features.push(feature);
        }
    }
    if !features.is_empty() {
        let has = m.capabilities.iter().any(|i| {
            i.operands.first()
                == Some(&Operand::Capability(
                    rspirv::spirv::Capability::Int64Atomics,
                ))
        });
        if !has {
            m.capabilities.push(rspirv::dr::Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(rspirv::spirv::Capability::Int64Atomics)],
            ));
        }
    }
    features
}
