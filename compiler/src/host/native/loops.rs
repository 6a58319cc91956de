//! Loops: lowered in place ([`Codegen::lower_loop`]), or outlined: in a function that runs
//! a bounded number of times (`main`, and what only it calls, outside loops), each
//! outermost loop becomes a function of its own ([`Codegen::outline_loop`]).
//!
//! Why: LLVM's code generation time grows with the size of a function, and one function is
//! compiled on one thread. An example's `main` is most of its code (its checks are loop
//! nests), so it bounded the JIT time however many threads `split.rs` had; cut into its
//! loops, it spreads over them. The cut costs one call per loop run: the loop's function
//! copies the locals it mentions into locals of its own on entry (so they still become
//! registers) and back on a normal exit.
//!
//! An outlined loop returns a status: [`NORMAL`] (the loop ended, the locals are copied
//! back), [`RETURNED`] (a `return` inside it: the value is in the parent's `out` slot and
//! the parent returns it at once) or [`FAILED`] (a runtime error: `cajeta.unwinding` is
//! set and the parent unwinds). It works in its parent's frame: the object locals and the
//! temporaries' slots are the parent's.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, PointerValue};
use inkwell::AddressSpace;

use super::codegen::{b, Codegen, FnState, Gen};
use super::repr::{repr, Repr};
use crate::ir::{self, Block, ExprKind, FunctionId, LocalId, Stmt};

/// The loop ended normally.
pub const NORMAL: u64 = 0;
/// A `return` inside the loop: the parent returns the value left in its `out` slot.
pub const RETURNED: u64 = 1;
/// A runtime error is propagating.
pub const FAILED: u64 = 2;

/// Calls `site(callee, inside_a_loop)` for every call in `block`.
fn call_sites(block: &Block, in_loop: bool, site: &mut dyn FnMut(FunctionId, bool)) {
    let calls_in = |block: &[Stmt]| {
        let found = RefCell::new(Vec::new());
        ir::visit::find_expr(block, &|e| {
            if let ExprKind::Call { func, .. } = &e.kind {
                found.borrow_mut().push(*func);
            }
            false
        });
        found.into_inner()
    };
    for s in block {
        match s {
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                for f in calls_in(&[Stmt::Expr(cond.clone())]) {
                    site(f, in_loop);
                }
                call_sites(then, in_loop, site);
                call_sites(otherwise, in_loop, site);
            }
            Stmt::Loop { .. } => {
                for f in calls_in(std::slice::from_ref(s)) {
                    site(f, true);
                }
            }
            _ => {
                for f in calls_in(std::slice::from_ref(s)) {
                    site(f, in_loop);
                }
            }
        }
    }
}

/// The functions of `ids` (the entry first) that run a bounded number of times: the entry,
/// and every function all of whose calls are outside loops of such functions (a recursive
/// function never qualifies).
pub fn run_once(module: &ir::Module, ids: &[FunctionId]) -> HashSet<FunctionId> {
    let mut sites = Vec::new();
    for &caller in ids {
        call_sites(
            &module.function(caller).body,
            false,
            &mut |callee, in_loop| {
                sites.push((caller, callee, in_loop));
            },
        );
    }
    let mut once: HashSet<FunctionId> = ids.first().copied().into_iter().collect();
    loop {
        let before = once.len();
        for &g in ids.iter().skip(1) {
            if once.contains(&g) {
                continue;
            }
            let mut calls = sites.iter().filter(|s| s.1 == g).peekable();
            let called = calls.peek().is_some();
            if called && calls.all(|&(caller, _, in_loop)| !in_loop && once.contains(&caller)) {
                once.insert(g);
            }
        }
        if once.len() == before {
            return once;
        }
    }
}

/// Marks a function that runs a bounded number of times: what is left of it once its loops
/// are outlined is straight-line code that runs once per call, so it is neither optimized
/// nor inlined into (`optnone`, which LLVM allows only with `noinline`), and its machine
/// code is made by the fast instruction selector. Its loops are functions of their own,
/// optimized as usual.
pub fn mark_run_once<'ctx>(ctx: &'ctx inkwell::context::Context, f: FunctionValue<'ctx>) {
    for name in ["optnone", "noinline"] {
        let kind = Attribute::get_named_enum_kind_id(name);
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
    }
}

