//! Generic arguments: checking them against a generic's parameters, their canonical text
//! (which names an instance: `Tile<16>`, `max<float32>`), and substituting them into a copy
//! of the generic's declaration.

use super::generics_walk::{self, AstRewrite};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::syntax::ast::*;
use std::collections::HashMap;

/// One generic argument, checked against its parameter.
#[derive(Debug, Clone)]
pub enum Bound {
    /// A type parameter's type.
    Type(TypeExpr),
    /// A constant parameter's value and declared type (`16` for `uint32 TM`).
    Value(i128, TypeExpr),
}

/// The canonical text of a written type (`Vector<float32, 4>`, `int32[]`), which names
/// instances: two uses with the same text share one instance.
pub fn type_text(t: &TypeExpr) -> String {
    match &t.kind {
        TypeExprKind::Void => "void".to_string(),
        TypeExprKind::Array(e) => format!("{}[]", type_text(e)),
        TypeExprKind::Function { params, ret } => {
            let ps: Vec<String> = params.iter().map(type_text).collect();
            format!("({})->{}", ps.join(", "), type_text(ret))
        }
        TypeExprKind::Named { name, args } if args.is_empty() => name.clone(),
        TypeExprKind::Named { name, args } => {
            let parts: Vec<String> = args
                .iter()
                .map(|a| match a {
                    TypeArg::Type(t) => type_text(t),
                    TypeArg::Int(v, _) => parse_int(v).map_or_else(|| v.clone(), |n| n.to_string()),
                })
                .collect();
            format!("{name}<{}>", parts.join(", "))
        }
    }
}

/// An integer literal's value (decimal, `0x`, `0b`, `_` separators; suffixes ignored).
pub fn parse_int(text: &str) -> Option<i128> {
    let t: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .trim_end_matches(['L', 'l', 'u', 'U'])
        .to_string();
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, t),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i128::from_str_radix(b, 2).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        i128::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

