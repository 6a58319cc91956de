//! Checked mode: the bounds checks of a loop tested once, before it (loop versioning).
//!
//! A loop `for (j = …; j < b; j += s)` (or `j <= b`), whose bound `b` does not change in the
//! loop and whose counter only changes in its update, runs its body with `j` between its value
//! on entry and `b - 1` (`b`). An access whose index is built from `j` and values that do not
//! change in the loop (`x + j`, `row * k + j`, `Math.clamp(y + j, 0, h - 1)`, `t & 15`,
//! `i % n`) then touches indices within a range whose ends can be computed before the loop
//! (interval arithmetic, each operation monotone or bounded: [`Sym`]). When every such range
//! is inside its resource, and no operation wrapped around on the way, the loop runs a copy
//! whose proven accesses have no check; otherwise the copy with every check runs, so the first
//! violation, its report and the values read are exactly as without this (`loop_ranges.rs`
//! emits the test). Anything unproven keeps its check, also in the fast copy.
//!
//! Loops with barriers, subgroup or cooperative-matrix operations, calls, `return`, jumps to
//! outer loops or shared-array declarations are never copied: the copies must not split a
//! workgroup or subgroup between two instances of one operation.

use std::collections::HashMap;

use crate::diagnostics::Span;
use crate::ir::visit::{for_each_local_use, for_each_local_use_in_expr, LocalUse};
use crate::ir::{
    BinaryOp, Block, Constant, Expr, ExprKind, Intrinsic, LocalId, LoopId, MathFn, Place,
    ScalarType, Stmt, Type,
};

/// The largest counter step handled (a larger one is no `for` loop worth versioning).
const MAX_STEP: u64 = 1 << 16;

/// A loop's counter: `local` runs from its value on entry while `local < bound` (or `<=`),
/// stepped by `step` in the loop's update only.
pub(crate) struct Counter<'m> {
    pub(crate) local: LocalId,
    pub(crate) ty: ScalarType,
    pub(crate) bound: &'m Expr,
    pub(crate) inclusive: bool,
    pub(crate) step: Step<'m>,
    /// The span the counter's load is lowered with.
    pub(crate) span: Span,
}

/// A counter's step: a positive constant, or a loop-invariant value (a grid-stride loop's
/// `KernelThread.globalSizeX()`), tested to be positive before the loop.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'m> {
    Const(u32),
    Invariant(&'m Expr),
}

/// An integer (`int32` or `uint32`, [`Sym::ty`]) computed in one iteration from the counter
/// and loop-invariant values.
#[derive(Debug)]
pub(crate) struct Sym<'m> {
    pub(crate) ty: ScalarType,
    pub(crate) kind: SymKind<'m>,
}

