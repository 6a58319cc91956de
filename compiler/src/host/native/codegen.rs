//! Lowering of host functions and statements to LLVM IR (expressions are in `expr.rs`, calls
//! in `calls.rs`, the frame and the calls into the interpreter in `delegate.rs`, arrays in
//! `arrays.rs`, loops in `loops.rs`).
//!
//! Every IR function becomes one LLVM function of the same parameters (internal linkage, so
//! the optimizer may inline and specialize freely); scalar and string locals are `alloca`s
//! that `mem2reg` turns into SSA values, every other local lives in the function's frame
//! (see `bridge.rs`). An object parameter is passed as the address of the caller's value
//! (the callee clones it into its frame); an object result is returned boxed. Loops follow the IR's single loop form:
//! `header: pre_cond? → body → continuing → post_cond? → header`, with `break`/`continue`
//! resolved by [`LoopId`].
//!
//! Runtime errors do not unwind through native frames: the failing code records the error
//! (`cajeta_fail(site)`), sets the module's `cajeta.unwinding` flag and returns from its
//! function (each function has one such path, which every check branches to: fewer blocks
//! for LLVM's code generator, the larger part of the JIT time); every call site tests the flag after the call and returns too, up to
//! `cajeta.main`, which reports failure to Rust. The recursion limit is the interpreter's:
//! `cajeta.depth` counts the active host calls and a call site refuses to go deeper than
//! `MAX_CALL_DEPTH`.

use std::collections::HashMap;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{
    BasicValueEnum, FunctionValue, GlobalValue, InstructionValue, IntValue, PhiValue, PointerValue,
};
use inkwell::AddressSpace;

use super::repr::{register_lanes, repr, Repr};
use super::runtime::{Site, SiteKind};
use crate::diagnostics::Span;
use crate::ir::{self, Block, FunctionId, LocalId, LoopId, ScalarType, Stmt, Type};

/// Builder failures are programming errors of this backend, reported as internal errors.
pub type Gen<T> = Result<T, String>;

/// Turns an inkwell builder error into the backend's error type.
pub fn b<T>(r: Result<T, inkwell::builder::BuilderError>) -> Gen<T> {
    r.map_err(|e| format!("internal error: LLVM builder: {e}"))
}

/// The module being built and everything shared by its functions.
pub struct Codegen<'ctx, 'm> {
    /// The LLVM context.
    pub ctx: &'ctx Context,
    /// The module.
    pub module: Module<'ctx>,
    /// The one builder.
    pub builder: Builder<'ctx>,
    /// The program.
    pub ir: &'m ir::Module,
    /// LLVM function of every lowered host function.
    pub funcs: HashMap<FunctionId, FunctionValue<'ctx>>,
    /// The runtime functions, by symbol name.
    pub rt: HashMap<&'static str, FunctionValue<'ctx>>,
    /// Failure sites, indexed by the `i32` passed to `cajeta_fail`.
    pub sites: Vec<Site>,
    /// Functions whose outermost loops are outlined (`loops.rs`).
    pub outline_in: std::collections::HashSet<FunctionId>,
    /// Loops outlined so far (names the next one).
    pub outlined: usize,
    /// `i1 cajeta.unwinding`: set once a runtime error is being propagated.
    pub unwinding: GlobalValue<'ctx>,
    /// `i32 cajeta.depth`: active host calls.
    pub depth: GlobalValue<'ctx>,
    /// String literal constants, by text.
    pub literals: HashMap<String, PointerValue<'ctx>>,
}

