//! `System.out.printf` formatting and `Integer.parseInt` / `Float.parseFloat`, following
//! Java's `java.util.Formatter` and `Integer`/`Float` where the format language of
//! [`crate::ir::printf`] overlaps it.
//!
//! Floats format like Java's: the digits are those of the shortest decimal that reads back as
//! the value (a `float32` argument is first widened to `float64`, as Java's varargs box it),
//! then rounded half-up to the precision — so `%.2f` of `0.125` is `0.13` (C would print
//! `0.12`) and `%.10f` of `0.1f` is `0.1000000015`.

use crate::host::interp::{Scalar, Value};
use crate::ir::hex_float::{parse_hex_float, HexTarget};
use crate::ir::printf::{Conversion, Piece};
use crate::ir::HostOp;

/// The text `System.out.printf(values[0], values[1..]…)` prints, or the runtime error's
/// message. Both host executors print through this (the native code's `cajeta_printf`).
pub fn printf_text(values: &[Value]) -> Result<String, String> {
    let Some((Value::Str(fmt), rest)) = values.split_first() else {
        return Err("printf needs a format string".into());
    };
    crate::ir::printf::parse(fmt)
        .and_then(|p| format(&p, rest))
        .map_err(|m| format!("printf: {m}"))
}

/// `Integer.parseInt` (`op`) and its kin of `v`, or the runtime error's message; for both
/// host executors.
pub fn parse_value(op: HostOp, v: &Value) -> Result<Scalar, String> {
    let text = match v {
        Value::Str(s) => s,
        Value::Void => return Err("cannot parse a null String".into()),
        other => return Err(format!("internal error: parsing {other:?}")),
    };
    match op {
        HostOp::ParseInt => parse_int(text).map(Scalar::I32),
        HostOp::ParseLong => parse_long(text).map(Scalar::I64),
        HostOp::ParseDouble => parse_double(text).map(Scalar::F64),
        _ => parse_float(text).map(Scalar::F32),
    }
}

/// Formats `args` by the parsed format; the error says which argument did not fit.
pub fn format(pieces: &[Piece], args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let mut next = args.iter();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Conv(c) => {
                let Some(v) = next.next() else {
                    return Err(format!("`%{}` has no argument", c.conv));
                };
                out.push_str(&conversion(c, v)?);
            }
        }
    }
    if next.next().is_some() {
        return Err(format!(
            "{} argument(s) but the format has fewer conversions",
            args.len()
        ));
    }
    Ok(out)
}

