//! POD classes: a user class's (non-static) fields, all scalars or vectors, make it a value
//! type passed by value to kernels in the push-constant block (std430). Host code builds one
//! with `stack P(f1, f2, …)` / `heap P(…)` (positional, field order) or, when the class
//! declares constructors, through them (`constructors.rs`), and reads and writes `p.field`;
//! device code reads the fields of a POD kernel parameter.

use std::collections::HashMap;
use std::sync::Arc;

use super::body::{FnCtx, R};
use super::type_names::resolve_type;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, Place, StructDef, Type};
use crate::syntax::ast;

/// The POD types declared by the user classes of `files` (stdlib files excluded), by name.
pub fn collect_pods(
    files: &[(ast::SourceFile, bool)],
    diags: &mut Vec<Diagnostic>,
) -> HashMap<String, Type> {
    let mut pods = HashMap::new();
    for (file, is_stdlib) in files {
        if *is_stdlib {
            continue;
        }
        for class in &file.classes {
            let mut fields = Vec::new();
            for member in &class.members {
                let ast::Member::Field(f) = member else {
                    continue;
                };
                if f.modifiers.iter().any(|m| m == "static") {
                    diags.push(Diagnostic::error(
                        Code::UnsupportedFeature,
                        f.name.span,
                        "static fields are not supported; POD fields are instance fields",
                    ));
                    continue;
                }
                match resolve_type(&f.ty, &HashMap::new()) {
                    Ok(t @ (Type::Scalar(_) | Type::Vector(..))) => {
                        fields.push((f.name.name.clone(), t))
                    }
                    Ok(other) => diags.push(
                        Diagnostic::error(
                            Code::UnsupportedFeature,
                            f.ty.span,
                            format!("a POD field must be a scalar or a vector, not {other}"),
                        )
                        .with_note("POD classes hold only primitive fields"),
                    ),
                    Err(d) => diags.push(d),
                }
            }
            if !fields.is_empty() {
                let def = StructDef {
                    name: class.name.name.clone(),
                    fields,
                };
                pods.insert(def.name.clone(), Type::Struct(Arc::new(def)));
            }
        }
    }
    pods
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `p.field` of a POD value read from a place: the field's place.
    pub fn pod_field(&mut self, b: ir::Expr, field: &ast::Ident) -> R<(Place, Type)> {
        let Type::Struct(d) = &b.ty else {
            return self.error(Diagnostic::error(
                Code::UnknownName,
                field.span,
                format!("`{}` has no field `{}`", b.ty, field.name),
            ));
        };
        let d = d.clone();
        let Some(i) = d.field(&field.name) else {
            let names: Vec<&str> = d.fields.iter().map(|(n, _)| n.as_str()).collect();
            return self.error(
                Diagnostic::error(
                    Code::UnknownName,
                    field.span,
                    format!("`{}` has no field `{}`", d.name, field.name),
                )
                .with_label("no such field")
                .with_note(format!("its fields: {}", names.join(", "))),
            );
        };
        let ExprKind::Load(place) = b.kind else {
            return self.error(Diagnostic::error(
                Code::UnsupportedFeature,
                field.span,
                "fields can be read from POD variables and parameters only",
            ));
        };
        Ok((
            Place::Field {
                base: Box::new(place),
                field: i,
            },
            d.fields[i].1.clone(),
        ))
    }

    /// `stack P(…)` / `heap P(…)` of a POD class in host code: the fields in order, each
    /// converted implicitly to its type.
    pub fn construct_pod(&mut self, ty: Type, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let Type::Struct(d) = &ty else {
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                span,
                "not a POD class",
            ));
        };
        let syms = self.syms;
        let ctors = syms.constructors.get(&d.name);
        if self.is_device() {
            let what = match ctors {
                Some(_) => "constructors are host code",
                None => "POD values are built in host code",
            };
            return self.error(
                Diagnostic::error(
                    Code::HostOnlyInDevice,
                    span,
                    format!("`{}` cannot be built in device code: {what}", d.name),
                )
                .with_note("help: build it in host code, pass it as a kernel parameter and read its fields"),
            );
        }
        if let Some(ctors) = ctors {
            return self.constructor_call(&d.name, ctors, args, span);
        }
        if args.len() != d.fields.len() {
            let names: Vec<&str> = d.fields.iter().map(|(n, _)| n.as_str()).collect();
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "`{}` has {} fields but {} values were given",
                        d.name,
                        d.fields.len(),
                        args.len()
                    ),
                )
                .with_note(format!("the fields, in order: {}", names.join(", "))),
            );
        }
        let mut parts = Vec::new();
        let mut failed = false;
        for (a, (_, ft)) in args.iter().zip(&d.fields) {
            let v = self
                .expr(&a.value, Some(ft))
                .and_then(|v| self.coerce(v, ft, a.value.span));
            match v {
                Ok(v) => parts.push(v),
                Err(()) => failed = true,
            }
        }
        if failed {
            return Err(());
        }
        Ok(ir::Expr {
            kind: ExprKind::Construct(parts),
            ty,
            span,
        })
    }
}
