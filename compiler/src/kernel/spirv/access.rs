//! Resource access analysis: which resource parameters of a kernel are read and which are
//! written, across the kernel body and every `@Device` helper it calls (transitively).
//!
//! A helper's resource parameters are substituted by the kernel parameters its caller
//! passed, exactly as the lowering specializes helpers, so a helper that writes its
//! parameter marks only the buffers actually passed to it. The result drives the
//! `NonWritable`/`NonReadable` decorations and the reflection's `access` field, which the
//! runtime uses for hazard tracking. Recursion (which sema rejects) is reported here rather
//! than looping forever. [`assigned_locals`] finds the locals a function ever stores to.

use std::collections::HashSet;

use super::atomics::NativeFloatAtomics;
use super::{HelperKey, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::visit::{for_each_local_use, LocalUse};
use crate::ir::{self, CoopOp, Expr, ExprKind, FunctionId, Intrinsic, Place, Stmt};

/// How a kernel parameter is used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Some path reads the resource's contents.
    pub(crate) reads: bool,
    /// Some path writes the resource's contents.
    pub(crate) writes: bool,
    /// A float atomic on it runs as a compare-exchange loop on the element's bits, so the
    /// buffer is declared with integer elements.
    pub(crate) bits_view: bool,
}

/// Per kernel parameter (in order), how the kernel uses it. Scalars are never marked.
pub(crate) fn analyze(
    module: &ir::Module,
    kernel: FunctionId,
    native_float_atomics: NativeFloatAtomics,
) -> Res<Vec<Usage>> {
    let f = module.function(kernel);
    let mut walker = Walker {
        module,
        native_float_atomics,
        usage: vec![Usage::default(); f.param_count],
        done: HashSet::new(),
        stack: Vec::new(),
    };
    // In the kernel, a resource parameter denotes itself.
    let env = (0..f.locals.len())
        .map(|i| {
            let ty = &f.locals[i].ty;
            (i < f.param_count && (ty.is_resource() || ty.is_buffer_array())).then_some(i)
        })
        .collect();
    walker.function(kernel, env)?;
    Ok(walker.usage)
}

struct Walker<'m> {
    module: &'m ir::Module,
    /// The float32 atomics the device runs natively on buffers.
    native_float_atomics: NativeFloatAtomics,
    usage: Vec<Usage>,
    /// Specializations already walked (walking again would add nothing).
    done: HashSet<HelperKey>,
    /// The call chain, to detect recursion.
    stack: Vec<FunctionId>,
}

/// Per local of the function being walked, the kernel parameter a resource local denotes.
type Env = Vec<Option<usize>>;

