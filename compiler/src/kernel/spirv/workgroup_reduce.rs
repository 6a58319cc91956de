//! `Workgroup.reduce(op, v)`: a reduction over the whole workgroup through a 256-element
//! shared scratch array, with no subgroup operations (so it runs wherever barriers do).
//!
//! Phase 1 folds the invocations into the scratch array 256 at a time (invocation `l` into
//! element `l mod 256`, one barrier per round); phase 2 is a tree over those elements (eight
//! rounds, one barrier each); every invocation then reads element 0, and a last barrier keeps
//! a following reduction from overwriting it early. The combining order is fixed by the
//! workgroup size, so a float sum is reproducible from run to run but may round differently
//! from a serial sum.

use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, LoopControl, Op, StorageClass, Word};

use super::function::FnCx;
use super::memory::{SEM_ACQ_REL, SEM_WORKGROUP_MEMORY};
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Expr, GroupOp, ScalarType};

/// Elements of the scratch array.
const SCRATCH: u32 = 256;

impl FnCx<'_, '_> {
    /// Lowers `Workgroup.reduce(op, v)`.
    pub(crate) fn workgroup_reduce(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [op_arg, v_arg] = args else {
            return Err(unsupported(
                e.span,
                "internal error: Workgroup.reduce arity",
            ));
        };
        let op = GroupOp::of_operand(op_arg)?;
        let s =
            e.ty.as_scalar()
                .ok_or_else(|| unsupported(e.span, "internal error: Workgroup.reduce type"))?;
        if s.is_float() && matches!(op, GroupOp::And | GroupOp::Or | GroupOp::Xor) {
            return Err(Diagnostic::error(
                Code::InvalidOperator,
                op_arg.span,
                format!("a bitwise GroupOp needs an integer value, found `{s}`"),
            ));
        }
        let ty = self.cx.value_type(s, e.span)?;
        let v = self.expr(v_arg)?;
        let scratch = self.reduce_scratch(s, ty)?;
        let uint = self.cx.u32_type();
        let boolean = self.cx.bool_type();
        let [x, y, z] = self.cx.globals.workgroup_size;
        let xy = self.op(Op::IMul, uint, &[x, y])?;
        let n = self.op(Op::IMul, uint, &[xy, z])?;
        let l = self.scalar_builtin(BuiltIn::LocalInvocationIndex)?;
        let (c0, c256) = (self.cx.const_u32(0), self.cx.const_u32(SCRATCH));
        let ptr_ty = self.cx.pointer_type(StorageClass::Workgroup, ty);
        let span = e.span;

        // Phase 1: for (base = 0; base < n; base += 256).
        let pre = self.current_label()?;
        let [header, body, cont, merge, then, endif] = [(); 6].map(|_| self.cx.b.id());
        let next = self.cx.b.id();
        self.branch(header)?;
        self.begin(header)?;
        let base = self
            .cx
            .b
            .phi(uint, None, [(c0, pre), (next, cont)])
            .ice(span)?;
        let more = self.op(Op::ULessThan, boolean, &[base, n])?;
        self.cx
            .b
            .loop_merge(merge, cont, LoopControl::NONE, [])
            .ice(span)?;
        self.cx
            .b
            .branch_conditional(more, body, merge, [])
            .ice(span)?;
        self.begin(body)?;
        // l - base wraps to a large value when l < base: one unsigned compare.
        let rel = self.op(Op::ISub, uint, &[l, base])?;
        let mine = self.op(Op::ULessThan, boolean, &[rel, c256])?;
        self.selection(mine, then, endif, endif)?;
        self.begin(then)?;
        let ptr = self.op(Op::AccessChain, ptr_ty, &[scratch, rel])?;
        let first = self.op(Op::IEqual, boolean, &[base, c0])?;
        let old = self.op(Op::Load, ty, &[ptr])?;
        let folded = self.combine(op, s, ty, old, v)?;
        let value = self.op(Op::Select, ty, &[first, v, folded])?;
        self.cx.b.store(ptr, value, None, []).ice(span)?;
        self.branch(endif)?;
        self.begin(endif)?;
        self.workgroup_control_barrier(SEM_ACQ_REL | SEM_WORKGROUP_MEMORY, span)?;
        self.branch(cont)?;
        self.begin(cont)?;
        self.emit_as(
            next,
            Op::IAdd,
            Some(uint),
            vec![Operand::IdRef(base), Operand::IdRef(c256)],
        )?;
        self.branch(header)?;
        self.begin(merge)?;

        // Phase 2: the tree, strides 128 down to 1.
        let mut stride = SCRATCH / 2;
        while stride > 0 {
            let c = self.cx.const_u32(stride);
            let low = self.op(Op::ULessThan, boolean, &[l, c])?;
            let partner = self.op(Op::IAdd, uint, &[l, c])?;
            let present = self.op(Op::ULessThan, boolean, &[partner, n])?;
            let active = self.op(Op::LogicalAnd, boolean, &[low, present])?;
            let [then, endif] = [(); 2].map(|_| self.cx.b.id());
            self.selection(active, then, endif, endif)?;
            self.begin(then)?;
            let mine = self.op(Op::AccessChain, ptr_ty, &[scratch, l])?;
            let theirs = self.op(Op::AccessChain, ptr_ty, &[scratch, partner])?;
            let a = self.op(Op::Load, ty, &[mine])?;
            let b = self.op(Op::Load, ty, &[theirs])?;
            let r = self.combine(op, s, ty, a, b)?;
            self.cx.b.store(mine, r, None, []).ice(span)?;
            self.branch(endif)?;
            self.begin(endif)?;
            self.workgroup_control_barrier(SEM_ACQ_REL | SEM_WORKGROUP_MEMORY, span)?;
            stride /= 2;
        }
        let at0 = self.op(Op::AccessChain, ptr_ty, &[scratch, c0])?;
        let result = self.op(Op::Load, ty, &[at0])?;
        self.workgroup_control_barrier(SEM_ACQ_REL | SEM_WORKGROUP_MEMORY, span)?;
        Ok(result)
    }

