//! Cajeta's `k.manifest()` on a kernel `k` of the calling class: a `KernelManifest`, the POD
//! of the library declared in Cajeta source (`stdlib/cajeta/source/kernel_manifest.cajeta`),
//! filled at run time from the reflection of the kernel compiled for the run's device
//! (`HostOp::KernelManifest`). Host code only.

use super::body::FnCtx;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, FunctionKind, HostOp, Type, KERNEL_MANIFEST_FIELDS};
use crate::syntax::ast;

impl FnCtx<'_, '_> {
    /// `k.manifest()`: `Some` when `recv` names a kernel of this class (not shadowed by a
    /// local) and the method is `manifest`; `None` for every other call.
    pub(super) fn kernel_manifest_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<super::body::R<ir::Expr>> {
        let ast::ExprKind::Name(k) = &recv.kind else {
            return None;
        };
        if name.name != "manifest" || self.lookup(k).is_some() {
            return None;
        }
        let kernel = *self.syms.user_methods.get(&self.class)?.get(k)?;
        if self.syms.functions[kernel.0].kind != FunctionKind::Kernel {
            return None;
        }
        if self.is_device() {
            return Some(
                self.error(
                    Diagnostic::error(
                        Code::HostOnlyInDevice,
                        name.span,
                        "`k.manifest()` in device code",
                    )
                    .with_note(
                        "help: ask for the manifest in the host code that launches the kernel",
                    ),
                ),
            );
        }
        if !args.is_empty() {
            return Some(self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`{k}.manifest()` takes no arguments, found {}", args.len()),
            )));
        }
        let ty = match self.syms.pods.get("KernelManifest") {
            Some(t @ Type::Struct(def)) if is_library_manifest(def) => t.clone(),
            _ => {
                return Some(self.error(
                    Diagnostic::error(
                        Code::UnsupportedFeature,
                        name.span,
                        "`manifest()` makes the library's `KernelManifest`, and this program declares a class of that name itself",
                    )
                    .with_note("help: rename the program's `KernelManifest` class"),
                ))
            }
        };
        Some(Ok(ir::Expr {
            kind: ExprKind::Host {
                op: HostOp::KernelManifest(kernel),
                args: Vec::new(),
            },
            ty,
            span,
        }))
    }
}

/// Whether `def` has the fields of the library's `KernelManifest`, in order.
fn is_library_manifest(def: &ir::StructDef) -> bool {
    def.fields.len() == KERNEL_MANIFEST_FIELDS.len()
        && def
            .fields
            .iter()
            .zip(KERNEL_MANIFEST_FIELDS)
            .all(|((n, t), (name, s))| n == name && *t == Type::Scalar(*s))
}
