//! Expression checking: the dispatch over expression forms, implicit conversions (`coerce`),
//! names and fields. Literals are in `typed_literals.rs`, operators and casts in
//! `operators.rs`, places and assignments in `assign.rs`.

use super::body::{FnCtx, R};
use super::conversions::is_implicit;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, Constant, ExprKind, HostOp, Place, ScalarType, Type};
use crate::syntax::ast::{self, BinOp, UnOp};

/// Whether an expression's type comes from its context: an unsuffixed literal, or an
/// operator expression made only of literals (whose constant value then takes the context's
/// type where it fits, like a literal: see `literal_compound`).
pub fn is_context_literal(e: &ast::Expr) -> bool {
    is_bare_literal(e) || is_literal_compound(e)
}

/// Whether `e` is an operator expression made only of literals (`7 / 2`, `~7`, `-1 - 5`,
/// `6 == 0 ? 1 : 6`). SPEC §3 types such an expression on its own (an unsuffixed integer
/// literal alone is `int32`), so the context's type must not reach its literals.
pub fn is_literal_compound(e: &ast::Expr) -> bool {
    matches!(
        e.kind,
        ast::ExprKind::Unary(..) | ast::ExprKind::Binary(..) | ast::ExprKind::Conditional(..)
    ) && !is_bare_literal(e)
        && literal_only(e)
}

fn literal_only(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Int(_) | ast::ExprKind::Float(_) | ast::ExprKind::Bool(_) => true,
        ast::ExprKind::Unary(UnOp::Neg | UnOp::Plus | UnOp::BitNot | UnOp::Not, a) => {
            literal_only(a)
        }
        ast::ExprKind::Binary(_, a, b) => literal_only(a) && literal_only(b),
        ast::ExprKind::Conditional(c, a, b) => {
            literal_only(c) && literal_only(a) && literal_only(b)
        }
        _ => false,
    }
}

/// An unsuffixed literal, possibly signed.
fn is_bare_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Int(t) => !super::literals::has_int_suffix(t),
        ast::ExprKind::Float(t) => {
            let hex = t.starts_with("0x") || t.starts_with("0X");
            let last = t.chars().last().unwrap_or(' ');
            !(matches!(last, 'f' | 'F' | 'd' | 'D' | 'h' | 'H') && (!hex || t.contains(['p', 'P'])))
        }
        // One sign only: `-(-1)` and `- -1` are operator expressions of literals, typed and
        // computed on their own (`-(-2147483648)` wraps in int32, as in Java).
        ast::ExprKind::Unary(UnOp::Neg | UnOp::Plus, inner) => {
            matches!(inner.kind, ast::ExprKind::Int(_) | ast::ExprKind::Float(_))
                && is_bare_literal(inner)
        }
        _ => false,
    }
}

/// The lane type of a vector or matrix hint (literals next to a vector take it).
pub(super) fn lane_of(t: &Type) -> Option<ScalarType> {
    match t {
        Type::Vector(s, _) | Type::Matrix(s, _, _) => Some(*s),
        _ => None,
    }
}

pub(super) fn scalar(s: ScalarType) -> Type {
    Type::Scalar(s)
}

pub(super) fn ir_binop(op: BinOp) -> BinaryOp {
    match op {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mul => BinaryOp::Mul,
        BinOp::Div => BinaryOp::Div,
        BinOp::Rem => BinaryOp::Rem,
        BinOp::Shl => BinaryOp::Shl,
        BinOp::Shr => BinaryOp::Shr,
        BinOp::UShr => BinaryOp::UShr,
        BinOp::Lt => BinaryOp::Lt,
        BinOp::Le => BinaryOp::Le,
        BinOp::Gt => BinaryOp::Gt,
        BinOp::Ge => BinaryOp::Ge,
        BinOp::Eq => BinaryOp::Eq,
        BinOp::Ne => BinaryOp::Ne,
        BinOp::BitAnd | BinOp::And => BinaryOp::BitAnd,
        BinOp::BitXor => BinaryOp::BitXor,
        BinOp::BitOr | BinOp::Or => BinaryOp::BitOr,
    }
}

