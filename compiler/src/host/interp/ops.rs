//! Scalar arithmetic of host code, exactly as SPEC §3/§4 and the docs of
//! [`BinaryOp`] and [`crate::ir::ExprKind::Convert`] prescribe.
//!
//! Integers wrap at their width; signed `/` truncates toward zero and `%` takes the
//! dividend's sign (`MIN / -1 == MIN`, `MIN % -1 == 0`); division by zero is an error the
//! caller turns into a runtime error with the source position. Shift counts are taken modulo
//! the left operand's width. Floats follow IEEE 754 with one rounding per operation in the
//! operand's own precision: `float32` in `f32`, `float64` in `f64`, and `float16`/`bfloat16`
//! computed in `f32` then rounded, which is exact because `f32` has more than twice their
//! precision plus two bits (so the double rounding is innocuous for `+ - * /` and `sqrt`).

use super::value::Scalar;
use crate::ir::{BinaryOp, MathFn, ScalarType, UnaryOp};

/// Why an operation failed. Fieldless, so that `Result<Scalar, OpError>` is returned in
/// registers: these functions sit on the interpreter's hottest path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpError {
    /// Integer `/` or `%` by zero.
    DivisionByZero,
    /// Operand types the IR should never produce (a sema bug); the caller names them.
    Unsupported,
}

fn unsupported<T>() -> Result<T, OpError> {
    Err(OpError::Unsupported)
}

/// `2^k` as an `f64`, for `k` in the normal exponent range.
fn exp2i(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// Rounds `x` to nearest-even with a `p`-bit significand, exponents down to `emin`
/// (gradual underflow below) and up to `emax` (overflow to infinity above).
fn round_to_format(x: f64, p: i32, emin: i32, emax: i32) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let raw = ((x.to_bits() >> 52) & 0x7ff) as i32;
    let e = if raw == 0 { -1023 } else { raw - 1023 };
    // The quantum: the value of the last significand bit at this magnitude.
    let q = e.max(emin) - (p - 1);
    let y = (x * exp2i(-q)).round_ties_even() * exp2i(q);
    if y.abs() >= exp2i(emax + 1) {
        f64::INFINITY.copysign(x)
    } else {
        y
    }
}

/// Rounds to the nearest `float16` value (kept in an `f32`, where it is exact).
pub fn round_f16(x: f64) -> f32 {
    round_to_format(x, 11, -14, 15) as f32
}

/// Rounds to the nearest `bfloat16` value (kept in an `f32`, where it is exact).
pub fn round_bf16(x: f64) -> f32 {
    if x.is_nan() {
        return f32::NAN;
    }
    round_to_format(x, 8, -126, 127) as f32
}

/// The IEEE binary16 encoding of a value that is already a `float16` value.
pub fn f16_to_bits(x: f32) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = (x as f64).abs();
    if x.is_nan() {
        return 0x7e00;
    }
    if a.is_infinite() || a >= 65536.0 {
        return sign | 0x7c00;
    }
    if a < exp2i(-14) {
        // Subnormal (or zero): the significand counts units of 2^-24.
        return sign | (a * exp2i(24)).round_ties_even() as u16;
    }
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32) - 1023;
    let m = ((a * exp2i(-e) - 1.0) * 1024.0).round_ties_even() as u16;
    sign | ((((e + 15) as u16) << 10) + m)
}

/// The value of an IEEE binary16 encoding.
pub fn f16_from_bits(b: u16) -> f32 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let m = (b & 0x3ff) as f64;
    let v = match e {
        0 => m * exp2i(-24),
        0x1f if m == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        _ => (1.0 + m / 1024.0) * exp2i(e - 15),
    };
    (sign * v) as f32
}

/// The bfloat16 encoding (upper half of the `f32` bits) of a value that is already one.
pub fn bf16_to_bits(x: f32) -> u16 {
    (x.to_bits() >> 16) as u16
}

