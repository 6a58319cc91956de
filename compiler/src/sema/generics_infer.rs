//! Inferring a generic method's arguments from a call's arguments, as Java does for
//! `max(a, b)`: each argument's type is read from what is written (a local's or a
//! parameter's declared type, a cast, a suffixed literal, an element of an array or
//! buffer, an operator over those) and matched against the parameter's declared type.
//! An unsuffixed literal binds a type parameter only where nothing else does (`int32`,
//! or `float64` for a float literal, as a literal alone is typed, SPEC §3).

use super::generics_subst::{parse_int, type_text, Bound};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::syntax::ast::*;
use std::collections::HashMap;

/// What is known of an argument's type before checking.
#[derive(Debug, Clone)]
pub enum ArgType {
    /// A declared or written type.
    Known(TypeExpr),
    /// An unsuffixed integer literal.
    IntLiteral,
    /// An unsuffixed float literal.
    FloatLiteral,
    /// Not readable without checking (a field, a library call, …).
    Unknown,
}

fn named(name: &str, span: Span) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Named {
            name: name.to_string(),
            args: vec![],
        },
        span,
    }
}

/// Reads an argument's type. `local` finds a local's or parameter's declared type;
/// `returns` a same-class method's return type.
pub fn arg_type(
    e: &Expr,
    local: &dyn Fn(&str) -> Option<TypeExpr>,
    returns: &dyn Fn(&str) -> Option<TypeExpr>,
) -> ArgType {
    let recur = |x: &Expr| arg_type(x, local, returns);
    match &e.kind {
        ExprKind::Int(t) => match t.chars().last() {
            Some('L' | 'l') => ArgType::Known(named("int64", e.span)),
            Some('u' | 'U') if !t.starts_with("0x") || t.ends_with(['u', 'U']) => {
                ArgType::Known(named("uint32", e.span))
            }
            _ => ArgType::IntLiteral,
        },
        ExprKind::Float(t) => match t.chars().last() {
            Some('f' | 'F') if !t.starts_with("0x") => ArgType::Known(named("float32", e.span)),
            Some('d' | 'D') if !t.starts_with("0x") => ArgType::Known(named("float64", e.span)),
            Some('h' | 'H') => ArgType::Known(named("float16", e.span)),
            _ => ArgType::FloatLiteral,
        },
        ExprKind::Bool(_) => ArgType::Known(named("boolean", e.span)),
        ExprKind::Name(n) => local(n).map_or(ArgType::Unknown, ArgType::Known),
        ExprKind::Cast(t, _) => ArgType::Known((**t).clone()),
        ExprKind::New { ty, .. } => ArgType::Known((**ty).clone()),
        ExprKind::NewArray { elem, .. } => ArgType::Known(TypeExpr {
            kind: TypeExprKind::Array(Box::new(elem.clone())),
            span: e.span,
        }),
        ExprKind::Call(f, _) => returns(&f.name).map_or(ArgType::Unknown, ArgType::Known),
        ExprKind::Index(a, _) => match recur(a) {
            ArgType::Known(TypeExpr {
                kind: TypeExprKind::Array(t),
                ..
            }) => ArgType::Known(*t),
            ArgType::Known(TypeExpr {
                kind: TypeExprKind::Named { name, args },
                ..
            }) if matches!(name.as_str(), "KernelBuffer" | "Buffer" | "Shared") => {
                match args.first() {
                    Some(TypeArg::Type(t)) => ArgType::Known(t.clone()),
                    _ => ArgType::Unknown,
                }
            }
            _ => ArgType::Unknown,
        },
        ExprKind::Unary(UnOp::Not, _) => ArgType::Known(named("boolean", e.span)),
        ExprKind::Unary(_, a) => recur(a),
        ExprKind::Binary(op, a, b) => match op {
            BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::Eq
            | BinOp::Ne
            | BinOp::And
            | BinOp::Or => ArgType::Known(named("boolean", e.span)),
            BinOp::Shl | BinOp::Shr | BinOp::UShr => recur(a),
            _ => join(recur(a), recur(b)),
        },
        ExprKind::Conditional(_, a, b) => join(recur(a), recur(b)),
        _ => ArgType::Unknown,
    }
}

