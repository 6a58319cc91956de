//! Workgroup uniformity of barriers: every invocation of a workgroup must reach each
//! `Barrier.workgroup()` (and `Workgroup.reduce`, which is built from barriers); one reached
//! under a condition that differs between the invocations is undefined behaviour on every
//! GPU (a hang, a wrong value or nothing at all). Like WGSL's uniformity analysis (naga is
//! the model), this pass finds barriers under thread-dependent control flow and refuses them
//! with E0046, pointing at the condition (or the early `return`, `break` or `continue`) and
//! at what made it differ.
//!
//! The analysis runs on the checked IR of each kernel and of the `@Device` helpers it calls
//! (a helper once per pattern of uniform and non-uniform arguments).
//!
//! - **Values.** Invocation ids (`KernelThread.x()`, `globalIdX()`…), subgroup values
//!   (`Wave.*`, `Quad.*`: uniform at most within a subgroup), atomics' results, clocks and
//!   ray-query results differ between invocations; so does whatever is computed from them.
//!   Workgroup ids and sizes, kernel parameters, constants and `Workgroup.reduce`'s result
//!   are uniform. A memory read (buffer, shared array, image, texture) is uniform when its
//!   address is: the analysis does not follow values through memory (a read racing with a
//!   write is a data race first).
//! - **Locals** are tracked flow-insensitively: a local is non-uniform when any assignment
//!   gives it a non-uniform value or happens under non-uniform control.
//! - **Control.** A statement is under non-uniform control inside an `if`, `?:`, `&&` or
//!   `||` whose condition is non-uniform; after a `return` some invocations may take
//!   (the rest of the function); after a `break` some may take (the rest of that loop, every
//!   iteration); after a `continue` some may take (the rest of that iteration); and in a
//!   loop whose condition is non-uniform. Control reconverges after an `if` and after a loop.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, BarrierKind, Block, Expr, ExprKind, FunctionId, Intrinsic, LoopId, Place, Stmt, Type,
    WaveOp,
};

/// Why a value differs between the invocations of a workgroup: where it comes from.
#[derive(Debug)]
struct Source {
    span: Span,
    label: &'static str,
}

/// `None` for a workgroup-uniform value, else why it is not.
type Val = Option<Rc<Source>>;

/// Why control flow at a point is not uniform: the construct that splits the workgroup and
/// the source of the value it depends on.
#[derive(Debug)]
struct Split {
    at: Span,
    what: &'static str,
    source: Rc<Source>,
    /// For an early exit: the split it was taken under.
    under: Option<Rc<Split>>,
}

/// `None` for uniform control flow.
type Ctl = Option<Rc<Split>>;

/// What a caller needs to know of a function analysed for one pattern of arguments.
#[derive(Clone, Default)]
struct Summary {
    /// Whether (and why) the returned value can differ between invocations.
    ret: Val,
    /// A workgroup barrier the function reaches, directly or through a call.
    barrier: Option<Span>,
}

/// Checks every kernel of `module`; appends an E0046 for each barrier reached under
/// non-uniform control. Must run on a module without recursion.
pub(super) fn check(module: &ir::Module, diags: &mut Vec<Diagnostic>) {
    let mut analysis = Analysis {
        module,
        memo: HashMap::new(),
        reported: HashSet::new(),
        diags,
    };
    for kernel in module.kernels() {
        analysis.summary(kernel, 0);
    }
}

struct Analysis<'m, 'd> {
    module: &'m ir::Module,
    /// Summaries by function and argument pattern (bit i: argument i is non-uniform).
    memo: HashMap<(FunctionId, u64), Summary>,
    /// Barrier and call spans already reported (a helper analysed twice reports once).
    reported: HashSet<Span>,
    diags: &'d mut Vec<Diagnostic>,
}

impl Analysis<'_, '_> {
    fn summary(&mut self, id: FunctionId, mask: u64) -> Summary {
        if let Some(s) = self.memo.get(&(id, mask)) {
            return s.clone();
        }
        // A placeholder: recursion is refused before this pass, but stay finite regardless.
        self.memo.insert((id, mask), Summary::default());
        let module = self.module;
        let f = module.function(id);
        let params = (0..f.param_count)
            .map(|i| {
                (i >= 64 || mask & (1 << i) != 0).then(|| {
                    Rc::new(Source {
                        span: f.locals[i].span,
                        label: "this parameter is given a value that differs between invocations",
                    })
                })
            })
            .collect::<Vec<_>>();
        let mut walk = Walk {
            an: self,
            f,
            locals: vec![None; f.locals.len()],
            returned: None,
            loops: Vec::new(),
            changed: false,
            emit: false,
            summary: Summary::default(),
        };
        walk.locals[..params.len()].clone_from_slice(&params);
        // Locals only ever become non-uniform, so this settles within one pass per local.
        loop {
            walk.changed = false;
            walk.restart();
            walk.block(&f.body, &None);
            if !walk.changed {
                break;
            }
        }
        walk.emit = true;
        walk.restart();
        walk.block(&f.body, &None);
        let summary = walk.summary;
        self.memo.insert((id, mask), summary.clone());
        summary
    }

