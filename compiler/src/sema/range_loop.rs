//! The grid-stride loop `for (uint32 i, T v : buf.range(n)) body` (SPEC §5), lowered to the
//! ordinary loop it stands for (with a `uint64` index, `$n` and `i` are `uint64`):
//!
//! ```text
//! { uint32 $n = n;
//!   for (uint32 i = KernelThread.globalIdX(); i < $n; i += KernelThread.globalSizeX()) {
//!       T v = buf[i];
//!       body
//!   } }
//! ```
//!
//! `n` is evaluated once, before the loop; `buf` must be a name (a buffer parameter or local).
//! The rewrite happens on the syntax tree, so scoping, labels, `break`/`continue` and definite
//! assignment are exactly those of a `for` loop.

use super::body::FnCtx;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, FunctionKind};
use crate::syntax::ast::{self, BinOp, Expr, ExprKind, Ident, Stmt, TypeExpr, TypeExprKind};

pub(super) fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

pub(super) fn expr(kind: ExprKind, span: Span) -> Expr {
    // The loop's parts come from the parser, so the depth is only bookkeeping here.
    Expr {
        kind,
        span,
        depth: 1,
    }
}

/// `Class.method(args)`.
pub(super) fn static_call(class: &str, method: &str, args: Vec<Expr>, span: Span) -> Expr {
    let args = args
        .into_iter()
        .map(|value| ast::Arg { name: None, value })
        .collect();
    expr(
        ExprKind::MethodCall(
            Box::new(expr(ExprKind::Name(class.to_string()), span)),
            ident(method, span),
            args,
        ),
        span,
    )
}

/// `KernelThread.<method>()`.
fn thread_call(method: &str, span: Span) -> Expr {
    static_call("KernelThread", method, Vec::new(), span)
}

/// `for (T index = start; index < <count_name>; index += step) body`: the strided loop both
/// the grid-stride form (`buf.range(n)`) and `Group.stripe(n)` lower to, over a count the
/// caller has declared as the local `count_name`.
pub(super) struct StrideLoop<'a> {
    pub(super) index: &'a Ident,
    pub(super) index_ty: TypeExpr,
    pub(super) start: Expr,
    pub(super) count_name: &'a str,
    pub(super) step: Expr,
    pub(super) body: Box<Stmt>,
}

impl StrideLoop<'_> {
    /// The `for` statement, at `span` (its parts at `sp`, the range's span).
    pub(super) fn lower(self, sp: Span, span: Span) -> Stmt {
        let index = self.index;
        let i_name = || expr(ExprKind::Name(index.name.clone()), index.span);
        Stmt::For {
            init: vec![Stmt::Local {
                is_final: false,
                ty: self.index_ty,
                decls: vec![(index.clone(), Some(self.start))],
                span: index.span,
            }],
            cond: Some(expr(
                ExprKind::Binary(
                    BinOp::Lt,
                    Box::new(i_name()),
                    Box::new(expr(ExprKind::Name(self.count_name.to_string()), sp)),
                ),
                sp,
            )),
            update: vec![expr(
                ExprKind::Assign(Some(BinOp::Add), Box::new(i_name()), Box::new(self.step)),
                sp,
            )],
            body: self.body,
            span,
        }
    }
}

impl<'s, 'a> FnCtx<'s, 'a> {
    fn range_error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Checks a grid-stride loop and lowers it as the `for` loop it stands for.
    pub(super) fn range_for(
        &mut self,
        label: Option<&ast::Ident>,
        s: &ast::Stmt,
        out: &mut ir::Block,
    ) {
        let Stmt::RangeFor {
            index: (index_ty, declarators),
            value,
            range,
            body,
            span,
        } = s
        else {
            return;
        };
        let Some((value_ty, value)) = value else {
            return self.stripe_for(label, s, out);
        };
        if self.kind != FunctionKind::Kernel {
            return self.range_error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    *span,
                    "the grid-stride loop `for (… : buf.range(n))` is only available in kernels",
                )
                .with_note("help: write the loop with KernelThread.globalIdX() and globalSizeX()"),
            );
        }
        let [(index, None)] = declarators.as_slice() else {
            return self.range_error(
                Diagnostic::error(
                    Code::SyntaxError,
                    index_ty.span,
                    "a grid-stride loop declares one index variable, without initializer: `for (uint32 i, T v : buf.range(n))`",
                ),
            );
        };
        // `uint64` counts past 2^32 elements (buffers past 4 GiB, addressed).
        let index_name = match &index_ty.kind {
            TypeExprKind::Named { name, args }
                if args.is_empty() && (name == "uint32" || name == "uint64") =>
            {
                name.clone()
            }
            _ => {
                return self.range_error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        index_ty.span,
                        "the index of a grid-stride loop is a uint32 or a uint64",
                    )
                    .with_label("not uint32 or uint64"),
                )
            }
        };
        let ExprKind::MethodCall(buf, method, args) = &range.kind else {
            return self.range_error(self.not_a_range(range.span));
        };
        let ([count], "range", ExprKind::Name(_)) =
            (args.as_slice(), method.name.as_str(), &buf.kind)
        else {
            return self.range_error(self.not_a_range(range.span));
        };
        let sp = range.span;
        let n_name = format!("$range_n{}", sp.start);
        let index_type = TypeExpr {
            kind: TypeExprKind::Named {
                name: index_name,
                args: Vec::new(),
            },
            span: index_ty.span,
        };
        let count_decl = Stmt::Local {
            is_final: false,
            ty: index_type.clone(),
            decls: vec![(ident(&n_name, count.value.span), Some(count.value.clone()))],
            span: count.value.span,
        };
        let i_name = || expr(ExprKind::Name(index.name.clone()), index.span);
        let element = Stmt::Local {
            is_final: false,
            ty: value_ty.clone(),
            decls: vec![(
                value.clone(),
                Some(expr(ExprKind::Index(buf.clone(), Box::new(i_name())), sp)),
            )],
            span: value.span,
        };
        let body_block = Stmt::Block(ast::Block {
            stmts: vec![element, (**body).clone()],
            span: body.span(),
        });
        let lowered = StrideLoop {
            index,
            index_ty: index_type,
            start: thread_call("globalIdX", sp),
            count_name: &n_name,
            step: thread_call("globalSizeX", sp),
            body: Box::new(body_block),
        }
        .lower(sp, *span);
        self.push_scope();
        self.stmt(&count_decl, out);
        self.for_loop(label, &lowered, out);
        self.pop_scope();
    }

    fn not_a_range(&self, span: Span) -> Diagnostic {
        Diagnostic::error(
            Code::TypeMismatch,
            span,
            "a grid-stride loop iterates over `buf.range(n)`, with `buf` a KernelBuffer name",
        )
        .with_label("expected `buf.range(n)`")
    }
}
