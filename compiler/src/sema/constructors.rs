//! Java-style constructors of POD classes (docs/language.md, "POD class parameters").
//!
//! A constructor `P(params) { body }` is checked as a host function of its own: its locals
//! are the parameters, then `this` (the value being built, a POD local whose fields all start
//! at zero), then the body's; `return;` and the end of the body return `this`. `stack P(…)`
//! / `heap P(…)` of a class that declares constructors is a plain call of the one the
//! arguments select, so both host executors run a constructor like any host method. `this`
//! is only ever the base of a field access (`this.f`, or a bare field name), so the value
//! cannot escape before the constructor returns it.

use std::collections::HashMap;

use super::body::{FnCtx, R};
use super::conversions::is_implicit;
use super::expr::is_context_literal;
use super::names::{Symbols, UserFunction};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, Constant, ExprKind, FunctionId, LocalId, Place, Type};
use crate::syntax::ast;

/// The POD type a constructor declared in `class` builds, once its form is checked; `None`
/// (with the error reported) when it is not a constructor that can be checked.
pub fn constructor_of(
    c: &ast::MethodDecl,
    class: &ast::ClassDecl,
    pods: &HashMap<String, Type>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Type> {
    let name = &c.name.name;
    if *name != class.name.name {
        diags.push(
            Diagnostic::error(
                Code::SyntaxError,
                c.name.span,
                format!("method `{name}` has no return type"),
            )
            .with_note(format!(
                "help: a method needs one (`void {name}(…)`); a constructor is named after its class, `{}(…)`",
                class.name.name
            )),
        );
        return None;
    }
    for a in &c.annotations {
        diags.push(
            Diagnostic::error(
                Code::InvalidAnnotation,
                a.span,
                format!("`@{}` cannot mark a constructor", a.name.name),
            )
            .with_note("constructors are host code and take no annotations"),
        );
    }
    if c.has_modifier("static") {
        diags.push(Diagnostic::error(
            Code::KernelSignature,
            c.name.span,
            format!("constructor `{name}` cannot be static"),
        ));
    }
    if c.body.is_none() {
        diags.push(Diagnostic::error(
            Code::SyntaxError,
            c.name.span,
            format!("constructor `{name}` has no body"),
        ));
        return None;
    }
    match pods.get(name) {
        Some(t) => Some(t.clone()),
        None => {
            diags.push(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    c.name.span,
                    format!("class `{name}` has no fields, so it cannot have a constructor"),
                )
                .with_note("constructors build POD values: classes with instance fields"),
            );
            None
        }
    }
}

/// E0026 for two constructors of one class with the same parameter types; the second is
/// left out of the class's constructors, so that calls report nothing more.
pub fn check_constructor_overloads(syms: &mut Symbols<'_>, diags: &mut Vec<Diagnostic>) {
    let mut classes: Vec<&mut Vec<FunctionId>> = syms.constructors.values_mut().collect();
    classes.sort_by_key(|ids| ids.first().map(|id| id.0));
    for ids in classes {
        let mut kept: Vec<FunctionId> = Vec::with_capacity(ids.len());
        for id in ids.iter() {
            let f = &syms.functions[id.0];
            // A parameter type that did not resolve (E0007) matches nothing.
            let first = kept
                .iter()
                .map(|p| &syms.functions[p.0])
                .find(|p| p.params == f.params && !f.params.contains(&Type::Void));
            let Some(first) = first else {
                kept.push(*id);
                continue;
            };
            diags.push(
                Diagnostic::error(
                    Code::DuplicateFunction,
                    f.decl.name.span,
                    format!("constructor `{}` is declared twice", signature(f)),
                )
                .with_secondary(first.decl.name.span, "first declared here")
                .with_note("constructors of one class differ in their parameter types"),
            );
        }
        *ids = kept;
    }
}

/// `P(float32 scale, uint32 count)`.
fn signature(f: &UserFunction<'_>) -> String {
    let params: Vec<String> = f
        .decl
        .params
        .iter()
        .zip(&f.params)
        .map(|(p, t)| format!("{t} {}", p.name.name))
        .collect();
    format!("{}({})", f.class, params.join(", "))
}

/// The zero value of a POD and of its fields (`false`, `0`, `0.0` in every field and lane).
fn zero(ty: &Type, span: Span) -> ir::Expr {
    let kind = match ty {
        Type::Scalar(s) if *s == ir::ScalarType::Bool => ExprKind::Const(Constant::Bool(false)),
        Type::Scalar(s) if s.is_float() => ExprKind::Const(Constant::Float(0.0)),
        Type::Vector(s, _) => ExprKind::Splat(Box::new(zero(&Type::Scalar(*s), span))),
        Type::Struct(d) => {
            ExprKind::Construct(d.fields.iter().map(|(_, t)| zero(t, span)).collect())
        }
        _ => ExprKind::Const(Constant::Int(0)),
    };
    ir::Expr {
        kind,
        ty: ty.clone(),
        span,
    }
}

