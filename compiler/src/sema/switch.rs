//! `switch` statements and expressions, desugared into the IR's `If` and `Loop` (see
//! docs/architecture.md): the selector goes to a temporary; without fall-through the arms
//! become an `if`/`else if` chain; with fall-through an entry index picks the first arm and
//! every later arm runs while no `break` left. A `break` (or `yield`) that leaves the switch
//! from anywhere but an arm's end wraps it all in a loop that runs once, `break`'s target.

use super::body::{bool_const, FnCtx, LoopFrame, SwitchFrame, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, Constant, ExprKind, LocalId, LoopId, Place, ScalarType, Type};
use crate::syntax::ast;
use std::collections::HashMap;

/// One arm after checking: its condition (`None` for `default`), its statements, and the
/// definite-assignment state and reachability at its end.
struct Arm {
    cond: Option<ir::Expr>,
    block: ir::Block,
    end_dead: bool,
    end_state: Vec<bool>,
    span: Span,
}

impl FnCtx<'_, '_> {
    /// A `switch` statement.
    pub(super) fn switch_stmt(&mut self, sw: &ast::Switch, out: &mut ir::Block) {
        let _ = self.lower_switch(sw, None, out);
    }

    /// A `switch` expression: the switch runs in a [`ExprKind::Sequence`] whose value is the
    /// result temporary every arm assigns. Its type is the first arm value's (typed with
    /// `hint`); later arms convert to it.
    pub(super) fn switch_expr(&mut self, sw: &ast::Switch, hint: Option<&Type>) -> R<ir::Expr> {
        let result = self.temp(Type::Void, sw.span);
        let mut stmts = Vec::new();
        self.lower_switch(sw, Some((result, hint.cloned())), &mut stmts)?;
        let ty = self.locals[result.0].ty.clone();
        if ty == Type::Void {
            // No arm gave a value that checked; the errors are reported.
            return Err(());
        }
        let value = ir::Expr {
            kind: ExprKind::Load(Place::Local(result)),
            ty: ty.clone(),
            span: sw.span,
        };
        Ok(ir::Expr {
            kind: ExprKind::Sequence(stmts, Box::new(value)),
            ty,
            span: sw.span,
        })
    }

    /// `yield e;`: assigns the innermost switch expression's result and leaves it.
    pub(super) fn yield_stmt(&mut self, e: &ast::Expr, span: Span, out: &mut ir::Block) {
        let Some(idx) = self
            .loops
            .iter()
            .rposition(|f| f.switch.as_ref().is_some_and(|s| s.result.is_some()))
        else {
            self.diags.push(
                Diagnostic::error(Code::InvalidSwitch, span, "`yield` outside a switch expression")
                    .with_note("help: `yield` gives the value of a `switch` expression's arm; use `return` or `break` here"),
            );
            self.dead = true;
            return;
        };
        if let Ok(store) = self.arm_value(idx, e) {
            out.push(store);
        }
        self.leave_switch(idx, out);
    }

