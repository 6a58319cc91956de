//! Vector operators and `Vector<T, N>` methods in host code, lane by lane through the scalar
//! operations of [`ops`], so each lane rounds exactly as on the device (see
//! `kernel/spirv/vector_ops.rs` for the matching order of operations).

use std::rc::Rc;

use super::eval::{internal, op_error, Fail, Frame, Interp};
use super::ops::{self, OpError};
use super::value::{Scalar, Value};
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, MathFn, Type, UnaryOp, VecFn};

/// Lane-wise `op` on two lane slices of one length.
fn zip(op: BinaryOp, x: &[Scalar], y: &[Scalar]) -> Result<Vec<Scalar>, OpError> {
    x.iter()
        .zip(y)
        .map(|(a, b)| ops::binary(op, *a, *b))
        .collect()
}

/// `((x0*y0 + x1*y1) + x2*y2) + x3*y3`.
fn dot(x: &[Scalar], y: &[Scalar]) -> Result<Scalar, OpError> {
    let products = zip(BinaryOp::Mul, x, y)?;
    let mut sum = *products.first().ok_or(OpError::Unsupported)?;
    for p in &products[1..] {
        sum = ops::binary(BinaryOp::Add, sum, *p)?;
    }
    Ok(sum)
}

fn length(x: &[Scalar]) -> Result<Scalar, OpError> {
    ops::math(MathFn::Sqrt, &[dot(x, x)?])
}

fn lanes_value(l: Vec<Scalar>) -> Value {
    Value::Vector(Rc::from(l))
}

/// Applies a method to evaluated lane slices (receiver first).
fn vector_fn(f: VecFn, a: &[Rc<[Scalar]>]) -> Result<Value, OpError> {
    let bools = |x: &[Scalar]| {
        x.iter()
            .map(|s| s.as_bool().unwrap_or(false))
            .collect::<Vec<_>>()
    };
    Ok(match (f, a) {
        (VecFn::All, [m]) => Value::Scalar(Scalar::Bool(bools(m).iter().all(|b| *b))),
        (VecFn::Any, [m]) => Value::Scalar(Scalar::Bool(bools(m).iter().any(|b| *b))),
        (VecFn::Select, [m, x, y]) => lanes_value(
            bools(m)
                .iter()
                .zip(x.iter().zip(y.iter()))
                .map(|(c, (a, b))| if *c { *a } else { *b })
                .collect(),
        ),
        (VecFn::Dot, [x, y]) => Value::Scalar(dot(x, y)?),
        (VecFn::Length, [x]) => Value::Scalar(length(x)?),
        (VecFn::Distance, [x, y]) => Value::Scalar(length(&zip(BinaryOp::Sub, x, y)?)?),
        (VecFn::Normalize, [x]) => {
            let len = length(x)?;
            lanes_value(zip(BinaryOp::Div, x, &vec![len; x.len()])?)
        }
        (VecFn::Cross, [x, y]) if x.len() == 3 && y.len() == 3 => {
            let pick = |v: &[Scalar], l: [usize; 3]| l.map(|i| v[i]).to_vec();
            let p1 = zip(BinaryOp::Mul, &pick(x, [1, 2, 0]), &pick(y, [2, 0, 1]))?;
            let p2 = zip(BinaryOp::Mul, &pick(x, [2, 0, 1]), &pick(y, [1, 2, 0]))?;
            lanes_value(zip(BinaryOp::Sub, &p1, &p2)?)
        }
        (VecFn::Lerp, [x, y, t]) => {
            let scaled = zip(BinaryOp::Mul, &zip(BinaryOp::Sub, y, x)?, t)?;
            lanes_value(zip(BinaryOp::Add, x, &scaled)?)
        }
        (VecFn::Min | VecFn::Max, [x, y]) => {
            let m = if f == VecFn::Min {
                MathFn::Min
            } else {
                MathFn::Max
            };
            let l: Result<Vec<_>, _> = x
                .iter()
                .zip(y.iter())
                .map(|(a, b)| ops::math(m, &[*a, *b]))
                .collect();
            lanes_value(l?)
        }
        (VecFn::Clamp, [x, lo, hi]) => {
            let l: Result<Vec<_>, _> = x
                .iter()
                .zip(lo.iter().zip(hi.iter()))
                .map(|(v, (l, h))| {
                    ops::math(MathFn::Min, &[ops::math(MathFn::Max, &[*v, *l])?, *h])
                })
                .collect();
            lanes_value(l?)
        }
        _ => return super::geometry::vector_fn(f, a),
    })
}

