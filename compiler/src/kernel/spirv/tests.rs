//! Unit tests of the SPIR-V backend on hand-built IR. Every module is validated with
//! `spirv-val` for Vulkan 1.1, 1.2 and 1.3 (skipped with a note when spirv-val is not
//! installed) and checked on its disassembly and reflection.

mod int_precision;
mod kernels;
mod ops;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{compile_kernel, disassemble, CompiledKernel, SpirvOptions, TargetEnv};
use crate::diagnostics::Span;
use crate::ir::*;

pub(super) const BOOL: Type = Type::Scalar(ScalarType::Bool);
pub(super) const I32: Type = Type::Scalar(ScalarType::I32);
pub(super) const U32: Type = Type::Scalar(ScalarType::U32);
pub(super) const F32: Type = Type::Scalar(ScalarType::F32);

pub(super) fn sp() -> Span {
    Span::default()
}

/// Builds one IR function.
pub(super) struct Fb {
    f: Function,
}

impl Fb {
    pub(super) fn kernel(name: &str) -> Fb {
        Fb::new(name, FunctionKind::Kernel, Type::Void)
    }

    pub(super) fn device(name: &str, ret: Type) -> Fb {
        Fb::new(name, FunctionKind::Device, ret)
    }

    fn new(name: &str, kind: FunctionKind, ret: Type) -> Fb {
        Fb {
            f: Function {
                name: name.into(),
                qualified_name: format!("Test.{name}"),
                kind,
                param_count: 0,
                locals: Vec::new(),
                return_type: ret,
                body: Vec::new(),
                fast_math: false,
                wave_width: None,
                span: sp(),
            },
        }
    }

    /// Adds a parameter (before any local) and returns a read of it.
    pub(super) fn param(&mut self, name: &str, ty: Type) -> Expr {
        assert_eq!(self.f.param_count, self.f.locals.len());
        self.f.param_count += 1;
        self.local(name, ty)
    }

    /// Adds a local and returns a read of it.
    pub(super) fn local(&mut self, name: &str, ty: Type) -> Expr {
        self.f.locals.push(Local {
            name: name.into(),
            ty: ty.clone(),
            span: sp(),
        });
        ld(LocalId(self.f.locals.len() - 1), ty)
    }

    pub(super) fn body(mut self, body: Vec<Stmt>) -> Function {
        self.f.body = body;
        self.f
    }
}

pub(super) fn expr(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: sp(),
    }
}

pub(super) fn ld(l: LocalId, ty: Type) -> Expr {
    expr(ExprKind::Load(Place::Local(l)), ty)
}

/// The local a read refers to.
pub(super) fn lid(e: &Expr) -> LocalId {
    match &e.kind {
        ExprKind::Load(Place::Local(l)) => *l,
        _ => panic!("not a local"),
    }
}

pub(super) fn u32c(v: u32) -> Expr {
    Expr::constant(Constant::Int(u64::from(v)), U32, sp())
}

pub(super) fn i32c(v: i32) -> Expr {
    Expr::constant(Constant::Int(u64::from(v as u32)), I32, sp())
}

pub(super) fn f32c(v: f32) -> Expr {
    Expr::constant(Constant::Float(f64::from(v)), F32, sp())
}

pub(super) fn boolc(v: bool) -> Expr {
    Expr::constant(Constant::Bool(v), BOOL, sp())
}

