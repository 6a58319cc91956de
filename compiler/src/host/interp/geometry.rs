//! GLSL's geometric vector functions (`reflect`, `refract`) and the 8-bit integer dot
//! product in host code. Each float step goes through the scalar operations of [`ops`] and
//! rounds in the operand's type, in the order GLSL.std.450 writes the formula, so host
//! results are the formula's, exactly (docs/language.md states the device's bounds).

use super::ops::{self, OpError};
use super::value::{Scalar, Value};
use crate::ir::{BinaryOp, MathFn, ScalarType, VecFn};
use std::rc::Rc;

fn bin(op: BinaryOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    ops::binary(op, a, b)
}

/// A float constant of `a`'s type.
fn konst(x: f64, a: Scalar) -> Result<Scalar, OpError> {
    Scalar::from_float(x, a.ty()).ok_or(OpError::Unsupported)
}

/// `((n0*i0 + n1*i1) + …)`, as `Vector.dot` sums.
fn dot(x: &[Scalar], y: &[Scalar]) -> Result<Scalar, OpError> {
    let mut sum: Option<Scalar> = None;
    for (a, b) in x.iter().zip(y) {
        let p = bin(BinaryOp::Mul, *a, *b)?;
        sum = Some(match sum {
            None => p,
            Some(s) => bin(BinaryOp::Add, s, p)?,
        });
    }
    sum.ok_or(OpError::Unsupported)
}

/// `i - (2 * dot(n, i)) * n`, lane by lane.
fn reflect(i: &[Scalar], n: &[Scalar]) -> Result<Vec<Scalar>, OpError> {
    let d = dot(n, i)?;
    let t = bin(BinaryOp::Mul, konst(2.0, d)?, d)?;
    i.iter()
        .zip(n)
        .map(|(a, b)| bin(BinaryOp::Sub, *a, bin(BinaryOp::Mul, t, *b)?))
        .collect()
}

/// `k = 1 - eta*eta*(1 - d*d)` with `d = dot(n, i)`; zero where `k < 0`, else
/// `eta*i - (eta*d + sqrt(k))*n`.
fn refract(i: &[Scalar], n: &[Scalar], eta: Scalar) -> Result<Vec<Scalar>, OpError> {
    let d = dot(n, i)?;
    let one = konst(1.0, d)?;
    let e2 = bin(BinaryOp::Mul, eta, eta)?;
    let dd = bin(BinaryOp::Sub, one, bin(BinaryOp::Mul, d, d)?)?;
    let k = bin(BinaryOp::Sub, one, bin(BinaryOp::Mul, e2, dd)?)?;
    if k.as_float().is_some_and(|k| k < 0.0) {
        return Ok(vec![konst(0.0, d)?; i.len()]);
    }
    let s = bin(
        BinaryOp::Add,
        bin(BinaryOp::Mul, eta, d)?,
        ops::math(MathFn::Sqrt, &[k])?,
    )?;
    i.iter()
        .zip(n)
        .map(|(a, b)| {
            bin(
                BinaryOp::Sub,
                bin(BinaryOp::Mul, eta, *a)?,
                bin(BinaryOp::Mul, s, *b)?,
            )
        })
        .collect()
}

/// The `Vector` methods of this file on evaluated lane slices (receiver first).
pub(super) fn vector_fn(f: VecFn, a: &[Rc<[Scalar]>]) -> Result<Value, OpError> {
    let lanes = |l: Vec<Scalar>| Value::Vector(Rc::from(l));
    match (f, a) {
        (VecFn::Reflect, [i, n]) => Ok(lanes(reflect(i, n)?)),
        (VecFn::Refract, [i, n, eta]) if eta.len() == 1 => Ok(lanes(refract(i, n, eta[0])?)),
        _ => Err(OpError::Unsupported),
    }
}

