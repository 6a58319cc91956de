//! Runs the lexer and the generated parser and turns parse errors into diagnostics.

use super::ast::SourceFile;
use super::grammar::SourceFileParser;
use super::java_hints::java_hint;
use super::lexer::{lex, Tok};
use super::nesting::NestingGuard;
use crate::diagnostics::{Code, Diagnostic, FileId, Span};
use lalrpop_util::ParseError;

/// Parses one file. Lexer errors are all reported; the parser stops at its first error.
pub fn parse_file(file: FileId, source: &str) -> Result<SourceFile, Vec<Diagnostic>> {
    let (tokens, errors) = lex(file, source);
    if !errors.is_empty() {
        return Err(errors);
    }
    run_parser(file, source, tokens)
}

/// Runs the parser over `tokens`; a tree nested too deeply is an error even when it parses.
fn run_parser(
    file: FileId,
    source: &str,
    tokens: Vec<(usize, Tok, usize)>,
) -> Result<SourceFile, Vec<Diagnostic>> {
    let guard = NestingGuard::new();
    let parsed = SourceFileParser::new().parse(file, &guard, tokens);
    match (parsed, guard.diagnostic()) {
        (_, Some(deep)) => Err(vec![deep]),
        (Ok(ast), None) => Ok(ast),
        (Err(e), None) => Err(vec![parse_error(file, source, e)]),
    }
}

/// Parses only the byte ranges `parts` of `source` (in order, each a run of whole
/// declarations or lines), as if the rest were whitespace: tokens keep their offsets into
/// `source`, so spans and diagnostics are those of the whole file. The driver parses the
/// parts of the stdlib a program can reach this way.
pub fn parse_file_parts(
    file: FileId,
    source: &str,
    parts: &[(usize, usize)],
) -> Result<SourceFile, Vec<Diagnostic>> {
    let mut tokens = Vec::new();
    for &(a, b) in parts {
        let (part, errors) = lex(file, &source[a..b]);
        if !errors.is_empty() {
            // Offsets inside a part: lex the whole file for diagnostics at the right places.
            return parse_file(file, source);
        }
        tokens.extend(part.into_iter().map(|(s, t, e)| (s + a, t, e + a)));
    }
    run_parser(file, source, tokens)
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) | Tok::GenericName(s) | Tok::UserGenericName(s) => {
            format!("identifier `{s}`")
        }
        Tok::IntLit(s) | Tok::FloatLit(s) => format!("number `{s}`"),
        Tok::StrLit(_) => "string literal".to_string(),
        Tok::PrimType(s) | Tok::Modifier(s) => format!("`{s}`"),
        other => format!("`{}`", token_text(other)),
    }
}

fn token_text(tok: &Tok) -> &'static str {
    match tok {
        Tok::Package => "package",
        Tok::Import => "import",
        Tok::Class => "class",
        Tok::Void => "void",
        Tok::If => "if",
        Tok::Else => "else",
        Tok::While => "while",
        Tok::Do => "do",
        Tok::For => "for",
        Tok::Break => "break",
        Tok::Continue => "continue",
        Tok::Return => "return",
        Tok::Switch | Tok::SwitchStmt => "switch",
        Tok::Case => "case",
        Tok::Default => "default",
        Tok::Yield => "yield",
        Tok::Try => "try",
        Tok::Catch => "catch",
        Tok::Finally => "finally",
        Tok::Arrow => "->",
        Tok::True => "true",
        Tok::False => "false",
        Tok::Heap => "heap",
        Tok::Stack => "stack",
        Tok::Shared => "shared",
        Tok::At => "@",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBrace => "{",
        Tok::RBrace => "}",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::EmptyBrackets => "[]",
        Tok::Semi => ";",
        Tok::Comma => ",",
        Tok::Dot => ".",
        Tok::Colon => ":",
        Tok::ColonColon => "::",
        Tok::FnTypeOpen => "(",
        Tok::Question => "?",
        Tok::Assign => "=",
        Tok::TitleAssign => "#=",
        Tok::Hash => "#",
        Tok::EqEq => "==",
        Tok::NotEq => "!=",
        Tok::Lt | Tok::GenOpen => "<",
        Tok::Le => "<=",
        Tok::Gt | Tok::GenClose => ">",
        Tok::Ge => ">=",
        Tok::Shl => "<<",
        Tok::Shr => ">>",
        Tok::UShr => ">>>",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        Tok::PlusPlus => "++",
        Tok::MinusMinus => "--",
        Tok::AndAnd => "&&",
        Tok::OrOr => "||",
        Tok::Amp => "&",
        Tok::Pipe => "|",
        Tok::Caret => "^",
        Tok::Tilde => "~",
        Tok::Bang => "!",
        _ => "token",
    }
}

