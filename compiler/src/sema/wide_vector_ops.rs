//! The operations of Cajeta's wide vectors (`Vector<T, 8>`, `Vector<T, 16>`; see
//! sema/wide_vector.rs for how they are held) that are calls: `buf.vload<N>(i)` and
//! `buf.vstore(i, v)`, the methods `dot`, `length`, `normalize`, `min`, `max`, `clamp`,
//! `Math` functions lane-wise,
//! the text host code prints, and the refusals of what is not offered (parameters, results,
//! and any wide value no form took apart).

use super::body::{FnCtx, R};
use super::bytes16::{bin, sequence};
use super::expr::is_pure;
use super::wide_vector::{lane_of, vec4, wide_lane_ok, wide_refused, wide_value};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, ExprKind, HostOp, Intrinsic, ScalarType, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `buf.vload<N>(i)` for N = 8 or 16 on a `KernelBuffer<lane>`: elements `N·i … N·i+N-1`,
    /// as `vload<4>(N/4·i + k)` for each part `k`.
    pub(super) fn wide_vload(
        &mut self,
        buf: ir::Expr,
        i: ir::Expr,
        lane: ScalarType,
        n: u8,
        span: Span,
    ) -> R<ir::Expr> {
        let ty = Type::Wide(lane, n);
        if !wide_lane_ok(lane) {
            return self.error(wide_refused(&ty, span, "`vload`"));
        }
        let mut stmts = Vec::new();
        let first = self.part_index(i, n, &mut stmts, span);
        let parts = (0..n / 4)
            .map(|k| ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::BufferVload,
                    args: vec![buf.clone(), part_offset(first.clone(), k, span)],
                },
                ty: vec4(lane),
                span,
            })
            .collect();
        Ok(sequence(stmts, wide_value(parts, lane, span)))
    }

    /// `buf.vstore(i, v)` of a wide `v`: `vstore(N/4·i + k, part k)` for each part `k`.
    pub(super) fn wide_vstore(
        &mut self,
        buf: ir::Expr,
        i: ir::Expr,
        v: ir::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Wide(_, n) = v.ty else {
            unreachable!("wide_vstore of another type")
        };
        // The index first, then the value, as the 4-lane store evaluates them.
        let mut stmts = Vec::new();
        let first = self.part_index(i, n, &mut stmts, span);
        let parts = self.pure_parts(v, &mut stmts)?;
        let mut stores: Vec<ir::Expr> = parts
            .into_iter()
            .enumerate()
            .map(|(k, p)| ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::BufferVstore,
                    args: vec![buf.clone(), part_offset(first.clone(), k as u8, span), p],
                },
                ty: Type::Void,
                span,
            })
            .collect();
        let last = stores.pop().expect("a wide vector has parts");
        stmts.extend(stores.into_iter().map(ir::Stmt::Expr));
        Ok(sequence(stmts, last))
    }

    /// `N/4 · i` (`uint32`, wrapping as the 4-lane `vload`'s `4·i` does), bound once.
    fn part_index(
        &mut self,
        i: ir::Expr,
        n: u8,
        stmts: &mut Vec<ir::Stmt>,
        span: Span,
    ) -> ir::Expr {
        let scaled = bin(
            BinaryOp::Mul,
            i,
            super::bytes16::int(u64::from(n / 4), ScalarType::U32, span),
            span,
        );
        self.bind_value(stmts, scaled)
    }

    /// `a.dot(b)` (float lanes: the sum of the parts' dots, in part order), `a.min(b)`,
    /// `a.max(b)`, `a.clamp(lo, hi)` (part by part; a scalar argument is splat).
    pub(super) fn wide_method(
        &mut self,
        v: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let ty = v.ty.clone();
        let Type::Wide(lane, _) = ty else {
            unreachable!("wide_method of another type")
        };
        if lane == ScalarType::Bool {
            return self.wide_mask_method(v, name, args, span);
        }
        let (f, want) = match name.name.as_str() {
            "length" | "normalize" if lane.is_float() && args.is_empty() => {
                return self.wide_length(v, name.name == "normalize", span);
            }
            "dot" if lane.is_float() => (ir::VecFn::Dot, 1),
            "min" => (ir::VecFn::Min, 1),
            "max" => (ir::VecFn::Max, 1),
            "clamp" => (ir::VecFn::Clamp, 2),
            other => {
                return self.error(wide_refused(&ty, name.span, &format!("`{other}`")));
            }
        };
        if args.len() != want || args.iter().any(|a| a.name.is_some()) {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`{ty}.{}` takes {want} positional argument(s)", name.name),
            ));
        }
        let mut values = vec![v];
        for a in args {
            let x = self.expr(&a.value, Some(&ty))?;
            if f == ir::VecFn::Dot && x.ty != ty {
                let other = x.ty.clone();
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        x.span,
                        format!("`dot` takes a {ty}, found {other}"),
                    )
                    .with_label(format!("this is {other}")),
                );
            }
            values.push(self.as_wide(x, &ty)?);
        }
        let mut stmts = Vec::new();
        let operands = self.ordered_parts(values, &mut stmts)?;
        let per_part: Vec<ir::Expr> = (0..operands[0].len())
            .map(|k| ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::Vector(f),
                    args: operands.iter().map(|o| o[k].clone()).collect(),
                },
                ty: if f == ir::VecFn::Dot {
                    Type::Scalar(lane)
                } else {
                    vec4(lane)
                },
                span,
            })
            .collect();
        let value = if f == ir::VecFn::Dot {
            let mut it = per_part.into_iter();
            let first = it.next().expect("a wide vector has parts");
            it.fold(first, |sum, d| bin(BinaryOp::Add, sum, d, span))
        } else {
            wide_value(per_part, lane, span)
        };
        Ok(sequence(stmts, value))
    }

    /// `v.length()` (float lanes): the square root of `v.dot(v)`, the parts' dots added in
    /// part order, as the 4-lane `length` is `sqrt(dot(v, v))`; `v.normalize()`: each part
    /// divided by that length, as the 4-lane `normalize` divides by it.
    fn wide_length(&mut self, v: ir::Expr, normalize: bool, span: Span) -> R<ir::Expr> {
        let Type::Wide(lane, _) = v.ty else {
            unreachable!("wide_length of another type")
        };
        let mut stmts = Vec::new();
        let parts = self.pure_parts(v, &mut stmts)?;
        let dots = parts.iter().map(|p| ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Vector(ir::VecFn::Dot),
                args: vec![p.clone(), p.clone()],
            },
            ty: Type::Scalar(lane),
            span,
        });
        let sum = dots
            .reduce(|sum, d| bin(BinaryOp::Add, sum, d, span))
            .expect("a wide vector has parts");
        let length = ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Math(ir::MathFn::Sqrt),
                args: vec![sum],
            },
            ty: Type::Scalar(lane),
            span,
        };
        if !normalize {
            return Ok(sequence(stmts, length));
        }
        let length = self.bind_value(&mut stmts, length);
        let lengths = ir::Expr {
            kind: ExprKind::Splat(Box::new(length)),
            ty: vec4(lane),
            span,
        };
        let mut out = Vec::new();
        for p in parts {
            out.push(self.vector_binary(ast::BinOp::Div, p, lengths.clone(), span)?);
        }
        Ok(sequence(stmts, wide_value(out, lane, span)))
    }

    /// A wide value as the text a vector prints as, `(x0, x1, …)` (host code: `println`,
    /// `print` and string `+`); other values unchanged.
    pub(super) fn wide_as_text(&mut self, v: ir::Expr) -> R<ir::Expr> {
        if let Type::Bytes16(lane) = v.ty {
            return Ok(self.bytes16_as_text(v, lane));
        }
        let Type::Wide(lane, _) = v.ty else {
            return Ok(v);
        };
        let span = v.span;
        let mut stmts = Vec::new();
        let parts = self.pure_parts(v, &mut stmts)?;
        let lanes = parts
            .iter()
            .flat_map(|p| (0..4).map(|j| lane_of(p.clone(), j, lane, span)))
            .collect();
        Ok(sequence(stmts, lanes_text(lanes, span)))
    }
}

