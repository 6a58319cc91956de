//! Cajeta's wide vectors, `Vector<T, 8>` and `Vector<T, 16>` (T `float16`, `float32`,
//! `float64`, `int32`, `uint32`, `int64`, `uint64`). Vulkan shaders have no 8- or
//! 16-component vectors (SPIR-V's `Vector16` capability is not allowed there), so a wide
//! vector is held as 2 or 4 `Vector<T, 4>` *parts*, lane `4k + j` in lane `j` of part `k`,
//! and the checker spells each of its operations out on the parts:
//!
//! - a local `Vector<T, 8> v` is one `Vector<T, 4>` local per part (the name itself is bound
//!   to a local that stays unused); reading `v` gives the parts, storing into it stores each;
//! - a wide *value* is an [`ExprKind::Construct`] of its parts with the wide type, or a
//!   [`ExprKind::Sequence`] around one; every use here takes it apart again
//!   ([`FnCtx::wide_parts`]), so no expression of the wide type is left in the checked
//!   module (`wide_vector_ops::leftover_wide_use` reports E0024 where a form not offered would have left one);
//! - `stack Vector<T, 8>(x)` splats, `(x0, …, x7)` (scalars and smaller vectors) fills lanes;
//!   `v[k]` (a constant `k`) is lane `k % 4` of part `k / 4`, `v[k] = x` writes it;
//!   `+ - * / %` and the bitwise operators are the 4-lane operators part by part (a scalar
//!   operand splat), `-v` too; `a.dot(b)` is the sum of the parts' dots in part order,
//!   `v.length()` its square root for `b = v`, `v.normalize()` the parts divided by it;
//!   `a.min(b)`, `max`, `clamp` and `Math.f(…)` part by part; `buf.vload<8>(i)` is elements
//!   `8i … 8i + 7` (two `vload<4>(2i + k)`), `buf.vstore(i, v)` the two stores; in host code
//!   `System.out.println(v)` and `"…" + v` print the lanes as a vector does. These calls are
//!   in sema/wide_vector_ops.rs.
//!
//! - a wide parameter (of a kernel: push constants; of a `@Device` helper or host method)
//!   is its parts, consecutive parameters (`FnCtx::param_locals` counts them), and a call passes the argument's parts
//!   (`FnCtx::split_wide_args`);
//!
//! So both kernel backends, the CPU device and both host executors see only 4-lane vectors.

use super::body::{FnCtx, R};
use super::bytes16::sequence;
use super::expr::is_pure;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, LocalId, Place, ScalarType, Type};
use crate::syntax::ast::{self, BinOp};

/// The forms offered on wide vectors, for the help line of every refusal.
pub(super) const WIDE_FORMS: &str = "`stack Vector<T, N>(x)` or N lanes, `v[k]` and `v[k] = x` with a constant k, `+ - * / %` and `& | ^` with wide vectors or scalars, `-v`, comparisons giving a `Vector<boolean, N>` mask `m` with `m.select(a, b)`, `m.all()`, `m.any()`, `c ? a : b` with a boolean `c`, `a.dot(b)`, `v.length()` and `v.normalize()` (float lanes), `a.min(b)`, `a.max(b)`, `a.clamp(lo, hi)`, `Math.f(a, …)` lane-wise on wide operands of one type, `buf.vload<N>(i)`, `buf.vstore(i, v)`, locals, parameters of kernels, `@Device` helpers and host methods, and printing in host code";

/// Whether `Vector<lane, n>` is a wide vector cajetac offers (see the module comment).
pub(super) fn wide_lane_ok(lane: ScalarType) -> bool {
    matches!(
        lane,
        ScalarType::F16
            | ScalarType::F32
            | ScalarType::F64
            | ScalarType::I32
            | ScalarType::U32
            | ScalarType::I64
            | ScalarType::U64
    )
}

