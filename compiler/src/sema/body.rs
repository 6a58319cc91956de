//! Checking one method body: scopes, statements, loops, definite assignment and
//! reachability. Loops are in `loops.rs`, local declarations in `local_decl.rs`, expressions
//! in `expr.rs`, calls and launches in `calls.rs`.

use super::names::Symbols;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, FunctionId, FunctionKind, LocalId, LoopId, Type};
use crate::syntax::ast;
use std::collections::HashMap;

/// Result of checking one construct; the error has already been reported.
pub type R<T> = Result<T, ()>;

pub(super) struct LoopFrame {
    pub(super) id: LoopId,
    pub(super) label: Option<String>,
    pub(super) broken: bool,
    /// The definite-assignment state at each reachable `break` that leaves this loop: after
    /// a loop whose condition is constant `true`, a local is assigned when it is at all of
    /// them (Java's rule).
    pub(super) break_states: Vec<Vec<bool>>,
    /// Set when this is a `switch` (the target of `break`, never of `continue`).
    pub(super) switch: Option<SwitchFrame>,
}

/// What a `switch` being checked keeps (`switch.rs`).
pub(super) struct SwitchFrame {
    /// The definite-assignment state at each `break`/`yield` that leaves it.
    pub(super) exits: Vec<Vec<bool>>,
    /// A switch expression's result temporary (its type `void` until the first arm's value
    /// fixes it) and the context's type hint.
    pub(super) result: Option<(LocalId, Option<Type>)>,
}

/// Per-method checking state.
pub struct FnCtx<'s, 'a> {
    /// All declarations.
    pub syms: &'s Symbols<'a>,
    /// The method being checked.
    pub fid: FunctionId,
    /// Kernel, device helper or host.
    pub kind: FunctionKind,
    /// Declaring class.
    pub class: String,
    /// Declared return type.
    pub ret: Type,
    /// Parameters, then locals and temporaries.
    pub locals: Vec<ir::Local>,
    scopes: Vec<Vec<(String, LocalId)>>,
    /// Definitely assigned, per local.
    pub(super) assigned: Vec<bool>,
    /// The current point cannot be reached (after return/break/continue).
    pub(super) dead: bool,
    /// Enclosing loops, innermost last.
    pub(super) loops: Vec<LoopFrame>,
    pub(super) next_loop: usize,
    /// Diagnostics found in this method.
    pub diags: Vec<Diagnostic>,
    /// Warnings found in this method (they do not stop compilation).
    pub warnings: Vec<Diagnostic>,
    /// Calls made, for the call graph.
    pub calls: Vec<(FunctionId, Span)>,
    /// The kernel's dynamic shared array, once declared (at most one, SPEC §6).
    pub dynamic_shared: Option<Span>,
    /// The dimensions of multi-dimensional shared arrays (`shared T[8][4][2]`) by local.
    pub shared_dims: HashMap<LocalId, Vec<u64>>,
    /// Dimensions of the `shared T[a][b]…` just checked, for its declaration to take.
    pub pending_shared_dims: Option<Vec<u64>>,
    /// `Spec` slots used in this method: whether float, and the default (a slot is one
    /// specialization constant, so every use must agree).
    pub(super) spec_slots: Vec<(i128, bool, ir::Constant)>,
    /// Locals declared `final`.
    pub(super) finals: std::collections::HashSet<LocalId>,
    /// `final` locals initialized with a constant, and that constant: Java's constant
    /// variables, usable as `case` labels (`switch.rs`).
    pub(super) final_consts: HashMap<LocalId, ir::Expr>,
    /// Parameters whose type did not resolve (E0007 at the declaration): their uses are
    /// errors already reported, not new ones.
    pub(super) unresolved: std::collections::HashSet<LocalId>,
    /// In a constructor: `this`, the value being built (`constructors.rs`).
    pub(super) this: Option<LocalId>,
    /// The cooperative-matrix type the method call being checked is expected to produce
    /// (`CoopMatrixAcc<float16> c = CoopMatrix.zeroAcc()`): set for each method call from
    /// its context, taken by `CoopMatrix.loadAcc` / `zeroAcc` / `convert` (sema/coop.rs).
    pub(super) coop_hint: Option<ir::CoopType>,
    /// The `Optional<T>` type the method call being checked is expected to produce, for
    /// `Optional.of(v)` and `Optional.empty()` (sema/optional.rs).
    pub(super) optional_hint: Option<Type>,
    /// Set while Cajeta's `m.load(…)` of a float32 A or B tile is checked: its float32
    /// memory is converted to the float16 tile (sema/coop_cajeta.rs).
    pub(super) coop_widening_load: bool,
    /// The names `catch` clauses bind, each holding the caught refusal's message
    /// (sema/try_catch.rs).
    pub(super) catch_names: std::collections::HashSet<LocalId>,
    /// The part locals (`Vector<T, 4>` each) of every wide vector local
    /// (sema/wide_vector.rs), by the local its name is bound to.
    pub(super) wide_locals: HashMap<LocalId, Vec<LocalId>>,
    /// How many locals, from the first, are the IR function's parameters: a wide vector
    /// parameter is its parts (sema/wide_vector.rs), so this can exceed the source's count.
    pub(super) param_locals: usize,
}

