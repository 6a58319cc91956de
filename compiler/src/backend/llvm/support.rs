//! The subset of host code the native backend lowers, decided before any LLVM IR is built.
//!
//! A program runs natively only when every host function reachable from its entry point
//! stays inside the subset; the first construct outside it (in source order, functions in
//! call-discovery order) is the [`Unsupported`] reason, so the decision and the message are
//! deterministic. The subset (docs/architecture.md, "Host code"):
//! - types: `boolean`, `int8`..`int64`, `uint8`..`uint64`, `float16`, `float32`, `float64`
//!   and `String` values;
//! - locals, every statement form, calls and recursion between host functions;
//! - scalar arithmetic, comparisons, conversions, `&&`/`||`/`?:`, string `==`/`!=`;
//! - `System.out.print`/`println` of scalars and strings, `String.valueOf` and string `+`.
//!
//! Everything else (arrays, device work, files, `Math.*`, vectors, `printf`…) falls back to
//! the interpreter.

use std::collections::HashSet;

use crate::diagnostics::{SourceMap, Span};
use crate::ir::{
    Block, Expr, ExprKind, Function, FunctionId, FunctionKind, HostOp, Module, Place, ScalarType,
    Stmt, Type,
};

/// Why a program cannot run natively: the first construct outside the subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// `Class.method` of the host function that uses it.
    pub function: String,
    /// The construct, in words (`array indexing`, `Math.sqrt`, …).
    pub what: String,
    /// Where it is.
    pub span: Span,
}

impl Unsupported {
    /// `file:line:col: `Class.f` uses <what>, which native host code does not support yet`.
    pub fn render(&self, sources: &SourceMap) -> String {
        format!(
            "{}: `{}` uses {}, which native host code does not support yet",
            sources.position(self.span),
            self.function,
            self.what
        )
    }
}

/// True for the scalar types the backend has an exact lowering for. `bfloat16` is left out:
/// its rounding after every operation has no LLVM type that matches the interpreter's.
pub fn scalar_supported(s: ScalarType) -> bool {
    s == ScalarType::Bool
        || s.is_integer() && !s.is_precision()
        || matches!(s, ScalarType::F16 | ScalarType::F32 | ScalarType::F64)
}

/// True for the value types native code can hold in a local, pass and return.
pub fn type_supported(ty: &Type) -> bool {
    match ty {
        Type::Scalar(s) => scalar_supported(*s),
        Type::String | Type::Void => true,
        _ => false,
    }
}

/// The host functions reachable from `entry` (entry first), or why one of them is outside
/// the subset.
pub fn reachable(module: &Module, entry: FunctionId) -> Result<Vec<FunctionId>, Unsupported> {
    let mut order = vec![entry];
    let mut seen: HashSet<FunctionId> = order.iter().copied().collect();
    let mut next = 0;
    while let Some(&id) = order.get(next) {
        next += 1;
        let f = module.function(id);
        let mut check = Checker {
            module,
            func: f,
            calls: Vec::new(),
        };
        check.signature(id == entry)?;
        check.block(&f.body)?;
        for callee in check.calls {
            if seen.insert(callee) {
                order.push(callee);
            }
        }
    }
    Ok(order)
}

/// Walks one function's body.
struct Checker<'a> {
    module: &'a Module,
    func: &'a Function,
    /// Callees, in source order.
    calls: Vec<FunctionId>,
}