/// Makes lalrpop's expected-token names readable (`"\";\""` → `;`, `GEN<` → `<`).
fn expected_list(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        // Cajeta's `#=` and `#` are accepted but never the form to suggest: `=` is beside them.
        .filter(|e| !matches!(e.trim_matches('"'), "#=" | "#"))
        .map(|e| {
            let e = e.trim_matches('"');
            match e {
                "GEN<" => "<".to_string(),
                "GEN>" => ">".to_string(),
                "switch_stmt" => "`switch`".to_string(),
                "Ident" => "an identifier".to_string(),
                "IntLit" | "FloatLit" => "a number".to_string(),
                "StrLit" => "a string".to_string(),
                "PrimType" => "a type".to_string(),
                "GenericName" | "UserGenericName" => "a generic type".to_string(),
                "Modifier" => "a modifier".to_string(),
                "OpAssign" => "an assignment operator".to_string(),
                other if other.contains("FN(") => "`(`".to_string(),
                other => format!("`{}`", other.replace("\\\"", "\"")),
            }
        })
        .collect();
    names.dedup();
    if names.len() > 8 {
        names.truncate(8);
        names.push("…".to_string());
    }
    names.join(", ")
}

fn parse_error(file: FileId, source: &str, e: ParseError<usize, Tok, String>) -> Diagnostic {
    match e {
        ParseError::InvalidToken { location } => Diagnostic::error(
            Code::SyntaxError,
            Span::new(file, location, location + 1),
            "invalid token",
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            let end = source.len();
            let at = location.min(end);
            Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, at, at),
                "unexpected end of file",
            )
            .with_label("the file ends here")
            .with_note(format!("expected one of {}", expected_list(&expected)))
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let expects_expr = expected.iter().any(|x| x == "\"stack\"");
            if let Some(d) = java_hint(file, source, (l, &tok, r), expects_expr) {
                return d;
            }
            let mut d = Diagnostic::error(
                Code::SyntaxError,
                Span::new(file, l, r),
                format!("unexpected {}", describe(&tok)),
            )
            .with_label("not expected here");
            if !expected.is_empty() {
                d = d.with_note(format!("expected one of {}", expected_list(&expected)));
            }
            if expected.iter().any(|x| x == "\";\"") {
                d = d.with_note("help: a `;` may be missing before this");
            }
            d
        }
        ParseError::ExtraToken { token: (l, tok, r) } => Diagnostic::error(
            Code::SyntaxError,
            Span::new(file, l, r),
            format!(
                "unexpected {} after the end of the file's classes",
                describe(&tok)
            ),
        ),
        ParseError::User { error } => {
            // Grammar actions encode "start:end:message".
            let mut parts = error.splitn(3, ':');
            let start = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let end = parts.next().and_then(|s| s.parse().ok()).unwrap_or(start);
            let msg = parts.next().unwrap_or("syntax error").to_string();
            Diagnostic::error(Code::SyntaxError, Span::new(file, start, end), msg)
        }
    }
}