/// The type of `a op b` as far as it can be read: a known side wins over a literal.
fn join(a: ArgType, b: ArgType) -> ArgType {
    match (a, b) {
        (ArgType::Known(t), _) | (_, ArgType::Known(t)) => ArgType::Known(t),
        (ArgType::Unknown, _) | (_, ArgType::Unknown) => ArgType::Unknown,
        (ArgType::FloatLiteral, _) | (_, ArgType::FloatLiteral) => ArgType::FloatLiteral,
        _ => ArgType::IntLiteral,
    }
}

/// Bindings found so far: a parameter's type or constant, with where it came from.
pub struct Inference {
    /// The generic method's name, for the help line.
    method: String,
    found: HashMap<String, (Bound, Span)>,
    literal: HashMap<String, ArgType>,
}

impl Inference {
    /// Nothing bound yet, for a call of `method`.
    pub fn new(method: &str) -> Inference {
        Inference {
            method: method.to_string(),
            found: HashMap::new(),
            literal: HashMap::new(),
        }
    }

    /// Matches the declared parameter type `param` against an argument of type `arg`,
    /// binding the generic parameters in `generics` (name → constant type, if a constant).
    pub fn unify(
        &mut self,
        generics: &HashMap<String, Option<TypeExpr>>,
        param: &TypeExpr,
        arg: &ArgType,
        at: Span,
    ) -> Result<(), Diagnostic> {
        match (&param.kind, arg) {
            (TypeExprKind::Named { name, args }, _)
                if args.is_empty() && generics.get(name) == Some(&None) =>
            {
                match arg {
                    ArgType::Known(t) => self.bind(name, Bound::Type(t.clone()), at),
                    ArgType::IntLiteral | ArgType::FloatLiteral => {
                        let slot = self
                            .literal
                            .entry(name.clone())
                            .or_insert(ArgType::IntLiteral);
                        if matches!(arg, ArgType::FloatLiteral) {
                            *slot = ArgType::FloatLiteral;
                        }
                        Ok(())
                    }
                    ArgType::Unknown => Ok(()),
                }
            }
            (
                TypeExprKind::Array(p),
                ArgType::Known(TypeExpr {
                    kind: TypeExprKind::Array(a),
                    ..
                }),
            ) => self.unify(generics, p, &ArgType::Known((**a).clone()), at),
            (
                TypeExprKind::Named { name, args },
                ArgType::Known(TypeExpr {
                    kind:
                        TypeExprKind::Named {
                            name: an,
                            args: aargs,
                        },
                    ..
                }),
            ) if name == an && args.len() == aargs.len() => {
                for (p, a) in args.iter().zip(aargs) {
                    match (p, a) {
                        (TypeArg::Type(p), TypeArg::Type(a)) => {
                            self.unify(generics, p, &ArgType::Known(a.clone()), at)?
                        }
                        (TypeArg::Type(p), TypeArg::Int(v, _)) => {
                            if let TypeExprKind::Named { name, args } = &p.kind {
                                if let (true, Some(Some(vt)), Some(n)) =
                                    (args.is_empty(), generics.get(name), parse_int(v))
                                {
                                    self.bind(name, Bound::Value(n, vt.clone()), at)?;
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn bind(&mut self, name: &str, b: Bound, at: Span) -> Result<(), Diagnostic> {
        if let Some((old, old_at)) = self.found.get(name) {
            let text = |b: &Bound| match b {
                Bound::Type(t) => type_text(t),
                Bound::Value(v, _) => v.to_string(),
            };
            if text(old) != text(&b) {
                return Err(Diagnostic::error(
                    Code::GenericInstantiation,
                    at,
                    format!(
                        "conflicting arguments for `{name}`: `{}` here, `{}` from an earlier argument",
                        text(&b),
                        text(old)
                    ),
                )
                .with_label(format!("`{name}` = `{}`", text(&b)))
                .with_secondary(*old_at, format!("`{name}` = `{}`", text(old)))
                .with_note(format!(
                    "help: cast the arguments to one type, or write the arguments: `{}<{}>(…)`",
                    self.method,
                    text(old)
                )));
            }
            return Ok(());
        }
        self.found.insert(name.to_string(), (b, at));
        Ok(())
    }

    /// The binding of `name`: inferred, else from literals alone, else `None`.
    pub fn get(&self, name: &str, span: Span) -> Option<Bound> {
        if let Some((b, _)) = self.found.get(name) {
            return Some(b.clone());
        }
        match self.literal.get(name) {
            Some(ArgType::FloatLiteral) => Some(Bound::Type(named("float64", span))),
            Some(_) => Some(Bound::Type(named("int32", span))),
            None => None,
        }
    }
}
