//! What the name under the cursor stands for: a local, a method or class of the document, a
//! stdlib class or member, or else the expression there. Hover and "go to definition" share
//! this resolution; completion uses its receiver half.

use super::analysis::Analysis;
use super::facts::{class_of, methods, FnFact};
use super::stdlib_index::{StdClass, StdMember, StdlibIndex};
use crate::ir::{LocalId, Type};
use crate::syntax::ast::{ClassDecl, Member, MethodDecl};
use crate::syntax::lexer::{Spanned, Tok};

/// What a name stands for.
pub enum Target<'a> {
    /// A parameter or local variable of a function of the document.
    Local {
        /// The function.
        func: &'a FnFact,
        /// The local.
        id: LocalId,
    },
    /// A class of the document.
    Class(&'a ClassDecl),
    /// A method or constructor of the document.
    Method(&'a ClassDecl, &'a MethodDecl),
    /// A field of a class of the document.
    Field(&'a ClassDecl, usize),
    /// Stdlib classes of that name (one, or one per file declaring it).
    StdClass(Vec<&'static StdClass>),
    /// Stdlib members of that name (overloads), with their classes.
    StdMember(Vec<(&'static StdClass, &'static StdMember)>),
    /// An expression of that type (no name: a literal, an operator, a swizzle…).
    Expr(Type),
}

/// The index of the token at byte `offset`: the one holding it, else a name ending right
/// there (the cursor just after a word).
pub fn token_at(tokens: &[Spanned], offset: usize) -> Option<usize> {
    let i = tokens.partition_point(|(_, _, end)| *end <= offset);
    if tokens.get(i).is_some_and(|(s, _, _)| *s <= offset) {
        return Some(i);
    }
    (i > 0 && tokens[i - 1].2 == offset && name_of(&tokens[i - 1].1).is_some()).then(|| i - 1)
}

/// The name a token spells, for names (identifiers and generic type names).
pub fn name_of(tok: &Tok) -> Option<&str> {
    match tok {
        Tok::Ident(n) | Tok::GenericName(n) | Tok::UserGenericName(n) => Some(n),
        _ => None,
    }
}

/// The class a receiver names or has, for members after `recv.`: `(class name, static)`.
/// A local of that name comes first (it shadows a class), then the document's classes and the
/// stdlib's, then the type of the expression ending at the dot.
pub fn receiver_class(a: &Analysis, recv: &Spanned, dot_start: usize) -> Option<(String, bool)> {
    if let Some(name) = name_of(&recv.1) {
        if let Some((func, id)) = local_named(a, name, recv.0) {
            let ty = &a.module.as_ref()?.function(func.id).local(id).ty;
            return class_of(ty).map(|c| (c, false));
        }
        if user_class(a, name).is_some() || !StdlibIndex::get().classes_named(name).is_empty() {
            return Some((name.to_string(), true));
        }
    }
    let e = a.facts().expr_ending_at(recv.0, dot_start)?;
    class_of(&e.ty).map(|c| (c, false))
}

/// The class of the document named `name`.
pub fn user_class<'a>(a: &'a Analysis, name: &str) -> Option<&'a ClassDecl> {
    a.ast.as_ref()?.classes.iter().find(|c| c.name.name == name)
}

/// The local called `name` visible at byte `offset`: of the function there, the last one
/// declared before `offset` (parameters first).
pub fn local_named<'a>(
    a: &'a Analysis,
    name: &str,
    offset: usize,
) -> Option<(&'a FnFact, LocalId)> {
    let func = a.facts().function_at(offset)?;
    let f = a.module.as_ref()?.function(func.id);
    let id = f
        .locals
        .iter()
        .enumerate()
        .filter(|(i, l)| {
            l.name == name && (*i < f.param_count || (l.span.start as usize) <= offset)
        })
        .map(|(i, _)| LocalId(i))
        .next_back()?;
    Some((func, id))
}

