//! `Workgroup.reduce(op, v)` exactly as the rspirv backend lowers it: a 256-element
//! workgroup scratch array per element type, no subgroup operations. Phase 1 folds the
//! invocations into the array 256 at a time (invocation `l` into element `l mod 256`, one
//! barrier per round); phase 2 is a tree over its elements (strides 128 down to 1, one
//! barrier each); every invocation then reads element 0, and a last barrier keeps a
//! following reduction from overwriting it early. The combining order is the rspirv
//! backend's, so float sums round the same way through both backends.

use super::lower::{FnLower, Val};
use super::refuse;
use super::target::Target;
use super::types::scalar;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Axis, Expr, GroupOp, ScalarType};

type Res<T> = Result<T, Diagnostic>;

/// Elements of the scratch array.
const SCRATCH: u32 = 256;

/// The barrier between rounds: `OpControlBarrier(Workgroup, Workgroup, AcquireRelease |
/// WorkgroupMemory)`.
const BARRIER: &str = "llvm.spv.group.memory.barrier.with.group.sync";

impl FnLower<'_> {
    /// Lowers `Workgroup.reduce(op, v)`.
    pub(super) fn workgroup_reduce(&mut self, args: &[Expr], e: &Expr) -> Res<Val> {
        let [op_arg, v_arg] = args else {
            return Err(refuse(e.span, "a malformed `Workgroup.reduce`"));
        };
        let op = GroupOp::of_operand(op_arg)?;
        let Some(s) = e.ty.as_scalar() else {
            return Err(refuse(e.span, format!("`Workgroup.reduce` of `{}`", e.ty)));
        };
        if s.is_float() && matches!(op, GroupOp::And | GroupOp::Or | GroupOp::Xor) {
            return Err(Diagnostic::error(
                Code::InvalidOperator,
                op_arg.span,
                format!("a bitwise GroupOp needs an integer value, found `{s}`"),
            ));
        }
        let ty = scalar(s, e.span)?;
        if s == ScalarType::Bool {
            return Err(refuse(e.span, "`Workgroup.reduce` of `boolean`"));
        }
        let v = self.expr(v_arg)?;
        let scratch = self.reduce_scratch(s, ty);
        let array = format!("[{SCRATCH} x {ty}]");
        let [x, y, z] = [Axis::X, Axis::Y, Axis::Z].map(|a| self.builtin_lane("WorkgroupSize", a));
        let (x, y, z) = (x?, y?, z?);
        let (xy, n) = (self.tmp(), self.tmp());
        self.emit(format!("{xy} = mul i32 {}, {}", x.text, y.text));
        self.emit(format!("{n} = mul i32 {xy}, {}", z.text));
        let l = match self.target {
            Target::Cpu => self.cpu_local_index().text,
            Target::Spirv => self.scalar_builtin("LocalInvocationIndex")?.text,
        };

        // Phase 1: for (base = 0; base < n; base += 256).
        let pre = self.block.clone();
        let (head, body, then, endif, cont, merge) = (
            self.label("wgr_round"),
            self.label("wgr_fold"),
            self.label("wgr_mine"),
            self.label("wgr_folded"),
            self.label("wgr_next"),
            self.label("wgr_tree"),
        );
        let (base, next, more, rel, mine) =
            (self.tmp(), self.tmp(), self.tmp(), self.tmp(), self.tmp());
        self.emit(format!("br label %{head}"));
        self.start_block(&head);
        self.emit(format!(
            "{base} = phi i32 [ 0, %{pre} ], [ {next}, %{cont} ]"
        ));
        self.emit(format!("{more} = icmp ult i32 {base}, {n}"));
        self.emit(format!("br i1 {more}, label %{body}, label %{merge}"));
        self.start_block(&body);
        // l - base wraps to a large value when l < base: one unsigned compare.
        self.emit(format!("{rel} = sub i32 {l}, {base}"));
        self.emit(format!("{mine} = icmp ult i32 {rel}, {SCRATCH}"));
        self.emit(format!("br i1 {mine}, label %{then}, label %{endif}"));
        self.start_block(&then);
        let [p, first, old, value] = self.tmps();
        self.emit(format!(
            "{p} = getelementptr {array}, ptr addrspace(3) {scratch}, i32 0, i32 {rel}"
        ));
        self.emit(format!("{first} = icmp eq i32 {base}, 0"));
        self.emit(format!("{old} = load {ty}, ptr addrspace(3) {p}"));
        let folded = self.combine(op, s, ty, &old, &v.text);
        self.emit(format!(
            "{value} = select i1 {first}, {ty} {}, {ty} {folded}",
            v.text
        ));
        self.emit(format!("store {ty} {value}, ptr addrspace(3) {p}"));
        self.emit(format!("br label %{endif}"));
        self.start_block(&endif);
        self.reduce_barrier();
        self.emit(format!("br label %{cont}"));
        self.start_block(&cont);
        self.emit(format!("{next} = add i32 {base}, {SCRATCH}"));
        self.emit(format!("br label %{head}"));
        self.start_block(&merge);

        // Phase 2: the tree, strides 128 down to 1.
        let mut stride = SCRATCH / 2;
        while stride > 0 {
            let [low, partner, present, active] = self.tmps();
            let (then, endif) = (self.label("wgr_pair"), self.label("wgr_paired"));
            self.emit(format!("{low} = icmp ult i32 {l}, {stride}"));
            self.emit(format!("{partner} = add i32 {l}, {stride}"));
            self.emit(format!("{present} = icmp ult i32 {partner}, {n}"));
            self.emit(format!("{active} = and i1 {low}, {present}"));
            self.emit(format!("br i1 {active}, label %{then}, label %{endif}"));
            self.start_block(&then);
            let [pm, pt, a, b] = self.tmps();
            self.emit(format!(
                "{pm} = getelementptr {array}, ptr addrspace(3) {scratch}, i32 0, i32 {l}"
            ));
            self.emit(format!(
                "{pt} = getelementptr {array}, ptr addrspace(3) {scratch}, i32 0, i32 {partner}"
            ));
            self.emit(format!("{a} = load {ty}, ptr addrspace(3) {pm}"));
            self.emit(format!("{b} = load {ty}, ptr addrspace(3) {pt}"));
            let r = self.combine(op, s, ty, &a, &b);
            self.emit(format!("store {ty} {r}, ptr addrspace(3) {pm}"));
            self.emit(format!("br label %{endif}"));
            self.start_block(&endif);
            self.reduce_barrier();
            stride /= 2;
        }
        let result = self.tmp();
        self.emit(format!("{result} = load {ty}, ptr addrspace(3) {scratch}"));
        self.reduce_barrier();
        Ok(Val::new(result, ty))
    }

    /// `a op b` on values of scalar type `s` (LLVM type `ty`); returns the result's name.
    fn combine(&mut self, op: GroupOp, s: ScalarType, ty: &str, a: &str, b: &str) -> String {
        let float = s.is_float();
        let less = match (float, s.is_signed_integer()) {
            (true, _) => "fcmp olt",
            (false, true) => "icmp slt",
            (false, false) => "icmp ult",
        };
        let t = self.tmp();
        match op {
            GroupOp::Add if float => self.emit(format!("{t} = fadd {ty} {a}, {b}")),
            GroupOp::Add => self.emit(format!("{t} = add {ty} {a}, {b}")),
            GroupOp::Min | GroupOp::Max => {
                let lt = self.tmp();
                // As rspirv: min picks b when b < a, max picks b when a < b.
                if op == GroupOp::Min {
                    self.emit(format!("{lt} = {less} {ty} {b}, {a}"));
                } else {
                    self.emit(format!("{lt} = {less} {ty} {a}, {b}"));
                }
                self.emit(format!("{t} = select i1 {lt}, {ty} {b}, {ty} {a}"));
            }
            GroupOp::And => self.emit(format!("{t} = and {ty} {a}, {b}")),
            GroupOp::Or => self.emit(format!("{t} = or {ty} {a}, {b}")),
            GroupOp::Xor => self.emit(format!("{t} = xor {ty} {a}, {b}")),
        }
        t
    }

    /// The barrier between rounds; on the CPU target the workgroup barrier through the
    /// invocation context.
    fn reduce_barrier(&mut self) {
        match self.target {
            Target::Cpu => self.cpu_barrier(),
            Target::Spirv => {
                self.declare(format!("declare void @{BARRIER}()"));
                self.emit(format!("call void @{BARRIER}()"));
            }
        }
    }

    /// The scratch array of scalar type `s`, declared on first use (one per type, as the
    /// rspirv backend: its bytes count towards the kernel's static shared memory). On the
    /// CPU target it is a place in the workgroup's shared memory, as a `Shared` array.
    fn reduce_scratch(&mut self, s: ScalarType, ty: &str) -> String {
        if self.target == Target::Cpu {
            let name = format!("%workgroup_reduce.{}.{}", self.kernel_tag(), s.name());
            if !self.allocas.contains(&format!("{name} = ")) {
                let offset = self.cpu_place_shared(u64::from(SCRATCH * (s.bits() / 8).max(1)));
                self.allocas
                    .push_str(&super::cpu::hooks::shared_array(&name, offset));
            }
            return name;
        }
        let global = format!("@workgroup_reduce.{}.{}", self.kernel_tag(), s.name());
        let decl = format!("{global} = internal addrspace(3) global [{SCRATCH} x {ty}] poison");
        if !self.globals.contains(&decl) {
            self.globals.push(decl);
            self.shared_bytes += u64::from(SCRATCH * (s.bits() / 8).max(1));
        }
        global
    }
}
