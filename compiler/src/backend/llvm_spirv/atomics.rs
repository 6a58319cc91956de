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
        match elem {
            Some(ScalarType::I32 | ScalarType::U32) => {}
            Some(s) if s.is_float() => {
                return Err(refuse(
                    e.span,
                    format!("atomics on `{}` elements", s.name()),
                ))
            }
            _ => return Err(refuse(e.span, format!("atomics on `{}`", recv.ty))),
        }
        let signed = elem == Some(ScalarType::I32);
        let (p, space, _) = self.element_pointer(recv, index)?;
        let (scope, class_bit, sync) = if space == 3 {
            (SCOPE_WORKGROUP, SEM_WORKGROUP_MEMORY, "workgroup")
        } else {
            (SCOPE_DEVICE, SEM_UNIFORM_MEMORY, "device")
        };
        let value = self.expr(&args[2])?;
        let t = self.tmp();
        if op == AtomicOp::CompareExchange {
            let desired = self.expr(&args[3])?;
            let sem = if order == 0 { 0 } else { order | class_bit };
            let uneq = unequal_semantics(order, class_bit);
            let name = self.spirv_op(
                spirv_ops::ATOMIC_COMPARE_EXCHANGE,
                "i32",
                &[
                    &format!("ptr addrspace({space})"),
                    "i32",
                    "i32",
                    "i32",
                    "i32",
                    "i32",
                ],
                false,
            );
            self.emit(format!(
                "{t} = call i32 {name}(ptr addrspace({space}) {p}, i32 {scope}, i32 {sem}, i32 {uneq}, i32 {}, i32 {})",
                desired.text, value.text
            ));
            return Ok(Val::new(t, "i32"));
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
        self.emit(format!(
            "{t} = atomicrmw {rmw} ptr addrspace({space}) {p}, i32 {} syncscope(\"{sync}\") {}, align 4",
            value.text,
            llvm_ordering(order)
        ));
        Ok(Val::new(t, "i32"))
    }

    /// `Barrier.workgroup/workgroupMemory/deviceMemory([order])`, as the rspirv backend:
    /// `OpControlBarrier(Workgroup, Workgroup, sem)` or `OpMemoryBarrier(scope, sem)`.
    pub(super) fn barrier(&mut self, kind: BarrierKind, args: &[Expr], e: &Expr) -> Res<()> {
        let order = order_bits(args.first())?;
        match kind {
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
                    return Err(Diagnostic::error(
                        Code::InvalidOperator,
                        e.span,
                        "a memory fence with MemoryOrder.Relaxed orders nothing",
                    )
                    .with_note("use Acquire, Release or AcqRel"));
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