    /// `a op b` on values of scalar type `s` (SPIR-V type `ty`).
    pub(crate) fn combine(
        &mut self,
        op: GroupOp,
        s: ScalarType,
        ty: Word,
        a: Word,
        b: Word,
    ) -> Res<Word> {
        let float = s.is_float();
        let signed = s.is_signed_integer();
        let boolean = self.cx.bool_type();
        let less = |float: bool, signed: bool| match (float, signed) {
            (true, _) => Op::FOrdLessThan,
            (false, true) => Op::SLessThan,
            (false, false) => Op::ULessThan,
        };
        match op {
            GroupOp::Add => self.op(if float { Op::FAdd } else { Op::IAdd }, ty, &[a, b]),
            GroupOp::Min => {
                let lt = self.op(less(float, signed), boolean, &[b, a])?;
                self.op(Op::Select, ty, &[lt, b, a])
            }
            GroupOp::Max => {
                let lt = self.op(less(float, signed), boolean, &[a, b])?;
                self.op(Op::Select, ty, &[lt, b, a])
            }
            GroupOp::And => self.op(Op::BitwiseAnd, ty, &[a, b]),
            GroupOp::Or => self.op(Op::BitwiseOr, ty, &[a, b]),
            GroupOp::Xor => self.op(Op::BitwiseXor, ty, &[a, b]),
        }
    }

    /// The scratch array for element type `ty`, declared on first use (its bytes count
    /// towards the kernel's static shared memory).
    fn reduce_scratch(&mut self, s: ScalarType, ty: Word) -> Res<Word> {
        if let Some(&(_, var)) = self.cx.mem.reduce_scratch.iter().find(|(t, _)| *t == ty) {
            return Ok(var);
        }
        let len = self.cx.const_u32(SCRATCH);
        let array = self.cx.b.type_array(ty, len);
        let var = self
            .cx
            .global_variable(array, StorageClass::Workgroup, "workgroup_reduce");
        self.cx
            .mem
            .add_static_shared_bytes(u64::from(SCRATCH * (s.bits() / 8).max(1)));
        self.cx.mem.reduce_scratch.push((ty, var));
        Ok(var)
    }
}
