//! Which locals of a kernel hold a dynamically uniform value (the same in every invocation that
//! reads it), for buffer-array indices: a uniform index needs no `NonUniform` decoration and no
//! `shaderStorageBufferArrayNonUniformIndexing`.
//!
//! A local is uniform when every store to it stores a uniform expression (constants, uniform
//! locals, the kernel's scalar parameters, buffer-array lengths, and arithmetic, comparisons and
//! selections of those) and happens under uniform control: every enclosing `if` and loop tests
//! a uniform condition, and no enclosing loop has a `break`, `continue` or `return` under a
//! non-uniform condition (after such a loop, invocations may have left it at different
//! iterations). The answer is the greatest fixpoint: start from every stored local and drop
//! the ones a store disproves until nothing changes. Stores inside expressions, to lanes or
//! fields, and locals never stored (other than parameters) count as non-uniform. A `return`
//! under a non-uniform condition outside loops is harmless: the invocations still running agree.

use crate::ir::visit::{find_expr, for_each_local_use_in_expr, LocalUse};
use crate::ir::{
    BarrierKind, Expr, ExprKind, Function, FunctionKind, HostOp, Intrinsic, Place, Stmt,
};

/// Per local of `f` (parameters first), whether it always holds a dynamically uniform value.
pub(crate) fn uniform_locals(f: &Function) -> Vec<bool> {
    let n = f.locals.len();
    // Parameters start with a uniform value (push constants); other locals must be stored.
    let mut stored = vec![false; n];
    mark_stored(&f.body, &mut stored);
    let mut uniform: Vec<bool> = (0..n).map(|i| i < f.param_count || stored[i]).collect();
    loop {
        let mut next = uniform.clone();
        Walk {
            uniform: &uniform,
            next: &mut next,
        }
        .block(&f.body, true);
        if next == uniform {
            return uniform;
        }
        uniform = next;
    }
}

/// Whether every `Barrier.workgroup()` written in kernel `f` is, by the code alone, reached
/// by all invocations of a workgroup or by none: no `break`, `continue` or `return` anywhere
/// under a condition that is not uniform, and every `if` and loop around a barrier tests a
/// uniform condition (uniform as above: built from constants, parameters and such locals, no
/// memory read). Checked mode then needs no arrival count at these barriers (`barrier_check.rs`
/// counts the arrivals where a condition reads memory, which this analysis does not trust).
/// Helpers (`@Device`) answer false: their callers' conditions are not seen here.
pub(crate) fn barriers_statically_uniform(f: &Function, uniform: &[bool]) -> bool {
    f.kind == FunctionKind::Kernel
        && !divergent_exit(&f.body, uniform, false)
        && barriers_under_uniform(&f.body, uniform)
}

/// Whether the barriers in `stmts` sit only under uniform conditions.
fn barriers_under_uniform(stmts: &[Stmt], uniform: &[bool]) -> bool {
    let has_barrier = |b: &[Stmt]| {
        find_expr(b, &|e| {
            matches!(
                e.kind,
                ExprKind::Intrinsic {
                    op: Intrinsic::Barrier(BarrierKind::Workgroup),
                    ..
                }
            )
        })
        .is_some()
    };
    stmts.iter().all(|s| match s {
        Stmt::If {
            cond,
            then,
            otherwise,
        } => {
            !(has_barrier(then) || has_barrier(otherwise))
                || (is_uniform_expr(cond, uniform)
                    && barriers_under_uniform(then, uniform)
                    && barriers_under_uniform(otherwise, uniform))
        }
        Stmt::Loop {
            pre_cond,
            body,
            continuing,
            post_cond,
            ..
        } => {
            !(has_barrier(body) || has_barrier(continuing))
                || (pre_cond
                    .iter()
                    .chain(post_cond.iter())
                    .all(|c| is_uniform_expr(c, uniform))
                    && barriers_under_uniform(body, uniform)
                    && barriers_under_uniform(continuing, uniform))
        }
        _ => true,
    })
}

