//! The `.spvasm` text of a module: rspirv's disassembly, with the literal of every scalar
//! `OpConstant` / `OpSpecConstant` written as `spirv-as` reads it back to the same bits.
//!
//! rspirv prints the literal of an `OpSpecConstant` as its raw 32-bit word (`1067450368`
//! for 1.25, `4294967293` for a signed -3, which `spirv-as` refuses), and formats
//! `float16` constants as if they were `float32` bits. Here integers are printed by their
//! type's signedness and width, finite floats in the shortest decimal that reads back to the
//! same value, and infinities and NaNs in the hexadecimal form `spirv-dis` uses
//! (`0x1p+128`, `-0x1.8p+128`).

use std::collections::HashMap;

use rspirv::binary::Disassemble;
use rspirv::dr::Operand;
use rspirv::spirv::Op;

/// A scalar type of the module.
#[derive(Clone, Copy)]
enum Scalar {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

/// Disassembles SPIR-V words (deterministic; used for goldens and `--emit spvasm`). Words
/// that do not parse give a one-line comment saying why.
pub fn disassemble(words: &[u32]) -> String {
    let module = match rspirv::dr::load_words(words) {
        Ok(m) => m,
        Err(e) => return format!("; cannot disassemble: {e}\n"),
    };
    let mut scalars: HashMap<u32, Scalar> = HashMap::new();
    let mut literals: HashMap<u32, String> = HashMap::new();
    for inst in &module.types_global_values {
        let (Some(id), operands) = (inst.result_id, &inst.operands) else {
            continue;
        };
        match (inst.class.opcode, operands.as_slice()) {
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                scalars.insert(
                    id,
                    Scalar::Int {
                        width: *w,
                        signed: *s != 0,
                    },
                );
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => {
                scalars.insert(id, Scalar::Float { width: *w });
            }
            (Op::Constant | Op::SpecConstant, [value]) => {
                let bits = match value {
                    Operand::LiteralBit32(v) => u64::from(*v),
                    Operand::LiteralBit64(v) => *v,
                    _ => continue,
                };
                if let Some(ty) = inst.result_type.and_then(|t| scalars.get(&t)) {
                    literals.insert(id, literal(*ty, bits));
                }
            }
            _ => {}
        }
    }
    for inst in &module.debug_string_source {
        if let (Some(id), [Operand::LiteralString(s)]) = (inst.result_id, inst.operands.as_slice())
        {
            if inst.class.opcode == Op::String {
                literals.insert(id, quoted(s));
            }
        }
    }
    let text = module.disassemble();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = rewrite(line, &literals).unwrap_or_else(|| numbered_debug_printf(line));
        let line = cooperative_matrix_operands(&line);
        out.push_str(&line);
        out.push('\n');
    }
    // rspirv's text has no final newline; keep it that way.
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

/// `%id = OpConstant  %ty  <literal>` with the literal replaced, if `id` has one.
fn rewrite(line: &str, literals: &HashMap<u32, String>) -> Option<String> {
    let (lhs, rhs) = line.split_once(" = ")?;
    let id: u32 = lhs.strip_prefix('%')?.parse().ok()?;
    let text = literals.get(&id)?;
    let mut parts = rhs.split_whitespace();
    let op = parts.next()?;
    if op == "OpString" {
        return Some(format!("{lhs} = {op} {text}"));
    }
    if op != "OpConstant" && op != "OpSpecConstant" {
        return None;
    }
    let ty = parts.next()?;
    Some(format!("{lhs} = {op}  {ty}  {text}"))
}

/// A string literal as `spirv-dis` writes it (and `spirv-as` reads it back): only `"` and
/// `\\` escaped, every other character (a newline of a printf format too) as it is. rspirv
/// writes Rust escapes (`\n`), which `spirv-as` would read as the letter.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// A `NonSemantic.DebugPrintf` instruction with its number (`1`) where rspirv prints its
/// name: `spirv-as` has no grammar for that set and only reads the number back.
fn numbered_debug_printf(line: &str) -> String {
    if line.contains("OpExtInst ") {
        if let Some((head, tail)) = line.split_once(" DebugPrintf ") {
            return format!("{head} 1 {tail}");
        }
    }
    line.to_string()
}

/// `OpCooperativeMatrixMulAddKHR`'s operand mask as `spirv-as` reads it
/// (`MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR`) where rspirv prints the Rust
/// flags (`CooperativeMatrixOperands(MATRIX_A_SIGNED_COMPONENTS_KHR | …)`).
fn cooperative_matrix_operands(line: &str) -> String {
    const NAMES: [(&str, &str); 5] = [
        (
            "MATRIX_A_SIGNED_COMPONENTS_KHR",
            "MatrixASignedComponentsKHR",
        ),
        (
            "MATRIX_B_SIGNED_COMPONENTS_KHR",
            "MatrixBSignedComponentsKHR",
        ),
        (
            "MATRIX_C_SIGNED_COMPONENTS_KHR",
            "MatrixCSignedComponentsKHR",
        ),
        (
            "MATRIX_RESULT_SIGNED_COMPONENTS_KHR",
            "MatrixResultSignedComponentsKHR",
        ),
        ("SATURATING_ACCUMULATION_KHR", "SaturatingAccumulationKHR"),
    ];
    let Some((head, rest)) = line.split_once("CooperativeMatrixOperands(") else {
        return line.to_string();
    };
    let Some((flags, tail)) = rest.split_once(')') else {
        return line.to_string();
    };
    let names: Option<Vec<&str>> = flags
        .split('|')
        .map(|f| {
            NAMES
                .iter()
                .find(|(rust, _)| *rust == f.trim())
                .map(|n| n.1)
        })
        .collect();
    match names {
        Some(names) => format!("{head}{}{tail}", names.join("|")),
        None => line.to_string(),
    }
}

/// The literal of a constant of type `ty` whose value has the bit pattern `bits`.
fn literal(ty: Scalar, bits: u64) -> String {
    match ty {
        Scalar::Int { width, signed } => {
            let width = width.clamp(1, 64);
            let low = if width == 64 {
                bits
            } else {
                bits & ((1u64 << width) - 1)
            };
            if signed && width < 64 && low >> (width - 1) & 1 == 1 {
                (low as i64 - (1i64 << width)).to_string()
            } else if signed {
                (low as i64).to_string()
            } else {
                low.to_string()
            }
        }
        Scalar::Float { width } => {
            // Stored mantissa and exponent widths of IEEE binary16, binary64, binary32.
            let (mantissa_bits, exponent_bits) = match width {
                16 => (10, 5),
                64 => (52, 11),
                _ => (23, 8),
            };
            let max_exponent = (1u64 << exponent_bits) - 1;
            special(
                bits >> (mantissa_bits + exponent_bits),
                bits >> mantissa_bits & max_exponent,
                max_exponent,
                bits & ((1u64 << mantissa_bits) - 1),
                mantissa_bits,
                1 << (exponent_bits - 1),
            )
            .unwrap_or_else(|| match width {
                16 => format!("{:?}", half_to_f32(bits as u16)),
                64 => format!("{:?}", f64::from_bits(bits)),
                _ => format!("{:?}", f32::from_bits(bits as u32)),
            })
        }
    }
}

/// An infinity or NaN in `spirv-dis`'s hexadecimal form (`[-]0x1[.mantissa]p+<max>`), or
/// `None` for a finite value. `mantissa_bits` is the stored mantissa's width.
fn special(
    sign: u64,
    exponent: u64,
    max_exponent: u64,
    mantissa: u64,
    mantissa_bits: u32,
    bias_top: u32,
) -> Option<String> {
    if exponent != max_exponent {
        return None;
    }
    let sign = if sign & 1 == 1 { "-" } else { "" };
    if mantissa == 0 {
        return Some(format!("{sign}0x1p+{bias_top}"));
    }
    // Left-align the mantissa on a whole number of hex digits, then drop trailing zeros.
    let digits = mantissa_bits.div_ceil(4);
    let aligned = mantissa << (digits * 4 - mantissa_bits);
    let hex = format!("{aligned:0width$x}", width = digits as usize);
    Some(format!(
        "{sign}0x1.{}p+{bias_top}",
        hex.trim_end_matches('0')
    ))
}

/// The value of a `float16` bit pattern (finite), exactly.
fn half_to_f32(h: u16) -> f32 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exponent = i32::from(h >> 10 & 0x1f);
    let mantissa = f32::from(h & 0x3ff);
    if exponent == 0 {
        sign * mantissa * (2.0f32).powi(-24)
    } else {
        sign * (1.0 + mantissa / 1024.0) * (2.0f32).powi(exponent - 15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_read_back_to_the_same_bits() {
        let i32t = Scalar::Int {
            width: 32,
            signed: true,
        };
        assert_eq!(literal(i32t, u64::from((-3i32) as u32)), "-3");
        assert_eq!(
            literal(
                Scalar::Int {
                    width: 32,
                    signed: false
                },
                0xffff_fffd
            ),
            "4294967293"
        );
        assert_eq!(
            literal(
                Scalar::Int {
                    width: 16,
                    signed: true
                },
                0xfffe
            ),
            "-2"
        );
        assert_eq!(
            literal(Scalar::Float { width: 32 }, u64::from(1.25f32.to_bits())),
            "1.25"
        );
        assert_eq!(
            literal(Scalar::Float { width: 32 }, u64::from(1e-7f32.to_bits())),
            "1e-7"
        );
        assert_eq!(
            literal(
                Scalar::Float { width: 32 },
                u64::from(f32::INFINITY.to_bits())
            ),
            "0x1p+128"
        );
        assert_eq!(
            literal(Scalar::Float { width: 32 }, 0xffc0_0000),
            "-0x1.8p+128"
        );
        assert_eq!(literal(Scalar::Float { width: 16 }, 0x3d00), "1.25");
        assert_eq!(literal(Scalar::Float { width: 16 }, 0x7c00), "0x1p+16");
        assert_eq!(
            literal(Scalar::Float { width: 64 }, 0.1f64.to_bits()),
            "0.1"
        );
        assert_eq!(
            literal(Scalar::Float { width: 64 }, 0x7ff8_0000_0000_0000),
            "0x1.8p+1024"
        );
    }
}
