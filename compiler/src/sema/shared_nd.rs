//! Multi-dimensional shared arrays (the seed's `shared lfp tmp[8][4][2]`):
//! `Shared<T> t = shared T[8][4][2];` is one `Workgroup` array of 8 × 4 × 2 elements in
//! row-major order (the last index varies fastest, as in C and GLSL), and `t[i][j][k]` is
//! element `(i * 4 + j) * 2 + k`.
//!
//! The grammar reads `shared T[8][4][2]` as `shared T[8]` indexed twice; the declaration
//! takes such a chain as the dimensions (each a constant expression). The local remembers
//! them, and an index chain on it of exactly that length becomes one element place. So that
//! an index beyond its own dimension never lands on another element, the flattened index is
//! the array's length (one past its end) unless every index is below its dimension:
//! unchecked that is an out-of-bounds access like any other (undefined behaviour), and
//! checked mode reports it as `index <length> out of bounds`.

use super::body::{FnCtx, R};
use super::expr::is_pure;
use super::memory::const_int;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, Constant, ExprKind, LocalId, Place, ScalarType, Type};
use crate::syntax::ast;

/// The element type and dimension expressions of `shared T[d0][d1]…` with at least two
/// dimensions.
pub fn nd_shared_init(e: &ast::Expr) -> Option<(&ast::TypeExpr, Vec<&ast::Expr>)> {
    let mut dims = Vec::new();
    let mut cur = e;
    while let ast::ExprKind::Index(base, index) = &cur.kind {
        dims.push(&**index);
        cur = base;
    }
    let ast::ExprKind::SharedArray { elem, len } = &cur.kind else {
        return None;
    };
    dims.push(&**len);
    dims.reverse();
    (dims.len() >= 2).then_some((elem, dims))
}

fn u32c(v: u64, span: Span) -> ir::Expr {
    ir::Expr::constant(Constant::Int(v), Type::Scalar(ScalarType::U32), span)
}

fn bin(op: BinaryOp, a: ir::Expr, b: ir::Expr) -> ir::Expr {
    let span = a.span;
    let ty = if op.is_comparison() {
        Type::Scalar(ScalarType::Bool)
    } else {
        a.ty.clone()
    };
    ir::Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty,
        span,
    }
}

impl FnCtx<'_, '_> {
    /// `shared T[d0][d1]…`: the array of `d0 × d1 × …` elements; the dimensions wait in
    /// `pending_shared_dims` for the declaration to attach them to its local.
    pub fn shared_array_nd(
        &mut self,
        elem: &ast::TypeExpr,
        dims: &[&ast::Expr],
        span: Span,
    ) -> R<ir::Expr> {
        // Even when a dimension is refused the local gets its rank, so that its uses
        // report nothing more.
        self.pending_shared_dims = Some(vec![1; dims.len()]);
        let mut sizes = Vec::new();
        for d in dims {
            let v = self.expr(d, Some(&Type::Scalar(ScalarType::U32)))?;
            match const_int(&v) {
                Some(n) if (1..=(1 << 20)).contains(&n) => sizes.push(n as u64),
                _ => {
                    return self.error(
                        Diagnostic::error(
                            Code::InvalidShared,
                            d.span,
                            "each dimension of a multi-dimensional shared array must be a constant from 1 to 1048576",
                        )
                        .with_note("only one-dimensional shared arrays can be sized at launch"),
                    )
                }
            }
        }
        let total: u64 = sizes.iter().product();
        if total > 1 << 20 {
            return self.error(Diagnostic::error(
                Code::InvalidShared,
                span,
                format!("a shared array needs 1 to 1048576 elements, found {total}"),
            ));
        }
        // The element type's checks and the allocation are the one-dimensional ones.
        let mut arr = self.shared_array(elem, dims[0], span)?;
        if let ExprKind::Intrinsic { args, .. } = &mut arr.kind {
            args[0] = u32c(total, span);
        }
        self.pending_shared_dims = Some(sizes);
        Ok(arr)
    }

    /// An index chain `t[i][j]…` on a multi-dimensional shared array `t`: its element place
    /// and type when the chain has as many indices as `t` has dimensions (an error when it has
    /// fewer); `None` when `e` is not such a chain (ordinary indexing applies).
    pub fn nd_shared_place(&mut self, e: &ast::Expr) -> Option<R<(Place, Type)>> {
        let mut indices = Vec::new();
        let mut cur = e;
        while let ast::ExprKind::Index(base, index) = &cur.kind {
            indices.push(&**index);
            cur = base;
        }
        let ast::ExprKind::Name(name) = &cur.kind else {
            return None;
        };
        let id = self.lookup(name)?;
        let dims = self.shared_dims.get(&id)?.clone();
        if indices.len() > dims.len() {
            // Lanes of a vector element (`t[i][j][0]`): the inner chain is the element.
            return None;
        }
        indices.reverse();
        Some(self.nd_place(id, name, &dims, &indices, e.span))
    }

    fn nd_place(
        &mut self,
        id: LocalId,
        name: &str,
        dims: &[u64],
        indices: &[&ast::Expr],
        span: Span,
    ) -> R<(Place, Type)> {
        if indices.len() < dims.len() {
            let shape: String = dims.iter().map(|d| format!("[{d}]")).collect();
            return self.error(
                Diagnostic::error(
                    Code::InvalidShared,
                    span,
                    format!(
                        "`{name}` is a {}-dimensional shared array ({shape}): index it with {} indices",
                        dims.len(),
                        dims.len()
                    ),
                )
                .with_note("a partial index (a row) is not a value"),
            );
        }
        let mut pre = Vec::new();
        let mut flat: Option<ir::Expr> = None;
        let mut in_range: Option<ir::Expr> = None;
        for (ix, &d) in indices.iter().zip(dims) {
            let v = self.expr(ix, Some(&Type::Scalar(ScalarType::U32)))?;
            let v = self.index_value(v, ix.span, true)?;
            let v = if is_pure(&v) {
                v
            } else {
                self.hoist(v, &mut pre)
            };
            let below = bin(BinaryOp::Lt, v.clone(), u32c(d, ix.span));
            in_range = Some(match in_range {
                None => below,
                Some(r) => ir::Expr {
                    kind: ExprKind::LogicalAnd(Box::new(r), Box::new(below)),
                    ty: Type::Scalar(ScalarType::Bool),
                    span,
                },
            });
            flat = Some(match flat {
                None => v,
                Some(f) => bin(BinaryOp::Add, bin(BinaryOp::Mul, f, u32c(d, ix.span)), v),
            });
        }
        let (Some(flat), Some(in_range)) = (flat, in_range) else {
            return Err(());
        };
        let mut index = ir::Expr {
            kind: ExprKind::Select {
                cond: Box::new(in_range),
                then: Box::new(flat),
                otherwise: Box::new(u32c(dims.iter().product(), span)),
            },
            ty: Type::Scalar(ScalarType::U32),
            span,
        };
        if !pre.is_empty() {
            index = ir::Expr {
                kind: ExprKind::Sequence(pre, Box::new(index)),
                ty: Type::Scalar(ScalarType::U32),
                span,
            };
        }
        let ty = self.locals[id.0].ty.clone();
        let Type::Shared(elem) = &ty else {
            return Err(());
        };
        let base = ir::Expr {
            kind: ExprKind::Load(Place::Local(id)),
            ty: ty.clone(),
            span,
        };
        Ok((
            Place::Index {
                base: Box::new(base),
                index: Box::new(index),
            },
            (**elem).clone(),
        ))
    }
}
