//! The explicit `Precision.*` functions of SPEC §8 (ncnn's `buffer_ld1`, `buffer_st4`,
//! `buffer_cp1to4` …): each desugars to the symbolic loads, stores and conversions that the
//! implicit forms (`buf[i]`, `buf[i] = v`) produce, so both spellings share one lowering.

use super::precision_codec::{mk, Builder};
use crate::diagnostics::Span;
use crate::ir::{Expr, ExprKind, Place, PrecisionFn, ScalarType, Stmt, Type};

/// The element type of a buffer or shared-array expression.
fn elem(e: &Expr) -> Type {
    match &e.ty {
        Type::Buffer(t) | Type::Shared(t) => (**t).clone(),
        other => other.clone(),
    }
}

/// `base[index]` as a symbolic load.
fn load(base: &Expr, index: Expr) -> Expr {
    let span = index.span;
    mk(
        ExprKind::Load(Place::Index {
            base: Box::new(base.clone()),
            index: Box::new(index),
        }),
        elem(base),
        span,
    )
}

/// `base[index] = value` (value already of the element type).
fn store(base: &Expr, index: Expr, value: Expr, span: Span) -> Stmt {
    Stmt::Store {
        place: Place::Index {
            base: Box::new(base.clone()),
            index: Box::new(index),
        },
        value,
        span,
    }
}

/// `e` converted to `to` (a symbolic `Convert`, resolved by the precision pass).
fn to(e: Expr, to: Type) -> Expr {
    if e.ty == to {
        return e;
    }
    let span = e.span;
    mk(ExprKind::Convert(Box::new(e)), to, span)
}

/// The arithmetic (`afp`) type with the lanes of `t`.
fn afp_like(t: &Type) -> Type {
    match t {
        Type::Vector(_, n) => Type::Vector(ScalarType::Afp, *n),
        _ => Type::Scalar(ScalarType::Afp),
    }
}

/// Lane `k` of `v`.
fn lane(v: &Expr, k: u8) -> Expr {
    let s = v.ty.elem_scalar().unwrap_or(ScalarType::U32);
    mk(
        ExprKind::Swizzle(Box::new(v.clone()), vec![k]),
        Type::Scalar(s),
        v.span,
    )
}

/// The value-returning functions, as symbolic IR; `None` for the packing operations, which
/// the backends implement.
pub(super) fn desugar_expr(f: PrecisionFn, args: Vec<Expr>, ty: &Type, span: Span) -> Option<Expr> {
    let mut args = args.into_iter();
    match f {
        PrecisionFn::Ld1 | PrecisionFn::Ld2 | PrecisionFn::Ld4 => {
            let (b, i) = (args.next()?, args.next()?);
            Some(to(load(&b, i), ty.clone()))
        }
        PrecisionFn::Lfp2afp | PrecisionFn::Afp2lfp => {
            let v = args.next()?;
            let _ = span;
            Some(to(v, ty.clone()))
        }
        _ => None,
    }
}

/// The storing functions, as symbolic stores; `None` for the value-returning ones.
pub(super) fn desugar_stmt(
    b: &mut Builder<'_>,
    f: PrecisionFn,
    args: &[Expr],
    span: Span,
    pre: &mut Vec<Stmt>,
) -> Option<Vec<Stmt>> {
    Some(match (f, args) {
        (PrecisionFn::St1 | PrecisionFn::St2 | PrecisionFn::St4, [buf, i, v]) => {
            vec![store(buf, i.clone(), to(v.clone(), elem(buf)), span)]
        }
        // Same element types: the value moves as bits.
        (PrecisionFn::Cp1 | PrecisionFn::Cp4, [dst, i, src, j]) => {
            vec![store(dst, i.clone(), load(src, j.clone()), span)]
        }
        (PrecisionFn::Sm1 | PrecisionFn::Sm4, [t, i, buf, j]) => {
            let v = load(buf, j.clone());
            let a = to(v.clone(), afp_like(&v.ty));
            vec![store(t, i.clone(), to(a, elem(t)), span)]
        }
        (PrecisionFn::Cp1to4, [dst, i, src, j]) => {
            let j = b.bind(j.clone(), pre);
            let lanes = (0..4)
                .map(|k| to(load(src, lane(&j, k)), Type::Scalar(ScalarType::Afp)))
                .collect();
            let v = mk(
                ExprKind::Construct(lanes),
                Type::Vector(ScalarType::Afp, 4),
                span,
            );
            vec![store(dst, i.clone(), to(v, elem(dst)), span)]
        }
        (PrecisionFn::Cp4to1, [dst, i, src, j]) => {
            let i = b.bind(i.clone(), pre);
            let v = to(load(src, j.clone()), Type::Vector(ScalarType::Afp, 4));
            let v = b.bind(v, pre);
            (0..4)
                .map(|k| {
                    let x = to(lane(&v, k), elem(dst));
                    store(dst, lane(&i, k), x, span)
                })
                .collect()
        }
        _ => return None,
    })
}
