//! The methods of `String` values (`s.length()`, `s.substring(a, b)` …) with Java's meaning:
//! positions and lengths count UTF-16 code units, `charAt` gives a code unit, and an index out
//! of range is a runtime error naming the index and the length (Java's
//! `StringIndexOutOfBoundsException`). ASCII text, the common case, is indexed directly.

use super::eval::{err, internal, Fail};
use super::value::{Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::StringOp;

/// Runs `op` on `args` (the receiver first).
pub(crate) fn method(op: StringOp, args: &[Value], span: Span) -> Result<Value, Fail> {
    let Some((recv, rest)) = args.split_first() else {
        return internal(span, "a String method without a receiver");
    };
    let s: &str = match recv {
        Value::Str(s) => s,
        Value::Void => return err(span, format!("`{}` of a null String", name(op))),
        other => return internal(span, format!("String method on {other:?}")),
    };
    let int = |k: usize| -> Result<i64, Fail> {
        match rest.get(k) {
            Some(Value::Scalar(x)) => x
                .as_int()
                .map(|v| v as i64)
                .map_or_else(|| internal(span, "integer argument"), Ok),
            _ => internal(span, "missing integer argument"),
        }
    };
    let text = |k: usize| -> Result<&str, Fail> {
        match rest.get(k) {
            Some(Value::Str(t)) => Ok(t),
            Some(Value::Void) => err(span, format!("`{}` with a null String argument", name(op))),
            _ => internal(span, "missing String argument"),
        }
    };
    if op == StringOp::Length {
        return Ok(Value::Scalar(Scalar::I32(utf16_len(s) as i32)));
    }
    let units = Units::of(s);
    Ok(match op {
        StringOp::Length => Value::Scalar(Scalar::I32(utf16_len(s) as i32)),
        StringOp::CharAt => {
            let i = int(0)?;
            let Some(u) = usize::try_from(i).ok().and_then(|i| units.get(i)) else {
                return err(
                    span,
                    format!("charAt: index {i} out of bounds for length {}", units.len()),
                );
            };
            Value::Scalar(Scalar::I32(i32::from(u)))
        }
        StringOp::Substring => {
            let len = units.len() as i64;
            let begin = int(0)?;
            let end = if rest.len() > 1 { int(1)? } else { len };
            if begin < 0 || end > len || begin > end {
                return err(
                    span,
                    format!("substring: begin {begin}, end {end}, length {len}"),
                );
            }
            Value::str(units.slice(begin as usize, end as usize))
        }
        StringOp::Equals => Value::Scalar(Scalar::Bool(s == text(0)?)),
        StringOp::IsEmpty => Value::Scalar(Scalar::Bool(s.is_empty())),
        StringOp::Contains => Value::Scalar(Scalar::Bool(s.contains(text(0)?))),
        StringOp::StartsWith => Value::Scalar(Scalar::Bool(s.starts_with(text(0)?))),
        StringOp::EndsWith => Value::Scalar(Scalar::Bool(s.ends_with(text(0)?))),
        StringOp::IndexOf => {
            let at = s
                .find(text(0)?)
                .map_or(-1, |byte| s[..byte].encode_utf16().count() as i32);
            Value::Scalar(Scalar::I32(at))
        }
        StringOp::CompareTo => {
            let (a, b) = (units.all(), Units::of(text(0)?).all());
            let diff = a
                .iter()
                .zip(&b)
                .find(|(x, y)| x != y)
                .map_or(a.len() as i32 - b.len() as i32, |(x, y)| {
                    i32::from(*x) - i32::from(*y)
                });
            Value::Scalar(Scalar::I32(diff))
        }
        // Java's trim: code units up to U+0020 at either end.
        StringOp::Trim => Value::str(s.trim_matches(|c: char| c <= ' ')),
        StringOp::ToUpperCase => Value::str(s.to_uppercase()),
        StringOp::ToLowerCase => Value::str(s.to_lowercase()),
    })
}

/// The method's name, for messages.
fn name(op: StringOp) -> &'static str {
    match op {
        StringOp::Length => "length",
        StringOp::CharAt => "charAt",
        StringOp::Substring => "substring",
        StringOp::Equals => "equals",
        StringOp::IsEmpty => "isEmpty",
        StringOp::Contains => "contains",
        StringOp::StartsWith => "startsWith",
        StringOp::EndsWith => "endsWith",
        StringOp::IndexOf => "indexOf",
        StringOp::CompareTo => "compareTo",
        StringOp::Trim => "trim",
        StringOp::ToUpperCase => "toUpperCase",
        StringOp::ToLowerCase => "toLowerCase",
    }
}

/// `s.length()`: the number of UTF-16 code units of `s` (its bytes when it is ASCII), without
/// building them.
pub(crate) fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// A string's UTF-16 code units: the bytes themselves for ASCII text, decoded otherwise.
enum Units<'a> {
    Ascii(&'a str),
    Wide(Vec<u16>),
}

impl<'a> Units<'a> {
    fn of(s: &'a str) -> Units<'a> {
        if s.is_ascii() {
            Units::Ascii(s)
        } else {
            Units::Wide(s.encode_utf16().collect())
        }
    }

    fn len(&self) -> usize {
        match self {
            Units::Ascii(s) => s.len(),
            Units::Wide(u) => u.len(),
        }
    }

    fn get(&self, i: usize) -> Option<u16> {
        match self {
            Units::Ascii(s) => s.as_bytes().get(i).map(|b| u16::from(*b)),
            Units::Wide(u) => u.get(i).copied(),
        }
    }

    fn all(&self) -> Vec<u16> {
        match self {
            Units::Ascii(s) => s.bytes().map(u16::from).collect(),
            Units::Wide(u) => u.clone(),
        }
    }

    /// Units `[begin, end)` as a string (a surrogate pair cut in half becomes U+FFFD, as
    /// the String's text cannot hold half a character).
    fn slice(&self, begin: usize, end: usize) -> String {
        match self {
            Units::Ascii(s) => s[begin..end].to_string(),
            Units::Wide(u) => String::from_utf16_lossy(&u[begin..end]),
        }
    }
}
