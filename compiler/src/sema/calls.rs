//! Calls of user methods (of the current class, of another class, of a value) and the
//! dispatch of method calls to stdlib intrinsics (`intrinsic_calls.rs`); host allocations
//! are in `allocations.rs`.

use super::body::{FnCtx, R};
use super::names::canonical_class;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, FunctionId, FunctionKind, ScalarType, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `name(args)`: a method of the current class.
    pub fn call(&mut self, name: &ast::Ident, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let class = self.class.clone();
        if let Some(r) = self.psc_call(name, args, span) {
            return r;
        }
        if name.name == "this" {
            return self.error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    name.span,
                    "`this(…)`, one constructor calling another, is not supported",
                )
                .with_note("help: move the shared part into a static method of the class and call it from both"),
            );
        }
        match self
            .syms
            .user_methods
            .get(&class)
            .and_then(|m| m.get(&name.name))
            .copied()
        {
            Some(fid) => self.user_call(fid, name, args, span),
            None => self.error(
                Diagnostic::error(
                    Code::UnknownName,
                    name.span,
                    format!("cannot find method `{}` in class `{class}`", name.name),
                )
                .with_label("not declared"),
            ),
        }
    }

    pub(super) fn positional<'e>(&mut self, args: &'e [ast::Arg]) -> R<Vec<&'e ast::Expr>> {
        let mut out = Vec::new();
        for a in args {
            if let Some(n) = &a.name {
                return self.error(Diagnostic::error(
                    Code::SyntaxError,
                    n.span,
                    format!("unexpected named argument `{}:`", n.name),
                ));
            }
            out.push(&a.value);
        }
        Ok(out)
    }

    fn user_call(
        &mut self,
        fid: FunctionId,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        // Host code calls the host twin of a `@Host @Device` method.
        let fid = match (self.kind, self.syms.host_twins.get(&fid)) {
            (FunctionKind::Host, Some(&host)) => host,
            _ => fid,
        };
        let f = &self.syms.functions[fid.0];
        let host_only = f.decl.annotation("Host").is_some();
        let (kind, params, ret, decl_span) =
            (f.kind, f.params.clone(), f.ret.clone(), f.decl.name.span);
        match (self.kind, kind) {
            (_, FunctionKind::Kernel) => {
                return self.error(
                    Diagnostic::error(
                        Code::InvalidLaunch,
                        span,
                        format!("kernel `{}` cannot be called like a method", name.name),
                    )
                    .with_note(format!(
                        "help: launch it: `{}.launch(stream, grid: [..], block: [..])(…)`",
                        name.name
                    )),
                )
            }
            (FunctionKind::Host, FunctionKind::Device) => {
                return self.error(
                    Diagnostic::error(
                        Code::DeviceOnlyInHost,
                        span,
                        format!(
                            "@Device method `{}` cannot be called from host code",
                            name.name
                        ),
                    )
                    .with_secondary(decl_span, "declared @Device here")
                    .with_note("help: mark it `@Host @Device` to call it from host code too"),
                )
            }
            (FunctionKind::Kernel | FunctionKind::Device, FunctionKind::Host) => {
                return self.error(
                    Diagnostic::error(
                        Code::HostOnlyInDevice,
                        span,
                        format!(
                            "host method `{}` cannot be called from device code",
                            name.name
                        ),
                    )
                    .with_secondary(
                        decl_span,
                        if host_only {
                            "declared @Host here"
                        } else {
                            "declared here without @Device"
                        },
                    )
                    .with_note(if host_only {
                        "help: mark it `@Host @Device` to call it from both sides"
                    } else {
                        "help: mark it `@Device` if it only uses device features (`@Host @Device` for both sides)"
                    }),
                )
            }
            _ => {}
        }
        let args = self.positional(args)?;
        if args.len() != params.len() {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "`{}` takes {} argument(s) but {} were supplied",
                        name.name,
                        params.len(),
                        args.len()
                    ),
                )
                .with_secondary(decl_span, "declared here"),
            );
        }
        let mut out = Vec::new();
        let mut failed = false;
        for (a, p) in args.iter().zip(&params) {
            if *p == Type::Void {
                // The parameter's type did not resolve (E0007 at its declaration): check the
                // argument, but report no mismatch against a type nobody wrote.
                let _ = self.expr(a, None);
                failed = true;
                continue;
            }
            match self
                .expr(a, Some(p))
                .and_then(|v| self.coerce(v, p, a.span))
            {
                Ok(v) => {
                    if self.is_device()
                        && (v.ty.is_resource() || matches!(v.ty, Type::Shared(_)))
                        && !matches!(v.kind, ExprKind::Load(ir::Place::Local(_)))
                    {
                        failed = true;
                        self.diags.push(Diagnostic::error(
                            Code::UnsupportedFeature,
                            a.span,
                            "resource arguments must be parameters of the caller",
                        ));
                    }
                    out.push(v)
                }
                Err(()) => failed = true,
            }
        }
        if failed || self.syms.functions[fid.0].ret_unresolved() {
            return Err(());
        }
        self.calls.push((fid, span));
        // A wide vector parameter is its parts (sema/wide_vector.rs).
        let (stmts, out) = self.split_wide_args(out)?;
        Ok(super::bytes16::sequence(
            stmts,
            ir::Expr {
                kind: ExprKind::Call {
                    func: fid,
                    args: out,
                },
                ty: ret,
                span,
            },
        ))
    }

    /// `recv.name(args)`: static methods of classes, and methods of values.
    pub fn method_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        // `Device.hasExtension("…")`: a string literal argument in device code.
        if let Some(r) = self.query_string_call(recv, name, args, span) {
            return r;
        }
        if let Some(d) = self.presentation_method(recv, name) {
            return self.error(d);
        }
        // Cajeta's kernel manifest, `k.manifest()` on a kernel of this class.
        if let Some(r) = self.kernel_manifest_call(recv, name, args, span) {
            return r;
        }
        // `System.out.println(…)`, also as Cajeta's `System.stdout`.
        if let ast::ExprKind::Field(base, field) = &recv.kind {
            if matches!(&base.kind, ast::ExprKind::Name(n) if n == "System" && self.lookup("System").is_none())
                && matches!(field.name.as_str(), "out" | "stdout")
            {
                if name.name == "printf" {
                    return self.printf_call(args, span);
                }
                if self.is_device() && matches!(name.name.as_str(), "println" | "print") {
                    return self.kernel_print(args, name.name == "println", span);
                }
                return self.intrinsic_call("SystemOut", None, name, args, span);
            }
        }
        if let Some(r) = self.optional_static_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.math_vector_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.rotation_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.group_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.target_descriptor_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.wave_cajeta_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.bits_permute_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.cooperative_matrix_call(recv, name, args, span) {
            return r;
        }
        if let Some(class) = self.class_name(recv) {
            if self.syms.is_class(class) {
                let class = canonical_class(class).to_string();
                if let Some(fid) = self
                    .syms
                    .user_methods
                    .get(&class)
                    .and_then(|m| m.get(&name.name))
                    .copied()
                {
                    return self.user_call(fid, name, args, span);
                }
                return self.intrinsic_call(&class, None, name, args, span);
            }
        }
        if args.is_empty() {
            if let Some(message) = self.catch_message(recv, &name.name) {
                return Ok(message);
            }
        }
        let r = self.expr(recv, None)?;
        let class = match &r.ty {
            Type::Image2D(_) => "Image2D",
            Type::Texture(dim, _) => dim.class_name(),
            Type::Sampler => "Sampler",
            Type::AccelStruct => "AccelerationStructure",
            Type::RayQuery => "RayQuery",
            Type::Buffer(_) if matches!(name.name.as_str(), "vload" | "vstore") => {
                return self.buffer_vector_call(r, name, None, args, span)
            }
            Type::Buffer(_) => "KernelBuffer",
            Type::Shared(_) => "Shared",
            Type::Stream => "KernelStream",
            Type::String => "String",
            // A Cajeta `Fence` or `KernelTimer` is an Event here: their methods are found in
            // their own classes.
            Type::Event => ["Event", "Fence", "KernelTimer"]
                .into_iter()
                .find(|c| self.syms.intrinsic(c, &name.name).is_some())
                .unwrap_or("Event"),
            // Cajeta's reinterpretation of four words as a 16-lane byte vector.
            Type::Vector(ScalarType::I32 | ScalarType::U32, 4)
                if name.name == "asBytes" && args.is_empty() =>
            {
                return Ok(self.words_as_bytes(r))
            }
            Type::Vector(..) => return self.vector_method(r, name, args, span),
            Type::Matrix(..) => return self.matrix_method(r, name, args, span),
            Type::Quaternion(_) => return self.quaternion_method(r, name, args, span),
            Type::Bytes16(_) => return self.bytes16_method(r, name, args, span),
            Type::Struct(_) if super::optional::element(&r.ty).is_some() => {
                return self.optional_method(r, name, args, span)
            }
            Type::Wide(..) => return self.wide_method(r, name, args, span),
            other => {
                let other = other.clone();
                return self.error(Diagnostic::error(
                    Code::UnknownMethod,
                    name.span,
                    format!("`{other}` has no method `{}`", name.name),
                ));
            }
        };
        self.intrinsic_call(class, Some(r), name, args, span)
    }
}