/// E0024 for a use of a wide vector that is not offered, with the forms that are.
pub(super) fn wide_refused(ty: &Type, span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::UnsupportedFeature,
        span,
        format!("{what} is not supported on {ty}"),
    )
    .with_label(format!("a {ty}"))
    .with_note(
        "a wide vector is held as Vector<T, 4> parts (Vulkan shaders have no 8- or 16-lane vectors)",
    )
    .with_note(format!("help: wide vectors offer {WIDE_FORMS}"))
}

pub(super) fn vec4(lane: ScalarType) -> Type {
    Type::Vector(lane, 4)
}

fn load(id: LocalId, ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Load(Place::Local(id)),
        ty,
        span,
    }
}

pub(super) fn lane_of(part: ir::Expr, lane: u8, s: ScalarType, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Swizzle(Box::new(part), vec![lane]),
        ty: Type::Scalar(s),
        span,
    }
}

/// The wide value made of `parts` (each a `Vector<lane, 4>`).
pub(super) fn wide_value(parts: Vec<ir::Expr>, lane: ScalarType, span: Span) -> ir::Expr {
    let n = (parts.len() * 4) as u8;
    ir::Expr {
        kind: ExprKind::Construct(parts),
        ty: Type::Wide(lane, n),
        span,
    }
}

