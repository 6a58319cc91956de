//! The rewrite of one method's (or field's) uses of generics into uses of their instances
//! (`Tile<16>`, `max<float32>(a, b)`), asking the expander of `generics.rs` for each
//! instance it needs; local declarations are tracked by scope, for the argument types that
//! method type arguments are inferred from.

use super::generics::{Expander, InstanceOrigin, Job};
use super::generics_infer::{arg_type, Inference};
use super::generics_subst::{args_text, check_args, Bound};
use super::generics_walk::AstRewrite;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::syntax::ast::*;
use std::collections::HashMap;

/// Rewrites the uses of generics in one method (or field) of class `class`.
pub(super) struct Rewriter<'e> {
    pub(super) ex: &'e mut Expander,
    pub(super) class: String,
    pub(super) scopes: Vec<HashMap<String, TypeExpr>>,
}

impl Rewriter<'_> {
    fn local(&self, name: &str) -> Option<TypeExpr> {
        self.scopes.iter().rev().find_map(|s| s.get(name).cloned())
    }

    fn error(&mut self, d: Diagnostic) {
        self.ex.diags.push(d);
    }

    /// The instance name for a generic class used with `args`, queued if new.
    fn class_instance(&mut self, template: &str, args: &[TypeArg], span: Span) -> Option<String> {
        let (_, decl, extent) = self.ex.classes.get(template)?;
        let (params, extent) = (decl.type_params.clone(), *extent);
        let bounds = match check_args(&format!("class `{template}`"), &params, args, span) {
            Ok(b) => b,
            Err(d) => {
                self.error(d);
                return None;
            }
        };
        let name = format!("{template}{}", args_text(&bounds));
        let origin = InstanceOrigin {
            template: extent,
            name: name.clone(),
            used_at: span,
        };
        let job = Job::Class {
            template: template.to_string(),
            bounds,
            name: name.clone(),
        };
        self.ex.request(name.clone(), origin, job).then_some(name)
    }

    /// The instance name of generic method `owner.method` with `bounds`, queued if new.
    fn method_instance(
        &mut self,
        owner: &str,
        method: &str,
        bounds: Vec<Bound>,
        span: Span,
    ) -> Option<String> {
        let template = self
            .ex
            .methods
            .get(&(owner.to_string(), method.to_string()))?
            .span;
        let name = format!("{method}{}", args_text(&bounds));
        let origin = InstanceOrigin {
            template,
            name: name.clone(),
            used_at: span,
        };
        let job = Job::Method {
            owner: owner.to_string(),
            template: method.to_string(),
            bounds,
            name: name.clone(),
        };
        self.ex
            .request(format!("{owner}.{name}"), origin, job)
            .then_some(name)
    }

    fn is_generic_method(&self, owner: &str, method: &str) -> bool {
        self.ex
            .methods
            .contains_key(&(owner.to_string(), method.to_string()))
    }

    /// `owner.method<args>(…)` written out.
    fn explicit(
        &mut self,
        owner: &str,
        method: &Ident,
        targs: &[TypeArg],
        span: Span,
    ) -> Option<String> {
        let params = self
            .ex
            .methods
            .get(&(owner.to_string(), method.name.clone()))?
            .type_params
            .clone();
        match check_args(&format!("method `{}`", method.name), &params, targs, span) {
            Ok(bounds) => self.method_instance(owner, &method.name, bounds, span),
            Err(d) => {
                self.error(d);
                None
            }
        }
    }

    /// `owner.method(args)` with its generic arguments inferred from `args`.
    fn inferred(
        &mut self,
        owner: &str,
        method: &Ident,
        args: &[Arg],
        span: Span,
    ) -> Option<String> {
        let decl = self
            .ex
            .methods
            .get(&(owner.to_string(), method.name.clone()))?;
        let params: Vec<TypeExpr> = decl.params.iter().map(|p| p.ty.clone()).collect();
        let tparams = decl.type_params.clone();
        if params.len() != args.len() {
            self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "`{}` takes {} arguments, found {}",
                        method.name,
                        params.len(),
                        args.len()
                    ),
                )
                .with_label("wrong number of arguments"),
            );
            return None;
        }
        let generics: HashMap<String, Option<TypeExpr>> = tparams
            .iter()
            .map(|p| (p.name.name.clone(), p.value_type.clone()))
            .collect();
        let returns = self.ex.returns.get(owner).cloned().unwrap_or_default();
        let mut inference = Inference::new(&method.name);
        for (p, a) in params.iter().zip(args) {
            let t = arg_type(&a.value, &|n| self.local(n), &|f| {
                returns.get(f).cloned().flatten()
            });
            if let Err(d) = inference.unify(&generics, p, &t, a.value.span) {
                self.error(d);
                return None;
            }
        }
        let mut bounds = Vec::new();
        for tp in &tparams {
            match inference.get(&tp.name.name, span) {
                Some(b) => bounds.push(b),
                None => {
                    let names: Vec<&str> = tparams.iter().map(|p| p.name.name.as_str()).collect();
                    self.error(
                        Diagnostic::error(
                            Code::GenericInstantiation,
                            span,
                            format!(
                                "cannot infer `{}` of generic method `{}` from these arguments",
                                tp.name.name, method.name
                            ),
                        )
                        .with_label(format!("`{}` unknown", tp.name.name))
                        .with_note(format!(
                            "help: write the generic arguments: `{}<{}>(…)`, or cast the arguments",
                            method.name,
                            names.join(", ")
                        )),
                    );
                    return None;
                }
            }
        }
        self.method_instance(owner, &method.name, bounds, span)
    }
}

