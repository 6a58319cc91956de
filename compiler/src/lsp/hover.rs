//! Hover: the type of a local or expression, the declaration and doc comment of a method,
//! class or stdlib member, and for a kernel its compiled interface.

use super::analysis::Analysis;
use super::lookup::{resolve, Target};
use super::reflection_text::kernel_reflection;
use super::stdlib_index::doc_above;
use crate::ir::FunctionKind;
use crate::syntax::ast::{ClassDecl, Member, MethodDecl};
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};

/// The hover text at byte `offset`, if the cursor is on something with a type or a
/// declaration.
pub fn hover(a: &Analysis, offset: usize) -> Option<Hover> {
    let text = match resolve(a, offset)? {
        Target::Local { func, id } => {
            let f = a.module.as_ref()?.function(func.id);
            let local = f.local(id);
            let role = if id.0 < f.param_count {
                "parameter"
            } else {
                "local variable"
            };
            format!(
                "{}\n{role} of `{}`",
                code(&format!("{} {}", local.ty, local.name)),
                f.qualified_name
            )
        }
        Target::Method(c, m) => method_hover(a, c, m),
        Target::Field(c, i) => match &c.members[i] {
            Member::Field(f) => {
                let (s, e) = (f.ty.span.start as usize, f.name.span.end as usize);
                format!(
                    "{}\nfield of `{}`",
                    code(a.text.get(s..e).unwrap_or(&f.name.name)),
                    c.name.name
                )
            }
            _ => return None,
        },
        Target::Class(c) => {
            let doc = doc_above(&a.text, class_start(c));
            with_doc(code(&format!("class {}", c.name.name)), &doc)
        }
        Target::StdClass(classes) => {
            let mut s = code(&format!("class {}", classes[0].name));
            for c in &classes {
                s = with_doc(s, &c.doc);
            }
            s + &format!("\n\n*stdlib `{}`*", file_name(classes[0].file))
        }
        Target::StdMember(members) => {
            let decls: Vec<&str> = members.iter().map(|(_, m)| m.decl.as_str()).collect();
            let mut s = code(&decls.join("\n"));
            let mut docs: Vec<&str> = members.iter().map(|(_, m)| m.doc.as_str()).collect();
            docs.dedup();
            for d in docs {
                s = with_doc(s, d);
            }
            s + &format!(
                "\n\n*stdlib `{}` in `{}`*",
                members[0].0.name,
                file_name(members[0].0.file)
            )
        }
        Target::Expr(ty) => code(&ty.to_string()),
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

fn code(s: &str) -> String {
    format!("```cajeta\n{s}\n```")
}

fn with_doc(s: String, doc: &str) -> String {
    if doc.is_empty() {
        s
    } else {
        format!("{s}\n\n{doc}")
    }
}

fn file_name(file: usize) -> &'static str {
    crate::driver::STDLIB_FILES.get(file).map_or("", |(n, _)| n)
}

/// Where a class's declaration starts (its first annotation, else its name).
pub fn class_start(c: &ClassDecl) -> usize {
    c.annotations
        .first()
        .map_or(c.name.span.start as usize, |a| a.span.start as usize)
}

/// A method's signature (its declaration up to the body), doc comment, and for a kernel the
/// reflection of its SPIR-V module.
fn method_hover(a: &Analysis, c: &ClassDecl, m: &MethodDecl) -> String {
    let (s, e) = (m.span.start as usize, m.span.end as usize);
    let decl = a.text.get(s..e).unwrap_or("");
    let head = decl.find('{').map_or(decl, |b| &decl[..b]);
    let head: String = head.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = with_doc(code(&head), &doc_above(&a.text, s));
    out.push_str(&format!("\n\n*in class `{}`*", c.name.name));
    let kernel = a.module.as_ref().and_then(|module| {
        let f = a
            .facts()
            .functions
            .iter()
            .find(|f| f.start == s && module.function(f.id).kind == FunctionKind::Kernel)?;
        Some((module, f.id))
    });
    if let Some((module, id)) = kernel {
        let rendered = a
            .reflections
            .borrow_mut()
            .entry(id)
            .or_insert_with(|| kernel_reflection(module, id, a.target.as_deref()))
            .clone();
        out.push_str("\n\n---\n\n");
        out.push_str(&rendered);
    }
    out
}
