//! Java's and Cajeta's `try { … } catch (XpuLaunchException e) { … }` in host code. The one
//! exception here is Cajeta's: a launch the device refuses (a zero, negative or too large
//! size, a kernel the run's device has not compiled, an argument that does not bind). A
//! launch written in the `try` block (not one in a method it calls) is marked
//! [`ir::Launch::catches`]: both executors then keep its refusal for the `catch` instead of
//! ending the run ([`crate::host::interp`]'s `caught`).
//!
//! The IR has no exceptions, so Java's "the rest of the block is skipped" is spelled out:
//! after each statement holding a marked launch, the rest of its block runs only while no
//! refusal waits (`HostOp::LaunchRefused`), and inside a loop of the `try` block the loop is
//! left. After the block, the waiting refusal is taken (`HostOp::TakeLaunchRefusal`) and the
//! handler runs with its message bound to the `catch` name (`e.getMessage()`, `e.message`).

use super::body::FnCtx;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, HostOp, LoopId, Place, ScalarType, Type, UnaryOp};
use crate::syntax::ast;

/// Exception types whose `catch` catches a refused launch: Cajeta's and its supertypes.
const CATCHES_LAUNCHES: &[&str] = &[
    "XpuLaunchException",
    "RecoverableException",
    "RuntimeException",
    "Exception",
    "Throwable",
];

impl FnCtx<'_, '_> {
    /// A `try` statement.
    pub(super) fn try_stmt(&mut self, t: &ast::TryStmt, out: &mut ir::Block) {
        if self.is_device() {
            self.diags.push(
                Diagnostic::error(
                    Code::HostOnlyInDevice,
                    Span::new(
                        t.span.file,
                        t.span.start as usize,
                        t.span.start as usize + 3,
                    ),
                    "`try`/`catch` is host code only: a kernel cannot catch",
                )
                .with_note(
                    "help: catch the refused launch in the host code that launches the kernel",
                ),
            );
            return;
        }
        if let Some(f) = &t.finally {
            self.diags.push(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    f.span,
                    "`finally` is not supported",
                )
                .with_note("help: write the cleanup after the `try` statement (a caught launch refusal continues there)"),
            );
        }
        let Some(clause) = self.catching_clause(t) else {
            return;
        };
        let span = t.span;
        let before = (self.assigned.clone(), self.dead);
        let mut body = self.block(&t.body);
        mark_launches(&mut body);
        let body = guard(body, None, span);
        out.extend(body);
        let mut restored = before.0.clone();
        restored.extend_from_slice(&self.assigned[before.0.len()..]);
        let after_body = (std::mem::replace(&mut self.assigned, restored), self.dead);
        self.dead = before.1;
        // The refusal is read, then taken (which clears it), before the handler runs.
        let refused = self.temp(Type::Scalar(ScalarType::Bool), span);
        out.push(ir::Stmt::Store {
            place: Place::Local(refused),
            value: host(HostOp::LaunchRefused, Type::Scalar(ScalarType::Bool), span),
            span,
        });
        self.push_scope();
        let handler = match self.declare(&clause.name, Type::String) {
            Ok(message) => {
                self.mark_assigned(message);
                self.catch_names.insert(message);
                let mut handler = vec![ir::Stmt::Store {
                    place: Place::Local(message),
                    value: host(HostOp::TakeLaunchRefusal, Type::String, span),
                    span,
                }];
                handler.extend(self.block(&clause.body));
                handler
            }
            Err(_) => Vec::new(),
        };
        self.pop_scope();
        self.merge(after_body);
        out.push(ir::Stmt::If {
            cond: ir::Expr {
                kind: ExprKind::Load(Place::Local(refused)),
                ty: Type::Scalar(ScalarType::Bool),
                span,
            },
            then: handler,
            otherwise: Vec::new(),
        });
    }

    /// The clause that catches a refused launch; every clause must name an exception of
    /// Cajeta's launch, and only the first one can run (Java's "already caught").
    fn catching_clause<'t>(&mut self, t: &'t ast::TryStmt) -> Option<&'t ast::CatchClause> {
        let mut first = None;
        for c in &t.catches {
            let name = match &c.ty.kind {
                ast::TypeExprKind::Named { name, args } if args.is_empty() => name.as_str(),
                _ => "",
            };
            if !CATCHES_LAUNCHES.contains(&name) {
                let mut d = Diagnostic::error(
                    Code::UnsupportedFeature,
                    c.ty.span,
                    format!("`catch ({name} …)`: the only exception here is a refused launch, `XpuLaunchException`"),
                );
                d = if name == "KernelError" || name == "XpuKernelError" {
                    d.with_note("a kernel's fault (an out-of-bounds access of a checked kernel) ends the run here, with a runtime error naming the launch: it is not thrown")
                } else {
                    d.with_note("help: catch `XpuLaunchException` (or `Exception`)")
                };
                self.diags.push(d);
                continue;
            }
            if first.is_some() {
                self.diags.push(
                    Diagnostic::error(
                        Code::UnreachableCode,
                        c.ty.span,
                        format!("`{name}` has already been caught by an earlier `catch`"),
                    )
                    .with_note("a refused launch is caught by the first clause that names its type or a supertype"),
                );
                continue;
            }
            first = Some(c);
        }
        first
    }

    /// `e.getMessage()`, `e.message`, `e.toString()` for a `catch` name `e`: its message.
    pub(super) fn catch_message(&self, recv: &ast::Expr, member: &str) -> Option<ir::Expr> {
        let ast::ExprKind::Name(n) = &recv.kind else {
            return None;
        };
        let id = self.lookup(n)?;
        if !self.catch_names.contains(&id)
            || !matches!(
                member,
                "message" | "getMessage" | "toString" | "getLocalizedMessage"
            )
        {
            return None;
        }
        Some(ir::Expr {
            kind: ExprKind::Load(Place::Local(id)),
            ty: Type::String,
            span: recv.span,
        })
    }
}

