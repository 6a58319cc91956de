//! The intrinsic calls native code does not compute itself (`Bits.insert`'s four operands,
//! `Precision.packInt4x8` and the other precision-integer functions, `determinant`,
//! `inverse`, `reflect`…, `Math` on matrices, the int8 dot product) as one typed call each:
//! the operands, held in registers, are computed natively in order and passed as words
//! (`words.rs`), `cajeta_intrinsic` runs the interpreter's own implementation on their
//! values (`host::interp::intrinsic_values`), and the result comes back as words. No tree
//! walk, so no hand-off; errors are the interpreter's, at the call.

use inkwell::values::BasicValueEnum;

use super::bridge::on_interp;
use super::codegen::{Codegen, FnState, Gen};
use super::repr::in_registers;
use super::words::{value_of, word_count, write_words};
use crate::host::interp::{internal_fail, intrinsic_values, Value};
use crate::ir::{Expr, ExprKind, Intrinsic};

/// True for an intrinsic call whose operands and result are held in registers and whose
/// implementation takes values (the caller tries its native lowerings first).
pub fn is_intrinsic_call(e: &Expr) -> bool {
    let ExprKind::Intrinsic { op, args } = &e.kind else {
        return false;
    };
    matches!(
        op,
        Intrinsic::Math(_)
            | Intrinsic::Bits(_)
            | Intrinsic::BitCast(_)
            | Intrinsic::Vector(_)
            | Intrinsic::IntDot { .. }
            | Intrinsic::IntPrecision(_)
    ) && in_registers(&e.ty)
        && args.iter().all(|a| in_registers(&a.ty))
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Lowers a call [`is_intrinsic_call`] accepted: operands to words, `cajeta_intrinsic`,
    /// the result from words.
    pub(super) fn intrinsic_by_values(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let ExprKind::Intrinsic { args, .. } = &e.kind else {
            return Err("internal error: not an intrinsic".into());
        };
        let i64t = self.ctx.i64_type();
        let n_in = args.iter().map(|a| word_count(&a.ty)).sum::<usize>().max(1);
        let words = self.entry_alloca(i64t.array_type(n_in as u32).into(), "operands")?;
        let mut at = 0;
        for a in args {
            let v = self.value(st, a)?;
            at = self.store_words(v, &a.ty, words, at)?;
        }
        let n_out = word_count(&e.ty).max(1);
        let out = self.entry_alloca(i64t.array_type(n_out as u32).into(), "result")?;
        let node = self.node_ptr(e);
        self.bridge(
            st,
            "cajeta_intrinsic",
            &[node.into(), words.into(), out.into()],
        )?;
        Ok(self.load_words(&e.ty, out, 0)?.0)
    }
}

/// Intrinsic call `e` on the operands whose words are at `words`, its result's words to
/// `out`: the interpreter's implementation on their values.
///
/// # Safety
/// `e` is an intrinsic call of the run's module accepted by [`is_intrinsic_call`];
/// `words` holds its operands' words, `out` room for its result's.
pub unsafe extern "C" fn cajeta_intrinsic(e: *const Expr, words: *const i64, out: *mut i64) -> i32 {
    let e = &*e;
    let ExprKind::Intrinsic { op, args } = &e.kind else {
        return on_interp(|_| internal_fail(e.span, "an intrinsic call of a non-intrinsic"));
    };
    let n_in: usize = args.iter().map(|a| word_count(&a.ty)).sum();
    let all = std::slice::from_raw_parts(words, n_in);
    let mut at = 0;
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        let (v, n) = value_of(&all[at..], &a.ty).unwrap_or((Value::Void, 0));
        values.push(v);
        at += n;
    }
    let out = std::slice::from_raw_parts_mut(out, word_count(&e.ty));
    on_interp(|_| {
        let v = intrinsic_values(*op, values, e)?;
        write_words(&v, &e.ty, out);
        Ok(())
    })
}

/// This file's C-ABI functions (see `runtime::functions`).
pub fn functions() -> [(&'static str, &'static str, usize); 1] {
    [(
        "cajeta_intrinsic",
        "i(ppp)",
        cajeta_intrinsic as *const () as usize,
    )]
}
