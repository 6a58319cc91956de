//! `switch` syntax: telling a `switch` statement from a `switch` expression, and the grammar
//! actions that build both.
//!
//! Java makes a `switch` at the start of a statement a statement (an expression statement
//! cannot begin with `switch`). An LR(1) grammar cannot see that: after the closing `}` a
//! `-`, `+`, `++`, `--` or `[` could continue an expression or start the next statement. The
//! lexer knows where statements start, so it hands the grammar two tokens instead:
//! [`Tok::SwitchStmt`] at a statement start, [`Tok::Switch`] elsewhere.

use super::ast::{CaseBody, Expr, ExprKind, Stmt, Switch, SwitchCase};
use super::lexer::{Spanned, Tok};
use super::nesting::{NestingGuard, MAX_NESTING};
use crate::diagnostics::Span;

/// One open bracket while scanning for statement starts.
struct Open {
    /// A `{` (statements may start inside it), not a `(` or `[`.
    brace: bool,
    /// A `(` opening an `if`/`while`/`for`/`switch` header: a statement follows its `)`.
    header: bool,
    /// `?`s at this level still waiting for their `:`.
    questions: u32,
}

/// Turns every `switch` that begins a statement into [`Tok::SwitchStmt`].
pub(super) fn mark_statement_switches(tokens: &mut [Spanned]) {
    // Most files have no `switch`: one look for it is cheaper than tracking nesting over every
    // token (about 20 instructions a token, 1.5% of a small program's `check`).
    if !tokens.iter().any(|(_, tok, _)| matches!(tok, Tok::Switch)) {
        return;
    }
    let mut stack = vec![Open {
        brace: true,
        header: false,
        questions: 0,
    }];
    let mut at_statement_start = true;
    let mut prev_keyword_header = false;
    for (_, tok, _) in tokens.iter_mut() {
        let in_block = stack.last().is_some_and(|o| o.brace);
        if *tok == Tok::Switch && at_statement_start && in_block {
            *tok = Tok::SwitchStmt;
        }
        let mut next_start = false;
        match tok {
            Tok::Semi | Tok::Else | Tok::Do => next_start = true,
            Tok::LBrace => {
                stack.push(Open {
                    brace: true,
                    header: false,
                    questions: 0,
                });
                next_start = true;
            }
            Tok::LParen | Tok::LBracket => stack.push(Open {
                brace: false,
                header: *tok == Tok::LParen && prev_keyword_header,
                questions: 0,
            }),
            Tok::RBrace | Tok::RParen | Tok::RBracket => {
                let closed = if stack.len() > 1 { stack.pop() } else { None };
                next_start = match tok {
                    Tok::RBrace => true,
                    Tok::RParen => closed.is_some_and(|o| o.header),
                    _ => false,
                };
            }
            Tok::Question => {
                if let Some(o) = stack.last_mut() {
                    o.questions += 1;
                }
            }
            Tok::Colon => {
                if let Some(o) = stack.last_mut() {
                    if o.questions > 0 {
                        o.questions -= 1;
                    } else {
                        // A statement label or a `case …:` head (a named argument's colon
                        // sits inside parentheses).
                        next_start = o.brace;
                    }
                }
            }
            _ => {}
        }
        prev_keyword_header = matches!(
            tok,
            Tok::If | Tok::While | Tok::For | Tok::Switch | Tok::SwitchStmt
        );
        at_statement_start = next_start;
    }
}

/// An arm as the grammar builds it: the arm and the nesting depth of its deepest part.
pub type NestedCase = (SwitchCase, u32);

/// A `case`/`default` arm (a grammar action). `default` has no labels.
pub fn case_arm(
    labels: Vec<Expr>,
    is_default: bool,
    body: CaseBody,
    body_depth: u32,
    span: Span,
) -> NestedCase {
    let depth = labels
        .iter()
        .map(|l| l.depth)
        .chain([body_depth])
        .max()
        .unwrap_or(0);
    (
        SwitchCase {
            labels,
            is_default,
            body,
            span,
        },
        depth,
    )
}

/// A colon arm's statements and their deepest nesting.
pub fn colon_body(stmts: Vec<(Box<Stmt>, u32)>) -> (CaseBody, u32) {
    let depth = stmts.iter().map(|s| s.1).max().unwrap_or(0);
    (
        CaseBody::Colon(stmts.into_iter().map(|s| *s.0).collect()),
        depth,
    )
}

/// The `switch` itself, with its depth. One too deep records the nesting error and comes
/// back with no arms (its parts dropped on the spot, as `NestingGuard` does for others).
fn build(guard: &NestingGuard, selector: Expr, arms: Vec<NestedCase>, span: Span) -> Switch {
    let mut depths: Vec<u32> = arms.iter().map(|a| a.1).collect();
    depths.push(selector.depth);
    let depth = 1 + depths.iter().copied().max().unwrap_or(0);
    if depth > MAX_NESTING {
        guard.stmt(Box::new(Stmt::Empty(span)), &depths);
        return Switch {
            selector: guard.expr(ExprKind::Bool(false), span),
            cases: Vec::new(),
            span,
            depth: 1,
        };
    }
    Switch {
        selector,
        cases: arms.into_iter().map(|a| a.0).collect(),
        span,
        depth,
    }
}

/// A `switch` statement (a grammar action).
pub fn switch_stmt(
    guard: &NestingGuard,
    selector: Expr,
    arms: Vec<NestedCase>,
    span: Span,
) -> (Box<Stmt>, u32) {
    let sw = build(guard, selector, arms, span);
    let depth = sw.depth;
    (Box::new(Stmt::Switch(Box::new(sw))), depth)
}

/// A `switch` expression (a grammar action).
pub fn switch_expr(
    guard: &NestingGuard,
    selector: Expr,
    arms: Vec<NestedCase>,
    span: Span,
) -> Expr {
    let sw = build(guard, selector, arms, span);
    guard.expr(ExprKind::Switch(Box::new(sw)), span)
}
