//! The `System.out.printf` format language (a subset of Java's `java.util.Formatter`),
//! parsed once here so that the checker (literal formats) and the host interpreter (every
//! format) agree on it.
//!
//! A conversion is `%[flags][width][.precision]conv` with flags among `-0+ ,` and `conv`
//! one of `d` (integers), `x`/`X` (integers, hexadecimal; negative values print their two's
//! complement as Java does), `f`, `e`/`E` (floats; default precision 6), `s`/`S` (anything, as
//! `String.valueOf`), `c` (an integer code point), `b` (booleans); `%n` is a newline and `%%` a
//! percent sign. Argument indices (`%1$d`) and date conversions are not supported.

/// One conversion of a format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// `-`: left-justify within the width.
    pub left: bool,
    /// `0`: pad numbers with zeros.
    pub zero: bool,
    /// `+`: always print the sign of numbers.
    pub plus: bool,
    /// ` `: a space before non-negative numbers.
    pub space: bool,
    /// `,`: group thousands (decimal integers and `f`).
    pub group: bool,
    /// Minimum width.
    pub width: Option<usize>,
    /// Digits after the point (`f`, `e`) or maximum characters (`s`).
    pub precision: Option<usize>,
    /// The conversion character (`d x X f e E s S c b`).
    pub conv: char,
}

impl Conversion {
    /// What kind of argument the conversion takes.
    pub fn takes(&self) -> ArgKind {
        match self.conv {
            'd' | 'x' | 'X' | 'c' => ArgKind::Integer,
            'f' | 'e' | 'E' => ArgKind::Float,
            'b' => ArgKind::Bool,
            _ => ArgKind::Any,
        }
    }
}

/// The argument kind a conversion accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// Any integer type.
    Integer,
    /// Any float type.
    Float,
    /// `boolean`.
    Bool,
    /// Any value.
    Any,
}

/// A piece of a parsed format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text copied as is (`%n` and `%%` already replaced).
    Text(String),
    /// A conversion consuming the next argument.
    Conv(Conversion),
}

/// Parses a format string; the error names the offending part, as Java's
/// `UnknownFormatConversionException` does.
pub fn parse(format: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        let mut conv = Conversion {
            left: false,
            zero: false,
            plus: false,
            space: false,
            group: false,
            width: None,
            precision: None,
            conv: ' ',
        };
        while let Some(&f) = chars.peek() {
            match f {
                '-' => conv.left = true,
                '0' => conv.zero = true,
                '+' => conv.plus = true,
                ' ' => conv.space = true,
                ',' => conv.group = true,
                _ => break,
            }
            chars.next();
        }
        conv.width = digits(&mut chars);
        if chars.peek() == Some(&'.') {
            chars.next();
            conv.precision = Some(
                digits(&mut chars)
                    .ok_or_else(|| "a precision needs digits after `.`".to_string())?,
            );
        }
        let Some(ch) = chars.next() else {
            return Err("the format ends inside a `%` conversion".to_string());
        };
        // Java's IllegalFormatFlagsException, whatever the conversion.
        if conv.left && conv.zero {
            return Err("the `-` and `0` flags cannot be combined".to_string());
        }
        if conv.plus && conv.space {
            return Err("the `+` and ` ` flags cannot be combined".to_string());
        }
        let flagged = conv.zero || conv.plus || conv.space || conv.group;
        match ch {
            'n' if flagged || conv.left || conv.width.is_some() || conv.precision.is_some() => {
                return Err("`%n` takes no flags, width or precision".to_string());
            }
            'n' => text.push('\n'),
            // Only `-` and a width apply to `%%`, as in Java: `%5%` is `    %`.
            '%' if flagged || conv.precision.is_some() => {
                return Err("`%%` takes only the `-` flag and a width".to_string());
            }
            '%' if conv.left && conv.width.is_none() => {
                return Err("`%-%` needs a width".to_string());
            }
            '%' => {
                let pad = " ".repeat(conv.width.unwrap_or(1).saturating_sub(1).min(1 << 16));
                if conv.left {
                    text.push('%');
                    text.push_str(&pad);
                } else {
                    text.push_str(&pad);
                    text.push('%');
                }
            }
            'd' | 'x' | 'X' | 'f' | 'e' | 'E' | 's' | 'S' | 'c' | 'b' => {
                if conv.left && conv.width.is_none() {
                    return Err(format!("`%-{ch}` needs a width"));
                }
                if conv.precision.is_some() && matches!(ch, 'd' | 'x' | 'X' | 'c') {
                    return Err(format!("`%{ch}` takes no precision"));
                }
                // Java's FormatFlagsConversionMismatchException and MissingFormatWidth.
                if conv.group && !matches!(ch, 'd' | 'f') {
                    return Err(format!(
                        "the `,` flag does not apply to `%{ch}` (only `%d` and `%f`)"
                    ));
                }
                if conv.zero && matches!(ch, 's' | 'S' | 'c' | 'b') {
                    return Err(format!(
                        "the `0` flag does not apply to `%{ch}` (numbers only)"
                    ));
                }
                if conv.zero && conv.width.is_none() {
                    return Err(format!("`%0{ch}` needs a width"));
                }
                if (conv.plus || conv.space) && matches!(ch, 's' | 'S' | 'c' | 'b' | 'x' | 'X') {
                    let flag = if conv.plus { '+' } else { ' ' };
                    return Err(format!("the `{flag}` flag does not apply to `%{ch}`"));
                }
                conv.conv = ch;
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Conv(conv));
            }
            other => return Err(format!("unknown conversion `%{}`", other.escape_debug())),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<usize> {
    let mut n: Option<usize> = None;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize));
        chars.next();
    }
    n
}

/// The conversions of a parsed format, in argument order.
pub fn conversions(pieces: &[Piece]) -> impl Iterator<Item = &Conversion> {
    pieces.iter().filter_map(|p| match p {
        Piece::Conv(c) => Some(c),
        Piece::Text(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_flags_width_precision_and_escapes() {
        let p = parse("a%-8.3f|%05d%n%%%x").unwrap();
        assert_eq!(p.len(), 6);
        let Piece::Conv(c) = &p[1] else { panic!() };
        assert!(c.left && c.width == Some(8) && c.precision == Some(3) && c.conv == 'f');
        assert_eq!(p[4], Piece::Text("\n%".into()));
        assert_eq!(conversions(&p).count(), 3);
    }

    #[test]
    fn rejects_unknown_and_truncated_conversions() {
        assert!(parse("%q").unwrap_err().contains("%q"));
        assert!(parse("50%").is_err());
        assert!(parse("%.2d").is_err());
    }
}
