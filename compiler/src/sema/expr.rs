//! Expression checking: literals typed from context, operators per SPEC §4, casts,
//! places and assignments (lowered to statement-level stores).

use super::body::{FnCtx, R};
use super::conversions::{is_castable, is_implicit, operand_type};
use super::literals::{fit_int, parse_float, parse_int, round_to_float};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, Constant, ExprKind, HostOp, Place, ScalarType, Type, UnaryOp};
use crate::syntax::ast::{self, BinOp, UnOp};

/// Whether an expression is an unsuffixed literal, whose type comes from context.
pub fn is_context_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Int(t) => !t.ends_with(['l', 'L']),
        ast::ExprKind::Float(t) => {
            let hex = t.starts_with("0x") || t.starts_with("0X");
            let last = t.chars().last().unwrap_or(' ');
            !(matches!(last, 'f' | 'F' | 'd' | 'D' | 'h' | 'H') && (!hex || t.contains(['p', 'P'])))
        }
        ast::ExprKind::Unary(UnOp::Neg | UnOp::Plus, inner) => is_context_literal(inner),
        _ => false,
    }
}

/// The lane type of a vector or matrix hint (literals next to a vector take it).
fn lane_of(t: &Type) -> Option<ScalarType> {
    match t {
        Type::Vector(s, _) | Type::Matrix(s, _, _) => Some(*s),
        _ => None,
    }
}

fn scalar(s: ScalarType) -> Type {
    Type::Scalar(s)
}

