//! How IR types and constants are spelled in the LLVM IR of a kernel, and the resource
//! handle types of LLVM's SPIR-V target (`target("spirv.VulkanBuffer", …)`,
//! `target("spirv.Image", …)`).

use super::refuse;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{ScalarType, Type};

/// The LLVM type of a scalar the backend lowers: booleans, 8- to 64-bit integers (LLVM's
/// integers carry no sign: the operations pick it), `float16`, `float32` and `float64`.
/// `bfloat16` is a `float` register rounded after every operation (`bfloat16.rs`).
pub(crate) fn scalar(s: ScalarType, span: Span) -> Result<&'static str, Diagnostic> {
    match s {
        ScalarType::Bool => Ok("i1"),
        ScalarType::I8 | ScalarType::U8 => Ok("i8"),
        ScalarType::I16 | ScalarType::U16 => Ok("i16"),
        ScalarType::I32 | ScalarType::U32 => Ok("i32"),
        ScalarType::I64 | ScalarType::U64 => Ok("i64"),
        ScalarType::F16 => Ok("half"),
        // Computed in float32 registers (`bfloat16.rs`).
        ScalarType::F32 | ScalarType::BF16 => Ok("float"),
        ScalarType::F64 => Ok("double"),
        other => Err(refuse(span, format!("the scalar type `{}`", other.name()))),
    }
}

/// The suffix LLVM mangles an intrinsic overloaded on `ty` with (`llvm.sqrt.f16`, …).
pub(crate) fn mangle(ty: &str) -> String {
    match ty {
        "half" => "f16".to_string(),
        "float" => "f32".to_string(),
        "double" => "f64".to_string(),
        other => match other.strip_prefix('<').and_then(|v| v.strip_suffix('>')) {
            // `<4 x float>` → `v4f32`.
            Some(v) => match v.split_once(" x ") {
                Some((n, lane)) => format!("v{n}{}", mangle(lane)),
                None => other.to_string(),
            },
            None => other.to_string(),
        },
    }
}

/// The LLVM type of a value of IR type `ty` (scalars and vectors).
pub(crate) fn value(ty: &Type, span: Span) -> Result<&'static str, Diagnostic> {
    match ty {
        Type::Scalar(s) => scalar(*s, span),
        Type::Vector(ScalarType::BF16, _) | Type::Matrix(ScalarType::BF16, ..) => Err(refuse(
            span,
            format!("vectors and matrices of `bfloat16` (`{ty}`)"),
        )),
        Type::Vector(s, n) => vector(scalar(*s, span)?, *n, span),
        Type::Matrix(s, rows, cols) => matrix(scalar(*s, span)?, *rows, *cols, span),
        other => Err(refuse(span, format!("values of type `{other}`"))),
    }
}

macro_rules! matrix_types {
    ($lane:expr, $r:expr, $c:expr, $($t:literal),*) => {
        match ($lane, $r, $c) {
            $(
                ($t, 2, 2) => Some(concat!("[2 x <2 x ", $t, ">]")),
                ($t, 2, 3) => Some(concat!("[3 x <2 x ", $t, ">]")),
                ($t, 2, 4) => Some(concat!("[4 x <2 x ", $t, ">]")),
                ($t, 3, 2) => Some(concat!("[2 x <3 x ", $t, ">]")),
                ($t, 3, 3) => Some(concat!("[3 x <3 x ", $t, ">]")),
                ($t, 3, 4) => Some(concat!("[4 x <3 x ", $t, ">]")),
                ($t, 4, 2) => Some(concat!("[2 x <4 x ", $t, ">]")),
                ($t, 4, 3) => Some(concat!("[3 x <4 x ", $t, ">]")),
                ($t, 4, 4) => Some(concat!("[4 x <4 x ", $t, ">]")),
            )*
            _ => None,
        }
    };
}

/// A `Matrix<lane, rows, cols>` value: the array of its columns, `[cols x <rows x lane>]`
/// (column-major, as the IR).
pub(crate) fn matrix(
    lane: &str,
    rows: u8,
    cols: u8,
    span: Span,
) -> Result<&'static str, Diagnostic> {
    matrix_types!(lane, rows, cols, "half", "float", "double")
        .ok_or_else(|| refuse(span, format!("matrices of `{lane}` {rows}x{cols}")))
}

