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
        let mut args = Vec::new();
        for i in 0..LLVMGetNumArgOperands(inst) {
            let o = LLVMGetOperand(inst, i);
            let t = Self::ty(o);
            if self.is_uniform(o) {
                args.push((t, None, self.scalar(o)));
            } else {
                let v = self.vector(o, b, b);
                args.push((t, Some(v), String::new()));
            }
        }
        let called = callee(inst).unwrap_or_default();
        let cc = match LLVMGetInstructionCallConv(inst) {
            0 => String::new(),
            n => format!("cc {n} "),
        };
        for lane in 0..w {
            let (bit, call, next) = (self.tmp(), self.label("lane"), self.label("lane.next"));
            self.line(format!(
                "{bit} = extractelement <{w} x i1> {mask}, i64 {lane}"
            ));
            self.line(format!("br i1 {bit}, label %{call}, label %{next}"));
            self.out.push_str(&format!("{call}:\n"));
            let mut texts = Vec::new();
            for (t, v, s) in &args {
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
            self.line(format!("br label %{next}"));
            self.out.push_str(&format!("{next}:\n"));
        }
        if ret != "void" {
            let vty = self.vec(&ret);
            self.line(format!("%{name}.v = load {vty}, ptr {slot}"));
        }
    }
}