/// The value of a bfloat16 encoding.
pub fn bf16_from_bits(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Unary `-`, `!`, `~`.
pub fn unary(op: UnaryOp, v: Scalar) -> Result<Scalar, OpError> {
    use Scalar::*;
    Ok(match (op, v) {
        (UnaryOp::Not, Bool(b)) => Bool(!b),
        (UnaryOp::Neg, F16(x)) => F16(-x),
        (UnaryOp::Neg, BF16(x)) => BF16(-x),
        (UnaryOp::Neg, F32(x)) => F32(-x),
        (UnaryOp::Neg, F64(x)) => F64(-x),
        (UnaryOp::Neg | UnaryOp::BitNot, v) if v.ty().is_integer() => {
            let x = v.as_int().unwrap_or(0);
            let r = if op == UnaryOp::Neg { -x } else { !x };
            // Computing in i128 and truncating gives the wrapped result at any width.
            Scalar::from_int_wrapping(r, v.ty())
        }
        _ => return unsupported(),
    })
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $V:ident) => {{
        let (a, b) = ($a, $b);
        match $op {
            BinaryOp::Add => Scalar::$V(a.wrapping_add(b)),
            BinaryOp::Sub => Scalar::$V(a.wrapping_sub(b)),
            BinaryOp::Mul => Scalar::$V(a.wrapping_mul(b)),
            // wrapping_div/rem give MIN / -1 == MIN and MIN % -1 == 0, truncating division
            // and a remainder with the dividend's sign, as Java and OpSDiv/OpSRem.
            BinaryOp::Div if b == 0 => return Err(OpError::DivisionByZero),
            BinaryOp::Div => Scalar::$V(a.wrapping_div(b)),
            BinaryOp::Rem if b == 0 => return Err(OpError::DivisionByZero),
            BinaryOp::Rem => Scalar::$V(a.wrapping_rem(b)),
            BinaryOp::BitAnd => Scalar::$V(a & b),
            BinaryOp::BitOr => Scalar::$V(a | b),
            BinaryOp::BitXor => Scalar::$V(a ^ b),
            BinaryOp::Eq => Scalar::Bool(a == b),
            BinaryOp::Ne => Scalar::Bool(a != b),
            BinaryOp::Lt => Scalar::Bool(a < b),
            BinaryOp::Le => Scalar::Bool(a <= b),
            BinaryOp::Gt => Scalar::Bool(a > b),
            BinaryOp::Ge => Scalar::Bool(a >= b),
            BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UShr => return unsupported(),
        }
    }};
}

/// `$wrap` rounds the `f32` result back to the operand type (identity for `float32`).
macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, $V:ident, $wrap:expr) => {{
        let (a, b) = ($a, $b);
        let wrap = $wrap;
        match $op {
            BinaryOp::Add => Scalar::$V(wrap(a + b)),
            BinaryOp::Sub => Scalar::$V(wrap(a - b)),
            BinaryOp::Mul => Scalar::$V(wrap(a * b)),
            BinaryOp::Div => Scalar::$V(wrap(a / b)),
            // Rust's float `%` is C's fmod: truncated, dividend's sign, as Java's.
            BinaryOp::Rem => Scalar::$V(wrap(a % b)),
            // IEEE comparisons: every comparison with NaN is false except `!=`.
            BinaryOp::Eq => Scalar::Bool(a == b),
            BinaryOp::Ne => Scalar::Bool(a != b),
            BinaryOp::Lt => Scalar::Bool(a < b),
            BinaryOp::Le => Scalar::Bool(a <= b),
            BinaryOp::Gt => Scalar::Bool(a > b),
            BinaryOp::Ge => Scalar::Bool(a >= b),
            _ => return unsupported(),
        }
    }};
}

/// Shifts `v` by `count` (any integer), the count taken modulo `v`'s width.
fn shift(op: BinaryOp, v: Scalar, count: Scalar) -> Result<Scalar, OpError> {
    let Some(c) = count.as_int() else {
        return unsupported();
    };
    let n = (c as u32) & (v.ty().bits() - 1);
    macro_rules! sh {
        ($V:ident, $x:expr, $u:ty, $s:ty) => {
            Scalar::$V(match op {
                BinaryOp::Shl => $x << n,
                // `>>` on a signed Rust integer is arithmetic, on an unsigned one logical.
                BinaryOp::Shr => $x >> n,
                _ => (($x as $u) >> n) as $s,
            })
        };
    }
    Ok(match v {
        Scalar::I8(x) => sh!(I8, x, u8, i8),
        Scalar::I16(x) => sh!(I16, x, u16, i16),
        Scalar::I32(x) => sh!(I32, x, u32, i32),
        Scalar::I64(x) => sh!(I64, x, u64, i64),
        Scalar::U8(x) => sh!(U8, x, u8, u8),
        Scalar::U16(x) => sh!(U16, x, u16, u16),
        Scalar::U32(x) => sh!(U32, x, u32, u32),
        Scalar::U64(x) => sh!(U64, x, u64, u64),
        _ => return unsupported(),
    })
}

