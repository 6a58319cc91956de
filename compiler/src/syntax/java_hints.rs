//! Hints for parse errors that come from writing Java: `new T[n]` / `new T(…)` (this
//! language allocates with `heap` or `stack`) and a constructor call without `stack`
//! (`Vector<float32,3>(1.0f)`). The parser has stopped by then, so the hints read the
//! source text around the unexpected token.

use super::lexer::{Tok, GENERIC_TYPES};
use crate::diagnostics::similar::closest;
use crate::diagnostics::{Code, Diagnostic, FileId, Span};

/// Types whose values are allocated with `heap` (resources and streams); other
/// constructions are usually written with `stack`.
const HEAP_CLASSES: &[&str] = &[
    "KernelBuffer",
    "Buffer",
    "Image2D",
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "TextureCube",
    "Sampler",
    "KernelStream",
    "AccelerationStructure",
];

/// A better diagnostic than "unexpected token" for the token `tok` at `l..r`, when the
/// text before it is Java's `new` or the token starts a construction missing `stack`.
/// `expects_expr`: the parser would have taken an expression (`stack`) here.
pub(super) fn java_hint(
    file: FileId,
    source: &str,
    (l, tok, r): (usize, &Tok, usize),
    expects_expr: bool,
) -> Option<Diagnostic> {
    if let Some(d) = unknown_generic(file, source, l) {
        return Some(d);
    }
    if matches!(tok, Tok::LParen) {
        // `Vector<float32,3>(…)` in an expression: the parser took `Vector<float32,3>` as the
        // start of a static call (`KernelBuffer<T>.alloc(n)`) and stops at the `(`.
        if let Some((start, name)) = generic_type_before(source, l) {
            let written = construction_text(&source[start..])?;
            let keyword = if HEAP_CLASSES.contains(&name) {
                "heap"
            } else {
                "stack"
            };
            return Some(
                Diagnostic::error(
                    Code::SyntaxError,
                    Span::new(file, start, start + name.len()),
                    format!("constructing a `{name}` needs `{keyword}` before it"),
                )
                .with_label("a construction without `stack` or `heap`")
                .with_note(format!("help: write `{keyword} {written}`")),
            );
        }
    }
    if matches!(tok, Tok::LBrace) && expects_expr {
        return Some(
            Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, l, r),
                "array literals are written with brackets, not braces",
            )
            .with_label("Java's array initializer")
            .with_note("help: write `[a, b, c]`, as in `int32[] zero = [0];`"),
        );
    }
    if matches!(tok, Tok::EmptyBrackets) {
        return Some(
            Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, l, r),
                "array brackets go after the element type, not after the name",
            )
            .with_label("C's `T name[]`")
            .with_note("help: write `T[] name`, as in `float32[] out = heap float32[n];`"),
        );
    }
    let type_name = match tok {
        Tok::Ident(s) | Tok::GenericName(s) | Tok::UserGenericName(s) | Tok::PrimType(s) => {
            s.as_str()
        }
        _ => return None,
    };
    let written = construction_text(&source[l..])?;
    if let Some(new_at) = new_before(source, l) {
        let keyword = if written.ends_with(']') || HEAP_CLASSES.contains(&type_name) {
            "heap"
        } else {
            "stack"
        };
        return Some(
            Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, new_at, new_at + 3),
                "`new` is not a keyword here: values are allocated with `heap` or `stack`",
            )
            .with_label("Java's `new`")
            .with_note(format!("help: write `{keyword} {written}`"))
            .with_note(
                "`heap` and `stack` both build a value; `heap` is the usual one for arrays and resources",
            ),
        );
    }
    if expects_expr
        && matches!(tok, Tok::PrimType(_) | Tok::GenericName(_))
        && written.ends_with(']')
    {
        return Some(
            Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, l, r),
                "allocating an array needs `heap` before it",
            )
            .with_label("an array allocation without `heap`")
            .with_note(format!("help: write `heap {written}`")),
        );
    }
    if expects_expr && matches!(tok, Tok::GenericName(_)) && written.ends_with(')') {
        let keyword = if HEAP_CLASSES.contains(&type_name) {
            "heap"
        } else {
            "stack"
        };
        return Some(
            Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, l, r),
                format!("constructing a `{type_name}` needs `{keyword}` before it"),
            )
            .with_label("a construction without `stack` or `heap`")
            .with_note(format!("help: write `{keyword} {written}`")),
        );
    }
    None
}

