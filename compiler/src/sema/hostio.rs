//! Host I/O calls that the ordinary intrinsic path cannot check: `System.out.printf` is
//! variadic, and a literal format is checked against its arguments at compile time.

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::printf::{self, ArgKind};
use crate::ir::{self, ExprKind, HostOp, ScalarType, Type};
use crate::syntax::ast;

impl FnCtx<'_, '_> {
    /// `System.out.printf(fmt, args…)`: the format is a `String`, then any number of values.
    /// An unsuffixed literal argument takes its default type (`int32`, `float64`).
    pub fn printf_call(&mut self, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        if self.is_device() {
            return self.kernel_printf(args, span);
        }
        let Some((first, rest)) = args.split_first() else {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                "`System.out.printf` needs a format string",
            ));
        };
        let mut values = Vec::new();
        for a in args {
            if let Some(n) = &a.name {
                return self.error(Diagnostic::error(
                    Code::SyntaxError,
                    n.span,
                    format!("unexpected named argument `{}:`", n.name),
                ));
            }
        }
        let fmt = self.expr(&first.value, Some(&Type::String))?;
        let fmt = self.coerce(fmt, &Type::String, first.value.span)?;
        let literal = match &fmt.kind {
            ExprKind::Str(s) => Some(s.clone()),
            _ => None,
        };
        values.push(fmt);
        for a in rest {
            let v = self.expr(&a.value, None)?;
            if v.ty == Type::Void {
                return self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    a.value.span,
                    "`printf` needs a value, found void",
                ));
            }
            values.push(self.optional_as_text(v));
        }
        if let Some(text) = literal {
            self.check_format(&text, first.value.span, &values[1..], span)?;
        }
        Ok(ir::Expr {
            kind: ExprKind::Host {
                op: HostOp::Printf,
                args: values,
            },
            ty: Type::Void,
            span,
        })
    }

    /// A literal format: its conversions must match the arguments in number and kind.
    fn check_format(&mut self, text: &str, fmt_span: Span, args: &[ir::Expr], span: Span) -> R<()> {
        let pieces = match printf::parse(text) {
            Ok(p) => p,
            Err(m) => {
                return self.error(
                    Diagnostic::error(Code::TypeMismatch, fmt_span, format!("bad format: {m}"))
                        .with_note("printf conversions: %d %x %f %e %s %c %b, %n and %%"),
                )
            }
        };
        let convs: Vec<_> = printf::conversions(&pieces).collect();
        if convs.len() != args.len() {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "the format has {} conversion(s) but {} argument(s) follow it",
                    convs.len(),
                    args.len()
                ),
            ));
        }
        for (c, a) in convs.iter().zip(args) {
            let ok = match (c.takes(), &a.ty) {
                (ArgKind::Any, _) => true,
                (ArgKind::Integer, Type::Scalar(s)) => s.is_integer(),
                (ArgKind::Float, Type::Scalar(s)) => s.is_float(),
                (ArgKind::Bool, Type::Scalar(s)) => *s == ScalarType::Bool,
                _ => false,
            };
            if !ok {
                let t = a.ty.clone();
                let want = match c.takes() {
                    ArgKind::Integer => "an integer",
                    ArgKind::Float => "a float",
                    _ => "a boolean",
                };
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        a.span,
                        format!("`%{}` needs {want}, found {t}", c.conv),
                    )
                    .with_label(format!("this is {t}")),
                );
            }
        }
        Ok(())
    }
}
