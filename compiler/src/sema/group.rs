//! Cajeta's `Group`: a group is one subgroup (wave), so each method is the wave operation it
//! names, rewritten on the syntax tree before checking (scoping, conversions and every
//! backend then follow from the `Wave.*` call it becomes):
//!
//! | Cajeta | here |
//! |---|---|
//! | `Group.width()` | `(int32) Wave.width()` |
//! | `Group.laneId()` | `(int32) Wave.laneId()` |
//! | `Group.rowId()` | `(int32) Workgroup.x()` (one group per block, one row per group) |
//! | `Group.reduce(GroupOp.X, v)` | `Wave.reduceSum/Min/Max/And/Or/Xor(v)` |
//! | `Group.mac(acc, a, b)` | `acc + a.dot(b)` (`Vector<int8, 4>` or Cajeta's `Vector<int8, 16>` operands, wrapping) |
//! | `for (int32 i : Group.stripe(n))` | `for (int32 i = laneId; i < n; i += width)` |
//! | `Group.laneBlock()` (host) | `(int32) Device.waveSize()` |
//! | `Group.rowGrid(rows)` | `(int32) rows` |
//!
//! `Group.reduceSegmented` is an intrinsic of its own (stdlib/cajeta/memory.cajeta), checked
//! here and lowered per backend.

use super::body::{FnCtx, R};
use super::range_loop::{expr, ident, static_call, StrideLoop};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, Constant, ExprKind as IrKind, ScalarType, Type};
use crate::syntax::ast::{self, BinOp, Expr, ExprKind, Ident, Stmt, TypeExpr, TypeExprKind};

fn named_type(name: &str, span: Span) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Named {
            name: name.to_string(),
            args: Vec::new(),
        },
        span,
    }
}

/// `(int32) e`.
fn as_int32(e: Expr, span: Span) -> Expr {
    expr(
        ExprKind::Cast(Box::new(named_type("int32", span)), Box::new(e)),
        span,
    )
}

