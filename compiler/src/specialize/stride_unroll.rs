//! Two iterations a trip for counted loops over narrowed buffers (issue 32).
//!
//! Where the precision variant stores `sfp` in 16 bits, each iteration of a memory-bound loop
//! moves half the bytes it moves in fp32, so a thread has half as many bytes in flight and
//! the device's memory system is left waiting on latency rather than bandwidth. A loop of the
//! form
//!
//! ```text
//! for (; i < n; i += s) body        // i: uint32; n, s: not written in the loop
//! ```
//!
//! whose body reads or writes a buffer of a precision type becomes
//!
//! ```text
//! for (; i < n && n - i > s; i += s) { body; i += s; body }   // both iterations are due
//! for (; i < n; i += s) body                                   // the one left, if any
//! ```
//!
//! so each trip issues two iterations' loads before it needs either (the accesses of the two
//! copies are independent straight-line code the driver may schedule together). It is the
//! same computation in the same order: the first loop runs a trip only when the original
//! would run both iterations (`i < n` and `i + s < n` without wrapping, since `n - i > s`),
//! and the second is the original loop, finishing from where the first stopped. The trip
//! split depends only on the original trip count, so a loop whose trips are uniform across
//! the workgroup stays uniform. Loops holding a `break`, `continue`, `return` or another loop
//! are left alone, as are loops that write `i`, `n` or `s` inside and loops to a constant
//! bound (a few trips known in advance, which drivers unroll whole).

use super::rewrite::Rewrite;
use crate::ir::{
    self, visit, visit::LocalUse, BinaryOp, Expr, ExprKind, LocalId, LoopId, Place, ScalarType,
    Stmt, Type,
};

/// Unrolls the qualifying loops of every kernel and device helper of `module`.
pub(super) fn unroll_stride_loops(module: &mut ir::Module) {
    for f in module
        .functions
        .iter_mut()
        .filter(|f| f.kind != ir::FunctionKind::Host)
    {
        let body = std::mem::take(&mut f.body);
        let mut pass = StrideUnroll {
            locals: &f.locals,
            next_loop: super::precision::max_loop(&body) + 1,
        };
        f.body = pass.block(body);
    }
}

/// The walk: expressions stay as they are; each loop, once its own blocks are done, is
/// preceded by its unrolled form where it qualifies.
struct StrideUnroll<'a> {
    locals: &'a [ir::Local],
    next_loop: usize,
}

impl Rewrite for StrideUnroll<'_> {
    fn expr(&mut self, e: Expr, _pre: &mut Vec<Stmt>) -> Expr {
        e
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        if !matches!(s, Stmt::Loop { .. }) {
            return self.stmt_children(s, out);
        }
        let mut done = Vec::with_capacity(1);
        self.stmt_children(s, &mut done);
        for original in done {
            if let Some(unrolled) = unrolled(&original, self.locals, &mut self.next_loop) {
                out.push(unrolled);
            }
            out.push(original);
        }
    }
}

