//! The explicit integer `Precision.*` accesses of SPEC §8 (ncnn's `i8buffer_ld1`,
//! `i16buffer_st2`, `i8buffer_cp1to4` …): each desugars to the symbolic loads, stores and
//! conversions the implicit forms (`buf[i]`, `buf[i] = v`) produce, which the integer pass
//! then lowers like any other.

use super::precision_codec::{bin, conv, elem_type, index_load, index_store, lane, mk, Builder};
use crate::diagnostics::Span;
use crate::ir::{BinaryOp, Constant, Expr, ExprKind, IntPrecisionFn, ScalarType, Stmt, Type};

/// The arithmetic type an element of type `t` reads as (`sint8` → `aint8` …).
fn arith(t: &Type) -> Type {
    let read = |s: ScalarType| s.precision_arithmetic().unwrap_or(s);
    match t {
        Type::Scalar(s) => Type::Scalar(read(*s)),
        Type::Vector(s, n) => Type::Vector(read(*s), *n),
        other => other.clone(),
    }
}

/// `base[index] = value` (value converted to the element type).
fn store(base: &Expr, index: Expr, value: Expr, span: Span) -> Stmt {
    let value = conv(value, &elem_type(base));
    index_store(base, index, value, span)
}

/// `base[index]` read as its arithmetic type (`sint8` → `aint8` …).
fn read(base: &Expr, index: Expr) -> Expr {
    let e = index_load(base, index);
    let t = arith(&e.ty);
    conv(e, &t)
}

/// `i + 1` in the type of `i`.
fn next(i: &Expr) -> Expr {
    let one = Expr::constant(Constant::Int(1), i.ty.clone(), i.span);
    bin(BinaryOp::Add, i.clone(), one)
}

/// An expression-position access (`ld`, `ld2`, `sm`) as a symbolic expression; `None` for
/// the statement forms.
pub(super) fn desugar_expr(
    b: &mut Builder<'_>,
    f: IntPrecisionFn,
    args: &[Expr],
    span: Span,
) -> Option<Expr> {
    Some(match (f, args) {
        (IntPrecisionFn::Ld, [buf, i]) => read(buf, i.clone()),
        (IntPrecisionFn::Sm, [buf, i]) => index_load(buf, i.clone()),
        (IntPrecisionFn::Arith, [v]) => conv(v.clone(), &arith(&v.ty)),
        (IntPrecisionFn::Ld2, [buf, i]) => {
            let mut pre = Vec::new();
            let i = b.bind(i.clone(), &mut pre);
            let (x, y) = (read(buf, i.clone()), read(buf, next(&i)));
            let s = Type::vector_shape(&x.ty).map_or(ScalarType::Aint16, |(s, _)| s);
            let pair = mk(ExprKind::Construct(vec![x, y]), Type::Vector(s, 2), span);
            if pre.is_empty() {
                pair
            } else {
                mk(
                    ExprKind::Sequence(pre, Box::new(pair.clone())),
                    pair.ty,
                    span,
                )
            }
        }
        _ => return None,
    })
}

/// A statement-position access (`st`, `st2`, `cp`, `cp1to4`, `cp4to1`) as symbolic
/// statements; `None` for the expression forms.
pub(super) fn desugar_stmt(
    b: &mut Builder<'_>,
    f: IntPrecisionFn,
    args: &[Expr],
    span: Span,
) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    match (f, args) {
        (IntPrecisionFn::St, [buf, i, v]) => out.push(store(buf, i.clone(), v.clone(), span)),
        (IntPrecisionFn::St2, [buf, i, v]) => {
            let i = b.bind(i.clone(), &mut out);
            let v = b.bind(v.clone(), &mut out);
            out.push(store(buf, i.clone(), lane(&v, 0), span));
            out.push(store(buf, next(&i), lane(&v, 1), span));
        }
        (IntPrecisionFn::Cp, [dst, i, src, j]) => {
            out.push(store(dst, i.clone(), index_load(src, j.clone()), span));
        }
        (IntPrecisionFn::Cp1to4, [dst, i, src, j]) => {
            let j = b.bind(j.clone(), &mut out);
            let lanes: Vec<Expr> = (0..4).map(|k| read(src, lane(&j, k))).collect();
            let s = Type::vector_shape(&lanes[0].ty).map_or(ScalarType::Aint8, |(s, _)| s);
            let v = mk(ExprKind::Construct(lanes), Type::Vector(s, 4), span);
            out.push(store(dst, i.clone(), v, span));
        }
        (IntPrecisionFn::Cp4to1, [dst, i, src, j]) => {
            let i = b.bind(i.clone(), &mut out);
            let v = b.bind(read(src, j.clone()), &mut out);
            for k in 0..4 {
                out.push(store(dst, lane(&i, k), lane(&v, k), span));
            }
        }
        _ => return None,
    }
    Some(out)
}
