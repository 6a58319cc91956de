//! Java's and Cajeta's `try { … } catch (XpuLaunchException e) { … }` in host code. The
//! exceptions here are Cajeta's two: a launch the device refuses (`XpuLaunchException`: a
//! zero, negative or too large size, a kernel the run's device has not compiled, an
//! argument that does not bind), and a checked kernel's fault found at a wait
//! (`KernelError`: an out-of-bounds access, reported when the stream is synchronized). A
//! launch written in the `try` block (not one in a method it calls) is marked
//! [`ir::Launch::catches`] when a clause catches refusals, and a statement of the block that
//! waits for the device (`s.sync()`, a download, `e.waitHost()`, …) is wrapped in
//! `HostOp::CatchKernelFault` when a clause catches faults: both executors then keep the
//! refusal or the fault for the `catch` instead of ending the run ([`crate::host::interp`]'s
//! `caught` and `caught_fault`).
//!
//! The IR has no exceptions, so Java's "the rest of the block is skipped" is spelled out:
//! after each statement holding a marked launch or wait, the rest of its block runs only
//! while no exception waits (`HostOp::ExceptionWaiting`), and inside a loop of the `try`
//! block the loop is left. After the block, the waiting exception is taken
//! (`HostOp::TakeException`) and the clause of its kind runs with its message bound to the
//! `catch` name (`e.getMessage()`, `e.message`).

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

/// Exception types whose `catch` catches a checked kernel's fault: Cajeta's `KernelError`
/// (also spelled `XpuKernelError`) and its supertypes. A fault is not recoverable the way a
/// refused launch is, so `RecoverableException` does not catch it.
const CATCHES_FAULTS: &[&str] = &[
    "KernelError",
    "XpuKernelError",
    "RuntimeException",
    "Exception",
    "Throwable",
];

/// The clauses of a `try` statement that run: the first one catching a refused launch and
/// the first one catching a kernel's fault (one clause may be both).
struct Clauses<'t> {
    launch: Option<&'t ast::CatchClause>,
    fault: Option<&'t ast::CatchClause>,
}

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
        let clauses = self.catching_clauses(t);
        if clauses.launch.is_none() && clauses.fault.is_none() {
            return;
        }
        let span = t.span;
        let before = (self.assigned.clone(), self.dead);
        let mut body = self.block(&t.body);
        mark_block(&mut body, clauses.launch.is_some(), clauses.fault.is_some());
        let body = guard(body, None, span);
        out.extend(body);
        let mut restored = before.0.clone();
        restored.extend_from_slice(&self.assigned[before.0.len()..]);
        let after_body = (std::mem::replace(&mut self.assigned, restored), self.dead);
        self.dead = before.1;
        // Whether an exception waits is read before a handler takes it (which clears it).
        let waiting = self.temp(Type::Scalar(ScalarType::Bool), span);
        out.push(ir::Stmt::Store {
            place: Place::Local(waiting),
            value: host(
                HostOp::ExceptionWaiting,
                Type::Scalar(ScalarType::Bool),
                span,
            ),
            span,
        });
        let start = (self.assigned.clone(), self.dead);
        let handlers = match (clauses.launch, clauses.fault) {
            (Some(l), Some(f)) if !std::ptr::eq(l, f) => {
                let on_launch = self.handler(l, span);
                let after_launch = (self.assigned.clone(), self.dead);
                self.restore(&start.0);
                self.dead = start.1;
                let on_fault = self.handler(f, span);
                self.merge(after_launch);
                vec![ir::Stmt::If {
                    cond: host(
                        HostOp::KernelFaultWaiting,
                        Type::Scalar(ScalarType::Bool),
                        span,
                    ),
                    then: on_fault,
                    otherwise: on_launch,
                }]
            }
            (Some(c), _) | (None, Some(c)) => self.handler(c, span),
            (None, None) => Vec::new(),
        };
        self.merge(after_body);
        out.push(ir::Stmt::If {
            cond: ir::Expr {
                kind: ExprKind::Load(Place::Local(waiting)),
                ty: Type::Scalar(ScalarType::Bool),
                span,
            },
            then: handlers,
            otherwise: Vec::new(),
        });
    }

    /// The statements of `clause`'s handler: the waiting exception's message taken into
    /// the `catch` name, then the clause's block.
    fn handler(&mut self, clause: &ast::CatchClause, span: Span) -> ir::Block {
        self.push_scope();
        let handler = match self.declare(&clause.name, Type::String) {
            Ok(message) => {
                self.mark_assigned(message);
                self.catch_names.insert(message);
                let mut handler = vec![ir::Stmt::Store {
                    place: Place::Local(message),
                    value: host(HostOp::TakeException, Type::String, span),
                    span,
                }];
                handler.extend(self.block(&clause.body));
                handler
            }
            Err(_) => Vec::new(),
        };
        self.pop_scope();
        handler
    }

    /// The clauses that run for each kind of exception. Every clause must name one of
    /// Cajeta's two exceptions or a supertype, and a clause whose kinds are all caught by
    /// earlier clauses can never run (Java's "already caught", E0027).
    fn catching_clauses<'t>(&mut self, t: &'t ast::TryStmt) -> Clauses<'t> {
        let mut clauses = Clauses {
            launch: None,
            fault: None,
        };
        for c in &t.catches {
            let name = match &c.ty.kind {
                ast::TypeExprKind::Named { name, args } if args.is_empty() => name.as_str(),
                _ => "",
            };
            let launches = CATCHES_LAUNCHES.contains(&name);
            let faults = CATCHES_FAULTS.contains(&name);
            if !launches && !faults {
                self.diags.push(
                    Diagnostic::error(
                        Code::UnsupportedFeature,
                        c.ty.span,
                        format!("`catch ({name} …)`: the exceptions here are a refused launch, `XpuLaunchException`, and a checked kernel's fault, `KernelError`"),
                    )
                    .with_note("help: catch `XpuLaunchException`, `KernelError` (or `Exception`, both)"),
                );
                continue;
            }
            let new_launch = launches && clauses.launch.is_none();
            let new_fault = faults && clauses.fault.is_none();
            if !new_launch && !new_fault {
                self.diags.push(
                    Diagnostic::error(
                        Code::UnreachableCode,
                        c.ty.span,
                        format!("`{name}` has already been caught by an earlier `catch`"),
                    )
                    .with_note("an exception is caught by the first clause that names its type or a supertype")
                    .with_note(format!("help: move `catch ({name} …)` before the clause that catches it, or remove it")),
                );
                continue;
            }
            if new_launch {
                clauses.launch = Some(c);
            }
            if new_fault {
                clauses.fault = Some(c);
            }
        }
        clauses
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

