//! Constant folding and dead-branch removal for functions whose device queries became
//! constants (SPEC §8: "conditions on them fold, and a dead branch emits no code and no
//! capability").
//!
//! Folding follows the run-time semantics of SPEC §3/§4 exactly (integers wrap at their width,
//! shifts take the count modulo the width, division by zero is left to the backend, float
//! comparisons are ordered except `!=`); float arithmetic is never folded, so no rounding
//! question arises. Removing a branch splices the live block into its parent; a `while` whose
//! condition is `false` disappears. Locals that nothing mentions afterwards are retyped `void`
//! so the backend declares no variable (and no type, no capability) for them.

use crate::ir::visit::for_each_local_use;
use crate::ir::{
    BinaryOp, Block, Constant, Expr, ExprKind, Function, Place, ScalarType, Stmt, Type, UnaryOp,
};

/// Rewrites one expression node (its operands already visited): how queries become constants.
pub type Rewrite<'r> = &'r dyn Fn(&mut Expr);

/// Applies `rewrite` to every expression of `f` bottom-up, folding as it goes, then prunes
/// dead branches and unused locals.
pub fn fold_function(f: &mut Function, rewrite: Rewrite) {
    fold_block(&mut f.body, rewrite);
    let mut used = vec![false; f.locals.len()];
    for_each_local_use(&f.body, &mut |l, _| {
        if let Some(u) = used.get_mut(l.0) {
            *u = true;
        }
    });
    for (i, local) in f.locals.iter_mut().enumerate().skip(f.param_count) {
        let declares = matches!(
            local.ty,
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..) | Type::CoopMatrix(_)
        );
        if declares && !used[i] {
            local.ty = Type::Void;
        }
    }
}

fn fold_block(block: &mut Block, rw: Rewrite) {
    let old = std::mem::take(block);
    for mut s in old {
        match &mut s {
            Stmt::Expr(e) => fold_expr(e, rw),
            Stmt::Store { place, value, .. } => {
                fold_place(place, rw);
                fold_expr(value, rw);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                fold_expr(cond, rw);
                fold_block(then, rw);
                fold_block(otherwise, rw);
                if let ExprKind::Const(Constant::Bool(b)) = cond.kind {
                    let live = if b { then } else { otherwise };
                    block.append(live);
                    continue;
                }
            }
            Stmt::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
                ..
            } => {
                pre_cond
                    .iter_mut()
                    .chain(post_cond.iter_mut())
                    .for_each(|e| fold_expr(e, rw));
                fold_block(body, rw);
                fold_block(continuing, rw);
                match pre_cond.as_ref().map(|c| &c.kind) {
                    Some(ExprKind::Const(Constant::Bool(false))) => continue,
                    Some(ExprKind::Const(Constant::Bool(true))) => *pre_cond = None,
                    _ => {}
                }
            }
            Stmt::Return(Some(e), _) => fold_expr(e, rw),
            Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) => {}
        }
        block.push(s);
    }
    // A spliced branch may end in return/break/continue: what follows can never run.
    if let Some(end) = block
        .iter()
        .position(|s| matches!(s, Stmt::Return(..) | Stmt::Break(_) | Stmt::Continue(_)))
    {
        block.truncate(end + 1);
    }
}

fn fold_place(p: &mut Place, rw: Rewrite) {
    match p {
        Place::Local(_) => {}
        Place::Index { base, index } => {
            fold_expr(base, rw);
            fold_expr(index, rw);
        }
        Place::Field { base, .. } | Place::Lane { base, .. } => fold_place(base, rw),
    }
}

fn const_of(e: &Expr) -> Option<(Constant, ScalarType)> {
    match (&e.kind, &e.ty) {
        (ExprKind::Const(c), Type::Scalar(s)) => Some((*c, *s)),
        _ => None,
    }
}

/// Folds `e` bottom-up.
fn fold_expr(e: &mut Expr, rw: Rewrite) {
    match &mut e.kind {
        ExprKind::Const(_) | ExprKind::Str(_) | ExprKind::Launch(_) => {}
        ExprKind::Load(p) => fold_place(p, rw),
        ExprKind::Unary(_, a) | ExprKind::Convert(a) | ExprKind::Splat(a) => fold_expr(a, rw),
        ExprKind::Swizzle(a, _) => fold_expr(a, rw),
        ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
            fold_expr(a, rw);
            fold_expr(b, rw);
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            fold_expr(cond, rw);
            fold_expr(then, rw);
            fold_expr(otherwise, rw);
        }
        ExprKind::Call { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Host { args, .. }
        | ExprKind::Construct(args) => args.iter_mut().for_each(|e| fold_expr(e, rw)),
        ExprKind::Sequence(stmts, v) => {
            fold_block(stmts, rw);
            fold_expr(v, rw);
        }
    }
    rw(e);
    if let Some(replacement) = fold_node(e) {
        *e = replacement;
    }
}