/// The range of an integer constant parameter's type; `None` for a type that cannot hold
/// a generic constant.
pub fn value_range(ty: &TypeExpr) -> Option<(i128, i128)> {
    let TypeExprKind::Named { name, .. } = &ty.kind else {
        return None;
    };
    Some(match name.as_str() {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "uint64" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// Checks written arguments against `params` of the generic `what` (`class Tile`,
/// `method max`), E0050 naming the first that does not fit.
pub fn check_args(
    what: &str,
    params: &[GenericParam],
    args: &[TypeArg],
    span: Span,
) -> Result<Vec<Bound>, Diagnostic> {
    if params.len() != args.len() {
        let names: Vec<String> = params.iter().map(param_text).collect();
        return Err(Diagnostic::error(
            Code::GenericInstantiation,
            span,
            format!(
                "{what} takes {} generic argument{}, found {}",
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                args.len()
            ),
        )
        .with_label("wrong number of generic arguments")
        .with_note(format!("its parameters: <{}>", names.join(", "))));
    }
    params
        .iter()
        .zip(args)
        .map(|(p, a)| bind(what, p, a))
        .collect()
}

fn param_text(p: &GenericParam) -> String {
    match &p.value_type {
        Some(t) => format!("{} {}", type_text(t), p.name.name),
        None => p.name.name.clone(),
    }
}

fn bind(what: &str, p: &GenericParam, a: &TypeArg) -> Result<Bound, Diagnostic> {
    let pname = &p.name.name;
    match (&p.value_type, a) {
        (None, TypeArg::Type(t)) => Ok(Bound::Type(t.clone())),
        (None, TypeArg::Int(v, span)) => Err(Diagnostic::error(
            Code::GenericInstantiation,
            *span,
            format!("`{pname}` of {what} is a type parameter, found the constant `{v}`"),
        )
        .with_label("expected a type")
        .with_secondary(p.name.span, "declared here")),
        (Some(vt), TypeArg::Int(v, span)) => {
            let Some(value) = parse_int(v) else {
                return Err(Diagnostic::error(
                    Code::GenericInstantiation,
                    *span,
                    format!("`{v}` is not an integer constant"),
                ));
            };
            let (lo, hi) = value_range(vt).unwrap_or((i128::MIN, i128::MAX));
            if value < lo || value > hi {
                return Err(Diagnostic::error(
                    Code::GenericInstantiation,
                    *span,
                    format!(
                        "`{v}` does not fit `{pname}`'s type {} ({lo}..={hi})",
                        type_text(vt)
                    ),
                )
                .with_label("out of range")
                .with_secondary(p.name.span, "declared here"));
            }
            Ok(Bound::Value(value, vt.clone()))
        }
        (Some(vt), TypeArg::Type(t)) => Err(Diagnostic::error(
            Code::GenericInstantiation,
            t.span,
            format!(
                "`{pname}` of {what} is a {} constant, found the type `{}`",
                type_text(vt),
                type_text(t)
            ),
        )
        .with_label("expected an integer constant")
        .with_secondary(p.name.span, "declared here")),
    }
}

/// The canonical text of checked arguments, `<16>` or `<float32, 4>`.
pub fn args_text(bounds: &[Bound]) -> String {
    let parts: Vec<String> = bounds
        .iter()
        .map(|b| match b {
            Bound::Type(t) => type_text(t),
            Bound::Value(v, _) => v.to_string(),
        })
        .collect();
    format!("<{}>", parts.join(", "))
}

/// Replaces generic parameters by their arguments in one declaration.
pub struct Substitute {
    map: HashMap<String, Bound>,
}

impl Substitute {
    /// Parameters paired with their checked arguments.
    pub fn new(params: &[GenericParam], bounds: &[Bound]) -> Substitute {
        Substitute {
            map: params
                .iter()
                .map(|p| p.name.name.clone())
                .zip(bounds.iter().cloned())
                .collect(),
        }
    }

    /// Substitutes into a method.
    pub fn method(&mut self, m: &mut MethodDecl) {
        generics_walk::method(m, self);
    }

    /// Substitutes into a field's type.
    pub fn field(&mut self, f: &mut FieldDecl) {
        generics_walk::ty(&mut f.ty, self);
    }
}

/// `16` of `uint32 TM` as an expression: `(uint32) 16`, so that it keeps the parameter's
/// type wherever it is used (a bare literal would take its type from context).
fn constant(value: i128, ty: &TypeExpr, span: Span) -> ExprKind {
    let lit = Expr {
        kind: ExprKind::Int(value.unsigned_abs().to_string()),
        span,
        depth: 1,
    };
    let lit = if value < 0 {
        Expr {
            kind: ExprKind::Unary(UnOp::Neg, Box::new(lit)),
            span,
            depth: 2,
        }
    } else {
        lit
    };
    let ty = TypeExpr {
        kind: ty.kind.clone(),
        span,
    };
    ExprKind::Cast(Box::new(ty), Box::new(lit))
}

impl AstRewrite for Substitute {
    fn ty(&mut self, t: &mut TypeExpr) {
        let TypeExprKind::Named { name, args } = &mut t.kind else {
            return;
        };
        for a in args.iter_mut() {
            if let TypeArg::Type(TypeExpr {
                kind: TypeExprKind::Named { name, args },
                span,
            }) = a
            {
                if let (true, Some(Bound::Value(v, _))) = (args.is_empty(), self.map.get(name)) {
                    *a = TypeArg::Int(v.to_string(), *span);
                }
            }
        }
        if args.is_empty() {
            if let Some(Bound::Type(bound)) = self.map.get(name.as_str()) {
                // The argument as written at the use, but spanning the parameter here.
                t.kind = bound.kind.clone();
            }
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        if let ExprKind::Name(n) = &e.kind {
            if let Some(Bound::Value(v, ty)) = self.map.get(n.as_str()) {
                e.kind = constant(*v, ty, e.span);
                e.depth = 3;
            }
        }
    }
}