/// How a [`Sym`] is computed.
#[derive(Debug)]
pub(crate) enum SymKind<'m> {
    /// The counter.
    Counter,
    /// A loop-invariant expression, evaluated once before the loop.
    Invariant(&'m Expr),
    /// `a + b`.
    Add(Box<Sym<'m>>, Box<Sym<'m>>),
    /// `a - b`.
    Sub(Box<Sym<'m>>, Box<Sym<'m>>),
    /// `a * c` for an invariant `c`.
    Mul(Box<Sym<'m>>, &'m Expr),
    /// `a` reinterpreted between `int32` and `uint32`.
    Cast(Box<Sym<'m>>),
    /// `Math.clamp(a, lo, hi)` for invariant `lo`, `hi`.
    Clamp(Box<Sym<'m>>, &'m Expr, &'m Expr),
    /// `Math.min(a, c)` / `Math.max(a, c)` for an invariant `c` (`true`: max).
    MinMax(Box<Sym<'m>>, &'m Expr, bool),
    /// `a & c` for a non-negative constant `c`: within `[0, c]` whatever `a` is.
    Mask(u32),
    /// `a % n` (`uint32`) for an invariant `n`: within `[0, n - 1]` when `n >= 1`.
    Rem(&'m Expr),
}

/// An access whose check the loop may test before it runs.
pub(crate) enum Access<'m> {
    /// A buffer or shared-array element `base[index]` (`kind`: the check's site kind).
    Element {
        kind: &'static str,
        base: &'m Expr,
        index: Sym<'m>,
        span: Span,
    },
    /// A storage-image texel `img.load(x, y)` / `img.store(x, y, v)`.
    Texel {
        img: &'m Expr,
        coords: [Sym<'m>; 2],
        span: Span,
    },
    /// A texture `fetch` at level 0 of a texture that is not an array.
    Fetch {
        tex: &'m Expr,
        coords: Vec<Sym<'m>>,
        span: Span,
    },
}

impl Access<'_> {
    /// The site kind and span of the access's check (what `FnCx::is_proven` matches).
    pub(crate) fn key(&self) -> (&'static str, Span) {
        match self {
            Access::Element { kind, span, .. } => (kind, *span),
            Access::Texel { span, .. } => ("image", *span),
            Access::Fetch { span, .. } => ("fetch", *span),
        }
    }
}

/// What a loop's pre-test needs: its counter and the accesses to prove.
pub(crate) struct Plan<'m> {
    pub(crate) counter: Counter<'m>,
    pub(crate) accesses: Vec<Access<'m>>,
}

/// The plan for a loop, or `None` when it cannot or need not be versioned.
pub(crate) fn plan<'m>(
    id: LoopId,
    pre_cond: Option<&'m Expr>,
    body: &'m Block,
    continuing: &'m Block,
    post_cond: Option<&'m Expr>,
) -> Option<Plan<'m>> {
    if post_cond.is_some() || !body_is_copyable(id, body) {
        return None;
    }
    let mut stores: HashMap<LocalId, usize> = HashMap::new();
    let mut count = |l: LocalId, u: LocalUse| {
        if u == LocalUse::Store {
            *stores.entry(l).or_default() += 1;
        }
    };
    for_each_local_use(body, &mut count);
    for_each_local_use(continuing, &mut count);
    if let Some(c) = pre_cond {
        for_each_local_use_in_expr(c, &mut count);
    }
    let counter = counter(pre_cond?, continuing, &stores)?;
    let mut cx = Analysis {
        counter: counter.local,
        stores: &stores,
        defs: HashMap::new(),
        accesses: Vec::new(),
    };
    let step_invariant = match counter.step {
        Step::Const(_) => true,
        Step::Invariant(e) => cx.invariant(e),
    };
    if !cx.invariant(counter.bound) || !step_invariant {
        return None;
    }
    for s in body {
        cx.stmt(s);
        if let Stmt::Store {
            place: Place::Local(l),
            value,
            ..
        } = s
        {
            if stores.get(l) == Some(&1) {
                if let Some(sym) = cx.sym(value) {
                    cx.defs.insert(*l, sym);
                }
            }
        }
    }
    let accesses = cx.accesses;
    (!accesses.is_empty()).then_some(Plan { counter, accesses })
}

/// The counter of a loop `j < b` / `j <= b` whose update is `j = j + s` and which nothing
/// else stores.
fn counter<'m>(
    cond: &'m Expr,
    continuing: &'m Block,
    stores: &HashMap<LocalId, usize>,
) -> Option<Counter<'m>> {
    let ExprKind::Binary(op @ (BinaryOp::Lt | BinaryOp::Le), lhs, bound) = &cond.kind else {
        return None;
    };
    let ExprKind::Load(Place::Local(j)) = &lhs.kind else {
        return None;
    };
    let ty = int32(&lhs.ty)?;
    if int32(&bound.ty)? != ty || stores.get(j) != Some(&1) {
        return None;
    }
    let [Stmt::Store {
        place: Place::Local(l),
        value,
        ..
    }] = continuing.as_slice()
    else {
        return None;
    };
    let ExprKind::Binary(BinaryOp::Add, a, b) = &value.kind else {
        return None;
    };
    let is_j = |e: &Expr| matches!(&e.kind, ExprKind::Load(Place::Local(x)) if x == j);
    let step = match (&a.kind, &b.kind) {
        (_, ExprKind::Const(Constant::Int(s))) if is_j(a) => (1..=MAX_STEP)
            .contains(s)
            .then_some(Step::Const(*s as u32))?,
        (ExprKind::Const(Constant::Int(s)), _) if is_j(b) => (1..=MAX_STEP)
            .contains(s)
            .then_some(Step::Const(*s as u32))?,
        _ if is_j(a) && int32(&b.ty) == Some(ty) => Step::Invariant(b),
        _ if is_j(b) && int32(&a.ty) == Some(ty) => Step::Invariant(a),
        _ => return None,
    };
    if l != j || int32(&value.ty)? != ty {
        return None;
    }
    Some(Counter {
        local: *j,
        ty,
        bound,
        inclusive: *op == BinaryOp::Le,
        step,
        span: lhs.span,
    })
}