fn conversion(c: &Conversion, v: &Value) -> Result<String, String> {
    let scalar = v.as_scalar();
    let mismatch = |what: &str| -> Result<String, String> {
        let found = match scalar {
            Some(s) => s.ty().name().to_string(),
            None => "a non-scalar value".to_string(),
        };
        Err(format!("`%{}` needs {what}, found {found}", c.conv))
    };
    let (sign, body) = match c.conv {
        'd' => match scalar.and_then(Scalar::as_int) {
            Some(i) => {
                let digits = i.unsigned_abs().to_string();
                (sign_of(c, i < 0), group(c, &digits))
            }
            None => return mismatch("an integer"),
        },
        'x' | 'X' => match scalar {
            Some(s) if s.ty().is_integer() => {
                let i = s.as_int().unwrap_or(0);
                // Java prints negative values as their two's complement at the type's width.
                let bits = s.ty().bits();
                let mask = if bits >= 128 {
                    u128::MAX
                } else {
                    (1u128 << bits) - 1
                };
                let text = format!("{:x}", (i as u128) & mask);
                let text = if c.conv == 'X' {
                    text.to_uppercase()
                } else {
                    text
                };
                (String::new(), text)
            }
            _ => return mismatch("an integer"),
        },
        'c' => match scalar.and_then(Scalar::as_int) {
            Some(i) => match u32::try_from(i).ok().and_then(char::from_u32) {
                Some(ch) => (String::new(), ch.to_string()),
                None => return Err(format!("`%c`: {i} is not a character")),
            },
            None => return mismatch("an integer"),
        },
        'f' | 'e' | 'E' => match scalar {
            Some(s) if s.ty().is_float() => {
                let x = s.as_float().unwrap_or(0.0);
                let prec = c.precision.unwrap_or(6);
                if x.is_nan() || x.is_infinite() {
                    // Java's Formatter: `NAN`/`INFINITY` under `%E`, and spaces, not zeros,
                    // for the `0` flag (`%08.2f` of NaN is `     NaN`).
                    let word = match (x.is_nan(), c.conv == 'E') {
                        (true, false) => "NaN",
                        (true, true) => "NAN",
                        (false, false) => "Infinity",
                        (false, true) => "INFINITY",
                    };
                    let sign = if x.is_nan() {
                        String::new()
                    } else {
                        sign_of(c, x < 0.0)
                    };
                    let spaces = Conversion {
                        zero: false,
                        ..c.clone()
                    };
                    return Ok(pad(&spaces, &sign, word));
                } else {
                    let neg = x.is_sign_negative();
                    let body = if c.conv == 'f' {
                        let t = fixed(x.abs(), prec);
                        match t.split_once('.') {
                            Some((int, frac)) => format!("{}.{frac}", group(c, int)),
                            None => group(c, &t),
                        }
                    } else {
                        let t = scientific(x.abs(), prec);
                        if c.conv == 'E' {
                            t.to_uppercase()
                        } else {
                            t
                        }
                    };
                    (sign_of(c, neg), body)
                }
            }
            _ => return mismatch("a float"),
        },
        'b' => match scalar {
            Some(Scalar::Bool(b)) => (String::new(), b.to_string()),
            // Java: any non-null non-Boolean argument is "true".
            _ => (String::new(), (!matches!(v, Value::Void)).to_string()),
        },
        _ => {
            let text = v.to_string();
            let text = match c.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text,
            };
            let text = if c.conv == 'S' {
                text.to_uppercase()
            } else {
                text
            };
            (String::new(), text)
        }
    };
    Ok(pad(c, &sign, &body))
}

fn sign_of(c: &Conversion, negative: bool) -> String {
    if negative {
        "-".into()
    } else if c.plus {
        "+".into()
    } else if c.space {
        " ".into()
    } else {
        String::new()
    }
}