/// The `Wave` reduction a `GroupOp.X` constant names.
fn wave_reduction(op: &Expr) -> Option<&'static str> {
    let ExprKind::Field(class, name) = &op.kind else {
        return None;
    };
    if !matches!(&class.kind, ExprKind::Name(c) if c == "GroupOp") {
        return None;
    }
    Some(match name.name.as_str() {
        "Add" => "reduceSum",
        "Min" => "reduceMin",
        "Max" => "reduceMax",
        "And" => "reduceAnd",
        "Or" => "reduceOr",
        "Xor" => "reduceXor",
        _ => return None,
    })
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `Group.name(args)` rewritten as the wave operation it stands for; `None` when `recv`
    /// is not Cajeta's `Group` or the method is one of its intrinsics (`reduceSegmented`).
    pub(super) fn group_call(
        &mut self,
        recv: &Expr,
        name: &Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if !self.names_library_class(recv, "Group") {
            return None;
        }
        let method = name.name.as_str();
        let device_only = matches!(
            method,
            "width" | "laneId" | "rowId" | "reduce" | "mac" | "stripe"
        );
        if device_only && !self.is_device() {
            return Some(self.error(Diagnostic::error(
                Code::DeviceOnlyInHost,
                span,
                format!("`Group.{method}` is only available in kernels and @Device methods"),
            )));
        }
        let values: Vec<Expr> = args.iter().map(|a| a.value.clone()).collect();
        let arity = |n: usize| values.len() == n;
        let rewritten = match method {
            "width" if arity(0) => as_int32(static_call("Wave", "width", vec![], span), span),
            "laneId" if arity(0) => as_int32(static_call("Wave", "laneId", vec![], span), span),
            "rowId" if arity(0) => as_int32(static_call("Workgroup", "x", vec![], span), span),
            "reduce" if arity(2) => {
                let Some(reduction) = wave_reduction(&values[0]) else {
                    return Some(self.error(Diagnostic::error(
                        Code::NotConstant,
                        values[0].span,
                        "a GroupOp argument must be a constant (GroupOp.Add, Min, Max, And, Or, Xor)",
                    )));
                };
                static_call("Wave", reduction, vec![values[1].clone()], span)
            }
            "mac" if arity(3) && self.is_coop_local(&values[0]) => {
                let args = vec![values[1].clone(), values[2].clone(), values[0].clone()];
                let mul_add = static_call("CoopMatrix", "mulAdd", args, span);
                expr(
                    ExprKind::Assign(None, Box::new(values[0].clone()), Box::new(mul_add)),
                    span,
                )
            }
            "mac" if arity(3) => {
                let dot = expr(
                    ExprKind::MethodCall(
                        Box::new(values[1].clone()),
                        ident("dot", span),
                        vec![ast::Arg {
                            name: None,
                            value: values[2].clone(),
                        }],
                    ),
                    span,
                );
                expr(
                    ExprKind::Binary(BinOp::Add, Box::new(values[0].clone()), Box::new(dot)),
                    span,
                )
            }
            "stripe" => {
                return Some(
                    self.error(
                        Diagnostic::error(
                            Code::UnsupportedFeature,
                            span,
                            "`Group.stripe(n)` is only valid as the iterable of a for-each loop",
                        )
                        .with_note("help: write `for (int32 i : Group.stripe(n)) { … }`"),
                    ),
                )
            }
            "laneBlock" if arity(0) => {
                if self.is_device() {
                    return Some(
                        self.error(
                            Diagnostic::error(
                                Code::HostOnlyInDevice,
                                span,
                                "`Group.laneBlock()` is a launch size, for host code",
                            )
                            .with_note("help: in a kernel the group's width is `Group.width()`"),
                        ),
                    );
                }
                as_int32(static_call("Device", "waveSize", vec![], span), span)
            }
            "rowGrid" if arity(1) => as_int32(values[0].clone(), span),
            "width" | "laneId" | "rowId" | "reduce" | "mac" | "laneBlock" | "rowGrid" => {
                return Some(self.error(Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!("`Group.{method}` takes a different number of arguments"),
                )))
            }
            _ => return None,
        };
        Some(self.expr(&rewritten, None))
    }

    /// Whether `e` names a cooperative-matrix local (a Cajeta `Tile` passed to `Group.mac`).
    fn is_coop_local(&self, e: &Expr) -> bool {
        let ExprKind::Name(n) = &e.kind else {
            return false;
        };
        self.lookup(n)
            .is_some_and(|id| matches!(self.locals[id.0].ty, Type::CoopMatrix(_)))
    }

    /// Refuses a bitwise `GroupOp` (`And`, `Or`, `Xor`: the constants 3 to 5) on the float
    /// type `s`, for `Workgroup.reduce` and `Group.reduceSegmented` alike (E0015), so that
    /// `check` refuses what the backends cannot lower.
    pub(super) fn refuse_bitwise_on_float(&mut self, op: &ir::Expr, s: ScalarType) -> R<()> {
        if s.is_float() && matches!(op.kind, IrKind::Const(Constant::Int(3..=5))) {
            return self.error(Diagnostic::error(
                Code::InvalidOperator,
                op.span,
                format!("a bitwise GroupOp needs an integer value, found `{s}`"),
            ));
        }
        Ok(())
    }

    /// Checks `Group.reduceSegmented(segment, op, v)`'s arguments: a scalar value, a
    /// bitwise operation only on integers, and a constant segment that is a power of two
    /// (Vulkan subgroups have at most 128 lanes). The segment becomes a `uint32`.
    pub(super) fn check_reduce_segmented(&mut self, args: &mut [ir::Expr]) -> R<()> {
        let [segment, op, v] = args else {
            return Ok(());
        };
        let Some(s) = v.ty.as_scalar() else {
            let t = v.ty.clone();
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                v.span,
                format!("`Group.reduceSegmented` takes a scalar value, found {t}"),
            ));
        };
        self.refuse_bitwise_on_float(op, s)?;
        if let Some(k) = super::memory::const_int(segment) {
            if !(1..=128).contains(&k) || k & (k - 1) != 0 {
                return self.error(Diagnostic::error(
                    Code::InvalidOperator,
                    segment.span,
                    format!(
                        "a reduceSegmented segment must be a power of two from 1 to 128, found {k}"
                    ),
                ));
            }
            *segment = ir::Expr::constant(
                Constant::Int(k as u64),
                Type::Scalar(ScalarType::U32),
                segment.span,
            );
        } else if segment.ty != Type::Scalar(ScalarType::U32) {
            *segment = super::expr::convert(segment.clone(), ScalarType::U32);
        }
        Ok(())
    }

    /// `for (int32 i : Group.stripe(n)) body`: the group's lanes stride the `n` items,
    /// lowered on the syntax tree to
    /// `{ int32 $n = n; for (int32 i = Group.laneId(); i < $n; i += Group.width()) body }`.
    pub(super) fn stripe_for(&mut self, label: Option<&Ident>, s: &Stmt, out: &mut ir::Block) {
        let Stmt::RangeFor {
            index: (index_ty, declarators),
            range,
            body,
            span,
            ..
        } = s
        else {
            return;
        };
        let stripe_count = match &range.kind {
            ExprKind::MethodCall(recv, m, args)
                if m.name == "stripe"
                    && args.len() == 1
                    && matches!(&recv.kind, ExprKind::Name(n) if n == "Group") =>
            {
                args[0].value.clone()
            }
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        Code::UnsupportedFeature,
                        range.span,
                        "a for-each loop in a kernel iterates over `Group.stripe(n)`",
                    )
                    .with_note("help: a grid-stride loop is `for (uint32 i, T v : buf.range(n))`; otherwise write a counting `for`"),
                );
                return;
            }
        };
        if !self.is_device() {
            self.diags.push(Diagnostic::error(
                Code::DeviceOnlyInHost,
                range.span,
                "`Group.stripe` is only available in kernels and @Device methods",
            ));
            return;
        }
        let [(index, None)] = declarators.as_slice() else {
            return;
        };
        let sp = range.span;
        let n_name = format!("$stripe_n{}", sp.start);
        let count_decl = Stmt::Local {
            is_final: false,
            ty: index_ty.clone(),
            decls: vec![(ident(&n_name, sp), Some(stripe_count))],
            span: sp,
        };
        let lowered = StrideLoop {
            index,
            index_ty: index_ty.clone(),
            start: static_call("Group", "laneId", vec![], sp),
            count_name: &n_name,
            step: static_call("Group", "width", vec![], sp),
            body: body.clone(),
        }
        .lower(sp, *span);
        self.push_scope();
        self.stmt(&count_decl, out);
        self.for_loop(label, &lowered, out);
        self.pop_scope();
    }
}