/// `int32` or `uint32`, the types the analysis handles.
fn int32(ty: &Type) -> Option<ScalarType> {
    match ty.as_scalar()? {
        s @ (ScalarType::I32 | ScalarType::U32) => Some(s),
        _ => None,
    }
}

/// Whether the loop's body may be lowered twice: no operation whose meaning depends on
/// which invocations run it together, no call, no `return`, no jump past this loop and no
/// shared array declared in it.
fn body_is_copyable(id: LoopId, body: &Block) -> bool {
    let mut inner = vec![id];
    inner_loops(body, &mut inner);
    let forbidden = crate::ir::visit::find_expr(body, &|e| match &e.kind {
        ExprKind::Call { .. } | ExprKind::Host { .. } | ExprKind::Launch(_) => true,
        ExprKind::Intrinsic { op, .. } => matches!(
            op,
            Intrinsic::Barrier(_)
                | Intrinsic::Wave(_)
                | Intrinsic::WorkgroupReduce
                | Intrinsic::Coop(_)
                | Intrinsic::RayQuery(_)
                | Intrinsic::SharedNew
        ),
        ExprKind::Sequence(stmts, _) => !jumps_stay(stmts, &inner),
        _ => false,
    });
    forbidden.is_none() && jumps_stay(body, &inner)
}

/// Collects the ids of the loops nested in `block`.
fn inner_loops(block: &Block, ids: &mut Vec<LoopId>) {
    for s in block {
        match s {
            Stmt::If {
                then, otherwise, ..
            } => {
                inner_loops(then, ids);
                inner_loops(otherwise, ids);
            }
            Stmt::Loop {
                id,
                body,
                continuing,
                ..
            } => {
                ids.push(*id);
                inner_loops(body, ids);
                inner_loops(continuing, ids);
            }
            _ => {}
        }
    }
}

/// Whether every `break`/`continue` of `block` targets one of `ids` and no `return` is in it.
fn jumps_stay(block: &Block, ids: &[LoopId]) -> bool {
    block.iter().all(|s| match s {
        Stmt::Break(id) | Stmt::Continue(id) => ids.contains(id),
        Stmt::Return(..) => false,
        Stmt::If {
            then, otherwise, ..
        } => jumps_stay(then, ids) && jumps_stay(otherwise, ids),
        Stmt::Loop {
            body, continuing, ..
        } => jumps_stay(body, ids) && jumps_stay(continuing, ids),
        Stmt::Expr(_) | Stmt::Store { .. } => true,
    })
}

/// The walk over a loop's body.
struct Analysis<'m, 's> {
    counter: LocalId,
    /// How often each local is stored in the loop.
    stores: &'s HashMap<LocalId, usize>,
    /// Locals stored once, unconditionally, by a statement of the body seen so far: their
    /// value in the rest of the iteration.
    defs: HashMap<LocalId, Sym<'m>>,
    accesses: Vec<Access<'m>>,
}

