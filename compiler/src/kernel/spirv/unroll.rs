//! The `Unroll` loop-control hint: a loop whose trip count is small and fixed by constants is
//! marked for the driver to unroll, as GLSL's `[[unroll]]` would be (a GEMM's K step over a
//! staged tile, a subgroup's block of accumulators).
//!
//! The loop qualifies when its condition is `i < C` or `i <= C` for a local `i` and a
//! constant `C` of at most [`MAX_UNROLL_BOUND`], and its update (`continuing`) is
//! `i = i + S` for a positive constant `S`: from any start at or above zero that is at most
//! `C / S + 1` iterations (a negative start of a signed counter could run longer: the hint
//! stays a hint). Anything else keeps `LoopControl::NONE`. It is a hint: the result
//! is the same either way.

use rspirv::spirv::LoopControl;

use crate::ir::{BinaryOp, Block, Constant, Expr, ExprKind, Place, Stmt};

/// The largest constant bound a loop condition may have for the hint.
pub(crate) const MAX_UNROLL_BOUND: u64 = 64;

/// The loop control for a loop of this condition and update.
pub(crate) fn loop_control(pre_cond: Option<&Expr>, continuing: &Block) -> LoopControl {
    let counter = pre_cond.and_then(bounded_counter);
    match (counter, continuing.as_slice()) {
        (
            Some(i),
            [Stmt::Store {
                place: Place::Local(l),
                value,
                ..
            }],
        ) if *l == i && adds_positive_constant(value, i) => LoopControl::UNROLL,
        _ => LoopControl::NONE,
    }
}

/// `i` of a condition `i < C` / `i <= C` with a small non-negative constant `C`.
fn bounded_counter(cond: &Expr) -> Option<crate::ir::LocalId> {
    let ExprKind::Binary(BinaryOp::Lt | BinaryOp::Le, lhs, rhs) = &cond.kind else {
        return None;
    };
    let (ExprKind::Load(Place::Local(i)), ExprKind::Const(Constant::Int(c))) =
        (&lhs.kind, &rhs.kind)
    else {
        return None;
    };
    let small = rhs.ty.as_scalar().is_some_and(|s| s.is_integer()) && *c <= MAX_UNROLL_BOUND;
    small.then_some(*i)
}

/// Whether `value` is `i + S` (or `S + i`) for an integer constant `S` in 1..=64 (a negative
/// constant's bits, truncated or sign-extended, fall outside).
fn adds_positive_constant(value: &Expr, i: crate::ir::LocalId) -> bool {
    let ExprKind::Binary(BinaryOp::Add, a, b) = &value.kind else {
        return false;
    };
    let is_i = |e: &Expr| matches!(&e.kind, ExprKind::Load(Place::Local(l)) if *l == i);
    let positive = |e: &Expr| matches!(&e.kind, ExprKind::Const(Constant::Int(s)) if (1..=MAX_UNROLL_BOUND).contains(s));
    (is_i(a) && positive(b)) || (positive(a) && is_i(b))
}