/// Whether evaluating an IR expression twice is the same as once (no side effects).
pub fn is_pure(e: &ir::Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Str(_) => true,
        ExprKind::Load(p) => place_is_pure(p),
        ExprKind::Unary(_, a)
        | ExprKind::Convert(a)
        | ExprKind::Splat(a)
        | ExprKind::Swizzle(a, _) => is_pure(a),
        ExprKind::Construct(parts) => parts.iter().all(is_pure),
        ExprKind::Binary(op, a, b) => {
            !matches!(op, BinaryOp::Div | BinaryOp::Rem) && is_pure(a) && is_pure(b)
        }
        _ => false,
    }
}

pub(super) fn place_is_pure(p: &Place) -> bool {
    match p {
        Place::Local(_) => true,
        Place::Index { base, index } => is_pure(base) && is_pure(index),
        Place::Lane { base, .. } | Place::Field { base, .. } => place_is_pure(base),
    }
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// Converts `v` to `to` where that is implicit (SPEC §3), else reports E0008/E0009.
    pub fn coerce(&mut self, v: ir::Expr, to: &Type, span: Span) -> R<ir::Expr> {
        if &v.ty == to {
            return Ok(v);
        }
        let v = match super::precision::coerce(v, to) {
            Ok(converted) => return Ok(converted),
            Err(v) => v,
        };
        let v = match super::overloads::count_as_int32(v, to) {
            Ok(converted) => return Ok(converted),
            Err(v) => v,
        };
        match (&v.ty, to) {
            (Type::Scalar(f), Type::Scalar(t)) if is_implicit(*f, *t) => Ok(convert(v, *t)),
            // A constant whose value `t` cannot hold. One that fits but has its own type (a
            // suffixed literal, `5L` or `5u`) needs a cast like any other value (below).
            (Type::Scalar(f), Type::Scalar(t))
                if f.is_integer()
                    && t.is_integer()
                    && matches!(v.kind, ExprKind::Const(_))
                    && !const_fits(&v, *f, *t) =>
            {
                let shown = const_text(&v);
                self.error(
                    Diagnostic::error(
                        Code::LiteralOutOfRange,
                        span,
                        format!("literal {shown} does not fit in {t}"),
                    )
                    .with_label(format!("{t} holds {}", range_text(*t)))
                    .with_note(format!(
                        "help: if the wrap-around is intended, write `({t}) {shown}`"
                    )),
                )
            }
            (Type::Scalar(f), Type::Scalar(t)) if f.is_numeric() && t.is_numeric() => self.error(
                Diagnostic::error(
                    Code::MissingCast,
                    span,
                    format!("{f} does not convert to {t} without a cast"),
                )
                .with_label(format!("this is {f}"))
                .with_note(format!(
                    "help: add a cast: `({t}) (…)`; {}",
                    if f.is_integer() && t.is_float() {
                        format!("{t} cannot hold every {f} value exactly")
                    } else if f.is_float() && t.is_integer() {
                        "a float-to-integer conversion needs one".to_string()
                    } else if f.bits() > t.bits() {
                        "narrowing needs one".to_string()
                    } else if f.is_float() {
                        format!("{f} and {t} round differently, so converting needs one")
                    } else {
                        "a sign change needs one".to_string()
                    }
                )),
            ),
            (f, t) => {
                let (f, t) = (f.clone(), t.clone());
                let mut d =
                    Diagnostic::error(Code::TypeMismatch, span, format!("expected {t}, found {f}"))
                        .with_label(format!("this is {f}"));
                if let (Type::Image2D(_), Type::Image2D(_)) = (&f, &t) {
                    d = d.with_note(format!(
                        "help: an image's format is part of its type: declare it `{f}`"
                    ));
                }
                self.error(d)
            }
        }
    }

    /// Checks an expression; `hint` types unsuffixed literals.
    pub fn expr(&mut self, e: &ast::Expr, hint: Option<&Type>) -> R<ir::Expr> {
        if is_literal_compound(e) {
            return self.literal_compound(e, hint);
        }
        self.expr_form(e, hint)
    }

    /// Checks an expression by its form (`expr` less the literal-compound rule).
    pub(super) fn expr_form(&mut self, e: &ast::Expr, hint: Option<&Type>) -> R<ir::Expr> {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Int(text) => self.int_literal(text, false, hint, span),
            ast::ExprKind::Float(text) => self.float_literal(text, false, hint, span),
            ast::ExprKind::Unary(UnOp::Neg, inner)
                if matches!(inner.kind, ast::ExprKind::Int(_)) =>
            {
                let ast::ExprKind::Int(text) = &inner.kind else {
                    unreachable!()
                };
                self.int_literal(text, true, hint, span)
            }
            ast::ExprKind::Unary(UnOp::Neg, inner)
                if matches!(inner.kind, ast::ExprKind::Float(_)) =>
            {
                let ast::ExprKind::Float(text) = &inner.kind else {
                    unreachable!()
                };
                self.float_literal(text, true, hint, span)
            }
            ast::ExprKind::Bool(b) => Ok(ir::Expr::constant(
                Constant::Bool(*b),
                scalar(ScalarType::Bool),
                span,
            )),
            ast::ExprKind::Str(s) => {
                if self.is_device() {
                    return self.error(Diagnostic::error(
                        Code::HostOnlyInDevice,
                        span,
                        "strings are host-only",
                    ));
                }
                Ok(ir::Expr {
                    kind: ExprKind::Str(s.clone()),
                    ty: Type::String,
                    span,
                })
            }
            ast::ExprKind::Name(name) => self.name_expr(name, span),
            ast::ExprKind::Field(base, field) => match self
                .query_field(base, field, span)
                .or_else(|| self.class_constant(base, field, span))
            {
                Some(c) => c,
                None => self.field_expr(base, field, span),
            },
            ast::ExprKind::Index(..) => {
                if let Some((elem, dims)) = super::shared_nd::nd_shared_init(e) {
                    return self.shared_array_nd(elem, &dims, span);
                }
                if let Some(r) = self.nd_shared_place(e) {
                    let (place, ty) = r?;
                    return Ok(super::precision::promote_load(ir::Expr {
                        kind: ExprKind::Load(place),
                        ty,
                        span,
                    }));
                }
                let ast::ExprKind::Index(base, index) = &e.kind else {
                    unreachable!()
                };
                let b = self.expr(base, None)?;
                if let Type::Vector(..) = b.ty {
                    return self.vector_index(b, index, span);
                }
                if let Type::Matrix(..) = b.ty {
                    return self.matrix_row(b, index, span);
                }
                if let Type::Bytes16(_) = b.ty {
                    return self.bytes16_lane(b, index, span);
                }
                if let Type::Wide(..) = b.ty {
                    return self.wide_lane(b, index, span);
                }
                let (place, ty) = self.index_place(b, base, index, e.span)?;
                // SPEC §8: an `sfp`/`lfp` element reads as `afp`.
                Ok(super::precision::promote_load(ir::Expr {
                    kind: ExprKind::Load(place),
                    ty,
                    span,
                }))
            }
            ast::ExprKind::Call(name, args) => self.call(name, args, span),
            ast::ExprKind::MethodCall(recv, name, args) => {
                self.coop_hint = match hint {
                    Some(Type::CoopMatrix(t)) => Some(*t),
                    _ => None,
                };
                self.optional_hint = hint
                    .filter(|t| super::optional::element(t).is_some())
                    .cloned();
                self.method_call(recv, name, args, span)
            }
            ast::ExprKind::GenericMethodCall(recv, name, targs, args) => {
                self.generic_method_call(recv, name, targs, args, span)
            }
            ast::ExprKind::Launch { config, args } => self.launch(config, args, span),
            ast::ExprKind::Unary(op, inner) => self.unary(*op, inner, hint, span),
            ast::ExprKind::Binary(op, l, r) => self.binary(*op, l, r, hint, span),
            ast::ExprKind::Assign(op, l, r) => {
                let (stmts, place, ty) = self.assign(*op, l, r, span)?;
                // A wide local's value is its parts (sema/wide_vector.rs).
                let wide = match &place {
                    Place::Local(id) => self.load_wide(*id, span),
                    _ => None,
                };
                Ok(ir::Expr {
                    kind: ExprKind::Sequence(
                        stmts,
                        Box::new(wide.unwrap_or_else(|| ir::Expr {
                            kind: ExprKind::Load(place),
                            ty: ty.clone(),
                            span,
                        })),
                    ),
                    ty,
                    span,
                })
            }
            ast::ExprKind::Conditional(c, a, b) => self.conditional(c, a, b, hint, span),
            ast::ExprKind::Cast(t, inner) => self.cast(t, inner, span),
            ast::ExprKind::New { ty, args, .. } => self.new_object(ty, args, span),
            ast::ExprKind::NewArray { elem, len } => self.new_array(elem, len, span),
            ast::ExprKind::ArrayLit(items) => self.array_literal(items, hint, span),
            ast::ExprKind::SharedArray { elem, len } => self.shared_array(elem, len, span),
            ast::ExprKind::Switch(sw) => self.switch_expr(sw, hint),
            // `generics` replaces both with their instances before checking; one left is a
            // generic of another file (the lexer marks a file's own generics only).
            ast::ExprKind::GenericClass(t) => self.error(Diagnostic::error(
                Code::GenericInstantiation,
                t.span,
                "a generic class is used in the file that declares it",
            )),
            // `fn_tables` rewrites both where they belong to a function table.
            ast::ExprKind::MethodRef(..) => self.error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    span,
                    "a method reference is only an entry of a function table",
                )
                .with_note("help: `((int32)->int32)[] ops = {A::f, A::g};`, then `ops[i](x)`"),
            ),
            ast::ExprKind::IndexCall(t, ..) => self.error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    t.span,
                    "only a function table declared in this method can be called as `t[i](…)`",
                )
                .with_label("not a function table"),
            ),
            ast::ExprKind::GenericCall(f, ..) => self.error(Diagnostic::error(
                Code::GenericInstantiation,
                f.span,
                format!("`{}` is not a generic method of this class", f.name),
            )),
        }
    }

    pub(super) fn name_expr(&mut self, name: &str, span: Span) -> R<ir::Expr> {
        if let Some(id) = self.lookup(name) {
            if self.unresolved.contains(&id) {
                return Err(());
            }
            if self.is_this(id) {
                return self.this_escapes(span);
            }
            self.check_assigned(id, span)?;
            if let Some(wide) = self.load_wide(id, span) {
                return Ok(wide);
            }
            let ty = self.locals[id.0].ty.clone();
            return Ok(ir::Expr {
                kind: ExprKind::Load(Place::Local(id)),
                ty,
                span,
            });
        }
        if let Some((place, ty)) = self.this_field(name) {
            return Ok(ir::Expr {
                kind: ExprKind::Load(place),
                ty,
                span,
            });
        }
        if let Some(kind) = crate::ir::PresentationType::from_class_name(name) {
            // `RenderGraph.create()`: the class has no static members here.
            return self.error(super::presentation::refused(kind, span, "use the class"));
        }
        if let Some(d) = super::type_hints::cajeta_only_class(name, span) {
            return self.error(d);
        }
        let mut d = Diagnostic::error(
            Code::UnknownName,
            span,
            format!("cannot find `{name}` in this scope"),
        )
        .with_label("not declared");
        if name == "this" {
            d = d.with_note("only constructors have `this`; cajetac methods are static");
        }
        if let Some(similar) = self.similar_name(name) {
            d = d.with_note(format!(
                "help: a local with a similar name exists: `{similar}`"
            ));
        }
        self.error(d)
    }

    pub(super) fn similar_name(&self, name: &str) -> Option<String> {
        let lower = name.to_lowercase();
        self.locals
            .iter()
            .filter(|l| !l.name.starts_with('$'))
            .map(|l| l.name.clone())
            .find(|n| {
                // Edit distance 1 needs lengths within 1 of each other; checking that first
                // keeps a long unknown name from costing a quadratic comparison per local.
                n.to_lowercase() == lower
                    || (n.len() > 2
                        && n.len().abs_diff(name.len()) <= 1
                        && crate::diagnostics::similar::edit_distance(n, name) == 1)
            })
    }

    pub(super) fn field_expr(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> R<ir::Expr> {
        if let Some(message) = self.catch_message(base, &field.name) {
            return Ok(message);
        }
        let b = match self.this_base(base) {
            Some(this) => this,
            None => self.expr(base, None)?,
        };
        if let Type::Vector(..) = b.ty {
            return self.swizzle(b, field, span);
        }
        if let Type::Quaternion(_) = b.ty {
            return self.quaternion_lane(b, field, span);
        }
        if let Type::Bytes16(_) = b.ty {
            let t = b.ty.clone();
            return self.error(
                Diagnostic::error(
                    Code::UnknownName,
                    field.span,
                    format!("`{t}` has no field `{}`", field.name),
                )
                .with_note("help: read a lane of a 16-lane byte vector by its index, `v[k]` with a constant k in 0..15"),
            );
        }
        if let Type::Wide(..) = b.ty {
            let d = super::wide_vector::wide_refused(&b.ty, field.span, "a lane by name");
            return self.error(d);
        }
        if let Type::Struct(_) = b.ty {
            let (place, ty) = self.pod_field(b, field)?;
            return Ok(ir::Expr {
                kind: ExprKind::Load(place),
                ty,
                span,
            });
        }
        match (&b.ty, field.name.as_str()) {
            (Type::Array(_), "length") => Ok(ir::Expr {
                kind: ExprKind::Host {
                    op: HostOp::ArrayLength,
                    args: vec![b],
                },
                ty: scalar(ScalarType::I32),
                span,
            }),
            (t, f) => {
                let t = t.clone();
                self.error(Diagnostic::error(
                    Code::UnknownName,
                    field.span,
                    format!("`{t}` has no field `{f}`"),
                ))
            }
        }
    }
}