    /// The store of an arm's value into switch frame `idx`'s result, fixing the result's
    /// type at the first one.
    fn arm_value(&mut self, idx: usize, e: &ast::Expr) -> R<ir::Stmt> {
        let Some((result, hint)) = self.loops[idx]
            .switch
            .as_ref()
            .and_then(|s| s.result.clone())
        else {
            return Err(());
        };
        let known = self.locals[result.0].ty.clone();
        let want = if known == Type::Void {
            hint
        } else {
            Some(known.clone())
        };
        let v = self.expr(e, want.as_ref())?;
        let v = if known == Type::Void {
            if v.ty == Type::Void {
                return self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    e.span,
                    "a switch expression's arm must have a value, not void",
                ));
            }
            self.locals[result.0].ty = v.ty.clone();
            v
        } else {
            self.coerce(v, &known, e.span)?
        };
        Ok(ir::Stmt::Store {
            place: Place::Local(result),
            value: v,
            span: e.span,
        })
    }

    /// A jump out of switch frame `idx` (a `break` or `yield`): records the assignment
    /// state there for after the switch.
    pub(super) fn leave_switch(&mut self, idx: usize, out: &mut ir::Block) {
        let state = self.assigned.clone();
        let frame = &mut self.loops[idx];
        frame.broken = true;
        if let Some(s) = frame.switch.as_mut() {
            s.exits.push(state);
        }
        out.push(ir::Stmt::Break(frame.id));
        self.dead = true;
    }

    fn lower_switch(
        &mut self,
        sw: &ast::Switch,
        result: Option<(LocalId, Option<Type>)>,
        out: &mut ir::Block,
    ) -> R<()> {
        let is_expr = result.is_some();
        let sel = self.expr(&sw.selector, None)?;
        let sel_ty = sel.ty.clone();
        match &sel_ty {
            Type::Scalar(s) if s.is_integer() => {}
            t => {
                let t = t.clone();
                let note = if matches!(t, Type::Enum(_)) {
                    "the enum-like stdlib classes (`MemoryOrder`, `GroupOp`, …) have only constants, no run-time values to switch on"
                } else {
                    "a switch selector is an integer; use `if`/`else` for other types"
                };
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        sw.selector.span,
                        format!("cannot switch on a value of type {t}"),
                    )
                    .with_label(format!("this is {t}"))
                    .with_note(note),
                );
            }
        }
        let arrow = !matches!(
            sw.cases.first().map(|c| &c.body),
            Some(ast::CaseBody::Colon(_))
        );
        for c in &sw.cases {
            if matches!(c.body, ast::CaseBody::Colon(_)) == arrow {
                return self.error(
                    Diagnostic::error(
                        Code::InvalidSwitch,
                        c.span,
                        "`case … ->` and `case …:` arms cannot be mixed in one switch",
                    )
                    .with_note("help: write every arm of this switch the same way"),
                );
            }
        }
        let tmp = self.temp(sel_ty.clone(), sw.selector.span);
        out.push(ir::Stmt::Store {
            place: Place::Local(tmp),
            value: sel,
            span: sw.selector.span,
        });
        let conds = self.case_conditions(sw, tmp, &sel_ty)?;
        let has_default = sw.cases.iter().any(|c| c.is_default);
        if is_expr && !has_default {
            return self.error(
                Diagnostic::error(
                    Code::InvalidSwitch,
                    sw.span.to(sw.selector.span),
                    "a switch expression must have a `default` arm",
                )
                .with_label("not every value has an arm")
                .with_note("help: add `default -> …;`"),
            );
        }

        let id = LoopId(self.next_loop);
        self.next_loop += 1;
        self.loops.push(LoopFrame {
            id,
            label: None,
            broken: false,
            break_states: Vec::new(),
            switch: Some(SwitchFrame {
                exits: Vec::new(),
                result,
            }),
        });
        let frame_idx = self.loops.len() - 1;
        let before = self.assigned.clone();
        let was_dead = self.dead;
        let mut arms = Vec::with_capacity(sw.cases.len());
        for (c, cond) in sw.cases.iter().zip(conds) {
            let kept = self.assigned[before.len()..].to_vec();
            self.assigned.truncate(before.len());
            self.assigned.copy_from_slice(&before);
            self.assigned.extend(kept);
            self.dead = was_dead;
            let mut block = Vec::new();
            match &c.body {
                ast::CaseBody::Colon(stmts) => {
                    self.push_scope();
                    block = self.stmts(stmts);
                    self.pop_scope();
                }
                ast::CaseBody::Block(b) => block = self.block(b),
                ast::CaseBody::Expr(e) if is_expr => {
                    if let Ok(store) = self.arm_value(frame_idx, e) {
                        block.push(store);
                    }
                }
                ast::CaseBody::Expr(e) => {
                    if let Ok(stmts) = self.expr_stmt(e) {
                        block = stmts;
                    }
                }
            }
            arms.push(Arm {
                cond: (!c.is_default).then_some(cond),
                block,
                end_dead: self.dead,
                end_state: self.assigned.clone(),
                span: c.span,
            });
        }
        let frame = self
            .loops
            .pop()
            .and_then(|f| f.switch)
            .unwrap_or(SwitchFrame {
                exits: Vec::new(),
                result: None,
            });

        // The ways out: `break`/`yield`, an arm's end (the last one's with fall-through), and
        // no arm matching without `default`.
        let mut exits = frame.exits;
        for (k, arm) in arms.iter().enumerate() {
            let falls_out = arrow || k + 1 == arms.len();
            let value_arm = is_expr && matches!(sw.cases[k].body, ast::CaseBody::Expr(_));
            if falls_out && !arm.end_dead {
                if is_expr && !value_arm {
                    self.diags.push(
                        Diagnostic::error(
                            Code::InvalidSwitch,
                            arm.span,
                            "this arm of a switch expression can end without a value",
                        )
                        .with_note("help: end it with `yield value;`"),
                    );
                }
                exits.push(arm.end_state.clone());
            }
        }
        if !has_default {
            exits.push(before.clone());
        }
        for (i, a) in self.assigned.iter_mut().enumerate().take(before.len()) {
            *a = exits.iter().all(|e| e[i]);
        }
        self.dead = was_dead || exits.is_empty();

        let fallthrough = !arrow && arms.iter().rev().skip(1).any(|a| !a.end_dead);
        let body = if fallthrough {
            self.fallthrough_chain(arms, sw.span)
        } else {
            if_chain(arms, id)
        };
        if body.iter().any(|s| breaks_to(s, id)) {
            out.push(ir::Stmt::Loop {
                id,
                pre_cond: None,
                body,
                continuing: Vec::new(),
                post_cond: Some(bool_const(false, sw.span)),
            });
        } else {
            out.extend(body);
        }
        Ok(())
    }

    /// Each arm's condition, `tmp == label || …` (`false` for `default`), after checking
    /// that the labels are distinct constants of the selector's type.
    fn case_conditions(
        &mut self,
        sw: &ast::Switch,
        tmp: LocalId,
        sel_ty: &Type,
    ) -> R<Vec<ir::Expr>> {
        let mut seen: HashMap<u64, Span> = HashMap::new();
        let mut default: Option<Span> = None;
        let mut conds = Vec::with_capacity(sw.cases.len());
        let mut failed = false;
        for c in &sw.cases {
            if c.is_default {
                if let Some(first) = default {
                    self.diags.push(
                        Diagnostic::error(Code::InvalidSwitch, c.span, "a second `default` arm")
                            .with_secondary(first, "the first `default`"),
                    );
                    failed = true;
                }
                default = Some(c.span);
            }
            let mut cond: Option<ir::Expr> = None;
            for label in &c.labels {
                let Ok(value) = self.case_label(label, sel_ty) else {
                    failed = true;
                    continue;
                };
                if let Some(first) = seen.insert(value, label.span) {
                    self.diags.push(
                        Diagnostic::error(Code::InvalidSwitch, label.span, "duplicate case label")
                            .with_label("this value already has an arm")
                            .with_secondary(first, "first here"),
                    );
                    failed = true;
                    continue;
                }
                let test = compare(tmp, sel_ty, value, label.span);
                cond = Some(match cond {
                    None => test,
                    Some(prev) => ir::Expr {
                        kind: ExprKind::Binary(BinaryOp::BitOr, Box::new(prev), Box::new(test)),
                        ty: Type::Scalar(ScalarType::Bool),
                        span: label.span,
                    },
                });
            }
            conds.push(cond.unwrap_or_else(|| bool_const(false, c.span)));
        }
        if failed {
            return Err(());
        }
        Ok(conds)
    }

    /// A case label's value: a constant of the selector's type.
    fn case_label(&mut self, label: &ast::Expr, sel_ty: &Type) -> R<u64> {
        // A `final` local with a constant initializer is a constant (Java's constant
        // variable): its value stands for it.
        let named = match &label.kind {
            ast::ExprKind::Name(n) => self
                .lookup(n)
                .and_then(|id| self.final_consts.get(&id).cloned()),
            _ => None,
        };
        let v = match named {
            Some(mut c) => {
                c.span = label.span;
                c
            }
            None => self.expr(label, Some(sel_ty))?,
        };
        let v = self.coerce(v, sel_ty, label.span)?;
        match v.kind {
            ExprKind::Const(Constant::Int(bits)) => Ok(bits),
            _ => self.error(
                Diagnostic::error(
                    Code::NotConstant,
                    label.span,
                    "a case label must be a constant",
                )
                .with_label("not known at compile time")
                .with_note("help: use a literal or a constant expression; compare with `if` for run-time values"),
            ),
        }
    }

    /// Fall-through form: `entry` = the index of the chosen arm (or past the last), then
    /// `if (entry <= k) { arm k }` for every arm in order.
    fn fallthrough_chain(&mut self, arms: Vec<Arm>, span: Span) -> ir::Block {
        let i32t = Type::Scalar(ScalarType::I32);
        let entry = self.temp(i32t.clone(), span);
        let index = |k: usize| ir::Expr::constant(Constant::Int(k as u64), i32t.clone(), span);
        let default = arms
            .iter()
            .position(|a| a.cond.is_none())
            .unwrap_or(arms.len());
        let set = |k: usize| {
            vec![ir::Stmt::Store {
                place: Place::Local(entry),
                value: index(k),
                span,
            }]
        };
        let mut choose = set(default);
        for (k, arm) in arms.iter().enumerate().rev() {
            if let Some(c) = &arm.cond {
                choose = vec![ir::Stmt::If {
                    cond: c.clone(),
                    then: set(k),
                    otherwise: choose,
                }];
            }
        }
        let mut out = choose;
        for (k, arm) in arms.into_iter().enumerate() {
            let load = ir::Expr {
                kind: ExprKind::Load(Place::Local(entry)),
                ty: i32t.clone(),
                span,
            };
            out.push(ir::Stmt::If {
                cond: ir::Expr {
                    kind: ExprKind::Binary(BinaryOp::Le, Box::new(load), Box::new(index(k))),
                    ty: Type::Scalar(ScalarType::Bool),
                    span: arm.span,
                },
                then: arm.block,
                otherwise: Vec::new(),
            });
        }
        out
    }
}