/// The text `(l0, l1, …)` of the values `lanes`, the way host code prints a vector: string
/// concatenations of each lane's text.
pub(super) fn lanes_text(lanes: Vec<ir::Expr>, span: Span) -> ir::Expr {
    let text = |s: &str| ir::Expr {
        kind: ExprKind::Str(s.to_string()),
        ty: Type::String,
        span,
    };
    let concat = |a: ir::Expr, b: ir::Expr| ir::Expr {
        kind: ExprKind::Host {
            op: HostOp::Concat,
            args: vec![a, b],
        },
        ty: Type::String,
        span,
    };
    let mut out = text("(");
    for (k, l) in lanes.into_iter().enumerate() {
        if k > 0 {
            out = concat(out, text(", "));
        }
        out = concat(out, l);
    }
    concat(out, text(")"))
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// The arguments of a call to a method with wide parameters, each wide one replaced by
    /// its parts, and the statements to run first. Java evaluates arguments left to right:
    /// where an argument after the first has statements or parts with effects
    /// (`f(v, v = w)`), every argument and part is computed into a temporary in order, so
    /// the statements cannot run before an earlier argument is read. Resources stay as they
    /// are (a parameter of the caller, which nothing here assigns).
    pub(super) fn split_wide_args(
        &mut self,
        args: Vec<ir::Expr>,
    ) -> R<(Vec<ir::Stmt>, Vec<ir::Expr>)> {
        if !args.iter().any(|a| matches!(a.ty, Type::Wide(..))) {
            return Ok((Vec::new(), args));
        }
        let mut split = Vec::new();
        for a in args {
            split.push(match a.ty {
                Type::Wide(..) => {
                    let (stmts, parts) = self.wide_parts(a)?;
                    (stmts, parts, true)
                }
                _ => (Vec::new(), vec![a], false),
            });
        }
        let effects = |(s, p, _): &(Vec<ir::Stmt>, Vec<ir::Expr>, bool)| {
            !s.is_empty() || p.iter().any(|e| !is_pure(e))
        };
        let in_order = split.iter().skip(1).any(effects);
        let mut stmts = Vec::new();
        let mut out = Vec::new();
        for (first, parts, wide) in split {
            stmts.extend(first);
            for p in parts {
                let keep = p.ty.is_resource()
                    || matches!(p.ty, Type::Shared(_))
                    || (!in_order && (is_pure(&p) || !wide));
                out.push(if keep {
                    p
                } else {
                    self.bind_value(&mut stmts, p)
                });
            }
        }
        Ok((stmts, out))
    }
}

