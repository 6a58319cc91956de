//! The method annotations the checker reads: `@Kernel` / `@Device` / `@Host` (what kind of
//! function a method is; `@Host @Device` is both a host method and a device helper), `@FastMath`, `@Override`, `@Wave(width = N)` on kernels, and Cajeta's
//! `@Backend` and `@Occupancy` (checked, no effect on Vulkan); `@KernelArg` and
//! `@PushConstant` on kernel parameters. Classes and fields of user files take none (the
//! stdlib's `@Intrinsic` is read elsewhere).

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::FunctionKind;
use crate::syntax::ast;

/// The annotations a method may carry (docs/language.md lists them; a test compares).
pub const METHOD_ANNOTATION_NAMES: &[&str] = &[
    "Kernel",
    "Device",
    "Host",
    "FastMath",
    "Wave",
    "Override",
    "Backend",
    "Occupancy",
];

/// The annotations a method may carry, for E0025's note.
const METHOD_ANNOTATIONS: &str = "method annotations: @Kernel, @Device, @Host, @FastMath, \
     @Wave(width = N), @Override, @Backend(\"vulkan\"), @Occupancy(N)";

/// The `@Backend` names that mean this compiler's target: every kernel is SPIR-V for Vulkan.
const VULKAN_BACKENDS: &[&str] = &["vulkan", "spirv", "gpu", "auto", "any"];

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
    if let (true, Some(host)) = (kernel, m.annotation("Host")) {
        diags.push(
            Diagnostic::error(
                Code::InvalidAnnotation,
                host.span,
                "a kernel cannot be @Host",
            )
            .with_note("help: kernels are launched from host code; put the shared code in a `@Host @Device` helper"),
        );
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

/// Checks Cajeta's `@Backend("…")` and `@Occupancy(…)` on a kernel. Neither changes the
/// module: every kernel is SPIR-V for Vulkan (a non-Vulkan backend is refused rather than
/// silently compiled for Vulkan), and Vulkan has no occupancy control.
pub fn check_cajeta_method_annotations(
    m: &ast::MethodDecl,
    kind: FunctionKind,
    diags: &mut Vec<Diagnostic>,
) {
    for a in &m.annotations {
        let name = a.name.name.as_str();
        if !matches!(name, "Backend" | "Occupancy") {
            continue;
        }
        if kind != FunctionKind::Kernel {
            diags.push(Diagnostic::error(
                Code::InvalidAnnotation,
                a.span,
                format!("@{name} applies to kernels only"),
            ));
            continue;
        }
        if name == "Backend" {
            let value = match a.args.as_slice() {
                [(None, v)] => match &v.kind {
                    ast::ExprKind::Str(s) => Some(s.to_ascii_lowercase()),
                    _ => None,
                },
                _ => None,
            };
            match value {
                Some(v) if VULKAN_BACKENDS.contains(&v.as_str()) => {}
                Some(v) => diags.push(
                    Diagnostic::error(
                        Code::InvalidAnnotation,
                        a.span,
                        format!("cajetac compiles kernels for Vulkan only, not `{v}`"),
                    )
                    .with_note(
                        "write @Backend(\"vulkan\") or remove it: every kernel here is SPIR-V \
                         for Vulkan (`--backend llvm` picks how, not where it runs)",
                    ),
                ),
                None => diags.push(
                    Diagnostic::error(
                        Code::InvalidAnnotation,
                        a.span,
                        "@Backend takes one string, the backend's name",
                    )
                    .with_note("write @Backend(\"vulkan\")"),
                ),
            }
        } else {
            let ints = !a.args.is_empty()
                && a.args.len() <= 2
                && a.args
                    .iter()
                    .all(|(_, v)| matches!(v.kind, ast::ExprKind::Int(_)));
            if !ints {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidAnnotation,
                        a.span,
                        "@Occupancy takes one or two integer literals",
                    )
                    .with_note("write @Occupancy(N); it has no effect on Vulkan"),
                );
            }
        }
    }
}

/// Checks the annotations of a method's parameters: `@KernelArg` (every kernel parameter is
/// one) and `@PushConstant` (a scalar, vector, matrix or POD kernel parameter, which is a
/// push-constant member here anyway), on kernels only; anything else is E0025.
pub fn check_param_annotations(
    m: &ast::MethodDecl,
    kind: FunctionKind,
    params: &[crate::ir::Type],
    diags: &mut Vec<Diagnostic>,
) {
    for (p, ty) in m.params.iter().zip(params) {
        for a in &p.annotations {
            let name = a.name.name.as_str();
            let problem = match name {
                "KernelArg" | "PushConstant" if kind != FunctionKind::Kernel => {
                    Some(format!("@{name} marks kernel parameters only"))
                }
                "KernelArg" => None,
                "PushConstant" if ty.is_resource() || ty.is_buffer_array() => Some(format!(
                    "`{}` is a {ty}, bound as a descriptor, not a push constant",
                    p.name.name
                )),
                "PushConstant" => None,
                _ => Some(format!("unknown parameter annotation `@{name}`")),
            };
            if let Some(message) = problem {
                diags.push(
                    Diagnostic::error(Code::InvalidAnnotation, a.span, message).with_note(
                        "parameter annotations: @KernelArg, and @PushConstant on a scalar, \
                         vector, matrix or POD kernel parameter",
                    ),
                );
            } else if !a.args.is_empty() {
                diags.push(Diagnostic::error(
                    Code::InvalidAnnotation,
                    a.span,
                    format!("@{name} takes no arguments"),
                ));
            }
        }
    }
}
