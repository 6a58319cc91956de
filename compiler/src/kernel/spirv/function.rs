//! Functions, locals, statements and structured control flow.
//!
//! Every SPIR-V function is built by one [`FnCx`]: scalar locals become `Function`
//! variables (collected and placed at the start of the first block, as SPIR-V requires),
//! parameters that are never assigned are read directly (push constant or
//! `OpFunctionParameter`), and resource locals are resolved statically to the kernel
//! parameter they denote.
//!
//! Control flow is structured: `if` gets an `OpSelectionMerge`; loops and the jumps out of
//! them are lowered in `loop_flow.rs`.

use rspirv::dr::{InsertPoint, Instruction, Operand};
use rspirv::spirv::{FunctionControl, Op, SelectionControl, StorageClass, Word};

use super::types::host_only;
use super::{unsupported, BuildExt, Ctx, HelperKey, Res};
use crate::ir::{self, Block, Expr, Stmt, Type};

/// How a local is represented.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    /// A `Function` variable holding the value.
    Var(Word),
    /// A helper's scalar parameter that is never assigned: the `OpFunctionParameter`.
    Value(Word),
    /// A kernel's scalar parameter that is never assigned: a push-constant member index.
    Push(usize),
    /// A resource: the kernel parameter it denotes, once known.
    Resource(Option<usize>),
    /// A `Shared<T>` local: its workgroup array, once its `shared T[n]` ran.
    Shared(Option<super::memory::SharedArray>),
    /// A `void` local (never read).
    Unit,
}

/// A jump out of the current position to an enclosing loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Jump {
    /// To the loop's merge block.
    Break,
    /// To the loop's continue target.
    Continue,
}

/// Lowering state of one SPIR-V function.
pub(crate) struct FnCx<'a, 'm> {
    /// The module.
    pub(crate) cx: &'a mut Ctx<'m>,
    /// The IR function.
    pub(crate) func: &'m ir::Function,
    fn_index: usize,
    /// Per IR local, its representation.
    pub(crate) slots: Vec<Slot>,
    /// `OpVariable`s for the first block.
    vars: Vec<Instruction>,
    pub(super) loops: Vec<super::loop_flow::LoopCx>,
    /// The labeled-jump flag variable, once needed.
    pub(super) exit_flag: Option<Word>,
    /// Per local, whether it holds a dynamically uniform value (computed on first need).
    pub(crate) uniform: Option<Vec<bool>>,
    /// Checked mode's resource queries for the first block (`hoist.rs`).
    pub(crate) hoist: super::hoist::Hoisted,
    /// Checked mode: the accesses (site kind, span) proven in bounds before the loop whose
    /// unchecked copy is being lowered (`loop_ranges.rs`).
    pub(crate) proven: Vec<(&'static str, crate::diagnostics::Span)>,
    /// How many versioned loops' copies are being lowered around the current position.
    pub(crate) versioning: u8,
}

/// Lowers the kernel body to the entry-point function and returns its id.
pub(crate) fn compile_kernel_body(cx: &mut Ctx) -> Res<Word> {
    let func = cx.kernel;
    let void = cx.void_type();
    let fn_ty = cx.function_type(void, &[]);
    let id =
        cx.b.begin_function(void, None, FunctionControl::NONE, fn_ty)
            .ice(func.span)?;
    cx.b.name(id, func.name.as_str());
    let assigned = super::access::assigned_locals(func);
    let mut f = FnCx::new(cx, func)?;
    for (i, p) in func.params().iter().enumerate() {
        let slot = match &p.ty {
            ty @ (Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..)) => {
                let member = f.cx.push_member(i)?;
                if assigned[i] {
                    let var = f.new_var(ty, &p.name, None)?;
                    let v = f.load_push(member)?;
                    f.cx.b.store(var, v, None, []).ice(func.span)?;
                    Slot::Var(var)
                } else {
                    Slot::Push(member)
                }
            }
            Type::Buffer(_)
            | Type::Image2D(_)
            | Type::Texture(..)
            | Type::Sampler
            | Type::AccelStruct => Slot::Resource(Some(i)),
            ty if ty.is_buffer_array() => Slot::Resource(Some(i)),
            // Read field by field from the push-constant block (never assigned: sema).
            Type::Struct(_) => Slot::Push(f.cx.push_member(i)?),
            _ => Slot::Unit,
        };
        f.slots.push(slot);
    }
    f.lower_body()?;
    Ok(id)
}