pub(super) fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() {
        BOOL
    } else {
        a.ty.clone()
    };
    expr(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

pub(super) fn and(a: Expr, b: Expr) -> Expr {
    expr(ExprKind::LogicalAnd(Box::new(a), Box::new(b)), BOOL)
}

pub(super) fn or(a: Expr, b: Expr) -> Expr {
    expr(ExprKind::LogicalOr(Box::new(a), Box::new(b)), BOOL)
}

pub(super) fn sel(c: Expr, a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    expr(
        ExprKind::Select {
            cond: Box::new(c),
            then: Box::new(a),
            otherwise: Box::new(b),
        },
        ty,
    )
}

pub(super) fn conv(e: Expr, to: ScalarType) -> Expr {
    expr(ExprKind::Convert(Box::new(e)), Type::Scalar(to))
}

pub(super) fn intr(op: Intrinsic, args: Vec<Expr>, ty: Type) -> Expr {
    expr(ExprKind::Intrinsic { op, args }, ty)
}

pub(super) fn gid(axis: Axis) -> Expr {
    intr(Intrinsic::GlobalId(axis), vec![], U32)
}

pub(super) fn call(f: usize, args: Vec<Expr>, ty: Type) -> Expr {
    expr(
        ExprKind::Call {
            func: FunctionId(f),
            args,
        },
        ty,
    )
}

/// `buf[i]` read; the element type comes from the buffer type.
pub(super) fn at(buf: &Expr, i: Expr) -> Expr {
    let Type::Buffer(elem) = &buf.ty else {
        panic!("not a buffer")
    };
    let elem = (**elem).clone();
    expr(
        ExprKind::Load(Place::Index {
            base: Box::new(buf.clone()),
            index: Box::new(i),
        }),
        elem,
    )
}

pub(super) fn set(local: &Expr, v: Expr) -> Stmt {
    Stmt::Store {
        place: Place::Local(lid(local)),
        value: v,
        span: sp(),
    }
}

pub(super) fn set_at(buf: &Expr, i: Expr, v: Expr) -> Stmt {
    Stmt::Store {
        place: Place::Index {
            base: Box::new(buf.clone()),
            index: Box::new(i),
        },
        value: v,
        span: sp(),
    }
}

pub(super) fn if_(c: Expr, then: Vec<Stmt>, otherwise: Vec<Stmt>) -> Stmt {
    Stmt::If {
        cond: c,
        then,
        otherwise,
    }
}

/// A `for`-shaped loop: `while (cond) { body } continuing { update }`.
pub(super) fn for_(id: usize, cond: Expr, body: Vec<Stmt>, update: Vec<Stmt>) -> Stmt {
    Stmt::Loop {
        id: LoopId(id),
        pre_cond: Some(cond),
        body,
        continuing: update,
        post_cond: None,
    }
}

pub(super) fn module(functions: Vec<Function>) -> Module {
    Module {
        functions,
        ..Module::default()
    }
}

/// Writes `words` to a temporary file and runs spirv-val on it; panics with its output and
/// the disassembly on failure. Returns false when spirv-val is not installed.
pub(super) fn validate(words: &[u32], env: TargetEnv) -> bool {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!("cajetac-spirv-{}-{n}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).expect("write temp file");
    let out = Command::new("spirv-val")
        .arg("--target-env")
        .arg(env.name())
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Err(_) => {
            eprintln!("note: spirv-val not found; skipping validation");
            false
        }
        Ok(out) => {
            assert!(
                out.status.success(),
                "spirv-val --target-env {} failed:\n{}{}\n{}",
                env.name(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                disassemble(words)
            );
            true
        }
    }
}

/// Compiles kernel `k` for every target env, validates each module, checks determinism and
/// returns the Vulkan 1.1 result with its disassembly.
pub(super) fn build(m: &Module, k: usize) -> (CompiledKernel, String) {
    let mut first = None;
    for env in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let opts = SpirvOptions {
            target_env: env,
            ..SpirvOptions::default()
        };
        let out = compile_kernel(m, FunctionId(k), &opts)
            .unwrap_or_else(|d| panic!("compile failed for {}: {d:?}", env.name()));
        let again = compile_kernel(m, FunctionId(k), &opts).expect("second compile");
        assert_eq!(out.words, again.words, "output is not deterministic");
        validate(&out.words, env);
        if first.is_none() {
            first = Some(out);
        }
    }
    let out = first.expect("compiled");
    let dis = disassemble(&out.words);
    (out, dis)
}

/// Compiles kernel `k` for Vulkan 1.3 and returns the disassembly.
pub(super) fn dis_vk13(m: &Module, k: usize) -> String {
    let opts = SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    disassemble(
        &compile_kernel(m, FunctionId(k), &opts)
            .expect("compile")
            .words,
    )
}

/// Number of lines whose instruction is exactly `op` (e.g. `OpImageWrite`).
pub(super) fn count_op(dis: &str, op: &str) -> usize {
    dis.lines()
        .filter(|l| {
            let inst = l.split('=').next_back().unwrap_or("").trim();
            inst.split_whitespace().next() == Some(op)
        })
        .count()
}

#[test]
fn target_env_names_round_trip() {
    for env in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        assert_eq!(TargetEnv::from_name(env.name()), Some(env));
    }
    assert_eq!(TargetEnv::from_name("vulkan1.0"), None);
    assert_eq!(TargetEnv::Vulkan1_1.spirv_version(), (1, 3));
    assert_eq!(TargetEnv::Vulkan1_2.spirv_version(), (1, 5));
    assert_eq!(TargetEnv::Vulkan1_3.spirv_version(), (1, 6));
    assert_eq!(SpirvOptions::default().target_env, TargetEnv::Vulkan1_1);
}

#[test]
fn f16_encoding() {
    use super::types::f64_to_f16_bits as h;
    assert_eq!(h(0.0), 0);
    assert_eq!(h(-0.0), 0x8000);
    assert_eq!(h(1.0), 0x3c00);
    assert_eq!(h(-2.0), 0xc000);
    assert_eq!(h(65504.0), 0x7bff);
    assert_eq!(h(f64::INFINITY), 0x7c00);
    assert_eq!(h(2f64.powi(-24)), 1);
    assert_eq!(h(0.1), 0x2e66);
    assert_eq!(h(32752.0), 0x77ff);
}