/// Whether statement-level expression `e` is a wait for the device (possibly after
/// temporaries): where a checked kernel's fault is reported.
fn is_wait(e: &ir::Expr) -> bool {
    match &e.kind {
        ExprKind::Host { op, .. } => op.may_wait_for_device(),
        ExprKind::Sequence(_, value) => is_wait(value),
        _ => false,
    }
}

/// Marks the statements of `block` (and of its nested blocks) whose exceptions are caught:
/// each launch when `launches`, and each wait, wrapped in `HostOp::CatchKernelFault`, when
/// `faults`.
fn mark_block(block: &mut [ir::Stmt], launches: bool, faults: bool) {
    for s in block {
        match s {
            ir::Stmt::Expr(e) => {
                if let Some(l) = launch_mut(e).filter(|_| launches) {
                    l.catches = true;
                } else if faults && is_wait(e) {
                    *e = ir::Expr {
                        kind: ExprKind::Host {
                            op: HostOp::CatchKernelFault,
                            args: vec![e.clone()],
                        },
                        ty: Type::Void,
                        span: e.span,
                    };
                }
            }
            ir::Stmt::If {
                then, otherwise, ..
            } => {
                mark_block(then, launches, faults);
                mark_block(otherwise, launches, faults);
            }
            ir::Stmt::Loop {
                body, continuing, ..
            } => {
                mark_block(body, launches, faults);
                mark_block(continuing, launches, faults);
            }
            _ => {}
        }
    }
}

/// Whether `s` holds a caught launch or a caught wait.
fn holds_launch(s: &ir::Stmt) -> bool {
    match s {
        ir::Stmt::Expr(e) => {
            let mut e = e;
            loop {
                match &e.kind {
                    ExprKind::Launch(l) => return l.catches,
                    ExprKind::Host {
                        op: HostOp::CatchKernelFault,
                        ..
                    } => return true,
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
    let refused = || {
        host(
            HostOp::ExceptionWaiting,
            Type::Scalar(ScalarType::Bool),
            span,
        )
    };
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