/// `m * v`: columns scaled by the vector's lanes, summed in order (as the device does).
fn matrix_times_vector(m: &[Scalar], rows: usize, v: &[Scalar]) -> Result<Vec<Scalar>, OpError> {
    let mut acc: Option<Vec<Scalar>> = None;
    for (c, k) in v.iter().enumerate() {
        let column = m
            .get(c * rows..(c + 1) * rows)
            .ok_or(OpError::Unsupported)?;
        let term = zip(BinaryOp::Mul, column, &vec![*k; rows])?;
        acc = Some(match acc {
            None => term,
            Some(a) => zip(BinaryOp::Add, &a, &term)?,
        });
    }
    acc.ok_or(OpError::Unsupported)
}

/// Matrix products on column-major lanes (see [`crate::ir::BinaryOp`]).
fn matrix_mul(a: &Type, b: &Type, x: &[Scalar], y: &[Scalar]) -> Result<Vec<Scalar>, OpError> {
    match (a, b) {
        (Type::Matrix(_, r, _), Type::Vector(..)) => matrix_times_vector(x, usize::from(*r), y),
        (Type::Matrix(_, r, _), Type::Matrix(_, k, _)) => {
            let mut out = Vec::new();
            for column in y.chunks(usize::from(*k)) {
                out.extend(matrix_times_vector(x, usize::from(*r), column)?);
            }
            Ok(out)
        }
        (Type::Vector(_, n), Type::Matrix(..)) => y
            .chunks(usize::from(*n))
            .map(|column| dot(x, column))
            .collect(),
        (Type::Matrix(..), Type::Scalar(_)) => {
            let k = *y.first().ok_or(OpError::Unsupported)?;
            zip(BinaryOp::Mul, x, &vec![k; x.len()])
        }
        _ => Err(OpError::Unsupported),
    }
}

/// The lanes of the transpose of an R×C column-major matrix.
fn transpose(m: &[Scalar], rows: usize, cols: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(m.len());
    for r in 0..rows {
        for c in 0..cols {
            out.push(m[c * rows + r]);
        }
    }
    out
}

impl Interp<'_> {
    /// `-v`, `!mask`.
    pub(super) fn eval_vector_unary(
        &mut self,
        f: &mut Frame,
        op: UnaryOp,
        a: &Expr,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let x = self.eval_lanes(f, a)?;
        let r: Result<Vec<_>, _> = x.iter().map(|s| ops::unary(op, *s)).collect();
        r.map(lanes_value)
            .or_else(|o| op_error(o, e.span, "", || format!("{op:?} on {}", a.ty)))
    }

    /// Elementwise binary operators on two vectors of one type; integer division by zero in
    /// any lane is a runtime error, as for scalars in host code.
    pub(super) fn eval_vector_binary(
        &mut self,
        f: &mut Frame,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        e: &Expr,
    ) -> Result<Value, Fail> {
        if matches!(a.ty, Type::Matrix(..)) || matches!(b.ty, Type::Matrix(..)) {
            let x = self.eval_lanes(f, a)?;
            let y = match self.eval(f, b)? {
                Value::Scalar(k) => Rc::from(vec![k]),
                other => super::vector::lanes_of(&other, b.span)?,
            };
            return matrix_mul(&a.ty, &b.ty, &x, &y)
                .map(lanes_value)
                .or_else(|o| {
                    op_error(o, e.span, "", || format!("{op:?} on {} and {}", a.ty, b.ty))
                });
        }
        let x = self.eval_lanes(f, a)?;
        let y = self.eval_lanes(f, b)?;
        if x.len() != y.len() {
            return internal(e.span, format!("{op:?} on {} and {}", a.ty, b.ty));
        }
        let what = if op == BinaryOp::Rem {
            "remainder"
        } else {
            "division"
        };
        zip(op, &x, &y).map(lanes_value).or_else(|o| {
            op_error(o, e.span, what, || {
                format!("{op:?} on {} and {}", a.ty, b.ty)
            })
        })
    }
}

