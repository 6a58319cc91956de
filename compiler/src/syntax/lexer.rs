//! The lexer: logos tokens plus a small pass that makes the grammar LR(1).
//!
//! Java-like syntax has two classic ambiguities that need more than one token of lookahead:
//! `Vector<float32, 4> v` versus `a < b`, and `Foo[] x` versus `a[i]`. Instead of a
//! hand-written parser we resolve them here, where the lookahead is free:
//! - a generic type name (`Vector`, `KernelBuffer`, …) directly followed by `<` turns that
//!   `<` into [`Tok::GenOpen`], and the matching `>` into [`Tok::GenClose`] (splitting `>>`
//!   and `>>>` when they close nested generics);
//! - `[` directly followed by `]` becomes one [`Tok::EmptyBrackets`] token.

use crate::diagnostics::{Code, Diagnostic, FileId, Span};
use logos::Logos;

/// Why a token could not be lexed.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum LexError {
    /// Bytes that start no token.
    #[default]
    Invalid,
    /// `/*` with no `*/`.
    UnterminatedComment,
    /// `"` with no closing quote on the line.
    UnterminatedString,
    /// A string literal holding an escape Java does not have (its text, e.g. `\z`), or a
    /// `\u` escape of a lone surrogate: the escape and what is wrong with it.
    BadEscape(String, &'static str),
}

fn block_comment(lex: &mut logos::Lexer<Tok>) -> logos::FilterResult<(), LexError> {
    let rest = lex.remainder();
    match rest.find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => {
            lex.bump(rest.len());
            logos::FilterResult::Error(LexError::UnterminatedComment)
        }
    }
}

fn unterminated_string(_: &mut logos::Lexer<Tok>) -> Result<(), LexError> {
    Err(LexError::UnterminatedString)
}

