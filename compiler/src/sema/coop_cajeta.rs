//! Cajeta's cooperative matrices, `CooperativeMatrix<T, Rows, Cols, Use>` with methods that
//! write their receiver, as this project's `CoopMatrixA/B/Acc` types and `CoopMatrix.*`
//! calls:
//!
//! | Cajeta | here |
//! |---|---|
//! | `CooperativeMatrix<T, R, C, 0>` / `1` / `2` | `CoopMatrixA<T, R, C>` / `CoopMatrixB<T, R, C>` / `CoopMatrixAcc<T, R, C>` |
//! | `m.load(src, offset, layout, stride)` | `m = CoopMatrix.loadA/B/Acc(src, offset, stride, CoopLayout.X)` |
//! | `m.splat(v)` | `m = CoopMatrix.splat(v)` |
//! | `c.mma(a, b)` | `c = CoopMatrix.mulAdd(a, b, c)` |
//! | `m.store(dst, offset, layout, stride)` | `CoopMatrix.store(dst, offset, stride, m, CoopLayout.X)` |
//!
//! Vulkan's cooperative matrices multiply float16 (not float32) A and B tiles, so Cajeta's
//! `float32` A and B are float16 tiles here, converted when loaded from float32 memory (the
//! accumulator stays float32).

use std::collections::HashMap;

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, CoopUse, ScalarType, Type};
use crate::syntax::ast::{self, Expr, ExprKind, Ident, TypeArg, TypeExpr, TypeExprKind};

/// `CooperativeMatrix<T, Rows, Cols, Use>` as the `CoopMatrixA/B/Acc` type it stands for.
pub(super) fn resolve_cooperative_matrix(
    args: &[TypeArg],
    span: Span,
    generics: &HashMap<String, Type>,
) -> Result<Type, Diagnostic> {
    let [component, rows, cols, TypeArg::Int(usage, usage_span)] = args else {
        return Err(Diagnostic::error(
            Code::TypeMismatch,
            span,
            "`CooperativeMatrix` takes a component type, its rows, its columns and its use: \
             `CooperativeMatrix<float16, 16, 16, 0>` (use 0 = A, 1 = B, 2 = accumulator)",
        ));
    };
    let class = match usage.trim_end_matches(['u', 'U']) {
        "0" => "CoopMatrixA",
        "1" => "CoopMatrixB",
        "2" => "CoopMatrixAcc",
        _ => {
            return Err(Diagnostic::error(
                Code::TypeMismatch,
                *usage_span,
                "the use of a CooperativeMatrix is 0 (A), 1 (B) or 2 (accumulator)",
            ))
        }
    };
    let mut s = super::type_names::lane_type(component, span, generics)?;
    if class != "CoopMatrixAcc" && s == ScalarType::F32 {
        s = ScalarType::F16;
    }
    let component = TypeArg::Type(TypeExpr {
        kind: TypeExprKind::Named {
            name: s.to_string(),
            args: Vec::new(),
        },
        span,
    });
    super::coop::resolve_coop_type(
        class,
        &[component, rows.clone(), cols.clone()],
        span,
        generics,
    )
}

fn expr(kind: ExprKind, span: Span) -> Expr {
    Expr {
        kind,
        span,
        depth: 1,
    }
}

/// `(uint32) e` for an integer offset or stride: Cajeta's kernels pass `int32` ones (a
/// K-loop over `int32 kt`) where its methods declare `uint32`.
fn as_uint32(e: &Expr) -> Expr {
    let ty = TypeExpr {
        kind: TypeExprKind::Named {
            name: "uint32".to_string(),
            args: Vec::new(),
        },
        span: e.span,
    };
    expr(ExprKind::Cast(Box::new(ty), Box::new(e.clone())), e.span)
}

/// `CoopMatrix.method(args)`.
fn coop_call(method: &str, args: Vec<Expr>, span: Span) -> Expr {
    let name = Ident {
        name: method.to_string(),
        span,
    };
    let args = args
        .into_iter()
        .map(|value| ast::Arg { name: None, value })
        .collect();
    let class = expr(ExprKind::Name("CoopMatrix".to_string()), span);
    expr(ExprKind::MethodCall(Box::new(class), name, args), span)
}