impl Walker<'_> {
    fn function(&mut self, id: FunctionId, mut env: Env) -> Res<()> {
        let f = self.module.function(id);
        if self.stack.contains(&id) {
            return Err(Diagnostic::error(
                Code::Recursion,
                f.span,
                format!("`{}` calls itself; device code may not recurse", f.name),
            ));
        }
        self.stack.push(id);
        let result = self.block(&f.body, &mut env);
        self.stack.pop();
        result
    }

    fn block(&mut self, stmts: &[Stmt], env: &mut Env) -> Res<()> {
        stmts.iter().try_for_each(|s| self.stmt(s, env))
    }

    fn stmt(&mut self, stmt: &Stmt, env: &mut Env) -> Res<()> {
        match stmt {
            Stmt::Expr(e) => self.expr(e, env),
            Stmt::Store { place, value, .. } => {
                self.expr(value, env)?;
                self.store_place(place, value, env)
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond, env)?;
                self.block(then, env)?;
                self.block(otherwise, env)
            }
            Stmt::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
                ..
            } => {
                if let Some(c) = pre_cond {
                    self.expr(c, env)?;
                }
                self.block(body, env)?;
                self.block(continuing, env)?;
                if let Some(c) = post_cond {
                    self.expr(c, env)?;
                }
                Ok(())
            }
            Stmt::Break(_) | Stmt::Continue(_) => Ok(()),
            Stmt::Return(e, _) => e.iter().try_for_each(|e| self.expr(e, env)),
        }
    }

    fn expr(&mut self, e: &Expr, env: &mut Env) -> Res<()> {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Str(_) => Ok(()),
            ExprKind::Load(place) => self.load_place(place, env),
            ExprKind::Unary(_, a)
            | ExprKind::Convert(a)
            | ExprKind::Splat(a)
            | ExprKind::Swizzle(a, _) => self.expr(a, env),
            ExprKind::Construct(parts) => parts.iter().try_for_each(|p| self.expr(p, env)),
            ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                self.expr(a, env)?;
                self.expr(b, env)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond, env)?;
                self.expr(then, env)?;
                self.expr(otherwise, env)
            }
            ExprKind::Call { func, args } => {
                for a in args {
                    self.expr(a, env)?;
                }
                self.call(*func, args, env)
            }
            ExprKind::Intrinsic { op, args } => {
                for a in args {
                    self.expr(a, env)?;
                }
                match (op, args.first()) {
                    (Intrinsic::ImageStore, Some(img)) => self.mark(img, env, false, true),
                    (Intrinsic::ImageLoad, Some(img)) => self.mark(img, env, true, false),
                    (Intrinsic::Atomic(a), Some(buf)) => {
                        self.mark(buf, env, true, true);
                        if super::atomics::atomic_needs_bits(*a, &buf.ty, self.native_float_atomics)
                        {
                            if let Some(u) =
                                resource_of(buf, env).and_then(|p| self.usage.get_mut(p))
                            {
                                u.bits_view = true;
                            }
                        }
                    }
                    (Intrinsic::BufferVload, Some(buf)) => self.mark(buf, env, true, false),
                    (Intrinsic::BufferVstore, Some(buf)) => self.mark(buf, env, false, true),
                    // A compare-exchange loop reads the word it replaces a lane of.
                    (Intrinsic::IntPrecision(ir::IntPrecisionFn::StoreLane(_)), Some(buf)) => {
                        self.mark(buf, env, true, true)
                    }
                    // Shared arrays are not resources: marking them finds nothing.
                    (Intrinsic::Coop(CoopOp::Load), Some(buf)) => self.mark(buf, env, true, false),
                    (Intrinsic::Coop(CoopOp::Store), Some(buf)) => self.mark(buf, env, false, true),
                    // Size queries do not touch the contents.
                    _ => {}
                }
                Ok(())
            }
            // Host-only forms are reported by the lowering; nothing to record here.
            ExprKind::Host { .. } | ExprKind::Launch(_) => Ok(()),
            ExprKind::Sequence(stmts, value) => {
                self.block(stmts, env)?;
                self.expr(value, env)
            }
        }
    }

    fn store_place(&mut self, place: &Place, value: &Expr, env: &mut Env) -> Res<()> {
        match place {
            Place::Local(l) => {
                // Assigning a resource local makes it an alias of the resource.
                if value.ty.is_resource() {
                    let handle = resource_of(value, env);
                    if let Some(slot) = env.get_mut(l.0) {
                        *slot = handle;
                    }
                }
                Ok(())
            }
            Place::Index { base, index } => {
                self.array_index(base, env)?;
                self.expr(index, env)?;
                self.mark(base, env, false, true);
                Ok(())
            }
            // A lane store writes through an access chain into the element.
            Place::Lane { base, .. } | Place::Field { base, .. } => {
                self.store_place(base, value, env)
            }
        }
    }

    fn load_place(&mut self, place: &Place, env: &mut Env) -> Res<()> {
        match place {
            Place::Local(_) => Ok(()),
            Place::Index { base, index } => {
                self.array_index(base, env)?;
                self.expr(index, env)?;
                self.mark(base, env, true, false);
                Ok(())
            }
            Place::Lane { base, .. } | Place::Field { base, .. } => self.load_place(base, env),
        }
    }

    /// Walks the array index `k` of an access to `bufs[k][i]` (`base` is `bufs[k]`): it may
    /// read other resources. The array itself is marked by the access, not by selecting it.
    fn array_index(&mut self, base: &Expr, env: &mut Env) -> Res<()> {
        match super::buffer_array::array_element(base) {
            Some((_, k)) => self.expr(k, env),
            None => Ok(()),
        }
    }

    fn call(&mut self, func: FunctionId, args: &[Expr], env: &Env) -> Res<()> {
        let Some(callee) = self.module.functions.get(func.0) else {
            return Ok(());
        };
        let handles: Vec<Option<usize>> = args
            .iter()
            .map(|a| {
                if a.ty.is_resource() {
                    resource_of(a, env)
                } else {
                    None
                }
            })
            .collect();
        let key = (func, handles.clone());
        if self.done.contains(&key) && !self.stack.contains(&func) {
            return Ok(());
        }
        self.done.insert(key);
        let mut callee_env: Env = vec![None; callee.locals.len()];
        for (slot, h) in callee_env.iter_mut().zip(handles) {
            *slot = h;
        }
        self.function(func, callee_env)
    }

    fn mark(&mut self, resource: &Expr, env: &Env, read: bool, write: bool) {
        if let Some(u) = resource_of(resource, env).and_then(|p| self.usage.get_mut(p)) {
            u.reads |= read;
            u.writes |= write;
        }
    }
}

/// The kernel parameter a resource expression denotes, if it is a (resolved) resource local.
fn resource_of(e: &Expr, env: &Env) -> Option<usize> {
    match &e.kind {
        ExprKind::Load(Place::Local(l)) => env.get(l.0).copied().flatten(),
        // `bufs[k]`: every buffer of the array shares the parameter's access.
        ExprKind::Load(Place::Index { base, .. }) if base.ty.is_buffer_array() => {
            resource_of(base, env)
        }
        _ => None,
    }
}

/// Which locals are ever the target of a store (parameters that are not are read in place).
pub(crate) fn assigned_locals(func: &ir::Function) -> Vec<bool> {
    let mut out = vec![false; func.locals.len()];
    for_each_local_use(&func.body, &mut |l, role| {
        if role == LocalUse::Store {
            if let Some(slot) = out.get_mut(l.0) {
                *slot = true;
            }
        }
    });
    out
}
