//! The plan of a kernel split at its barriers (`split.rs`): which statements form the
//! regions, which `if`s and loops stay control flow around them, and which locals each
//! region mentions. A shape this does not split gives no plan.

use crate::ir::visit::{find_expr, for_each_local_use_in_expr, for_each_local_use_in_stmt};
use crate::ir::{self, BarrierKind, Expr, ExprKind, Intrinsic, LoopId, Stmt};

/// The kernel body as the workgroup function runs it.
pub(super) enum Node<'a> {
    /// Statements without a barrier, run by every invocation in turn.
    Region(Vec<&'a Stmt>),
    /// An `if` with a barrier in a branch.
    If {
        cond: &'a Expr,
        then: Vec<Node<'a>>,
        otherwise: Vec<Node<'a>>,
    },
    /// A loop with a barrier in its body or update.
    Loop {
        pre_cond: Option<&'a Expr>,
        body: Vec<Node<'a>>,
        continuing: Vec<Node<'a>>,
        post_cond: Option<&'a Expr>,
    },
}

/// What a region runs: statements, or a condition it evaluates.
pub(super) enum Work<'a> {
    Stmts(&'a [&'a Stmt]),
    Cond(&'a Expr),
}

/// Whether `e` is a workgroup barrier, or reaches one (`Workgroup.reduce`, a helper that
/// has one).
fn reaches_barrier(module: &ir::Module, e: &Expr, depth: u32) -> bool {
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::Barrier(BarrierKind::Workgroup) | Intrinsic::WorkgroupReduce,
            ..
        } => true,
        ExprKind::Call { func, .. } => {
            depth > 16
                || module
                    .functions
                    .get(func.0)
                    .is_some_and(|f| has_barrier(module, &f.body, depth + 1))
        }
        _ => false,
    }
}

pub(crate) fn has_barrier(module: &ir::Module, stmts: &[Stmt], depth: u32) -> bool {
    find_expr(stmts, &|e| reaches_barrier(module, e, depth)).is_some()
}

/// Whether `s` is a `Barrier.workgroup()` statement.
fn is_barrier(s: &Stmt) -> bool {
    matches!(
        s,
        Stmt::Expr(Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Barrier(BarrierKind::Workgroup),
                ..
            },
            ..
        })
    )
}

/// Whether `stmts` jump out of (or to the update of) loop `id`, or return.
pub(super) fn jumps(stmts: &[Stmt], id: Option<LoopId>) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break(l) | Stmt::Continue(l) => Some(*l) == id,
        Stmt::Return(..) => id.is_none(),
        Stmt::If {
            then, otherwise, ..
        } => jumps(then, id) || jumps(otherwise, id),
        Stmt::Loop {
            body, continuing, ..
        } => jumps(body, id) || jumps(continuing, id),
        _ => false,
    })
}

/// The regions and split control flow of `stmts`, or `None` for a shape this does not split.
pub(super) fn plan<'a>(module: &ir::Module, stmts: &'a [Stmt]) -> Option<Vec<Node<'a>>> {
    let mut nodes = Vec::new();
    let mut run: Vec<&Stmt> = Vec::new();
    for s in stmts {
        if !has_barrier(module, std::slice::from_ref(s), 0) {
            run.push(s);
            continue;
        }
        if !run.is_empty() {
            nodes.push(Node::Region(std::mem::take(&mut run)));
        }
        match s {
            _ if is_barrier(s) => {}
            Stmt::If {
                cond,
                then,
                otherwise,
            } if !reaches_barrier(module, cond, 0) && !has_sub_barrier(module, cond) => {
                nodes.push(Node::If {
                    cond,
                    then: plan(module, then)?,
                    otherwise: plan(module, otherwise)?,
                });
            }
            Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } if !jumps(body, Some(*id))
                && !pre_cond
                    .iter()
                    .chain(post_cond)
                    .any(|c| has_sub_barrier(module, c)) =>
            {
                nodes.push(Node::Loop {
                    pre_cond: pre_cond.as_ref(),
                    body: plan(module, body)?,
                    continuing: plan(module, continuing)?,
                    post_cond: post_cond.as_ref(),
                });
            }
            _ => return None,
        }
    }
    if !run.is_empty() {
        nodes.push(Node::Region(run));
    }
    Some(nodes)
}

/// Whether evaluating `e` changes nothing (no store, atomic, call or statement inside): a
/// uniform condition of that kind is evaluated by one invocation for the workgroup.
pub(super) fn is_pure(e: &Expr) -> bool {
    let impure = |e: &Expr| match &e.kind {
        ExprKind::Call { .. }
        | ExprKind::Sequence(..)
        | ExprKind::Host { .. }
        | ExprKind::Launch(_)
        | ExprKind::Str(_) => true,
        ExprKind::Intrinsic { op, .. } => !matches!(
            op,
            Intrinsic::LocalId(_)
                | Intrinsic::GlobalId(_)
                | Intrinsic::GlobalSize(_)
                | Intrinsic::WorkgroupId(_)
                | Intrinsic::WorkgroupSize(_)
                | Intrinsic::WorkgroupCount(_)
                | Intrinsic::BufferLength
                | Intrinsic::SharedLength
                | Intrinsic::Math(_)
                | Intrinsic::Vector(_)
                | Intrinsic::Bits(_)
                | Intrinsic::BitCast(_)
                | Intrinsic::SpecInt
                | Intrinsic::SpecFloat
                | Intrinsic::Psc
        ),
        _ => false,
    };
    find_expr(&[Stmt::Expr(e.clone())], &impure).is_none()
}

/// Whether expression `e` reaches a barrier anywhere inside.
fn has_sub_barrier(module: &ir::Module, e: &Expr) -> bool {
    has_barrier(module, &[Stmt::Expr(e.clone())], 0)
}

/// The locals each region mentions, in region order, and whether it is inside a split loop.
pub(super) fn region_uses(nodes: &[Node], in_loop: bool, out: &mut Vec<(Vec<usize>, bool)>) {
    let uses = |work: Work| locals_of(&work);
    for n in nodes {
        match n {
            Node::Region(stmts) => out.push((uses(Work::Stmts(stmts)), in_loop)),
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                out.push((uses(Work::Cond(cond)), in_loop));
                region_uses(then, in_loop, out);
                region_uses(otherwise, in_loop, out);
            }
            Node::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
            } => {
                if let Some(c) = pre_cond {
                    out.push((uses(Work::Cond(c)), true));
                }
                region_uses(body, true, out);
                region_uses(continuing, true, out);
                if let Some(c) = post_cond {
                    out.push((uses(Work::Cond(c)), true));
                }
            }
        }
    }
}

/// The locals a region mentions, in order of first mention.
pub(super) fn locals_of(work: &Work) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut note = |l: ir::LocalId, _| {
        if !seen.contains(&l.0) {
            seen.push(l.0);
        }
    };
    match work {
        Work::Stmts(stmts) => stmts
            .iter()
            .for_each(|s| for_each_local_use_in_stmt(s, &mut note)),
        Work::Cond(c) => for_each_local_use_in_expr(c, &mut note),
    }
    seen
}
