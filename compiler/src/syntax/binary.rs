//! Binary operators by precedence climbing.
//!
//! The grammar reads a run of operands and binary operators flat (`Unary (BinOp Unary)*`)
//! and this module builds the tree. Spelled as ten grammar tiers (`||` over `&&` over … over
//! `*`), every operand climbed through all ten with one parser reduction each, moving the
//! whole expression every time: three quarters of the parser's reductions and a quarter of
//! a 200-kernel compile's time went to that. The trees, spans and nesting checks are those
//! the tiers built: all operators are left-associative and nodes are made in the same order.

use super::ast::{BinOp, Expr, ExprKind};
use super::nesting::NestingGuard;
use crate::diagnostics::{FileId, Span};

/// An operand with the byte offsets of its first and last token (a parenthesized operand's
/// span starts inside the parentheses; the node around it starts at the `(`).
pub type Operand = (usize, Expr, usize);

/// How tightly `op` binds: `*` highest, `||` lowest (Java's order).
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::BitOr => 3,
        BinOp::BitXor => 4,
        BinOp::BitAnd => 5,
        BinOp::Eq | BinOp::Ne => 6,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
        BinOp::Shl | BinOp::Shr | BinOp::UShr => 8,
        BinOp::Add | BinOp::Sub => 9,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
    }
}

/// The tree of `first op₁ e₁ op₂ e₂ …`, left-associative at every level; `rest` holds each
/// operator with its right operand as the grammar reads them (`op`, start, operand, end).
pub fn climb(
    file: FileId,
    guard: &NestingGuard,
    first: Operand,
    rest: Vec<(BinOp, usize, Expr, usize)>,
) -> Expr {
    // Left operands waiting for their right one, each with its operator; their precedences
    // rise from bottom to top.
    let mut pending: Vec<(Operand, BinOp)> = Vec::with_capacity(rest.len());
    let mut right = first;
    for (op, l, next, r) in rest {
        // What binds at least as tightly as `op` is complete: build it (as the tiers'
        // parser reduced it on seeing `op`).
        right = fold(file, guard, &mut pending, right, precedence(op));
        pending.push((right, op));
        right = (l, next, r);
    }
    fold(file, guard, &mut pending, right, 0).1
}

/// Pops every pending operator of precedence `min` or more, innermost first, making its
/// node with `right` as the right operand; the node that is left.
fn fold(
    file: FileId,
    guard: &NestingGuard,
    pending: &mut Vec<(Operand, BinOp)>,
    mut right: Operand,
    min: u8,
) -> Operand {
    while let Some(((l, left, _), op)) = pending.pop_if(|(_, top)| precedence(*top) >= min) {
        let r = right.2;
        let kind = ExprKind::Binary(op, Box::new(left), Box::new(right.1));
        right = (l, guard.expr(kind, Span::new(file, l, r)), r);
    }
    right
}
