//! Document symbols: the document's classes with their kernels, device helpers, host
//! methods, constructors and fields (the editor's outline).

use super::analysis::Analysis;
use super::hover::class_start;
use crate::syntax::ast::{ClassDecl, Member, MethodDecl};
use crate::syntax::lexer::Tok;
use lsp_types::{DocumentSymbol, SymbolKind};

/// The outline of the document's syntax tree.
pub fn document_symbols(a: &Analysis) -> Vec<DocumentSymbol> {
    let Some(ast) = &a.ast else {
        return Vec::new();
    };
    ast.classes
        .iter()
        .map(|c| {
            let (start, end) = class_range(a, c);
            let children = c.members.iter().map(|m| member_symbol(a, m)).collect();
            symbol(
                a,
                &c.name.name,
                None,
                SymbolKind::CLASS,
                (start, end),
                (c.name.span.start as usize, c.name.span.end as usize),
                Some(children),
            )
        })
        .collect()
}

fn member_symbol(a: &Analysis, m: &Member) -> DocumentSymbol {
    match m {
        Member::Method(d) => {
            let (kind, detail) = if d.annotation("Kernel").is_some() {
                (SymbolKind::FUNCTION, "kernel")
            } else if d.annotation("Device").is_some() {
                (SymbolKind::FUNCTION, "device")
            } else {
                (SymbolKind::METHOD, "host")
            };
            method_symbol(a, d, kind, detail)
        }
        Member::Constructor(d) => method_symbol(a, d, SymbolKind::CONSTRUCTOR, "constructor"),
        Member::Field(f) => {
            let start = f.ty.span.start as usize;
            let end = f.name.span.end as usize;
            let ty = a.text.get(start..f.ty.span.end as usize).unwrap_or("");
            symbol(
                a,
                &f.name.name,
                Some(ty.to_string()),
                SymbolKind::FIELD,
                (start, end),
                (f.name.span.start as usize, end),
                None,
            )
        }
    }
}

fn method_symbol(a: &Analysis, d: &MethodDecl, kind: SymbolKind, detail: &str) -> DocumentSymbol {
    symbol(
        a,
        &d.name.name,
        Some(detail.to_string()),
        kind,
        (d.span.start as usize, d.span.end as usize),
        (d.name.span.start as usize, d.name.span.end as usize),
        None,
    )
}

fn symbol(
    a: &Analysis,
    name: &str,
    detail: Option<String>,
    kind: SymbolKind,
    (start, end): (usize, usize),
    (sel_start, sel_end): (usize, usize),
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    #[allow(deprecated)] // `deprecated` is a required field of the type, superseded by tags.
    DocumentSymbol {
        name: name.to_string(),
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: a.range(start, end),
        selection_range: a.range(sel_start, sel_end),
        children,
    }
}

/// A class's bytes: from its first annotation or modifier to its closing brace (found by
/// matching braces in the tokens, as the tree keeps no span for the whole class).
fn class_range(a: &Analysis, c: &ClassDecl) -> (usize, usize) {
    let name = c.name.span.start as usize;
    let toks = &a.tokens;
    let at = toks.partition_point(|t| t.0 < name);
    let mut start = class_start(c).min(name);
    let mut k = at;
    while k > 0 && matches!(toks[k - 1].1, Tok::Class | Tok::Modifier(_)) {
        k -= 1;
        start = start.min(toks[k].0);
    }
    let mut depth = 0usize;
    for t in &toks[at..] {
        match t.1 {
            Tok::LBrace => depth += 1,
            Tok::RBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return (start, t.2);
                }
            }
            _ => {}
        }
    }
    (start, a.text.len())
}
