//! Which functions get the SIMD-lane form (`simd.rs`) and how many lanes per vector.

use inkwell::llvm_sys::prelude::*;

/// Lanes per vector: `CAJETA_CPU_SIMD_WIDTH` when set (1 keeps every kernel scalar), else
/// [`DEFAULT_LANES`] ([`DIVERGENT_LOOP_LANES`] for a function with a divergent loop).
pub(crate) fn lane_count() -> usize {
    chosen_lanes().unwrap_or(DEFAULT_LANES)
}

/// `CAJETA_CPU_SIMD_WIDTH`, when set to a width the vector form takes.
pub(super) fn chosen_lanes() -> Option<usize> {
    std::env::var("CAJETA_CPU_SIMD_WIDTH")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|w| matches!(w, 1 | 2 | 4 | 8 | 16 | 32))
}

/// Lanes per vector by default, measured against 8 with `cpu_speed` (docs/cpu-device.md,
/// "SIMD lanes").
pub(super) const DEFAULT_LANES: usize = 16;

/// Lanes per vector of a function with a *divergent* loop (one its lanes may leave at
/// different iterations, such as mandelbrot's escape loop): two vectors of 16 per step,
/// two independent dependency chains for a loop bound by the latency of one, measured
/// against 16 with `cpu_speed` (docs/PERFORMANCE.md). Loops all lanes run in lock step (a
/// blur's taps) and straight-line code keep 16: there the wider form only added work.
pub(super) const DIVERGENT_LOOP_LANES: usize = 32;

/// Whether region function `function` of a split kernel is worth its vector form: it has a
/// loop (whose trip count may differ between invocations, which LLVM's loop vectorizer
/// does not take over the invocations) or a lane-by-lane call (a shared-memory atomic).
/// A straight-line region keeps the scalar loop over the invocations, which LLVM
/// vectorizes itself with less work per invocation (measured on `blockSum`'s tree steps,
/// docs/PERFORMANCE.md).
///
/// # Safety
/// `function` is a live function definition.
pub(crate) unsafe fn worth_lanes(function: LLVMValueRef) -> bool {
    let Ok(cfg) = super::simd::Cfg::new(function) else {
        return false;
    };
    !cfg.loops.is_empty()
        || cfg.blocks.iter().any(|b| {
            super::simd_classify::instructions(*b)
                .into_iter()
                .any(|i| super::simd_classify::is_lanewise(i))
        })
}
