//! Unsigned integers converted to a narrower float on the CPU target (`uint64` to
//! `float32` or `float16`, `uint32` to `float16`) without LLVM's `uitofp` of the wide value.
//!
//! Why: LLVM 23.1's SLP vectorizer, which runs in `default<O2>` (`jit.rs`), narrows the
//! integer operand of a vectorized `uitofp` to the float's width when the value has that
//! many sign bits, which is right for `sitofp` only. `(float32) ((uint64) x)` of a negative
//! `int32` x (`uitofp (sext x to i64)`, 18446744073709551607 for -9) became
//! `uitofp <2 x i32>` of x (4294967287) once two such lanes were built into one vector
//! (a matrix column; `cajeta-fuzz --seed 95`, programs 211 and 313; docs/fuzzing.md). The
//! host's native code does not run that vectorizer. A `float16` result is narrowed the same
//! way (`uitofp (sext i16 to i64) to half` became `uitofp i16`), and converted so here too.
//!
//! The conversion here is the one x86 code generation emits for `uitofp i64` itself: a
//! value below the signed range's end converts as signed; one at or past it is halved,
//! its lowest bit kept as a sticky bit (`(x >> 1) | (x & 1)`, which rounds to the same
//! float since the float has far fewer significant bits than the integer), converted as
//! signed and doubled. Only `sitofp` is left, whose narrowing by sign bits is exact.

use super::super::lower::{FnLower, Val};
use crate::ir::ScalarType;

impl FnLower<'_> {
    /// `uitofp` of `v` (of unsigned type `from`, LLVM type `v.ty`) to the float `to_ty` of
    /// type `to`, when `to` is narrower than `from` on the CPU target; `None` otherwise
    /// (a plain `uitofp` is exact there).
    pub(crate) fn cpu_unsigned_to_narrower_float(
        &mut self,
        v: &Val,
        from: ScalarType,
        to: ScalarType,
        to_ty: &'static str,
    ) -> Option<Val> {
        if self.target != super::super::target::Target::Cpu || to.bits() >= from.bits() {
            return None;
        }
        let ity = v.ty;
        let x = &v.text;
        let [small, half, low, sticky, small_f, sticky_f, twice, out] = self.tmps();
        self.emit(format!("{small} = icmp sge {ity} {x}, 0"));
        self.emit(format!("{half} = lshr {ity} {x}, 1"));
        self.emit(format!("{low} = and {ity} {x}, 1"));
        self.emit(format!("{sticky} = or {ity} {half}, {low}"));
        self.emit(format!("{small_f} = sitofp {ity} {x} to {to_ty}"));
        self.emit(format!("{sticky_f} = sitofp {ity} {sticky} to {to_ty}"));
        self.emit(format!("{twice} = fadd {to_ty} {sticky_f}, {sticky_f}"));
        self.emit(format!(
            "{out} = select i1 {small}, {to_ty} {small_f}, {to_ty} {twice}"
        ));
        Some(Val::new(out, to_ty))
    }
}
