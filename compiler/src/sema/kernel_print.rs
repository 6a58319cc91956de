//! Printing from device code: `System.out.printf` with a literal GLSL `debugPrintfEXT`
//! format ([`crate::ir::debug_printf`]), and `System.out.println` / `print` of a string
//! literal. Both become a `Host { Printf }` expression whose first argument is the format
//! the module carries; the SPIR-V backend lowers it to `NonSemantic.DebugPrintf`.

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::debug_printf::{self, Class, Spec};
use crate::ir::{self, ExprKind, HostOp, ScalarType, Type};
use crate::syntax::ast;

/// The note every malformed kernel format carries.
const FORMAT_NOTE: &str = "kernel printf follows GLSL's debugPrintfEXT: %d %i %u %o %x %X, %f %e %g %a (and upper case), %v2f..%v4f for vectors, exactly %lu or %lx for 64-bit integers, %%";

impl FnCtx<'_, '_> {
    /// `System.out.printf(fmt, args…)` in a kernel or device helper.
    pub(super) fn kernel_printf(&mut self, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let Some((first, rest)) = args.split_first() else {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                "`System.out.printf` needs a format string",
            ));
        };
        let format = self.format_literal(first)?;
        let specs = match debug_printf::parse(&format) {
            Ok(s) => s,
            Err(m) => {
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        first.value.span,
                        format!("bad kernel format: {m}"),
                    )
                    .with_note(FORMAT_NOTE),
                )
            }
        };
        if specs.len() != rest.len() {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "the format has {} conversion(s) but {} argument(s) follow it",
                    specs.len(),
                    rest.len()
                ),
            ));
        }
        let mut values = vec![format_expr(format, first.value.span)];
        for (spec, a) in specs.iter().zip(rest) {
            let v = self.expr(&a.value, Some(&hint(spec)))?;
            self.check_printable(spec, &v)?;
            values.push(v);
        }
        Ok(printf_expr(values, span))
    }

    /// `System.out.println(…)` / `print(…)` in device code: nothing or a string literal.
    pub(super) fn kernel_print(
        &mut self,
        args: &[ast::Arg],
        newline: bool,
        span: Span,
    ) -> R<ir::Expr> {
        let text = match args {
            [] => String::new(),
            [a] => self.format_literal(a)?,
            _ => {
                return self.error(Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    "`System.out.println` takes at most one argument",
                ))
            }
        };
        let mut format = debug_printf::literal(&text);
        if newline {
            format.push('\n');
        }
        Ok(printf_expr(vec![format_expr(format, span)], span))
    }

    /// The text of a string-literal argument; device code has no strings to compute.
    fn format_literal(&mut self, a: &ast::Arg) -> R<String> {
        if let Some(n) = &a.name {
            return self.error(Diagnostic::error(
                Code::SyntaxError,
                n.span,
                format!("unexpected named argument `{}:`", n.name),
            ));
        }
        match &a.value.kind {
            ast::ExprKind::Str(s) => Ok(s.clone()),
            _ => self.error(
                Diagnostic::error(
                    Code::NotConstant,
                    a.value.span,
                    "device code prints only a string literal (the format is fixed when the kernel is compiled)",
                )
                .with_note("print values through a printf format: System.out.printf(\"x=%d\\n\", x)"),
            ),
        }
    }

    /// The argument of one conversion must be what it prints: an integer (or boolean) for
    /// `%d`…, a float for `%f`…, a vector of as many lanes for `%vN`; 64-bit integers only
    /// through `%l…`, which widens narrower ones.
    fn check_printable(&mut self, spec: &Spec, v: &ir::Expr) -> R<()> {
        let (elem, lanes) = match &v.ty {
            Type::Scalar(s) => (Some(*s), None),
            Type::Vector(s, n) => (Some(*s), Some(u32::from(*n))),
            _ => (None, None),
        };
        let want = describe(spec);
        let problem = match elem {
            None => Some(format!("`%{}` needs {want}, found {}", spec.conv, v.ty)),
            Some(_) if lanes != spec.lanes => Some(format!(
                "`{}` needs {want}, found {}",
                conversion_text(spec),
                v.ty
            )),
            Some(s) => {
                let fits = match spec.class {
                    Class::Integer => s.is_integer() || s == ScalarType::Bool,
                    Class::Float => s.is_float(),
                };
                if !fits {
                    Some(format!(
                        "`{}` needs {want}, found {}",
                        conversion_text(spec),
                        v.ty
                    ))
                } else if spec.class == Class::Integer && !spec.long && s.bits() == 64 {
                    Some(format!(
                        "`{}` prints 32 bits but {} has 64; print it with `%lu` or `%lx`, or cast it to a 32-bit type",
                        conversion_text(spec),
                        v.ty,
                    ))
                } else {
                    None
                }
            }
        };
        match problem {
            None => Ok(()),
            Some(m) => {
                let t = v.ty.clone();
                self.error(
                    Diagnostic::error(Code::TypeMismatch, v.span, m)
                        .with_label(format!("this is {t}"))
                        .with_note(FORMAT_NOTE),
                )
            }
        }
    }
}

/// The type an unsuffixed literal argument takes: what the conversion prints.
fn hint(spec: &Spec) -> Type {
    let s = match (spec.class, spec.long) {
        (Class::Integer, true) => ScalarType::I64,
        (Class::Integer, false) => ScalarType::I32,
        (Class::Float, _) => ScalarType::F32,
    };
    match spec.lanes {
        Some(n) => Type::Vector(s, n as u8),
        None => Type::Scalar(s),
    }
}

/// What a conversion accepts, in words.
fn describe(spec: &Spec) -> String {
    let what = match (spec.class, spec.long) {
        (Class::Integer, true) => "integer",
        (Class::Integer, false) => "integer of at most 32 bits (or a boolean)",
        (Class::Float, _) => "float",
    };
    match spec.lanes {
        Some(n) => format!("a {n}-lane vector of {what}s"),
        None if what.starts_with('i') => format!("an {what}"),
        None => format!("a {what}"),
    }
}

/// The conversion as written, less flags, width and precision (`%v4f`, `%lu`).
fn conversion_text(spec: &Spec) -> String {
    let lanes = spec.lanes.map(|n| format!("v{n}")).unwrap_or_default();
    let long = if spec.long { "l" } else { "" };
    format!("%{lanes}{long}{}", spec.conv)
}

fn format_expr(format: String, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Str(format),
        ty: Type::String,
        span,
    }
}

fn printf_expr(args: Vec<ir::Expr>, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Host {
            op: HostOp::Printf,
            args,
        },
        ty: Type::Void,
        span,
    }
}
