//! Kernel backends: consumers of the checked [`crate::ir::Module`] that turn each kernel (and
//! the `@Device` helpers it calls) into a SPIR-V module plus its reflection document.
//!
//! `spirv` emits the words itself through rspirv (the default); `llvm` (feature
//! `native-host`) lowers the kernel to LLVM IR and emits through LLVM's SPIR-V target
//! (`--backend llvm`). The two share only the IR, the backend-independent layout in
//! [`crate::layout`] and the small entry points `spirv` exports for both (kernel shape checks,
//! resource access, the compiled-kernel types), and [`holds_f16_values`], a property of IR
//! expressions both use to keep exact float16 narrowings plain.

#[cfg(feature = "native-host")]
pub mod llvm;
pub mod spirv;

use crate::ir::{Expr, ExprKind, Intrinsic, PrecisionFn, ScalarType};

/// Whether the float32 value(s) of `e` are `float16` values by construction, so that their
/// conversion to `float16` is exact without rounding first: an `UnpackHalf2x16`, a widened
/// `float16`, or lanes, swizzles, splats and constructs of those. Both kernel backends narrow
/// such a value with one plain conversion where others are rounded on their bits first
/// (NVIDIA folds a narrowing and a widening in registers: `spirv/half_round.rs`).
pub(crate) fn holds_f16_values(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::Precision(PrecisionFn::UnpackHalf2x16),
            ..
        } => true,
        ExprKind::Convert(a) => a.ty.elem_scalar() == Some(ScalarType::F16),
        ExprKind::Swizzle(a, _) | ExprKind::Splat(a) => holds_f16_values(a),
        ExprKind::Construct(parts) => parts.iter().all(holds_f16_values),
        _ => false,
    }
}
