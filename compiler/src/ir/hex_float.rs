//! Java's hexadecimal floating-point form (`0x1.8p1`, `0X.4P-2`), rounded once to float32 or
//! float64, to nearest even, subnormals included: the literal's value (sema) and
//! `Float.parseFloat` / `Double.parseDouble` (both host executors) read it alike.

/// The format a hex float is rounded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HexTarget {
    /// float32: 24 significant bits, least normal exponent -126.
    F32,
    /// float64: 53 significant bits, least normal exponent -1022.
    F64,
}

/// The value of `digits` (what follows `0x`: hex digits with at most one `.`, at least one
/// digit, then `p` or `P` and a decimal exponent with an optional sign), rounded once to
/// `target` (an infinity past its range), as an `f64` that holds it exactly; `None` when the
/// text is not of that form.
pub fn parse_hex_float(digits: &str, target: HexTarget) -> Option<f64> {
    let (mantissa, exponent) = digits.split_once(['p', 'P'])?;
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    // The digits as `m * 2^shift`, `m` kept under 2^60; a nonzero digit past that is `sticky`
    // (the value is a little more than `m * 2^shift`).
    let (mut m, mut shift, mut sticky) = (0u64, 0i64, false);
    for (c, fraction) in int_part
        .chars()
        .map(|c| (c, false))
        .chain(frac_part.chars().map(|c| (c, true)))
    {
        let d = u64::from(c.to_digit(16)?);
        if m < 1 << 60 {
            m = m * 16 + d;
            shift -= if fraction { 4 } else { 0 };
        } else {
            sticky |= d != 0;
            shift += if fraction { 0 } else { 4 };
        }
    }
    let exponent = exponent.strip_prefix('+').unwrap_or(exponent);
    let (negative, magnitude) = match exponent.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, exponent),
    };
    if magnitude.is_empty() || !magnitude.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturated: any exponent past a few thousand gives 0 or an infinity anyway.
    let e = magnitude
        .bytes()
        .fold(0i64, |v, b| (v * 10 + i64::from(b - b'0')).min(1 << 40));
    let scale = shift + if negative { -e } else { e };
    if m == 0 {
        return Some(0.0);
    }
    let (precision, least_normal, greatest) = match target {
        HexTarget::F32 => (24i64, -126i64, 127i64),
        HexTarget::F64 => (53, -1022, 1023),
    };
    let top = 63 - i64::from(m.leading_zeros());
    let leading = top + scale;
    if leading > greatest {
        return Some(f64::INFINITY);
    }
    // Bits of `m` the result keeps: all the precision for a normal result, fewer for a
    // subnormal one (none or less: the result is 0 or the least subnormal).
    let keep = precision - (least_normal - leading).max(0);
    let drop = top + 1 - keep;
    let (r, lsb) = if drop <= 0 {
        (m, scale)
    } else {
        let (r, rest, half) = if drop >= 64 {
            (0, m, None)
        } else {
            (m >> drop, m & ((1 << drop) - 1), Some(1u64 << (drop - 1)))
        };
        let up = match half {
            Some(h) => rest > h || (rest == h && (sticky || r & 1 == 1)),
            // Half the last kept bit's weight is 2^63 or more, past `m`.
            None => false,
        };
        (r + u64::from(up), scale + drop)
    };
    // `r * 2^lsb` is representable in `target` or is its overflow: `r` has at most
    // `precision + 1` bits and `lsb` is at least the least subnormal's exponent.
    let power = f64::from_bits(((lsb.clamp(-1022, 1023) + 1023) as u64) << 52);
    let value = if lsb < -1022 {
        (r as f64) * power * f64::from_bits(((lsb + 1022 + 1023) as u64) << 52)
    } else {
        (r as f64) * power
    };
    Some(match target {
        HexTarget::F32 => f64::from(value as f32),
        HexTarget::F64 => value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> f64 {
        parse_hex_float(s, HexTarget::F64).unwrap()
    }

    fn f(s: &str) -> f32 {
        parse_hex_float(s, HexTarget::F32).unwrap() as f32
    }

    #[test]
    fn exact_values() {
        assert_eq!(d("1.8p1"), 3.0);
        assert_eq!(d(".4P-2"), 0.0625);
        assert_eq!(d("1p0"), 1.0);
        assert_eq!(d("FFp+4"), 4080.0);
        assert_eq!(d("0p0"), 0.0);
        assert_eq!(d("1.fffffffffffffp1023"), f64::MAX);
        assert_eq!(d("1p-1074"), f64::from_bits(1));
        assert_eq!(f("1p-149"), f32::from_bits(1));
        assert_eq!(f("1.fffffep127"), f32::MAX);
    }

    /// Rounded once, to nearest even, with digits past 60 bits still deciding ties.
    #[test]
    fn rounds_once_to_nearest_even() {
        // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: even is 1.
        assert_eq!(d("1.00000000000008p0"), 1.0);
        // A nonzero digit far past the tie rounds up.
        assert_eq!(d("1.000000000000080000000001p0"), 1.0 + f64::EPSILON);
        // float32 directly, not through float64: 1 + 2^-24 + 2^-60 rounds up in float32.
        assert_eq!(f("1.000001000000001p0"), 1.0 + f32::EPSILON);
        assert_eq!(f("1.000001p0"), 1.0);
        // Past the range: infinity; below half the least subnormal: zero.
        assert_eq!(d("1p1024"), f64::INFINITY);
        assert_eq!(d("1.fffffffffffff8p1023"), f64::INFINITY);
        assert_eq!(f("1p128"), f32::INFINITY);
        assert_eq!(d("1p-1076"), 0.0);
        assert_eq!(d("1.0001p-1075"), f64::from_bits(1));
        assert_eq!(d("1p-1075"), 0.0);
        assert_eq!(d("1.8p-1074"), f64::from_bits(2));
        assert_eq!(d("1p99999999999999999999"), f64::INFINITY);
        assert_eq!(d("1p-99999999999999999999"), 0.0);
    }

    #[test]
    fn malformed_text_is_refused() {
        for bad in [
            "", "p1", ".p1", "1.8", "1p", "1p+", "1g0p1", "1.2.3p0", "1p1.5",
        ] {
            assert!(parse_hex_float(bad, HexTarget::F64).is_none(), "{bad}");
        }
    }
}
