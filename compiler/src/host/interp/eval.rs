//! The tree-walking evaluator: statements, expressions and host calls.
//!
//! Each call gets a frame (`Vec<Value>` indexed by [`LocalId`]); statements return a [`Flow`]
//! that carries `break`/`continue` (by [`LoopId`], so labeled jumps to outer loops just
//! propagate outward) and `return`. Errors are [`HostError`]s carrying the span of the
//! expression or statement that failed; anything the IR's typing should have ruled out is
//! reported as an "internal error" rather than a panic.

use std::io::Write;

use super::device::Device;
use super::ops::{self, OpError};
use super::value::{Array, Scalar, Value};
use super::HostError;
use crate::diagnostics::Span;
use crate::ir::{
    BinaryOp, Block, Constant, Expr, ExprKind, FunctionId, FunctionKind, Intrinsic, LocalId,
    LoopId, Module, Place, Stmt, Type,
};

/// Deepest nesting of host calls before the run stops with an error. The interpreter
/// thread's stack is sized for it (see `mod.rs`).
pub const MAX_CALL_DEPTH: usize = 10_000;

/// Stack left below the floor for one more call level: a call's own frames plus its
/// expressions, nested at most 256 deep (E0042), take far less.
const STACK_MARGIN: usize = 16 << 20;

thread_local! {
    /// The lowest stack address a host call may start at on this thread (0: unknown, no
    /// check): set where the interpreter's thread starts, from its stack size.
    static STACK_FLOOR: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Records this thread's stack floor for a stack of `size` bytes whose top is near here (the
/// thread has just started), so that deep recursion of calls whose expressions nest deeply
/// too ends in an error rather than a stack overflow before [`MAX_CALL_DEPTH`].
pub(super) fn set_stack_floor(size: usize) {
    let here = std::hint::black_box(0u8);
    let top = std::ptr::addr_of!(here) as usize;
    STACK_FLOOR.with(|f| f.set(top.saturating_sub(size.saturating_sub(STACK_MARGIN))));
}

/// Whether the stack here is below this thread's floor (see [`set_stack_floor`]).
fn below_stack_floor() -> bool {
    let here = std::hint::black_box(0u8);
    let sp = std::ptr::addr_of!(here) as usize;
    STACK_FLOOR.with(|f| sp < f.get())
}

/// The locals of one call.
pub type Frame = Vec<Value>;

/// How a statement finished.
pub enum Flow {
    /// Fell through.
    Normal,
    /// `break` to the loop with this id.
    Break(LoopId),
    /// `continue` of the loop with this id.
    Continue(LoopId),
    /// `return` with its value (`Void` for `return;`).
    Return(Value),
}

/// The interpreter's error type: boxed, so that the `Result`s returned by every
/// evaluation step stay small (this measurably speeds up hot loops).
pub type Fail = Box<HostError>;

/// Shorthand for a runtime error at a span.
pub fn err<T>(span: Span, message: impl Into<String>) -> Result<T, Fail> {
    Err(Box::new(HostError {
        message: message.into(),
        span: Some(span),
        launch: None,
        notes: Vec::new(),
    }))
}

/// Shorthand for an error that the IR's typing should have made impossible.
pub fn internal<T>(span: Span, what: impl std::fmt::Display) -> Result<T, Fail> {
    err(span, format!("internal error: {what}"))
}

/// The interpreter state of one run.
pub struct Interp<'a> {
    /// The program.
    pub module: &'a Module,
    /// Where `print`/`println` write.
    pub out: &'a mut dyn Write,
    /// The runtime: context, loaded kernels, default stream.
    pub device: Device<'a>,
    depth: usize,
    /// Each launched kernel's dynamic shared array (`launch_opts::dynamic_shared`).
    pub(super) shared_arrays:
        std::collections::HashMap<FunctionId, super::launch_opts::DynamicShared>,
    /// A refused launch or a kernel's fault inside a `try` block, waiting for its `catch`
    /// ([`Interp::caught`], [`HostOp::CatchKernelFault`](crate::ir::HostOp::CatchKernelFault)).
    pub(crate) waiting: Option<super::launch::Caught>,
    /// Launches refused and caught so far (`Device.launchFailures()`).
    pub(crate) launch_failures: i64,
    /// Cajeta's `Device.setCpuWorkerCap(n)`: the CPU device's worker threads per launch, at
    /// most (0: every thread).
    pub(crate) cpu_worker_cap: usize,
    /// Cajeta's `Autotune` store, read at its first use (host/autotune.rs).
    pub(crate) autotune: crate::host::autotune::AutotuneStore,
}