/// Lowers one helper specialization as the function `id`.
pub(crate) fn compile_helper(cx: &mut Ctx, key: &HelperKey, id: Word) -> Res<()> {
    let ir = cx.ir;
    let func = ir
        .functions
        .get(key.0 .0)
        .ok_or_else(|| unsupported(cx.kernel.span, "internal error: unknown helper"))?;
    let ret = cx.ir_value_type(&func.return_type, func.span)?;
    let mut param_types = Vec::new();
    for p in func.params() {
        match &p.ty {
            ty @ (Type::Scalar(_)
            | Type::Vector(..)
            | Type::Matrix(..)
            | Type::Quaternion(_)
            | Type::Bytes16(_)) => param_types.push(cx.ir_value_type(ty, p.span)?),
            Type::Buffer(_)
            | Type::Image2D(_)
            | Type::Texture(..)
            | Type::Sampler
            | Type::AccelStruct => {}
            ty @ (Type::Array(_)
            | Type::String
            | Type::Stream
            | Type::Event
            | Type::Presentation(_)) => return Err(host_only(p.span, ty)),
            Type::Shared(_) => {}
            ty @ (Type::Enum(_)
            | Type::Struct(_)
            | Type::CoopMatrix(_)
            | Type::RayQuery
            | Type::Wide(..)) => {
                return Err(unsupported(
                    p.span,
                    format!("a helper parameter of type `{ty}`"),
                ))
            }
            Type::Void => return Err(unsupported(p.span, "a void parameter")),
        }
    }
    let fn_ty = cx.function_type(ret, &param_types);
    cx.b.begin_function(ret, Some(id), FunctionControl::NONE, fn_ty)
        .ice(func.span)?;
    cx.b.name(id, func.name.as_str());
    let mut values = Vec::new();
    for ty in param_types {
        values.push(cx.b.function_parameter(ty).ice(func.span)?);
    }
    let assigned = super::access::assigned_locals(func);
    let mut f = FnCx::new(cx, func)?;
    let mut values = values.into_iter();
    for (i, p) in func.params().iter().enumerate() {
        let slot = match &p.ty {
            ty @ (Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..)) => {
                let value = values
                    .next()
                    .ok_or_else(|| unsupported(p.span, "internal error"))?;
                f.cx.b.name(value, p.name.as_str());
                if assigned[i] {
                    let var = f.new_var(ty, &p.name, None)?;
                    f.cx.b.store(var, value, None, []).ice(func.span)?;
                    Slot::Var(var)
                } else {
                    Slot::Value(value)
                }
            }
            Type::Shared(_) => {
                let handle = key.1.get(i).copied().flatten();
                let array = handle.and_then(|h| {
                    let h = h.checked_sub(super::memory::SHARED_HANDLE_BASE)?;
                    f.cx.mem
                        .shared_arrays
                        .iter()
                        .find(|a| a.handle == h)
                        .copied()
                });
                Slot::Shared(array)
            }
            _ => Slot::Resource(key.1.get(i).copied().flatten()),
        };
        f.slots.push(slot);
    }
    f.lower_body()
}