impl AstRewrite for Rewriter<'_> {
    fn ty(&mut self, t: &mut TypeExpr) {
        let TypeExprKind::Named { name, args } = &t.kind else {
            return;
        };
        if !self.ex.classes.contains_key(name) {
            return;
        }
        if args.is_empty() {
            let d = Diagnostic::error(
                Code::GenericInstantiation,
                t.span,
                format!("`{name}` is generic: write its arguments, `{name}<…>`"),
            )
            .with_label("missing generic arguments");
            self.error(d);
            return;
        }
        let (name, args) = (name.clone(), args.clone());
        if let Some(instance) = self.class_instance(&name, &args, t.span) {
            t.kind = TypeExprKind::Named {
                name: instance,
                args: vec![],
            };
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        let span = e.span;
        let class = self.class.clone();
        let new_kind = match &mut e.kind {
            ExprKind::GenericClass(t) => match &t.kind {
                TypeExprKind::Named { name, args } if args.is_empty() => {
                    Some(ExprKind::Name(name.clone()))
                }
                _ => None,
            },
            ExprKind::Name(n)
                if self.ex.classes.contains_key(n.as_str()) && self.local(n).is_none() =>
            {
                let d = Diagnostic::error(
                    Code::GenericInstantiation,
                    span,
                    format!("`{n}` is generic: write its arguments, `{n}<…>`"),
                )
                .with_label("missing generic arguments");
                self.error(d);
                None
            }
            ExprKind::GenericCall(f, targs, args) => {
                if self.is_generic_method(&class, &f.name) {
                    let (f, targs) = (f.clone(), targs.clone());
                    self.explicit(&class, &f, &targs, span).map(|n| {
                        ExprKind::Call(
                            Ident {
                                name: n,
                                span: f.span,
                            },
                            std::mem::take(args),
                        )
                    })
                } else {
                    let d = Diagnostic::error(
                        Code::GenericInstantiation,
                        f.span,
                        format!("`{}` is not a generic method of `{class}`", f.name),
                    )
                    .with_label("generic arguments on a method without generic parameters");
                    self.error(d);
                    None
                }
            }
            ExprKind::Call(f, args) if self.is_generic_method(&class, &f.name) => {
                let f = f.clone();
                let args_copy = args.clone();
                self.inferred(&class, &f, &args_copy, span).map(|n| {
                    ExprKind::Call(
                        Ident {
                            name: n,
                            span: f.span,
                        },
                        std::mem::take(args),
                    )
                })
            }
            ExprKind::MethodCall(recv, f, args) => match &recv.kind {
                ExprKind::Name(owner)
                    if self.local(owner).is_none() && self.is_generic_method(owner, &f.name) =>
                {
                    let (owner, f2, args_copy) = (owner.clone(), f.clone(), args.clone());
                    self.inferred(&owner, &f2, &args_copy, span).map(|n| {
                        ExprKind::MethodCall(
                            recv.clone(),
                            Ident {
                                name: n,
                                span: f2.span,
                            },
                            std::mem::take(args),
                        )
                    })
                }
                _ => None,
            },
            ExprKind::GenericMethodCall(recv, f, targs, args) => match &recv.kind {
                ExprKind::Name(owner)
                    if self.local(owner).is_none() && self.is_generic_method(owner, &f.name) =>
                {
                    let (owner, f2, targs) = (owner.clone(), f.clone(), targs.clone());
                    self.explicit(&owner, &f2, &targs, span).map(|n| {
                        ExprKind::MethodCall(
                            recv.clone(),
                            Ident {
                                name: n,
                                span: f2.span,
                            },
                            std::mem::take(args),
                        )
                    })
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(k) = new_kind {
            e.kind = k;
        }
    }

    fn enter_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn leave_scope(&mut self) {
        self.scopes.pop();
    }

    fn declare(&mut self, name: &str, ty: &TypeExpr) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), ty.clone());
        }
    }
}