/// Wraps `v` in a conversion to `to` unless it already has that type. Constants are folded.
pub fn convert(v: ir::Expr, to: ScalarType) -> ir::Expr {
    if v.ty == Type::Scalar(to) {
        return v;
    }
    let span = v.span;
    if let (ExprKind::Const(c), Type::Scalar(from)) = (&v.kind, &v.ty) {
        if let Some(folded) = crate::ir::const_fold::convert_constant(*c, *from, to) {
            return ir::Expr::constant(folded, Type::Scalar(to), span);
        }
    }
    ir::Expr {
        kind: ExprKind::Convert(Box::new(v)),
        ty: Type::Scalar(to),
        span,
    }
}

pub(super) fn const_text(v: &ir::Expr) -> String {
    match (&v.kind, &v.ty) {
        (ExprKind::Const(Constant::Int(bits)), Type::Scalar(s)) => {
            if s.is_signed_integer() {
                let shift = 64 - s.bits();
                (((*bits << shift) as i64) >> shift).to_string()
            } else {
                bits.to_string()
            }
        }
        _ => "this value".to_string(),
    }
}

/// Whether the integer constant `v` of type `from` is a value of `to`.
fn const_fits(v: &ir::Expr, from: ScalarType, to: ScalarType) -> bool {
    let ExprKind::Const(Constant::Int(bits)) = v.kind else {
        return false;
    };
    let value = crate::ir::const_fold::int_value(bits, from);
    let w = to.bits().clamp(1, 64);
    if to.is_signed_integer() {
        (-(1i128 << (w - 1))..(1i128 << (w - 1))).contains(&value)
    } else {
        (0..(1i128 << w)).contains(&value)
    }
}

pub(super) fn range_text(t: ScalarType) -> String {
    let bits = t.bits();
    if t.is_signed_integer() {
        format!(
            "{} to {}",
            -(1i128 << (bits - 1)),
            (1i128 << (bits - 1)) - 1
        )
    } else {
        format!("0 to {}", (1u128 << bits) - 1)
    }
}