/// Whether parameter `p` got type `ty` only because its written type did not resolve.
pub fn unresolved(p: &ast::Param, ty: &Type) -> bool {
    *ty == Type::Void && !matches!(p.ty.kind, ast::TypeExprKind::Void)
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// A context with the parameters declared and assigned.
    pub fn new(syms: &'s Symbols<'a>, fid: FunctionId) -> Self {
        let f = &syms.functions[fid.0];
        let mut ctx = FnCtx {
            syms,
            fid,
            kind: f.kind,
            class: f.class.clone(),
            // A constructor's `return` takes no value; it returns `this`.
            ret: if f.constructor {
                Type::Void
            } else {
                f.ret.clone()
            },
            locals: Vec::new(),
            scopes: vec![Vec::new()],
            assigned: Vec::new(),
            dead: false,
            loops: Vec::new(),
            next_loop: 0,
            diags: Vec::new(),
            warnings: Vec::new(),
            calls: Vec::new(),
            dynamic_shared: None,
            shared_dims: HashMap::new(),
            pending_shared_dims: None,
            spec_slots: Vec::new(),
            finals: std::collections::HashSet::new(),
            final_consts: HashMap::new(),
            unresolved: std::collections::HashSet::new(),
            this: None,
            coop_hint: None,
            optional_hint: None,
            coop_widening_load: false,
            catch_names: std::collections::HashSet::new(),
            wide_locals: HashMap::new(),
            param_locals: 0,
        };
        // A wide parameter is its parts, which are parameters; the name bound to them is
        // declared after every parameter local.
        let mut wide_params = Vec::new();
        for (p, ty) in f.decl.params.iter().zip(&f.params) {
            if let Type::Wide(..) = ty {
                wide_params.push((p, ty.clone(), ctx.wide_param_parts(&p.name, ty)));
                continue;
            }
            if let Ok(id) = ctx.declare(&p.name, ty.clone()) {
                ctx.assigned[id.0] = true;
                if unresolved(p, ty) {
                    ctx.unresolved.insert(id);
                }
            }
        }
        ctx.param_locals = ctx.locals.len();
        for (p, ty, parts) in wide_params {
            ctx.declare_wide_param(&p.name, ty, parts);
        }
        if f.constructor {
            ctx.declare_this(f.ret.clone(), f.decl.name.span);
        }
        ctx
    }

    /// Whether local `id` is one of the IR function's parameters.
    pub(super) fn is_param_local(&self, id: LocalId) -> bool {
        id.0 < self.param_locals
    }

    /// True in kernels and device helpers.
    pub fn is_device(&self) -> bool {
        self.kind != FunctionKind::Host
    }

    /// Reports a diagnostic and yields the error marker.
    pub fn error<T>(&mut self, d: Diagnostic) -> R<T> {
        self.diags.push(d);
        Err(())
    }

    /// Declares a local in the innermost scope (Java: no shadowing within a method).
    pub fn declare(&mut self, name: &ast::Ident, ty: Type) -> R<LocalId> {
        let id = self.declare_name(name, ty)?;
        self.declare_wide_parts(id);
        Ok(id)
    }

    /// [`Self::declare`] without the parts a wide vector local gets.
    pub(super) fn declare_name(&mut self, name: &ast::Ident, ty: Type) -> R<LocalId> {
        if let Some(prev) = self.lookup(&name.name) {
            let prev_span = self.locals[prev.0].span;
            return self.error(
                Diagnostic::error(
                    Code::Redeclaration,
                    name.span,
                    format!("`{}` is already declared in this method", name.name),
                )
                .with_label("declared again here")
                .with_secondary(prev_span, "first declared here")
                .with_note("help: choose another name"),
            );
        }
        let id = LocalId(self.locals.len());
        self.locals.push(ir::Local {
            name: name.name.clone(),
            ty,
            span: name.span,
        });
        self.assigned.push(false);
        self.scope_push(&name.name, id);
        Ok(id)
    }

    /// Makes `id` visible as `name` in the innermost scope.
    pub(super) fn scope_push(&mut self, name: &str, id: LocalId) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), id));
        }
    }

    /// A fresh temporary local (never visible to source names).
    pub fn temp(&mut self, ty: Type, span: Span) -> LocalId {
        let id = LocalId(self.locals.len());
        self.locals.push(ir::Local {
            name: format!("$t{}", id.0),
            ty,
            span,
        });
        self.assigned.push(true);
        id
    }

    /// Finds a visible local.
    pub fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }

    /// The class an expression names: a bare name that no local shadows (`Device` in
    /// `Device.subgroupSize`, `Math` in `Math.sqrt(x)`).
    pub fn class_name<'e>(&self, e: &'e ast::Expr) -> Option<&'e str> {
        match &e.kind {
            ast::ExprKind::Name(name) if self.lookup(name).is_none() => Some(name),
            _ => None,
        }
    }

    /// Whether `e` names the library class `class` itself: its bare name, shadowed neither by
    /// a local nor by a class of the program of that name.
    pub fn names_library_class(&self, e: &ast::Expr, class: &str) -> bool {
        self.class_name(e) == Some(class) && !self.syms.user_methods.contains_key(class)
    }

    /// Checks that a local is definitely assigned before this read.
    pub fn check_assigned(&mut self, id: LocalId, span: Span) -> R<()> {
        if self.dead || self.assigned[id.0] {
            return Ok(());
        }
        let name = self.locals[id.0].name.clone();
        let decl = self.locals[id.0].span;
        self.error(
            Diagnostic::error(
                Code::UnassignedLocal,
                span,
                format!("`{name}` is read before it is assigned"),
            )
            .with_secondary(decl, "declared here without a value")
            .with_note(format!(
                "help: give `{name}` an initial value where it is declared"
            )),
        )
    }

    /// Marks a local assigned.
    pub fn mark_assigned(&mut self, id: LocalId) {
        self.assigned[id.0] = true;
    }

    pub(super) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub(super) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Checks the whole body; reports a missing return for non-void methods.
    pub fn body(&mut self, block: &ast::Block) -> ir::Block {
        let out = self.block(block);
        if !self.dead && self.ret != Type::Void {
            let name = self.syms.functions[self.fid.0].decl.name.clone();
            self.diags.push(
                Diagnostic::error(
                    Code::MissingReturn,
                    Span {
                        start: block.span.end.saturating_sub(1),
                        ..block.span
                    },
                    format!(
                        "method `{}` can reach its end without returning a value",
                        name.name
                    ),
                )
                .with_secondary(name.span, format!("`{}` returns {}", name.name, self.ret))
                .with_note("help: add a `return` at the end"),
            );
        }
        out
    }

    pub(super) fn block(&mut self, block: &ast::Block) -> ir::Block {
        self.push_scope();
        let out = self.stmts(&block.stmts);
        self.pop_scope();
        out
    }

    pub(super) fn stmts(&mut self, stmts: &[ast::Stmt]) -> ir::Block {
        let mut out = Vec::new();
        let mut reported_dead = false;
        for s in stmts {
            if self.dead && !reported_dead && !matches!(s, ast::Stmt::Empty(_)) {
                reported_dead = true;
                self.diags.push(
                    Diagnostic::error(Code::UnreachableCode, s.span(), "unreachable statement")
                        .with_label("this can never run")
                        .with_note("help: remove it, or the `return`/`break`/`continue` before it"),
                );
            }
            self.stmt(s, &mut out);
        }
        out
    }

    /// A statement as its own scope (a `for` or `if` body that is not a block).
    pub(super) fn scoped(&mut self, s: &ast::Stmt) -> ir::Block {
        self.push_scope();
        let mut out = Vec::new();
        self.stmt(s, &mut out);
        self.pop_scope();
        out
    }

    pub(super) fn cond(&mut self, e: &ast::Expr) -> ir::Expr {
        let span = e.span;
        match self.expr(e, Some(&Type::Scalar(ir::ScalarType::Bool))) {
            Ok(c) if c.ty == Type::Scalar(ir::ScalarType::Bool) => c,
            Ok(c) => {
                let ty = c.ty.clone();
                self.diags.push(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        span,
                        format!("condition must be boolean, found {ty}"),
                    )
                    .with_note("help: compare explicitly, e.g. `x != 0`"),
                );
                bool_const(false, span)
            }
            Err(()) => bool_const(false, span),
        }
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt, out: &mut ir::Block) {
        match s {
            ast::Stmt::Empty(_) => {}
            ast::Stmt::Block(b) => out.extend(self.block(b)),
            ast::Stmt::Expr(e) if self.staging_copy(e, out) => {}
            ast::Stmt::Expr(e) => {
                if let Ok(stmts) = self.expr_stmt(e) {
                    out.extend(stmts);
                }
            }
            ast::Stmt::Local {
                ty,
                decls,
                is_final,
                ..
            } => {
                let first = self.locals.len();
                let emitted = out.len();
                self.local_decl(ty, decls, out);
                if *is_final {
                    self.finals.extend((first..self.locals.len()).map(LocalId));
                    for st in &out[emitted..] {
                        if let ir::Stmt::Store {
                            place: ir::Place::Local(id),
                            value:
                                v @ ir::Expr {
                                    kind: ir::ExprKind::Const(_),
                                    ..
                                },
                            ..
                        } = st
                        {
                            self.final_consts.insert(*id, v.clone());
                        }
                    }
                }
            }
            ast::Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let c = self.cond(cond);
                let before = (self.assigned.clone(), self.dead);
                let then_block = self.scoped(then);
                // Locals declared inside `then` keep their (out-of-scope) entries so that
                // `assigned` stays as long as `locals`.
                let mut restored = before.0.clone();
                restored.extend_from_slice(&self.assigned[before.0.len()..]);
                let after_then = (std::mem::replace(&mut self.assigned, restored), self.dead);
                self.dead = before.1;
                let else_block = match otherwise {
                    Some(o) => self.scoped(o),
                    None => Vec::new(),
                };
                self.merge(after_then);
                out.push(ir::Stmt::If {
                    cond: c,
                    then: then_block,
                    otherwise: else_block,
                });
            }
            ast::Stmt::While { cond, body, .. } => self.while_loop(None, cond, body, out),
            ast::Stmt::DoWhile { body, cond, .. } => self.do_while_loop(None, body, cond, out),
            ast::Stmt::For { .. } => self.for_loop(None, s, out),
            ast::Stmt::RangeFor { .. } => self.range_for(None, s, out),
            ast::Stmt::Labeled(label, inner) => match inner.as_ref() {
                ast::Stmt::For { .. } => self.for_loop(Some(label), inner, out),
                ast::Stmt::RangeFor { .. } => self.range_for(Some(label), inner, out),
                ast::Stmt::While { cond, body, .. } => {
                    self.while_loop(Some(label), cond, body, out)
                }
                ast::Stmt::DoWhile { body, cond, .. } => {
                    self.do_while_loop(Some(label), body, cond, out)
                }
                _ => self.diags.push(
                    Diagnostic::error(
                        Code::UnsupportedFeature,
                        label.span,
                        "labels are supported on loops only",
                    )
                    .with_note("help: put the label on a `for`, `while` or `do` loop"),
                ),
            },
            ast::Stmt::Switch(sw) => self.switch_stmt(sw, out),
            ast::Stmt::Try(t) => self.try_stmt(t, out),
            ast::Stmt::Yield(e, span) => self.yield_stmt(e, *span, out),
            ast::Stmt::Break(label, span) | ast::Stmt::Continue(label, span) => {
                let is_break = matches!(s, ast::Stmt::Break(..));
                if let Ok(idx) = self.find_loop(label.as_ref(), *span, is_break) {
                    let id = self.loops[idx].id;
                    if is_break && self.loops[idx].switch.is_some() {
                        self.leave_switch(idx, out);
                    } else if is_break {
                        self.loops[idx].broken = true;
                        if !self.dead {
                            let state = self.assigned.clone();
                            self.loops[idx].break_states.push(state);
                        }
                        out.push(ir::Stmt::Break(id));
                    } else {
                        out.push(ir::Stmt::Continue(id));
                    }
                }
                self.dead = true;
            }
            ast::Stmt::Return(value, span) => {
                if self.in_switch_expr() {
                    self.diags.push(
                        Diagnostic::error(
                            Code::InvalidSwitch,
                            *span,
                            "`return` cannot leave a switch expression",
                        )
                        .with_note("help: give the arm's value with `yield`"),
                    );
                } else {
                    self.return_stmt(value.as_ref(), *span, out);
                }
                self.dead = true;
            }
        }
    }

    /// `while (cond) body`, possibly labeled. After it, code is dead only when the condition
    /// is constant `true` and nothing breaks out.
    pub(super) fn merge(&mut self, other: (Vec<bool>, bool)) {
        let (other_assigned, other_dead) = other;
        match (self.dead, other_dead) {
            (true, false) => {
                self.restore(&other_assigned);
                self.dead = false;
            }
            (false, true) | (true, true) => {}
            (false, false) => {
                for (a, b) in self.assigned.iter_mut().zip(other_assigned) {
                    *a = *a && b;
                }
            }
        }
    }

    /// Resets the assignment state of the locals that existed when `saved` was taken;
    /// locals declared since are out of scope and keep their entries.
    pub(super) fn restore(&mut self, saved: &[bool]) {
        self.assigned[..saved.len()].copy_from_slice(saved);
    }

    pub(super) fn return_stmt(
        &mut self,
        value: Option<&ast::Expr>,
        span: Span,
        out: &mut ir::Block,
    ) {
        let ret = self.ret.clone();
        if self.syms.functions[self.fid.0].ret_unresolved() {
            // The return type did not resolve (E0007 at the declaration): check the value
            // for its own errors only.
            if let Some(e) = value {
                let _ = self.expr(e, None);
            }
            return;
        }
        match (value, &ret) {
            (None, Type::Void) => out.push(ir::Stmt::Return(self.implicit_return(span), span)),
            (Some(e), Type::Void) => self.diags.push(
                Diagnostic::error(
                    Code::TypeMismatch,
                    e.span,
                    if self.this.is_some() {
                        "a constructor returns no value; `return` takes none"
                    } else {
                        "this method returns void; `return` takes no value"
                    },
                )
                .with_note("help: remove the value"),
            ),
            (None, t) => {
                let t = t.clone();
                self.diags.push(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("missing return value of type {t}"),
                ))
            }
            (Some(e), t) => {
                if let Ok(v) = self
                    .expr(e, Some(t))
                    .and_then(|v| self.coerce(v, t, e.span))
                {
                    out.push(ir::Stmt::Return(Some(v), span));
                }
            }
        }
    }
}

/// A boolean constant.
pub fn bool_const(b: bool, span: Span) -> ir::Expr {
    ir::Expr::constant(
        ir::Constant::Bool(b),
        Type::Scalar(ir::ScalarType::Bool),
        span,
    )
}

pub(super) fn is_const_true(e: &ir::Expr) -> bool {
    matches!(e.kind, ir::ExprKind::Const(ir::Constant::Bool(true)))
}