/// Inserts `,` every three digits when the `,` flag is set.
fn group(c: &Conversion, digits: &str) -> String {
    if !c.group || digits.len() <= 3 {
        return digits.to_string();
    }
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn pad(c: &Conversion, sign: &str, body: &str) -> String {
    let len = sign.chars().count() + body.chars().count();
    let fill = c.width.unwrap_or(0).saturating_sub(len);
    if c.left {
        format!("{sign}{body}{}", " ".repeat(fill))
    } else if c.zero && c.conv != 's' && c.conv != 'S' && c.conv != 'b' && c.conv != 'c' {
        format!("{sign}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    }
}

/// The shortest decimal digits of `x > 0` and the exponent of its first digit
/// (`x = 0.d1d2… × 10^(exp + 1)`); zero gives `("0", 0)`.
fn shortest(x: f64) -> (Vec<u8>, i32) {
    // As `Double.toString` chooses them (`%e` of `Double.MIN_VALUE` is `4.900000e-324`).
    let two = format!("{x:.1e}");
    let s = super::two_digits_if_closer(format!("{x:e}"), two.parse::<f64>() == Ok(x), two);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: Vec<u8> = mant
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    (digits, exp.parse().unwrap_or(0))
}

/// Rounds `digits` (a decimal significand) to its first `keep` digits, half-up; returns the
/// kept digits and whether the rounding carried into a new leading digit.
fn round_half_up(digits: &[u8], keep: usize) -> (Vec<u8>, bool) {
    if keep >= digits.len() {
        let mut d = digits.to_vec();
        d.resize(keep, 0);
        return (d, false);
    }
    let mut d = digits[..keep].to_vec();
    if digits[keep] >= 5 {
        let mut i = d.len();
        loop {
            if i == 0 {
                d.insert(0, 1);
                return (d, true);
            }
            i -= 1;
            if d[i] == 9 {
                d[i] = 0;
            } else {
                d[i] += 1;
                break;
            }
        }
    }
    (d, false)
}

fn text(d: &[u8]) -> String {
    d.iter().map(|b| char::from(b'0' + b)).collect()
}

/// `%.{prec}f` of `x >= 0`.
fn fixed(x: f64, prec: usize) -> String {
    let (digits, exp) = shortest(x);
    if x == 0.0 {
        return with_point("0", &"0".repeat(prec));
    }
    // Digits before the point.
    let int_len = exp + 1;
    let keep = int_len + prec as i32;
    let (d, int_len) = if keep < 0 {
        (Vec::new(), 0)
    } else {
        // Prepend zeros so that the integer part has at least one digit position.
        let lead = if int_len < 1 {
            (1 - int_len) as usize
        } else {
            0
        };
        let mut all = vec![0u8; lead];
        all.extend(&digits);
        let (d, carried) = round_half_up(&all, keep as usize + lead);
        (d, int_len.max(1) + i32::from(carried))
    };
    let int_len = int_len.max(0) as usize;
    let mut d = d;
    d.resize(int_len + prec, 0);
    let int = if int_len == 0 {
        "0".to_string()
    } else {
        text(&d[..int_len])
    };
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    with_point(int, &text(&d[int_len..]))
}

fn with_point(int: &str, frac: &str) -> String {
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

/// `%.{prec}e` of `x >= 0`, Java style: `1.500000e+01`.
fn scientific(x: f64, prec: usize) -> String {
    let (digits, mut exp) = shortest(x);
    if x == 0.0 {
        exp = 0;
    }
    let (d, carried) = round_half_up(&digits, prec + 1);
    if carried {
        exp += 1;
    }
    let d = &d[..prec + 1];
    let sign = if exp < 0 { '-' } else { '+' };
    format!(
        "{}e{sign}{:02}",
        with_point(&text(&d[..1]), &text(&d[1..])),
        exp.abs()
    )
}

/// `Integer.parseInt(s)`: an optional sign and decimal digits, within int32.
pub fn parse_int(s: &str) -> Result<i32, String> {
    parse_integer(s, "Integer.parseInt", "int32")
}

/// `Long.parseLong(s)`: as [`parse_int`], within int64.
pub fn parse_long(s: &str) -> Result<i64, String> {
    parse_integer(s, "Long.parseLong", "int64")
}

/// An optional sign and decimal digits, nothing else, within `T`'s range (Java's rule).
fn parse_integer<T: std::str::FromStr>(s: &str, call: &str, ty: &str) -> Result<T, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{call}: \"{s}\" is not an integer"));
    }
    s.parse::<T>()
        .map_err(|_| format!("{call}: \"{s}\" is out of the {ty} range"))
}

/// `Float.parseFloat(s)`: Java's syntax — surrounding whitespace, a sign, `NaN`, `Infinity`,
/// a decimal with optional exponent or a hexadecimal `0x…p…`, and an optional
/// `f`/`F`/`d`/`D` suffix — rounded once to the nearest float32.
pub fn parse_float(s: &str) -> Result<f32, String> {
    match parse_hex(s, HexTarget::F32, "Float.parseFloat")? {
        // Exactly a float32 already.
        Some(v) => Ok(v as f32),
        None => parse_real(s, "Float.parseFloat"),
    }
}

/// `Double.parseDouble(s)`: as [`parse_float`], rounded once to the nearest float64.
pub fn parse_double(s: &str) -> Result<f64, String> {
    match parse_hex(s, HexTarget::F64, "Double.parseDouble")? {
        Some(v) => Ok(v),
        None => parse_real(s, "Double.parseDouble"),
    }
}