/// `tmp == value` in the selector's type.
fn compare(tmp: LocalId, ty: &Type, value: u64, span: Span) -> ir::Expr {
    let load = ir::Expr {
        kind: ExprKind::Load(Place::Local(tmp)),
        ty: ty.clone(),
        span,
    };
    let c = ir::Expr::constant(Constant::Int(value), ty.clone(), span);
    ir::Expr {
        kind: ExprKind::Binary(BinaryOp::Eq, Box::new(load), Box::new(c)),
        ty: Type::Scalar(ScalarType::Bool),
        span,
    }
}

/// No fall-through: `if (c0) { arm 0 } else if (c1) { … } else { default }`, each arm's
/// final `break` of switch `id` dropped (the chain's end is where it goes).
fn if_chain(arms: Vec<Arm>, id: LoopId) -> ir::Block {
    let mut default = Vec::new();
    let mut cases = Vec::new();
    for mut arm in arms {
        if matches!(arm.block.last(), Some(ir::Stmt::Break(b)) if *b == id) {
            arm.block.pop();
        }
        match arm.cond {
            None => default = arm.block,
            Some(c) => cases.push((c, arm.block)),
        }
    }
    let mut chain = default;
    for (cond, then) in cases.into_iter().rev() {
        chain = vec![ir::Stmt::If {
            cond,
            then,
            otherwise: chain,
        }];
    }
    chain
}

/// Whether `s` contains a `break` of loop `id` (switch arms hold no expression that can:
/// a `break` cannot leave a switch expression).
fn breaks_to(s: &ir::Stmt, id: LoopId) -> bool {
    match s {
        ir::Stmt::Break(b) => *b == id,
        ir::Stmt::If {
            then, otherwise, ..
        } => then.iter().chain(otherwise).any(|s| breaks_to(s, id)),
        ir::Stmt::Loop {
            body, continuing, ..
        } => body.iter().chain(continuing).any(|s| breaks_to(s, id)),
        _ => false,
    }
}