/// The function being lowered.
pub struct FnState<'ctx, 'm> {
    /// The IR function.
    pub ir: &'m ir::Function,
    /// Its LLVM function.
    pub func: FunctionValue<'ctx>,
    /// `alloca` of each scalar or string local (object locals live in the frame).
    pub locals: Vec<Option<PointerValue<'ctx>>>,
    /// `alloca`s of the data pointer and length of each local holding a native-scalar
    /// array (refreshed whenever the local is stored).
    pub views: HashMap<LocalId, (PointerValue<'ctx>, PointerValue<'ctx>)>,
    /// The frame (`cajeta_frame_new` in the entry block).
    pub frame: PointerValue<'ctx>,
    /// That call, erased when nothing used the frame and else given the final slot count
    /// (`None` in an outlined loop, which works in its parent's frame).
    pub frame_new: Option<InstructionValue<'ctx>>,
    /// The address of the frame's first slot (`cajeta_frame_base`, right after
    /// `cajeta_frame_new`): a slot's address is computed from it instead of asked for.
    pub frame_base: PointerValue<'ctx>,
    /// The `cajeta_frame_free` calls before each return.
    pub frame_frees: Vec<InstructionValue<'ctx>>,
    /// Whether anything used the frame.
    pub frame_used: bool,
    /// Next free temporary slot of the frame.
    pub next_slot: usize,
    /// An 8-byte `alloca` receiving results from the bridge.
    pub out: PointerValue<'ctx>,
    /// `continue` and `break` targets of the enclosing loops.
    pub loops: HashMap<LoopId, (BasicBlock<'ctx>, BasicBlock<'ctx>)>,
    /// Returns a dummy value while a runtime error propagates.
    pub unwind: BasicBlock<'ctx>,
    /// Sets `cajeta.unwinding` and goes to `unwind`: where every failure of the function
    /// ends, so that the code generator sees one such block instead of one per check.
    pub failed: BasicBlock<'ctx>,
    /// The function's one call of `cajeta_fail`, its site a phi of the failing checks
    /// (made at the first check).
    pub fail_site: Option<(BasicBlock<'ctx>, PhiValue<'ctx>)>,
    /// The function's one call of `cajeta_index_fail`, its arguments phis of the failing
    /// bounds checks (made at the first check).
    pub index_fail: Option<(BasicBlock<'ctx>, [PhiValue<'ctx>; 4])>,
    /// Whether this function's outermost loops become functions of their own
    /// (`loops.rs`): set for functions that run a bounded number of times.
    pub outline_loops: bool,
    /// In an outlined loop: where a `return` leaves its value for the parent (the loop's
    /// function then returns [`super::loops::RETURNED`]).
    pub return_slot: Option<PointerValue<'ctx>>,
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// An empty module with the runtime declarations and globals.
    pub fn new(ctx: &'ctx Context, ir: &'m ir::Module, name: &str) -> Codegen<'ctx, 'm> {
        let module = ctx.create_module(name);
        let mut rt = HashMap::new();
        for (sym, sig, _) in super::runtime_functions() {
            let f = module.add_function(sym, signature(ctx, sig), Some(Linkage::External));
            if super::scalar_fns::is_pure(sym) {
                // `memory(none)` (0: no access of any kind), and it returns, never unwinding.
                for (name, value) in [("memory", 0), ("nounwind", 0), ("willreturn", 0)] {
                    let kind = Attribute::get_named_enum_kind_id(name);
                    f.add_attribute(
                        AttributeLoc::Function,
                        ctx.create_enum_attribute(kind, value),
                    );
                }
            }
            rt.insert(sym, f);
        }
        let global = |name: &str, ty: BasicTypeEnum<'ctx>| {
            let g = module.add_global(ty, None, name);
            g.set_linkage(Linkage::Internal);
            g.set_initializer(&ty.const_zero());
            g
        };
        let unwinding = global("cajeta.unwinding", ctx.bool_type().into());
        let depth = global("cajeta.depth", ctx.i32_type().into());
        Codegen {
            ctx,
            module,
            builder: ctx.create_builder(),
            ir,
            funcs: HashMap::new(),
            rt,
            sites: Vec::new(),
            outline_in: std::collections::HashSet::new(),
            outlined: 0,
            unwinding,
            depth,
            literals: HashMap::new(),
        }
    }

    /// The LLVM type of a value of type `ty`: its own for scalars, a pointer for
    /// objects (see the module comment); `None` for `void`.
    pub fn llvm_type(&self, ty: &Type) -> Option<BasicTypeEnum<'ctx>> {
        let c = self.ctx;
        let ptr = c.ptr_type(AddressSpace::default()).into();
        Some(match repr(ty) {
            Repr::Void => return None,
            Repr::Object => ptr,
            Repr::Scalar(s) => self.value_type(&Type::Scalar(s))?,
            Repr::Vector(s, n) => match self.value_type(&Type::Scalar(s))? {
                BasicTypeEnum::IntType(t) => t.vec_type(register_lanes(n)).into(),
                BasicTypeEnum::FloatType(t) => t.vec_type(register_lanes(n)).into(),
                _ => return None,
            },
            Repr::Pod => {
                let Type::Struct(d) = ty else { return None };
                let fields: Option<Vec<BasicTypeEnum<'ctx>>> =
                    d.fields.iter().map(|(_, t)| self.llvm_type(t)).collect();
                self.ctx.struct_type(&fields?, false).into()
            }
        })
    }

    /// The LLVM type of a scalar.
    fn value_type(&self, ty: &Type) -> Option<BasicTypeEnum<'ctx>> {
        let c = self.ctx;
        Some(match ty {
            Type::Scalar(s) => match s {
                ScalarType::Bool => c.bool_type().into(),
                ScalarType::I8 | ScalarType::U8 => c.i8_type().into(),
                ScalarType::I16 | ScalarType::U16 => c.i16_type().into(),
                ScalarType::I32 | ScalarType::U32 => c.i32_type().into(),
                ScalarType::I64 | ScalarType::U64 => c.i64_type().into(),
                ScalarType::F16 => c.f16_type().into(),
                // A `bfloat16` is the `float` it equals (`bfloat16.rs`).
                ScalarType::F32 | ScalarType::BF16 => c.f32_type().into(),
                ScalarType::F64 => c.f64_type().into(),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Declares every function first, so that calls (and recursion) can refer to them.
    pub fn declare(&mut self, ids: &[FunctionId]) {
        for &id in ids {
            let f = self.ir.function(id);
            let ptr = self.ctx.ptr_type(AddressSpace::default());
            let params: Vec<BasicMetadataTypeEnum> = f
                .params()
                .iter()
                .map(|p| self.llvm_type(&p.ty).unwrap_or(ptr.into()).into())
                .collect();
            let fn_type = match self.llvm_type(&f.return_type) {
                Some(t) => t.fn_type(&params, false),
                None => self.ctx.void_type().fn_type(&params, false),
            };
            let name = format!("{}#{}", f.qualified_name, id.0);
            let value = self
                .module
                .add_function(&name, fn_type, Some(Linkage::Internal));
            if self.outline_in.contains(&id) {
                super::loops::mark_run_once(self.ctx, value);
            }
            self.funcs.insert(id, value);
        }
    }

    /// Lowers the body of a declared function.
    pub fn define(&mut self, id: FunctionId) -> Gen<()> {
        let ir_fn = self.ir.function(id);
        let func = self.funcs[&id];
        let entry = self.ctx.append_basic_block(func, "entry");
        let (unwind, failed) = self.failure_path(func)?;
        self.builder.position_at_end(entry);
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let i64t = self.ctx.i64_type();
        let mut locals = Vec::with_capacity(ir_fn.locals.len());
        let mut views = HashMap::new();
        for (i, local) in ir_fn.locals.iter().enumerate() {
            let slot = match repr(&local.ty) {
                Repr::Scalar(_) | Repr::Vector(..) | Repr::Pod => {
                    let t = self
                        .llvm_type(&local.ty)
                        .ok_or("internal error: local type")?;
                    let p = b(self.builder.build_alloca(t, &local.name))?;
                    // Zero rather than undefined: sema's definite assignment makes it unread.
                    let init = if i < ir_fn.param_count {
                        func.get_nth_param(i as u32)
                            .ok_or("internal error: parameter")?
                    } else {
                        t.const_zero()
                    };
                    b(self.builder.build_store(p, init))?;
                    Some(p)
                }
                Repr::Object | Repr::Void => None,
            };
            if super::repr::has_view(&local.ty) {
                let data = b(self.builder.build_alloca(ptr, "view.data"))?;
                let len = b(self.builder.build_alloca(i64t, "view.len"))?;
                b(self.builder.build_store(data, ptr.const_null()))?;
                b(self.builder.build_store(len, i64t.const_all_ones()))?;
                views.insert(LocalId(i), (data, len));
            }
            locals.push(slot);
        }
        let out = b(self.builder.build_alloca(i64t, "out"))?;
        let slots = i64t.const_int(ir_fn.locals.len() as u64, false);
        let call =
            b(self
                .builder
                .build_call(self.rt["cajeta_frame_new"], &[slots.into()], "frame"))?;
        let frame = call
            .try_as_basic_value()
            .basic()
            .ok_or("internal error: frame")?
            .into_pointer_value();
        let frame_new = frame.as_instruction().ok_or("internal error: frame call")?;
        let frame_base = b(self.builder.build_call(
            self.rt["cajeta_frame_base"],
            &[frame.into()],
            "frame.base",
        ))?
        .try_as_basic_value()
        .basic()
        .ok_or("internal error: frame base")?
        .into_pointer_value();
        let mut st = FnState {
            ir: ir_fn,
            func,
            locals,
            views,
            frame,
            frame_new: Some(frame_new),
            frame_base,
            frame_frees: Vec::new(),
            frame_used: false,
            next_slot: ir_fn.locals.len(),
            out,
            loops: HashMap::new(),
            unwind,
            failed,
            fail_site: None,
            index_fail: None,
            outline_loops: self.outline_in.contains(&id),
            return_slot: None,
        };
        // Object parameters: the callee's own reference in its frame.
        for (i, p) in ir_fn.params().iter().enumerate() {
            if repr(&p.ty) == Repr::Object {
                let v = func
                    .get_nth_param(i as u32)
                    .ok_or("internal error: parameter")?;
                let frame = self.frame(&mut st);
                let slot = i64t.const_int(i as u64, false);
                let set = self.rt["cajeta_frame_set_value"];
                b(self
                    .builder
                    .build_call(set, &[frame.into(), slot.into(), v.into()], ""))?;
                self.refresh_view(&mut st, LocalId(i))?;
            }
        }
        self.block(&mut st, &ir_fn.body)?;
        if !self.terminated() {
            // Falling off the end: `void` functions return; sema rejects a missing return
            // elsewhere, so this is unreachable for the others.
            self.ret_default(&mut st)?;
        }
        self.builder.position_at_end(unwind);
        self.ret_default(&mut st)?;
        self.finish_frame(st)
    }

    /// A function's `unwind` block (left empty: how it returns is the caller's) and its
    /// `failed` block, which sets `cajeta.unwinding` and goes there (see [`FnState`]).
    pub fn failure_path(
        &self,
        func: FunctionValue<'ctx>,
    ) -> Gen<(BasicBlock<'ctx>, BasicBlock<'ctx>)> {
        let unwind = self.ctx.append_basic_block(func, "unwind");
        let failed = self.ctx.append_basic_block(func, "failed");
        self.builder.position_at_end(failed);
        b(self.builder.build_store(
            self.unwinding.as_pointer_value(),
            self.ctx.bool_type().const_all_ones(),
        ))?;
        b(self.builder.build_unconditional_branch(unwind))?;
        Ok((unwind, failed))
    }

    /// Erases the frame of a function that never used it, or sizes it.
    fn finish_frame(&self, st: FnState<'ctx, 'm>) -> Gen<()> {
        let Some(frame_new) = st.frame_new else {
            return Err("internal error: an outlined loop has no frame of its own".into());
        };
        if !st.frame_used {
            for free in st.frame_frees {
                free.erase_from_basic_block();
            }
            if let Some(base) = st.frame_base.as_instruction() {
                base.erase_from_basic_block();
            }
            frame_new.erase_from_basic_block();
            return Ok(());
        }
        let slots = self.ctx.i64_type().const_int(st.next_slot as u64, false);
        if !frame_new.set_operand(0, slots) {
            return Err("internal error: frame size".into());
        }
        Ok(())
    }

    /// The frame, marking it used.
    pub fn frame(&self, st: &mut FnState<'ctx, 'm>) -> PointerValue<'ctx> {
        st.frame_used = true;
        st.frame
    }

    /// Frees the frame and returns `value` (from an outlined loop: leaves `value` for the
    /// parent, which returns it).
    pub fn ret(&self, st: &mut FnState<'ctx, 'm>, value: Option<BasicValueEnum<'ctx>>) -> Gen<()> {
        if let Some(slot) = st.return_slot {
            if let Some(v) = value {
                b(self.builder.build_store(slot, v))?;
            }
            let status = self.ctx.i32_type().const_int(super::loops::RETURNED, false);
            b(self.builder.build_return(Some(&status)))?;
            return Ok(());
        }
        let call =
            b(self
                .builder
                .build_call(self.rt["cajeta_frame_free"], &[st.frame.into()], ""))?;
        let free = call
            .try_as_basic_value()
            .instruction()
            .ok_or("internal error: frame free")?;
        st.frame_frees.push(free);
        match value {
            Some(v) => b(self.builder.build_return(Some(&v)))?,
            None => b(self.builder.build_return(None))?,
        };
        Ok(())
    }

    /// `ret void`, or `ret` of a zero of the return type.
    fn ret_default(&self, st: &mut FnState<'ctx, 'm>) -> Gen<()> {
        let zero = self.llvm_type(&st.ir.return_type).map(|t| t.const_zero());
        self.ret(st, zero)
    }

    /// True when the current block already ends in a terminator.
    pub fn terminated(&self) -> bool {
        self.builder
            .get_insert_block()
            .is_some_and(|bb| bb.get_terminator().is_some())
    }

    /// Continues in a fresh block that nothing branches to (code after `return`/`break`).
    fn dead_block(&self, st: &FnState<'ctx, 'm>) {
        let bb = self.ctx.append_basic_block(st.func, "dead");
        self.builder.position_at_end(bb);
    }

    /// Lowers a block.
    pub fn block(&mut self, st: &mut FnState<'ctx, 'm>, block: &'m Block) -> Gen<()> {
        for stmt in block {
            if self.terminated() {
                self.dead_block(st);
            }
            self.stmt(st, stmt)?;
        }
        Ok(())
    }

    fn stmt(&mut self, st: &mut FnState<'ctx, 'm>, stmt: &'m Stmt) -> Gen<()> {
        match stmt {
            Stmt::Expr(e) => self.effect(st, e)?,
            Stmt::Store { place, value, .. } => self.store(st, stmt, place, value)?,
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.cond(st, cond)?;
                let then_bb = self.ctx.append_basic_block(st.func, "then");
                let else_bb = self.ctx.append_basic_block(st.func, "else");
                let join = self.ctx.append_basic_block(st.func, "endif");
                b(self.builder.build_conditional_branch(c, then_bb, else_bb))?;
                for (bb, body) in [(then_bb, then), (else_bb, otherwise)] {
                    self.builder.position_at_end(bb);
                    self.block(st, body)?;
                    if !self.terminated() {
                        b(self.builder.build_unconditional_branch(join))?;
                    }
                }
                self.builder.position_at_end(join);
            }
            Stmt::Loop { .. } if st.outline_loops && st.loops.is_empty() => {
                self.outline_loop(st, stmt)?
            }
            Stmt::Loop { .. } => self.lower_loop(st, stmt)?,
            Stmt::Break(id) | Stmt::Continue(id) => {
                let Some(&(cont, exit)) = st.loops.get(id) else {
                    return Err("internal error: break/continue outside its loop".into());
                };
                let target = if matches!(stmt, Stmt::Break(_)) {
                    exit
                } else {
                    cont
                };
                b(self.builder.build_unconditional_branch(target))?;
            }
            Stmt::Return(value, _) => {
                let v = match value {
                    Some(e) if repr(&e.ty) == Repr::Object => Some(self.object_result(st, e)?),
                    Some(e) => self.expr(st, e)?,
                    None => None,
                };
                self.ret(st, v)?;
            }
        }
        Ok(())
    }

    /// A boolean condition as an `i1`.
    pub fn cond(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m ir::Expr) -> Gen<IntValue<'ctx>> {
        match self.expr(st, e)? {
            Some(BasicValueEnum::IntValue(v)) => Ok(v),
            _ => Err("internal error: condition is not a boolean".into()),
        }
    }

    /// Registers a failure site.
    pub fn site(&mut self, kind: SiteKind, span: Span) -> i32 {
        self.sites.push(Site { kind, span });
        (self.sites.len() - 1) as i32
    }

    /// Branches to the function's `cajeta_fail` call with `site` when `bad` holds, and
    /// continues in a new block otherwise.
    pub fn fail_if(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        bad: IntValue<'ctx>,
        site: i32,
    ) -> Gen<()> {
        let here = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        let (fail_bb, phi) = match st.fail_site {
            Some(f) => f,
            None => {
                let bb = self.ctx.append_basic_block(st.func, "fail");
                self.builder.position_at_end(bb);
                let phi = b(self.builder.build_phi(self.ctx.i32_type(), "site"))?;
                let site = phi.as_basic_value().into_int_value();
                b(self
                    .builder
                    .build_call(self.rt["cajeta_fail"], &[site.into()], ""))?;
                b(self.builder.build_unconditional_branch(st.failed))?;
                self.builder.position_at_end(here);
                st.fail_site = Some((bb, phi));
                (bb, phi)
            }
        };
        phi.add_incoming(&[(&self.ctx.i32_type().const_int(site as u64, true), here)]);
        let ok_bb = self.ctx.append_basic_block(st.func, "ok");
        b(self.builder.build_conditional_branch(bad, fail_bb, ok_bb))?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }
}

/// The LLVM function type of a runtime signature string (see [`runtime::functions`]).
fn signature<'ctx>(c: &'ctx Context, sig: &str) -> inkwell::types::FunctionType<'ctx> {
    let ty = |ch: char| -> Option<BasicTypeEnum<'ctx>> {
        Some(match ch {
            'i' => c.i32_type().into(),
            'l' => c.i64_type().into(),
            'f' => c.f32_type().into(),
            'd' => c.f64_type().into(),
            'p' => c.ptr_type(AddressSpace::default()).into(),
            _ => return None,
        })
    };
    let mut chars = sig.chars();
    let ret = chars.next().unwrap_or('v');
    let params: Vec<BasicMetadataTypeEnum> = chars.filter_map(ty).map(Into::into).collect();
    if ret == 'a' {
        // `bridge::ArrayView`, returned in two registers as C does.
        let view = c.struct_type(
            &[
                c.ptr_type(AddressSpace::default()).into(),
                c.i64_type().into(),
            ],
            false,
        );
        return view.fn_type(&params, false);
    }
    match ty(ret) {
        Some(t) => t.fn_type(&params, false),
        None => c.void_type().fn_type(&params, false),
    }
}