/// Whether `e` reads one of `locals`.
fn reads_any(e: &ir::Expr, locals: &[LocalId]) -> bool {
    let mut found = false;
    ir::visit::for_each_local_use_in_expr(e, &mut |id, _| found |= locals.contains(&id));
    found
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// After `id` was declared with a wide type: one `Vector<T, 4>` local per part.
    pub(super) fn declare_wide_parts(&mut self, id: LocalId) {
        let Type::Wide(lane, n) = self.locals[id.0].ty else {
            return;
        };
        let span = self.locals[id.0].span;
        let name = self.locals[id.0].name.clone();
        let parts = (0..n / 4)
            .map(|k| {
                let p = self.temp(vec4(lane), span);
                self.locals[p.0].name = format!("${name}.{k}");
                p
            })
            .collect();
        self.wide_locals.insert(id, parts);
    }

    /// The parameter locals (`Vector<T, 4>` each, assigned) of the wide parameter `name` of
    /// type `ty`, in part order: a method taking a wide vector takes its parts. They are
    /// named `name_k`: a kernel's parameter names reach its reflection and the Rust
    /// launchers cajeta-build writes, which need identifiers.
    pub(super) fn wide_param_parts(&mut self, name: &ast::Ident, ty: &Type) -> Vec<LocalId> {
        let Type::Wide(lane, n) = *ty else {
            unreachable!("wide_param_parts of another type")
        };
        (0..n / 4)
            .map(|k| {
                let p = self.temp(vec4(lane), name.span);
                self.locals[p.0].name = format!("{}_{k}", name.name);
                p
            })
            .collect()
    }

    /// Declares the wide parameter `name`, bound to its parameter locals `parts`.
    pub(super) fn declare_wide_param(&mut self, name: &ast::Ident, ty: Type, parts: Vec<LocalId>) {
        if let Ok(id) = self.declare_name(name, ty) {
            self.assigned[id.0] = true;
            self.wide_locals.insert(id, parts);
        }
    }

    /// Reading the wide local `id`: its parts, as one wide value.
    pub(super) fn load_wide(&self, id: LocalId, span: Span) -> Option<ir::Expr> {
        let parts = self.wide_locals.get(&id)?;
        let Type::Wide(lane, _) = self.locals[id.0].ty else {
            return None;
        };
        let loads = parts.iter().map(|p| load(*p, vec4(lane), span)).collect();
        Some(wide_value(loads, lane, span))
    }

    /// `v` as the statements to run first and its parts (each a `Vector<T, 4>`).
    pub(super) fn wide_parts(&mut self, v: ir::Expr) -> R<(Vec<ir::Stmt>, Vec<ir::Expr>)> {
        match v.kind {
            ExprKind::Construct(parts) if matches!(v.ty, Type::Wide(..)) => Ok((Vec::new(), parts)),
            ExprKind::Sequence(mut stmts, inner) if matches!(v.ty, Type::Wide(..)) => {
                let (more, parts) = self.wide_parts(*inner)?;
                stmts.extend(more);
                Ok((stmts, parts))
            }
            _ => {
                let d = wide_refused(&v.ty, v.span, "a value of this form (a call's result, …)");
                self.error(d)
            }
        }
    }

    /// The `n / 4` parts of a wide vector whose every lane is the scalar `x` (of the lane
    /// type), computed once: bound to a temporary in `stmts` unless it is pure.
    fn splat_parts(
        &mut self,
        stmts: &mut Vec<ir::Stmt>,
        x: ir::Expr,
        lane: ScalarType,
        n: u8,
        span: Span,
    ) -> Vec<ir::Expr> {
        let x = if is_pure(&x) {
            x
        } else {
            self.bind_value(stmts, x)
        };
        let splat = ir::Expr {
            kind: ExprKind::Splat(Box::new(x)),
            ty: vec4(lane),
            span,
        };
        vec![splat; usize::from(n / 4)]
    }

    /// `v` as a value of the wide type `ty`: unchanged if it has that type, a scalar converted
    /// to the lane type (implicitly, as a vector operand's) and splat to every part, computed
    /// once; anything else is E0008 (vector sizes and lane types never convert).
    pub(super) fn as_wide(&mut self, v: ir::Expr, ty: &Type) -> R<ir::Expr> {
        let Type::Wide(lane, n) = *ty else {
            unreachable!("as_wide to another type")
        };
        let span = v.span;
        match v.ty.clone() {
            t if t == *ty => Ok(v),
            Type::Scalar(_) => {
                let x = self.coerce(v, &Type::Scalar(lane), span)?;
                let mut stmts = Vec::new();
                let parts = self.splat_parts(&mut stmts, x, lane, n, span);
                Ok(sequence(stmts, wide_value(parts, lane, span)))
            }
            other => self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!("expected {ty} (or a {lane} to broadcast), found {other}"),
                )
                .with_label(format!("this is {other}"))
                .with_note("vector sizes and lane types never convert implicitly"),
            ),
        }
    }

    /// The parts of the wide `operands` of one operation, evaluated as Java evaluates the
    /// operands, left to right: where an operand after the first has statements or parts
    /// with effects (`v + (v = w)`), every part of every operand is computed into a
    /// temporary in order, so that part-by-part operations do not interleave them.
    pub(super) fn ordered_parts(
        &mut self,
        operands: Vec<ir::Expr>,
        stmts: &mut Vec<ir::Stmt>,
    ) -> R<Vec<Vec<ir::Expr>>> {
        let mut split = Vec::new();
        for v in operands {
            split.push(self.wide_parts(v)?);
        }
        let effects = |(s, p): &(Vec<ir::Stmt>, Vec<ir::Expr>)| {
            !s.is_empty() || p.iter().any(|e| !is_pure(e))
        };
        let in_order = split.len() > 1 && split.iter().skip(1).any(effects);
        let mut out = Vec::new();
        for (first, parts) in split {
            stmts.extend(first);
            out.push(
                parts
                    .into_iter()
                    .map(|p| {
                        if in_order || !is_pure(&p) {
                            self.bind_value(stmts, p)
                        } else {
                            p
                        }
                    })
                    .collect(),
            );
        }
        Ok(out)
    }

    /// The parts of `v`, each pure (bound to a temporary where it is not), after `stmts`.
    pub(super) fn pure_parts(
        &mut self,
        v: ir::Expr,
        stmts: &mut Vec<ir::Stmt>,
    ) -> R<Vec<ir::Expr>> {
        let (first, parts) = self.wide_parts(v)?;
        stmts.extend(first);
        Ok(parts
            .into_iter()
            .map(|p| {
                if is_pure(&p) {
                    p
                } else {
                    self.bind_value(stmts, p)
                }
            })
            .collect())
    }

    /// The statements storing the wide value `v` into the wide local `id`. A part that
    /// reads another part of `id` (`v = stack Vector<T, 8>(v[4], …)`) is computed before any
    /// part is stored.
    pub(super) fn store_wide(&mut self, id: LocalId, v: ir::Expr, span: Span) -> R<Vec<ir::Stmt>> {
        let targets = self.wide_locals.get(&id).cloned().unwrap_or_default();
        let (mut stmts, mut parts) = self.wide_parts(v)?;
        let crossing = parts.iter().enumerate().any(|(k, p)| {
            let others: Vec<LocalId> = targets
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, t)| *t)
                .collect();
            reads_any(p, &others)
        });
        if crossing {
            parts = parts
                .into_iter()
                .map(|p| self.bind_value(&mut stmts, p))
                .collect();
        }
        for (t, p) in targets.into_iter().zip(parts) {
            stmts.push(ir::Stmt::Store {
                place: Place::Local(t),
                value: p,
                span,
            });
        }
        Ok(stmts)
    }

    /// `stack Vector<T, N>(…)` of a wide type: one lane value for all, or N lanes made of
    /// scalars and `Vector<T, M>` values (evaluated once each, left to right).
    pub(super) fn construct_wide(
        &mut self,
        ty: Type,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Wide(lane, n) = ty else {
            unreachable!("construct_wide of another type")
        };
        let lane_ty = Type::Scalar(lane);
        let mut stmts = Vec::new();
        let mut lanes: Vec<ir::Expr> = Vec::new();
        for a in args {
            if let Some(name) = &a.name {
                return self.error(Diagnostic::error(
                    Code::SyntaxError,
                    name.span,
                    format!("unexpected named argument `{}:`", name.name),
                ));
            }
            let v = self.expr(&a.value, Some(&lane_ty))?;
            match v.ty.clone() {
                Type::Vector(s, m) if s == lane => {
                    let v = if is_pure(&v) {
                        v
                    } else {
                        self.bind_value(&mut stmts, v)
                    };
                    lanes.extend((0..m).map(|j| lane_of(v.clone(), j, lane, span)));
                }
                Type::Wide(s, _) if s == lane => {
                    for p in self.pure_parts(v, &mut stmts)? {
                        lanes.extend((0..4).map(|j| lane_of(p.clone(), j, lane, span)));
                    }
                }
                Type::Scalar(_) => {
                    let v = self.coerce(v, &lane_ty, a.value.span)?;
                    // Bound in order, so that the lanes are evaluated left to right.
                    let v = if is_pure(&v) {
                        v
                    } else {
                        self.bind_value(&mut stmts, v)
                    };
                    lanes.push(v);
                }
                other => {
                    return self.error(
                        Diagnostic::error(
                            Code::TypeMismatch,
                            a.value.span,
                            format!(
                                "a part of {ty} must be {lane} or a Vector<{lane},N>, found {other}"
                            ),
                        )
                        .with_label(format!("this is {other}")),
                    )
                }
            }
        }
        let parts = if lanes.len() == 1 && args.len() == 1 {
            let x = lanes.remove(0);
            self.splat_parts(&mut stmts, x, lane, n, span)
        } else if lanes.len() == usize::from(n) {
            lanes
                .chunks(4)
                .map(|c| ir::Expr {
                    kind: ExprKind::Construct(c.to_vec()),
                    ty: vec4(lane),
                    span,
                })
                .collect()
        } else {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!("{ty} needs {n} lanes, the arguments supply {}", lanes.len()),
                )
                .with_note("vector parts count for their lanes; one scalar fills every lane"),
            );
        };
        Ok(sequence(stmts, wide_value(parts, lane, span)))
    }

    /// `v[k]` with a constant `k`: lane `k % 4` of part `k / 4`.
    pub(super) fn wide_lane(&mut self, v: ir::Expr, index: &ast::Expr, span: Span) -> R<ir::Expr> {
        let Type::Wide(lane, n) = v.ty else {
            unreachable!("wide_lane of another type")
        };
        let k = self.constant_lane(index, n)?;
        // Every part is still computed, in order, for what it does.
        let mut stmts = Vec::new();
        let mut parts = self.pure_parts(v, &mut stmts)?;
        let part = parts.swap_remove(usize::from(k / 4));
        Ok(sequence(stmts, lane_of(part, k % 4, lane, span)))
    }

    /// The place `v[k]` (a constant `k`) of a wide local: lane `k % 4` of its part `k / 4`.
    pub(super) fn wide_lane_place(
        &mut self,
        v: ir::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> R<(Place, Type)> {
        let Type::Wide(lane, n) = v.ty else {
            unreachable!("wide_lane_place of another type")
        };
        let k = self.constant_lane(index, n)?;
        let ty = v.ty.clone();
        match v.kind {
            ExprKind::Construct(parts) => match &parts[usize::from(k / 4)].kind {
                ExprKind::Load(p @ Place::Local(_)) => Ok((
                    Place::Lane {
                        base: Box::new(p.clone()),
                        lane: k % 4,
                    },
                    Type::Scalar(lane),
                )),
                _ => self.error(wide_refused(&ty, span, "assigning to a lane of a value")),
            },
            _ => self.error(wide_refused(&ty, span, "assigning to a lane of a value")),
        }
    }

    /// `-v`: each part negated.
    pub(super) fn wide_neg(&mut self, v: ir::Expr, span: Span) -> R<ir::Expr> {
        let Type::Wide(lane, _) = v.ty else {
            unreachable!("wide_neg of another type")
        };
        let (stmts, parts) = self.wide_parts(v)?;
        let parts = parts
            .into_iter()
            .map(|p| ir::Expr {
                kind: ExprKind::Unary(ir::UnaryOp::Neg, Box::new(p)),
                ty: vec4(lane),
                span,
            })
            .collect();
        Ok(sequence(stmts, wide_value(parts, lane, span)))
    }

    /// `a op b` with a wide operand: the 4-lane operator part by part, a scalar operand
    /// converted to the lane type once and splat; a comparison gives a wide mask.
    pub(super) fn wide_binary(
        &mut self,
        op: BinOp,
        lv: ir::Expr,
        rv: ir::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        let ty = if let Type::Wide(..) = lv.ty {
            lv.ty.clone()
        } else {
            rv.ty.clone()
        };
        let Type::Wide(lane, _) = ty else {
            unreachable!("wide_binary without a wide operand")
        };
        let compare = matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        );
        let allowed = compare
            || matches!(
                op,
                BinOp::Add
                    | BinOp::Sub
                    | BinOp::Mul
                    | BinOp::Div
                    | BinOp::Rem
                    | BinOp::BitAnd
                    | BinOp::BitOr
                    | BinOp::BitXor
            );
        if !allowed {
            return self.error(wide_refused(&ty, span, &format!("`{}`", op.symbol())));
        }
        let mut stmts = Vec::new();
        let lv = self.as_wide(lv, &ty)?;
        let rv = self.as_wide(rv, &ty)?;
        let mut sides = self.ordered_parts(vec![lv, rv], &mut stmts)?;
        let rparts = sides.pop().unwrap_or_default();
        let lparts = sides.pop().unwrap_or_default();
        let mut parts = Vec::new();
        for (a, b) in lparts.into_iter().zip(rparts) {
            parts.push(self.vector_binary(op, a, b, span)?);
        }
        // A comparison's parts are the 4-lane masks (sema/wide_vector_masks.rs).
        let lane = if compare { ScalarType::Bool } else { lane };
        Ok(sequence(stmts, wide_value(parts, lane, span)))
    }
}