/// Resolves the token at `offset`.
pub fn resolve(a: &Analysis, offset: usize) -> Option<Target<'_>> {
    let i = token_at(&a.tokens, offset)?;
    let (start, tok, end) = &a.tokens[i];
    let Some(name) = name_of(tok) else {
        return a
            .facts()
            .expr_at(offset)
            .map(|e| Target::Expr(e.ty.clone()));
    };
    let prev = i.checked_sub(1).map(|p| &a.tokens[p].1);
    if matches!(prev, Some(Tok::At)) {
        return None;
    }
    if matches!(prev, Some(Tok::Dot)) && i >= 2 {
        if let Some(t) = member_target(a, i, name) {
            return Some(t);
        }
        return a
            .facts()
            .expr_at(offset)
            .map(|e| Target::Expr(e.ty.clone()));
    }
    // A read of a local, its declaration, or a write to it (found by name).
    if let Some(func) = a.facts().function_at(*start) {
        let f = a.module.as_ref()?.function(func.id);
        let read = func
            .exprs
            .iter()
            .find(|e| e.start == *start && e.end == *end && e.local.is_some())
            .and_then(|e| e.local);
        let declared = f
            .locals
            .iter()
            .position(|l| l.span.start as usize == *start && l.name == name)
            .map(LocalId);
        if let Some(id) = read.or(declared) {
            return Some(Target::Local { func, id });
        }
    }
    let next = a.tokens.get(i + 1).map(|t| &t.1);
    // A method is used by calling it, or (a kernel) by launching it: `k.launch(…)`.
    let launched = matches!(next, Some(Tok::Dot))
        && a.tokens.get(i + 2).and_then(|t| name_of(&t.1)) == Some("launch");
    let used = matches!(next, Some(Tok::LParen)) || launched;
    if let Some(t) = method_target(a, *start, name, used) {
        return Some(t);
    }
    if let Some((func, id)) = local_named(a, name, *start) {
        return Some(Target::Local { func, id });
    }
    if let Some(c) = user_class(a, name) {
        return Some(Target::Class(c));
    }
    let std = StdlibIndex::get().classes_named(name);
    if !std.is_empty() {
        return Some(Target::StdClass(std));
    }
    a.facts()
        .expr_at(offset)
        .map(|e| Target::Expr(e.ty.clone()))
}

/// `recv.name` at token `i` (`name`): a member of the receiver's class.
fn member_target<'a>(a: &'a Analysis, i: usize, name: &str) -> Option<Target<'a>> {
    let dot = &a.tokens[i - 1];
    let (class, _) = receiver_class(a, &a.tokens[i - 2], dot.0)?;
    if let Some(c) = user_class(a, &class) {
        if let Some((_, m)) = methods(c).find(|(_, m)| m.name.name == name) {
            return Some(Target::Method(c, m));
        }
        let field = c
            .members
            .iter()
            .position(|m| matches!(m, Member::Field(f) if f.name.name == name))?;
        return Some(Target::Field(c, field));
    }
    let members = StdlibIndex::get().members_named(&class, name);
    (!members.is_empty()).then_some(Target::StdMember(members))
}

/// A method of the document called `name` at the name starting at `start`: its declaration,
/// the callee of a call there, or (for a name that is called or launched, `used`) a method of
/// that name, in the enclosing class first.
fn method_target<'a>(a: &'a Analysis, start: usize, name: &str, used: bool) -> Option<Target<'a>> {
    let ast = a.ast.as_ref()?;
    for c in &ast.classes {
        if let Some((_, m)) = methods(c).find(|(_, m)| m.name.span.start as usize == start) {
            return Some(Target::Method(c, m));
        }
    }
    if !used {
        return None;
    }
    let func = a.facts().function_at(start);
    // The call's callee decides among overloads.
    if let (Some(func), Some(module)) = (func, a.module.as_ref()) {
        let callee = func
            .exprs
            .iter()
            .filter(|e| e.start <= start && start < e.end && e.call.is_some())
            .filter(|e| {
                module
                    .function(e.call.unwrap_or(crate::ir::FunctionId(0)))
                    .name
                    == name
            })
            .min_by_key(|e| e.end - e.start)
            .and_then(|e| e.call);
        if let Some(callee) = callee {
            let name_start = module.function(callee).span.start as usize;
            if let Some(t) = method_declared_at(a, name_start) {
                return Some(t);
            }
        }
    }
    let here = func.map(|f| f.class);
    let classes = ast.classes.iter().enumerate();
    let mut ordered: Vec<_> = classes.collect();
    ordered.sort_by_key(|(ci, _)| Some(*ci) != here);
    ordered.into_iter().find_map(|(_, c)| {
        methods(c)
            .find(|(_, m)| m.name.name == name)
            .map(|(_, m)| Target::Method(c, m))
    })
}

fn method_declared_at(a: &Analysis, name_start: usize) -> Option<Target<'_>> {
    let ast = a.ast.as_ref()?;
    ast.classes.iter().find_map(|c| {
        methods(c)
            .find(|(_, m)| m.name.span.start as usize == name_start)
            .map(|(_, m)| Target::Method(c, m))
    })
}