/// `a.dot(b [, acc])` on `Vector<int8|uint8, 4>`: the exact sum of the lane products as an
/// `int32` (`uint32` for uint8 lanes); with `acc`, `acc + dot` saturated to that range (as
/// `OpSDotAccSat` / `OpUDotAccSat`).
pub(super) fn int8_dot(a: &[Rc<[Scalar]>], result: ScalarType) -> Result<Scalar, OpError> {
    let ints = |l: &[Scalar]| -> Result<Vec<i128>, OpError> {
        l.iter()
            .map(|s| s.as_int().ok_or(OpError::Unsupported))
            .collect()
    };
    let (x, y) = match a {
        [x, y] | [x, y, _] => (ints(x)?, ints(y)?),
        _ => return Err(OpError::Unsupported),
    };
    let sum: i128 = x.iter().zip(&y).map(|(p, q)| p * q).sum();
    let Some(acc) = a.get(2) else {
        return Ok(Scalar::from_int_wrapping(sum, result));
    };
    let acc = ints(acc)?.first().copied().ok_or(OpError::Unsupported)?;
    let (lo, hi) = match result {
        ScalarType::U32 => (0, i128::from(u32::MAX)),
        _ => (i128::from(i32::MIN), i128::from(i32::MAX)),
    };
    Ok(Scalar::from_int_wrapping((acc + sum).clamp(lo, hi), result))
}

/// Element (row `r`, column `c`) of a column-major `n`×`n` matrix.
fn at(m: &[Scalar], n: usize, r: usize, c: usize) -> Scalar {
    m[c * n + r]
}

/// `m` without row `r` and column `c`, column-major.
fn minor(m: &[Scalar], n: usize, r: usize, c: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity((n - 1) * (n - 1));
    for cc in (0..n).filter(|&k| k != c) {
        for rr in (0..n).filter(|&k| k != r) {
            out.push(at(m, n, rr, cc));
        }
    }
    out
}

/// The determinant by cofactor expansion along row 0, left to right: `m00*det(M00) -
/// m01*det(M01) + …`, each product and sum rounded in the lane type.
fn determinant(m: &[Scalar], n: usize) -> Result<Scalar, OpError> {
    if n == 1 {
        return m.first().copied().ok_or(OpError::Unsupported);
    }
    let mut sum: Option<Scalar> = None;
    for c in 0..n {
        let term = bin(
            BinaryOp::Mul,
            at(m, n, 0, c),
            determinant(&minor(m, n, 0, c), n - 1)?,
        )?;
        sum = Some(match sum {
            None => term,
            Some(s) if c % 2 == 1 => bin(BinaryOp::Sub, s, term)?,
            Some(s) => bin(BinaryOp::Add, s, term)?,
        });
    }
    sum.ok_or(OpError::Unsupported)
}

/// The inverse: element (r, c) is the cofactor of (c, r) divided by the determinant (a
/// singular matrix gives infinities or NaN, as the division does).
fn inverse(m: &[Scalar], n: usize) -> Result<Vec<Scalar>, OpError> {
    let det = determinant(m, n)?;
    let mut out = Vec::with_capacity(n * n);
    for c in 0..n {
        for r in 0..n {
            let d = determinant(&minor(m, n, c, r), n - 1)?;
            let cof = if (r + c) % 2 == 1 {
                bin(BinaryOp::Sub, konst(0.0, d)?, d)?
            } else {
                d
            };
            out.push(bin(BinaryOp::Div, cof, det)?);
        }
    }
    Ok(out)
}

/// `m.determinant()`, `m.inverse()`, `a.hadamard(b)` on column-major lanes of an
/// `rows`-row matrix (square for the first two).
pub(super) fn matrix_fn(f: VecFn, a: &[Rc<[Scalar]>], rows: usize) -> Result<Value, OpError> {
    let lanes = |l: Vec<Scalar>| Value::Vector(Rc::from(l));
    match (f, a) {
        (VecFn::Determinant, [m]) => Ok(Value::Scalar(determinant(m, rows)?)),
        (VecFn::Inverse, [m]) => Ok(lanes(inverse(m, rows)?)),
        (VecFn::Hadamard, [x, y]) => Ok(lanes(
            x.iter()
                .zip(y.iter())
                .map(|(p, q)| bin(BinaryOp::Mul, *p, *q))
                .collect::<Result<_, _>>()?,
        )),
        _ => Err(OpError::Unsupported),
    }
}