/// E0007 for `Name<` where `Name` is not a generic type (`KernelBufer<float32>`): the
/// lexer read its `<` as less-than, so the parser stops at the type argument after it.
fn unknown_generic(file: FileId, source: &str, at: usize) -> Option<Diagnostic> {
    let before = source[..at].trim_end().strip_suffix('<')?.trim_end();
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map(|(i, _)| i)?;
    let name = &before[start..];
    if !name.starts_with(|c: char| c.is_ascii_uppercase()) || GENERIC_TYPES.contains(&name) {
        return None;
    }
    let mut d = Diagnostic::error(
        Code::UnknownType,
        Span::new(file, start, before.len()),
        format!("unknown generic type `{name}`"),
    )
    .with_label("not a generic type");
    if let Some(similar) = closest(name, GENERIC_TYPES.iter().copied()) {
        d = d.with_note(format!(
            "help: a type with a similar name exists: `{similar}`"
        ));
    }
    Some(d)
}

/// The library generic type written right before `at` with its arguments
/// (`Vector<float32,3>`): where its name starts, and the name.
fn generic_type_before(source: &str, at: usize) -> Option<(usize, &str)> {
    let before = source[..at].trim_end();
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in before.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            '\n' | ';' | '(' | ')' | '=' => return None,
            _ if depth == 0 => return None,
            _ => {}
        }
    }
    let name_end = before[..open?].trim_end();
    let start = name_end
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map(|(i, _)| i)?;
    let name = &name_end[start..];
    GENERIC_TYPES.contains(&name).then_some((start, name))
}

/// The start of a `new` word that ends right before `at` (whitespace between), if any.
fn new_before(source: &str, at: usize) -> Option<usize> {
    word_before(source, at, "new")
}

/// Where the word `word` ends the text before `at` (spaces between), if it does.
fn word_before(source: &str, at: usize, word: &str) -> Option<usize> {
    let before = source[..at].trim_end();
    let start = before.strip_suffix(word).map(str::len)?;
    let boundary = before[..start]
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    boundary.then_some(start)
}

/// The text of the construction that starts `rest` (`float32[16]`, `Foo(1, 2)`,
/// `Vector<float32,3>(1.0f)`): up to the bracket that closes its last group, or `None`
/// when that is not on the same line or is long.
fn construction_text(rest: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut opened = false;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => {
                depth += 1;
                opened = true;
            }
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                let next = rest[i + 1..].trim_start();
                if depth == 0 && !next.starts_with(['(', '[']) {
                    return Some(&rest[..=i]);
                }
            }
            '\n' | ';' | '{' | '}' => return None,
            ',' if depth == 0 && opened => return None,
            _ => {}
        }
        if i > 120 {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_type_before_finds_the_name_and_its_arguments() {
        let src = "v = Vector<float32,3>(1.0f);";
        let at = src.find('(').unwrap();
        assert_eq!(generic_type_before(src, at), Some((4, "Vector")));
        let nested = "b = KernelBuffer<Vector<float32, 4>>(n);";
        assert_eq!(
            generic_type_before(nested, nested.find('(').unwrap()),
            Some((4, "KernelBuffer"))
        );
        assert_eq!(generic_type_before("f(a > b)(", 8), None);
    }

    #[test]
    fn construction_text_stops_at_its_closing_bracket() {
        assert_eq!(construction_text("float32[16];"), Some("float32[16]"));
        assert_eq!(construction_text("Foo(1, g(2)), 3);"), Some("Foo(1, g(2))"));
        assert_eq!(construction_text("float32[4][4];"), Some("float32[4][4]"));
        assert_eq!(
            construction_text("Vector<float32,3>(1.0f);"),
            Some("Vector<float32,3>(1.0f)")
        );
        assert_eq!(construction_text("Foo;"), None);
    }

    #[test]
    fn new_must_be_a_whole_word() {
        assert_eq!(new_before("x = new  Foo", 9), Some(4));
        assert_eq!(new_before("x = renew Foo", 10), None);
    }
}
