//! What E0007 (an unknown type) suggests: this language's spelling of a Java or C scalar
//! name (`int` → `int32`), else a known type of a similar name.

use std::collections::HashMap;

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{ScalarType, Type};

/// E0007 for the type name `name`, with the best hint; `generics` adds the POD classes and
/// type parameters in scope to the known names.
pub(super) fn unknown_type(name: &str, span: Span, generics: &HashMap<String, Type>) -> Diagnostic {
    let d = Diagnostic::error(Code::UnknownType, span, format!("unknown type `{name}`"))
        .with_label("not a type");
    if name == "var" {
        return d
            .with_note("help: write the local's type: `var` (type inference) is not supported");
    }
    if let Some(instead) = cajeta_only_type(name) {
        return Diagnostic::error(
            Code::UnsupportedFeature,
            span,
            format!("Cajeta's `{name}` is not supported by cajetac"),
        )
        .with_label("a Cajeta library type")
        .with_note(format!("help: {instead}"));
    }
    if let Some(ours) = foreign_scalar_spelling(name) {
        return d.with_note(format!(
            "help: `{name}` is spelled `{ours}` here (scalar types spell their width)"
        ));
    }
    let mut known: Vec<&str> = crate::syntax::lexer::GENERIC_TYPES
        .iter()
        .copied()
        .chain(OTHER_TYPE_NAMES.iter().copied())
        .chain(ScalarType::ALL.iter().map(|s| s.name()))
        .chain(generics.keys().map(String::as_str))
        .collect();
    // Sorted, so that ties between equally close names resolve the same way every run.
    known.sort_unstable();
    match crate::diagnostics::similar::closest(name, known) {
        Some(similar) => d.with_note(format!(
            "help: a type with a similar name exists: `{similar}`"
        )),
        None => d.with_note("scalar types spell their width: int32, uint32, float32, …"),
    }
}

/// Type names outside [`crate::syntax::lexer::GENERIC_TYPES`] and the scalars, for the
/// "similar name" hint of an unknown type.
const OTHER_TYPE_NAMES: &[&str] = &[
    "Sampler",
    "AccelerationStructure",
    "RayQuery",
    "KernelStream",
    "String",
    "Event",
];

/// E0024 for a class of Cajeta's library that cajetac does not offer, used as a name
/// (`RenderGraph`), with what to write instead; `None` for other names.
pub(super) fn cajeta_only_class(name: &str, span: Span) -> Option<Diagnostic> {
    let instead = cajeta_only_type(name)?;
    Some(
        Diagnostic::error(
            Code::UnsupportedFeature,
            span,
            format!("Cajeta's `{name}` is not supported by cajetac"),
        )
        .with_label("a Cajeta library class")
        .with_note(format!("help: {instead}")),
    )
}

/// What to write instead of a type of Cajeta's library that cajetac does not offer.
fn cajeta_only_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "XpuLaunchException" => {
            "a refused launch is caught with `try { … } catch (XpuLaunchException e) { … }`, \
             where `e.getMessage()` is its message; there is no other value of this type"
        }
        "KernelError" | "XpuKernelError" => {
            "a checked kernel's fault is caught with `try { …; s.sync(); } catch (KernelError e) \
             { … }`, where `e.getMessage()` is its message; there is no other value of this type"
        }
        "TargetDescriptor" => {
            "`TargetDescriptor` is a class of static queries (`TargetDescriptor.waveWidth()`, \
             `ldsBytesPerBlock()`, `cuCount()`, `maxWavesPerSimd()`), not a type"
        }
        "Capabilities" => {
            "Cajeta's capability traits bound a kernel's target; here a kernel asks \
             `Device.supports(Capability.X)`, folded per device profile, and host code \
             `Device.supports(Capability.X)` of the run's device"
        }
        _ => return None,
    })
}

/// This language's spelling of a scalar type name from Java (or C), which people write
/// out of habit: `int` → `int32`, `double` → `float64`. Java's `char` is an unsigned
/// 16-bit code unit.
fn foreign_scalar_spelling(name: &str) -> Option<&'static str> {
    Some(match name {
        "int" | "Integer" => "int32",
        "long" | "Long" => "int64",
        "short" | "Short" => "int16",
        "byte" | "Byte" => "int8",
        "char" | "Character" => "uint16",
        "float" | "Float" => "float32",
        "double" | "Double" => "float64",
        "bool" | "Boolean" => "boolean",
        "uint" | "unsigned" => "uint32",
        "half" => "float16",
        _ => return None,
    })
}