impl Checker<'_> {
    fn refuse<T>(&self, what: impl Into<String>, span: Span) -> Result<T, Unsupported> {
        Err(Unsupported {
            function: self.func.qualified_name.clone(),
            what: what.into(),
            span,
        })
    }

    fn ty(&self, ty: &Type, span: Span) -> Result<(), Unsupported> {
        if type_supported(ty) {
            Ok(())
        } else {
            self.refuse(format!("a value of type `{ty}`"), span)
        }
    }

    /// Parameter and return types. The entry's `String[] args` is allowed as long as it is
    /// never read (reading it is an array load, refused below): native code passes null.
    fn signature(&self, is_entry: bool) -> Result<(), Unsupported> {
        let f = self.func;
        if f.kind != FunctionKind::Host {
            return self.refuse("a call of a kernel or device function", f.span);
        }
        self.ty(&f.return_type, f.span)?;
        for p in f.params() {
            let args_param = is_entry && p.ty == Type::Array(Box::new(Type::String));
            if !args_param {
                self.ty(&p.ty, p.span)?;
            }
        }
        Ok(())
    }

    fn block(&mut self, block: &Block) -> Result<(), Unsupported> {
        block.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<(), Unsupported> {
        match stmt {
            Stmt::Expr(e) => self.expr(e),
            Stmt::Store { place, value, span } => {
                self.place(place, *span)?;
                self.expr(value)
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond)?;
                self.block(then)?;
                self.block(otherwise)
            }
            Stmt::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
                ..
            } => {
                if let Some(c) = pre_cond {
                    self.expr(c)?;
                }
                self.block(body)?;
                self.block(continuing)?;
                post_cond.as_ref().map_or(Ok(()), |c| self.expr(c))
            }
            Stmt::Break(_) | Stmt::Continue(_) => Ok(()),
            Stmt::Return(value, _) => value.as_ref().map_or(Ok(()), |v| self.expr(v)),
        }
    }

    /// Only whole locals of a supported type are places.
    fn place(&self, place: &Place, span: Span) -> Result<(), Unsupported> {
        match place {
            Place::Local(id) => match self.func.locals.get(id.0) {
                Some(l) => self.ty(&l.ty, span),
                None => self.refuse("an unknown local", span),
            },
            Place::Index { .. } => self.refuse("array indexing", span),
            Place::Field { .. } => self.refuse("a struct field", span),
            Place::Lane { .. } => self.refuse("a vector lane", span),
        }
    }

    fn exprs(&mut self, es: &[Expr]) -> Result<(), Unsupported> {
        es.iter().try_for_each(|e| self.expr(e))
    }

    fn expr(&mut self, e: &Expr) -> Result<(), Unsupported> {
        self.ty(&e.ty, e.span)?;
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Str(_) => Ok(()),
            ExprKind::Load(p) => self.place(p, e.span),
            ExprKind::Unary(_, a) | ExprKind::Convert(a) => self.expr(a),
            ExprKind::Binary(op, a, b) => {
                if a.ty == Type::String
                    && !matches!(op, crate::ir::BinaryOp::Eq | crate::ir::BinaryOp::Ne)
                {
                    return self.refuse(format!("operator {op:?} on strings"), e.span);
                }
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond)?;
                self.expr(then)?;
                self.expr(otherwise)
            }
            ExprKind::Call { func, args } => {
                let callee = self.module.functions.get(func.0);
                if callee.is_none_or(|c| c.kind != FunctionKind::Host) {
                    return self.refuse("a call of a kernel or device function", e.span);
                }
                self.exprs(args)?;
                self.calls.push(*func);
                Ok(())
            }
            ExprKind::Host { op, args } => match op {
                HostOp::Print | HostOp::Println | HostOp::Concat | HostOp::ToString => {
                    self.exprs(args)
                }
                other => self.refuse(format!("the host operation {other:?}"), e.span),
            },
            ExprKind::Sequence(stmts, value) => {
                self.block(stmts)?;
                self.expr(value)
            }
            ExprKind::Intrinsic { op, .. } => self.refuse(format!("the intrinsic {op:?}"), e.span),
            ExprKind::Launch(_) => self.refuse("a kernel launch", e.span),
            ExprKind::Construct(_) | ExprKind::Splat(_) | ExprKind::Swizzle(..) => {
                self.refuse("a vector or matrix", e.span)
            }
        }
    }
}