/// Tokens of the language.
#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok {
    /// Start of a block comment; never produced (the callback skips or fails).
    #[token("/*", block_comment)]
    BlockComment,

    /// `package`
    #[token("package")]
    Package,
    /// `import`
    #[token("import")]
    Import,
    /// `class`
    #[token("class")]
    Class,
    /// `public`, `private`, `protected`, `static`, `final`
    #[regex("public|private|protected|static|final|abstract", |lex| lex.slice().to_string())]
    Modifier(String),
    /// `void`
    #[token("void")]
    Void,
    /// `if`
    #[token("if")]
    If,
    /// `else`
    #[token("else")]
    Else,
    /// `while`
    #[token("while")]
    While,
    /// `do`
    #[token("do")]
    Do,
    /// `for`
    #[token("for")]
    For,
    /// `break`
    #[token("break")]
    Break,
    /// `continue`
    #[token("continue")]
    Continue,
    /// `return`
    #[token("return")]
    Return,
    /// `switch` in an expression (see `switch.rs`).
    #[token("switch")]
    Switch,
    /// `switch` at the start of a statement (set by [`lex`]).
    SwitchStmt,
    /// `case`
    #[token("case")]
    Case,
    /// `default`
    #[token("default")]
    Default,
    /// `yield`: the value of a `switch` expression's arm.
    #[token("yield")]
    Yield,
    /// `try`
    #[token("try")]
    Try,
    /// `catch`
    #[token("catch")]
    Catch,
    /// `finally`
    #[token("finally")]
    Finally,
    /// `->` (a `switch` arm without fall-through)
    #[token("->")]
    Arrow,
    /// `true`
    #[token("true")]
    True,
    /// `false`
    #[token("false")]
    False,
    /// `heap`
    #[token("heap")]
    Heap,
    /// `stack`
    #[token("stack")]
    Stack,
    /// `shared` (workgroup-memory arrays)
    #[token("shared")]
    Shared,
    /// A primitive type keyword (`boolean`, `int8` … `float64`, `bfloat16`): `(bfloat16) -x`
    /// is a cast, as `(float16) -x` is.
    #[regex("boolean|int8|int16|int32|int64|uint8|uint16|uint32|uint64|float16|bfloat16|float32|float64", |lex| lex.slice().to_string())]
    PrimType(String),

    /// An identifier.
    #[regex(r"[A-Za-z_$][A-Za-z0-9_$]*", |lex| lex.slice().to_string())]
    Ident(String),
    /// A generic type name directly followed by `<` (set by [`lex`]).
    GenericName(String),
    /// A generic class or method the file declares (`Tile` of `class Tile<uint32 TM>`),
    /// directly followed by `<`: instantiated per use (`sema::generics`).
    UserGenericName(String),
    /// An integer literal, as written, with its optional suffix: `L` (int64), `u` (uint32)
    /// or `uL` (uint64), in either case.
    #[regex(r"0[xX][0-9a-fA-F_]+([uU][lL]?|[lL])?", |lex| lex.slice().to_string())]
    #[regex(r"0[bB][01_]+([uU][lL]?|[lL])?", |lex| lex.slice().to_string())]
    #[regex(r"[0-9][0-9_]*([uU][lL]?|[lL])?", |lex| lex.slice().to_string())]
    IntLit(String),
    /// A float literal, as written.
    #[regex(r"[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9_]+)?[fFdDhH]?", |lex| lex.slice().to_string())]
    #[regex(r"\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?[fFdDhH]?", |lex| lex.slice().to_string())]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9_]+[fFdDhH]?", |lex| lex.slice().to_string())]
    #[regex(r"[0-9][0-9_]*[fFdDhH]", |lex| lex.slice().to_string())]
    #[regex(r"0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?[pP][+-]?[0-9_]+[fFdDhH]?", |lex| lex.slice().to_string())]
    FloatLit(String),
    /// A string literal, with escapes resolved.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, |lex| unescape(lex.slice()))]
    StrLit(String),
    /// A string literal missing its closing quote.
    #[regex(r#""([^"\\\n]|\\[^\n])*"#, unterminated_string)]
    UnterminatedStr,

    /// `@`
    #[token("@")]
    At,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `[]` (set by [`lex`])
    EmptyBrackets,
    /// `;`
    #[token(";")]
    Semi,
    /// `,`
    #[token(",")]
    Comma,
    /// `.`
    #[token(".")]
    Dot,
    /// `:`
    #[token(":")]
    Colon,
    /// `::` (method references, `A::f`)
    #[token("::")]
    ColonColon,
    /// The outer `(` of a function type, `((int32)->int32)[]` (the lexer marks a `(` before
    /// a `(` whose `)` is followed by `->`).
    FnTypeOpen,
    /// `?`
    #[token("?")]
    Question,
    /// `=`
    #[token("=")]
    Assign,
    /// `#=`: Cajeta's title store, an assignment here (ownership is not tracked).
    #[token("#=")]
    TitleAssign,
    /// `#` before an expression: Cajeta's move, the expression itself here.
    #[token("#")]
    Hash,
    /// Compound assignment `+=` … `>>>=`, holding the operator.
    #[regex(r"\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|>>>=", |lex| { let s = lex.slice(); s[..s.len() - 1].to_string() })]
    OpAssign(String),
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    NotEq,
    /// `<`
    #[token("<")]
    Lt,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>`
    #[token(">")]
    Gt,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `<` opening generic arguments (set by [`lex`]).
    GenOpen,
    /// `>` closing generic arguments (set by [`lex`]).
    GenClose,
    /// `<<`
    #[token("<<")]
    Shl,
    /// `>>`
    #[token(">>")]
    Shr,
    /// `>>>`
    #[token(">>>")]
    UShr,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `++`
    #[token("++")]
    PlusPlus,
    /// `--`
    #[token("--")]
    MinusMinus,
    /// `&&`
    #[token("&&")]
    AndAnd,
    /// `||`
    #[token("||")]
    OrOr,
    /// `&`
    #[token("&")]
    Amp,
    /// `|`
    #[token("|")]
    Pipe,
    /// `^`
    #[token("^")]
    Caret,
    /// `~`
    #[token("~")]
    Tilde,
    /// `!`
    #[token("!")]
    Bang,
}

/// Type names that take generic arguments.
pub const GENERIC_TYPES: &[&str] = &[
    "KernelBuffer",
    "Buffer",
    "Vector",
    "Matrix",
    "Shared",
    "Swizzled",
    "Image2D",
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "Texture2DArray",
    "TextureCube",
    "CoopMatrixA",
    "CoopMatrixB",
    "CoopMatrixAcc",
    "CooperativeMatrix",
    "Tile",
    "Quaternion",
    "Optional",
];

/// The text of a string literal (`slice`, quotes included) with Java's escapes resolved:
/// `\b \t \n \f \r \s \" \' \\`, octal `\0` to `\377`, and `\uXXXX` (a surrogate pair of
/// them is one character). Any other escape is an error, as in Java.
fn unescape(slice: &str) -> Result<String, LexError> {
    let inner = &slice[1..slice.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else { break };
        match e {
            'b' => out.push('\u{8}'),
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'f' => out.push('\u{c}'),
            'r' => out.push('\r'),
            's' => out.push(' '),
            '"' | '\'' | '\\' => out.push(e),
            '0'..='7' => {
                // Java: up to three octal digits, three only when the first is 0 to 3.
                let mut value = e.to_digit(8).unwrap_or(0);
                let most = if e <= '3' { 2 } else { 1 };
                for _ in 0..most {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'u' => {
                while chars.peek() == Some(&'u') {
                    chars.next();
                }
                let unit = hex4(&mut chars).ok_or_else(|| {
                    LexError::BadEscape("\\u".to_string(), "it takes four hex digits")
                })?;
                let c = match unit {
                    0xD800..=0xDBFF => {
                        // A high surrogate must be followed by `\uDC00`..`\uDFFF`.
                        let mut ahead = chars.clone();
                        let low = (ahead.next() == Some('\\') && ahead.next() == Some('u'))
                            .then(|| hex4(&mut ahead))
                            .flatten()
                            .filter(|l| (0xDC00..=0xDFFF).contains(l));
                        let Some(low) = low else {
                            return Err(lone_surrogate(unit));
                        };
                        chars = ahead;
                        char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    }
                    0xDC00..=0xDFFF => None,
                    _ => char::from_u32(unit),
                };
                match c {
                    Some(c) => out.push(c),
                    None => return Err(lone_surrogate(unit)),
                }
            }
            other => {
                return Err(LexError::BadEscape(
                    format!("\\{other}"),
                    "not one of Java's escapes",
                ))
            }
        }
    }
    Ok(out)
}

/// The error of a `\\u` escape of a surrogate with no partner (a string holds characters).
fn lone_surrogate(unit: u32) -> LexError {
    LexError::BadEscape(
        format!("\\u{unit:04X}"),
        "a lone surrogate (a high one needs a low one after it)",
    )
}

/// Four hex digits from `chars`, as a number.
fn hex4(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u32> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}

/// The longest identifier accepted, in bytes: names become SPIR-V `OpName` strings and the
/// file names `cajetac build` writes (most file systems allow 255 bytes, and a kernel's
/// file name adds a suffix such as `.spvasm`).
pub const MAX_IDENT_LEN: usize = 200;

/// Lexical errors reported before the lexer gives up (a binary file would otherwise give
/// one diagnostic per byte run).
pub const MAX_LEX_ERRORS: usize = 50;

/// A token with its byte range, as lalrpop's external-lexer interface wants it.
pub type Spanned = (usize, Tok, usize);

/// Lexes a whole file. Returns the tokens and a diagnostic for every bad token (lexing goes
/// on after an error so that several are reported at once).
pub fn lex(file: FileId, source: &str) -> (Vec<Spanned>, Vec<Diagnostic>) {
    // At most about one token per three bytes in the stdlib and the examples: reserving that avoids
    // growing (and copying) the vector a dozen times per file.
    let mut raw = Vec::with_capacity(source.len() / 3 + 16);
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut lexer = Tok::lexer(source);
    // The end of the last invalid run, so that a run of bad bytes is one diagnostic.
    let mut invalid_end = None;
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(file, range.start, range.end);
        if errors.len() >= MAX_LEX_ERRORS {
            errors.push(
                Diagnostic::error(
                    Code::TooManyErrors,
                    span,
                    format!("too many lexical errors: stopped after {MAX_LEX_ERRORS}"),
                )
                .with_label("lexing stopped here"),
            );
            break;
        }
        if !matches!(result, Err(LexError::Invalid)) {
            invalid_end = None;
        }
        match result {
            Ok(Tok::Ident(name)) if name.len() > MAX_IDENT_LEN => errors.push(
                Diagnostic::error(
                    Code::NameTooLong,
                    span,
                    format!("identifier of {} bytes is too long", name.len()),
                )
                .with_label(format!("longer than {MAX_IDENT_LEN} bytes"))
                .with_note(format!(
                    "names may have at most {MAX_IDENT_LEN} bytes (they become SPIR-V names and file names)"
                )),
            ),
            Ok(tok) => raw.push((range.start, tok, range.end)),
            Err(LexError::UnterminatedComment) => errors.push(
                Diagnostic::error(
                    Code::UnterminatedComment,
                    Span::new(file, range.start, range.start + 2),
                    "unterminated block comment",
                )
                .with_label("this `/*` is never closed")
                .with_note("help: add `*/` where the comment should end"),
            ),
            Err(LexError::UnterminatedString) => errors.push(
                Diagnostic::error(
                    Code::UnterminatedString,
                    span,
                    "unterminated string literal",
                )
                .with_label("missing closing `\"`"),
            ),
            Err(LexError::BadEscape(escape, why)) => errors.push(
                Diagnostic::error(
                    Code::InvalidToken,
                    span,
                    format!("invalid escape sequence `{escape}` in a string literal"),
                )
                .with_label(why)
                .with_note("escapes: \\b \\t \\n \\f \\r \\s \\\" \\' \\\\, octal \\0 to \\377, \\uXXXX"),
            ),
            Err(LexError::Invalid) if invalid_end == Some(range.start) => {
                // Extend the run's diagnostic instead of reporting every byte again.
                if let Some(last) = errors.last_mut() {
                    last.primary = last.primary.to(span);
                }
                invalid_end = Some(range.end);
            }
            Err(LexError::Invalid) => {
                invalid_end = Some(range.end);
                let text: String = source[range.clone()].chars().take(8).collect();
                let shown = if text.chars().all(|c| c.is_ascii_graphic()) {
                    format!("`{text}`")
                } else {
                    format!("{:?}", text)
                };
                errors.push(
                    Diagnostic::error(Code::InvalidToken, span, format!("invalid token {shown}"))
                        .with_label("not part of the language"),
                );
            }
        }
    }
    let mut tokens = disambiguate(raw);
    super::switch::mark_statement_switches(&mut tokens);
    (tokens, errors)
}

/// Rewrites generic brackets and empty brackets (see the module doc). Tokens are taken out
/// of `raw` by value: cloning every identifier's string here was a measurable part of
/// compile time. Lookahead reads tokens not yet taken.
fn disambiguate(mut raw: Vec<Spanned>) -> Vec<Spanned> {
    let user = UserGenerics::scan(&raw);
    let mut out: Vec<Spanned> = Vec::with_capacity(raw.len());
    // Depth of open generic argument lists; `>` closes one only while this is positive.
    let mut depth = 0usize;
    let mut i = 0;
    while i < raw.len() {
        let (start, tok, end) = std::mem::replace(&mut raw[i], (0, Tok::Semi, 0));
        let next = kind_at(&raw, i + 1);
        match tok {
            Tok::Ident(name)
                if matches!(next, Some(Tok::Lt))
                    && (user.classes.contains(&name)
                        || (user.methods.contains(&name) && generic_call_follows(&raw, i + 1))) =>
            {
                out.push((start, Tok::UserGenericName(name), end));
                let (ls, _, le) = raw[i + 1];
                out.push((ls, Tok::GenOpen, le));
                depth += 1;
                i += 2;
                continue;
            }
            Tok::Ident(name)
                if matches!(next, Some(Tok::Lt)) && GENERIC_TYPES.contains(&name.as_str()) =>
            {
                out.push((start, Tok::GenericName(name), end));
                let (ls, _, le) = raw[i + 1];
                out.push((ls, Tok::GenOpen, le));
                depth += 1;
                i += 2;
                continue;
            }
            // Cajeta's `shared swizzled T[n]` (a `Swizzled<T>` tile): `swizzled` is a word of
            // the allocation only, and the tile is a `Shared<T>` here (sema/type_names.rs).
            Tok::Ident(name)
                if name == "swizzled"
                    && matches!(out.last(), Some((_, Tok::Shared, _)))
                    && matches!(next, Some(Tok::Ident(_) | Tok::PrimType(_))) =>
            {
                i += 1;
                continue;
            }
            // `recv.name<4>(…)`: an explicit generic argument on a method call (`vload<N>`).
            Tok::Ident(name)
                if matches!(out.last(), Some((_, Tok::Dot, _)))
                    && matches!(next, Some(Tok::Lt))
                    && matches!(kind_at(&raw, i + 2), Some(Tok::IntLit(_)))
                    && matches!(kind_at(&raw, i + 3), Some(Tok::Gt))
                    && matches!(kind_at(&raw, i + 4), Some(Tok::LParen)) =>
            {
                out.push((start, Tok::GenericName(name), end));
                let (ls, _, le) = raw[i + 1];
                out.push((ls, Tok::GenOpen, le));
                out.push(std::mem::replace(&mut raw[i + 2], (0, Tok::Semi, 0)));
                let (gs, _, ge) = raw[i + 3];
                out.push((gs, Tok::GenClose, ge));
                i += 4;
                continue;
            }
            Tok::LParen
                if matches!(next, Some(Tok::LParen)) && function_type_follows(&raw, i + 1) =>
            {
                out.push((start, Tok::FnTypeOpen, end));
            }
            Tok::LBracket if matches!(next, Some(Tok::RBracket)) => {
                let (_, _, re) = raw[i + 1];
                out.push((start, Tok::EmptyBrackets, re));
                i += 2;
                continue;
            }
            Tok::Gt if depth > 0 => {
                depth -= 1;
                out.push((start, Tok::GenClose, end));
            }
            Tok::Shr | Tok::UShr if depth > 0 => {
                let n = if tok == Tok::Shr { 2 } else { 3 };
                for k in 0..n {
                    if depth > 0 {
                        depth -= 1;
                        out.push((start + k, Tok::GenClose, start + k + 1));
                    } else {
                        out.push((start + k, Tok::Gt, start + k + 1));
                    }
                }
            }
            Tok::Semi | Tok::LBrace | Tok::RBrace => {
                // A statement boundary can never be inside generic arguments: recover.
                depth = 0;
                out.push((start, tok, end));
            }
            other => out.push((start, other, end)),
        }
        i += 1;
    }
    out
}

/// The generic classes and methods a file declares (`class Tile<uint32 TM>`,
/// `static <T> T f(…)`), whose names take generic arguments at their uses like the stdlib's
/// [`GENERIC_TYPES`]. Uses in other files are not seen: a generic is used in its own file.
#[derive(Default)]
struct UserGenerics {
    classes: Vec<String>,
    methods: Vec<String>,
}

impl UserGenerics {
    fn scan(raw: &[Spanned]) -> UserGenerics {
        let mut found = UserGenerics::default();
        for i in 0..raw.len() {
            match (kind_at(raw, i), kind_at(raw, i + 1), kind_at(raw, i + 2)) {
                (Some(Tok::Class), Some(Tok::Ident(name)), Some(Tok::Lt)) => {
                    found.classes.push(name.clone())
                }
                // `static <T> T f(`: a `<` opening a member declaration.
                (
                    Some(Tok::Modifier(_) | Tok::LBrace | Tok::RBrace | Tok::Semi),
                    Some(Tok::Lt),
                    _,
                ) => {
                    if let Some(name) = generic_method_name(raw, i + 1) {
                        found.methods.push(name);
                    }
                }
                _ => {}
            }
        }
        found
    }
}

/// The index just past the `>` matching the `<` at `open`, when only tokens that can be
/// part of generic arguments come between (a few dozen at most).
fn generic_args_end(raw: &[Spanned], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, (_, tok, _)) in raw.iter().enumerate().skip(open).take(64) {
        match tok {
            Tok::Lt => depth += 1,
            Tok::Gt => depth -= 1,
            Tok::Shr => depth -= 2,
            Tok::UShr => depth -= 3,
            Tok::Ident(_) | Tok::PrimType(_) | Tok::IntLit(_) | Tok::Comma | Tok::Dot => {}
            Tok::EmptyBrackets | Tok::LBracket | Tok::RBracket => {}
            _ => return None,
        }
        if depth <= 0 {
            return (depth == 0).then_some(k + 1);
        }
    }
    None
}