    fn report(&mut self, span: Span, diag: impl FnOnce() -> Diagnostic) {
        if self.reported.insert(span) {
            self.diags.push(diag());
        }
    }
}

/// The state of a loop being walked.
struct LoopState {
    id: LoopId,
    /// Some invocations may have left the loop: the rest of it (every later iteration
    /// included) runs on the others only.
    broken: Ctl,
    /// Some invocations may have gone to the next iteration: the rest of this one runs on
    /// the others only.
    continued: Ctl,
}

/// One walk over a function body.
struct Walk<'a, 'm, 'd> {
    an: &'a mut Analysis<'m, 'd>,
    f: &'m ir::Function,
    locals: Vec<Val>,
    /// Some invocations may have returned: the rest of the function runs on the others.
    returned: Ctl,
    loops: Vec<LoopState>,
    /// A local became non-uniform in this pass.
    changed: bool,
    /// Report errors (the last pass, once the locals are settled).
    emit: bool,
    summary: Summary,
}

impl Walk<'_, '_, '_> {
    fn restart(&mut self) {
        self.returned = None;
        self.loops.clear();
        self.summary = Summary::default();
    }

    /// The control at a point inside conditions `ctl`, with the early exits seen so far.
    fn control(&self, ctl: &Ctl) -> Ctl {
        self.value_control(ctl).or_else(|| self.returned.clone())
    }

    /// The part of the control at a point that makes a value assigned there differ: the
    /// conditions and the loop exits (after a loop, invocations that left it early have not
    /// made the later assignments), but not early returns (those invocations are gone).
    fn value_control(&self, ctl: &Ctl) -> Ctl {
        ctl.clone().or_else(|| {
            self.loops
                .iter()
                .find_map(|l| l.broken.clone().or_else(|| l.continued.clone()))
        })
    }

    fn block(&mut self, block: &Block, ctl: &Ctl) {
        for s in block {
            self.stmt(s, ctl);
        }
    }

    fn stmt(&mut self, s: &Stmt, ctl: &Ctl) {
        let here = self.control(ctl);
        match s {
            Stmt::Expr(e) => {
                self.expr(e, &here);
            }
            Stmt::Store { place, value, .. } => {
                let v = self.expr(value, &here);
                self.place(place, &here);
                let v = v.or_else(|| self.value_control(ctl).map(|c| c.source.clone()));
                if let (Some(local), Some(v)) = (self.private_root(place), v) {
                    self.taint(local, v);
                }
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond, &here);
                let inner = here.or_else(|| split(cond.span, "this condition", c));
                self.block(then, &inner);
                self.block(otherwise, &inner);
            }
            Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } => {
                self.loops.push(LoopState {
                    id: *id,
                    broken: None,
                    continued: None,
                });
                // An exit found late in the body reaches its start on the next iteration, so
                // a loop entered under uniform control that leaves it so is walked again.
                // Only then: a loop entered under non-uniform control stays so, and nested
                // loops are walked at most three times each, not twice per level.
                let entered_uniform = self.control(ctl).is_none();
                self.loop_pass(pre_cond.as_ref(), body, continuing, post_cond.as_ref(), ctl);
                if entered_uniform && self.control(ctl).is_some() {
                    self.loop_pass(pre_cond.as_ref(), body, continuing, post_cond.as_ref(), ctl);
                }
                self.loops.pop();
            }
            Stmt::Break(id) | Stmt::Continue(id) => {
                let is_break = matches!(s, Stmt::Break(_));
                if let (Some(h), Some(l)) = (here, self.loops.iter_mut().find(|l| l.id == *id)) {
                    let slot = if is_break {
                        &mut l.broken
                    } else {
                        &mut l.continued
                    };
                    slot.get_or_insert_with(|| {
                        Rc::new(Split {
                            at: h.at,
                            what: if is_break {
                                "invocations may leave the loop early here"
                            } else {
                                "invocations may skip the rest of the iteration here"
                            },
                            source: h.source.clone(),
                            under: Some(h.clone()),
                        })
                    });
                }
            }
            Stmt::Return(value, span) => {
                let v = value.as_ref().and_then(|e| self.expr(e, &here));
                let v = v.or_else(|| here.as_ref().map(|c| c.source.clone()));
                if self.summary.ret.is_none() {
                    self.summary.ret = v;
                }
                if let Some(h) = here {
                    self.returned.get_or_insert(Rc::new(Split {
                        at: *span,
                        what: "invocations may return early here",
                        source: h.source.clone(),
                        under: Some(h),
                    }));
                }
            }
        }
    }

    /// One iteration of a loop: its condition, body, continuing block and closing condition.
    fn loop_pass(
        &mut self,
        pre_cond: Option<&Expr>,
        body: &Block,
        continuing: &Block,
        post_cond: Option<&Expr>,
        ctl: &Ctl,
    ) {
        if let Some(cond) = pre_cond {
            self.loop_condition(cond, ctl);
        }
        self.block(body, ctl);
        if let Some(l) = self.loops.last_mut() {
            l.continued = None;
        }
        self.block(continuing, ctl);
        if let Some(cond) = post_cond {
            self.loop_condition(cond, ctl);
        }
    }

    fn loop_condition(&mut self, cond: &Expr, ctl: &Ctl) {
        let here = self.control(ctl);
        let c = self.expr(cond, &here);
        if let Some(split) = split(cond.span, "this loop condition", c) {
            if let Some(l) = self.loops.last_mut() {
                l.broken.get_or_insert(split);
            }
        }
    }

    /// The local a store writes into when that local is private to the invocation (not a
    /// buffer, shared array or image handle, whose memory the analysis does not follow).
    fn private_root(&self, place: &Place) -> Option<usize> {
        match place {
            Place::Local(l) => {
                let ty = &self.f.locals.get(l.0)?.ty;
                (!ty.is_resource() && !matches!(ty, Type::Shared(_))).then_some(l.0)
            }
            Place::Field { base, .. } | Place::Lane { base, .. } => self.private_root(base),
            Place::Index { base, .. } => match &base.kind {
                ExprKind::Load(p) => self.private_root(p),
                _ => None,
            },
        }
    }

    fn taint(&mut self, local: usize, why: Rc<Source>) {
        if let Some(slot) = self.locals.get_mut(local) {
            if slot.is_none() {
                *slot = Some(why);
                self.changed = true;
            }
        }
    }

    /// Walks the operands of a place (indices are evaluated).
    fn place(&mut self, place: &Place, ctl: &Ctl) -> Val {
        match place {
            Place::Local(l) => self.locals.get(l.0).cloned().flatten(),
            Place::Field { base, .. } | Place::Lane { base, .. } => self.place(base, ctl),
            Place::Index { base, index } => {
                let b = self.expr(base, ctl);
                let i = self.expr(index, ctl);
                b.or(i)
            }
        }
    }

    /// Walks `e` under control `ctl`: reports barriers there, returns the value's uniformity.
    fn expr(&mut self, e: &Expr, ctl: &Ctl) -> Val {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Str(_) => None,
            ExprKind::Load(p) => self.place(p, ctl),
            ExprKind::Unary(_, a) | ExprKind::Convert(a) | ExprKind::Splat(a) => self.expr(a, ctl),
            ExprKind::Swizzle(a, _) => self.expr(a, ctl),
            ExprKind::Binary(_, a, b) => {
                let a = self.expr(a, ctl);
                let b = self.expr(b, ctl);
                a.or(b)
            }
            ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                let va = self.expr(a, ctl);
                let inner = ctl
                    .clone()
                    .or_else(|| split(a.span, "this condition", va.clone()));
                let vb = self.expr(b, &inner);
                va.or(vb)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond, ctl);
                let inner = ctl
                    .clone()
                    .or_else(|| split(cond.span, "this condition", c.clone()));
                let t = self.expr(then, &inner);
                let o = self.expr(otherwise, &inner);
                c.or(t).or(o)
            }
            ExprKind::Construct(items) => {
                let mut v = None;
                for item in items {
                    let x = self.expr(item, ctl);
                    v = v.or(x);
                }
                v
            }
            ExprKind::Sequence(stmts, value) => {
                self.block(stmts, ctl);
                let here = self.control(ctl);
                self.expr(value, &here)
            }
            ExprKind::Call { func, args } => self.call(e, *func, args, ctl),
            ExprKind::Intrinsic { op, args } => {
                let mut v = None;
                for a in args {
                    let x = self.expr(a, ctl);
                    v = v.or(x);
                }
                if needs_uniform_control(*op) {
                    self.barrier(e.span, ctl);
                }
                match varying_source(*op) {
                    Some(label) => Some(Rc::new(Source {
                        span: e.span,
                        label,
                    })),
                    None if *op == Intrinsic::WorkgroupReduce => None,
                    None => v,
                }
            }
            // Host-only forms do not occur in device code; walk their operands anyway.
            ExprKind::Host { args, .. } => {
                let mut v = None;
                for a in args {
                    let x = self.expr(a, ctl);
                    v = v.or(x);
                }
                v
            }
            ExprKind::Launch(_) => None,
        }
    }

    fn call(&mut self, e: &Expr, func: FunctionId, args: &[Expr], ctl: &Ctl) -> Val {
        let mut mask = 0u64;
        for (i, a) in args.iter().enumerate() {
            if self.expr(a, ctl).is_some() && i < 64 {
                mask |= 1 << i;
            }
        }
        if args.len() > 64 {
            mask = u64::MAX;
        }
        let callee = self.an.summary(func, mask);
        if self.summary.barrier.is_none() {
            self.summary.barrier = callee.barrier;
        }
        if let (Some(c), Some(barrier)) = (ctl, callee.barrier) {
            if self.emit {
                let name = self.an.module.function(func).name.clone();
                self.an.report(e.span, || {
                    diagnostic(
                        e.span,
                        format!("`{name}` reaches a workgroup barrier, and is called under control flow that differs between invocations"),
                        c,
                    )
                    .with_secondary(barrier, "the barrier it reaches")
                });
            }
        }
        callee.ret
    }

    fn barrier(&mut self, span: Span, ctl: &Ctl) {
        if self.summary.barrier.is_none() {
            self.summary.barrier = Some(span);
        }
        if let (Some(c), true) = (ctl, self.emit) {
            self.an.report(span, || {
                diagnostic(
                    span,
                    "a workgroup barrier is reached under control flow that differs between invocations".to_string(),
                    c,
                )
            });
        }
    }
}

