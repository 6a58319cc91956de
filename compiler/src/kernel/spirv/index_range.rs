//! Checked mode's compile-time range folding: the values an integer index can take, when its
//! form bounds them whatever its operands are (`t & 15`, `i % 16`, `Math.clamp(i, 0, 15)`,
//! constants, sums and products of those). A shared-array access whose index is always below
//! the array's constant length needs no check. Anything unproven keeps its check.

use crate::ir::{BinaryOp, Constant, Expr, ExprKind, Intrinsic, MathFn, ScalarType};

/// The smallest and largest value of an integer type.
fn type_range(s: ScalarType) -> Option<(i128, i128)> {
    if !s.is_integer() {
        return None;
    }
    let bits = s.bits();
    Some(match s.is_signed_integer() {
        true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        false => (0, (1i128 << bits) - 1),
    })
}

/// The value of an integer constant of type `s` (its bits, sign-extended when signed).
fn constant(bits: u64, s: ScalarType) -> i128 {
    let width = s.bits();
    let v = if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    };
    if s.is_signed_integer() && (v >> (width - 1)) & 1 == 1 {
        i128::from(v) - (1i128 << width)
    } else {
        i128::from(v)
    }
}

/// The range `[lo, hi]` every value of the integer expression `e` lies in, when its form
/// bounds it; `None` when unknown. Each operation is exact in its type (no wrap-around):
/// a result that could leave the type's range gives `None`.
pub(crate) fn const_range(e: &Expr) -> Option<(i128, i128)> {
    let s = e.ty.as_scalar()?;
    let (tmin, tmax) = type_range(s)?;
    let fits = |(lo, hi): (i128, i128)| (tmin <= lo && hi <= tmax).then_some((lo, hi));
    let full = (tmin, tmax);
    let or_full = |x: &Expr| const_range(x).unwrap_or(full);
    match &e.kind {
        ExprKind::Const(Constant::Int(v)) => Some((constant(*v, s), constant(*v, s))),
        ExprKind::Convert(a) => fits(const_range(a)?),
        ExprKind::Binary(op, a, b) => {
            let (ra, rb) = (const_range(a), const_range(b));
            match op {
                BinaryOp::Add => fits((ra?.0 + rb?.0, ra?.1 + rb?.1)),
                BinaryOp::Sub => fits((ra?.0 - rb?.1, ra?.1 - rb?.0)),
                BinaryOp::Mul => {
                    let (ra, rb) = (ra?, rb?);
                    let p = [ra.0 * rb.0, ra.0 * rb.1, ra.1 * rb.0, ra.1 * rb.1];
                    fits((*p.iter().min()?, *p.iter().max()?))
                }
                // `a & m` with a non-negative `m` is within [0, m].
                BinaryOp::BitAnd => {
                    let mask = |r: Option<(i128, i128)>| r.filter(|r| r.0 >= 0).map(|r| r.1);
                    match (mask(ra), mask(rb)) {
                        (Some(x), Some(y)) => Some((0, x.min(y))),
                        (Some(m), None) | (None, Some(m)) => Some((0, m)),
                        (None, None) => None,
                    }
                }
                // A non-negative dividend and a positive divisor: within [0, divisor - 1].
                BinaryOp::Rem => {
                    let (ra, rb) = (ra.unwrap_or(full), rb?);
                    (ra.0 >= 0 && rb.0 >= 1).then_some((0, rb.1 - 1))
                }
                _ => None,
            }
        }
        ExprKind::Intrinsic {
            op: Intrinsic::Math(f),
            args,
        } => match (f, args.as_slice()) {
            (MathFn::Clamp, [a, lo, hi]) => {
                let (ra, rl, rh) = (or_full(a), const_range(lo)?, const_range(hi)?);
                // A clamp whose bounds may cross is undefined in GLSL: no range.
                if rl.1 > rh.0 {
                    return None;
                }
                Some((ra.0.clamp(rl.0, rh.0), ra.1.clamp(rl.1, rh.1)))
            }
            (MathFn::Min, [a, b]) => {
                let (ra, rb) = (or_full(a), or_full(b));
                Some((ra.0.min(rb.0), ra.1.min(rb.1)))
            }
            (MathFn::Max, [a, b]) => {
                let (ra, rb) = (or_full(a), or_full(b));
                Some((ra.0.max(rb.0), ra.1.max(rb.1)))
            }
            _ => None,
        },
        _ => None,
    }
    .filter(|r| r.0 <= r.1)
}

/// Whether every value `index` can take is within `[0, len)`.
pub(crate) fn always_below(index: &Expr, len: u32) -> bool {
    const_range(index).is_some_and(|(lo, hi)| lo >= 0 && hi < i128::from(len))
}
