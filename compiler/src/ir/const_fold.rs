//! Constant folding with exactly the run-time semantics of SPEC §3/§4: conversions (float to
//! integer truncates and saturates, NaN gives 0; integer narrowing keeps the low bits),
//! integer arithmetic wrapping at its width, shifts taking the count modulo the width, and
//! integer division by zero left unfolded (it is 0 in kernels and an error in host code).
//! The checker uses it for expressions made only of literals, device specialization for
//! conditions on folded device queries.

use super::{BinaryOp, Constant, Expr, ExprKind, ScalarType, Type, UnaryOp};

/// Sign-extends (signed types) or keeps (unsigned) the low `bits` of `v` as an i128: the
/// value an integer constant of type `ty` stands for.
pub fn int_value(bits: u64, ty: ScalarType) -> i128 {
    let w = ty.bits();
    if ty.is_signed_integer() {
        let shift = 64 - w;
        (((bits << shift) as i64) >> shift) as i128
    } else {
        bits as i128
    }
}

fn truncate(v: i128, ty: ScalarType) -> u64 {
    let w = ty.bits();
    let mask: u128 = if w == 64 {
        u64::MAX as u128
    } else {
        (1u128 << w) - 1
    };
    (v as u128 & mask) as u64
}

/// The float bounds a saturating float → integer conversion clamps with in a kernel (SPEC
/// §3), for the float type `from` and the integer type `to`: both kernel backends emit the
/// same clamp from them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SaturationBounds {
    /// The smallest value kept (-2^(N-1), or 0 unsigned; at least the float's lowest).
    pub lower: f64,
    /// The largest float below the first value past the range (the upper clamp).
    pub below_limit: f64,
    /// The first value past the range (2^(N-1) or 2^N), or infinity when `from` cannot hold it.
    pub threshold: f64,
    /// Whether `threshold` is a finite value of `from`.
    pub representable: bool,
}

/// The [`SaturationBounds`] of converting `from` to `to`.
pub fn saturation_bounds(from: ScalarType, to: ScalarType) -> SaturationBounds {
    let signed = to.is_signed_integer();
    let n = to.bits();
    let max_finite = match from {
        ScalarType::F16 => 65504.0,
        ScalarType::F32 => f64::from(f32::MAX),
        _ => f64::MAX,
    };
    // 2^(N-1) or 2^N: the first value above the range.
    let limit = 2f64.powi(if signed { n as i32 - 1 } else { n as i32 });
    let below_limit = (limit - limit / 2f64.powi(from.mantissa_bits() as i32)).min(max_finite);
    let (threshold, representable) = if limit <= max_finite {
        (limit, true)
    } else {
        (f64::INFINITY, false)
    };
    let lower = if signed {
        (-limit).max(-max_finite)
    } else {
        0.0
    };
    SaturationBounds {
        lower,
        below_limit,
        threshold,
        representable,
    }
}

/// Float to integer: truncate toward zero, saturate, NaN gives 0.
pub fn float_to_int(f: f64, ty: ScalarType) -> u64 {
    if f.is_nan() {
        return 0;
    }
    let w = ty.bits();
    let (min, max): (i128, i128) = if ty.is_signed_integer() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    let t = f.trunc();
    let v = if t <= min as f64 {
        min
    } else if t >= max as f64 {
        max
    } else {
        t as i128
    };
    truncate(v, ty)
}

/// Folds `(to) c` where `c` has type `from`; `None` when not foldable.
pub fn convert_constant(c: Constant, from: ScalarType, to: ScalarType) -> Option<Constant> {
    match c {
        Constant::Bool(_) => (to == ScalarType::Bool).then_some(c),
        Constant::Int(bits) if to.is_integer() => {
            Some(Constant::Int(truncate(int_value(bits, from), to)))
        }
        Constant::Int(bits) if to.is_float() => Some(Constant::Float(round_to_float(
            to,
            int_value(bits, from) as f64,
        ))),
        Constant::Float(f) if to.is_float() => Some(Constant::Float(round_to_float(to, f))),
        Constant::Float(f) if to.is_integer() => Some(Constant::Int(float_to_int(f, to))),
        _ => None,
    }
}

/// Rounds a value to the precision of a float type (round to nearest even).
pub fn round_to_float(ty: ScalarType, v: f64) -> f64 {
    match ty {
        ScalarType::F32 => v as f32 as f64,
        ScalarType::F16 => round_to_bits(v, 11, -14, 15),
        ScalarType::BF16 => round_to_bits(v as f32 as f64, 8, -126, 127),
        _ => v,
    }
}

