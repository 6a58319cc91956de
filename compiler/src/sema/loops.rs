//! Loops: `while`, `do … while`, the loop bodies of `for` forms, and `break` / `continue`
//! targets, with definite assignment across iterations.

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, LoopId};
use crate::syntax::ast;

use super::body::{is_const_true, FnCtx, LoopFrame, R};

impl FnCtx<'_, '_> {
    pub(super) fn while_loop(
        &mut self,
        label: Option<&ast::Ident>,
        cond: &ast::Expr,
        body: &ast::Stmt,
        out: &mut ir::Block,
    ) {
        let c = self.cond(cond);
        let infinite = is_const_true(&c);
        let (id, body_block, broken) = self.loop_body(label, body, !infinite, infinite);
        out.push(ir::Stmt::Loop {
            id,
            pre_cond: Some(c),
            body: body_block,
            continuing: vec![],
            post_cond: None,
        });
        self.dead = infinite && !broken;
    }

    /// `do body while (cond);`, possibly labeled: the body runs at least once.
    pub(super) fn do_while_loop(
        &mut self,
        label: Option<&ast::Ident>,
        body: &ast::Stmt,
        cond: &ast::Expr,
        out: &mut ir::Block,
    ) {
        let (id, body_block, broken) = self.loop_body(label, body, false, false);
        let c = self.cond(cond);
        let infinite = is_const_true(&c);
        out.push(ir::Stmt::Loop {
            id,
            pre_cond: None,
            body: body_block,
            continuing: vec![],
            post_cond: Some(c),
        });
        self.dead = infinite && !broken;
    }

    /// The frame a `break`/`continue` goes to: the innermost loop (or, for an unlabeled
    /// `break`, switch statement), or the loop labeled so. Neither may leave a switch
    /// expression (Java's rule: its arms end only by giving a value).
    pub(super) fn find_loop(
        &mut self,
        label: Option<&ast::Ident>,
        span: Span,
        is_break: bool,
    ) -> R<usize> {
        let word = if is_break { "break" } else { "continue" };
        let found = match label {
            None => self
                .loops
                .iter()
                .rposition(|f| is_break || f.switch.is_none()),
            Some(l) => self
                .loops
                .iter()
                .rposition(|f| f.label.as_deref() == Some(l.name.as_str())),
        };
        let Some(i) = found else {
            return match label {
                None => self.error(Diagnostic::error(
                    Code::BreakOutsideLoop,
                    span,
                    format!("`{word}` outside of a loop"),
                )),
                Some(l) => self.error(
                    Diagnostic::error(
                        Code::BreakOutsideLoop,
                        l.span,
                        format!("no enclosing loop is labeled `{}`", l.name),
                    )
                    .with_label("unknown label"),
                ),
            };
        };
        let crosses = self.loops[i..].iter().any(is_switch_expr);
        if crosses {
            return self.error(
                Diagnostic::error(
                    Code::InvalidSwitch,
                    span,
                    format!("`{word}` cannot leave a switch expression"),
                )
                .with_note("help: give the arm's value with `yield`"),
            );
        }
        Ok(i)
    }

    /// Whether a switch expression is being checked here (so `return` cannot leave it).
    pub(super) fn in_switch_expr(&self) -> bool {
        self.loops.iter().any(is_switch_expr)
    }

    /// Checks a loop body. `body_may_skip`: the body might not run (while/for), so
    /// assignments in it do not count afterwards. `only_breaks_leave`: the condition is
    /// constant `true`, so the loop ends only through a `break`, and a local is assigned
    /// after it when it is at every `break` that leaves it (`while (true) { x = 1; break; }`).
    pub(super) fn loop_body(
        &mut self,
        label: Option<&ast::Ident>,
        body: &ast::Stmt,
        body_may_skip: bool,
        only_breaks_leave: bool,
    ) -> (LoopId, ir::Block, bool) {
        let id = LoopId(self.next_loop);
        self.next_loop += 1;
        self.loops.push(LoopFrame {
            id,
            label: label.map(|l| l.name.clone()),
            broken: false,
            break_states: Vec::new(),
            switch: None,
        });
        let before = self.assigned.clone();
        let was_dead = self.dead;
        let block = self.scoped(body);
        let frame = self.loops.pop();
        let broken = frame.as_ref().is_some_and(|f| f.broken);
        let exits = frame.map(|f| f.break_states).unwrap_or_default();
        if only_breaks_leave && !exits.is_empty() {
            // Assigned after the loop: assigned at every break that leaves it.
            let mut after = exits[0][..before.len()].to_vec();
            for state in &exits[1..] {
                for (a, b) in after.iter_mut().zip(state) {
                    *a &= *b;
                }
            }
            self.restore(&after);
        } else if body_may_skip || broken {
            self.restore(&before);
        }
        self.dead = was_dead;
        (id, block, broken)
    }

    pub(super) fn for_loop(
        &mut self,
        label: Option<&ast::Ident>,
        s: &ast::Stmt,
        out: &mut ir::Block,
    ) {
        let ast::Stmt::For {
            init,
            cond,
            update,
            body,
            ..
        } = s
        else {
            return;
        };
        self.push_scope();
        for i in init {
            self.stmt(i, out);
        }
        let c = cond.as_ref().map(|c| self.cond(c));
        let infinite = c.as_ref().map(is_const_true).unwrap_or(true);
        // With update expressions, which are checked after the body in the state the loop
        // leaves, only the plain rule (nothing the body assigns counts) is sound: a `continue`
        // can reach the update with a local its `break`s have assigned still unassigned.
        let only_breaks_leave = infinite && update.is_empty();
        let (id, body_block, broken) =
            self.loop_body(label, body, !only_breaks_leave, only_breaks_leave);
        let mut continuing = Vec::new();
        let saved_dead = self.dead;
        self.dead = false;
        for u in update {
            if let Ok(stmts) = self.expr_stmt(u) {
                continuing.extend(stmts);
            }
        }
        self.dead = saved_dead;
        self.pop_scope();
        out.push(ir::Stmt::Loop {
            id,
            pre_cond: c,
            body: body_block,
            continuing,
            post_cond: None,
        });
        self.dead = infinite && !broken;
    }
}

/// Whether the frame is a switch expression's.
fn is_switch_expr(f: &LoopFrame) -> bool {
    f.switch.as_ref().is_some_and(|s| s.result.is_some())
}