/// Java's hexadecimal form (`0x1.8p1`, with the sign, whitespace and suffix [`parse_real`]
/// takes), rounded once to `target`; `None` when `s` is not hexadecimal.
fn parse_hex(s: &str, target: HexTarget, call: &str) -> Result<Option<f64>, String> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let body = t.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let Some(digits) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    else {
        return Ok(None);
    };
    let magnitude = parse_hex_float(digits, target)
        .ok_or_else(|| format!("{call}: \"{s}\" is not a number"))?;
    Ok(Some(if body.starts_with('-') {
        -magnitude
    } else {
        magnitude
    }))
}

fn parse_real<T: std::str::FromStr + From<f32>>(s: &str, call: &str) -> Result<T, String> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    match unsigned {
        "NaN" => return Ok(T::from(f32::NAN)),
        "Infinity" => {
            return Ok(T::from(if t.starts_with('-') {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            }))
        }
        _ => {}
    }
    let body = t.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t);
    let plain = body.strip_prefix(['+', '-']).unwrap_or(body);

    // Rust also reads `inf` and `nan`; Java does not.
    let valid = plain.bytes().any(|b| b.is_ascii_digit())
        && plain
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    match body.parse::<T>() {
        Ok(x) if valid => Ok(x),
        _ => Err(format!("{call}: \"{s}\" is not a number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::printf::parse;

    fn f(fmt: &str, args: &[Value]) -> String {
        format(&parse(fmt).unwrap(), args).unwrap()
    }

    fn s(x: Scalar) -> Value {
        Value::Scalar(x)
    }

    #[test]
    fn integers_like_java() {
        assert_eq!(
            f(
                "%d|%5d|%-5d|%05d",
                &[
                    s(Scalar::I32(-42)),
                    s(Scalar::I32(42)),
                    s(Scalar::I32(7)),
                    s(Scalar::I32(-3))
                ]
            ),
            "-42|   42|7    |-0003"
        );
        assert_eq!(
            f(
                "%x %X %x",
                &[s(Scalar::I32(-1)), s(Scalar::U32(255)), s(Scalar::I8(-1))]
            ),
            "ffffffff FF ff"
        );
        assert_eq!(
            f("%,d %+d", &[s(Scalar::I64(1234567)), s(Scalar::I32(5))]),
            "1,234,567 +5"
        );
    }

    #[test]
    fn floats_round_half_up_on_shortest_digits() {
        assert_eq!(f("%.2f", &[s(Scalar::F64(0.125))]), "0.13");
        assert_eq!(f("%.10f", &[s(Scalar::F32(0.1))]), "0.1000000015");
        assert_eq!(f("%f", &[s(Scalar::F32(1.5))]), "1.500000");
        assert_eq!(f("%.3f", &[s(Scalar::F64(-0.0004))]), "-0.000");
        assert_eq!(
            f("%.0f %.1f", &[s(Scalar::F64(9.5)), s(Scalar::F64(99.96))]),
            "10 100.0"
        );
        assert_eq!(f("%8.3f|", &[s(Scalar::F64(1.23456))]), "   1.235|");
        assert_eq!(f("%e", &[s(Scalar::F64(12345.678))]), "1.234568e+04");
        assert_eq!(f("%.2E", &[s(Scalar::F64(0.0009999))]), "1.00E-03");
        assert_eq!(
            f("%e %f", &[s(Scalar::F64(0.0)), s(Scalar::F32(f32::NAN))]),
            "0.000000e+00 NaN"
        );
        assert_eq!(f("%.1f", &[s(Scalar::F64(1e-9))]), "0.0");
        assert_eq!(f("%,.2f", &[s(Scalar::F64(1234567.891))]), "1,234,567.89");
    }

    /// Flags Java's Formatter refuses for a conversion are compile errors (they were
    /// accepted and ignored: `%,x` printed `ff`).
    #[test]
    fn flags_java_refuses_are_errors() {
        for bad in [
            "%,x", "%,e", "%0s", "%0c", "%0d", "%+x", "% s", "%,s", "%-08d", "%+ d", "%05%",
            "%.2%", "%-%", "%5n",
        ] {
            assert!(parse(bad).is_err(), "{bad} should be refused");
        }
        for good in [
            "%,d", "%,.2f", "%05d", "%08x", "%+d", "% .3e", "%-5s", "%08.2f",
        ] {
            assert!(parse(good).is_ok(), "{good} should be accepted");
        }
    }

    /// Java's hexadecimal form: `Double.parseDouble("0x1.8p1")` is 3.0 (it was refused), and
    /// `Float.parseFloat` rounds once to float32.
    #[test]
    fn hex_floats_parse_as_java() {
        assert_eq!(parse_double("0x1.8p1"), Ok(3.0));
        assert_eq!(parse_double(" -0X.4P-2d "), Ok(-0.0625));
        assert_eq!(parse_double("+0x1p-1074"), Ok(f64::from_bits(1)));
        assert_eq!(
            parse_float("0x1.000001000000001p0f"),
            Ok(1.0 + f32::EPSILON)
        );
        assert_eq!(parse_float("0x1p128"), Ok(f32::INFINITY));
        for bad in ["0x1.8", "0xp1", "0x1p", "0x1.8q1"] {
            assert!(parse_double(bad).is_err(), "{bad}");
        }
    }

    /// `%%` takes a width (and `-`) as in Java; it was printed as a bare `%`.
    #[test]
    fn a_percent_takes_a_width() {
        assert_eq!(f("[%5%][%-3%][%%]", &[]), "[    %][%  ][%]");
    }

    #[test]
    fn subnormals_format_from_javas_digits() {
        assert_eq!(
            f("%e", &[s(Scalar::F64(f64::from_bits(1)))]),
            "4.900000e-324"
        );
    }

    /// Java's Formatter pads NaN and infinities with spaces under the `0` flag and writes
    /// them in capitals under `%E` (they were zero-padded and kept their case).
    #[test]
    fn nan_and_infinities_as_java_formats_them() {
        let nan = s(Scalar::F64(f64::NAN));
        let inf = s(Scalar::F64(f64::INFINITY));
        let ninf = s(Scalar::F64(f64::NEG_INFINITY));
        assert_eq!(f("[%08.2f]", std::slice::from_ref(&nan)), "[     NaN]");
        assert_eq!(f("[%012e]", std::slice::from_ref(&ninf)), "[   -Infinity]");
        assert_eq!(
            f("[%+012.2f]", std::slice::from_ref(&inf)),
            "[   +Infinity]"
        );
        assert_eq!(
            f("[%E] [%E] [%E]", &[inf, nan, ninf]),
            "[INFINITY] [NAN] [-INFINITY]"
        );
    }

    #[test]
    fn strings_and_mismatches() {
        assert_eq!(
            f("%s=%.2s%n", &[Value::str("a"), Value::str("xyz")]),
            "a=xy\n"
        );
        assert_eq!(
            f("%b %c", &[s(Scalar::Bool(false)), s(Scalar::I32(65))]),
            "false A"
        );
        let e = format(&parse("%d").unwrap(), &[s(Scalar::F32(1.0))]).unwrap_err();
        assert!(e.contains("%d") && e.contains("float32"), "{e}");
        assert!(format(&parse("%d %d").unwrap(), &[s(Scalar::I32(1))]).is_err());
    }

    #[test]
    fn parsing_like_java() {
        assert_eq!(parse_int("-2147483648"), Ok(i32::MIN));
        assert_eq!(parse_int("+17"), Ok(17));
        assert!(parse_int("2147483648").is_err());
        assert!(parse_int(" 1").is_err());
        assert!(parse_int("").is_err());
        assert_eq!(parse_float(" 1.5f "), Ok(1.5));
        assert_eq!(parse_float("-Infinity"), Ok(f32::NEG_INFINITY));
        assert_eq!(parse_float("1e-3"), Ok(0.001));
        assert!(parse_float("NaN").unwrap().is_nan());
        assert!(parse_float("inf").is_err());
        assert!(parse_float("abc").is_err());
        assert!(parse_float("1.2.3").is_err());
    }
}