impl<'a> Interp<'a> {
    /// A fresh interpreter.
    pub fn new(module: &'a Module, out: &'a mut dyn Write, device: Device<'a>) -> Interp<'a> {
        Interp {
            module,
            out,
            device,
            depth: 0,
            shared_arrays: std::collections::HashMap::new(),
            waiting: None,
            launch_failures: 0,
            cpu_worker_cap: 0,
            autotune: Default::default(),
        }
    }

    /// Calls host function `id` with already evaluated arguments; `span` is the call site.
    pub fn call(&mut self, id: FunctionId, args: Vec<Value>, span: Span) -> Result<Value, Fail> {
        let module = self.module;
        let Some(func) = module.functions.get(id.0) else {
            return internal(span, format!("call of unknown function #{}", id.0));
        };
        if func.kind == FunctionKind::Kernel {
            return err(
                span,
                format!(
                    "kernel `{}` cannot be called directly; use `{}.launch(...)`",
                    func.name, func.name
                ),
            );
        }
        if args.len() != func.param_count {
            return internal(
                span,
                format!("`{}` called with {} arguments", func.name, args.len()),
            );
        }
        if below_stack_floor() {
            return err(
                span,
                format!(
                    "recursion too deep: the interpreter's stack is used up after {} nested host calls (in `{}`)",
                    self.depth, func.name
                ),
            );
        }
        if self.depth >= MAX_CALL_DEPTH {
            return err(
                span,
                format!(
                    "recursion too deep: more than {MAX_CALL_DEPTH} nested host calls (in `{}`)",
                    func.name
                ),
            );
        }
        let mut frame = args;
        frame.resize(func.locals.len().max(func.param_count), Value::Void);
        self.depth += 1;
        let flow = self.exec_block(&mut frame, &func.body);
        self.depth -= 1;
        match flow? {
            Flow::Return(v) => Ok(v),
            Flow::Normal => Ok(Value::Void),
            Flow::Break(_) | Flow::Continue(_) => {
                internal(func.span, "break/continue outside its loop")
            }
        }
    }

    /// Runs a block.
    pub fn exec_block(&mut self, f: &mut Frame, block: &Block) -> Result<Flow, Fail> {
        for stmt in block {
            match self.exec_stmt(f, stmt)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs one statement.
    pub fn exec_stmt(&mut self, f: &mut Frame, stmt: &Stmt) -> Result<Flow, Fail> {
        match stmt {
            Stmt::Expr(e) => {
                self.eval(f, e)?;
            }
            Stmt::Store { place, value, span } => match place {
                Place::Local(id) => {
                    let v = self.eval(f, value)?;
                    *local_mut(f, *id, *span)? = v;
                }
                Place::Index { base, index } => {
                    // Java's order: array, index, value, then the range check.
                    let b = self.eval(f, base)?;
                    let i = self.eval_scalar(f, index)?;
                    let v = self.eval(f, value)?;
                    store_element(&b, i, v, *span)?;
                }
                Place::Lane { base, lane } => self.store_lane(f, base, *lane, value, *span)?,
                Place::Field { base, field } => self.store_field(f, base, *field, value, *span)?,
            },
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let branch = if self.eval_bool(f, cond)? {
                    then
                } else {
                    otherwise
                };
                return self.exec_block(f, branch);
            }
            Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } => loop {
                if let Some(c) = pre_cond {
                    if !self.eval_bool(f, c)? {
                        break;
                    }
                }
                match self.exec_block(f, body)? {
                    Flow::Normal => {}
                    Flow::Break(l) if l == *id => break,
                    Flow::Continue(l) if l == *id => {}
                    other => return Ok(other),
                }
                match self.exec_block(f, continuing)? {
                    Flow::Normal => {}
                    other => return Ok(other),
                }
                if let Some(c) = post_cond {
                    if !self.eval_bool(f, c)? {
                        break;
                    }
                }
            },
            Stmt::Break(id) => return Ok(Flow::Break(*id)),
            Stmt::Continue(id) => return Ok(Flow::Continue(*id)),
            Stmt::Return(value, _) => {
                let v = match value {
                    Some(e) => self.eval(f, e)?,
                    None => Value::Void,
                };
                return Ok(Flow::Return(v));
            }
        }
        Ok(Flow::Normal)
    }

    /// Evaluates an expression that must yield a scalar.
    ///
    /// Scalar-typed trees (the bulk of loop conditions, indices and arithmetic) are
    /// evaluated here directly, without wrapping each intermediate in a [`Value`].
    pub fn eval_scalar(&mut self, f: &mut Frame, e: &Expr) -> Result<Scalar, Fail> {
        match &e.kind {
            ExprKind::Const(c) => match e.ty.as_scalar().and_then(|s| Scalar::from_constant(*c, s))
            {
                Some(s) => Ok(s),
                None => internal(e.span, format!("constant {c:?} of type {}", e.ty)),
            },
            ExprKind::Load(Place::Local(id)) => match f.get(id.0) {
                Some(Value::Scalar(s)) => Ok(*s),
                _ => self.eval_scalar_slow(f, e),
            },
            ExprKind::Binary(op, a, b) if matches!(a.ty, Type::Scalar(_)) => {
                let x = self.eval_scalar(f, a)?;
                let y = self.eval_scalar(f, b)?;
                ops::binary(*op, x, y).or_else(|o| {
                    let what = if *op == BinaryOp::Rem {
                        "remainder"
                    } else {
                        "division"
                    };
                    op_error(o, e.span, what, || {
                        format!("operator {op:?} on {} and {}", x.ty(), y.ty())
                    })
                })
            }
            ExprKind::Unary(op, x) => {
                let x = self.eval_scalar(f, x)?;
                ops::unary(*op, x).or_else(|o| {
                    op_error(o, e.span, "", || format!("operator {op:?} on {}", x.ty()))
                })
            }
            ExprKind::Convert(x) => {
                let v = self.eval_scalar(f, x)?;
                match e.ty.as_scalar() {
                    Some(to) => ops::convert(v, to).or_else(|o| {
                        op_error(o, e.span, "", || {
                            format!("conversion of {} to {to}", v.ty())
                        })
                    }),
                    None => internal(e.span, format!("conversion to {}", e.ty)),
                }
            }
            _ => self.eval_scalar_slow(f, e),
        }
    }

    fn eval_scalar_slow(&mut self, f: &mut Frame, e: &Expr) -> Result<Scalar, Fail> {
        super::operands::scalar_of(self.eval(f, e)?, e)
    }

    /// Evaluates a boolean condition.
    pub fn eval_bool(&mut self, f: &mut Frame, e: &Expr) -> Result<bool, Fail> {
        match self.eval_scalar(f, e)? {
            Scalar::Bool(b) => Ok(b),
            other => internal(e.span, format!("condition of type {}", other.ty())),
        }
    }

    /// Evaluates a list of expressions in order.
    pub fn eval_all(&mut self, f: &mut Frame, es: &[Expr]) -> Result<Vec<Value>, Fail> {
        es.iter().map(|e| self.eval(f, e)).collect()
    }

    /// Evaluates an expression.
    ///
    /// Each arm delegates to a helper so that this function's own stack frame stays small:
    /// it is on the native stack once per nested expression, and unoptimized builds give
    /// every arm's temporaries their own slot.
    pub fn eval(&mut self, f: &mut Frame, e: &Expr) -> Result<Value, Fail> {
        match &e.kind {
            ExprKind::Const(c) => constant(c, e),
            ExprKind::Str(s) => Ok(Value::str(s)),
            ExprKind::Load(Place::Local(id)) => load_local(f, *id, e),
            ExprKind::Load(Place::Index { base, index }) => self.eval_index(f, base, index, e),
            ExprKind::Load(Place::Lane { base, lane }) => self.load_lane(f, base, *lane, e),
            ExprKind::Load(Place::Field { base, field }) => self.load_field(f, base, *field, e),
            ExprKind::Construct(parts) => self.eval_construct(f, parts, e),
            ExprKind::Splat(a) => self.eval_splat(f, a, e),
            ExprKind::Swizzle(a, lanes) => self.eval_swizzle(f, a, lanes, e),
            ExprKind::Unary(op, a) if !matches!(a.ty, Type::Scalar(_)) => {
                self.eval_vector_unary(f, *op, a, e)
            }
            ExprKind::Unary(..) | ExprKind::Convert(_) => self.eval_scalar(f, e).map(Value::Scalar),
            ExprKind::Binary(op, a, b) => match a.ty {
                Type::Scalar(_) => self.eval_scalar(f, e).map(Value::Scalar),
                Type::Vector(..) | Type::Matrix(..) => self.eval_vector_binary(f, *op, a, b, e),
                _ => self.eval_binary(f, *op, a, b, e),
            },
            ExprKind::LogicalAnd(a, b) => self.eval_logical(f, true, a, b),
            ExprKind::LogicalOr(a, b) => self.eval_logical(f, false, a, b),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let arm = if self.eval_bool(f, cond)? {
                    then
                } else {
                    otherwise
                };
                self.eval(f, arm)
            }
            ExprKind::Call { func, args } => self.eval_call(f, *func, args, e),
            ExprKind::Intrinsic { op, args } => self.intrinsic(f, *op, args, e),
            ExprKind::Host { op, args } => self.host_op(f, *op, args, e),
            ExprKind::Launch(launch) => self.launch(f, launch, e.span),
            ExprKind::Sequence(stmts, value) => self.eval_sequence(f, stmts, value, e),
        }
    }