/// The type a value of IR type `ty` is stored as in a buffer or the push-constant block
/// (boolean lanes as `uint32`, as in the rspirv backend).
pub(crate) fn stored_value(ty: &Type, span: Span) -> Result<&'static str, Diagnostic> {
    match ty {
        Type::Scalar(s) => stored(*s, span),
        Type::Vector(ScalarType::BF16, _) => {
            Err(refuse(span, format!("vectors of `bfloat16` (`{ty}`)")))
        }
        Type::Vector(s, n) => vector(stored(*s, span)?, *n, span),
        other => Err(refuse(span, format!("values of type `{other}`"))),
    }
}

macro_rules! vector_types {
    ($lane:expr, $n:expr, $($t:literal),*) => {
        match ($lane, $n) {
            $(
                ($t, 2) => Some(concat!("<2 x ", $t, ">")),
                ($t, 3) => Some(concat!("<3 x ", $t, ">")),
                ($t, 4) => Some(concat!("<4 x ", $t, ">")),
            )*
            _ => None,
        }
    };
}

/// `<n x lane>` for a lane type [`scalar`] gives and 2 to 4 lanes.
pub(crate) fn vector(lane: &str, n: u8, span: Span) -> Result<&'static str, Diagnostic> {
    vector_types!(lane, n, "i1", "i8", "i16", "i32", "i64", "half", "float", "double")
        .ok_or_else(|| refuse(span, format!("vectors of {n} `{lane}` lanes")))
}

/// The lane count and lane type of a vector type `<n x lane>`; `None` for a scalar.
pub(crate) fn split_vector(ty: &'static str) -> Option<(u8, &'static str)> {
    let inner = ty.strip_prefix('<')?.strip_suffix('>')?;
    let (n, lane) = inner.split_once(" x ")?;
    Some((n.parse().ok()?, lane))
}

/// The scalar type of `ty`, or a refusal.
pub(crate) fn scalar_of(ty: &Type, span: Span) -> Result<ScalarType, Diagnostic> {
    match ty {
        Type::Scalar(s) => Ok(*s),
        other => Err(refuse(span, format!("values of type `{other}`"))),
    }
}

/// The type a scalar is stored as in a buffer or the push-constant block (booleans as
/// `uint32`, as in the rspirv backend).
pub(crate) fn stored(s: ScalarType, span: Span) -> Result<&'static str, Diagnostic> {
    match s {
        ScalarType::Bool => Ok("i32"),
        // The 16 high bits of the float32 register.
        ScalarType::BF16 => Ok("i16"),
        other => scalar(other, span),
    }
}

/// `target("spirv.VulkanBuffer", [0 x T], 12, writable)` and its intrinsic-name mangling.
pub(crate) fn buffer_handle(elem: &str, writable: bool) -> (String, String) {
    let w = u8::from(writable);
    let mangled_elem = mangle(elem);
    (
        format!("target(\"spirv.VulkanBuffer\", [0 x {elem}], 12, {w})"),
        format!("tspirv.VulkanBuffer_a0{mangled_elem}_12_{w}t"),
    )
}

/// An LLVM constant of scalar type `s` from the IR's constant encoding (the low `bits()`
/// bits of `bits`, written as the signed value LLVM reads back to the same bits).
pub(crate) fn int_const(s: ScalarType, bits: u64) -> String {
    match s.bits() {
        _ if s == ScalarType::Bool => (if bits != 0 { "true" } else { "false" }).to_string(),
        8 => (bits as u8 as i8).to_string(),
        16 => (bits as u16 as i16).to_string(),
        64 => (bits as i64).to_string(),
        _ => (bits as u32 as i32).to_string(),
    }
}

/// A float constant of LLVM type `float`/`double`: the bits of the value as a double, in
/// hex (exact for every float32, which the IR already rounded to).
pub(crate) fn float_const(v: f64) -> String {
    format!("0x{:016X}", v.to_bits())
}

/// A float constant of scalar type `s`: `half` takes LLVM's `0xH` spelling of its 16 bits
/// (LLVM refuses a double spelling it would have to round), the others [`float_const`].
/// A `float` constant is rounded to float32 first, as the rspirv backend does.
pub(crate) fn float_const_of(s: ScalarType, v: f64) -> String {
    match s {
        ScalarType::F16 => format!("0xH{:04X}", crate::kernel::spirv::f64_to_f16_bits(v)),
        ScalarType::F32 => float_const(f64::from(v as f32)),
        _ => float_const(v),
    }
}
