//! Assignments to several lanes of a vector at once (`q.xyz += v3;`, `q.xy = v2;`,
//! `q.zx = …`), as in GLSL. They are checked here and lowered to what every backend and both
//! host executors already run: the right-hand side (for `op=`, the swizzle read combined
//! with it) is computed once into a temporary, then each named lane is stored from its lane
//! of the temporary. Reading everything before the first store makes `q.xy = q.yx` a swap.

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, Place, Type};
use crate::syntax::ast::{self, BinOp};

impl FnCtx<'_, '_> {
    /// `b.lanes op= r` where `b` (already checked) is a vector and `lanes` names more than one
    /// lane: the statements, and the place holding the assigned value (the temporary).
    pub(super) fn swizzle_assign(
        &mut self,
        op: Option<BinOp>,
        b: ir::Expr,
        field: &ast::Ident,
        target: Span,
        r: &ast::Expr,
        span: Span,
    ) -> R<(Vec<ir::Stmt>, Place, Type)> {
        self.refuse_pod_store(&b, target)?;
        let vector = b.ty.clone();
        let lanes = self.swizzle_lanes(field, &vector)?;
        if let Some(twice) = repeated_lane(&lanes) {
            let letter = field.name.chars().nth(twice).unwrap_or('x');
            return self.error(
                Diagnostic::error(
                    Code::NotAssignable,
                    field.span,
                    format!(
                        "`.{}` names lane `{letter}` twice: an assigned swizzle must name each lane at most once",
                        field.name
                    ),
                )
                .with_label("repeated lane")
                .with_note("help: as in GLSL, `v.xx = …` is not allowed; write the lanes one by one if that is what you mean"),
            );
        }
        let (place, s, _) = self.vector_place(b, target)?;
        let mut stmts = Vec::new();
        let place = self.stabilize(place, &mut stmts);
        let ty = Type::Vector(s, lanes.len() as u8);
        let value = match op {
            None => {
                let v = self.expr(r, Some(&ty))?;
                self.coerce(v, &ty, r.span)?
            }
            Some(op) => {
                let current = ir::Expr {
                    kind: ExprKind::Swizzle(
                        Box::new(ir::Expr {
                            kind: ExprKind::Load(place.clone()),
                            ty: vector,
                            span: target,
                        }),
                        lanes.clone(),
                    ),
                    ty: ty.clone(),
                    span: target,
                };
                let rhs = self.expr(r, Some(&ty))?;
                self.compound(op, current, rhs, &ty, span)?
            }
        };
        let t = self.temp(ty.clone(), span);
        stmts.push(ir::Stmt::Store {
            place: Place::Local(t),
            value,
            span,
        });
        let temp = ir::Expr {
            kind: ExprKind::Load(Place::Local(t)),
            ty: ty.clone(),
            span,
        };
        for (j, &lane) in lanes.iter().enumerate() {
            stmts.push(ir::Stmt::Store {
                place: Place::Lane {
                    base: Box::new(place.clone()),
                    lane,
                },
                value: ir::Expr {
                    kind: ExprKind::Swizzle(Box::new(temp.clone()), vec![j as u8]),
                    ty: Type::Scalar(s),
                    span,
                },
                span,
            });
        }
        Ok((stmts, Place::Local(t), ty))
    }
}

/// The position in the swizzle of the first lane named a second time.
fn repeated_lane(lanes: &[u8]) -> Option<usize> {
    (1..lanes.len()).find(|&i| lanes[..i].contains(&lanes[i]))
}

#[cfg(test)]
mod tests {
    use super::repeated_lane;

    #[test]
    fn repeated_lanes_are_found_at_their_second_use() {
        assert_eq!(repeated_lane(&[0, 1, 2]), None);
        assert_eq!(repeated_lane(&[0, 0]), Some(1));
        assert_eq!(repeated_lane(&[2, 0, 2]), Some(2));
    }
}