    fn eval_index(
        &mut self,
        f: &mut Frame,
        base: &Expr,
        index: &Expr,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let b = self.eval(f, base)?;
        let i = self.eval_scalar(f, index)?;
        load_element(&b, i, e.span)
    }

    /// `==` / `!=` on strings and objects (scalar operands take [`Self::eval_scalar`]).
    fn eval_binary(
        &mut self,
        f: &mut Frame,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let a = self.eval(f, a)?;
        let b = self.eval(f, b)?;
        match op {
            BinaryOp::Eq => Ok(Value::Scalar(Scalar::Bool(a.same(&b)))),
            BinaryOp::Ne => Ok(Value::Scalar(Scalar::Bool(!a.same(&b)))),
            _ => internal(e.span, format!("operator {op:?} on {a:?} and {b:?}")),
        }
    }

    /// `&&` (`is_and`) or `||`, evaluating `b` only when it decides the result.
    fn eval_logical(
        &mut self,
        f: &mut Frame,
        is_and: bool,
        a: &Expr,
        b: &Expr,
    ) -> Result<Value, Fail> {
        let r = if is_and {
            self.eval_bool(f, a)? && self.eval_bool(f, b)?
        } else {
            self.eval_bool(f, a)? || self.eval_bool(f, b)?
        };
        Ok(Value::Scalar(Scalar::Bool(r)))
    }