/// The split that a condition with uniformity `v` makes, described as `what`.
fn split(at: Span, what: &'static str, v: Val) -> Ctl {
    v.map(|source| {
        Rc::new(Split {
            at,
            what,
            source,
            under: None,
        })
    })
}

/// E0046 at `span`, explained by the split `c`.
fn diagnostic(span: Span, message: String, c: &Split) -> Diagnostic {
    let mut d = Diagnostic::error(Code::NonUniformBarrier, span, message)
        .with_label("not every invocation of the workgroup may reach this");
    let mut at = Some(c);
    let mut exit = false;
    while let Some(s) = at {
        if s.under.is_some() {
            exit = true;
            d = d.with_secondary(s.at, s.what);
        } else {
            d = d.with_secondary(s.at, format!("{} differs between invocations", s.what));
        }
        at = s.under.as_deref();
    }
    if !d.secondary.iter().any(|(s, _)| *s == c.source.span) {
        d = d.with_secondary(c.source.span, c.source.label);
    }
    d = d.with_note(
        "every invocation of a workgroup must reach each workgroup barrier (Vulkan's rule for OpControlBarrier); on a GPU a barrier skipped by some invocations hangs or gives wrong values",
    );
    d.with_note(if exit {
        "help: let every invocation run to the barrier and guard only the work: instead of `if (i >= n) { return; }`, wrap the loads and stores in `if (i < n) { … }`"
    } else {
        "help: move the barrier out of the condition: close the `if` before the barrier and guard the work after it with a second `if`"
    })
}

/// Whether `op` must be reached by every invocation of the workgroup.
fn needs_uniform_control(op: Intrinsic) -> bool {
    matches!(
        op,
        Intrinsic::Barrier(BarrierKind::Workgroup) | Intrinsic::WorkgroupReduce
    )
}

/// For an operation whose result differs between the invocations of a workgroup, why.
fn varying_source(op: Intrinsic) -> Option<&'static str> {
    Some(match op {
        Intrinsic::LocalId(_) | Intrinsic::GlobalId(_) => {
            "this invocation id differs between invocations"
        }
        Intrinsic::Wave(WaveOp::Width) => return None,
        Intrinsic::Wave(WaveOp::LaneId) | Intrinsic::Wave(WaveOp::IsFirstLane) => {
            "this lane value differs between invocations"
        }
        Intrinsic::Wave(_) => {
            "a subgroup operation's result differs between the subgroups of a workgroup"
        }
        Intrinsic::Atomic(_) => "an atomic's result differs between invocations",
        Intrinsic::Clock { .. } => "a clock reading differs between invocations",
        Intrinsic::RayQuery(_) => "a ray query's result differs between invocations",
        _ => return None,
    })
}
