//! Unit tests of the host interpreter on hand-built IR. Small builder helpers construct
//! expressions and functions; `lang.rs` covers arithmetic and control flow, `runtime.rs`
//! arrays, strings, calls and the device path.

mod lang;
mod runtime;

use std::collections::HashMap;

use super::{run_host, Array, HostError, HostIo, HostOutcome, Scalar, Value};
use crate::diagnostics::{SourceMap, Span};
use crate::ir::{
    BinaryOp, Block, Constant, Expr, ExprKind, Function, FunctionId, FunctionKind, HostOp, Local,
    LocalId, LoopId, Module, Place, ScalarType, Stmt, Type, UnaryOp,
};

use ScalarType::*;

/// A span that encodes a test-chosen position (byte offset `at`).
pub fn at(at: u32) -> Span {
    Span {
        file: 0,
        start: at,
        end: at + 1,
    }
}

pub fn ty(s: ScalarType) -> Type {
    Type::Scalar(s)
}

pub fn int(s: ScalarType, v: i64) -> Expr {
    Expr::constant(Constant::Int(truncate(v as u64, s)), ty(s), at(0))
}

fn truncate(bits: u64, s: ScalarType) -> u64 {
    match s.bits() {
        64 => bits,
        w => bits & ((1u64 << w) - 1),
    }
}

pub fn i32c(v: i32) -> Expr {
    int(I32, v as i64)
}

pub fn u32c(v: u32) -> Expr {
    int(U32, v as i64)
}

pub fn f32c(v: f32) -> Expr {
    Expr::constant(Constant::Float(v as f64), ty(F32), at(0))
}

pub fn f64c(v: f64) -> Expr {
    Expr::constant(Constant::Float(v), ty(F64), at(0))
}

pub fn boolc(v: bool) -> Expr {
    Expr::constant(Constant::Bool(v), ty(Bool), at(0))
}

pub fn strc(s: &str) -> Expr {
    Expr {
        kind: ExprKind::Str(s.to_string()),
        ty: Type::String,
        span: at(0),
    }
}

pub fn load(id: usize, t: Type) -> Expr {
    Expr {
        kind: ExprKind::Load(Place::Local(LocalId(id))),
        ty: t,
        span: at(0),
    }
}

pub fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let t = if op.is_comparison() {
        ty(Bool)
    } else {
        a.ty.clone()
    };
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: t,
        span: at(0),
    }
}

pub fn un(op: UnaryOp, a: Expr) -> Expr {
    let t = a.ty.clone();
    Expr {
        kind: ExprKind::Unary(op, Box::new(a)),
        ty: t,
        span: at(0),
    }
}

pub fn conv(a: Expr, to: ScalarType) -> Expr {
    Expr {
        kind: ExprKind::Convert(Box::new(a)),
        ty: ty(to),
        span: at(0),
    }
}

pub fn with_span(mut e: Expr, span: Span) -> Expr {
    e.span = span;
    e
}

pub fn and(a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::LogicalAnd(Box::new(a), Box::new(b)),
        ty: ty(Bool),
        span: at(0),
    }
}

pub fn or(a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::LogicalOr(Box::new(a), Box::new(b)),
        ty: ty(Bool),
        span: at(0),
    }
}

pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    let t = a.ty.clone();
    Expr {
        kind: ExprKind::Select {
            cond: Box::new(c),
            then: Box::new(a),
            otherwise: Box::new(b),
        },
        ty: t,
        span: at(0),
    }
}

pub fn call(f: usize, args: Vec<Expr>, ret: Type) -> Expr {
    Expr {
        kind: ExprKind::Call {
            func: FunctionId(f),
            args,
        },
        ty: ret,
        span: at(0),
    }
}

pub fn host(op: HostOp, args: Vec<Expr>, t: Type) -> Expr {
    Expr {
        kind: ExprKind::Host { op, args },
        ty: t,
        span: at(0),
    }
}

