//! The part of an IR → IR pass that is the same for every pass: walking into the children of
//! an expression or place the pass leaves as it is. A pass implements [`Rewrite::expr`] (and
//! [`Rewrite::stmt`]) for the forms it changes and calls [`Rewrite::children`] for the rest.

use super::precision::seq;
use crate::ir::{Block, Expr, ExprKind, Place, Stmt};

/// An expression-rewriting pass; statements an expression needs first go to `pre`.
pub(super) trait Rewrite: Sized {
    /// Rewrites an expression.
    fn expr(&mut self, e: Expr, pre: &mut Vec<Stmt>) -> Expr;

    /// Rewrites one statement into `out`.
    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>);

    /// Rewrites a block, statement by statement.
    fn block(&mut self, block: Block) -> Block {
        let mut out = Vec::with_capacity(block.len());
        for s in block {
            self.stmt(s, &mut out);
        }
        out
    }

    /// Lowers `e` into one expression (statements it needs become a `Sequence`).
    fn expr_seq(&mut self, e: Expr) -> Expr {
        let mut pre = Vec::new();
        let e = self.expr(e, &mut pre);
        seq(pre, e)
    }

    /// Rewrites the expressions inside a place.
    fn place(&mut self, p: Place, pre: &mut Vec<Stmt>) -> Place {
        match p {
            Place::Local(id) => Place::Local(id),
            Place::Index { base, index } => Place::Index {
                base: Box::new(self.expr(*base, pre)),
                index: Box::new(self.expr(*index, pre)),
            },
            Place::Field { base, field } => Place::Field {
                base: Box::new(self.place(*base, pre)),
                field,
            },
            Place::Lane { base, lane } => Place::Lane {
                base: Box::new(self.place(*base, pre)),
                lane,
            },
        }
    }

    /// Lowers the children of an expression form that needs nothing itself.
    fn children(&mut self, kind: ExprKind, pre: &mut Vec<Stmt>) -> ExprKind {
        let x = |e: Box<Expr>, l: &mut Self, pre: &mut Vec<Stmt>| Box::new(l.expr(*e, pre));
        match kind {
            ExprKind::Load(p) => ExprKind::Load(self.place(p, pre)),
            ExprKind::Unary(op, a) => ExprKind::Unary(op, x(a, self, pre)),
            ExprKind::Binary(op, a, b) => {
                let a = x(a, self, pre);
                ExprKind::Binary(op, a, x(b, self, pre))
            }
            // Short-circuit and select arms run conditionally: their statements stay inside.
            ExprKind::LogicalAnd(a, b) => {
                let a = x(a, self, pre);
                ExprKind::LogicalAnd(a, Box::new(self.expr_seq(*b)))
            }
            ExprKind::LogicalOr(a, b) => {
                let a = x(a, self, pre);
                ExprKind::LogicalOr(a, Box::new(self.expr_seq(*b)))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => ExprKind::Select {
                cond: x(cond, self, pre),
                then: Box::new(self.expr_seq(*then)),
                otherwise: Box::new(self.expr_seq(*otherwise)),
            },
            ExprKind::Call { func, args } => ExprKind::Call {
                func,
                args: args.into_iter().map(|a| self.expr(a, pre)).collect(),
            },
            ExprKind::Host { op, args } => ExprKind::Host {
                op,
                args: args.into_iter().map(|a| self.expr(a, pre)).collect(),
            },
            ExprKind::Construct(items) => {
                ExprKind::Construct(items.into_iter().map(|a| self.expr(a, pre)).collect())
            }
            ExprKind::Splat(a) => ExprKind::Splat(x(a, self, pre)),
            ExprKind::Swizzle(a, lanes) => ExprKind::Swizzle(x(a, self, pre), lanes),
            ExprKind::Sequence(stmts, v) => {
                let mut inner = self.block(stmts);
                let v = self.expr(*v, &mut inner);
                ExprKind::Sequence(inner, Box::new(v))
            }
            // Handled by `expr`, or host-only.
            k @ (ExprKind::Const(_)
            | ExprKind::Str(_)
            | ExprKind::Convert(_)
            | ExprKind::Intrinsic { .. }
            | ExprKind::Launch(_)) => k,
        }
    }

    /// Rewrites the parts of a statement a pass leaves as it is: the condition and arms of an
    /// `if`, a loop's conditions and blocks, a returned value. Other statements stay as they are.
    fn stmt_children(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.expr(cond, out);
                let then = self.block(then);
                let otherwise = self.block(otherwise);
                out.push(Stmt::If {
                    cond,
                    then,
                    otherwise,
                });
            }
            Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } => {
                // Conditions are re-evaluated every iteration: statements a condition needs
                // go into a Sequence so they stay inside it.
                let pre_cond = pre_cond.map(|c| self.expr_seq(c));
                let post_cond = post_cond.map(|c| self.expr_seq(c));
                let body = self.block(body);
                let continuing = self.block(continuing);
                out.push(Stmt::Loop {
                    id,
                    pre_cond,
                    body,
                    continuing,
                    post_cond,
                });
            }
            Stmt::Return(Some(e), span) => {
                let e = self.expr(e, out);
                out.push(Stmt::Return(Some(e), span));
            }
            other => out.push(other),
        }
    }
}