/// Where one of the parent's values lives, handed to an outlined loop.
enum Passed {
    /// A scalar or string local's `alloca`.
    Local(LocalId),
    /// The data pointer and length of an array local's view.
    View(LocalId),
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Lowers a loop in place.
    pub fn lower_loop(&mut self, st: &mut FnState<'ctx, 'm>, stmt: &'m Stmt) -> Gen<()> {
        let Stmt::Loop {
            id,
            pre_cond,
            body,
            continuing,
            post_cond,
        } = stmt
        else {
            return Err("internal error: lowering a statement that is not a loop".into());
        };
        let id = *id;
        let header = self.ctx.append_basic_block(st.func, "loop");
        let body_bb = self.ctx.append_basic_block(st.func, "body");
        let cont = self.ctx.append_basic_block(st.func, "continue");
        let exit = self.ctx.append_basic_block(st.func, "endloop");
        b(self.builder.build_unconditional_branch(header))?;
        self.builder.position_at_end(header);
        match pre_cond {
            Some(c) => {
                let c = self.cond(st, c)?;
                b(self.builder.build_conditional_branch(c, body_bb, exit))?;
            }
            None => {
                b(self.builder.build_unconditional_branch(body_bb))?;
            }
        }
        self.builder.position_at_end(body_bb);
        st.loops.insert(id, (cont, exit));
        self.block(st, body)?;
        if !self.terminated() {
            b(self.builder.build_unconditional_branch(cont))?;
        }
        self.builder.position_at_end(cont);
        self.block(st, continuing)?;
        if !self.terminated() {
            match post_cond {
                Some(c) => {
                    let c = self.cond(st, c)?;
                    b(self.builder.build_conditional_branch(c, header, exit))?;
                }
                None => {
                    b(self.builder.build_unconditional_branch(header))?;
                }
            }
        }
        st.loops.remove(&id);
        self.builder.position_at_end(exit);
        Ok(())
    }