/// `<T> T name(`: the method's name.
fn generic_method_name(raw: &[Spanned], open: usize) -> Option<String> {
    let end = generic_args_end(raw, open)?;
    for k in end..(end + 24).min(raw.len()) {
        match (&raw[k].1, kind_at(raw, k + 1)) {
            (Tok::Ident(name), Some(Tok::LParen)) => return Some(name.clone()),
            (Tok::LParen | Tok::LBrace | Tok::Semi | Tok::Assign, _) => return None,
            _ => {}
        }
    }
    None
}

/// Whether the `<` at `open` starts generic arguments directly followed by `(` (`f<int32>(`).
fn generic_call_follows(raw: &[Spanned], open: usize) -> bool {
    generic_args_end(raw, open).is_some_and(|end| matches!(kind_at(raw, end), Some(Tok::LParen)))
}

/// Whether the `(` at `open` holds only types and its `)` is followed by `->`.
fn function_type_follows(raw: &[Spanned], open: usize) -> bool {
    let mut depth = 0i32;
    for (k, (_, tok, _)) in raw.iter().enumerate().skip(open).take(64) {
        match tok {
            Tok::LParen => depth += 1,
            Tok::RParen => {
                depth -= 1;
                if depth == 0 {
                    return matches!(kind_at(raw, k + 1), Some(Tok::Arrow));
                }
            }
            Tok::Ident(_) | Tok::PrimType(_) | Tok::IntLit(_) | Tok::Comma | Tok::Dot => {}
            Tok::Lt | Tok::Gt | Tok::Shr | Tok::EmptyBrackets | Tok::LBracket | Tok::RBracket => {}
            _ => return false,
        }
    }
    false
}

/// The token at `k`, if any.
fn kind_at(raw: &[Spanned], k: usize) -> Option<&Tok> {
    raw.get(k).map(|(_, t, _)| t)
}