    fn eval_call(
        &mut self,
        f: &mut Frame,
        func: FunctionId,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let args = self.eval_all(f, args)?;
        self.call(func, args, e.span)
    }

    fn eval_sequence(
        &mut self,
        f: &mut Frame,
        stmts: &Block,
        value: &Expr,
        e: &Expr,
    ) -> Result<Value, Fail> {
        match self.exec_block(f, stmts)? {
            Flow::Normal => self.eval(f, value),
            _ => internal(e.span, "control flow out of an expression"),
        }
    }

    /// Device intrinsics that also make sense on the host: `Math.*` and the resource
    /// queries. Thread ids, image loads and stores exist only inside kernels.
    fn intrinsic(
        &mut self,
        f: &mut Frame,
        op: Intrinsic,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        match op {
            Intrinsic::Math(_)
            | Intrinsic::Bits(_)
            | Intrinsic::BitCast(_)
            | Intrinsic::Vector(_)
            | Intrinsic::IntDot { .. }
            | Intrinsic::IntPrecision(_) => {
                let xs = self.eval_all(f, args)?;
                super::vector_ops::intrinsic_values(op, xs, e)
            }
            Intrinsic::BufferLength | Intrinsic::BufferLength64 => {
                self.host_op(f, crate::ir::HostOp::BufferLength, args, e)
            }
            Intrinsic::ImageWidth => self.host_op(f, crate::ir::HostOp::ImageWidth, args, e),
            Intrinsic::ImageHeight => self.host_op(f, crate::ir::HostOp::ImageHeight, args, e),
            other => err(
                e.span,
                format!("{other:?} is only available inside kernels, not in host code"),
            ),
        }
    }
}

