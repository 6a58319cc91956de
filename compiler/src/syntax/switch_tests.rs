//! Tests of the `switch` syntax: which `switch` is a statement and which an expression,
//! and the arms the grammar builds.

use super::ast::{CaseBody, ExprKind, Member, Stmt};
use super::lexer::{lex, Tok};

/// The statements of the one method of `class A { void m() { BODY } }`.
fn body(src: &str) -> Vec<Stmt> {
    let file = format!("class A {{ void m() {{ {src} }} }}");
    let parsed = super::parse_file(0, &file).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    match &parsed.classes[0].members[0] {
        Member::Method(m) => m.body.as_ref().unwrap().stmts.clone(),
        _ => panic!("no method"),
    }
}

/// For each `switch` token of `src`, whether the lexer made it a statement.
fn kinds(src: &str) -> Vec<bool> {
    lex(0, src)
        .0
        .into_iter()
        .filter_map(|(_, t, _)| match t {
            Tok::SwitchStmt => Some(true),
            Tok::Switch => Some(false),
            _ => None,
        })
        .collect()
}

#[test]
fn a_switch_at_a_statement_start_is_a_statement() {
    assert_eq!(kinds("{ switch (x) {} }"), [true]);
    assert_eq!(
        kinds("{ if (c) switch (x) {} else switch (y) {} }"),
        [true, true]
    );
    assert_eq!(
        kinds("{ for (;;) switch (x) {} while (c) switch (x) {} }"),
        [true, true]
    );
    assert_eq!(
        kinds("{ switch (x) { case 1: switch (y) {} } }"),
        [true, true]
    );
    assert_eq!(
        kinds("{ do switch (x) {} while (c); l: switch (x) {} }"),
        [true, true]
    );
}

#[test]
fn a_switch_inside_an_expression_is_an_expression() {
    assert_eq!(kinds("{ int32 r = switch (x) {}; }"), [false]);
    assert_eq!(kinds("{ return switch (x) {}; }"), [false]);
    assert_eq!(
        kinds("{ f(switch (x) {}); r = c ? switch (x) {} : 0; }"),
        [false, false]
    );
    // A ternary's `:` is no statement start; a named argument's neither.
    assert_eq!(
        kinds("{ r = c ? 1 : switch (x) {}; k(n: switch (x) {}); }"),
        [false, false]
    );
    // `if (f(x)) …`: the call's `)` does not end the header.
    assert_eq!(
        kinds("{ if (f(switch (x) {})) switch (y) {} }"),
        [false, true]
    );
}

#[test]
fn a_statement_after_a_switch_statement_is_its_own() {
    // Were the switch an expression, `++y` would be a postfix `++` on it.
    let stmts = body("switch (x) { default -> {} } ++y;");
    assert_eq!(stmts.len(), 2);
    assert!(matches!(stmts[0], Stmt::Switch(_)));
    assert!(matches!(stmts[1], Stmt::Expr(_)));
}

#[test]
fn arms_keep_their_labels_and_kinds() {
    let stmts = body(
        "switch (x) { case 1, 2: a(); case 3: default: b(); } \
         int32 r = switch (x) { case 1 -> 10; case 2 -> { yield 20; } default -> 0; };",
    );
    let Stmt::Switch(sw) = &stmts[0] else {
        panic!("{:?}", stmts[0]);
    };
    assert_eq!(sw.cases.len(), 3);
    assert_eq!(sw.cases[0].labels.len(), 2);
    assert!(matches!(&sw.cases[1].body, CaseBody::Colon(s) if s.is_empty()));
    assert!(sw.cases[2].is_default && sw.cases[2].labels.is_empty());
    let Stmt::Local { decls, .. } = &stmts[1] else {
        panic!("{:?}", stmts[1]);
    };
    let Some(init) = &decls[0].1 else {
        panic!("no initializer")
    };
    let ExprKind::Switch(e) = &init.kind else {
        panic!("{init:?}");
    };
    assert!(matches!(e.cases[0].body, CaseBody::Expr(_)));
    assert!(
        matches!(&e.cases[1].body, CaseBody::Block(b) if matches!(b.stmts[0], Stmt::Yield(..)))
    );
    assert!(e.cases[2].is_default);
}