/// Whether `e` is dynamically uniform given which locals are.
pub(crate) fn is_uniform_expr(e: &Expr, uniform: &[bool]) -> bool {
    let u = |x: &Expr| is_uniform_expr(x, uniform);
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Load(Place::Local(l)) => uniform.get(l.0).copied().unwrap_or(false),
        ExprKind::Host {
            op: HostOp::ArrayLength,
            args,
        } => args.iter().all(|a| a.ty.is_buffer_array()),
        ExprKind::Unary(_, a) | ExprKind::Convert(a) => u(a),
        ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
            u(a) && u(b)
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => u(cond) && u(then) && u(otherwise),
        _ => false,
    }
}

fn mark_stored(stmts: &[Stmt], stored: &mut [bool]) {
    for s in stmts {
        match s {
            Stmt::Store {
                place: Place::Local(l),
                ..
            } => {
                if let Some(x) = stored.get_mut(l.0) {
                    *x = true;
                }
            }
            Stmt::If {
                then, otherwise, ..
            } => {
                mark_stored(then, stored);
                mark_stored(otherwise, stored);
            }
            Stmt::Loop {
                body, continuing, ..
            } => {
                mark_stored(body, stored);
                mark_stored(continuing, stored);
            }
            _ => {}
        }
    }
}

struct Walk<'a> {
    uniform: &'a [bool],
    next: &'a mut Vec<bool>,
}

impl Walk<'_> {
    fn not_uniform(&mut self, l: usize) {
        if let Some(x) = self.next.get_mut(l) {
            *x = false;
        }
    }

    /// Locals stored inside an expression (a sequence) are not tracked: not uniform.
    fn expr(&mut self, e: &Expr) {
        for_each_local_use_in_expr(e, &mut |l, role| {
            if role == LocalUse::Store {
                self.not_uniform(l.0);
            }
        });
    }

    fn uniform(&self, e: &Expr) -> bool {
        is_uniform_expr(e, self.uniform)
    }

    /// `control`: whether the statements run under uniform control.
    fn block(&mut self, stmts: &[Stmt], control: bool) {
        for s in stmts {
            self.stmt(s, control);
        }
    }

    fn stmt(&mut self, s: &Stmt, control: bool) {
        match s {
            Stmt::Expr(e) | Stmt::Return(Some(e), _) => self.expr(e),
            Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) => {}
            Stmt::Store { place, value, .. } => {
                self.expr(value);
                match place {
                    Place::Local(l) => {
                        if !control || !self.uniform(value) {
                            self.not_uniform(l.0);
                        }
                    }
                    other => {
                        if let Some(l) = root_local(other) {
                            self.not_uniform(l);
                        }
                    }
                }
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                let inner = control && self.uniform(cond);
                self.block(then, inner);
                self.block(otherwise, inner);
            }
            Stmt::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
                ..
            } => {
                let conds = pre_cond.iter().chain(post_cond.iter());
                let mut inner = control;
                for c in conds {
                    self.expr(c);
                    inner &= self.uniform(c);
                }
                inner &= !divergent_exit(body, self.uniform, false);
                self.block(body, inner);
                self.block(continuing, inner);
            }
        }
    }
}

/// Whether `stmts` hold a `break`, `continue` or `return` under a non-uniform condition
/// (`guarded`: already under one).
fn divergent_exit(stmts: &[Stmt], uniform: &[bool], guarded: bool) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(..) => guarded,
        Stmt::If {
            cond,
            then,
            otherwise,
        } => {
            let g = guarded || !is_uniform_expr(cond, uniform);
            divergent_exit(then, uniform, g) || divergent_exit(otherwise, uniform, g)
        }
        Stmt::Loop {
            pre_cond,
            body,
            post_cond,
            ..
        } => {
            let g = guarded
                || pre_cond
                    .iter()
                    .chain(post_cond.iter())
                    .any(|c| !is_uniform_expr(c, uniform));
            divergent_exit(body, uniform, g)
        }
        Stmt::Expr(_) | Stmt::Store { .. } => false,
    })
}

/// The local a lane or field place is rooted at.
fn root_local(p: &Place) -> Option<usize> {
    match p {
        Place::Local(l) => Some(l.0),
        Place::Lane { base, .. } | Place::Field { base, .. } => root_local(base),
        Place::Index { .. } => None,
    }
}
