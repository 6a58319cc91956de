//! The format language of `System.out.printf` in device code: GLSL's `debugPrintfEXT`
//! (the `NonSemantic.DebugPrintf` instruction the Vulkan validation layer services), parsed
//! once here so that the checker and the SPIR-V backend agree on what each argument becomes.
//!
//! A conversion is `%[flags][width][.precision][vN]conv`: flags among `-+ #0`, `vN`
//! (N = 2, 3 or 4) a vector of N lanes printed comma-separated, and `conv` one of
//! `d i o u x X` (32-bit integers) or `a A e E f F g G` (floats); a 64-bit integer prints
//! with exactly `%lu` or `%lx` (no flags, width or vector: the only forms the validation
//! layer reads as 64 bits in every version). `%%` is a percent sign. The text itself, escapes already
//! resolved by the lexer, goes into the module unchanged as an `OpString`.

use crate::ir::ScalarType;

/// What a conversion prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// `d i o u x X`: a 32-bit integer (64-bit with `l`).
    Integer,
    /// `a A e E f F g G`: a 32-bit float.
    Float,
}

/// One conversion of a kernel format string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The conversion character.
    pub conv: char,
    /// What kind of value it prints.
    pub class: Class,
    /// `vN`: the lane count of a vector argument.
    pub lanes: Option<u32>,
    /// `l`: a 64-bit integer.
    pub long: bool,
}

impl Spec {
    /// The scalar type the validation layer reads for this conversion given an argument
    /// lane of type `elem` (both kernel backends convert to it): float32 for float
    /// conversions; for integer ones 32 bits (64 with `l`), keeping the argument's
    /// signedness (a boolean prints as `uint32`).
    pub fn printed_type(&self, elem: ScalarType) -> ScalarType {
        match (
            self.class,
            self.long,
            elem.is_unsigned_integer() || elem == ScalarType::Bool,
        ) {
            (Class::Float, _, _) => ScalarType::F32,
            (Class::Integer, true, true) => ScalarType::U64,
            (Class::Integer, true, false) => ScalarType::I64,
            (Class::Integer, false, true) => ScalarType::U32,
            (Class::Integer, false, false) => ScalarType::I32,
        }
    }
}

/// The conversion characters and what they print.
fn class_of(conv: char) -> Option<Class> {
    match conv {
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' => Some(Class::Integer),
        'a' | 'A' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => Some(Class::Float),
        _ => None,
    }
}

/// Parses a kernel format string into its conversions, in argument order; the error says
/// which part is malformed.
pub fn parse(format: &str) -> Result<Vec<Spec>, String> {
    let mut specs = Vec::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            continue;
        }
        let mut text = String::from("%");
        while let Some(&f) = chars.peek().filter(|f| "-+ #0".contains(**f)) {
            text.push(f);
            chars.next();
        }
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            text.push(d);
            chars.next();
        }
        if chars.peek() == Some(&'.') {
            text.push('.');
            chars.next();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                text.push(d);
                chars.next();
            }
        }
        let mut lanes = None;
        if chars.peek() == Some(&'v') {
            chars.next();
            text.push('v');
            match chars.next() {
                Some(n @ '2'..='4') => {
                    text.push(n);
                    lanes = n.to_digit(10);
                }
                other => {
                    let got = other.map(String::from).unwrap_or_default();
                    return Err(format!(
                        "`{text}{got}`: a vector conversion needs a lane count of 2, 3 or 4 after `v`"
                    ));
                }
            }
        }
        let long = chars.peek() == Some(&'l');
        if long {
            text.push('l');
            chars.next();
        }
        let Some(conv) = chars.next() else {
            return Err(format!(
                "`{text}` at the end of the format has no conversion"
            ));
        };
        text.push(conv);
        let Some(class) = class_of(conv) else {
            let hint = match conv {
                's' => " (a kernel prints numbers only; put text in the format itself)",
                'n' => " (write `\\n` for a newline)",
                'c' | 'b' => " (print the value with `%d`)",
                _ => "",
            };
            return Err(format!(
                "unknown conversion `{}`{hint}",
                text.escape_debug()
            ));
        };
        if long && class != Class::Integer {
            return Err(format!(
                "`{text}`: `l` applies to the integer conversions only (`%ld`, `%lu`, `%lx`)"
            ));
        }
        // The validation layer (1.3.239, Debian's) reads a value as 64 bits only for the
        // exact texts `%lu` and `%lx`; any other `l` form it reads as 32 bits, printing
        // the low half and shifting every later argument by a word.
        if long && text != "%lu" && text != "%lx" {
            return Err(format!(
                "`{text}`: 64-bit integers print only as plain `%lu` or `%lx` (the validation layer reads other `l` forms as 32 bits); a signed value prints its two's complement"
            ));
        }
        if long && lanes.is_some() {
            return Err(format!(
                "`{text}`: vectors of 64-bit integers cannot be printed; print each lane with `%lu`"
            ));
        }
        specs.push(Spec {
            conv,
            class,
            lanes,
            long,
        });
    }
    Ok(specs)
}

/// `text` as a format that prints it literally (`%` doubled), for `System.out.println`.
pub fn literal(text: &str) -> String {
    text.replace('%', "%%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_vectors_and_long_integers_parse() {
        let specs = parse("i=%d x=%08x f=%.3f v=%v4f u=%v2u big=%lu %% done %lx\n").unwrap();
        let summary: Vec<_> = specs
            .iter()
            .map(|s| (s.conv, s.class, s.lanes, s.long))
            .collect();
        assert_eq!(
            summary,
            [
                ('d', Class::Integer, None, false),
                ('x', Class::Integer, None, false),
                ('f', Class::Float, None, false),
                ('f', Class::Float, Some(4), false),
                ('u', Class::Integer, Some(2), false),
                ('u', Class::Integer, None, true),
                ('x', Class::Integer, None, true),
            ]
        );
    }

    #[test]
    fn malformed_conversions_are_named() {
        assert!(parse("%s").unwrap_err().contains("`%s`"));
        assert!(parse("%v5f").unwrap_err().contains("2, 3 or 4"));
        assert!(parse("%lf")
            .unwrap_err()
            .contains("integer conversions only"));
        assert!(parse("%v2lu").unwrap_err().contains("64-bit"));
        assert!(parse("100%").unwrap_err().contains("no conversion"));
        assert!(parse("%n").unwrap_err().contains("\\n"));
    }

    #[test]
    fn literal_text_doubles_percent_signs() {
        assert_eq!(literal("50% done"), "50%% done");
        assert!(parse(&literal("50% done %d")).unwrap().is_empty());
    }
}