fn to_f16(x: f32) -> f32 {
    round_f16(x as f64)
}

fn to_bf16(x: f32) -> f32 {
    round_bf16(x as f64)
}

/// A binary operator on two scalars of the same type (shifts: any integer count).
pub fn binary(op: BinaryOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    use Scalar::*;
    if op.is_shift() {
        return shift(op, a, b);
    }
    Ok(match (a, b) {
        (I8(a), I8(b)) => int_binary!(op, a, b, I8),
        (I16(a), I16(b)) => int_binary!(op, a, b, I16),
        (I32(a), I32(b)) => int_binary!(op, a, b, I32),
        (I64(a), I64(b)) => int_binary!(op, a, b, I64),
        (U8(a), U8(b)) => int_binary!(op, a, b, U8),
        (U16(a), U16(b)) => int_binary!(op, a, b, U16),
        (U32(a), U32(b)) => int_binary!(op, a, b, U32),
        (U64(a), U64(b)) => int_binary!(op, a, b, U64),
        (F16(a), F16(b)) => float_binary!(op, a, b, F16, to_f16),
        (BF16(a), BF16(b)) => float_binary!(op, a, b, BF16, to_bf16),
        (F32(a), F32(b)) => float_binary!(op, a, b, F32, |x: f32| x),
        (F64(a), F64(b)) => float_binary!(op, a, b, F64, |x: f64| x),
        (Bool(a), Bool(b)) => match op {
            BinaryOp::BitAnd => Bool(a & b),
            BinaryOp::BitOr => Bool(a | b),
            BinaryOp::BitXor | BinaryOp::Ne => Bool(a ^ b),
            BinaryOp::Eq => Bool(a == b),
            _ => return unsupported(),
        },
        _ => return unsupported(),
    })
}

/// Numeric conversion (SPEC §3): float to int truncates toward zero and saturates with NaN
/// giving 0 (exactly Rust's `as`); int narrowing keeps the low bits; int to float and float
/// narrowing round to nearest-even, once.
pub fn convert(v: Scalar, to: ScalarType) -> Result<Scalar, OpError> {
    if v.ty() == to {
        return Ok(v);
    }
    if let Some(x) = v.as_int() {
        return Ok(match (v, to) {
            // One rounding, straight from the integer (through f64 would round twice for
            // 64-bit values); via i64/u64, which the hardware converts, not i128.
            (Scalar::U64(u), ScalarType::F32) => Scalar::F32(u as f32),
            (_, ScalarType::F32) => Scalar::F32(x as i64 as f32),
            (Scalar::U64(u), ScalarType::F64) => Scalar::F64(u as f64),
            (_, ScalarType::F64) => Scalar::F64(x as i64 as f64),
            _ => Scalar::from_int_wrapping(x, to),
        });
    }
    if let Some(x) = v.as_float() {
        return Ok(match to {
            ScalarType::I8 => Scalar::I8(x as i8),
            ScalarType::I16 => Scalar::I16(x as i16),
            ScalarType::I32 => Scalar::I32(x as i32),
            ScalarType::I64 => Scalar::I64(x as i64),
            ScalarType::U8 => Scalar::U8(x as u8),
            ScalarType::U16 => Scalar::U16(x as u16),
            ScalarType::U32 => Scalar::U32(x as u32),
            ScalarType::U64 => Scalar::U64(x as u64),
            ScalarType::Bool => return unsupported(),
            float => match Scalar::from_float(x, float) {
                Some(s) => s,
                None => return unsupported(),
            },
        });
    }
    unsupported()
}

/// A `Math.*` function in host code (see [`super::math`]).
pub fn math(f: MathFn, args: &[Scalar]) -> Result<Scalar, OpError> {
    super::math::math(f, args)
}