    /// Lowers the loop `stmt` (outermost in `st`'s function) as a call of a function of its
    /// own.
    pub fn outline_loop(&mut self, st: &mut FnState<'ctx, 'm>, stmt: &'m Stmt) -> Gen<()> {
        let c = self.ctx;
        let ptr = c.ptr_type(AddressSpace::default());
        let mut mentioned: Vec<LocalId> = Vec::new();
        ir::visit::for_each_local_use_in_stmt(stmt, &mut |l, _| {
            if !mentioned.contains(&l) {
                mentioned.push(l);
            }
        });
        mentioned.sort_by_key(|l| l.0);
        // The parent's pointers, in parameter order after (frame, frame base, return slot).
        let mut passed: Vec<(Passed, Vec<PointerValue<'ctx>>)> = Vec::new();
        for &l in &mentioned {
            if let Some(p) = st.locals[l.0] {
                passed.push((Passed::Local(l), vec![p]));
            }
            if let Some(&(data, len)) = st.views.get(&l) {
                passed.push((Passed::View(l), vec![data, len]));
            }
        }
        let count = 3 + passed.iter().map(|p| p.1.len()).sum::<usize>();
        let params: Vec<BasicMetadataTypeEnum> = vec![ptr.into(); count];
        let parent_name = st.func.get_name().to_string_lossy().into_owned();
        let name = format!("{parent_name}.loop{}", self.outlined);
        self.outlined += 1;
        let func = self.module.add_function(
            &name,
            c.i32_type().fn_type(&params, false),
            Some(Linkage::Internal),
        );
        // Inlined back, it would be one function again.
        let noinline = Attribute::get_named_enum_kind_id("noinline");
        func.add_attribute(AttributeLoc::Function, c.create_enum_attribute(noinline, 0));
        let here = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        let param = |i: usize| -> Gen<PointerValue<'ctx>> {
            Ok(func
                .get_nth_param(i as u32)
                .ok_or("internal error: outlined parameter")?
                .into_pointer_value())
        };

        let entry = c.append_basic_block(func, "entry");
        let (unwind, failed) = self.failure_path(func)?;
        self.builder.position_at_end(unwind);
        b(self
            .builder
            .build_return(Some(&c.i32_type().const_int(FAILED, false))))?;

        // Copy in: the loop's own locals, so that they become registers.
        self.builder.position_at_end(entry);
        let mut locals = vec![None; st.locals.len()];
        let mut views = HashMap::new();
        let mut copies: Vec<(PointerValue<'ctx>, PointerValue<'ctx>, BasicTypeEnum<'ctx>)> =
            Vec::new();
        let mut next = 3;
        for (what, _) in &passed {
            match *what {
                Passed::Local(l) => {
                    let ty = self
                        .llvm_type(&st.ir.locals[l.0].ty)
                        .ok_or("internal error: local type")?;
                    let own = b(self.builder.build_alloca(ty, &st.ir.locals[l.0].name))?;
                    copies.push((own, param(next)?, ty));
                    locals[l.0] = Some(own);
                    next += 1;
                }
                Passed::View(l) => {
                    let data = b(self.builder.build_alloca(ptr, "view.data"))?;
                    let len = b(self.builder.build_alloca(c.i64_type(), "view.len"))?;
                    copies.push((data, param(next)?, ptr.into()));
                    copies.push((len, param(next + 1)?, c.i64_type().into()));
                    views.insert(l, (data, len));
                    next += 2;
                }
            }
        }
        for &(own, theirs, ty) in &copies {
            let v = b(self.builder.build_load(ty, theirs, "in"))?;
            b(self.builder.build_store(own, v))?;
        }
        let out = b(self.builder.build_alloca(c.i64_type(), "out"))?;
        let mut inner = FnState {
            ir: st.ir,
            func,
            locals,
            views,
            frame: param(0)?,
            frame_new: None,
            frame_base: param(1)?,
            frame_frees: Vec::new(),
            frame_used: false,
            next_slot: st.next_slot,
            out,
            loops: HashMap::new(),
            unwind,
            failed,
            fail_site: None,
            index_fail: None,
            outline_loops: false,
            return_slot: Some(param(2)?),
        };
        self.lower_loop(&mut inner, stmt)?;
        if !self.terminated() {
            // Copy out, on a normal exit only.
            for &(own, theirs, ty) in &copies {
                let v = b(self.builder.build_load(ty, own, "out"))?;
                b(self.builder.build_store(theirs, v))?;
            }
            b(self
                .builder
                .build_return(Some(&c.i32_type().const_int(NORMAL, false))))?;
        }
        st.next_slot = inner.next_slot;

        // The call, in the parent.
        self.builder.position_at_end(here);
        let (frame, base) = if inner.frame_used {
            (self.frame(st), st.frame_base)
        } else {
            (ptr.const_null(), ptr.const_null())
        };
        // Where a `return` in the loop leaves its value: `out` for a scalar or an object's
        // box, a slot of its own for a vector or POD.
        let returned_at = match self.llvm_type(&st.ir.return_type) {
            Some(t) if super::repr::aggregate(&st.ir.return_type) => {
                self.entry_alloca(t, "returned")?
            }
            _ => st.out,
        };
        let mut args: Vec<BasicMetadataValueEnum> =
            vec![frame.into(), base.into(), returned_at.into()];
        args.extend(
            passed
                .iter()
                .flat_map(|p| p.1.iter().map(|&v| BasicMetadataValueEnum::from(v))),
        );
        let status = b(self.builder.build_call(func, &args, "loop"))?
            .try_as_basic_value()
            .basic()
            .ok_or("internal error: loop status")?
            .into_int_value();
        let returned = c.append_basic_block(st.func, "loop.returned");
        let next_bb = c.append_basic_block(st.func, "loop.done");
        let i32t = c.i32_type();
        b(self.builder.build_switch(
            status,
            st.unwind,
            &[
                (i32t.const_int(NORMAL, false), next_bb),
                (i32t.const_int(RETURNED, false), returned),
            ],
        ))?;
        self.builder.position_at_end(returned);
        let value: Option<BasicValueEnum<'ctx>> = match repr(&st.ir.return_type) {
            Repr::Void => None,
            Repr::Object => Some(b(self.builder.build_load(ptr, st.out, "returned"))?),
            Repr::Scalar(_) | Repr::Vector(..) | Repr::Pod => {
                let ty = self
                    .llvm_type(&st.ir.return_type)
                    .ok_or("internal error: return type")?;
                Some(b(self.builder.build_load(ty, returned_at, "returned"))?)
            }
        };
        self.ret(st, value)?;
        self.builder.position_at_end(next_bb);
        Ok(())
    }
}
