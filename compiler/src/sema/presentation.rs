//! Cajeta's presentation types, `RenderGraph` and `Swapchain` ([`Type::Presentation`]).
//!
//! cajetac runs compute headless (lavapipe in CI, no display), so it can make no value of
//! either. A program may still declare them — a local (uninitialized or `= null`), a
//! parameter, a return type — so that Cajeta code that only mentions them compiles; each
//! such declaration is warning W0001. Making one (`heap Swapchain(…)`, `RenderGraph.create()`)
//! or calling a method on one is E0024 with the same help.

use super::body::FnCtx;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, PresentationType, Type};
use crate::syntax::ast;

/// What to write instead of presenting a frame, the help of W0001 and of the E0024s here.
const HELP: &str = "presentation needs a window; cajetac runs headless: render into \
     an Image2D and save it (`img.save(\"frame.png\")`)";

/// W0001 for a declaration of presentation type `p` at `span`.
pub(super) fn headless_warning(p: PresentationType, span: Span) -> Diagnostic {
    Diagnostic::warning(
        Code::HeadlessPresentation,
        span,
        format!(
            "`{}` is accepted as a type only: no value of it can be made",
            p.class_name()
        ),
    )
    .with_label("always null here")
    .with_note(format!("help: {HELP}"))
}

/// E0024 for making or using a value of presentation type `p`, or its class: `what` says
/// which (`construct a`, `call \`present\` on a`, `use the class`).
pub(super) fn refused(p: PresentationType, span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::UnsupportedFeature,
        span,
        format!(
            "cannot {what} `{}`: cajetac makes no presentation values",
            p.class_name()
        ),
    )
    .with_label("needs a window")
    .with_note(format!("help: {HELP}"))
}

/// W0001 for each parameter and the return type of `f` that is a presentation type.
pub(super) fn signature_warnings(f: &super::names::UserFunction<'_>, out: &mut Vec<Diagnostic>) {
    for (p, t) in f.decl.params.iter().zip(&f.params) {
        if let Type::Presentation(kind) = t {
            out.push(headless_warning(*kind, p.ty.span));
        }
    }
    if let Type::Presentation(kind) = f.ret {
        out.push(headless_warning(kind, f.decl.ret.span));
    }
}

/// Whether `e` is Java's `null` (a name no local declares).
fn is_null(ctx: &FnCtx<'_, '_>, e: &ast::Expr) -> bool {
    matches!(&e.kind, ast::ExprKind::Name(n) if n == "null" && ctx.lookup("null").is_none())
}

impl FnCtx<'_, '_> {
    /// `RenderGraph g = null;` (or without an initializer, or from another such local):
    /// declared with W0001. A null one is never stored: an unassigned object local is
    /// null in both host executors, and nothing else can be stored in it.
    pub(super) fn presentation_decl(
        &mut self,
        kind: PresentationType,
        ty: &ast::TypeExpr,
        decls: &[(ast::Ident, Option<ast::Expr>)],
        out: &mut ir::Block,
    ) {
        self.warnings.push(headless_warning(kind, ty.span));
        let t = Type::Presentation(kind);
        for (name, init) in decls {
            let value = match init {
                Some(e) if !is_null(self, e) => Some(
                    self.expr(e, Some(&t))
                        .and_then(|v| self.coerce(v, &t, e.span)),
                ),
                _ => None,
            };
            let Ok(id) = self.declare(name, t.clone()) else {
                continue;
            };
            if let Some(Ok(v)) = value {
                out.push(ir::Stmt::Store {
                    place: ir::Place::Local(id),
                    value: v,
                    span: name.span,
                });
            }
            // Null until assigned, and a null is all it can hold.
            self.mark_assigned(id);
        }
    }

    /// E0024 for a method call on a local of a presentation type; `None` for other
    /// receivers.
    pub(super) fn presentation_method(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
    ) -> Option<Diagnostic> {
        let ast::ExprKind::Name(n) = &recv.kind else {
            return None;
        };
        let id = self.lookup(n)?;
        let Type::Presentation(kind) = self.locals[id.0].ty else {
            return None;
        };
        Some(refused(
            kind,
            name.span,
            &format!("call `{}` on a", name.name),
        ))
    }
}
