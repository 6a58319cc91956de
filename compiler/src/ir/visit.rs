//! Generic read-only walks over the IR tree: finding an expression, and the uses of locals.

use super::{Block, Expr, ExprKind, Launch, LocalId, Place, Stmt};
use crate::ir::{Function, Intrinsic, Type};

/// The first expression of `block` (in source order, outer before inner; a launch's stream,
/// sizes, then arguments) satisfying `pred`.
pub fn find_expr<'a>(block: &'a [Stmt], pred: &dyn Fn(&Expr) -> bool) -> Option<&'a Expr> {
    fn expr<'a>(e: &'a Expr, pred: &dyn Fn(&Expr) -> bool) -> Option<&'a Expr> {
        if pred(e) {
            return Some(e);
        }
        match &e.kind {
            ExprKind::Unary(_, a)
            | ExprKind::Convert(a)
            | ExprKind::Splat(a)
            | ExprKind::Swizzle(a, _) => expr(a, pred),
            ExprKind::Construct(items) => items.iter().find_map(|a| expr(a, pred)),
            ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                expr(a, pred).or_else(|| expr(b, pred))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => expr(cond, pred)
                .or_else(|| expr(then, pred))
                .or_else(|| expr(otherwise, pred)),
            ExprKind::Call { args, .. }
            | ExprKind::Intrinsic { args, .. }
            | ExprKind::Host { args, .. } => args.iter().find_map(|a| expr(a, pred)),
            ExprKind::Load(p) => place(p, pred),
            ExprKind::Sequence(stmts, v) => find_expr(stmts, pred).or_else(|| expr(v, pred)),
            ExprKind::Launch(l) => launch_parts(l).find_map(|a| expr(a, pred)),
            ExprKind::Const(_) | ExprKind::Str(_) => None,
        }
    }
    fn place<'a>(p: &'a Place, pred: &dyn Fn(&Expr) -> bool) -> Option<&'a Expr> {
        match p {
            Place::Local(_) => None,
            Place::Index { base, index } => expr(base, pred).or_else(|| expr(index, pred)),
            Place::Lane { base, .. } | Place::Field { base, .. } => place(base, pred),
        }
    }
    block.iter().find_map(|s| match s {
        Stmt::Expr(e) => expr(e, pred),
        Stmt::Store {
            place: p, value, ..
        } => expr(value, pred).or_else(|| place(p, pred)),
        Stmt::If {
            cond,
            then,
            otherwise,
        } => expr(cond, pred)
            .or_else(|| find_expr(then, pred))
            .or_else(|| find_expr(otherwise, pred)),
        Stmt::Loop {
            pre_cond,
            body,
            continuing,
            post_cond,
            ..
        } => pre_cond
            .iter()
            .chain(post_cond)
            .find_map(|c| expr(c, pred))
            .or_else(|| find_expr(body, pred))
            .or_else(|| find_expr(continuing, pred)),
        Stmt::Return(Some(e), _) => expr(e, pred),
        Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) => None,
    })
}

/// A kernel's dynamic shared array: the parameter giving its length and its element type.
pub fn dynamic_shared(f: &Function) -> Option<(LocalId, Type)> {
    let e = find_expr(&f.body, &|e| {
        matches!(&e.kind, ExprKind::Intrinsic { op: Intrinsic::SharedNew, args }
            if matches!(args.first().map(|a| &a.kind), Some(ExprKind::Load(Place::Local(_)))))
    })?;
    match (&e.kind, &e.ty) {
        (ExprKind::Intrinsic { args, .. }, Type::Shared(elem)) => {
            match args.first().map(|a| &a.kind) {
                Some(ExprKind::Load(Place::Local(l))) => Some((*l, (**elem).clone())),
                _ => None,
            }
        }
        _ => None,
    }
}

/// How a statement mentions a local: as the root of a store's place (through fields and
/// lanes), or anywhere else (loads, including the buffers and indices of indexed places).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalUse {
    /// Read.
    Load,
    /// Written by a `Store` whose place is rooted at it.
    Store,
}

/// Calls `f` for every mention of a local in `block`, nested blocks, sequences and launches
/// included.
pub fn for_each_local_use(block: &Block, f: &mut dyn FnMut(LocalId, LocalUse)) {
    for s in block {
        for_each_local_use_in_stmt(s, f);
    }
}

/// [`for_each_local_use`] of one statement.
pub fn for_each_local_use_in_stmt(s: &Stmt, f: &mut dyn FnMut(LocalId, LocalUse)) {
    let expr = for_each_local_use_in_expr;
    match s {
        Stmt::Expr(e) | Stmt::Return(Some(e), _) => expr(e, f),
        Stmt::Store {
            place: p, value, ..
        } => {
            place_uses(p, LocalUse::Store, f);
            expr(value, f);
        }
        Stmt::If {
            cond,
            then,
            otherwise,
        } => {
            expr(cond, f);
            for_each_local_use(then, f);
            for_each_local_use(otherwise, f);
        }
        Stmt::Loop {
            pre_cond,
            body,
            continuing,
            post_cond,
            ..
        } => {
            pre_cond.iter().chain(post_cond).for_each(|c| expr(c, f));
            for_each_local_use(body, f);
            for_each_local_use(continuing, f);
        }
        Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) => {}
    }
}

fn place_uses(p: &Place, role: LocalUse, f: &mut dyn FnMut(LocalId, LocalUse)) {
    match p {
        Place::Local(l) => f(*l, role),
        Place::Index { base, index } => {
            for_each_local_use_in_expr(base, f);
            for_each_local_use_in_expr(index, f);
        }
        Place::Lane { base, .. } | Place::Field { base, .. } => place_uses(base, role, f),
    }
}

/// [`for_each_local_use`] of one expression.
pub fn for_each_local_use_in_expr(e: &Expr, f: &mut dyn FnMut(LocalId, LocalUse)) {
    let expr = for_each_local_use_in_expr;
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Str(_) => {}
        ExprKind::Launch(l) => launch_parts(l).for_each(|a| expr(a, f)),
        ExprKind::Load(p) => place_uses(p, LocalUse::Load, f),
        ExprKind::Unary(_, a)
        | ExprKind::Convert(a)
        | ExprKind::Splat(a)
        | ExprKind::Swizzle(a, _) => expr(a, f),
        ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
            expr(a, f);
            expr(b, f);
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            expr(cond, f);
            expr(then, f);
            expr(otherwise, f);
        }
        ExprKind::Call { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Host { args, .. }
        | ExprKind::Construct(args) => args.iter().for_each(|a| expr(a, f)),
        ExprKind::Sequence(stmts, v) => {
            for_each_local_use(stmts, f);
            expr(v, f);
        }
    }
}

/// The expressions of a launch, in evaluation order.
fn launch_parts(l: &Launch) -> impl Iterator<Item = &Expr> {
    std::iter::once(&l.stream)
        .chain(&l.grid)
        .chain(&l.block)
        .chain(&l.args)
        .chain(&l.shared_bytes)
        .chain(&l.spec)
}
