//! The text form of values, shared by both host executors (the interpreter and native
//! code print, concatenate, format and parse through this module and nothing else).
//!
//! Here: Java-like text of floats for `println`, `print` and string concatenation; in
//! [`printf`], `System.out.printf` and `Integer.parseInt` and its kin.
//!
//! Follows `Float.toString` / `Double.toString` of Java 19 and later:
//! - the digits are the shortest decimal that reads back as the same value (Rust's `{:e}`
//!   produces exactly those);
//! - magnitudes in `[1e-3, 1e7)` print as plain decimals with at least one fraction digit
//!   (`1.0`, `0.5`, `123.25`, `0.001`);
//! - others print as `d.dddE<exp>` with at least one fraction digit (`1.0E10`, `1.5E-5`);
//! - `NaN`, `Infinity`, `-Infinity`, `0.0`, `-0.0`.
//!
//! `float16` and `bfloat16` values print as the `float32` they are stored in (Java has no such
//! types), e.g. the float16 nearest 0.1 prints `0.099975586`.

pub mod printf;

/// Room for the text of any integer of the language (39 digits and a sign for the widest
/// value [`int_text`] takes).
pub type IntBuf = [u8; 40];

/// The decimal text of `v` (`Integer.toString` and its kin: a `-` for negatives, no
/// leading zeros), written into the end of `buf`. Both executors write every integer
/// through this, for printing and for `+` on strings; it is digit arithmetic on `u64`, not
/// the `fmt` machinery, because building strings from numbers in a loop is common host code.
pub fn int_text(v: i128, buf: &mut IntBuf) -> &str {
    let mut i = buf.len();
    let magnitude = v.unsigned_abs();
    if let Ok(mut n) = u64::try_from(magnitude) {
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
    } else {
        let mut n = magnitude;
        while n > 0 {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    // Only ASCII digits and `-` were written.
    std::str::from_utf8(&buf[i..]).unwrap_or("")
}

/// `Float.toString(x)`.
pub fn java_f32(x: f32) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() || x == 0.0 {
        return java_f64(x as f64);
    }
    let a = x.abs();
    let two = format!("{a:.1e}");
    let sci = two_digits_if_closer(format!("{a:e}"), two.parse::<f32>() == Ok(a), two);
    layout(x < 0.0, &sci, (a as f64) < 1e-3 || a >= 1e7)
}

/// Java's choice when the shortest decimal that reads back as the value has one digit
/// (`shortest`): the two-digit decimal nearest the value instead (`two`, Rust's correctly
/// rounded `{:.1e}`), if it reads back as the value too (`two_reads_back`) and does not end
/// in 0. It differs from the one digit only where the values are far apart, among the
/// subnormals: `Float.MIN_VALUE` prints `1.4E-45`, not `1.0E-45`.
pub(super) fn two_digits_if_closer(shortest: String, two_reads_back: bool, two: String) -> String {
    let one_digit = shortest.split_once('e').is_some_and(|(m, _)| m.len() == 1);
    let ends_in_zero = two.split_once('e').is_some_and(|(m, _)| m.ends_with('0'));
    if one_digit && two_reads_back && !ends_in_zero {
        two
    } else {
        shortest
    }
}

/// `Double.toString(x)`.
pub fn java_f64(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let a = x.abs();
    let two = format!("{a:.1e}");
    let sci = two_digits_if_closer(format!("{a:e}"), two.parse::<f64>() == Ok(a), two);
    layout(x < 0.0, &sci, !(1e-3..1e7).contains(&a))
}

/// Lays out Rust's shortest scientific form `d[.ddd]e<n>` the way Java does.
fn layout(negative: bool, sci: &str, scientific: bool) -> String {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if scientific {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&exp.to_string());
    } else if exp >= 0 {
        // The decimal point goes after digit `exp`.
        let int_len = exp as usize + 1;
        if digits.len() > int_len {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        } else {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            out.push_str(".0");
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_print_like_java() {
        let mut buf: IntBuf = [0; 40];
        for v in [
            0i128,
            7,
            -7,
            10,
            -10,
            1234567890,
            i64::MAX as i128,
            i64::MIN as i128,
            u64::MAX as i128,
            i128::MAX,
            i128::MIN,
        ] {
            assert_eq!(int_text(v, &mut buf), v.to_string());
        }
    }

    /// Java picks the two-digit decimal nearest the value when the shortest one has a single
    /// digit; it differs among the subnormals only.
    #[test]
    fn subnormals_print_like_java() {
        assert_eq!(java_f32(f32::from_bits(1)), "1.4E-45");
        assert_eq!(java_f32(f32::from_bits(3)), "4.2E-45");
        assert_eq!(java_f64(f64::from_bits(1)), "4.9E-324");
        assert_eq!(java_f64(f64::from_bits(2)), "9.9E-324");
        assert_eq!(java_f64(-f64::from_bits(1)), "-4.9E-324");
        assert_eq!(java_f64(2e-5), "2.0E-5");
        assert_eq!(java_f64(0.3), "0.3");
    }

    #[test]
    fn floats_print_like_java() {
        assert_eq!(java_f32(1.0), "1.0");
        assert_eq!(java_f32(0.5), "0.5");
        assert_eq!(java_f32(-2.25), "-2.25");
        assert_eq!(java_f32(1.0e10), "1.0E10");
        assert_eq!(java_f32(1.5e-5), "1.5E-5");
        assert_eq!(java_f32(0.001), "0.001");
        assert_eq!(java_f32(1234567.0), "1234567.0");
        assert_eq!(java_f32(1.0e7), "1.0E7");
        assert_eq!(java_f32(0.1), "0.1");
        assert_eq!(java_f32(100.0), "100.0");
        assert_eq!(java_f32(f32::NAN), "NaN");
        assert_eq!(java_f32(f32::NEG_INFINITY), "-Infinity");
        assert_eq!(java_f32(-0.0), "-0.0");
        assert_eq!(java_f64(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(java_f64(1e100), "1.0E100");
        assert_eq!(java_f64(123.0), "123.0");
        assert_eq!(java_f64(0.0123), "0.0123");
    }
}