/// The two-iterations-a-trip loop to run before `s`, when `s` qualifies.
fn unrolled(s: &Stmt, locals: &[ir::Local], next_loop: &mut usize) -> Option<Stmt> {
    let Stmt::Loop {
        pre_cond: Some(cond),
        body,
        continuing,
        post_cond: None,
        ..
    } = s
    else {
        return None;
    };
    // `i < n`, with `i` a uint32 local.
    let ExprKind::Binary(BinaryOp::Lt, lhs, bound) = &cond.kind else {
        return None;
    };
    let i = local_load(lhs)?;
    if locals.get(i.0)?.ty != Type::Scalar(ScalarType::U32) {
        return None;
    }
    // The update `i = i + s`, alone in `continuing`.
    let [Stmt::Store {
        place: Place::Local(target),
        value,
        ..
    }] = continuing.as_slice()
    else {
        return None;
    };
    let ExprKind::Binary(BinaryOp::Add, from, step) = &value.kind else {
        return None;
    };
    if *target != i || local_load(from) != Some(i) {
        return None;
    }
    // A constant bound makes a short loop of known trips, which drivers unroll themselves.
    if matches!(bound.kind, ExprKind::Const(_)) {
        return None;
    }
    // `n` and `s`: constants and locals the loop does not write.
    let mut written = Vec::new();
    let mut read_in_bounds = Vec::new();
    for part in [&**bound, &**step] {
        if !invariant_form(part, &mut read_in_bounds) {
            return None;
        }
    }
    visit::for_each_local_use(body, &mut |l, u| {
        if u == LocalUse::Store {
            written.push(l);
        }
    });
    if written.contains(&i) || read_in_bounds.iter().any(|l| written.contains(l)) {
        return None;
    }
    if !straight_line(body) || !touches_precision_buffer(body) {
        return None;
    }
    // `i < n && n - i > s`: both iterations are due.
    let u32t = Type::Scalar(ScalarType::U32);
    let span = cond.span;
    let remaining = Expr {
        kind: ExprKind::Binary(BinaryOp::Sub, bound.clone(), lhs.clone()),
        ty: u32t,
        span,
    };
    let both_due = Expr {
        kind: ExprKind::Binary(BinaryOp::Gt, Box::new(remaining), step.clone()),
        ty: cond.ty.clone(),
        span,
    };
    let guard = Expr {
        kind: ExprKind::LogicalAnd(Box::new(cond.clone()), Box::new(both_due)),
        ty: cond.ty.clone(),
        span,
    };
    let mut twice = body.clone();
    twice.extend(continuing.iter().cloned());
    twice.extend(body.iter().cloned());
    let id = LoopId(*next_loop);
    *next_loop += 1;
    Some(Stmt::Loop {
        id,
        pre_cond: Some(guard),
        body: twice,
        continuing: continuing.clone(),
        post_cond: None,
    })
}

/// The local `e` reads, when `e` is a plain read of a local.
fn local_load(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Load(Place::Local(l)) => Some(*l),
        _ => None,
    }
}

/// Whether `e` is built from constants, reads of locals (collected into `reads`) and
/// arithmetic on them: a value the loop cannot change unless it writes one of `reads`.
fn invariant_form(e: &Expr, reads: &mut Vec<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Load(Place::Local(l)) => {
            reads.push(*l);
            true
        }
        ExprKind::Convert(a) | ExprKind::Unary(_, a) => invariant_form(a, reads),
        ExprKind::Binary(op, a, b) => {
            // Division could trap on a constant zero the loop never reaches.
            !matches!(op, BinaryOp::Div | BinaryOp::Rem)
                && invariant_form(a, reads)
                && invariant_form(b, reads)
        }
        _ => false,
    }
}

/// Whether `body` has no loop, `break`, `continue` or `return` at any depth.
fn straight_line(body: &[Stmt]) -> bool {
    body.iter().all(|s| match s {
        Stmt::Expr(_) | Stmt::Store { .. } => true,
        Stmt::If {
            then, otherwise, ..
        } => straight_line(then) && straight_line(otherwise),
        Stmt::Loop { .. } | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(..) => false,
    })
}

/// Whether `body` indexes a buffer whose elements are of a precision type (`sfp`, vectors of
/// it): the accesses the variant narrows.
fn touches_precision_buffer(body: &[Stmt]) -> bool {
    fn precision_buffer(t: &Type) -> bool {
        matches!(t, Type::Buffer(e) if e.mentions_scalar(ScalarType::is_float_precision))
    }
    fn place(p: &Place) -> bool {
        match p {
            Place::Index { base, .. } => precision_buffer(&base.ty),
            Place::Lane { base, .. } | Place::Field { base, .. } => place(base),
            Place::Local(_) => false,
        }
    }
    let loads = visit::find_expr(body, &|e| matches!(&e.kind, ExprKind::Load(p) if place(p)));
    loads.is_some() || stores_to(body, &place)
}

fn stores_to(body: &[Stmt], pred: &dyn Fn(&Place) -> bool) -> bool {
    body.iter().any(|s| match s {
        Stmt::Store { place, .. } => pred(place),
        Stmt::If {
            then, otherwise, ..
        } => stores_to(then, pred) || stores_to(otherwise, pred),
        _ => false,
    })
}