pub fn index(base: Expr, i: Expr) -> Expr {
    let t = match &base.ty {
        Type::Array(t) => (**t).clone(),
        other => other.clone(),
    };
    Expr {
        kind: ExprKind::Load(Place::Index {
            base: Box::new(base),
            index: Box::new(i),
        }),
        ty: t,
        span: at(0),
    }
}

pub fn store(id: usize, v: Expr) -> Stmt {
    Stmt::Store {
        place: Place::Local(LocalId(id)),
        value: v,
        span: at(0),
    }
}

pub fn store_index(base: Expr, i: Expr, v: Expr, span: Span) -> Stmt {
    Stmt::Store {
        place: Place::Index {
            base: Box::new(base),
            index: Box::new(i),
        },
        value: v,
        span,
    }
}

pub fn ret(e: Expr) -> Stmt {
    Stmt::Return(Some(e), at(0))
}

pub fn if_(cond: Expr, then: Block, otherwise: Block) -> Stmt {
    Stmt::If {
        cond,
        then,
        otherwise,
    }
}

/// `local += k` for an integer local.
pub fn incr(id: usize, s: ScalarType, k: i64) -> Stmt {
    store(id, bin(BinaryOp::Add, load(id, ty(s)), int(s, k)))
}

/// `for (; pre; update) body` as the IR's loop form.
pub fn for_loop(id: usize, pre: Expr, update: Block, body: Block) -> Stmt {
    Stmt::Loop {
        id: LoopId(id),
        pre_cond: Some(pre),
        body,
        continuing: update,
        post_cond: None,
    }
}

pub fn println(e: Expr) -> Stmt {
    Stmt::Expr(host(HostOp::Println, vec![e], Type::Void))
}

/// A host function with the given parameters and locals (their types, in `LocalId` order).
pub fn func(name: &str, params: &[Type], locals: &[Type], ret: Type, body: Block) -> Function {
    let all = params.iter().chain(locals).enumerate();
    Function {
        name: name.to_string(),
        qualified_name: format!("Test.{name}"),
        kind: FunctionKind::Host,
        param_count: params.len(),
        locals: all
            .map(|(i, t)| Local {
                name: format!("l{i}"),
                ty: t.clone(),
                span: at(0),
            })
            .collect(),
        return_type: ret,
        body,
        fast_math: false,
        wave_width: None,
        span: at(0),
    }
}

/// Runs function 0 of `functions` with `args`; returns the result and the printed text.
pub fn run_fns(
    functions: Vec<Function>,
    args: &[&str],
) -> (Result<HostOutcome, HostError>, String) {
    let module = Module {
        functions,
        ..Module::default()
    };
    let mut out = Vec::new();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let result = {
        let mut io = HostIo {
            stdout: &mut out,
            context: None,
        };
        run_host(
            &module,
            FunctionId(0),
            &args,
            &HashMap::new(),
            &SourceMap::new(),
            &mut io,
        )
    };
    (result, String::from_utf8_lossy(&out).into_owned())
}

/// Evaluates `e` as the return value of a `run()` with the given locals and statements.
pub fn eval_with(locals: &[Type], stmts: Block, e: Expr) -> Result<Value, HostError> {
    let t = e.ty.clone();
    let mut body = stmts;
    body.push(ret(e));
    match run_fns(vec![func("run", &[], locals, t, body)], &[]).0? {
        HostOutcome::Returned(v) => Ok(v),
        HostOutcome::Void => panic!("expected a value"),
    }
}

/// Evaluates a closed expression.
pub fn eval(e: Expr) -> Result<Value, HostError> {
    eval_with(&[], Vec::new(), e)
}

/// Evaluates a closed expression that must succeed with a scalar.
pub fn scalar(e: Expr) -> Scalar {
    match eval(e) {
        Ok(Value::Scalar(s)) => s,
        other => panic!("expected a scalar, got {other:?}"),
    }
}
