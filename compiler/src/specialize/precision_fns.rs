//! The explicit `Precision.*` functions of SPEC §8 (ncnn's `buffer_ld1`, `buffer_st4`,
//! `buffer_cp1to4` …): each desugars to the symbolic loads, stores and conversions that the
//! implicit forms (`buf[i]`, `buf[i] = v`) produce, so both spellings share one lowering.

use super::precision_codec::{conv, elem_type, index_load, index_store, lane, mk, Builder};
use crate::diagnostics::Span;
use crate::ir::{Expr, ExprKind, PrecisionFn, ScalarType, Stmt, Type};

/// The arithmetic (`afp`) type with the lanes of `t`.
fn afp_like(t: &Type) -> Type {
    match t {
        Type::Vector(_, n) => Type::Vector(ScalarType::Afp, *n),
        _ => Type::Scalar(ScalarType::Afp),
    }
}

/// The value-returning functions, as symbolic IR; `None` for the packing operations, which
/// the backends implement.
pub(super) fn desugar_expr(f: PrecisionFn, args: Vec<Expr>, ty: &Type, span: Span) -> Option<Expr> {
    let mut args = args.into_iter();
    match f {
        PrecisionFn::Ld1 | PrecisionFn::Ld2 | PrecisionFn::Ld4 => {
            let (b, i) = (args.next()?, args.next()?);
            Some(conv(index_load(&b, i), ty))
        }
        PrecisionFn::Lfp2afp | PrecisionFn::Afp2lfp => {
            let v = args.next()?;
            let _ = span;
            Some(conv(v, ty))
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
            vec![index_store(
                buf,
                i.clone(),
                conv(v.clone(), &elem_type(buf)),
                span,
            )]
        }
        // Same element types: the value moves as bits.
        (PrecisionFn::Cp1 | PrecisionFn::Cp2 | PrecisionFn::Cp4, [dst, i, src, j]) => {
            vec![index_store(
                dst,
                i.clone(),
                index_load(src, j.clone()),
                span,
            )]
        }
        (PrecisionFn::Sm1 | PrecisionFn::Sm4, [t, i, buf, j]) => {
            let v = index_load(buf, j.clone());
            let a = conv(v.clone(), &afp_like(&v.ty));
            vec![index_store(t, i.clone(), conv(a, &elem_type(t)), span)]
        }
        (PrecisionFn::Cp1to4, [dst, i, src, j]) => {
            let j = b.bind(j.clone(), pre);
            let lanes = (0..4)
                .map(|k| conv(index_load(src, lane(&j, k)), &Type::Scalar(ScalarType::Afp)))
                .collect();
            let v = mk(
                ExprKind::Construct(lanes),
                Type::Vector(ScalarType::Afp, 4),
                span,
            );
            vec![index_store(dst, i.clone(), conv(v, &elem_type(dst)), span)]
        }
        (PrecisionFn::Cp4to1, [dst, i, src, j]) => {
            let i = b.bind(i.clone(), pre);
            let v = conv(
                index_load(src, j.clone()),
                &Type::Vector(ScalarType::Afp, 4),
            );
            let v = b.bind(v, pre);
            (0..4)
                .map(|k| {
                    let x = conv(lane(&v, k), &elem_type(dst));
                    index_store(dst, lane(&i, k), x, span)
                })
                .collect()
        }
        _ => return None,
    })
}
