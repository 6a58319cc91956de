//! Numeric literal parsing and the "does it fit" rules of SPEC §3.

use crate::ir::hex_float::{parse_hex_float, HexTarget};
use crate::ir::ScalarType;

/// A parsed integer literal.
#[derive(Debug, Clone, Copy)]
pub struct IntLiteral {
    /// Magnitude as written.
    pub value: u128,
    /// Written in decimal (range-checked by value); hex/binary/octal literals may fill
    /// the type's bits, as in Java (`int32 x = 0xFFFFFFFF` is -1).
    pub decimal: bool,
    /// The type its suffix gives it: `L` is `int64`, `u` is `uint32`, `uL` is `uint64`
    /// (either case); `None` when unsuffixed (typed from context, SPEC §3).
    pub suffix: Option<ScalarType>,
}

/// Splits an integer literal's suffix off: the digits and the suffix's type.
fn split_int_suffix(text: &str) -> (&str, Option<ScalarType>) {
    let lower = text.to_ascii_lowercase();
    // Hex digits never include `l` or `u`, so the suffix is unambiguous in every radix.
    for (suffix, ty) in [
        ("ul", ScalarType::U64),
        ("u", ScalarType::U32),
        ("l", ScalarType::I64),
    ] {
        if lower.ends_with(suffix) {
            return (&text[..text.len() - suffix.len()], Some(ty));
        }
    }
    (text, None)
}

/// Whether an integer literal's text carries a type suffix (`5L`, `5u`, `5uL`).
pub fn has_int_suffix(text: &str) -> bool {
    split_int_suffix(text).1.is_some()
}

/// Parses an integer literal's text.
pub fn parse_int(text: &str) -> Result<IntLiteral, String> {
    let (body, suffix) = split_int_suffix(text);
    let clean: String = body.chars().filter(|c| *c != '_').collect();
    let (digits, radix) = if let Some(h) = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        (h.to_string(), 16)
    } else if let Some(b) = clean
        .strip_prefix("0b")
        .or_else(|| clean.strip_prefix("0B"))
    {
        (b.to_string(), 2)
    } else if clean.len() > 1 && clean.starts_with('0') {
        (clean[1..].to_string(), 8)
    } else {
        (clean.clone(), 10)
    };
    if digits.is_empty() {
        return Err(format!("`{text}` has no digits"));
    }
    let value = u128::from_str_radix(&digits, radix).map_err(|_| {
        if radix == 8 {
            format!("`{text}` is not a valid octal literal (a leading 0 means octal)")
        } else {
            format!("`{text}` is too large for any integer type")
        }
    })?;
    Ok(IntLiteral {
        value,
        decimal: radix == 10,
        suffix,
    })
}

/// The bit pattern of `value` (negated when `negative`) if it fits `ty`, else `None`.
pub fn fit_int(lit: &IntLiteral, negative: bool, ty: ScalarType) -> Option<u64> {
    if !ty.is_integer() {
        return None;
    }
    // The integer precision families hold 8 or 16 bits in every variant (SPEC §8).
    let bits = super::int_precision::value_bits(ty).unwrap_or(ty.bits());
    let mask: u128 = if bits == 64 {
        u64::MAX as u128
    } else {
        (1u128 << bits) - 1
    };
    let v = lit.value;
    if negative {
        if ty.is_unsigned_integer() {
            return if v == 0 { Some(0) } else { None };
        }
        let min_mag = 1u128 << (bits - 1);
        if v > min_mag {
            return None;
        }
        return Some(((v as i128).wrapping_neg() as u128 & mask) as u64);
    }
    let fits = if lit.decimal {
        let max = if ty.is_signed_integer() {
            (1u128 << (bits - 1)) - 1
        } else {
            mask
        };
        v <= max
    } else {
        v <= mask
    };
    fits.then_some((v & mask) as u64)
}

