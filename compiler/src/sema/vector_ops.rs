//! Vector operators and methods in the checker: elementwise arithmetic with scalar
//! broadcast, comparison masks, and the `Vector<T, N>` methods of `stdlib/cajeta/vector.cajeta`.

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, ExprKind, Intrinsic, ScalarType, Type, VecFn};
use crate::syntax::ast::{self, BinOp};

/// The IR operator of an elementwise vector operator, if vectors take it.
fn vector_op(op: BinOp) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mul => BinaryOp::Mul,
        BinOp::Div => BinaryOp::Div,
        BinOp::Rem => BinaryOp::Rem,
        BinOp::Lt => BinaryOp::Lt,
        BinOp::Le => BinaryOp::Le,
        BinOp::Gt => BinaryOp::Gt,
        BinOp::Ge => BinaryOp::Ge,
        BinOp::Eq => BinaryOp::Eq,
        BinOp::Ne => BinaryOp::Ne,
        BinOp::BitAnd => BinaryOp::BitAnd,
        BinOp::BitOr => BinaryOp::BitOr,
        BinOp::BitXor => BinaryOp::BitXor,
        _ => return None,
    })
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `v` as a value of the vector type `ty`: unchanged if it has that type, a scalar
    /// (converted implicitly to the lane type) broadcast to every lane; anything else is an
    /// error (mixing vector sizes or lane types).
    pub fn broadcast_to(&mut self, v: ir::Expr, ty: &Type, span: Span) -> R<ir::Expr> {
        if &v.ty == ty {
            return Ok(v);
        }
        let Type::Vector(s, n) = ty else {
            return self.coerce(v, ty, span);
        };
        match v.ty.clone() {
            Type::Scalar(_) => {
                let lane = self.coerce(v, &Type::Scalar(*s), span)?;
                Ok(ir::Expr {
                    kind: ExprKind::Splat(Box::new(lane)),
                    ty: ty.clone(),
                    span,
                })
            }
            Type::Vector(t, m) if m != *n => self.error(
                Diagnostic::error(
                    Code::InvalidOperator,
                    span,
                    format!("cannot mix vector sizes: {} and {ty}", Type::Vector(t, m)),
                )
                .with_label(format!("this has {m} lanes, the other side {n}"))
                .with_note(
                    "help: pick lanes with a swizzle (`.xyz`) or build a vector of the right size",
                ),
            ),
            other => self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("expected {ty} (or a {s} to broadcast), found {other}"),
                )
                .with_label(format!("this is {other}"))
                .with_note("vector lane types never convert implicitly"),
            ),
        }
    }

    /// A binary operator with a vector (or matrix) operand: lane by lane, a scalar operand
    /// broadcast; comparisons give a `Vector<boolean, N>` mask.
    pub fn vector_binary(
        &mut self,
        op: BinOp,
        lv: ir::Expr,
        rv: ir::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        if matches!(lv.ty, Type::Matrix(..)) || matches!(rv.ty, Type::Matrix(..)) {
            return self.matrix_binary(op, lv, rv, span);
        }
        let vt = if let Type::Vector(..) = lv.ty {
            lv.ty.clone()
        } else {
            rv.ty.clone()
        };
        let Type::Vector(s, n) = vt else {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                span,
                "internal: no vector",
            ));
        };
        let Some(irop) = vector_op(op) else {
            let (a, b) = (lv.ty.clone(), rv.ty.clone());
            let mut d = Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!(
                    "operator `{}` cannot be applied to {a} and {b}",
                    op.symbol()
                ),
            );
            if matches!(op, BinOp::And | BinOp::Or) {
                d = d.with_note(
                    "help: combine masks with `&` and `|`, or reduce them with `.all()` / `.any()`",
                );
            }
            return self.error(d);
        };
        let (ls, rs) = (lv.span, rv.span);
        let lv = self.broadcast_to(lv, &vt, ls);
        let rv = self.broadcast_to(rv, &vt, rs);
        let (lv, rv) = (lv?, rv?);
        let allowed = match irop {
            BinaryOp::Eq | BinaryOp::Ne => true,
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
                s.is_integer() || s == ScalarType::Bool
            }
            _ => s.is_numeric(),
        };
        if !allowed {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!("operator `{}` cannot be applied to {vt}", op.symbol()),
            ));
        }
        let ty = if irop.is_comparison() {
            Type::Vector(ScalarType::Bool, n)
        } else {
            vt
        };
        Ok(ir::Expr {
            kind: ExprKind::Binary(irop, Box::new(lv), Box::new(rv)),
            ty,
            span,
        })
    }

    /// `v.method(args)` on a vector receiver (`stdlib/cajeta/vector.cajeta`).
    pub fn vector_method(
        &mut self,
        recv: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let vt = recv.ty.clone();
        let Type::Vector(s, n) = vt else {
            return self.error(Diagnostic::error(
                Code::UnknownMethod,
                name.span,
                "not a vector",
            ));
        };
        if let Some(to) = float_conversion(&name.name) {
            if args.is_empty() && s.is_float() {
                return Ok(self.convert_lanes(recv, to, n, span));
            }
        }
        let found = self
            .syms
            .intrinsic("Vector", &name.name)
            .and_then(|o| o.iter().find(|m| m.decl.params.len() == args.len()))
            .and_then(|m| m.device);
        let Some(Intrinsic::Vector(f)) = found else {
            let known = self.syms.intrinsic("Vector", &name.name).is_some();
            if let Some(d) = sixteen_byte_method(&vt, name) {
                return self.error(d);
            }
            return self.error(if known {
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!("wrong number of arguments to `{vt}.{}`", name.name),
                )
            } else {
                let d = Diagnostic::error(
                    Code::UnknownMethod,
                    name.span,
                    format!("`{vt}` has no method `{}`", name.name),
                )
                .with_label("unknown method");
                self.with_known_methods(d, "Vector", &name.name)
            });
        };
        let need = |ok: bool, what: &str, this: &mut Self| -> R<()> {
            if ok {
                return Ok(());
            }
            this.error(
                Diagnostic::error(
                    Code::InvalidOperator,
                    name.span,
                    format!("`{}` needs {what}, not {vt}", name.name),
                )
                .with_label(format!("called on {vt}")),
            )
        };
        if f == VecFn::Dot && matches!(s, ScalarType::I8 | ScalarType::U8) && n == 4 {
            return self.int8_dot(recv, args, span);
        }
        if f == VecFn::Dot && args.len() != 1 {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!("`{vt}.dot` takes one argument"),
                )
                .with_note("`dot(other, acc)` is the 8-bit integer dot product of `Vector<int8,4>` / `Vector<uint8,4>`"),
            );
        }
        match f {
            VecFn::All | VecFn::Any | VecFn::Select => {
                need(s == ScalarType::Bool, "a Vector<boolean,N> mask", self)?
            }
            VecFn::Cross => need(s.is_float() && n == 3, "a 3-lane float vector", self)?,
            VecFn::Dot
            | VecFn::Length
            | VecFn::Normalize
            | VecFn::Distance
            | VecFn::Lerp
            | VecFn::Reflect
            | VecFn::Refract => need(
                s.is_float(),
                if f == VecFn::Dot {
                    "a float vector (or a Vector<int8,4> / Vector<uint8,4>)"
                } else {
                    "a float vector"
                },
                self,
            )?,
            VecFn::Min | VecFn::Max | VecFn::Clamp => {
                need(s.is_numeric(), "a numeric vector", self)?
            }
            VecFn::Transpose | VecFn::Determinant | VecFn::Inverse | VecFn::Hadamard => {
                need(false, "a matrix", self)?
            }
        }
        let mut values = vec![recv];
        let ty = if f == VecFn::Select {
            let (a, b) = match (&args[0].name, &args[1].name) {
                (None, None) => self.operands_of(&args[0].value, &args[1].value)?,
                _ => {
                    return self.error(Diagnostic::error(
                        Code::SyntaxError,
                        span,
                        "unexpected named argument",
                    ))
                }
            };
            let target = match (&a.ty, &b.ty) {
                (Type::Vector(..), _) => a.ty.clone(),
                (_, Type::Vector(..)) => b.ty.clone(),
                (Type::Scalar(x), Type::Scalar(y)) if super::conversions::is_implicit(*x, *y) => {
                    Type::Vector(*y, n)
                }
                (Type::Scalar(x), _) => Type::Vector(*x, n),
                (other, _) => {
                    let other = other.clone();
                    return self.error(Diagnostic::error(
                        Code::TypeMismatch,
                        args[0].value.span,
                        format!("select takes vectors or scalars, found {other}"),
                    ));
                }
            };
            if target.lanes() != usize::from(n) {
                let t = target.clone();
                return self.error(Diagnostic::error(
                    Code::InvalidOperator,
                    span,
                    format!("cannot mix vector sizes: a {n}-lane mask selecting {t}"),
                ));
            }
            let (sa, sb) = (args[0].value.span, args[1].value.span);
            let a = self.broadcast_to(a, &target, sa);
            let b = self.broadcast_to(b, &target, sb);
            values.push(a?);
            values.push(b?);
            target
        } else {
            let mut failed = false;
            for (i, a) in args.iter().enumerate() {
                // refract's eta is a scalar of the lane type (GLSL.std.450 `Refract`).
                let want = if f == VecFn::Refract && i == 1 {
                    Type::Scalar(s)
                } else {
                    vt.clone()
                };
                let checked = self
                    .expr(&a.value, Some(&want))
                    .and_then(|v| self.broadcast_to(v, &want, a.value.span));
                match checked {
                    Ok(v) => values.push(v),
                    Err(()) => failed = true,
                }
            }
            if failed {
                return Err(());
            }
            match f {
                VecFn::All | VecFn::Any => Type::Scalar(ScalarType::Bool),
                VecFn::Dot | VecFn::Length | VecFn::Distance => Type::Scalar(s),
                _ => vt,
            }
        };
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Vector(f),
                args: values,
            },
            ty,
            span,
        })
    }

    /// Checks two operands, typing a context literal on one side from the other.
    fn operands_of(&mut self, a: &ast::Expr, b: &ast::Expr) -> R<(ir::Expr, ir::Expr)> {
        self.operands(a, b, None)
    }

    /// Matrix products: `Matrix<T,R,K> * Matrix<T,K,C>`, `Matrix<T,R,C> * Vector<T,C>`,
    /// `Vector<T,R> * Matrix<T,R,C>` (the vector as a row) and a matrix times a scalar.
    fn matrix_binary(&mut self, op: BinOp, lv: ir::Expr, rv: ir::Expr, span: Span) -> R<ir::Expr> {
        let bad = |this: &mut Self, lv: &ir::Expr, rv: &ir::Expr, why: &str| -> R<ir::Expr> {
            let (a, b) = (lv.ty.clone(), rv.ty.clone());
            this.error(
                Diagnostic::error(
                    Code::InvalidOperator,
                    span,
                    format!(
                        "operator `{}` cannot be applied to {a} and {b}",
                        op.symbol()
                    ),
                )
                .with_note(why.to_string()),
            )
        };
        if op != BinOp::Mul {
            return bad(
                self,
                &lv,
                &rv,
                "matrices take `*` only (with a matrix, a vector or a scalar)",
            );
        }
        let lane = lv
            .ty
            .elem_scalar()
            .filter(|_| matches!(lv.ty, Type::Matrix(..)));
        let lane = lane
            .or_else(|| rv.ty.elem_scalar())
            .unwrap_or(ScalarType::F32);
        let ty = match (&lv.ty, &rv.ty) {
            (Type::Matrix(s, r, k), Type::Matrix(t, k2, c)) if s == t && k == k2 => {
                Type::Matrix(*s, *r, *c)
            }
            (Type::Matrix(s, r, c), Type::Vector(t, n)) if s == t && c == n => Type::Vector(*s, *r),
            (Type::Vector(t, n), Type::Matrix(s, r, c)) if s == t && r == n => Type::Vector(*s, *c),
            (Type::Matrix(..), Type::Scalar(_)) => {
                let sp = rv.span;
                let k = self.coerce(rv, &Type::Scalar(lane), sp)?;
                return Ok(ir::Expr {
                    ty: lv.ty.clone(),
                    kind: ExprKind::Binary(BinaryOp::Mul, Box::new(lv), Box::new(k)),
                    span,
                });
            }
            (Type::Scalar(_), Type::Matrix(..)) => {
                let sp = lv.span;
                let k = self.coerce(lv, &Type::Scalar(lane), sp)?;
                return Ok(ir::Expr {
                    ty: rv.ty.clone(),
                    kind: ExprKind::Binary(BinaryOp::Mul, Box::new(rv), Box::new(k)),
                    span,
                });
            }
            _ => {
                return bad(
                    self,
                    &lv,
                    &rv,
                    "Matrix<T,R,K> * Matrix<T,K,C>, Matrix<T,R,C> * Vector<T,C>, Vector<T,R> * Matrix<T,R,C>: the inner sizes and T must agree",
                )
            }
        };
        Ok(ir::Expr {
            kind: ExprKind::Binary(BinaryOp::Mul, Box::new(lv), Box::new(rv)),
            ty,
            span,
        })
    }
}

