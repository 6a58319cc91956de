//! Checked mode's barrier check: a workgroup whose invocations do not all reach a
//! `Barrier.workgroup()` is reported at run time, with the kernel and the barrier's source
//! position, like an out-of-bounds access (`bounds.rs`).
//!
//! The uniformity analysis (`sema/uniformity.rs`) refuses a barrier under thread-dependent
//! control flow at compile time, but it takes a memory read at a uniform address as uniform,
//! so a condition on racing memory (`if (t[0] == 0) { Barrier.workgroup(); }` while another
//! invocation writes `t[0]`) gets through, and on a GPU such a barrier hangs or computes
//! garbage. Checked mode counts the arrivals instead:
//!
//! - each barrier site has a `Workgroup` counter, set to 0 at the kernel's entry (an atomic
//!   store by every invocation, then a barrier: the entry is reached by all of them);
//! - at the site every invocation adds one, waits at the barrier, reads the counter, waits at
//!   a second barrier (so nobody starts the next pass before everyone has read), and
//!   subtracts one. Where all `N` invocations of the workgroup arrive, every one reads `N`:
//!   each pass adds `N`, and the previous pass's subtractions all happened before this
//!   pass's barrier;
//! - an invocation that reads another count reports it (kind `"barrier"`: the count, `N` and
//!   the workgroup's x and y), and the barrier's site names the position.
//!
//! On lavapipe a barrier that some invocations never reach does not hang, so the report comes
//! back; on a GPU the workgroup may hang instead, as it would unchecked.
//!
//! A kernel whose barriers the code alone shows to be reached by every invocation or none (no
//! condition around them or before them that reads memory or depends on the invocation) gets
//! plain barriers: there is nothing for the count to find.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Op, StorageClass, Word};

use super::bounds::Guard;
use super::function::FnCx;
use super::memory::{SCOPE_WORKGROUP, SEM_ACQUIRE, SEM_ACQ_REL, SEM_RELEASE, SEM_WORKGROUP_MEMORY};
use super::{BuildExt, Ctx, Res};
use crate::diagnostics::Span;

impl FnCx<'_, '_> {
    /// Whether this kernel's barriers need no arrival count: the code alone shows that all
    /// invocations of a workgroup reach each of them (`uniformity::barriers_statically_uniform`).
    /// sgemm's tile loop and the reduction's tree loop are such loops: without the count, each
    /// of their barriers is one barrier again instead of two and three atomics.
    pub(crate) fn barriers_statically_uniform(&mut self) -> bool {
        let func = self.func;
        let uniform = self
            .uniform
            .get_or_insert_with(|| super::uniformity::uniform_locals(func));
        super::uniformity::barriers_statically_uniform(func, uniform)
    }

    /// Emits a checked `Barrier.workgroup()` with semantics `sem` at `span`: the arrival
    /// count around the barrier itself (see the module doc).
    pub(crate) fn checked_workgroup_barrier(&mut self, sem: u32, span: Span) -> Res<()> {
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let counter = self
            .cx
            .global_variable(uint, StorageClass::Workgroup, "barrier_arrivals");
        if let Some(b) = self.cx.bounds.as_mut() {
            b.barrier_counters.push(counter);
        }
        let site = self.new_site(("Barrier.workgroup()", "barrier", &[]), false, span);
        let scope = self.cx.const_u32(SCOPE_WORKGROUP);
        let rmw = self.cx.const_u32(SEM_ACQ_REL | SEM_WORKGROUP_MEMORY);
        let acquire = self.cx.const_u32(SEM_ACQUIRE | SEM_WORKGROUP_MEMORY);
        let one = self.cx.const_u32(1);
        self.cx
            .b
            .atomic_i_add(uint, None, counter, scope, rmw, one)
            .ice(span)?;
        self.workgroup_control_barrier(sem, span)?;
        let arrived = self
            .cx
            .b
            .atomic_load(uint, None, counter, scope, acquire)
            .ice(span)?;
        self.workgroup_control_barrier(SEM_ACQ_REL | SEM_WORKGROUP_MEMORY, span)?;
        self.cx
            .b
            .atomic_i_sub(uint, None, counter, scope, rmw, one)
            .ice(span)?;
        let [x, y, z] = self.cx.globals.workgroup_size;
        let xy = self.op(Op::IMul, uint, &[x, y])?;
        let size = self.op(Op::IMul, uint, &[xy, z])?;
        let all = self.op(Op::IEqual, bool_ty, &[arrived, size])?;
        let wg = self.cx.builtin(BuiltIn::WorkgroupId);
        let v3 = self.cx.vector_type(uint, 3);
        let id = self.cx.b.load(v3, None, wg, None, []).ice(span)?;
        let wx = self.cx.b.composite_extract(uint, None, id, [0]).ice(span)?;
        let wy = self.cx.b.composite_extract(uint, None, id, [1]).ice(span)?;
        let guard = Guard::new(self.cx, all, site, &[arrived, size, wx, wy]);
        self.guarded(Some(guard), None, |_| Ok(0))?;
        Ok(())
    }
}

/// Sets every barrier counter of the kernel `entry` to 0 at its start (checked mode): an
/// atomic store by each invocation, then a workgroup barrier, inserted after the entry
/// block's variables. Nothing for a kernel without checked barriers.
pub(crate) fn reset_barrier_counters(cx: &mut Ctx, entry: Word) {
    let counters = match cx.bounds.as_ref() {
        Some(b) if !b.barrier_counters.is_empty() => b.barrier_counters.clone(),
        _ => return,
    };
    let [zero, scope, release, barrier_sem] = [
        0,
        SCOPE_WORKGROUP,
        SEM_RELEASE | SEM_WORKGROUP_MEMORY,
        SEM_ACQ_REL | SEM_WORKGROUP_MEMORY,
    ]
    .map(|v| cx.const_u32(v));
    let mut code: Vec<Instruction> = counters
        .iter()
        .map(|&c| {
            Instruction::new(
                Op::AtomicStore,
                None,
                None,
                [c, scope, release, zero].map(Operand::IdRef).to_vec(),
            )
        })
        .collect();
    code.push(Instruction::new(
        Op::ControlBarrier,
        None,
        None,
        [scope, scope, barrier_sem].map(Operand::IdRef).to_vec(),
    ));
    let module = cx.b.module_mut();
    let Some(f) = module
        .functions
        .iter_mut()
        .find(|f| f.def.as_ref().and_then(|d| d.result_id) == Some(entry))
    else {
        return;
    };
    let Some(first) = f.blocks.first_mut() else {
        return;
    };
    let at = first
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Variable)
        .count();
    first.instructions.splice(at..at, code);
}
