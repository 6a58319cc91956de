//! What native host code handed to the interpreter, by kind: `CAJETA_HOST_HANDOFFS=1`
//! prints, after a native run, one line per kind of hand-off (`Host(NewBuffer)`,
//! `Launch`, `store`…) with how many there were, so a user (or a test) sees which
//! operations still leave native code, and how often.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use crate::ir::{Expr, ExprKind, Stmt};

thread_local! {
    /// Hand-offs on this thread by kind, while `CAJETA_HOST_HANDOFFS` is set.
    static LOG: RefCell<BTreeMap<String, u64>> = const { RefCell::new(BTreeMap::new()) };
    /// Whether the run on this thread logs (read from the environment once per run, not
    /// per hand-off).
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Starts a run's log: on when `CAJETA_HOST_HANDOFFS` is set (and not `0`); gives whether.
pub fn start() -> bool {
    let on = std::env::var_os("CAJETA_HOST_HANDOFFS").is_some_and(|v| v != "0");
    ON.with(|o| o.set(on));
    LOG.with(|l| l.borrow_mut().clear());
    on
}

/// Whether this thread's run logs hand-offs.
pub fn enabled() -> bool {
    ON.with(Cell::get)
}

/// The kind of a handed-over expression: its node's name, a host operation's name and
/// the type it computes (`Host(NewArray): float32[]`).
pub fn expr_kind(e: &Expr) -> String {
    let node = match &e.kind {
        ExprKind::Host { op, .. } => format!("Host({op:?})"),
        ExprKind::Launch(_) => "Launch".to_string(),
        other => {
            // The variant's name alone (its operands would make every entry unique).
            let debug = format!("{other:?}");
            let end = debug.find(['(', ' ', '{']).unwrap_or(debug.len());
            debug[..end].to_string()
        }
    };
    format!("{node}: {}", e.ty)
}

/// The kind of a handed-over statement.
pub fn stmt_kind(s: &Stmt) -> String {
    match s {
        Stmt::Store { value, .. } => format!("store of {}", expr_kind(value)),
        _ => "statement".to_string(),
    }
}

/// Counts one hand-off of kind `kind` (only called while [`enabled`]).
pub fn record(kind: String) {
    LOG.with(|l| *l.borrow_mut().entry(kind).or_insert(0) += 1);
}

/// Ends the run's log: the counts by kind (empty when it was off).
pub fn finish() -> BTreeMap<String, u64> {
    ON.with(|o| o.set(false));
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

/// Prints the counts of [`finish`] on standard error, one kind a line, most frequent first.
pub fn report(counts: &BTreeMap<String, u64>) {
    let mut rows: Vec<_> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let total: u64 = counts.values().sum();
    eprintln!("native host code: {total} hand-offs to the interpreter");
    for (kind, n) in rows {
        eprintln!("  {n:>8}  {kind}");
    }
}