impl<'m> Analysis<'m, '_> {
    /// Whether `e` has the same value in every iteration and may be evaluated before the
    /// loop (no memory read, no side effect).
    fn invariant(&self, e: &Expr) -> bool {
        let inv = |x: &Expr| self.invariant(x);
        match &e.kind {
            ExprKind::Const(_) => true,
            ExprKind::Load(Place::Local(l)) => {
                !self.stores.contains_key(l) && matches!(e.ty, Type::Scalar(_) | Type::Vector(..))
            }
            ExprKind::Unary(_, a) | ExprKind::Convert(a) | ExprKind::Splat(a) => inv(a),
            ExprKind::Swizzle(a, _) => inv(a),
            ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                inv(a) && inv(b)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => inv(cond) && inv(then) && inv(otherwise),
            ExprKind::Intrinsic { op, args } => {
                matches!(
                    op,
                    Intrinsic::LocalId(_)
                        | Intrinsic::GlobalId(_)
                        | Intrinsic::GlobalSize(_)
                        | Intrinsic::WorkgroupId(_)
                        | Intrinsic::WorkgroupSize(_)
                        | Intrinsic::WorkgroupCount(_)
                        | Intrinsic::Math(_)
                ) && args.iter().all(inv)
            }
            _ => false,
        }
    }

    /// `e` as a [`Sym`], if it is one.
    fn sym(&self, e: &'m Expr) -> Option<Sym<'m>> {
        let ty = int32(&e.ty)?;
        let boxed = |x: &'m Expr| self.sym(x).map(Box::new);
        let kind = match &e.kind {
            _ if self.invariant(e) => SymKind::Invariant(e),
            ExprKind::Load(Place::Local(l)) if *l == self.counter => SymKind::Counter,
            ExprKind::Load(Place::Local(l)) => return self.defs.get(l).map(Sym::clone_of),
            ExprKind::Binary(BinaryOp::Add, a, b) => SymKind::Add(boxed(a)?, boxed(b)?),
            ExprKind::Binary(BinaryOp::Sub, a, b) => SymKind::Sub(boxed(a)?, boxed(b)?),
            ExprKind::Binary(BinaryOp::Mul, a, b) if self.invariant(b) => {
                SymKind::Mul(boxed(a)?, b)
            }
            ExprKind::Binary(BinaryOp::Mul, a, b) if self.invariant(a) => {
                SymKind::Mul(boxed(b)?, a)
            }
            ExprKind::Binary(BinaryOp::BitAnd, a, b) => {
                let mask = |c: &Expr| match c.kind {
                    ExprKind::Const(Constant::Int(v)) if v <= i32::MAX as u64 => Some(v as u32),
                    _ => None,
                };
                SymKind::Mask(mask(b).or_else(|| mask(a))?)
            }
            ExprKind::Binary(BinaryOp::Rem, _, n) if ty == ScalarType::U32 && self.invariant(n) => {
                SymKind::Rem(n)
            }
            ExprKind::Convert(a) => {
                let inner = self.sym(a)?;
                if inner.ty == ty {
                    return Some(inner);
                }
                SymKind::Cast(Box::new(inner))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Math(f),
                args,
            } => match (f, args.as_slice()) {
                (MathFn::Clamp, [a, lo, hi]) if self.invariant(lo) && self.invariant(hi) => {
                    SymKind::Clamp(boxed(a)?, lo, hi)
                }
                (MathFn::Min | MathFn::Max, [a, c]) if self.invariant(c) => {
                    SymKind::MinMax(boxed(a)?, c, *f == MathFn::Max)
                }
                (MathFn::Min | MathFn::Max, [c, a]) if self.invariant(c) => {
                    SymKind::MinMax(boxed(a)?, c, *f == MathFn::Max)
                }
                _ => return None,
            },
            _ => return None,
        };
        // Every operand of an operation has the operation's type (sema converts them).
        let operands_typed = match &kind {
            SymKind::Add(a, b) | SymKind::Sub(a, b) => a.ty == ty && b.ty == ty,
            SymKind::Mul(a, c) => a.ty == ty && int32(&c.ty) == Some(ty),
            SymKind::Clamp(a, lo, hi) => {
                a.ty == ty && int32(&lo.ty) == Some(ty) && int32(&hi.ty) == Some(ty)
            }
            SymKind::MinMax(a, c, _) => a.ty == ty && int32(&c.ty) == Some(ty),
            SymKind::Rem(n) => int32(&n.ty) == Some(ty),
            _ => true,
        };
        operands_typed.then_some(Sym { ty, kind })
    }

    fn stmt(&mut self, s: &'m Stmt) {
        match s {
            Stmt::Expr(e) | Stmt::Return(Some(e), _) => self.expr(e),
            Stmt::Store { place, value, .. } => {
                self.expr(value);
                self.place(place);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                then.iter().chain(otherwise).for_each(|s| self.stmt(s));
            }
            Stmt::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
                ..
            } => {
                pre_cond.iter().chain(post_cond).for_each(|c| self.expr(c));
                body.iter().chain(continuing).for_each(|s| self.stmt(s));
            }
            Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) => {}
        }
    }

    fn place(&mut self, p: &'m Place) {
        match p {
            Place::Local(_) => {}
            Place::Index { base, index } => {
                self.expr(base);
                self.expr(index);
                let kind = match base.ty {
                    Type::Buffer(_) => "buffer",
                    Type::Shared(_) => "shared",
                    _ => return,
                };
                if let Some(sym) = self.sym(index) {
                    self.accesses.push(Access::Element {
                        kind,
                        base,
                        index: sym,
                        span: base.span.to(index.span),
                    });
                }
            }
            Place::Lane { base, .. } | Place::Field { base, .. } => self.place(base),
        }
    }

    fn expr(&mut self, e: &'m Expr) {
        match &e.kind {
            ExprKind::Load(p) => self.place(p),
            ExprKind::Intrinsic { op, args } => {
                args.iter().for_each(|a| self.expr(a));
                self.intrinsic(*op, args, e);
            }
            ExprKind::Unary(_, a)
            | ExprKind::Convert(a)
            | ExprKind::Splat(a)
            | ExprKind::Swizzle(a, _) => self.expr(a),
            ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.expr(then);
                self.expr(otherwise);
            }
            ExprKind::Construct(items) => items.iter().for_each(|a| self.expr(a)),
            // Stores inside expressions: their accesses keep their checks.
            _ => {}
        }
    }

    /// Records an image or texture access.
    fn intrinsic(&mut self, op: Intrinsic, args: &'m [Expr], e: &'m Expr) {
        match (op, args) {
            (Intrinsic::ImageLoad, [img, x, y]) | (Intrinsic::ImageStore, [img, x, y, _]) => {
                if let (Some(x_sym), Some(y_sym)) = (self.sym(x), self.sym(y)) {
                    self.accesses.push(Access::Texel {
                        img,
                        coords: [x_sym, y_sym],
                        span: img.span.to(y.span),
                    });
                }
            }
            (Intrinsic::TextureFetch, [tex, coords @ ..]) => {
                let syms: Option<Vec<Sym>> = coords.iter().map(|c| self.sym(c)).collect();
                if let Some(coords) = syms {
                    self.accesses.push(Access::Fetch {
                        tex,
                        coords,
                        span: e.span,
                    });
                }
            }
            _ => {}
        }
    }
}

impl<'m> Sym<'m> {
    /// A copy (a definition is used by every access that reads its local).
    fn clone_of(&self) -> Sym<'m> {
        let b = |s: &Sym<'m>| Box::new(s.clone_of());
        let kind = match &self.kind {
            SymKind::Counter => SymKind::Counter,
            SymKind::Invariant(e) => SymKind::Invariant(e),
            SymKind::Add(a, c) => SymKind::Add(b(a), b(c)),
            SymKind::Sub(a, c) => SymKind::Sub(b(a), b(c)),
            SymKind::Mul(a, c) => SymKind::Mul(b(a), c),
            SymKind::Cast(a) => SymKind::Cast(b(a)),
            SymKind::Clamp(a, lo, hi) => SymKind::Clamp(b(a), lo, hi),
            SymKind::MinMax(a, c, max) => SymKind::MinMax(b(a), c, *max),
            SymKind::Mask(m) => SymKind::Mask(*m),
            SymKind::Rem(n) => SymKind::Rem(n),
        };
        Sym { ty: self.ty, kind }
    }
}
