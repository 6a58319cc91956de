//! Completion: members after `recv.` (a stdlib class's static members after `Math.`, a
//! value's methods after `img.`, a class of the document's methods and fields), else the
//! locals in scope, the document's methods and classes, the stdlib's classes and keywords.
//!
//! The text being typed rarely checks (`Math.` alone is a syntax error), so the receiver is
//! read from the current text's tokens, and what it names from the document's last analysis
//! that checked, at the same line and column.

use super::analysis::Analysis;
use super::facts::{class_of, methods};
use super::lookup::{local_named, name_of, receiver_class, user_class};
use super::stdlib_index::StdlibIndex;
use crate::syntax::ast::Member;
use crate::syntax::lexer::Tok;
use lsp_types::{
    CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind, Position,
};
use std::collections::HashSet;

const KEYWORDS: &[&str] = &[
    "if", "else", "while", "do", "for", "break", "continue", "return", "true", "false", "class",
    "static", "final", "public", "private", "void", "shared", "heap", "stack", "import", "package",
];

const PRIMITIVES: &[&str] = &[
    "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "bfloat16", "float32", "float64",
];

/// The completions at `pos` of `current` (the text as typed), resolved against `good` (the
/// last analysis that checked; `current` itself when it checks).
pub fn complete(current: &Analysis, good: &Analysis, pos: Position) -> Vec<CompletionItem> {
    let offset = current.offset(pos);
    let good_offset = good.offset(pos);
    let toks = &current.tokens;
    let mut i = toks.partition_point(|(_, _, end)| *end <= offset);
    // Skip the word being typed.
    if i > 0 && toks[i - 1].2 == offset && name_of(&toks[i - 1].1).is_some() {
        i -= 1;
    }
    if i >= 2 && toks[i - 1].1 == Tok::Dot {
        let recv = &toks[i - 2];
        let class = match name_of(&recv.1) {
            Some(name) => receiver_named(current, good, name, good_offset),
            None => None,
        }
        .or_else(|| {
            // An expression receiver (`buf[i].`, `f().`): only in a text that checked.
            std::ptr::eq(current, good)
                .then(|| receiver_class(current, recv, toks[i - 1].0))
                .flatten()
        });
        return match class {
            Some((class, is_static)) => members(current, good, &class, is_static),
            None => Vec::new(),
        };
    }
    scope_items(current, good, good_offset)
}

/// What a receiver name stands for: a local's type's class, or a class.
fn receiver_named(
    current: &Analysis,
    good: &Analysis,
    name: &str,
    good_offset: usize,
) -> Option<(String, bool)> {
    if let Some((func, id)) = local_named(good, name, good_offset) {
        let ty = &good.module.as_ref()?.function(func.id).local(id).ty;
        return class_of(ty).map(|c| (c, false));
    }
    let known = user_class(current, name).is_some()
        || user_class(good, name).is_some()
        || !StdlibIndex::get().classes_named(name).is_empty();
    known.then(|| (name.to_string(), true))
}

fn item(label: &str, kind: CompletionItemKind, detail: String, doc: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: (!detail.is_empty()).then_some(detail),
        documentation: (!doc.is_empty()).then(|| {
            Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: doc.to_string(),
            })
        }),
        ..Default::default()
    }
}

/// The members of `class`: static ones on a class name, the others on a value.
fn members(
    current: &Analysis,
    good: &Analysis,
    class: &str,
    is_static: bool,
) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    if let Some(c) = user_class(current, class).or_else(|| user_class(good, class)) {
        for m in &c.members {
            let (name, kind, statik) = match m {
                Member::Method(d) => (
                    &d.name.name,
                    CompletionItemKind::METHOD,
                    d.has_modifier("static"),
                ),
                Member::Field(f) => (
                    &f.name.name,
                    CompletionItemKind::FIELD,
                    f.modifiers.iter().any(|m| m == "static"),
                ),
                Member::Constructor(_) => continue,
            };
            if statik == is_static && seen.insert(name.clone()) {
                out.push(item(name, kind, String::new(), ""));
            }
        }
        return out;
    }
    for c in StdlibIndex::get().classes_named(class) {
        for m in c
            .members
            .iter()
            .filter(|m| m.is_static == is_static || !m.is_method)
        {
            if seen.insert(m.name.clone()) {
                let kind = if m.is_method {
                    CompletionItemKind::METHOD
                } else {
                    CompletionItemKind::CONSTANT
                };
                out.push(item(&m.name, kind, m.decl.clone(), &m.doc));
            }
        }
    }
    if class == "Vector" && !is_static {
        for lane in ["x", "y", "z", "w"] {
            out.push(item(
                lane,
                CompletionItemKind::FIELD,
                "lane (also swizzles: xy, xyz…)".into(),
                "",
            ));
        }
    }
    out
}

/// Everything a name may be at `good_offset` outside a member access.
fn scope_items(current: &Analysis, good: &Analysis, good_offset: usize) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |it: CompletionItem, out: &mut Vec<CompletionItem>| {
        if seen.insert(it.label.clone()) {
            out.push(it);
        }
    };
    if let (Some(func), Some(module)) =
        (good.facts().function_at(good_offset), good.module.as_ref())
    {
        let f = module.function(func.id);
        for (i, l) in f.locals.iter().enumerate().rev() {
            let visible = i < f.param_count || (l.span.start as usize) <= good_offset;
            if visible && !l.name.starts_with('$') {
                let kind = CompletionItemKind::VARIABLE;
                add(item(&l.name, kind, l.ty.to_string(), ""), &mut out);
            }
        }
    }
    let ast = current.ast.as_ref().or(good.ast.as_ref());
    for c in ast.iter().flat_map(|a| &a.classes) {
        add(
            item(&c.name.name, CompletionItemKind::CLASS, "class".into(), ""),
            &mut out,
        );
        for (_, m) in methods(c) {
            add(
                item(
                    &m.name.name,
                    CompletionItemKind::METHOD,
                    format!("{}.{}", c.name.name, m.name.name),
                    "",
                ),
                &mut out,
            );
        }
    }
    for c in &StdlibIndex::get().classes {
        add(
            item(
                &c.name,
                CompletionItemKind::CLASS,
                "stdlib class".into(),
                &c.doc,
            ),
            &mut out,
        );
    }
    for p in PRIMITIVES {
        add(
            item(p, CompletionItemKind::KEYWORD, "type".into(), ""),
            &mut out,
        );
    }
    for k in KEYWORDS {
        add(
            item(k, CompletionItemKind::KEYWORD, String::new(), ""),
            &mut out,
        );
    }
    out
}