/// Maps an arithmetic failure to a runtime error at `span`; `what` names the operation
/// for division by zero ("division" or "remainder").
pub(super) fn op_error<T>(
    e: OpError,
    span: Span,
    what: &str,
    operands: impl FnOnce() -> String,
) -> Result<T, Fail> {
    match e {
        OpError::DivisionByZero => err(span, format!("integer {what} by zero")),
        OpError::Unsupported => internal(span, operands()),
    }
}

fn constant(c: &Constant, e: &Expr) -> Result<Value, Fail> {
    match e.ty.as_scalar().and_then(|s| Scalar::from_constant(*c, s)) {
        Some(s) => Ok(Value::Scalar(s)),
        None => internal(e.span, format!("constant {c:?} of type {}", e.ty)),
    }
}

impl<'a> Interp<'a> {
    /// The source name of the local `e` reads (`b` of `b.upload(a)`), for runtime error
    /// messages. The function is found by the address of `e` in the module (both
    /// executors evaluate the module's own nodes), which walks the program: error paths
    /// only.
    pub(super) fn local_name(&self, e: &Expr) -> Option<&'a str> {
        let ExprKind::Load(Place::Local(id)) = &e.kind else {
            return None;
        };
        let module: &'a Module = self.module;
        let func = module.functions.iter().find(|func| {
            crate::ir::visit::find_expr(&func.body, &|x| std::ptr::eq(x, e)).is_some()
        })?;
        let name = func.locals.get(id.0)?.name.as_str();
        (!name.starts_with('$')).then_some(name)
    }
}

pub(super) fn load_local(f: &Frame, id: LocalId, e: &Expr) -> Result<Value, Fail> {
    match f.get(id.0) {
        Some(v) => Ok(v.clone()),
        None => internal(e.span, format!("unknown local #{}", id.0)),
    }
}

pub(super) fn local_mut(f: &mut Frame, id: LocalId, span: Span) -> Result<&mut Value, Fail> {
    match f.get_mut(id.0) {
        Some(v) => Ok(v),
        None => internal(span, format!("unknown local #{}", id.0)),
    }
}

/// Checks an array index (any integer type) against `len`.
pub fn check_index(i: Scalar, len: usize, span: Span) -> Result<usize, Fail> {
    let Some(x) = i.as_int() else {
        return internal(span, format!("index of type {}", i.ty()));
    };
    if x < 0 || x >= len as i128 {
        return err(
            span,
            format!("array index {x} out of bounds for length {len}"),
        );
    }
    Ok(x as usize)
}

/// Element `i` of the array `base`.
pub(crate) fn load_element(base: &Value, i: Scalar, span: Span) -> Result<Value, Fail> {
    match base {
        Value::Array(a) => {
            let Ok(a) = a.try_borrow() else {
                return internal(span, "array is being written");
            };
            let idx = check_index(i, a.len(), span)?;
            match a.get(idx) {
                Some(v) => Ok(v),
                None => internal(span, "index checked but missing"),
            }
        }
        Value::Buffer(_) => err(
            span,
            "KernelBuffer elements live on the device: download() them into a host array to read them",
        ),
        Value::Void => err(span, "indexing a null array"),
        other => internal(span, format!("indexing {other:?}")),
    }
}

/// `base[i] = v`.
pub(crate) fn store_element(base: &Value, i: Scalar, v: Value, span: Span) -> Result<(), Fail> {
    match base {
        Value::Array(a) => {
            let Ok(mut a) = a.try_borrow_mut() else {
                return internal(span, "array is borrowed");
            };
            let idx = check_index(i, a.len(), span)?;
            a.set(idx, v).or_else(|m| internal(span, m))
        }
        Value::Buffer(_) => err(
            span,
            "KernelBuffer elements live on the device: fill a host array and upload() it",
        ),
        Value::Void => err(span, "indexing a null array"),
        other => internal(span, format!("indexing {other:?}")),
    }
}

/// The element type of an array type.
pub fn array_elem(ty: &Type, span: Span) -> Result<&Type, Fail> {
    match ty {
        Type::Array(t) => Ok(t),
        other => internal(span, format!("expected an array type, found {other}")),
    }
}

/// A new array value of element type `elem`.
pub fn new_array(elem: &Type, len: usize, span: Span) -> Result<Value, Fail> {
    Array::new(elem, len)
        .map(Value::array)
        .or_else(|m| err(span, m))
}