/// `first + k` (`uint32`).
fn part_offset(first: ir::Expr, k: u8, span: Span) -> ir::Expr {
    if k == 0 {
        return first;
    }
    bin(
        BinaryOp::Add,
        first,
        super::bytes16::int(u64::from(k), ScalarType::U32, span),
        span,
    )
}

/// E0024 for the first expression of a wide type left in `f`'s checked body: a use of a wide
/// vector that no form above took apart (a wide result of a call, …).
pub(super) fn leftover_wide_use(f: &ir::Function) -> Option<Diagnostic> {
    let e = ir::visit::find_expr(&f.body, &|e| matches!(e.ty, Type::Wide(..)))?;
    Some(wide_refused(
        &e.ty,
        e.span,
        "a value of this form (a call's result, …)",
    ))
}

/// E0024 for a wide vector result, a wide parameter of a constructor and a wide mask
/// parameter of a kernel; a kernel's, `@Device` helper's or host method's other wide
/// parameters are their parts.
pub(super) fn check_signature(f: &super::names::UserFunction<'_>, diags: &mut Vec<Diagnostic>) {
    for (p, t) in f.decl.params.iter().zip(&f.params) {
        if let (Type::Wide(ScalarType::Bool, n), ir::FunctionKind::Kernel) = (t, f.kind) {
            // Push constants hold numbers; a boolean has no size in Vulkan's layouts.
            diags.push(
                wide_refused(t, p.ty.span, "a kernel parameter").with_note(format!(
                    "help: pass the mask as a uint32 of {n} bits, or the values it is made from"
                )),
            );
        }
        if let (Type::Wide(lane, _), true) = (t, f.constructor) {
            diags.push(
                wide_refused(t, p.ty.span, "a constructor parameter").with_note(format!(
                    "help: take its Vector<{lane}, 4> parts as parameters"
                )),
            );
        }
    }
    if let Type::Wide(lane, _) = f.ret {
        diags.push(
            wide_refused(&f.ret, f.decl.ret.span, "a method result").with_note(format!(
                "help: return a Vector<{lane}, 4> part or a scalar, or store the lanes with `buf.vstore(i, v)`"
            )),
        );
    }
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `Math.f(a, …)` with wide operands (all of one wide type, as `Math`'s `T` makes them):
    /// the 4-lane `Math.f` on each part.
    pub(super) fn wide_math(
        &mut self,
        op: Intrinsic,
        values: Vec<ir::Expr>,
        span: Span,
    ) -> R<ir::Expr> {
        let ty = values[0].ty.clone();
        let Type::Wide(lane, _) = ty else {
            return self.error(wide_refused(&ty, span, "this `Math` function"));
        };
        if let Some(v) = values.iter().find(|v| v.ty != ty) {
            let span = v.span;
            return self.error(wide_refused(
                &ty,
                span,
                "mixing it with another type in `Math`",
            ));
        }
        let mut stmts = Vec::new();
        let operands = self.ordered_parts(values, &mut stmts)?;
        let parts = (0..operands[0].len())
            .map(|k| ir::Expr {
                kind: ExprKind::Intrinsic {
                    op,
                    args: operands.iter().map(|o| o[k].clone()).collect(),
                },
                ty: vec4(lane),
                span,
            })
            .collect();
        Ok(sequence(stmts, wide_value(parts, lane, span)))
    }
}
