//! Places (locals, buffer and array elements, vector lanes) and assignments, compound
//! assignments and increments, lowered to statement-level stores.

use super::body::{FnCtx, R};
use super::conversions::{is_castable, operand_type};
use super::expr::*;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, Constant, ExprKind, HostOp, Place, ScalarType, Type};
use crate::syntax::ast::{self, BinOp, UnOp};

impl<'s, 'a> FnCtx<'s, 'a> {
    /// Resolves an assignable expression.
    pub fn place(&mut self, e: &ast::Expr) -> R<(Place, Type)> {
        match &e.kind {
            ast::ExprKind::Name(n) => match self.lookup(n) {
                Some(id) if self.unresolved.contains(&id) => Err(()),
                Some(id) if self.is_this(id) => self.this_escapes(e.span),
                Some(id) if self.finals.contains(&id) && self.assigned[id.0] => {
                    let decl = self.locals[id.0].span;
                    self.error(
                        Diagnostic::error(
                            Code::NotAssignable,
                            e.span,
                            format!("cannot assign to `{n}`: it is declared `final`"),
                        )
                        .with_label("assigned again here")
                        .with_secondary(decl, "declared `final` here")
                        .with_note("help: remove `final`, or use another local"),
                    )
                }
                // A POD kernel parameter is one push constant for the whole launch (its
                // fields are refused by `refuse_pod_store`, the whole value here).
                Some(id)
                    if self.is_device()
                        && self.is_param_local(id)
                        && matches!(self.locals[id.0].ty, Type::Struct(_)) =>
                {
                    self.error(
                        Diagnostic::error(
                            Code::NotAssignable,
                            e.span,
                            "POD parameters are read-only in device code",
                        )
                        .with_note(format!(
                            "help: copy it into a local and assign that: `{} q = {n};`",
                            self.locals[id.0].ty
                        )),
                    )
                }
                Some(id) => Ok((Place::Local(id), self.locals[id.0].ty.clone())),
                None => match self.this_field(n) {
                    Some(field) => Ok(field),
                    None => {
                        self.name_expr(n, e.span)?;
                        Err(())
                    }
                },
            },
            ast::ExprKind::Field(base, field) => {
                let b = self.field_base(base)?;
                self.field_place(b, field, e.span)
            }
            ast::ExprKind::Index(base, index) => {
                if let Some(r) = self.nd_shared_place(e) {
                    return r;
                }
                let b = self.expr(base, None)?;
                if let Type::Wide(..) = b.ty {
                    return self.wide_lane_place(b, index, e.span);
                }
                if let Type::Vector(..) = b.ty {
                    self.refuse_pod_store(&b, e.span)?;
                    return self.lane_place(b, super::vector::LaneSel::Index(index), e.span);
                }
                if self.is_device() && b.ty.is_buffer_array() {
                    return self.error(
                        Diagnostic::error(
                            Code::NotAssignable,
                            e.span,
                            "the buffers of a buffer array are bound at launch and cannot be replaced in device code",
                        )
                        .with_note("help: store into an element of one of them: `bufs[i][j] = v`"),
                    );
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

    /// The value whose field or lane `base.f` names (`this` inside a constructor).
    pub(super) fn field_base(&mut self, base: &ast::Expr) -> R<ir::Expr> {
        match self.this_base(base) {
            Some(this) => Ok(this),
            None => self.expr(base, None),
        }
    }

    /// `b.field` as a place, `b` already checked: a POD field or one vector lane.
    pub(super) fn field_place(
        &mut self,
        b: ir::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> R<(Place, Type)> {
        if let Type::Wide(..) = b.ty {
            let d = super::wide_vector::wide_refused(&b.ty, field.span, "a lane by name");
            return self.error(d);
        }
        if let Type::Struct(_) = b.ty {
            if self.is_device() && !self.writable_pod(&b) {
                return self.error(Diagnostic::error(
                    Code::NotAssignable,
                    span,
                    "POD parameters are read-only in device code",
                ));
            }
            return self.pod_field(b, field);
        }
        self.refuse_pod_store(&b, span)?;
        self.lane_place(b, super::vector::LaneSel::Name(field), span)
    }

    /// A lane of a POD parameter's vector field (`p.range.y = …`) is read-only in device code
    /// like the field itself; the backend cannot store it, so `check` must refuse it too.
    pub(super) fn refuse_pod_store(&mut self, b: &ir::Expr, span: Span) -> R<()> {
        fn in_pod(p: &Place) -> bool {
            match p {
                Place::Field { .. } => true,
                Place::Lane { base, .. } => in_pod(base),
                _ => false,
            }
        }
        match &b.kind {
            ExprKind::Load(p) if self.is_device() && in_pod(p) && !self.writable_pod(b) => self
                .error(Diagnostic::error(
                    Code::NotAssignable,
                    span,
                    "POD parameters are read-only in device code",
                )),
            _ => Ok(()),
        }
    }

    /// Whether the POD value `e` reads (or whose field or lane it reads) may be written in
    /// device code: an element of a `KernelBuffer` or a local, unlike a POD parameter (one
    /// push constant for the whole launch).
    fn writable_pod(&self, e: &ir::Expr) -> bool {
        match &e.kind {
            ExprKind::Load(p) => match root_place(p) {
                Place::Index { base, .. } => matches!(base.ty, Type::Buffer(_)),
                Place::Local(l) => !self.is_param_local(*l),
                _ => false,
            },
            _ => false,
        }
    }

    /// `b[index]` of a buffer or host array `b` (already checked from `base`).
    pub(super) fn index_place(
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
        let device_index =
            matches!(b.ty, Type::Buffer(_) | Type::Shared(_)) || b.ty.is_buffer_array();
        // A buffer takes 64-bit indices as they are (buffers past 2^32 elements; the backend
        // compares them with the 64-bit length in checked mode).
        let wide = matches!(b.ty, Type::Buffer(_))
            && matches!(i.ty, Type::Scalar(s) if s.is_integer() && s.bits() == 64);
        let i = if wide {
            i
        } else {
            self.index_value(i, index.span, device_index)?
        };
        Ok((
            Place::Index {
                base: Box::new(b),
                index: Box::new(i),
            },
            elem,
        ))
    }

    pub(super) fn index_value(&mut self, i: ir::Expr, span: Span, buffer: bool) -> R<ir::Expr> {
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

    /// `stmt`-level assignment: the stores to run and the place written.
    pub fn assign(
        &mut self,
        op: Option<BinOp>,
        l: &ast::Expr,
        r: &ast::Expr,
        span: Span,
    ) -> R<(Vec<ir::Stmt>, Place, Type)> {
        let (place, ty) = match &l.kind {
            // `q.xy = …`: several lanes at once (vectors have no fields, so a name of more
            // than one letter on a vector is a swizzle).
            ast::ExprKind::Field(base, field) => {
                let b = self.field_base(base)?;
                if matches!(b.ty, Type::Vector(..)) && field.name.chars().count() > 1 {
                    return self.swizzle_assign(op, b, field, l.span, r, span);
                }
                self.field_place(b, field, l.span)?
            }
            _ => self.place(l)?,
        };
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
                let wide = match &place {
                    Place::Local(id) => self.load_wide(*id, l.span),
                    _ => None,
                };
                let current = wide.unwrap_or_else(|| ir::Expr {
                    kind: ExprKind::Load(place.clone()),
                    ty: ty.clone(),
                    span: l.span,
                });
                let rhs = self.expr(r, Some(&ty))?;
                self.compound(op, current, rhs, &ty, span)?
            }
        };
        if let Place::Local(id) = place {
            self.mark_assigned(id);
            if let Type::Wide(..) = ty {
                stmts.extend(self.store_wide(id, value, span)?);
                return Ok((stmts, place, ty));
            }
        }
        stmts.push(ir::Stmt::Store {
            place: place.clone(),
            value,
            span,
        });
        Ok((stmts, place, ty))
    }

    /// `a op= b` is `a = (T)(a op b)` (Java's implicit narrowing).
    pub(super) fn compound(
        &mut self,
        op: BinOp,
        current: ir::Expr,
        rhs: ir::Expr,
        ty: &Type,
        span: Span,
    ) -> R<ir::Expr> {
        if op == BinOp::Add && *ty == Type::String {
            let rhs = self.wide_as_text(rhs)?;
            let rhs = self.optional_as_text(rhs);
            return Ok(ir::Expr {
                kind: ExprKind::Host {
                    op: HostOp::Concat,
                    args: vec![current, rhs],
                },
                ty: Type::String,
                span,
            });
        }
        if let Type::Wide(..) = ty {
            return self.wide_binary(op, current, rhs, span);
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
    pub(super) fn stabilize(&mut self, place: Place, stmts: &mut Vec<ir::Stmt>) -> Place {
        match place {
            Place::Local(_) => place,
            Place::Index { base, index } => {
                let index = match index.kind {
                    _ if is_pure(&index) => *index,
                    // A signed index converted to `uint32`: the temporary keeps the signed
                    // value and the conversion stays at the use, so checked mode still
                    // reports a negative index as negative (`index -3`).
                    ExprKind::Convert(inner)
                        if inner.ty.as_scalar().is_some_and(|s| s.is_signed_integer()) =>
                    {
                        let (ty, span) = (index.ty.clone(), index.span);
                        let value = self.hoist(*inner, stmts);
                        ir::Expr {
                            kind: ExprKind::Convert(Box::new(value)),
                            ty,
                            span,
                        }
                    }
                    _ => self.hoist(*index, stmts),
                };
                let base = match base.kind {
                    _ if is_pure(&base) => *base,
                    // A resource (a buffer array's element `bufs[w % 2]`) cannot be held in
                    // a temporary: its index is held instead.
                    ExprKind::Load(inner) if base.ty.is_resource() => ir::Expr {
                        kind: ExprKind::Load(self.stabilize(inner, stmts)),
                        ty: base.ty,
                        span: base.span,
                    },
                    _ => self.hoist(*base, stmts),
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

    pub(super) fn hoist(&mut self, e: ir::Expr, stmts: &mut Vec<ir::Stmt>) -> ir::Expr {
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
            | ast::ExprKind::Launch { .. } => match self.expr(e, None)? {
                // A void call spelled out in several (a wide vector's `vstore`,
                // sema/wide_vector.rs): its statements, not a void-valued sequence, which the
                // LLVM kernel backend does not lower.
                ir::Expr {
                    kind: ExprKind::Sequence(mut stmts, last),
                    ty: Type::Void,
                    ..
                } => {
                    stmts.push(ir::Stmt::Expr(*last));
                    Ok(stmts)
                }
                v => Ok(vec![ir::Stmt::Expr(v)]),
            },
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

/// The place a field or lane place is part of (`buf[i]` of `buf[i].pos.x`, `p` of `p.v`).
fn root_place(p: &Place) -> &Place {
    match p {
        Place::Field { base, .. } | Place::Lane { base, .. } => root_place(base),
        other => other,
    }
}
