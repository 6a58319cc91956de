//! Cajeta's `TargetDescriptor`: the hardware facts its cooperative library reads, each
//! rewritten on the syntax tree as the query of this project that answers it (as `Group` is,
//! sema/group.rs):
//!
//! | Cajeta | here |
//! |---|---|
//! | `TargetDescriptor.waveWidth()` (kernel) | `(int32) Wave.width()` |
//! | `TargetDescriptor.waveWidth()` (host) | `Device.waveSize()` (the run's device) |
//! | `TargetDescriptor.ldsBytesPerBlock()` (host) | `Device.sharedBytesPerBlock()` |
//! | `TargetDescriptor.cuCount()` (host) | `0` (Vulkan does not report compute units) |
//! | `TargetDescriptor.maxWavesPerSimd()` (host) | `0` (Cajeta's own stub answer) |
//!
//! A zero is Cajeta's "the backend does not report this" (its `DeviceFacts` rule), never a
//! number borrowed from another part.

use super::body::{FnCtx, R};
use super::range_loop::{expr, static_call};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir;
use crate::syntax::ast::{self, Expr, ExprKind, Ident, TypeExpr, TypeExprKind};

/// `(int32) e`.
fn as_int32(e: Expr, span: Span) -> Expr {
    let int32 = TypeExpr {
        kind: TypeExprKind::Named {
            name: "int32".to_string(),
            args: Vec::new(),
        },
        span,
    };
    expr(ExprKind::Cast(Box::new(int32), Box::new(e)), span)
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `TargetDescriptor.name()` rewritten as the query that answers it; `None` when `recv`
    /// is not Cajeta's `TargetDescriptor` (a local or a class of the program of that name).
    pub(super) fn target_descriptor_call(
        &mut self,
        recv: &Expr,
        name: &Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if !self.names_library_class(recv, "TargetDescriptor") {
            return None;
        }
        let method = name.name.as_str();
        let known = [
            "waveWidth",
            "ldsBytesPerBlock",
            "cuCount",
            "maxWavesPerSimd",
        ];
        if !known.contains(&method) {
            return Some(
                self.error(
                    Diagnostic::error(
                        Code::UnknownMethod,
                        name.span,
                        format!("`TargetDescriptor` has no method `{method}`"),
                    )
                    .with_note(format!("help: its methods are {}", known.join(", "))),
                ),
            );
        }
        if !args.is_empty() {
            return Some(self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`TargetDescriptor.{method}` takes no arguments"),
            )));
        }
        if method != "waveWidth" && self.is_device() {
            return Some(
                self.error(
                    Diagnostic::error(
                        Code::HostOnlyInDevice,
                        span,
                        format!("`TargetDescriptor.{method}` is a host-side machine fact"),
                    )
                    .with_note(
                        "help: in a kernel only `TargetDescriptor.waveWidth()` is available",
                    ),
                ),
            );
        }
        let zero = || expr(ExprKind::Int("0".to_string()), span);
        let rewritten = match method {
            "waveWidth" if self.is_device() => {
                as_int32(static_call("Wave", "width", vec![], span), span)
            }
            "waveWidth" => static_call("Device", "waveSize", vec![], span),
            "ldsBytesPerBlock" => static_call("Device", "sharedBytesPerBlock", vec![], span),
            _ => zero(),
        };
        Some(self.expr(&rewritten, None))
    }
}