impl<'a, 'm> FnCx<'a, 'm> {
    /// Starts the first block of the function just begun with `begin_function`.
    fn new(cx: &'a mut Ctx<'m>, func: &'m ir::Function) -> Res<FnCx<'a, 'm>> {
        let fn_index =
            cx.b.selected_function()
                .ok_or_else(|| unsupported(func.span, "internal error: no function"))?;
        cx.b.begin_block(None).ice(func.span)?;
        Ok(FnCx {
            cx,
            func,
            fn_index,
            slots: Vec::new(),
            vars: Vec::new(),
            loops: Vec::new(),
            exit_flag: None,
            uniform: None,
            hoist: Default::default(),
            proven: Vec::new(),
            versioning: 0,
        })
    }

    /// Declares the non-parameter locals, lowers the body and closes the function.
    fn lower_body(mut self) -> Res<()> {
        let func = self.func;
        for local in &func.locals[func.param_count..] {
            let slot = match &local.ty {
                ty @ (Type::Scalar(_)
                | Type::Vector(..)
                | Type::Matrix(..)
                | Type::Quaternion(_)
                | Type::Bytes16(_)
                | Type::CoopMatrix(_)
                | Type::Struct(_)
                | Type::RayQuery) => {
                    if *ty == Type::RayQuery {
                        self.cx.ray_query_features();
                    }
                    Slot::Var(self.new_var(ty, &local.name, None)?)
                }
                Type::Buffer(_)
                | Type::Image2D(_)
                | Type::Texture(..)
                | Type::Sampler
                | Type::AccelStruct => Slot::Resource(None),
                Type::Shared(_) => Slot::Shared(None),
                Type::Void => Slot::Unit,
                ty @ (Type::Enum(_) | Type::Wide(..)) => {
                    return Err(unsupported(local.span, format!("a local of type `{ty}`")))
                }
                ty @ (Type::Array(_)
                | Type::String
                | Type::Stream
                | Type::Event
                | Type::Presentation(_)) => return Err(host_only(local.span, ty)),
            };
            self.slots.push(slot);
        }
        self.block(&func.body)?;
        if !self.terminated() {
            // Falling off the end: fine for void; sema rejects it otherwise.
            if func.return_type == Type::Void {
                self.cx.b.ret().ice(func.span)?;
            } else {
                self.cx.b.unreachable().ice(func.span)?;
            }
        }
        // The variables first, as SPIR-V requires, then the hoisted queries.
        let mut first_block = std::mem::take(&mut self.vars);
        first_block.extend(self.hoist.take());
        let function = &mut self.cx.b.module_mut().functions[self.fn_index];
        if let Some(first) = function.blocks.first_mut() {
            first.instructions.splice(0..0, first_block);
        }
        self.cx.b.end_function().ice(func.span)
    }

