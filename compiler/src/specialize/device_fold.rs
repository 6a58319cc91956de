//! Constant folding and dead-branch removal for functions whose device queries became
//! constants (SPEC §8: "conditions on them fold, and a dead branch emits no code and no
//! capability").
//!
//! Folding follows the run-time semantics of SPEC §3/§4 exactly (integers wrap at their width,
//! shifts take the count modulo the width, division by zero is left to the backend, float
//! comparisons are ordered except `!=`); float arithmetic is not folded here (`FloatArith::Keep`), so no rounding
//! question arises. Removing a branch splices the live block into its parent; a `while` whose
//! condition is `false` disappears. Locals that nothing mentions afterwards are retyped `void`
//! so the backend declares no variable (and no type, no capability) for them.

use crate::ir::const_fold::{fold_node, FloatArith};
use crate::ir::visit::for_each_local_use;
use crate::ir::{Block, Constant, Expr, ExprKind, Function, Place, Stmt, Type};

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
    if let Some(replacement) = fold_node(e, FloatArith::Keep) {
        *e = replacement;
    }
}
