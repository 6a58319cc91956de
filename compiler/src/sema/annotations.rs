//! The method annotations the checker reads: `@Kernel` / `@Device` (what kind of function
//! a method is), `@FastMath`, `@Override`, and `@Wave(width = N)` on kernels. Classes and
//! fields of user files take none (the stdlib's `@Intrinsic` is read elsewhere).

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::FunctionKind;
use crate::syntax::ast;

/// The annotations a method may carry (docs/language.md lists them; a test compares).
pub const METHOD_ANNOTATION_NAMES: &[&str] = &["Kernel", "Device", "FastMath", "Wave", "Override"];

/// The annotations a method may carry, for E0025's note.
const METHOD_ANNOTATIONS: &str =
    "method annotations: @Kernel, @Device, @FastMath, @Wave(width = N), @Override";

/// E0025 for each annotation on `what` (a class or a field of a user file): the language
/// gives them no meaning, and ignoring one would hide a misplaced `@Kernel`.
pub fn refuse_annotations(
    annotations: &[ast::Annotation],
    what: &str,
    diags: &mut Vec<Diagnostic>,
) {
    for a in annotations {
        diags.push(
            Diagnostic::error(
                Code::InvalidAnnotation,
                a.span,
                format!("`@{}` cannot mark {what}", a.name.name),
            )
            .with_note(format!(
                "annotations mark methods only; {METHOD_ANNOTATIONS}"
            )),
        );
    }
}

/// What kind of function a method is, from its annotations; unknown annotations, a method
/// both `@Kernel` and `@Device`, a non-static method and a missing body are reported.
pub fn function_kind(m: &ast::MethodDecl, diags: &mut Vec<Diagnostic>) -> FunctionKind {
    for a in &m.annotations {
        if !METHOD_ANNOTATION_NAMES.contains(&a.name.name.as_str()) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidAnnotation,
                    a.span,
                    format!("unknown annotation `@{}`", a.name.name),
                )
                .with_note(METHOD_ANNOTATIONS),
            );
        }
    }
    let kernel = m.annotation("Kernel").is_some();
    let device = m.annotation("Device").is_some();
    if kernel && device {
        diags.push(Diagnostic::error(
            Code::InvalidAnnotation,
            m.name.span,
            "a method cannot be both @Kernel and @Device",
        ));
    }
    if !m.has_modifier("static") {
        diags.push(
            Diagnostic::error(
                Code::KernelSignature,
                m.name.span,
                format!("method `{}` must be static", m.name.name),
            )
            .with_note("cajetac programs have only static methods"),
        );
    }
    if m.body.is_none() {
        diags.push(Diagnostic::error(
            Code::SyntaxError,
            m.name.span,
            format!("method `{}` has no body", m.name.name),
        ));
    }
    if kernel {
        FunctionKind::Kernel
    } else if device {
        FunctionKind::Device
    } else {
        FunctionKind::Host
    }
}

/// The subgroup size `@Wave(width = N)` asks of a kernel: a power of two from 1 to 128,
/// written as an integer literal, on a `@Kernel` only.
pub fn wave_width(
    m: &ast::MethodDecl,
    kind: FunctionKind,
    diags: &mut Vec<Diagnostic>,
) -> Option<u32> {
    let a = m.annotation("Wave")?;
    let bad = |why: &str| {
        Diagnostic::error(Code::InvalidAnnotation, a.span, why.to_string())
            .with_note("write @Wave(width = N) with N a power of two from 1 to 128, on a @Kernel")
    };
    if kind != FunctionKind::Kernel {
        diags.push(bad("@Wave applies to kernels only"));
        return None;
    }
    let width = match a.args.as_slice() {
        [(Some(key), value)] if key.name == "width" => match &value.kind {
            ast::ExprKind::Int(text) => {
                crate::sema::literals::parse_int(text).ok().map(|l| l.value)
            }
            _ => None,
        },
        _ => None,
    };
    match width {
        Some(n) if (1..=128).contains(&n) && n.is_power_of_two() => Some(n as u32),
        Some(n) => {
            diags.push(bad(&format!(
                "a subgroup width of {n} is not a power of two from 1 to 128"
            )));
            None
        }
        None => {
            diags.push(bad(
                "@Wave takes one argument, `width = N` (an integer literal)",
            ));
            None
        }
    }
}