/// `Math`, `Bits`, bit-cast, precision-integer, vector and integer-dot intrinsic `op` of
/// call `e` on its operands' values `xs`, computed in order: what the interpreter runs after
/// evaluating them, and native code through a typed call (`host/native/intrinsic_calls.rs`).
pub(crate) fn intrinsic_values(op: Intrinsic, xs: Vec<Value>, e: &Expr) -> Result<Value, Fail> {
    let ExprKind::Intrinsic { args, .. } = &e.kind else {
        return internal(e.span, format!("{op:?} outside an intrinsic call"));
    };
    let message_at = |message: String| -> Fail {
        Box::new(super::HostError {
            message,
            span: Some(e.span),
            launch: None,
            notes: Vec::new(),
        })
    };
    match op {
        Intrinsic::Math(_) | Intrinsic::Bits(_) | Intrinsic::BitCast(_) => {
            super::math::lanewise(op, &xs).map_err(message_at)
        }
        Intrinsic::IntPrecision(p) => super::int_precision::eval(p, &xs).map_err(message_at),
        Intrinsic::Vector(v) => vector_fn_values(v, xs, args, e),
        Intrinsic::IntDot { .. } => int8_dot_values(xs, args, e),
        other => internal(e.span, format!("{other:?} has no value implementation")),
    }
}

/// The lanes of operand value `v` (of expression `a`): a scalar operand (refract's eta,
/// a dot's accumulator) is one lane.
fn operand_lanes(v: &Value, a: &Expr) -> Result<Rc<[Scalar]>, Fail> {
    match v {
        Value::Scalar(s) => Ok(Rc::from(vec![*s])),
        v => super::vector::lanes_of(v, a.span),
    }
}

/// Vector or matrix method `op` of call `e` on its operands' `values` (of `args`), computed
/// in order (both host executors run this; native code through a typed call).
fn vector_fn_values(op: VecFn, values: Vec<Value>, args: &[Expr], e: &Expr) -> Result<Value, Fail> {
    let mut lanes = Vec::with_capacity(args.len());
    for (v, a) in values.iter().zip(args) {
        lanes.push(operand_lanes(v, a)?);
    }
    if let (VecFn::Transpose, [m], [l]) = (op, args, &lanes[..]) {
        let Type::Matrix(_, r, c) = m.ty else {
            return internal(e.span, format!("transpose of {}", m.ty));
        };
        return Ok(lanes_value(transpose(l, usize::from(r), usize::from(c))));
    }
    if let Some(Type::Matrix(_, r, _)) = args.first().map(|a| &a.ty) {
        return super::geometry::matrix_fn(op, &lanes, usize::from(*r))
            .or_else(|o| op_error(o, e.span, "", || format!("{op:?} on {}", args[0].ty)));
    }
    vector_fn(op, &lanes)
        .or_else(|o| op_error(o, e.span, "", || format!("{op:?} on {}", args[0].ty)))
}

/// `a.dot(b [, acc])` on `Vector<int8|uint8, 4>` of call `e` on its operands' `values`.
fn int8_dot_values(values: Vec<Value>, args: &[Expr], e: &Expr) -> Result<Value, Fail> {
    let mut lanes = Vec::with_capacity(args.len());
    for (v, a) in values.iter().zip(args) {
        lanes.push(operand_lanes(v, a)?);
    }
    let result = e.ty.elem_scalar().unwrap_or(crate::ir::ScalarType::I32);
    super::geometry::int8_dot(&lanes, result)
        .map(Value::Scalar)
        .or_else(|o| op_error(o, e.span, "", || format!("integer dot on {}", args[0].ty)))
}