/// Whether a value of type `from` is passed to a parameter of type `to` without a cast.
fn converts(from: &Type, to: &Type) -> bool {
    match (from, to) {
        (Type::Scalar(f), Type::Scalar(t)) => is_implicit(*f, *t),
        _ => from == to,
    }
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// Declares `this`, the value a constructor builds, after the parameters.
    pub(super) fn declare_this(&mut self, pod: Type, span: Span) {
        if let Some(param) = self.lookup("this") {
            let at = self.locals[param.0].span;
            self.diags.push(
                Diagnostic::error(
                    Code::Redeclaration,
                    at,
                    "a constructor parameter cannot be named `this`",
                )
                .with_note("`this` is the value the constructor builds; choose another name"),
            );
        }
        let id = LocalId(self.locals.len());
        self.locals.push(ir::Local {
            name: "this".to_string(),
            ty: pod,
            span,
        });
        self.assigned.push(true);
        self.scope_push("this", id);
        self.this = Some(id);
    }

    /// The body of a constructor: `this` starts zeroed, and `return;` (lowered in
    /// `return_stmt`) and the end of the body return it.
    pub fn constructor_body(&mut self, block: &ast::Block) -> ir::Block {
        let Some(this) = self.this else {
            return self.body(block);
        };
        let span = self.syms.functions[self.fid.0].decl.name.span;
        let pod = self.locals[this.0].ty.clone();
        let mut out = vec![ir::Stmt::Store {
            place: Place::Local(this),
            value: zero(&pod, span),
            span,
        }];
        out.extend(self.body(block));
        if !self.dead {
            let end = Span {
                start: block.span.end.saturating_sub(1),
                ..block.span
            };
            out.push(ir::Stmt::Return(Some(self.load_this(this, end)), end));
        }
        out
    }

    fn load_this(&self, this: LocalId, span: Span) -> ir::Expr {
        ir::Expr {
            kind: ExprKind::Load(Place::Local(this)),
            ty: self.locals[this.0].ty.clone(),
            span,
        }
    }

    /// `this` as the base of `this.f`: the constructor's value; `None` for any other base.
    pub(super) fn this_base(&self, base: &ast::Expr) -> Option<ir::Expr> {
        let this = self.this?;
        match &base.kind {
            ast::ExprKind::Name(n) if self.lookup(n) == Some(this) => {
                Some(self.load_this(this, base.span))
            }
            _ => None,
        }
    }

    /// The value `return;` gives: `this` in a constructor, nothing elsewhere.
    pub(super) fn implicit_return(&self, span: Span) -> Option<ir::Expr> {
        self.this.map(|this| self.load_this(this, span))
    }

    /// Whether local `id` is a constructor's `this`.
    pub(super) fn is_this(&self, id: LocalId) -> bool {
        self.this == Some(id)
    }

    /// A bare field name in a constructor (`count` for `this.count`), when no local hides it.
    pub(super) fn this_field(&self, name: &str) -> Option<(Place, Type)> {
        let this = self.this?;
        let Type::Struct(d) = &self.locals[this.0].ty else {
            return None;
        };
        let i = d.field(name)?;
        Some((
            Place::Field {
                base: Box::new(Place::Local(this)),
                field: i,
            },
            d.fields[i].1.clone(),
        ))
    }

    /// E0024 for `this` used as a value.
    pub(super) fn this_escapes<T>(&mut self, span: Span) -> R<T> {
        self.error(
            Diagnostic::error(
                Code::UnsupportedFeature,
                span,
                "`this` can only be used to reach a field, as in `this.count`",
            )
            .with_label("`this` used as a value")
            .with_note("the constructor returns the value when it ends; build it first (`stack P(…)`) to pass it around"),
        )
    }

    /// `stack P(…)` / `heap P(…)` of a class with constructors: a call of the constructor
    /// the arguments select. Only constructors with as many parameters as there are
    /// arguments are candidates. Among several, one whose parameter types are exactly the
    /// argument types (an unsuffixed literal counting as its own type, `int32` or
    /// `float64`) wins; else, of those every argument converts to without a cast (an
    /// unsuffixed literal: where it fits), the most specific (each of its parameter types
    /// converts to the other's), as Java chooses.
    pub fn constructor_call(
        &mut self,
        class: &str,
        ctors: &[FunctionId],
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let args = self.positional(args)?;
        let syms = self.syms;
        let listed = || {
            let all: Vec<String> = ctors
                .iter()
                .map(|id| signature(&syms.functions[id.0]))
                .collect();
            format!("constructors: {}", all.join(", "))
        };
        let candidates: Vec<FunctionId> = ctors
            .iter()
            .copied()
            .filter(|id| syms.functions[id.0].params.len() == args.len())
            .collect();
        if candidates.is_empty() {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "no constructor of `{class}` takes {} argument(s)",
                        args.len()
                    ),
                )
                .with_note(listed())
                .with_note(format!(
                    "`{class}` declares constructors, so it is built only through them (no positional form)"
                )),
            );
        }
        // With one candidate every argument is checked against it, as for a method call.
        let mut typed: Vec<Option<ir::Expr>> = vec![None; args.len()];
        let chosen = if let [one] = candidates[..] {
            one
        } else {
            let mut own: Vec<Option<Type>> = Vec::with_capacity(args.len());
            for (slot, a) in typed.iter_mut().zip(&args) {
                if is_context_literal(a) {
                    own.push(self.quietly(|c| c.expr(a, None)).map(|v| v.ty));
                } else {
                    let v = self.expr(a, None)?;
                    own.push(Some(v.ty.clone()));
                    *slot = Some(v);
                }
            }
            let exact: Vec<FunctionId> = candidates
                .iter()
                .copied()
                .filter(|id| {
                    let params = &syms.functions[id.0].params;
                    params.iter().zip(&own).all(|(p, t)| t.as_ref() == Some(p))
                })
                .collect();
            let applicable: Vec<FunctionId> = candidates
                .iter()
                .copied()
                .filter(|id| self.applicable(&syms.functions[id.0].params, &args, &typed))
                .collect();
            let more_specific = |a: FunctionId, b: FunctionId| {
                let (pa, pb) = (&syms.functions[a.0].params, &syms.functions[b.0].params);
                pa.iter().zip(pb).all(|(x, y)| converts(x, y))
            };
            let best: Vec<FunctionId> = applicable
                .iter()
                .copied()
                .filter(|&a| applicable.iter().all(|&b| more_specific(a, b)))
                .collect();
            match (exact.as_slice(), best.as_slice(), applicable.is_empty()) {
                ([one], _, _) | ([], [one], _) => *one,
                (_, _, empty) => {
                    let found: Vec<String> = args
                        .iter()
                        .zip(&typed)
                        .map(|(a, t)| match t {
                            Some(v) => v.ty.to_string(),
                            None => format!("a literal `{}`", literal_text(a)),
                        })
                        .collect();
                    let message = if empty {
                        format!("no constructor of `{class}` takes ({})", found.join(", "))
                    } else {
                        format!(
                            "this call of a `{class}` constructor is ambiguous for ({})",
                            found.join(", ")
                        )
                    };
                    let mut d =
                        Diagnostic::error(Code::TypeMismatch, span, message).with_note(listed());
                    if !empty {
                        d = d.with_note("help: add casts or suffixes to the arguments to pick one");
                    }
                    return self.error(d);
                }
            }
        };
        let f = &syms.functions[chosen.0];
        let mut values = Vec::with_capacity(args.len());
        let mut failed = false;
        for ((a, p), v) in args.iter().zip(&f.params).zip(typed) {
            if *p == Type::Void {
                // The parameter's type did not resolve (E0007 at its declaration): check the
                // argument, but report no mismatch against a type nobody wrote.
                if v.is_none() {
                    let _ = self.expr(a, None);
                }
                failed = true;
                continue;
            }
            let v = match v {
                Some(v) => Ok(v),
                None => self.expr(a, Some(p)),
            };
            match v.and_then(|v| self.coerce(v, p, a.span)) {
                Ok(v) => values.push(v),
                Err(()) => failed = true,
            }
        }
        if failed {
            return Err(());
        }
        self.calls.push((chosen, span));
        Ok(ir::Expr {
            kind: ExprKind::Call {
                func: chosen,
                args: values,
            },
            ty: f.ret.clone(),
            span,
        })
    }

    /// Whether every argument converts to its parameter without a cast. `typed` holds the
    /// arguments already checked; the others (unsuffixed literals) are tried against the
    /// parameter type, which reports nothing.
    fn applicable(
        &mut self,
        params: &[Type],
        args: &[&ast::Expr],
        typed: &[Option<ir::Expr>],
    ) -> bool {
        params
            .iter()
            .zip(args)
            .zip(typed)
            .all(|((p, a), t)| match t {
                Some(v) => converts(&v.ty, p),
                None => self
                    .quietly(|c| c.expr(a, Some(p)).and_then(|v| c.coerce(v, p, a.span)))
                    .is_some(),
            })
    }

    /// Runs a check of a literal without reporting anything: its result, if it passed.
    pub(super) fn quietly(
        &mut self,
        check: impl FnOnce(&mut Self) -> R<ir::Expr>,
    ) -> Option<ir::Expr> {
        let reported = self.diags.len();
        let r = check(self).ok();
        self.diags.truncate(reported);
        r
    }
}

/// The source form of a literal argument, for messages.
fn literal_text(e: &ast::Expr) -> String {
    match &e.kind {
        ast::ExprKind::Int(t) | ast::ExprKind::Float(t) => t.clone(),
        ast::ExprKind::Unary(ast::UnOp::Neg, inner) => format!("-{}", literal_text(inner)),
        _ => "…".to_string(),
    }
}