/// Rounds to a binary format with `precision` significand bits and the given exponent range.
fn round_to_bits(v: f64, precision: i32, min_exp: i32, max_exp: i32) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    let exp = v.abs().log2().floor() as i32;
    // Subnormals keep the quantum of the smallest normal exponent.
    let e = exp.max(min_exp);
    let quantum = 2f64.powi(e - (precision - 1));
    let q = v / quantum;
    let r = q.round();
    let rounded = if (q - q.trunc()).abs() == 0.5 {
        // Ties to even.
        (q / 2.0).round() * 2.0
    } else {
        r
    } * quantum;
    let max = (2.0 - 2f64.powi(1 - precision)) * 2f64.powi(max_exp);
    if rounded.abs() > max {
        v.signum() * f64::INFINITY
    } else {
        rounded
    }
}

fn const_of(e: &Expr) -> Option<(Constant, ScalarType)> {
    match (&e.kind, &e.ty) {
        (ExprKind::Const(c), Type::Scalar(s)) => Some((*c, *s)),
        _ => None,
    }
}

/// Whether float `+ - * / %` and negation fold. The checker folds them in expressions made
/// only of literals (their value is then exact IEEE arithmetic, as in host code); device
/// specialization keeps them, so a kernel's float arithmetic is what its source says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatArith {
    /// Fold float arithmetic (rounded once per operation to the operand type).
    Fold,
    /// Leave float arithmetic to the backend (float comparisons still fold).
    Keep,
}