/// The lane type of Cajeta's float vector conversions `v.toF16()`, `toBF16()`, `toF32()`.
fn float_conversion(name: &str) -> Option<ScalarType> {
    Some(match name {
        "toF16" => ScalarType::F16,
        "toBF16" => ScalarType::BF16,
        "toF32" => ScalarType::F32,
        _ => return None,
    })
}

impl FnCtx<'_, '_> {
    /// `v` with each of its `n` lanes converted to `to` (rounded to nearest even, as a scalar
    /// conversion): Cajeta's `toF16()` / `toBF16()` / `toF32()`.
    fn convert_lanes(&mut self, v: ir::Expr, to: ScalarType, n: u8, span: Span) -> ir::Expr {
        let mut stmts = Vec::new();
        let v = self.bind_value(&mut stmts, v);
        let Type::Vector(lane, _) = v.ty else {
            unreachable!("convert_lanes of a non-vector")
        };
        let lanes = (0..n)
            .map(|k| ir::Expr {
                kind: ExprKind::Convert(Box::new(ir::Expr {
                    kind: ExprKind::Swizzle(Box::new(v.clone()), vec![k]),
                    ty: Type::Scalar(lane),
                    span,
                })),
                ty: Type::Scalar(to),
                span,
            })
            .collect();
        super::bytes16::sequence(
            stmts,
            ir::Expr {
                kind: ExprKind::Construct(lanes),
                ty: Type::Vector(to, n),
                span,
            },
        )
    }
}

/// Cajeta's byte-vector methods called on another vector type: `lut4` and `asWords` belong
/// to 16-lane byte vectors (`Vector<int8, 16>`, sema/bytes16.rs), `asBytes` to
/// `Vector<int32|uint32, 4>`. E0024 naming the form and where it is, rather than an unknown
/// method.
fn sixteen_byte_method(vt: &Type, name: &ast::Ident) -> Option<Diagnostic> {
    let (owner, help) = match name.name.as_str() {
        "lut4" | "asWords" => ("16-lane byte vectors (`Vector<int8, 16>`, `Vector<uint8, 16>`)", "help: make one with `w.asBytes()` of a `Vector<int32, 4>`, or `stack Vector<int8, 16>(…)`"),
        "asBytes" => ("`Vector<int32, 4>` and `Vector<uint32, 4>` (their 16 bytes)", "help: take the bytes of a 32-bit word with `Bits.extract(w, 8 * k, 8)`"),
        _ => return None,
    };
    Some(
        Diagnostic::error(
            Code::UnsupportedFeature,
            name.span,
            format!(
                "`{}` (Cajeta) is a method of {owner}, not of `{vt}`",
                name.name
            ),
        )
        .with_note(help),
    )
}