/// A parsed float literal: its value and its suffix type, if any.
pub fn parse_float(text: &str) -> Result<(f64, Option<ScalarType>), String> {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let is_hex = clean.starts_with("0x") || clean.starts_with("0X");
    let (body, suffix) = match clean.chars().last() {
        Some('f' | 'F') if !is_hex || clean.contains(['p', 'P']) => {
            (&clean[..clean.len() - 1], Some(ScalarType::F32))
        }
        Some('d' | 'D') if !is_hex || clean.contains(['p', 'P']) => {
            (&clean[..clean.len() - 1], Some(ScalarType::F64))
        }
        Some('h' | 'H') => (&clean[..clean.len() - 1], Some(ScalarType::F16)),
        _ => (clean.as_str(), None),
    };
    let value = if is_hex {
        // Rounded once to the literal's own type where that is float32 (not through float64).
        let target = if suffix == Some(ScalarType::F32) {
            HexTarget::F32
        } else {
            HexTarget::F64
        };
        parse_hex_float(&body[2..], target)
            .ok_or_else(|| format!("`{text}` is not a valid hex float"))?
    } else if suffix == Some(ScalarType::F32) {
        // Parse directly as f32 so the value is rounded once, not twice.
        body.parse::<f32>()
            .map(f64::from)
            .map_err(|_| format!("`{text}` is not a valid float"))?
    } else {
        body.parse::<f64>()
            .map_err(|_| format!("`{text}` is not a valid float"))?
    };
    Ok((value, suffix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::const_fold::round_to_float;

    #[test]
    fn integer_forms() {
        assert_eq!(parse_int("0x1F").unwrap().value, 31);
        assert_eq!(parse_int("0b101").unwrap().value, 5);
        assert_eq!(parse_int("017").unwrap().value, 15);
        assert_eq!(parse_int("1_000_000").unwrap().value, 1_000_000);
        assert_eq!(parse_int("5L").unwrap().suffix, Some(ScalarType::I64));
        assert_eq!(parse_int("5u").unwrap().suffix, Some(ScalarType::U32));
        assert_eq!(parse_int("5U").unwrap().suffix, Some(ScalarType::U32));
        assert_eq!(parse_int("5uL").unwrap().suffix, Some(ScalarType::U64));
        assert_eq!(parse_int("0xFFul").unwrap().value, 255);
        assert_eq!(parse_int("0b11U").unwrap().value, 3);
        assert_eq!(parse_int("017u").unwrap().value, 15);
        assert_eq!(parse_int("5").unwrap().suffix, None);
        assert!(parse_int("09").is_err());
    }

    #[test]
    fn fitting() {
        let l = parse_int("2147483648").unwrap();
        assert_eq!(fit_int(&l, false, ScalarType::I32), None);
        assert_eq!(fit_int(&l, true, ScalarType::I32), Some(0x8000_0000));
        assert_eq!(fit_int(&l, false, ScalarType::U32), Some(0x8000_0000));
        let h = parse_int("0xFFFFFFFF").unwrap();
        assert_eq!(fit_int(&h, false, ScalarType::I32), Some(0xFFFF_FFFF));
        assert_eq!(
            fit_int(&parse_int("1").unwrap(), true, ScalarType::U32),
            None
        );
        assert_eq!(
            fit_int(&parse_int("256").unwrap(), false, ScalarType::U8),
            None
        );
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float("1.5f").unwrap(), (1.5, Some(ScalarType::F32)));
        assert_eq!(parse_float(".5").unwrap(), (0.5, None));
        assert_eq!(parse_float("1e3").unwrap(), (1000.0, None));
        assert_eq!(parse_float("0x1.8p1").unwrap(), (3.0, None));
        // Rounded once, to the literal's type: a float32 literal straight to float32.
        assert_eq!(
            parse_float("0x1.000001000000001p0f").unwrap().0,
            f64::from(1.0 + f32::EPSILON)
        );
        assert_eq!(
            parse_float("0x1.00000000000008p0").unwrap(),
            (1.0, None),
            "a tie rounds to even"
        );
        assert_eq!(round_to_float(ScalarType::F16, 65520.0), f64::INFINITY);
        assert_eq!(round_to_float(ScalarType::F16, 1.0 + 1.0 / 4096.0), 1.0);
        assert_eq!(
            round_to_float(ScalarType::F16, 1.0 + 3.0 / 2048.0),
            1.0 + 2.0 / 1024.0
        );
    }
}