    /// A `Function` variable of scalar type `s`, placed in the first block.
    pub(crate) fn new_var(&mut self, ty: &Type, name: &str, init: Option<Word>) -> Res<Word> {
        let ty = self.cx.ir_value_type(ty, self.func.span)?;
        let ptr = self.cx.pointer_type(StorageClass::Function, ty);
        let id = self.cx.b.id();
        let mut operands = vec![Operand::StorageClass(StorageClass::Function)];
        operands.extend(init.map(Operand::IdRef));
        self.vars.push(Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(id),
            operands,
        ));
        self.cx.b.name(id, name);
        Ok(id)
    }

    /// Emits `opcode` with id operands and returns its result.
    pub(crate) fn op(&mut self, opcode: Op, ty: Word, args: &[Word]) -> Res<Word> {
        let id = self.cx.b.id();
        let operands = args.iter().map(|&a| Operand::IdRef(a)).collect();
        let inst = Instruction::new(opcode, Some(ty), Some(id), operands);
        self.cx
            .b
            .insert_into_block(InsertPoint::End, inst)
            .ice(self.func.span)?;
        Ok(id)
    }

    /// One `GLSL.std.450` instruction with id operands.
    pub(crate) fn glsl_op(
        &mut self,
        inst: rspirv::spirv::GlslStd450Op,
        ty: Word,
        args: &[Word],
        span: crate::diagnostics::Span,
    ) -> Res<Word> {
        let set = self.cx.glsl();
        let operands = args.iter().map(|&v| Operand::IdRef(v)).collect::<Vec<_>>();
        self.cx
            .b
            .ext_inst(ty, None, set, inst as u32, operands)
            .ice(span)
    }

    /// Whether the current block has been terminated (what follows is unreachable).
    pub(crate) fn terminated(&self) -> bool {
        self.cx.b.selected_block().is_none()
    }

    /// The label of the current block (an `OpPhi` parent).
    pub(crate) fn current_label(&self) -> Res<Word> {
        let b = &self.cx.b;
        b.selected_block()
            .and_then(|i| {
                b.module_ref().functions[self.fn_index].blocks[i]
                    .label
                    .as_ref()
            })
            .and_then(|l| l.result_id)
            .ok_or_else(|| unsupported(self.func.span, "internal error: no current block"))
    }

    /// Starts a block with the given label.
    pub(crate) fn begin(&mut self, label: Word) -> Res<()> {
        self.cx
            .b
            .begin_block(Some(label))
            .map(drop)
            .ice(self.func.span)
    }

    /// Ends the current block with `OpBranch`.
    pub(crate) fn branch(&mut self, target: Word) -> Res<()> {
        self.cx.b.branch(target).ice(self.func.span)
    }

    /// `OpSelectionMerge merge` + `OpBranchConditional cond t f`.
    pub(crate) fn selection(&mut self, cond: Word, t: Word, f: Word, merge: Word) -> Res<()> {
        let span = self.func.span;
        self.cx
            .b
            .selection_merge(merge, SelectionControl::NONE)
            .ice(span)?;
        self.cx.b.branch_conditional(cond, t, f, []).ice(span)
    }

    /// Lowers statements; those after a terminator (dead code) are skipped.
    pub(crate) fn block(&mut self, stmts: &Block) -> Res<()> {
        for s in stmts {
            if self.terminated() {
                break;
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt) -> Res<()> {
        let span = self.func.span;
        match stmt {
            Stmt::Expr(e) => self.expr(e).map(drop),
            Stmt::Store { place, value, span } => self.store(place, value, *span),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => self.lower_if(cond, then, otherwise),
            Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } => {
                let (pre, post) = (pre_cond.as_ref(), post_cond.as_ref());
                self.lower_loop_checked(*id, pre, body, continuing, post)
            }
            Stmt::Break(id) => self.jump(*id, Jump::Break),
            Stmt::Continue(id) => self.jump(*id, Jump::Continue),
            Stmt::Return(None, _) => self.cx.b.ret().ice(span),
            Stmt::Return(Some(e), rspan) => {
                if self.func.return_type == Type::Void {
                    return Err(unsupported(*rspan, "a value returned from a void function"));
                }
                let v = self.expr(e)?;
                self.cx.b.ret_value(v).ice(span)
            }
        }
    }

    fn lower_if(&mut self, cond: &Expr, then: &Block, otherwise: &Block) -> Res<()> {
        if let Some(chain) = super::switch::chain(self.func, cond, then, otherwise) {
            return self.lower_switch(chain);
        }
        let c = self.expr(cond)?;
        let then_label = self.cx.b.id();
        let merge = self.cx.b.id();
        let else_label = if otherwise.is_empty() {
            merge
        } else {
            self.cx.b.id()
        };
        self.selection(c, then_label, else_label, merge)?;
        let mut merge_reached = otherwise.is_empty();
        self.begin(then_label)?;
        self.block(then)?;
        if !self.terminated() {
            self.branch(merge)?;
            merge_reached = true;
        }
        if !otherwise.is_empty() {
            self.begin(else_label)?;
            self.block(otherwise)?;
            if !self.terminated() {
                self.branch(merge)?;
                merge_reached = true;
            }
        }
        self.begin(merge)?;
        if !merge_reached {
            // Both arms left (return/break/continue): the merge block is unreachable but
            // still needs a terminator, and what follows is dead.
            self.cx.b.unreachable().ice(self.func.span)?;
        }
        Ok(())
    }
}
