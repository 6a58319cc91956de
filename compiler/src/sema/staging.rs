//! Cajeta's workgroup staging copies, `CoopStage.panel` / `panelTransposed` and `AsyncCopy`,
//! as the loops they stand for: the invocations of a (one-dimensional) workgroup stride over
//! the elements, `KernelThread.x()` by `Workgroup.dimX()`, as Cajeta's own lowering does.
//! The statement is rewritten on the syntax tree, so the checks are those of the loop.
//!
//! | Cajeta | element `i` of the loop (`i < n`) |
//! |---|---|
//! | `CoopStage.panel(dst, src, rowBase, colBase, rows, cols, ld)` | `dst[i] = src[(rowBase + i / cols) * ld + colBase + i % cols]`, `n = rows * cols` |
//! | `CoopStage.panelTransposed(dst, src, rowBase, colBase, rows, cols, ld, pad)` | `dst[(i % cols) * (rows + pad) + i / cols] = src[…]` (as `panel`) |
//! | `AsyncCopy.copy(dst, dstOffset, src, srcOffset, count)` | `dst[dstOffset + i] = src[srcOffset + i]`, `n = count` |
//!
//! `AsyncCopy.copy` is synchronous here (Vulkan has no asynchronous copy into workgroup
//! memory a compute shader can issue), so `AsyncCopy.commit()` does nothing and
//! `AsyncCopy.wait(n)` only checks and evaluates `n`; the `Barrier.workgroup()` Cajeta's pattern puts
//! after the wait publishes the copied elements, as there.

use super::body::FnCtx;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir;
use crate::syntax::ast::{self, BinOp, Expr, ExprKind, Ident, Stmt, TypeExpr, TypeExprKind};

fn expr(kind: ExprKind, span: Span) -> Expr {
    Expr {
        kind,
        span,
        depth: 1,
    }
}

fn name(n: &str, span: Span) -> Expr {
    expr(ExprKind::Name(n.to_string()), span)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    expr(ExprKind::Binary(op, Box::new(a), Box::new(b)), span)
}

fn index(base: &Expr, i: Expr) -> Expr {
    expr(
        ExprKind::Index(Box::new(base.clone()), Box::new(i)),
        base.span,
    )
}

fn uint32(span: Span) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Named {
            name: "uint32".to_string(),
            args: Vec::new(),
        },
        span,
    }
}

fn call(class: &str, method: &str, span: Span) -> Expr {
    let method = Ident {
        name: method.to_string(),
        span,
    };
    expr(
        ExprKind::MethodCall(Box::new(name(class, span)), method, Vec::new()),
        span,
    )
}

/// `uint32 name = value;`
fn local(n: &str, value: Expr, span: Span) -> Stmt {
    let id = Ident {
        name: n.to_string(),
        span,
    };
    Stmt::Local {
        is_final: false,
        ty: uint32(span),
        decls: vec![(id, Some(value))],
        span,
    }
}

impl FnCtx<'_, '_> {
    /// Lowers the statement `e` when it is one of the staging copies; false otherwise.
    pub(super) fn staging_copy(&mut self, e: &Expr, out: &mut ir::Block) -> bool {
        let ExprKind::MethodCall(recv, method, args) = &e.kind else {
            return false;
        };
        let ExprKind::Name(class) = &recv.kind else {
            return false;
        };
        if class == "TileOps" && self.lookup(class).is_none() {
            self.diags.push(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    e.span,
                    format!("`TileOps.{}` is not provided: it needs the row or column of each element a lane holds of a tile, which Vulkan's cooperative matrices do not say", method.name),
                )
                .with_note("help: combine accumulators with CoopMatrix.scale and CoopMatrix.add, work element by element with m.elements()/get/set where the position does not matter, or store the tile to a Shared array and work on its elements"),
            );
            return true;
        }
        if !matches!(class.as_str(), "CoopStage" | "AsyncCopy") || self.lookup(class).is_some() {
            return false;
        }
        let v: Vec<Expr> = args.iter().map(|a| a.value.clone()).collect();
        let sp = e.span;
        if !self.is_device() {
            self.diags.push(Diagnostic::error(
                Code::DeviceOnlyInHost,
                sp,
                format!(
                    "`{class}.{}` is only available in kernels and @Device methods",
                    method.name
                ),
            ));
            return true;
        }
        // Each operand is evaluated once, into a `$`-named local, before the loop.
        let tmp = |what: &str| format!("$stage_{what}{}", sp.start);
        let mut prelude = Vec::new();
        let mut bind = |what: &str, value: &Expr| {
            let n = tmp(what);
            prelude.push(local(&n, value.clone(), value.span));
            name(&n, value.span)
        };
        let (dst, count, target, source) =
            match (class.as_str(), method.name.as_str(), v.as_slice()) {
                (
                    "CoopStage",
                    m @ ("panel" | "panelTransposed"),
                    [dst, src, row_base, col_base, rows, cols, ld, pad @ ..],
                ) if pad.len() == usize::from(m == "panelTransposed") => {
                    let (row_base, col_base) = (bind("r0", row_base), bind("c0", col_base));
                    let (rows, cols, ld) = (bind("rows", rows), bind("cols", cols), bind("ld", ld));
                    let i = || name(&tmp("i"), sp);
                    let r = bin(BinOp::Div, i(), cols.clone());
                    let c = bin(BinOp::Rem, i(), cols.clone());
                    let from = bin(
                        BinOp::Add,
                        bin(BinOp::Mul, bin(BinOp::Add, row_base, r.clone()), ld),
                        bin(BinOp::Add, col_base, c.clone()),
                    );
                    let to = match pad.first() {
                        Some(pad) => {
                            let pad = bind("pad", pad);
                            bin(
                                BinOp::Add,
                                bin(BinOp::Mul, c, bin(BinOp::Add, rows.clone(), pad)),
                                r,
                            )
                        }
                        None => i(),
                    };
                    (dst, bin(BinOp::Mul, rows, cols), to, index(src, from))
                }
                ("AsyncCopy", "copy", [dst, dst_offset, src, src_offset, count]) => {
                    let (dst_offset, src_offset) = (bind("d0", dst_offset), bind("s0", src_offset));
                    let i = || name(&tmp("i"), sp);
                    let from = index(src, bin(BinOp::Add, src_offset, i()));
                    (dst, count.clone(), bin(BinOp::Add, dst_offset, i()), from)
                }
                ("AsyncCopy", "commit", []) => return true,
                ("AsyncCopy", "wait", [n]) => {
                    // Checked and evaluated for its effects (there is nothing to wait for).
                    if let Ok(n) = self.expr(n, None) {
                        if !super::expr::is_pure(&n) {
                            out.push(ir::Stmt::Expr(n));
                        }
                    }
                    return true;
                }
                _ => return false,
            };
        let n = bind("n", &count);
        let i = || name(&tmp("i"), sp);
        let store = expr(
            ExprKind::Assign(None, Box::new(index(dst, target)), Box::new(source)),
            sp,
        );
        let lowered = Stmt::For {
            init: vec![local(&tmp("i"), call("KernelThread", "x", sp), sp)],
            cond: Some(bin(BinOp::Lt, i(), n)),
            update: vec![expr(
                ExprKind::Assign(
                    Some(BinOp::Add),
                    Box::new(i()),
                    Box::new(call("Workgroup", "dimX", sp)),
                ),
                sp,
            )],
            body: Box::new(Stmt::Expr(store)),
            span: sp,
        };
        prelude.push(lowered);
        let block = ast::Block {
            stmts: prelude,
            span: sp,
        };
        self.stmt(&Stmt::Block(block), out);
        true
    }
}