fn ir_binop(op: BinOp) -> BinaryOp {
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

fn place_is_pure(p: &Place) -> bool {
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
        match (&v.ty, to) {
            (Type::Scalar(f), Type::Scalar(t)) if is_implicit(*f, *t) => Ok(convert(v, *t)),
            (Type::Scalar(f), Type::Scalar(t))
                if f.is_integer() && t.is_integer() && matches!(v.kind, ExprKind::Const(_)) =>
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
                    "help: add a cast: `({t}) (…)`; {} needs one",
                    if f.bits() > t.bits() || (f.is_float() && t.is_integer()) {
                        "narrowing"
                    } else {
                        "a sign change"
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
            ast::ExprKind::Field(base, field) => match self.class_constant(base, field, span) {
                Some(c) => c,
                None => self.field_expr(base, field, span),
            },
            ast::ExprKind::Index(..) => {
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
                let (place, ty) = self.index_place(b, base, index, e.span)?;
                Ok(ir::Expr {
                    kind: ExprKind::Load(place),
                    ty,
                    span,
                })
            }
            ast::ExprKind::Call(name, args) => self.call(name, args, span),
            ast::ExprKind::MethodCall(recv, name, args) => self.method_call(recv, name, args, span),
            ast::ExprKind::GenericMethodCall(recv, name, targs, args) => {
                self.generic_method_call(recv, name, targs, args, span)
            }
            ast::ExprKind::Launch { config, args } => self.launch(config, args, span),
            ast::ExprKind::Unary(op, inner) => self.unary(*op, inner, hint, span),
            ast::ExprKind::Binary(op, l, r) => self.binary(*op, l, r, hint, span),
            ast::ExprKind::Assign(op, l, r) => {
                let (stmts, place, ty) = self.assign(*op, l, r, span)?;
                Ok(ir::Expr {
                    kind: ExprKind::Sequence(
                        stmts,
                        Box::new(ir::Expr {
                            kind: ExprKind::Load(place),
                            ty: ty.clone(),
                            span,
                        }),
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
        }
    }

    fn int_literal(
        &mut self,
        text: &str,
        negative: bool,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let lane_hint = hint.and_then(lane_of).map(Type::Scalar);
        let hint = lane_hint.as_ref().or(hint);
        let lit = match parse_int(text) {
            Ok(l) => l,
            Err(msg) => {
                let code = if msg.contains("too large") {
                    Code::LiteralOutOfRange
                } else {
                    Code::InvalidLiteral
                };
                return self.error(Diagnostic::error(code, span, msg));
            }
        };
        let hinted = match hint {
            Some(Type::Scalar(s)) if !lit.long => Some(*s),
            _ => None,
        };
        if let Some(t) = hinted {
            if t.is_float() {
                let v = lit.value as f64 * if negative { -1.0 } else { 1.0 };
                return Ok(ir::Expr::constant(
                    Constant::Float(round_to_float(t, v)),
                    scalar(t),
                    span,
                ));
            }
            if let Some(bits) = fit_int(&lit, negative, t) {
                return Ok(ir::Expr::constant(Constant::Int(bits), scalar(t), span));
            }
        }
        let order: &[ScalarType] = if lit.long {
            &[ScalarType::I64]
        } else {
            &[ScalarType::I32, ScalarType::I64]
        };
        for t in order {
            if let Some(bits) = fit_int(&lit, negative, *t) {
                return Ok(ir::Expr::constant(Constant::Int(bits), scalar(*t), span));
            }
        }
        let sign = if negative { "-" } else { "" };
        self.error(
            Diagnostic::error(Code::LiteralOutOfRange, span, format!("integer literal {sign}{text} is out of range"))
                .with_label(format!("does not fit in {}", order.last().copied().unwrap_or(ScalarType::I64)))
                .with_note("int64 holds -9223372036854775808 to 9223372036854775807; uint64 up to 18446744073709551615"),
        )
    }

    fn float_literal(
        &mut self,
        text: &str,
        negative: bool,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let lane_hint = hint.and_then(lane_of).map(Type::Scalar);
        let hint = lane_hint.as_ref().or(hint);
        let (v, suffix) = match parse_float(text) {
            Ok(x) => x,
            Err(msg) => return self.error(Diagnostic::error(Code::InvalidLiteral, span, msg)),
        };
        let v = if negative { -v } else { v };
        let ty = match (suffix, hint) {
            (Some(s), _) => s,
            (None, Some(Type::Scalar(s))) if s.is_float() => *s,
            _ => ScalarType::F64,
        };
        let rounded = round_to_float(ty, v);
        if rounded.is_infinite() && v.is_finite() {
            return self.error(
                Diagnostic::error(
                    Code::LiteralOutOfRange,
                    span,
                    format!("float literal {text} overflows {ty}"),
                )
                .with_label("rounds to infinity"),
            );
        }
        Ok(ir::Expr::constant(
            Constant::Float(rounded),
            scalar(ty),
            span,
        ))
    }

    fn name_expr(&mut self, name: &str, span: Span) -> R<ir::Expr> {
        if let Some(id) = self.lookup(name) {
            self.check_assigned(id, span)?;
            let ty = self.locals[id.0].ty.clone();
            return Ok(ir::Expr {
                kind: ExprKind::Load(Place::Local(id)),
                ty,
                span,
            });
        }
        let mut d = Diagnostic::error(
            Code::UnknownName,
            span,
            format!("cannot find `{name}` in this scope"),
        )
        .with_label("not declared");
        if let Some(similar) = self.similar_name(name) {
            d = d.with_note(format!(
                "help: a local with a similar name exists: `{similar}`"
            ));
        }
        self.error(d)
    }

    fn similar_name(&self, name: &str) -> Option<String> {
        let lower = name.to_lowercase();
        self.locals
            .iter()
            .filter(|l| !l.name.starts_with('$'))
            .map(|l| l.name.clone())
            .find(|n| n.to_lowercase() == lower || (n.len() > 2 && edit_distance(n, name) == 1))
    }

    fn field_expr(&mut self, base: &ast::Expr, field: &ast::Ident, span: Span) -> R<ir::Expr> {
        let b = self.expr(base, None)?;
        if let Type::Vector(..) = b.ty {
            return self.swizzle(b, field, span);
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

    /// Resolves an assignable expression.
    pub fn place(&mut self, e: &ast::Expr) -> R<(Place, Type)> {
        match &e.kind {
            ast::ExprKind::Name(n) => match self.lookup(n) {
                Some(id) => Ok((Place::Local(id), self.locals[id.0].ty.clone())),
                None => {
                    self.name_expr(n, e.span)?;
                    Err(())
                }
            },
            ast::ExprKind::Field(base, field) => {
                let b = self.expr(base, None)?;
                if let Type::Struct(_) = b.ty {
                    if self.is_device() {
                        return self.error(Diagnostic::error(
                            Code::NotAssignable,
                            e.span,
                            "POD parameters are read-only in device code",
                        ));
                    }
                    return self.pod_field(b, field);
                }
                self.lane_place(b, super::vector::LaneSel::Name(field), e.span)
            }
            ast::ExprKind::Index(base, index) => {
                let b = self.expr(base, None)?;
                if let Type::Vector(..) = b.ty {
                    return self.lane_place(b, super::vector::LaneSel::Index(index), e.span);
                }
                self.index_place(b, base, index, e.span)
            }
            _ => self.error(
                Diagnostic::error(
                    Code::NotAssignable,
                    e.span,
                    "this expression cannot be assigned to",
                )
                .with_label("not a variable or element"),
            ),
        }
    }

    /// `b[index]` of a buffer or host array `b` (already checked from `base`).
    fn index_place(
        &mut self,
        b: ir::Expr,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> R<(Place, Type)> {
        let elem = match &b.ty {
            Type::Buffer(elem) => {
                let elem = (**elem).clone();
                if !self.is_device() {
                    return self.error(
                        Diagnostic::error(
                            Code::DeviceOnlyInHost,
                            span,
                            "KernelBuffer elements are not indexable in host code",
                        )
                        .with_note("help: download into a host array, then index that"),
                    );
                }
                elem
            }
            Type::Shared(elem) => (**elem).clone(),
            Type::Array(t) => (**t).clone(),
            other => {
                let other = other.clone();
                return self.error(Diagnostic::error(
                    Code::InvalidOperator,
                    base.span,
                    format!("`{other}` cannot be indexed"),
                ));
            }
        };
        let i = self.expr(index, Some(&scalar(ScalarType::U32)))?;
        let device_index = matches!(b.ty, Type::Buffer(_) | Type::Shared(_));
        let i = self.index_value(i, index.span, device_index)?;
        Ok((
            Place::Index {
                base: Box::new(b),
                index: Box::new(i),
            },
            elem,
        ))
    }

    fn index_value(&mut self, i: ir::Expr, span: Span, buffer: bool) -> R<ir::Expr> {
        match i.ty {
            Type::Scalar(s) if s.is_integer() && s.bits() <= 32 => {
                if buffer && s != ScalarType::U32 {
                    Ok(convert(i, ScalarType::U32))
                } else if !buffer && s.bits() < 32 {
                    Ok(convert(
                        i,
                        if s.is_signed_integer() {
                            ScalarType::I32
                        } else {
                            ScalarType::U32
                        },
                    ))
                } else {
                    Ok(i)
                }
            }
            ref t => {
                let t = t.clone();
                self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("an index must be a 32-bit or narrower integer, found {t}"),
                ))
            }
        }
    }

    fn unary(
        &mut self,
        op: UnOp,
        inner: &ast::Expr,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        match op {
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let (stmts, value) = self.increment(op, inner, span, true)?;
                let ty = value.ty.clone();
                Ok(ir::Expr {
                    kind: ExprKind::Sequence(stmts, Box::new(value)),
                    ty,
                    span,
                })
            }
            UnOp::Plus => {
                let v = self.expr(inner, hint)?;
                match v.ty {
                    Type::Scalar(s) if s.is_numeric() => Ok(v),
                    _ => self.bad_unary("+", &v, span),
                }
            }
            UnOp::Neg => {
                let v = self.expr(inner, hint)?;
                match v.ty {
                    Type::Scalar(s) | Type::Vector(s, _) if s.is_numeric() => {
                        let ty = v.ty.clone();
                        Ok(ir::Expr {
                            kind: ExprKind::Unary(UnaryOp::Neg, Box::new(v)),
                            ty,
                            span,
                        })
                    }
                    _ => self.bad_unary("-", &v, span),
                }
            }
            UnOp::Not => {
                let v = self.expr(inner, Some(&scalar(ScalarType::Bool)))?;
                match v.ty {
                    Type::Scalar(ScalarType::Bool) | Type::Vector(ScalarType::Bool, _) => {
                        let ty = v.ty.clone();
                        Ok(ir::Expr {
                            kind: ExprKind::Unary(UnaryOp::Not, Box::new(v)),
                            ty,
                            span,
                        })
                    }
                    _ => self.bad_unary("!", &v, span),
                }
            }
            UnOp::BitNot => {
                let v = self.expr(inner, hint)?;
                match v.ty {
                    Type::Scalar(s) if s.is_integer() => {
                        let ty = v.ty.clone();
                        Ok(ir::Expr {
                            kind: ExprKind::Unary(UnaryOp::BitNot, Box::new(v)),
                            ty,
                            span,
                        })
                    }
                    _ => self.bad_unary("~", &v, span),
                }
            }
        }
    }

    fn bad_unary<T>(&mut self, op: &str, v: &ir::Expr, span: Span) -> R<T> {
        let t = v.ty.clone();
        self.error(Diagnostic::error(
            Code::InvalidOperator,
            span,
            format!("operator `{op}` cannot be applied to {t}"),
        ))
    }

    /// Checks both operands, typing a context literal from the other side.
    pub fn operands(
        &mut self,
        l: &ast::Expr,
        r: &ast::Expr,
        hint: Option<&Type>,
    ) -> R<(ir::Expr, ir::Expr)> {
        match (is_context_literal(l), is_context_literal(r)) {
            (true, false) => {
                let rv = self.expr(r, hint);
                let lv = self.expr(l, rv.as_ref().ok().map(|v| &v.ty).or(hint));
                Ok((lv?, rv?))
            }
            (false, true) => {
                let lv = self.expr(l, hint);
                let rv = self.expr(r, lv.as_ref().ok().map(|v| &v.ty).or(hint));
                Ok((lv?, rv?))
            }
            _ => {
                let lv = self.expr(l, hint);
                let rv = self.expr(r, hint);
                Ok((lv?, rv?))
            }
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        l: &ast::Expr,
        r: &ast::Expr,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let is_cmp = matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        );
        let operand_hint = if is_cmp || matches!(op, BinOp::And | BinOp::Or) {
            None
        } else {
            hint
        };
        if matches!(op, BinOp::Shl | BinOp::Shr | BinOp::UShr) {
            let lv = self.expr(l, operand_hint);
            let rv = self.expr(r, None);
            let (lv, rv) = (lv?, rv?);
            return match (&lv.ty, &rv.ty) {
                (Type::Scalar(a), Type::Scalar(b)) if a.is_integer() && b.is_integer() => {
                    let ty = lv.ty.clone();
                    Ok(ir::Expr {
                        kind: ExprKind::Binary(ir_binop(op), Box::new(lv), Box::new(rv)),
                        ty,
                        span,
                    })
                }
                _ => self.bad_binary(op, &lv, &rv, span),
            };
        }
        let (lv, rv) = self.operands(l, r, operand_hint)?;
        if op == BinOp::Add && (lv.ty == Type::String || rv.ty == Type::String) {
            if self.is_device() {
                return self.error(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    span,
                    "strings are host-only",
                ));
            }
            return Ok(ir::Expr {
                kind: ExprKind::Host {
                    op: HostOp::Concat,
                    args: vec![lv, rv],
                },
                ty: Type::String,
                span,
            });
        }
        if matches!(lv.ty, Type::Vector(..) | Type::Matrix(..))
            || matches!(rv.ty, Type::Vector(..) | Type::Matrix(..))
        {
            return self.vector_binary(op, lv, rv, span);
        }
        let (Type::Scalar(a), Type::Scalar(b)) = (&lv.ty, &rv.ty) else {
            return self.bad_binary(op, &lv, &rv, span);
        };
        let Some(common) = operand_type(op, *a, *b) else {
            return self.bad_binary(op, &lv, &rv, span);
        };
        let (lv, rv) = (convert(lv, common), convert(rv, common));
        let result = if is_cmp {
            scalar(ScalarType::Bool)
        } else {
            scalar(common)
        };
        let kind = match op {
            BinOp::And => ExprKind::LogicalAnd(Box::new(lv), Box::new(rv)),
            BinOp::Or => ExprKind::LogicalOr(Box::new(lv), Box::new(rv)),
            _ => ExprKind::Binary(ir_binop(op), Box::new(lv), Box::new(rv)),
        };
        Ok(ir::Expr {
            kind,
            ty: result,
            span,
        })
    }

    fn bad_binary<T>(&mut self, op: BinOp, l: &ir::Expr, r: &ir::Expr, span: Span) -> R<T> {
        let (a, b) = (l.ty.clone(), r.ty.clone());
        let mut d = Diagnostic::error(
            Code::InvalidOperator,
            span,
            format!(
                "operator `{}` cannot be applied to {a} and {b}",
                op.symbol()
            ),
        );
        if matches!(op, BinOp::And | BinOp::Or) {
            d = d.with_note("`&&` and `||` take boolean operands");
        }
        self.error(d)
    }

    fn conditional(
        &mut self,
        c: &ast::Expr,
        a: &ast::Expr,
        b: &ast::Expr,
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        let cv = self.expr(c, Some(&scalar(ScalarType::Bool)));
        let arms = self.operands(a, b, hint);
        let (cv, (av, bv)) = (cv?, arms?);
        if cv.ty != scalar(ScalarType::Bool) {
            let t = cv.ty.clone();
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                c.span,
                format!("condition must be boolean, found {t}"),
            ));
        }
        let ty = if av.ty == bv.ty {
            av.ty.clone()
        } else {
            match (&av.ty, &bv.ty) {
                (Type::Scalar(x), Type::Scalar(y)) if is_implicit(*x, *y) => bv.ty.clone(),
                (Type::Scalar(x), Type::Scalar(y)) if is_implicit(*y, *x) => av.ty.clone(),
                _ => {
                    let (x, y) = (av.ty.clone(), bv.ty.clone());
                    return self.error(
                        Diagnostic::error(
                            Code::TypeMismatch,
                            span,
                            format!("the arms of `?:` have different types: {x} and {y}"),
                        )
                        .with_note("help: cast one arm to the other's type"),
                    );
                }
            }
        };
        let av = self.coerce(av, &ty, a.span)?;
        let bv = self.coerce(bv, &ty, b.span)?;
        Ok(ir::Expr {
            kind: ExprKind::Select {
                cond: Box::new(cv),
                then: Box::new(av),
                otherwise: Box::new(bv),
            },
            ty,
            span,
        })
    }

    fn cast(&mut self, t: &ast::TypeExpr, inner: &ast::Expr, span: Span) -> R<ir::Expr> {
        let target = match super::names::resolve_type(t, &self.syms.pods) {
            Ok(t) => t,
            Err(d) => return self.error(d),
        };
        let v = self.expr(inner, Some(&target))?;
        match (&v.ty, &target) {
            (a, b) if a == b => Ok(v),
            (Type::Scalar(a), Type::Scalar(b)) if is_castable(*a, *b) => {
                let b = *b;
                Ok(ir::Expr {
                    span,
                    ..convert(v, b)
                })
            }
            (a, b) => {
                let (a, b) = (a.clone(), b.clone());
                self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("cannot cast {a} to {b}"),
                ))
            }
        }
    }

    /// `stmt`-level assignment: the stores to run and the place written.
    pub fn assign(
        &mut self,
        op: Option<BinOp>,
        l: &ast::Expr,
        r: &ast::Expr,
        span: Span,
    ) -> R<(Vec<ir::Stmt>, Place, Type)> {
        let (place, ty) = self.place(l)?;
        if let Type::Image2D(_) | Type::Buffer(_) = ty {
            if self.is_device() {
                return self.error(Diagnostic::error(
                    Code::NotAssignable,
                    l.span,
                    "resource parameters cannot be reassigned",
                ));
            }
        }
        let mut stmts = Vec::new();
        let place = self.stabilize(place, &mut stmts);
        let value = match op {
            None => {
                let v = self.expr(r, Some(&ty))?;
                self.coerce(v, &ty, r.span)?
            }
            Some(op) => {
                let current = ir::Expr {
                    kind: ExprKind::Load(place.clone()),
                    ty: ty.clone(),
                    span: l.span,
                };
                let rhs = self.expr(r, Some(&ty))?;
                self.compound(op, current, rhs, &ty, span)?
            }
        };
        if let Place::Local(id) = place {
            self.mark_assigned(id);
        }
        stmts.push(ir::Stmt::Store {
            place: place.clone(),
            value,
            span,
        });
        Ok((stmts, place, ty))
    }

    /// `a op= b` is `a = (T)(a op b)` (Java's implicit narrowing).
    fn compound(
        &mut self,
        op: BinOp,
        current: ir::Expr,
        rhs: ir::Expr,
        ty: &Type,
        span: Span,
    ) -> R<ir::Expr> {
        if op == BinOp::Add && *ty == Type::String {
            return Ok(ir::Expr {
                kind: ExprKind::Host {
                    op: HostOp::Concat,
                    args: vec![current, rhs],
                },
                ty: Type::String,
                span,
            });
        }
        if let Type::Vector(..) | Type::Matrix(..) = ty {
            let result = self.vector_binary(op, current, rhs, span)?;
            if &result.ty != ty {
                return self.bad_binary(op, &result, &result, span);
            }
            return Ok(result);
        }
        let (Type::Scalar(a), Type::Scalar(b)) = (&current.ty, &rhs.ty) else {
            return self.bad_binary(op, &current, &rhs, span);
        };
        let (a, b) = (*a, *b);
        let result = if matches!(op, BinOp::Shl | BinOp::Shr | BinOp::UShr) {
            if !(a.is_integer() && b.is_integer()) {
                return self.bad_binary(op, &current, &rhs, span);
            }
            ir::Expr {
                kind: ExprKind::Binary(ir_binop(op), Box::new(current), Box::new(rhs)),
                ty: scalar(a),
                span,
            }
        } else {
            let Some(common) = operand_type(op, a, b) else {
                return self.bad_binary(op, &current, &rhs, span);
            };
            ir::Expr {
                kind: ExprKind::Binary(
                    ir_binop(op),
                    Box::new(convert(current, common)),
                    Box::new(convert(rhs, common)),
                ),
                ty: scalar(common),
                span,
            }
        };
        match ty {
            Type::Scalar(t) if is_castable(result.ty.as_scalar().unwrap_or(*t), *t) => {
                Ok(convert(result, *t))
            }
            _ => self.bad_binary(op, &result, &result, span),
        }
    }

    /// Hoists impure index expressions into temporaries so the place can be read and
    /// written without evaluating them twice.
    fn stabilize(&mut self, place: Place, stmts: &mut Vec<ir::Stmt>) -> Place {
        match place {
            Place::Local(_) => place,
            Place::Index { base, index } => {
                let index = if is_pure(&index) {
                    *index
                } else {
                    self.hoist(*index, stmts)
                };
                let base = if is_pure(&base) {
                    *base
                } else {
                    self.hoist(*base, stmts)
                };
                Place::Index {
                    base: Box::new(base),
                    index: Box::new(index),
                }
            }
            Place::Lane { base, lane } => Place::Lane {
                base: Box::new(self.stabilize(*base, stmts)),
                lane,
            },
            Place::Field { base, field } => Place::Field {
                base: Box::new(self.stabilize(*base, stmts)),
                field,
            },
        }
    }

    fn hoist(&mut self, e: ir::Expr, stmts: &mut Vec<ir::Stmt>) -> ir::Expr {
        let t = self.temp(e.ty.clone(), e.span);
        let (ty, span) = (e.ty.clone(), e.span);
        stmts.push(ir::Stmt::Store {
            place: Place::Local(t),
            value: e,
            span,
        });
        ir::Expr {
            kind: ExprKind::Load(Place::Local(t)),
            ty,
            span,
        }
    }

    /// `++x`, `x--` …: the stores and the value of the expression.
    pub fn increment(
        &mut self,
        op: UnOp,
        target: &ast::Expr,
        span: Span,
        want_value: bool,
    ) -> R<(Vec<ir::Stmt>, ir::Expr)> {
        let (place, ty) = self.place(target)?;
        let Type::Scalar(s) = ty else {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!("`++`/`--` need a numeric variable, found {ty}"),
            ));
        };
        if !s.is_numeric() {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                span,
                "`++`/`--` need a numeric variable, found boolean",
            ));
        }
        if let Place::Local(id) = &place {
            self.check_assigned(*id, target.span)?;
        }
        let mut stmts = Vec::new();
        let place = self.stabilize(place, &mut stmts);
        let load = ir::Expr {
            kind: ExprKind::Load(place.clone()),
            ty: ty.clone(),
            span,
        };
        let post = matches!(op, UnOp::PostInc | UnOp::PostDec);
        let old = if post && want_value {
            self.hoist(load, &mut stmts)
        } else {
            load
        };
        let one = if s.is_float() {
            Constant::Float(1.0)
        } else {
            Constant::Int(1)
        };
        let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        let new_value = ir::Expr {
            kind: ExprKind::Binary(
                bop,
                Box::new(old.clone()),
                Box::new(ir::Expr::constant(one, ty.clone(), span)),
            ),
            ty: ty.clone(),
            span,
        };
        stmts.push(ir::Stmt::Store {
            place: place.clone(),
            value: new_value,
            span,
        });
        let value = if post {
            old
        } else {
            ir::Expr {
                kind: ExprKind::Load(place),
                ty,
                span,
            }
        };
        Ok((stmts, value))
    }

    /// An expression statement: assignments and increments become plain stores.
    pub fn expr_stmt(&mut self, e: &ast::Expr) -> R<Vec<ir::Stmt>> {
        match &e.kind {
            ast::ExprKind::Assign(op, l, r) => Ok(self.assign(*op, l, r, e.span)?.0),
            ast::ExprKind::Unary(
                op @ (UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec),
                t,
            ) => Ok(self.increment(*op, t, e.span, false)?.0),
            ast::ExprKind::Call(..)
            | ast::ExprKind::MethodCall(..)
            | ast::ExprKind::GenericMethodCall(..)
            | ast::ExprKind::Launch { .. } => Ok(vec![ir::Stmt::Expr(self.expr(e, None)?)]),
            _ => self.error(
                Diagnostic::error(
                    Code::SyntaxError,
                    e.span,
                    "this expression does nothing as a statement",
                )
                .with_note("only assignments, increments and calls can be statements"),
            ),
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
        if let Some(folded) = super::fold::convert_constant(*c, *from, to) {
            return ir::Expr::constant(folded, Type::Scalar(to), span);
        }
    }
    ir::Expr {
        kind: ExprKind::Convert(Box::new(v)),
        ty: Type::Scalar(to),
        span,
    }
}

fn const_text(v: &ir::Expr) -> String {
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

fn range_text(t: ScalarType) -> String {
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

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
