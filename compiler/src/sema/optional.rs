//! Cajeta's `Optional<T>` of a scalar `T`, with `java.util.Optional`'s spelling, in host
//! code: `Optional.of(v)`, `Optional.empty()`, `o.isPresent()`, `o.isEmpty()`, `o.get()`
//! (a runtime error naming the type when empty) and `o.orElse(v)`. It is `Autotune.recall`'s
//! result.
//!
//! An `Optional<T>` is a POD of two fields user code cannot name (whether a value is
//! present, and the value, zero when empty), so both host executors run it as the PODs
//! they already have. It is built here rather than written as a generic class in stdlib/
//! because a generic class is used only in the file that declares it and is always
//! written with its arguments, while Cajeta writes `Optional.of(v)` and
//! `Optional.empty()`, which take `T` from the value or from where the result goes.

use std::sync::Arc;

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, AutotuneOp, BinaryOp, Constant, ExprKind, HostOp, Place, ScalarType, Stmt, StructDef,
    Type, UnaryOp,
};
use crate::syntax::ast;

/// The field saying whether a value is present (`$` keeps user code from naming it).
const PRESENT: &str = "$present";
/// The field holding the value.
const VALUE: &str = "$value";

/// `Optional<T>` for the written type argument `arg`: `T` must be a scalar of fixed width.
pub fn optional_type(
    arg: &ast::TypeArg,
    span: Span,
    generics: &std::collections::HashMap<String, Type>,
) -> Result<Type, Diagnostic> {
    let elem = match arg {
        ast::TypeArg::Type(t) => super::type_names::resolve_type(t, generics)?,
        ast::TypeArg::Int(..) => Type::Void,
    };
    match elem {
        Type::Scalar(s) => of_scalar(s, span),
        other => Err(not_scalar(&other, span)),
    }
}

/// `Optional<s>`.
fn of_scalar(s: ScalarType, span: Span) -> Result<Type, Diagnostic> {
    if s.is_precision() {
        return Err(not_scalar(&Type::Scalar(s), span));
    }
    Ok(Type::Struct(Arc::new(StructDef {
        name: format!("Optional<{s}>"),
        fields: vec![
            (PRESENT.to_string(), Type::Scalar(ScalarType::Bool)),
            (VALUE.to_string(), Type::Scalar(s)),
        ],
    })))
}

fn not_scalar(found: &Type, span: Span) -> Diagnostic {
    Diagnostic::error(
        Code::TypeMismatch,
        span,
        format!("an Optional holds a scalar of fixed width, found {found}"),
    )
    .with_note("help: `Optional<int32>`, `Optional<float32>`, `Optional<boolean>` …")
}

/// `T` of an `Optional<T>` type; `None` for every other type.
pub fn element(ty: &Type) -> Option<ScalarType> {
    match ty {
        Type::Struct(d) if d.fields.len() == 2 && d.fields[0].0 == PRESENT => {
            d.fields[1].1.as_scalar()
        }
        _ => None,
    }
}

fn expr(kind: ExprKind, ty: Type, span: Span) -> ir::Expr {
    ir::Expr { kind, ty, span }
}

/// `Construct(present, value)` of type `ty`.
fn construct(ty: Type, present: ir::Expr, value: ir::Expr, span: Span) -> ir::Expr {
    expr(ExprKind::Construct(vec![present, value]), ty, span)
}

/// `stmts` then `value`, or `value` alone.
fn sequence(stmts: Vec<Stmt>, value: ir::Expr) -> ir::Expr {
    if stmts.is_empty() {
        return value;
    }
    let (ty, span) = (value.ty.clone(), value.span);
    expr(ExprKind::Sequence(stmts, Box::new(value)), ty, span)
}