/// The folded form of one node whose operands are already folded, if it folds.
pub fn fold_node(e: &Expr, floats: FloatArith) -> Option<Expr> {
    let constant = |c: Constant| Some(Expr::constant(c, e.ty.clone(), e.span));
    match &e.kind {
        ExprKind::LogicalAnd(a, b) => match a.kind {
            ExprKind::Const(Constant::Bool(false)) => constant(Constant::Bool(false)),
            ExprKind::Const(Constant::Bool(true)) => Some((**b).clone()),
            _ => None,
        },
        ExprKind::LogicalOr(a, b) => match a.kind {
            ExprKind::Const(Constant::Bool(true)) => constant(Constant::Bool(true)),
            ExprKind::Const(Constant::Bool(false)) => Some((**b).clone()),
            _ => None,
        },
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => match cond.kind {
            ExprKind::Const(Constant::Bool(c)) => {
                Some(if c { &**then } else { &**otherwise }.clone())
            }
            _ => None,
        },
        ExprKind::Convert(a) => {
            let (c, from) = const_of(a)?;
            let to = e.ty.as_scalar()?;
            constant(convert_constant(c, from, to)?)
        }
        ExprKind::Unary(op, a) => {
            let (c, s) = const_of(a)?;
            match (op, c) {
                (UnaryOp::Not, Constant::Bool(b)) => constant(Constant::Bool(!b)),
                (UnaryOp::Neg, Constant::Int(v)) if s.is_integer() => {
                    constant(Constant::Int(wrap(0u64.wrapping_sub(v), s)))
                }
                (UnaryOp::BitNot, Constant::Int(v)) if s.is_integer() => {
                    constant(Constant::Int(wrap(!v, s)))
                }
                (UnaryOp::Neg, Constant::Float(f)) if floats == FloatArith::Fold => {
                    constant(Constant::Float(-f))
                }
                _ => None,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let ((x, s), (y, _)) = (const_of(a)?, const_of(b)?);
            constant(binary(*op, x, y, s, floats)?)
        }
        _ => None,
    }
}

/// Keeps the low `s.bits()` bits.
fn wrap(v: u64, s: ScalarType) -> u64 {
    match s.bits() {
        64 => v,
        w => v & ((1u64 << w) - 1),
    }
}

fn binary(
    op: BinaryOp,
    x: Constant,
    y: Constant,
    s: ScalarType,
    floats: FloatArith,
) -> Option<Constant> {
    use BinaryOp::*;
    use Constant::{Bool, Float, Int};
    Some(match (x, y) {
        (Bool(a), Bool(b)) => Bool(match op {
            Eq => a == b,
            Ne => a != b,
            BitAnd => a & b,
            BitOr => a | b,
            BitXor => a ^ b,
            _ => return None,
        }),
        (Float(a), Float(b)) if op.is_comparison() => Bool(match op {
            Eq => a == b,
            Ne => a != b,
            Lt => a < b,
            Le => a <= b,
            Gt => a > b,
            _ => a >= b,
        }),
        // Exact in f64, then rounded once to the operand type: the result of one correctly
        // rounded operation in float32, float16 or bfloat16 (f64 has more than twice their
        // precision plus two bits, so the double rounding is harmless).
        (Float(a), Float(b)) if floats == FloatArith::Fold => Float(round_to_float(
            s,
            match op {
                Add => a + b,
                Sub => a - b,
                Mul => a * b,
                Div => a / b,
                Rem => a % b,
                _ => return None,
            },
        )),
        (Int(a), Int(b)) if s.is_integer() => {
            let (wa, wb) = (int_value(a, s), int_value(b, s));
            if op.is_comparison() {
                return Some(Bool(match op {
                    Eq => wa == wb,
                    Ne => wa != wb,
                    Lt => wa < wb,
                    Le => wa <= wb,
                    Gt => wa > wb,
                    _ => wa >= wb,
                }));
            }
            let width = s.bits() as u64;
            Int(wrap(
                match op {
                    Add => a.wrapping_add(b),
                    Sub => a.wrapping_sub(b),
                    Mul => a.wrapping_mul(b),
                    BitAnd => a & b,
                    BitOr => a | b,
                    BitXor => a ^ b,
                    // Division by zero yields 0 in kernels; leave that to the backend.
                    Div if wb != 0 => (wa / wb) as u64,
                    Rem if wb != 0 => (wa % wb) as u64,
                    Shl => a << (b % width),
                    Shr if s.is_signed_integer() => (wa >> (b % width)) as u64,
                    Shr | UShr => wrap(a, s) >> (b % width),
                    _ => return None,
                },
                s,
            ))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn conversions() {
        assert_eq!(
            convert_constant(Constant::Int(0xFFFF_FFFF), I32, I64),
            Some(Constant::Int(u64::MAX))
        );
        assert_eq!(
            convert_constant(Constant::Int(0xFFFF_FFFF), U32, I64),
            Some(Constant::Int(0xFFFF_FFFF))
        );
        assert_eq!(
            convert_constant(Constant::Int(300), I32, U8),
            Some(Constant::Int(44))
        );
        assert_eq!(
            convert_constant(Constant::Float(f64::NAN), F32, I32),
            Some(Constant::Int(0))
        );
        assert_eq!(
            convert_constant(Constant::Float(3e10), F32, I32),
            Some(Constant::Int(0x7FFF_FFFF))
        );
        assert_eq!(
            convert_constant(Constant::Float(-1.5), F32, U32),
            Some(Constant::Int(0))
        );
        assert_eq!(
            convert_constant(Constant::Float(-1.5), F32, I32),
            Some(Constant::Int(0xFFFF_FFFF))
        );
    }

    #[test]
    fn integer_folding_wraps_and_respects_signedness() {
        assert_eq!(
            binary(
                BinaryOp::Add,
                Constant::Int(0xFFFF_FFFF),
                Constant::Int(1),
                U32,
                FloatArith::Keep
            ),
            Some(Constant::Int(0))
        );
        assert_eq!(
            binary(
                BinaryOp::Lt,
                Constant::Int(0xFFFF_FFFF),
                Constant::Int(1),
                I32,
                FloatArith::Keep
            ),
            Some(Constant::Bool(true))
        );
        assert_eq!(
            binary(
                BinaryOp::Lt,
                Constant::Int(0xFFFF_FFFF),
                Constant::Int(1),
                U32,
                FloatArith::Keep
            ),
            Some(Constant::Bool(false))
        );
        assert_eq!(
            binary(
                BinaryOp::Shr,
                Constant::Int(0xFFFF_FFF0),
                Constant::Int(36),
                I32,
                FloatArith::Keep
            ),
            Some(Constant::Int(0xFFFF_FFFF))
        );
        assert_eq!(
            binary(
                BinaryOp::Div,
                Constant::Int(0xFFFF_FFF9),
                Constant::Int(2),
                I32,
                FloatArith::Keep
            ),
            Some(Constant::Int(0xFFFF_FFFD))
        );
        assert_eq!(
            binary(
                BinaryOp::Div,
                Constant::Int(1),
                Constant::Int(0),
                I32,
                FloatArith::Keep
            ),
            None
        );
        assert_eq!(
            binary(
                BinaryOp::Ne,
                Constant::Float(f64::NAN),
                Constant::Float(1.0),
                F32,
                FloatArith::Keep
            ),
            Some(Constant::Bool(true))
        );
        assert_eq!(
            binary(
                BinaryOp::Add,
                Constant::Float(1.0),
                Constant::Float(1.0),
                F32,
                FloatArith::Keep
            ),
            None
        );
    }

    #[test]
    fn float_arithmetic_folds_only_when_asked() {
        let third = binary(
            BinaryOp::Div,
            Constant::Float(1.0),
            Constant::Float(3.0),
            F32,
            FloatArith::Fold,
        );
        assert_eq!(third, Some(Constant::Float((1.0f32 / 3.0f32) as f64)));
        assert_eq!(
            binary(
                BinaryOp::Div,
                Constant::Float(1.0),
                Constant::Float(3.0),
                F32,
                FloatArith::Keep
            ),
            None
        );
        assert_eq!(
            binary(
                BinaryOp::Rem,
                Constant::Float(-7.5),
                Constant::Float(2.0),
                F64,
                FloatArith::Fold
            ),
            Some(Constant::Float(-1.5))
        );
    }
}
