//! Semantic tokens (full document): keywords, types, classes, functions and methods,
//! parameters and locals, numbers, strings, comments and annotations.
//!
//! The kinds come from the compiler's own lexer, and names from what the analysis knows
//! (a local of the enclosing function is a parameter or a variable, a known class is a
//! class). Comments are not tokens of the lexer: they are what the gaps between tokens hold.

use super::analysis::Analysis;
use super::lookup::user_class;
use super::stdlib_index::StdlibIndex;
use crate::syntax::lexer::Tok;
use lsp_types::{SemanticToken, SemanticTokenType, SemanticTokens, SemanticTokensLegend};

/// The token types, in the order of their indices in the legend.
const TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::CLASS,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::NUMBER,
    SemanticTokenType::STRING,
    SemanticTokenType::COMMENT,
    SemanticTokenType::DECORATOR,
    SemanticTokenType::PROPERTY,
];

#[derive(Clone, Copy)]
enum Kind {
    Keyword = 0,
    Type,
    Class,
    Function,
    Method,
    Variable,
    Parameter,
    Number,
    Str,
    Comment,
    Decorator,
    Property,
}

/// The legend the server announces.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: Vec::new(),
    }
}

/// The document's tokens, encoded as the protocol wants (relative lines and UTF-16 columns,
/// one token per line: a block comment over several lines is one token per line).
pub fn semantic_tokens(a: &Analysis) -> SemanticTokens {
    let mut spans = classified(a);
    spans.extend(comments(a));
    spans.sort_by_key(|s| s.0);
    let mut data = Vec::new();
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for (start, end, kind) in spans {
        let mut s = start;
        while s < end {
            let line_end = a.text[s..end].find('\n').map_or(end, |i| s + i);
            let from = a.lines.position(&a.text, s);
            let length: usize = a.text[s..line_end].chars().map(char::len_utf16).sum();
            if length > 0 {
                let delta_line = from.line - prev_line;
                let delta_start = if delta_line == 0 {
                    from.character - prev_col
                } else {
                    from.character
                };
                data.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: length as u32,
                    token_type: kind as u32,
                    token_modifiers_bitset: 0,
                });
                (prev_line, prev_col) = (from.line, from.character);
            }
            s = line_end + 1;
        }
    }
    SemanticTokens {
        result_id: None,
        data,
    }
}

/// Every token with a kind, as (start, end, kind).
fn classified(a: &Analysis) -> Vec<(usize, usize, Kind)> {
    let toks = &a.tokens;
    let mut out = Vec::with_capacity(toks.len());
    for (i, (start, tok, end)) in toks.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| &toks[p].1);
        let next = toks.get(i + 1).map(|t| &t.1);
        let kind = match tok {
            Tok::Package
            | Tok::Import
            | Tok::Class
            | Tok::Modifier(_)
            | Tok::Void
            | Tok::If
            | Tok::Else
            | Tok::While
            | Tok::Do
            | Tok::For
            | Tok::Break
            | Tok::Continue
            | Tok::Return
            | Tok::True
            | Tok::False
            | Tok::Heap
            | Tok::Stack
            | Tok::Shared => Kind::Keyword,
            Tok::PrimType(_) => Kind::Type,
            Tok::IntLit(_) | Tok::FloatLit(_) => Kind::Number,
            Tok::StrLit(_) | Tok::UnterminatedStr => Kind::Str,
            Tok::At if matches!(next, Some(Tok::Ident(_))) => Kind::Decorator,
            Tok::Ident(name) | Tok::GenericName(name) | Tok::UserGenericName(name) => {
                name_kind(a, *start, name, prev, next)
            }
            _ => continue,
        };
        out.push((*start, *end, kind));
    }
    out
}

fn name_kind(
    a: &Analysis,
    start: usize,
    name: &str,
    prev: Option<&Tok>,
    next: Option<&Tok>,
) -> Kind {
    if matches!(prev, Some(Tok::At)) {
        return Kind::Decorator;
    }
    let after_dot = matches!(prev, Some(Tok::Dot));
    if matches!(next, Some(Tok::LParen)) || matches!(next, Some(Tok::GenOpen)) && after_dot {
        return if after_dot {
            Kind::Method
        } else {
            Kind::Function
        };
    }
    if !after_dot {
        if let (Some(func), Some(module)) = (a.facts().function_at(start), a.module.as_ref()) {
            let f = module.function(func.id);
            if let Some(i) = f.locals.iter().position(|l| l.name == name) {
                return if i < f.param_count {
                    Kind::Parameter
                } else {
                    Kind::Variable
                };
            }
        }
    }
    if user_class(a, name).is_some() || !StdlibIndex::get().classes_named(name).is_empty() {
        return Kind::Class;
    }
    if after_dot {
        Kind::Property
    } else {
        Kind::Variable
    }
}

/// The comments: `//` to the end of the line and `/* … */`, found in the gaps between
/// tokens (which otherwise hold only white space, or bytes the lexer refused).
fn comments(a: &Analysis) -> Vec<(usize, usize, Kind)> {
    let mut out = Vec::new();
    let mut gap_start = 0;
    let ends = a
        .tokens
        .iter()
        .map(|t| (t.0, t.2))
        .chain([(a.text.len(), a.text.len())]);
    for (start, end) in ends {
        let mut s = gap_start;
        while s < start {
            let gap = &a.text[s..start];
            let line = gap.find("//");
            let block = gap.find("/*");
            let (at, close) = match (line, block) {
                (Some(l), Some(b)) if b < l => (b, "*/"),
                (Some(l), _) => (l, "\n"),
                (None, Some(b)) => (b, "*/"),
                (None, None) => break,
            };
            let from = s + at;
            let to = a.text[from + 2..start]
                .find(close)
                .map_or(start, |i| from + 2 + i + if close == "*/" { 2 } else { 0 });
            out.push((from, to, Kind::Comment));
            s = to.max(from + 2);
        }
        gap_start = end.max(gap_start);
    }
    out
}