impl FnCtx<'_, '_> {
    /// Cajeta's `m.load/splat/mma/store(…)` on a cooperative-matrix local, rewritten as the
    /// `CoopMatrix.*` call (and assignment to `m`) it stands for; `None` for anything else.
    pub(super) fn cooperative_matrix_call(
        &mut self,
        recv: &Expr,
        name: &Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        let ExprKind::Name(local) = &recv.kind else {
            return None;
        };
        let id = self.lookup(local)?;
        let Type::CoopMatrix(t) = self.locals[id.0].ty else {
            return None;
        };
        let values: Vec<Expr> = args.iter().map(|a| a.value.clone()).collect();
        let assign = |value: Expr| {
            expr(
                ExprKind::Assign(None, Box::new(recv.clone()), Box::new(value)),
                span,
            )
        };
        let rewritten = match (name.name.as_str(), values.as_slice()) {
            ("load", [src, offset, layout, stride]) => {
                let layout = match self.layout_constant(layout) {
                    Ok(l) => l,
                    Err(()) => return Some(Err(())),
                };
                let loader = match t.usage {
                    CoopUse::A => "loadA",
                    CoopUse::B => "loadB",
                    CoopUse::Acc => "loadAcc",
                };
                let args = vec![src.clone(), as_uint32(offset), as_uint32(stride), layout];
                assign(coop_call(loader, args, span))
            }
            ("splat", [v]) => assign(coop_call("splat", vec![v.clone()], span)),
            // Per-invocation elements (which ones an invocation holds is the device's choice).
            ("elements", []) => coop_call("length", vec![recv.clone()], span),
            ("get", [i]) => coop_call("element", vec![recv.clone(), as_uint32(i)], span),
            ("set", [i, v]) => assign(coop_call(
                "withElement",
                vec![recv.clone(), as_uint32(i), v.clone()],
                span,
            )),
            ("mma", [a, b]) => {
                let args = vec![a.clone(), b.clone(), recv.clone()];
                assign(coop_call("mulAdd", args, span))
            }
            ("store", [dst, offset, layout, stride]) => {
                let layout = match self.layout_constant(layout) {
                    Ok(l) => l,
                    Err(()) => return Some(Err(())),
                };
                let args = vec![
                    dst.clone(),
                    as_uint32(offset),
                    as_uint32(stride),
                    recv.clone(),
                    layout,
                ];
                coop_call("store", args, span)
            }
            _ => return None,
        };
        // Cajeta's float32 A and B tiles are float16 ones here, converted on load.
        self.coop_widening_load = name.name == "load" && t.usage != CoopUse::Acc;
        let checked = self.expr(&rewritten, None);
        self.coop_widening_load = false;
        Some(checked)
    }

    /// Cajeta's layout argument, `0` (row-major) or `1` (column-major) written as a
    /// constant, as the `CoopLayout` constant it names.
    fn layout_constant(&mut self, layout: &Expr) -> R<Expr> {
        let constant = match &layout.kind {
            ExprKind::Int(text) => match text.trim_end_matches(['u', 'U']) {
                "0" => Some("RowMajor"),
                "1" => Some("ColumnMajor"),
                _ => None,
            },
            ExprKind::Field(class, _) if matches!(&class.kind, ExprKind::Name(c) if c == "CoopLayout") => {
                return Ok(layout.clone())
            }
            _ => None,
        };
        let Some(constant) = constant else {
            return self.error(
                Diagnostic::error(
                    Code::NotConstant,
                    layout.span,
                    "a CooperativeMatrix layout is written as a constant: 0 (row-major) or 1 (column-major)",
                )
                .with_note("help: a layout chosen at run time needs two loads under an `if`"),
            );
        };
        let class = expr(ExprKind::Name("CoopLayout".to_string()), layout.span);
        let field = Ident {
            name: constant.to_string(),
            span: layout.span,
        };
        Ok(expr(ExprKind::Field(Box::new(class), field), layout.span))
    }
}
