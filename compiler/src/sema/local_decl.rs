//! Local variable declarations (`T a = x, b;`): the declared type resolved and checked
//! for where a local may have it, each initializer converted to it, and the names of a
//! declaration whose type was refused bound silently.

use super::body::FnCtx;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, Type};
use crate::syntax::ast;

impl FnCtx<'_, '_> {
    /// Checks the local declaration `ty decls…` and appends its initializing stores to `out`.
    pub(super) fn local_decl(
        &mut self,
        ty: &ast::TypeExpr,
        decls: &[(ast::Ident, Option<ast::Expr>)],
        out: &mut ir::Block,
    ) {
        let t = match super::type_names::resolve_type(ty, &self.syms.pods) {
            Ok(Type::Void) => Err(Diagnostic::error(
                Code::TypeMismatch,
                ty.span,
                "a local cannot have type void",
            )),
            Ok(Type::RayQuery) if !self.is_device() => Err(Diagnostic::error(
                Code::DeviceOnlyInHost,
                ty.span,
                "a RayQuery exists only in kernels and @Device methods",
            )
            .with_note(
                "host code passes the scene to the kernel as an AccelerationStructure argument",
            )),
            Ok(t) if holds_enum(&t) => Err(enum_storage(&t, ty.span, "a local")),
            Ok(t)
                if self.is_device()
                    && (t.is_host_only() || t.is_resource() || t.is_buffer_array()) =>
            {
                let d = Diagnostic::error(
                    Code::HostOnlyInDevice,
                    ty.span,
                    format!("locals of type `{t}` are not allowed in device code"),
                )
                .with_note("device code may use scalars; resources come in as kernel parameters");
                Err(match &t {
                    // `T[] t = shared T[n]` (or `heap T[n]`): an array for scratch memory.
                    Type::Array(elem) if !t.is_buffer_array() => d.with_note(format!(
                        "help: an array in a kernel is workgroup memory, declared `Shared<{elem}> t = shared {elem}[n];`"
                    )),
                    _ => d,
                })
            }
            other => other,
        };
        let t = match t {
            Ok(t) => t,
            Err(d) => {
                self.diags.push(d);
                self.declare_unresolved(decls);
                return;
            }
        };
        if let Type::Presentation(kind) = t {
            self.presentation_decl(kind, ty, decls, out);
            return;
        }
        if let Type::Shared(_) = t {
            if !self.shared_decl_ok(ty.span, decls) {
                // Declared anyway, so that uses report nothing more.
                for (name, _) in decls {
                    if let Ok(id) = self.declare(name, t.clone()) {
                        self.mark_assigned(id);
                    }
                }
                return;
            }
        }
        for (name, init) in decls {
            let value = init.as_ref().map(|e| {
                self.expr(e, Some(&t))
                    .and_then(|v| self.coerce(v, &t, e.span))
            });
            // Only this initializer's own `shared T[a][b]…` leaves dimensions to take.
            let nd = init
                .as_ref()
                .is_some_and(|e| super::shared_nd::nd_shared_init(e).is_some());
            let dims = self.pending_shared_dims.take().filter(|_| nd);
            let Ok(id) = self.declare(name, t.clone()) else {
                continue;
            };
            if let Some(dims) = dims {
                self.shared_dims.insert(id, dims);
            }
            match value {
                Some(Ok(v)) if matches!(t, Type::Wide(..)) => {
                    if let Ok(stores) = self.store_wide(id, v, name.span) {
                        out.extend(stores);
                    }
                    self.mark_assigned(id);
                }
                Some(Ok(v)) => {
                    out.push(ir::Stmt::Store {
                        place: ir::Place::Local(id),
                        value: v,
                        span: name.span,
                    });
                    self.mark_assigned(id);
                }
                // A failed initializer still counts as assigned, to avoid a second error.
                Some(Err(())) => self.mark_assigned(id),
                None => {}
            }
        }
    }

    /// Declares the names of a local declaration whose type was refused (the error is
    /// already reported): each name is bound, assigned and marked unresolved, so that its
    /// later uses are silent instead of one `cannot find` each. The initializers are not
    /// checked: without the declared type they would mostly repeat the same error.
    fn declare_unresolved(&mut self, decls: &[(ast::Ident, Option<ast::Expr>)]) {
        for (name, _) in decls {
            if let Ok(id) = self.declare(name, Type::Void) {
                self.mark_assigned(id);
                self.unresolved.insert(id);
            }
        }
    }
}

/// Whether values of `t` are values of a stdlib enum-like class (`MemoryOrder`,
/// `MemoryKind`, …), alone or as array elements.
pub(super) fn holds_enum(t: &Type) -> bool {
    match t {
        Type::Enum(_) => true,
        Type::Array(e) => holds_enum(e),
        _ => false,
    }
}

/// The refusal of storage (`what`: a local, a parameter, a return value) of an enum-like
/// class's values: they exist only as the constants an intrinsic takes, which both kernel
/// backends and both host executors need to see at the call, so none of them has a run-time
/// representation for one.
pub(super) fn enum_storage(t: &Type, span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::NotConstant,
        span,
        format!("{what} cannot hold `{t}`: its values exist only as constants"),
    )
    .with_note("help: pass the constant (`MemoryOrder.Relaxed`, `MemoryKind.HostVisible`, …) directly where it is used")
}
