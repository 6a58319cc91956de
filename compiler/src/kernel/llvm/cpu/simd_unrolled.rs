//! Lane-by-lane calls of small helpers written out lane after lane (`simd_ops.rs` has the
//! general form, a loop over the mask's set bits).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use super::simd_classify::{callee, name_of, print_type};
use super::simd_emit::Emit;

impl Emit<'_> {
    /// Lane-by-lane call `inst` of block `b` written out once per lane, lane 0 first, each
    /// behind a test of its bit of `mask`: for a helper as small as a shared-memory
    /// read-modify-write (inlined afterwards), where the loop over the set bits with its
    /// variable-index extractions cost more than the work. The result (a scalar, or none)
    /// goes through a slot of `W` elements as in [`Self::lanewise_call`].
    pub(super) unsafe fn unrolled_call(&mut self, inst: LLVMValueRef, b: usize, mask: &str) {
        let w = self.lanes;
        let name = name_of(inst);
        let ret = print_type(LLVMTypeOf(inst));
        let slot = format!("{}.lanes", self.tmp());
        if ret != "void" {
            self.allocas
                .push_str(&format!("  {slot} = alloca [{w} x {ret}], align 64\n"));
        }
        let args = self.lane_call_arguments(inst, b);
        let called = callee(inst).unwrap_or_default();
        let cc = match LLVMGetInstructionCallConv(inst) {
            0 => String::new(),
            n => format!("cc {n} "),
        };
        // Every lane active (the common case in a loop over data): the calls one after the
        // other with no test; else each behind its lane's bit.
        let (all, every, some, join) = (
            self.tmp(),
            self.label("lanes.all"),
            self.label("lanes.some"),
            self.label("lanes.join"),
        );
        self.line(format!(
            "{all} = call i1 @llvm.vector.reduce.and.v{w}i1(<{w} x i1> {mask})"
        ));
        self.declare(
            &format!("llvm.vector.reduce.and.v{w}i1"),
            "i1",
            &format!("<{w} x i1>"),
        );
        self.line(format!("br i1 {all}, label %{every}, label %{some}"));
        for guarded in [false, true] {
            let start = if guarded { &some } else { &every };
            self.out.push_str(&format!("{start}:\n"));
            for lane in 0..w {
                self.unrolled_lane(lane, guarded, mask, &args, (&cc, &ret, &called, &slot));
            }
            self.line(format!("br label %{join}"));
        }
        self.out.push_str(&format!("{join}:\n"));
        if ret != "void" {
            let vty = self.vec(&ret);
            self.line(format!("%{name}.v = load {vty}, ptr {slot}"));
        }
    }

    /// One lane's call of [`Self::unrolled_call`] (behind its bit of `mask` when
    /// `guarded`): its arguments extracted from `args` (type, vector or scalar text), its
    /// result stored in `slot`. `call` is the calling convention, result type, callee and
    /// slot.
    unsafe fn unrolled_lane(
        &mut self,
        lane: usize,
        guarded: bool,
        mask: &str,
        args: &[(String, Option<String>, String)],
        (cc, ret, called, slot): (&str, &str, &str, &str),
    ) {
        let w = self.lanes;
        {
            let next = self.label("lane.next");
            if guarded {
                let (bit, call) = (self.tmp(), self.label("lane"));
                self.line(format!(
                    "{bit} = extractelement <{w} x i1> {mask}, i64 {lane}"
                ));
                self.line(format!("br i1 {bit}, label %{call}, label %{next}"));
                self.out.push_str(&format!("{call}:\n"));
            }
            let mut texts = Vec::new();
            for (t, v, s) in args {
                match v {
                    Some(v) => {
                        let e = self.tmp();
                        self.line(format!("{e} = extractelement <{w} x {t}> {v}, i64 {lane}"));
                        texts.push(format!("{t} {e}"));
                    }
                    None => texts.push(format!("{t} {s}")),
                }
            }
            let call_text = format!("call {cc}{ret} @\"{called}\"({})", texts.join(", "));
            if ret == "void" {
                self.line(call_text);
            } else {
                let (r, p) = (self.tmp(), self.tmp());
                self.line(format!("{r} = {call_text}"));
                self.line(format!(
                    "{p} = getelementptr [{w} x {ret}], ptr {slot}, i64 0, i64 {lane}"
                ));
                self.line(format!("store {ret} {r}, ptr {p}"));
            }
            if guarded {
                self.line(format!("br label %{next}"));
                self.out.push_str(&format!("{next}:\n"));
            }
        }
    }
}
