//! Vectors and matrices in the checker: construction (`stack Vector<float32,4>(…)`), lane
//! reads and swizzles (`.x`, `.zyx`, `v[2]`) and lane places (`v.y = …`, `v[1] = …`).

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, Place, ScalarType, Type};
use crate::syntax::ast;

/// The lane index of a swizzle letter; `xyzw` and `rgba` are the two sets.
fn lane_letter(c: char) -> Option<(u8, bool)> {
    match c {
        'x' => Some((0, false)),
        'y' => Some((1, false)),
        'z' => Some((2, false)),
        'w' => Some((3, false)),
        'r' => Some((0, true)),
        'g' => Some((1, true)),
        'b' => Some((2, true)),
        'a' => Some((3, true)),
        _ => None,
    }
}

/// Parses a swizzle (`x`, `zyx`, `rgba`) against a vector of `n` lanes.
fn parse_swizzle(name: &str, n: u8) -> Result<Vec<u8>, String> {
    let mut lanes = Vec::new();
    let mut set = None;
    for c in name.chars() {
        let Some((lane, color)) = lane_letter(c) else {
            return Err(format!("`{c}` is not a lane name (x y z w or r g b a)"));
        };
        if *set.get_or_insert(color) != color {
            return Err("a swizzle cannot mix `xyzw` and `rgba` names".to_string());
        }
        if lane >= n {
            return Err(format!("lane `{c}` does not exist in a {n}-lane vector"));
        }
        lanes.push(lane);
    }
    if lanes.len() > 4 {
        return Err("a swizzle picks at most 4 lanes".to_string());
    }
    Ok(lanes)
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `stack Vector<T,N>(…)` / `stack Matrix<T,R,C>(…)`: scalars (converted implicitly to
    /// `T`) and vectors of `T` whose lanes add up to N (R*C for a matrix, column-major), or
    /// one scalar to splat into every lane of a vector.
    pub fn construct(&mut self, ty: Type, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let Some(lane) = ty.elem_scalar() else {
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                span,
                format!("`{ty}` is not a vector"),
            ));
        };
        let lane_ty = Type::Scalar(lane);
        let mut parts = Vec::new();
        let mut count = 0usize;
        let mut failed = false;
        for a in args {
            if let Some(n) = &a.name {
                return self.error(Diagnostic::error(
                    Code::SyntaxError,
                    n.span,
                    format!("unexpected named argument `{}:`", n.name),
                ));
            }
            let Ok(v) = self.expr(&a.value, Some(&lane_ty)) else {
                failed = true;
                continue;
            };
            match &v.ty {
                Type::Vector(s, n) if *s == lane => {
                    count += usize::from(*n);
                    parts.push(v);
                }
                Type::Scalar(_) => {
                    count += 1;
                    if let Ok(v) = self.coerce(v, &lane_ty, a.value.span) {
                        parts.push(v);
                    } else {
                        failed = true;
                    }
                }
                other => {
                    let other = other.clone();
                    failed = true;
                    let _: R<()> = self.error(
                        Diagnostic::error(
                            Code::TypeMismatch,
                            a.value.span,
                            format!("a part of {ty} must be {lane} or a Vector<{lane},N>, found {other}"),
                        )
                        .with_label(format!("this is {other}")),
                    );
                }
            }
        }
        if failed {
            return Err(());
        }
        let want = ty.lanes();
        if count == 1
            && want > 1
            && parts[0].ty.as_scalar().is_some()
            && matches!(ty, Type::Vector(..))
        {
            let v = parts.remove(0);
            return Ok(ir::Expr {
                kind: ExprKind::Splat(Box::new(v)),
                ty,
                span,
            });
        }
        if count != want {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!("{ty} needs {want} lanes, the arguments supply {count}"),
                )
                .with_note("vector parts count for their lanes; one scalar fills every lane"),
            );
        }
        Ok(ir::Expr {
            kind: ExprKind::Construct(parts),
            ty,
            span,
        })
    }

    /// `v.x`, `v.zyx`: lanes of a vector value.
    pub fn swizzle(&mut self, b: ir::Expr, field: &ast::Ident, span: Span) -> R<ir::Expr> {
        let Type::Vector(s, n) = b.ty else {
            return self.error(Diagnostic::error(
                Code::UnknownName,
                field.span,
                format!("`{}` has no field `{}`", b.ty, field.name),
            ));
        };
        let lanes = match parse_swizzle(&field.name, n) {
            Ok(l) => l,
            Err(msg) => {
                return self.error(
                    Diagnostic::error(
                        Code::UnknownName,
                        field.span,
                        format!("{} has no lane `{}`: {msg}", b.ty, field.name),
                    )
                    .with_label("no such lane"),
                )
            }
        };
        Ok(swizzled(b, lanes, s, span))
    }

    /// The constant lane of `v[i]` on a vector of `n` lanes.
    pub(super) fn constant_lane(&mut self, index: &ast::Expr, n: u8) -> R<u8> {
        let i = self.expr(index, Some(&Type::Scalar(ScalarType::I32)))?;
        let value = match (&i.kind, &i.ty) {
            (ExprKind::Const(ir::Constant::Int(bits)), Type::Scalar(s)) if s.is_integer() => {
                Some(*bits)
            }
            _ => None,
        };
        match value {
            Some(v) if v < u64::from(n) => Ok(v as u8),
            Some(v) => self.error(
                Diagnostic::error(
                    Code::UnknownName,
                    index.span,
                    format!("lane {} does not exist in a {n}-lane vector", v as i64),
                )
                .with_label("out of range"),
            ),
            None => self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    index.span,
                    "a vector lane index must be an integer constant",
                )
                .with_label("not a constant")
                .with_note("help: use `.x`…`.w`, or a constant 0..N-1"),
            ),
        }
    }

    /// `m[r]` read with a constant `r`: row r of a matrix, a `Vector<T, C>` (so `m[r][c]` is
    /// the element in row r, column c). A swizzle of the matrix's column-major lanes.
    pub fn matrix_row(&mut self, b: ir::Expr, index: &ast::Expr, span: Span) -> R<ir::Expr> {
        let Type::Matrix(s, rows, cols) = b.ty else {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!("`{}` cannot be indexed", b.ty),
            ));
        };
        let r = self.constant_lane(index, rows)?;
        let lanes = (0..cols).map(|c| c * rows + r).collect();
        Ok(swizzled(b, lanes, s, span))
    }

    /// `v[i]` read with a constant `i`.
    pub fn vector_index(&mut self, b: ir::Expr, index: &ast::Expr, span: Span) -> R<ir::Expr> {
        let Type::Vector(s, n) = b.ty else {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!("`{}` cannot be indexed", b.ty),
            ));
        };
        let lane = self.constant_lane(index, n)?;
        Ok(swizzled(b, vec![lane], s, span))
    }

    /// The place `v.x` / `v[i]` (one lane) of a vector held in a variable or buffer element.
    /// `b` is the checked base expression, which must read a place holding a vector.
    pub fn lane_place(&mut self, b: ir::Expr, which: LaneSel<'_>, span: Span) -> R<(Place, Type)> {
        let (place, s, n) = self.vector_place(b, span)?;
        let ty = Type::Vector(s, n);
        let lane =
            match which {
                LaneSel::Index(i) => self.constant_lane(i, n)?,
                LaneSel::Name(field) => match self.swizzle_lanes(field, &ty)?.as_slice() {
                    [l] => *l,
                    _ => return self.error(
                        Diagnostic::error(
                            Code::NotAssignable,
                            field.span,
                            "only one lane at a time can be incremented",
                        )
                        .with_note(
                            "help: write `v.xy += stack Vector<…,2>(1, 1)`, or one lane at a time",
                        ),
                    ),
                },
            };
        Ok((
            Place::Lane {
                base: Box::new(place),
                lane,
            },
            Type::Scalar(s),
        ))
    }

    /// The lanes a swizzle name picks from a vector of type `ty` (E0006 for a bad name).
    pub(super) fn swizzle_lanes(&mut self, field: &ast::Ident, ty: &Type) -> R<Vec<u8>> {
        let n = match ty {
            Type::Vector(_, n) => *n,
            _ => 0,
        };
        match parse_swizzle(&field.name, n) {
            Ok(l) => Ok(l),
            Err(msg) => self.error(Diagnostic::error(
                Code::UnknownName,
                field.span,
                format!("{ty} has no lane `{}`: {msg}", field.name),
            )),
        }
    }

    /// The vector place `b` loads from, with its lane type and count.
    pub(super) fn vector_place(&mut self, b: ir::Expr, span: Span) -> R<(Place, ScalarType, u8)> {
        // SPEC §8: a precision storage element read as arithmetic (`Convert(Load)`) is
        // still a place; its lane takes the storage lane type.
        let b = match b.kind {
            ExprKind::Convert(inner)
                if matches!(inner.kind, ExprKind::Load(_))
                    && inner
                        .ty
                        .elem_scalar()
                        .is_some_and(|s| s.is_precision_storage()) =>
            {
                *inner
            }
            kind => ir::Expr { kind, ..b },
        };
        let ty = b.ty.clone();
        let (Type::Vector(s, n), ExprKind::Load(place)) = (&ty, b.kind) else {
            return self.error(Diagnostic::error(
                Code::NotAssignable,
                span,
                format!("this {ty} cannot be assigned to: only lanes of vector variables and buffer elements can"),
            ));
        };
        Ok((place, *s, *n))
    }
}

/// Which lane a lane place names.
pub enum LaneSel<'e> {
    /// `v.x`
    Name(&'e ast::Ident),
    /// `v[i]`
    Index(&'e ast::Expr),
}

/// A swizzle expression (one lane: a scalar).
/// A swizzle of a swizzle picks from the inner value directly (`m[r][c]` is one element).
fn swizzled(b: ir::Expr, lanes: Vec<u8>, s: ScalarType, span: Span) -> ir::Expr {
    let ty = match lanes.len() {
        1 => Type::Scalar(s),
        n => Type::Vector(s, n as u8),
    };
    let (base, lanes) = match b.kind {
        ExprKind::Swizzle(inner, picked) => {
            let lanes = lanes.iter().map(|&l| picked[usize::from(l)]).collect();
            (*inner, lanes)
        }
        kind => (ir::Expr { kind, ..b }, lanes),
    };
    ir::Expr {
        kind: ExprKind::Swizzle(Box::new(base), lanes),
        ty,
        span,
    }
}