fn host(op: HostOp, ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Host {
            op,
            args: Vec::new(),
        },
        ty,
        span,
    }
}

/// The launch a statement-level expression is (possibly after temporaries).
fn launch_mut(e: &mut ir::Expr) -> Option<&mut ir::Launch> {
    match &mut e.kind {
        ExprKind::Launch(l) => Some(l),
        ExprKind::Sequence(_, value) => launch_mut(value),
        _ => None,
    }
}

/// Marks every launch statement in `block` (and its nested blocks) as caught; whether there
/// was one.
fn mark_launches(block: &mut [ir::Stmt]) -> bool {
    let mut any = false;
    for s in block {
        any |= mark_stmt(s);
    }
    any
}

fn mark_stmt(s: &mut ir::Stmt) -> bool {
    match s {
        ir::Stmt::Expr(e) => match launch_mut(e) {
            Some(l) => {
                l.catches = true;
                true
            }
            None => false,
        },
        ir::Stmt::If {
            then, otherwise, ..
        } => mark_launches(then) | mark_launches(otherwise),
        ir::Stmt::Loop {
            body, continuing, ..
        } => mark_launches(body) | mark_launches(continuing),
        _ => false,
    }
}

/// Whether `s` holds a caught launch.
fn holds_launch(s: &ir::Stmt) -> bool {
    match s {
        ir::Stmt::Expr(e) => {
            let mut e = e;
            loop {
                match &e.kind {
                    ExprKind::Launch(l) => return l.catches,
                    ExprKind::Sequence(_, v) => e = v,
                    _ => return false,
                }
            }
        }
        ir::Stmt::If {
            then, otherwise, ..
        } => then.iter().chain(otherwise).any(holds_launch),
        ir::Stmt::Loop { body, .. } => body.iter().any(holds_launch),
        _ => false,
    }
}

/// `block` with the statements after each caught launch skipped once a refusal waits: the
/// rest of the block under `if (!refused)`, or, directly in a loop (`in_loop`), a `break`.
fn guard(block: ir::Block, in_loop: Option<LoopId>, span: Span) -> ir::Block {
    let refused = || host(HostOp::LaunchRefused, Type::Scalar(ScalarType::Bool), span);
    let mut out = Vec::new();
    let mut rest = block.into_iter();
    while let Some(s) = rest.next() {
        let has = holds_launch(&s);
        out.push(match s {
            ir::Stmt::If {
                cond,
                then,
                otherwise,
            } if has => ir::Stmt::If {
                cond,
                then: guard(then, in_loop, span),
                otherwise: guard(otherwise, in_loop, span),
            },
            ir::Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } if has => ir::Stmt::Loop {
                id,
                pre_cond,
                body: guard(body, Some(id), span),
                continuing,
                post_cond,
            },
            s => s,
        });
        if !has {
            continue;
        }
        if let Some(id) = in_loop {
            out.push(ir::Stmt::If {
                cond: refused(),
                then: vec![ir::Stmt::Break(id)],
                otherwise: Vec::new(),
            });
            continue;
        }
        let later = guard(rest.collect(), None, span);
        if !later.is_empty() {
            out.push(ir::Stmt::If {
                cond: ir::Expr {
                    kind: ExprKind::Unary(UnaryOp::Not, Box::new(refused())),
                    ty: Type::Scalar(ScalarType::Bool),
                    span,
                },
                then: later,
                otherwise: Vec::new(),
            });
        }
        break;
    }
    out
}