/// The folded form of one node whose operands are already folded, if it folds.
fn fold_node(e: &Expr) -> Option<Expr> {
    let constant = |c: Constant| Some(Expr::constant(c, e.ty.clone(), e.span));
    match &e.kind {
        ExprKind::LogicalAnd(a, b) => match a.kind {
            ExprKind::Const(Constant::Bool(false)) => constant(Constant::Bool(false)),
            ExprKind::Const(Constant::Bool(true)) => Some((**b).clone()),
            _ => None,
        },
        ExprKind::LogicalOr(a, b) => match a.kind {
            ExprKind::Const(Constant::Bool(true)) => constant(Constant::Bool(true)),
            ExprKind::Const(Constant::Bool(false)) => Some((**b).clone()),
            _ => None,
        },
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => match cond.kind {
            ExprKind::Const(Constant::Bool(c)) => {
                Some(if c { &**then } else { &**otherwise }.clone())
            }
            _ => None,
        },
        ExprKind::Convert(a) => {
            let (c, from) = const_of(a)?;
            let to = e.ty.as_scalar()?;
            constant(crate::sema::fold::convert_constant(c, from, to)?)
        }
        ExprKind::Unary(op, a) => {
            let (c, s) = const_of(a)?;
            match (op, c) {
                (UnaryOp::Not, Constant::Bool(b)) => constant(Constant::Bool(!b)),
                (UnaryOp::Neg, Constant::Int(v)) if s.is_integer() => {
                    constant(Constant::Int(wrap(0u64.wrapping_sub(v), s)))
                }
                (UnaryOp::BitNot, Constant::Int(v)) if s.is_integer() => {
                    constant(Constant::Int(wrap(!v, s)))
                }
                _ => None,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let ((x, s), (y, _)) = (const_of(a)?, const_of(b)?);
            constant(binary(*op, x, y, s)?)
        }
        _ => None,
    }
}

/// Keeps the low `s.bits()` bits.
fn wrap(v: u64, s: ScalarType) -> u64 {
    match s.bits() {
        64 => v,
        w => v & ((1u64 << w) - 1),
    }
}

/// The value as a signed or unsigned 128-bit integer, per the type.
fn wide(v: u64, s: ScalarType) -> i128 {
    if s.is_signed_integer() {
        let shift = 64 - s.bits();
        (((v << shift) as i64) >> shift) as i128
    } else {
        v as i128
    }
}

fn binary(op: BinaryOp, x: Constant, y: Constant, s: ScalarType) -> Option<Constant> {
    use BinaryOp::*;
    use Constant::{Bool, Float, Int};
    Some(match (x, y) {
        (Bool(a), Bool(b)) => Bool(match op {
            Eq => a == b,
            Ne => a != b,
            BitAnd => a & b,
            BitOr => a | b,
            BitXor => a ^ b,
            _ => return None,
        }),
        (Float(a), Float(b)) => Bool(match op {
            Eq => a == b,
            Ne => a != b,
            Lt => a < b,
            Le => a <= b,
            Gt => a > b,
            Ge => a >= b,
            _ => return None,
        }),
        (Int(a), Int(b)) if s.is_integer() => {
            let (wa, wb) = (wide(a, s), wide(b, s));
            if op.is_comparison() {
                return Some(Bool(match op {
                    Eq => wa == wb,
                    Ne => wa != wb,
                    Lt => wa < wb,
                    Le => wa <= wb,
                    Gt => wa > wb,
                    _ => wa >= wb,
                }));
            }
            let width = s.bits() as u64;
            Int(wrap(
                match op {
                    Add => a.wrapping_add(b),
                    Sub => a.wrapping_sub(b),
                    Mul => a.wrapping_mul(b),
                    BitAnd => a & b,
                    BitOr => a | b,
                    BitXor => a ^ b,
                    // Division by zero yields 0 in kernels; leave that to the backend.
                    Div if wb != 0 => (wa / wb) as u64,
                    Rem if wb != 0 => (wa % wb) as u64,
                    Shl => a << (b % width),
                    Shr if s.is_signed_integer() => (wa >> (b % width)) as u64,
                    Shr | UShr => wrap(a, s) >> (b % width),
                    _ => return None,
                },
                s,
            ))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn integer_folding_wraps_and_respects_signedness() {
        assert_eq!(
            binary(
                BinaryOp::Add,
                Constant::Int(0xFFFF_FFFF),
                Constant::Int(1),
                U32
            ),
            Some(Constant::Int(0))
        );
        assert_eq!(
            binary(
                BinaryOp::Lt,
                Constant::Int(0xFFFF_FFFF),
                Constant::Int(1),
                I32
            ),
            Some(Constant::Bool(true))
        );
        assert_eq!(
            binary(
                BinaryOp::Lt,
                Constant::Int(0xFFFF_FFFF),
                Constant::Int(1),
                U32
            ),
            Some(Constant::Bool(false))
        );
        assert_eq!(
            binary(
                BinaryOp::Shr,
                Constant::Int(0xFFFF_FFF0),
                Constant::Int(36),
                I32
            ),
            Some(Constant::Int(0xFFFF_FFFF))
        );
        assert_eq!(
            binary(
                BinaryOp::Div,
                Constant::Int(0xFFFF_FFF9),
                Constant::Int(2),
                I32
            ),
            Some(Constant::Int(0xFFFF_FFFD))
        );
        assert_eq!(
            binary(BinaryOp::Div, Constant::Int(1), Constant::Int(0), I32),
            None
        );
        assert_eq!(
            binary(
                BinaryOp::Ne,
                Constant::Float(f64::NAN),
                Constant::Float(1.0),
                F32
            ),
            Some(Constant::Bool(true))
        );
        assert_eq!(
            binary(
                BinaryOp::Add,
                Constant::Float(1.0),
                Constant::Float(1.0),
                F32
            ),
            None
        );
    }
}