impl FnCtx<'_, '_> {
    /// `Optional.of(v)` / `Optional.empty()` where `recv` names the library class `Optional`
    /// (no local and no class of the program of that name); `None` otherwise.
    pub fn optional_static_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if !self.names_library_class(recv, "Optional") || self.syms.pods.contains_key("Optional") {
            return None;
        }
        let hint = self.optional_hint.take();
        Some(self.optional_static(hint, name, args, span))
    }

    fn optional_static(
        &mut self,
        hint: Option<Type>,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        self.optional_in_host_code(span)?;
        let args = self.positional(args)?;
        let want = hint.as_ref().and_then(element);
        let bool_ty = Type::Scalar(ScalarType::Bool);
        match (name.name.as_str(), args.as_slice()) {
            ("of", [v]) => {
                let want_ty = want.map(Type::Scalar);
                let value = self.expr(v, want_ty.as_ref())?;
                let s = match (want, &value.ty) {
                    (Some(s), _) => s,
                    (None, Type::Scalar(s)) => *s,
                    (None, other) => {
                        let d = not_scalar(other, v.span);
                        return self.error(d);
                    }
                };
                let value = self.coerce(value, &Type::Scalar(s), v.span)?;
                let ty = match of_scalar(s, v.span) {
                    Ok(t) => t,
                    Err(d) => return self.error(d),
                };
                let present = expr(ExprKind::Const(Constant::Bool(true)), bool_ty, span);
                Ok(construct(ty, present, value, span))
            }
            ("empty", []) => {
                let (Some(s), Some(ty)) = (want, hint) else {
                    return self.error(
                        Diagnostic::error(
                            Code::GenericInstantiation,
                            span,
                            "the type of `Optional.empty()` is taken from where it goes, and \
                             nothing here says it",
                        )
                        .with_note(
                            "help: give it a typed home: `Optional<int32> o = \
                             Optional.empty();`, or return it from a method declared to return \
                             `Optional<int32>`",
                        ),
                    );
                };
                let zero = match s {
                    ScalarType::Bool => Constant::Bool(false),
                    s if s.is_float() => Constant::Float(0.0),
                    _ => Constant::Int(0),
                };
                let present = expr(ExprKind::Const(Constant::Bool(false)), bool_ty, span);
                let value = expr(ExprKind::Const(zero), Type::Scalar(s), span);
                Ok(construct(ty, present, value, span))
            }
            ("of" | "empty", _) => {
                let n = if name.name == "of" { 1 } else { 0 };
                self.error(Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "`Optional.{}` takes {n} argument(s) but {} were supplied",
                        name.name,
                        args.len()
                    ),
                ))
            }
            _ => self.error(
                Diagnostic::error(
                    Code::UnknownMethod,
                    name.span,
                    format!("`Optional` has no static method `{}`", name.name),
                )
                .with_note("help: `Optional.of(v)` or `Optional.empty()`"),
            ),
        }
    }

    /// `o.isPresent()`, `o.isEmpty()`, `o.get()` and `o.orElse(v)` on the `Optional` value
    /// `o`, which is evaluated once.
    pub fn optional_method(
        &mut self,
        o: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let (Some(s), opt_ty) = (element(&o.ty), o.ty.clone()) else {
            return self.error(Diagnostic::error(
                Code::UnknownMethod,
                span,
                "not an Optional",
            ));
        };
        self.optional_in_host_code(span)?;
        let args = self.positional(args)?;
        let mut stmts = Vec::new();
        let place = self.once(o, &mut stmts);
        let field = |i: usize, ty: Type| {
            let place = Place::Field {
                base: Box::new(place.clone()),
                field: i,
            };
            expr(ExprKind::Load(place), ty, span)
        };
        let bool_ty = Type::Scalar(ScalarType::Bool);
        let present = field(0, bool_ty.clone());
        let value = field(1, Type::Scalar(s));
        let select = |otherwise: ir::Expr| ExprKind::Select {
            cond: Box::new(present.clone()),
            then: Box::new(value.clone()),
            otherwise: Box::new(otherwise),
        };
        let result = match (name.name.as_str(), args.as_slice()) {
            ("isPresent", []) => present.clone(),
            ("isEmpty", []) => expr(
                ExprKind::Unary(UnaryOp::Not, Box::new(present.clone())),
                bool_ty,
                span,
            ),
            ("get", []) => {
                let message = format!("`get()` of an empty {opt_ty}: no value is present");
                let text = expr(ExprKind::Str(message), Type::String, span);
                let fail = expr(
                    ExprKind::Host {
                        op: HostOp::EmptyOptional,
                        args: vec![text],
                    },
                    Type::Scalar(s),
                    span,
                );
                expr(select(fail), Type::Scalar(s), span)
            }
            // Java evaluates the argument whether or not a value is present.
            ("orElse", [v]) => {
                let other = self.expr(v, Some(&Type::Scalar(s)))?;
                let other = self.coerce(other, &Type::Scalar(s), v.span)?;
                let other_place = self.once(other, &mut stmts);
                let other = expr(ExprKind::Load(other_place), Type::Scalar(s), span);
                expr(select(other), Type::Scalar(s), span)
            }
            ("isPresent" | "isEmpty" | "get" | "orElse", _) => {
                let n = usize::from(name.name == "orElse");
                return self.error(Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "`{opt_ty}.{}` takes {n} argument(s) but {} were supplied",
                        name.name,
                        args.len()
                    ),
                ));
            }
            _ => {
                return self.error(
                    Diagnostic::error(
                        Code::UnknownMethod,
                        name.span,
                        format!("`{opt_ty}` has no method `{}`", name.name),
                    )
                    .with_note("its methods: isPresent(), isEmpty(), get(), orElse(v)"),
                )
            }
        };
        Ok(sequence(stmts, result))
    }

    /// `Autotune.recall(key)`: the store's int64 answer `raw` as an `Optional<int32>` of
    /// type `ty` (present unless it is [`AutotuneOp::ABSENT`]).
    pub fn optional_from_recall(&mut self, raw: ir::Expr, ty: Type) -> ir::Expr {
        let span = raw.span;
        let raw = ir::Expr {
            ty: Type::Scalar(ScalarType::I64),
            ..raw
        };
        let mut stmts = Vec::new();
        let place = self.once(raw, &mut stmts);
        let bits = expr(ExprKind::Load(place), Type::Scalar(ScalarType::I64), span);
        let absent = expr(
            ExprKind::Const(Constant::Int(AutotuneOp::ABSENT as u64)),
            Type::Scalar(ScalarType::I64),
            span,
        );
        let present = expr(
            ExprKind::Binary(BinaryOp::Ne, Box::new(bits.clone()), Box::new(absent)),
            Type::Scalar(ScalarType::Bool),
            span,
        );
        let value = expr(
            ExprKind::Convert(Box::new(bits)),
            Type::Scalar(ScalarType::I32),
            span,
        );
        sequence(stmts, construct(ty, present, value, span))
    }

    /// `e` as text where it is printed or concatenated: an Optional reads as Java's
    /// `Optional[v]` / `Optional.empty`, anything else is returned as it is.
    pub fn optional_as_text(&mut self, e: ir::Expr) -> ir::Expr {
        let Some(s) = element(&e.ty) else {
            return e;
        };
        let span = e.span;
        let mut stmts = Vec::new();
        let place = self.once(e, &mut stmts);
        let field = |i: usize, ty: Type| {
            let place = Place::Field {
                base: Box::new(place.clone()),
                field: i,
            };
            expr(ExprKind::Load(place), ty, span)
        };
        let string = |t: &str| expr(ExprKind::Str(t.to_string()), Type::String, span);
        let concat = |a: ir::Expr, b: ir::Expr| {
            expr(
                ExprKind::Host {
                    op: HostOp::Concat,
                    args: vec![a, b],
                },
                Type::String,
                span,
            )
        };
        let present = concat(
            concat(string("Optional["), field(1, Type::Scalar(s))),
            string("]"),
        );
        let text = ExprKind::Select {
            cond: Box::new(field(0, Type::Scalar(ScalarType::Bool))),
            then: Box::new(present),
            otherwise: Box::new(string("Optional.empty")),
        };
        sequence(stmts, expr(text, Type::String, span))
    }

    /// A place holding `e`'s value: its own local, or a fresh one assigned in `stmts`.
    fn once(&mut self, e: ir::Expr, stmts: &mut Vec<Stmt>) -> Place {
        if let ExprKind::Load(p @ Place::Local(_)) = &e.kind {
            return p.clone();
        }
        let id = self.temp(e.ty.clone(), e.span);
        let span = e.span;
        stmts.push(Stmt::Store {
            place: Place::Local(id),
            value: e,
            span,
        });
        Place::Local(id)
    }

    /// E0018 in kernels and `@Device` methods: an Optional is host code.
    fn optional_in_host_code(&mut self, span: Span) -> R<()> {
        if !self.is_device() {
            return Ok(());
        }
        self.error(
            Diagnostic::error(
                Code::HostOnlyInDevice,
                span,
                "`Optional` is host code: kernels have no optional values",
            )
            .with_note("help: pass the value (or a flag saying there is none) to the kernel"),
        )
    }
}
