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
    BinaryOp, Block, Expr, ExprKind, FunctionId, FunctionKind, Intrinsic, LocalId, LoopId, Module,
    Place, Stmt, Type,
};

/// Deepest nesting of host calls before the run stops with an error. The interpreter
/// thread's stack is sized for it (see `mod.rs`).
pub const MAX_CALL_DEPTH: usize = 10_000;

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

/// Shorthand for a runtime error at a span.
pub fn err<T>(span: Span, message: impl Into<String>) -> Result<T, HostError> {
    Err(HostError {
        message: message.into(),
        span: Some(span),
    })
}

/// Shorthand for an error that the IR's typing should have made impossible.
pub fn internal<T>(span: Span, what: impl std::fmt::Display) -> Result<T, HostError> {
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
}

impl<'a> Interp<'a> {
    /// A fresh interpreter.
    pub fn new(module: &'a Module, out: &'a mut dyn Write, device: Device<'a>) -> Interp<'a> {
        Interp {
            module,
            out,
            device,
            depth: 0,
        }
    }

    /// Calls host function `id` with already evaluated arguments; `span` is the call site.
    pub fn call(
        &mut self,
        id: FunctionId,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Value, HostError> {
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
    pub fn exec_block(&mut self, f: &mut Frame, block: &Block) -> Result<Flow, HostError> {
        for stmt in block {
            match self.exec_stmt(f, stmt)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_stmt(&mut self, f: &mut Frame, stmt: &Stmt) -> Result<Flow, HostError> {
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
    pub fn eval_scalar(&mut self, f: &mut Frame, e: &Expr) -> Result<Scalar, HostError> {
        match self.eval(f, e)? {
            Value::Scalar(s) => Ok(s),
            Value::Void => err(e.span, "use of a null or void value"),
            other => internal(e.span, format!("expected a scalar, found {other:?}")),
        }
    }

    /// Evaluates a boolean condition.
    pub fn eval_bool(&mut self, f: &mut Frame, e: &Expr) -> Result<bool, HostError> {
        match self.eval_scalar(f, e)? {
            Scalar::Bool(b) => Ok(b),
            other => internal(e.span, format!("condition of type {}", other.ty())),
        }
    }

    /// Evaluates a list of expressions in order.
    pub fn eval_all(&mut self, f: &mut Frame, es: &[Expr]) -> Result<Vec<Value>, HostError> {
        es.iter().map(|e| self.eval(f, e)).collect()
    }

    /// Evaluates an expression.
    pub fn eval(&mut self, f: &mut Frame, e: &Expr) -> Result<Value, HostError> {
        match &e.kind {
            ExprKind::Const(c) => match e.ty.as_scalar().and_then(|s| Scalar::from_constant(*c, s))
            {
                Some(s) => Ok(Value::Scalar(s)),
                None => internal(e.span, format!("constant {c:?} of type {}", e.ty)),
            },
            ExprKind::Str(s) => Ok(Value::str(s)),
            ExprKind::Load(Place::Local(id)) => match f.get(id.0) {
                Some(v) => Ok(v.clone()),
                None => internal(e.span, format!("unknown local #{}", id.0)),
            },
            ExprKind::Load(Place::Index { base, index }) => {
                let b = self.eval(f, base)?;
                let i = self.eval_scalar(f, index)?;
                load_element(&b, i, e.span)
            }
            ExprKind::Unary(op, x) => {
                let x = self.eval_scalar(f, x)?;
                ops::unary(*op, x)
                    .map(Value::Scalar)
                    .or_else(|o| op_error(o, e.span, ""))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.eval(f, a)?;
                let b = self.eval(f, b)?;
                match (&a, &b) {
                    (Value::Scalar(x), Value::Scalar(y)) => {
                        let what = match op {
                            BinaryOp::Rem => "remainder",
                            _ => "division",
                        };
                        ops::binary(*op, *x, *y)
                            .map(Value::Scalar)
                            .or_else(|o| op_error(o, e.span, what))
                    }
                    _ if *op == BinaryOp::Eq => Ok(Value::Scalar(Scalar::Bool(a.same(&b)))),
                    _ if *op == BinaryOp::Ne => Ok(Value::Scalar(Scalar::Bool(!a.same(&b)))),
                    _ => internal(e.span, format!("operator {op:?} on {a:?} and {b:?}")),
                }
            }
            ExprKind::LogicalAnd(a, b) => {
                let r = self.eval_bool(f, a)? && self.eval_bool(f, b)?;
                Ok(Value::Scalar(Scalar::Bool(r)))
            }
            ExprKind::LogicalOr(a, b) => {
                let r = self.eval_bool(f, a)? || self.eval_bool(f, b)?;
                Ok(Value::Scalar(Scalar::Bool(r)))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                if self.eval_bool(f, cond)? {
                    self.eval(f, then)
                } else {
                    self.eval(f, otherwise)
                }
            }
            ExprKind::Convert(x) => {
                let v = self.eval_scalar(f, x)?;
                let Some(to) = e.ty.as_scalar() else {
                    return internal(e.span, format!("conversion to {}", e.ty));
                };
                ops::convert(v, to)
                    .map(Value::Scalar)
                    .or_else(|o| op_error(o, e.span, ""))
            }
            ExprKind::Call { func, args } => {
                let args = self.eval_all(f, args)?;
                self.call(*func, args, e.span)
            }
            ExprKind::Intrinsic { op, args } => self.intrinsic(f, *op, args, e),
            ExprKind::Host { op, args } => self.host_op(f, *op, args, e),
            ExprKind::Launch(launch) => self.launch(f, launch, e.span),
            ExprKind::Sequence(stmts, value) => match self.exec_block(f, stmts)? {
                Flow::Normal => self.eval(f, value),
                _ => internal(e.span, "control flow out of an expression"),
            },
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
    ) -> Result<Value, HostError> {
        match op {
            Intrinsic::Math(m) => {
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.eval_scalar(f, a)?);
                }
                ops::math(m, &xs)
                    .map(Value::Scalar)
                    .or_else(|o| op_error(o, e.span, ""))
            }
            Intrinsic::BufferLength => self.host_op(f, crate::ir::HostOp::BufferLength, args, e),
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
fn op_error<T>(e: OpError, span: Span, what: &str) -> Result<T, HostError> {
    match e {
        OpError::DivisionByZero => err(span, format!("integer {what} by zero")),
        OpError::Internal(m) => internal(span, m),
    }
}

fn local_mut(f: &mut Frame, id: LocalId, span: Span) -> Result<&mut Value, HostError> {
    match f.get_mut(id.0) {
        Some(v) => Ok(v),
        None => internal(span, format!("unknown local #{}", id.0)),
    }
}

/// Checks an array index (any integer type) against `len`.
pub fn check_index(i: Scalar, len: usize, span: Span) -> Result<usize, HostError> {
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

fn load_element(base: &Value, i: Scalar, span: Span) -> Result<Value, HostError> {
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

fn store_element(base: &Value, i: Scalar, v: Value, span: Span) -> Result<(), HostError> {
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
pub fn array_elem(ty: &Type, span: Span) -> Result<&Type, HostError> {
    match ty {
        Type::Array(t) => Ok(t),
        other => internal(span, format!("expected an array type, found {other}")),
    }
}

/// A new array value of element type `elem`.
pub fn new_array(elem: &Type, len: usize, span: Span) -> Result<Value, HostError> {
    Array::new(elem, len)
        .map(Value::array)
        .or_else(|m| err(span, m))
}
