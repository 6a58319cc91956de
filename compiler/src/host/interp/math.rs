//! `Math.*` and `Bits.*` in host code.
//!
//! Exact functions (`floor`, `abs`, `min`, …) are exact here as on the device. Composite
//! ones (`mix`, `smoothstep`, `step`, `clamp`, `fract`) are evaluated operation by operation
//! in the operand's precision, following the GLSL.std.450 formula the device inherits its
//! precision from. Transcendentals of `float32` are computed in `f64` and rounded once to
//! `f32`; `float16`/`bfloat16` likewise through `f64`. `fma` is fused (one rounding).

use std::rc::Rc;

use super::ops::OpError;
use super::ops::{bf16_from_bits, bf16_to_bits, f16_from_bits, f16_to_bits};
use super::value::{Scalar, Value};
use crate::ir::{BitCast, BitsFn, Intrinsic, MathFn, ScalarType};

fn unsupported<T>() -> Result<T, OpError> {
    Err(OpError::Unsupported)
}

/// Java's `Math.min`: NaN if either operand is NaN, and -0.0 < +0.0.
pub(super) fn java_min(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        if x.is_sign_negative() {
            x
        } else {
            y
        }
    } else {
        x.min(y)
    }
}

/// Java's `Math.max`.
pub(super) fn java_max(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        if x.is_sign_negative() {
            y
        } else {
            x
        }
    } else {
        x.max(y)
    }
}

/// Defines one C-ABI function per `Math` function that is a single libm function of a
/// `float64` (`f64::sin` and kin call the C library's), and the table of them.
macro_rules! libm_functions {
    ($($name:ident: $f:ident => $method:ident;)*) => {
        $(
            #[doc = concat!("`Math.", stringify!($method), "` of a `float64`.")]
            pub extern "C" fn $name(x: f64) -> f64 {
                x.$method()
            }
        )*

        /// The one-operand functions above: each `Math` function, its symbol and address.
        pub const LIBM_UNARY: &[(MathFn, &str, extern "C" fn(f64) -> f64)] = &[
            $((MathFn::$f, stringify!($name), $name),)*
        ];
    };
}

// The interpreter's `float_fn` calls these, and native code calls the same functions
// directly (host/native/scalar_fns.rs), so both executors compute each transcendental with
// one piece of code; a `float32` operand is widened exactly first and the result rounded
// once, in both.
libm_functions! {
    cajeta_math_sin: Sin => sin;
    cajeta_math_cos: Cos => cos;
    cajeta_math_tan: Tan => tan;
    cajeta_math_asin: Asin => asin;
    cajeta_math_acos: Acos => acos;
    cajeta_math_atan: Atan => atan;
    cajeta_math_sinh: Sinh => sinh;
    cajeta_math_cosh: Cosh => cosh;
    cajeta_math_tanh: Tanh => tanh;
    cajeta_math_exp: Exp => exp;
    cajeta_math_exp2: Exp2 => exp2;
    cajeta_math_log: Log => ln;
    cajeta_math_log2: Log2 => log2;
    cajeta_math_log10: Log10 => log10;
}

/// `Math.atan2(y, x)` of `float64`s.
pub extern "C" fn cajeta_math_atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// `Math.pow(x, y)` of `float64`s.
pub extern "C" fn cajeta_math_pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// The two-operand functions, as [`LIBM_UNARY`].
pub const LIBM_BINARY: &[(MathFn, &str, extern "C" fn(f64, f64) -> f64)] = &[
    (MathFn::Atan2, "cajeta_math_atan2", cajeta_math_atan2),
    (MathFn::Pow, "cajeta_math_pow", cajeta_math_pow),
];

/// A float function evaluated with `round` applied after every elementary operation, so
/// that formulas match a device evaluating them in the operand's precision.
fn float_fn(f: MathFn, a: &[f64], round: &dyn Fn(f64) -> f64) -> f64 {
    let x = a[0];
    let y = a.get(1).copied().unwrap_or(0.0);
    let z = a.get(2).copied().unwrap_or(0.0);
    let r = round;
    match f {
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => 1.0 / x.sqrt(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Trunc => x.trunc(),
        MathFn::Round => x.round_ties_even(),
        MathFn::Fract => r(x - x.floor()),
        MathFn::Abs => x.abs(),
        MathFn::Sign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        }
        MathFn::Min => java_min(x, y),
        MathFn::Max => java_max(x, y),
        MathFn::Clamp => java_min(java_max(x, y), z),
        // x * (1 - a) + y * a, each step rounded.
        MathFn::Mix => r(r(x * r(1.0 - z)) + r(y * z)),
        MathFn::Step => {
            if y < x {
                0.0
            } else {
                1.0
            }
        }
        MathFn::Smoothstep => {
            let t = r(r(z - x) / r(y - x));
            let t = t.clamp(0.0, 1.0);
            r(r(t * t) * r(3.0 - r(2.0 * t)))
        }
        MathFn::Fma => x.mul_add(y, z),
        MathFn::Sin => cajeta_math_sin(x),
        MathFn::Cos => cajeta_math_cos(x),
        MathFn::Tan => cajeta_math_tan(x),
        MathFn::Asin => cajeta_math_asin(x),
        MathFn::Acos => cajeta_math_acos(x),
        MathFn::Atan => cajeta_math_atan(x),
        MathFn::Atan2 => cajeta_math_atan2(x, y),
        MathFn::Sinh => cajeta_math_sinh(x),
        MathFn::Cosh => cajeta_math_cosh(x),
        MathFn::Tanh => cajeta_math_tanh(x),
        MathFn::Exp => cajeta_math_exp(x),
        MathFn::Exp2 => cajeta_math_exp2(x),
        MathFn::Log => cajeta_math_log(x),
        MathFn::Log2 => cajeta_math_log2(x),
        // Computed in f64 and rounded once to the operand's type, as the other
        // transcendentals: log10 of an exact power of ten is exact.
        MathFn::Log10 => cajeta_math_log10(x),
        MathFn::Pow => cajeta_math_pow(x, y),
        // Boolean results are handled by the caller.
        MathFn::IsNan | MathFn::IsInf => f64::NAN,
    }
}

/// Float `Math` function `f` (not `isnan`/`isinf`) of operands of float type `ty`, given
/// exactly widened (unused ones 0), as a `float64` holding the result of type `ty`. The
/// one implementation both host executors use: the interpreter through [`math`], native
/// code through its typed `cajeta_math_float` call, so they cannot round differently.
pub fn float_math(f: MathFn, ty: ScalarType, xs: [f64; 3]) -> f64 {
    if ty == ScalarType::F32 {
        // Correctly rounded in f32 directly (f64 then f32 could round twice).
        let (x, y, z) = (xs[0] as f32, xs[1] as f32, xs[2] as f32);
        match f {
            MathFn::Sqrt => return f64::from(x.sqrt()),
            MathFn::Fma => return f64::from(x.mul_add(y, z)),
            _ => {}
        }
    }
    let round = |v: f64| -> f64 {
        Scalar::from_float(v, ty)
            .and_then(Scalar::as_float)
            .unwrap_or(v)
    };
    round(float_fn(f, &xs, &round))
}

/// A `Math.*` function in host code; all operands have one type (sema's rule).
pub fn math(f: MathFn, args: &[Scalar]) -> Result<Scalar, OpError> {
    if args.len() != f.arity() || args.iter().any(|a| a.ty() != args[0].ty()) {
        return unsupported();
    }
    let ty = args[0].ty();
    if ty.is_float() {
        let mut xs = [0.0; 3];
        for (x, a) in xs.iter_mut().zip(args) {
            *x = a.as_float().unwrap_or(0.0);
        }
        match f {
            MathFn::IsNan => return Ok(Scalar::Bool(xs[0].is_nan())),
            MathFn::IsInf => return Ok(Scalar::Bool(xs[0].is_infinite())),
            _ => {}
        }
        let r = float_math(f, ty, xs);
        return Scalar::from_float(r, ty).ok_or(OpError::Unsupported);
    }
    if ty.is_integer() {
        let xs: Vec<i128> = args.iter().filter_map(|a| a.as_int()).collect();
        let r = match f {
            // abs(MIN) wraps to MIN, as the IR documents.
            MathFn::Abs => xs[0].abs(),
            MathFn::Sign => xs[0].signum(),
            MathFn::Min => xs[0].min(xs[1]),
            MathFn::Max => xs[0].max(xs[1]),
            MathFn::Clamp => xs[0].max(xs[1]).min(xs[2]),
            _ => return unsupported(),
        };
        return Ok(Scalar::from_int_wrapping(r, ty));
    }
    unsupported()
}

/// The bits of an integer scalar, zero-extended, with its width.
fn raw(s: Scalar) -> Option<(u64, u32)> {
    let ty = s.ty();
    if !ty.is_integer() {
        return None;
    }
    let w = ty.bits();
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    Some(((s.as_int()? as u64) & mask, w))
}

fn int_arg(s: Scalar) -> Result<i128, OpError> {
    s.as_int().ok_or(OpError::Unsupported)
}

/// A `Bits.*` function in host code. `extract`/`insert` with a field outside the value
/// (undefined on the device) are an error.
pub fn bits(f: BitsFn, args: &[Scalar]) -> Result<Scalar, OpError> {
    let Some(&first) = args.first() else {
        return unsupported();
    };
    let ty = first.ty();
    let (x, w) = raw(first).ok_or(OpError::Unsupported)?;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let same = |v: u64| Scalar::from_int_wrapping(v as i128, ty);
    let i32s = |v: i64| Scalar::I32(v as i32);
    let want = match f {
        BitsFn::Count | BitsFn::Reverse | BitsFn::FindLsb | BitsFn::FindMsb => 1,
        BitsFn::RotateLeft | BitsFn::RotateRight => 2,
        BitsFn::Extract => 3,
        BitsFn::Insert => 4,
    };
    if args.len() != want {
        return unsupported();
    }
    let field = |off: i128, count: i128| -> Result<(u32, u32), OpError> {
        if off < 0 || count < 0 || off + count > w as i128 {
            return unsupported();
        }
        Ok((off as u32, count as u32))
    };
    let field_mask = |count: u32| {
        if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        }
    };
    Ok(match f {
        BitsFn::Count => same(x.count_ones() as u64),
        BitsFn::Reverse => same(x.reverse_bits() >> (64 - w)),
        BitsFn::FindLsb => i32s(if x == 0 {
            -1
        } else {
            x.trailing_zeros() as i64
        }),
        BitsFn::FindMsb => {
            let v = if ty.is_signed_integer() && (x >> (w - 1)) & 1 == 1 {
                !x & mask
            } else {
                x
            };
            i32s(if v == 0 {
                -1
            } else {
                63 - v.leading_zeros() as i64
            })
        }
        BitsFn::RotateLeft | BitsFn::RotateRight => {
            let n = int_arg(args[1])?.rem_euclid(w as i128) as u32;
            let n = if f == BitsFn::RotateRight {
                (w - n) % w
            } else {
                n
            };
            if n == 0 {
                same(x)
            } else {
                same(((x << n) | (x >> (w - n))) & mask)
            }
        }
        BitsFn::Extract => {
            let (off, count) = field(int_arg(args[1])?, int_arg(args[2])?)?;
            if count == 0 {
                return Ok(same(0));
            }
            let v = (x >> off) & field_mask(count);
            if ty.is_signed_integer() && (v >> (count - 1)) & 1 == 1 {
                same((v | !field_mask(count)) & mask)
            } else {
                same(v)
            }
        }
        BitsFn::Insert => {
            let (ins, _) = raw(args[1]).ok_or(OpError::Unsupported)?;
            let (off, count) = field(int_arg(args[2])?, int_arg(args[3])?)?;
            if count == 0 {
                return Ok(same(x));
            }
            let m = field_mask(count) << off;
            same((x & !m) | ((ins << off) & m))
        }
    })
}

/// A `Math.*` or `Bits.*` call on scalar arguments (what native host code calls for the
/// functions it does not inline). The error names the problem.
pub fn scalar_fn(op: Intrinsic, xs: &[Scalar]) -> Result<Scalar, String> {
    match op {
        Intrinsic::Math(f) => math(f, xs).map_err(|_| format!("Math.{} on {xs:?}", f.name())),
        Intrinsic::Bits(b) => bits(b, xs).map_err(|_| {
            format!(
                "Bits.{} on {xs:?}: the bit field lies outside the value",
                b.name()
            )
        }),
        Intrinsic::BitCast(c) => match xs {
            [x] => bit_cast(c, *x).ok_or_else(|| format!("bit cast {c:?} of {x:?}")),
            _ => Err("a bit cast takes one operand".into()),
        },
        _ => Err(format!("{op:?} is not a Math or Bits function")),
    }
}

/// A float's encoding as the integer of its width, or an integer's bits as a float. A
/// `float16` NaN's raw encoding here is always `0x7e00` (host values keep no NaN payload).
fn bit_cast(c: BitCast, x: Scalar) -> Option<Scalar> {
    use Scalar::*;
    if let BitCast::ToFloat(to) = c {
        return Some(match (to, x) {
            (ScalarType::F32, I32(b)) => F32(f32::from_bits(b as u32)),
            (ScalarType::F64, I64(b)) => F64(f64::from_bits(b as u64)),
            (ScalarType::F16, I16(b)) => F16(f16_from_bits(b as u16)),
            (ScalarType::BF16, I16(b)) => BF16(bf16_from_bits(b as u16)),
            _ => return None,
        });
    }
    let (from, bits) = match x {
        F32(v) => (ScalarType::F32, u64::from(v.to_bits())),
        F64(v) => (ScalarType::F64, v.to_bits()),
        F16(v) => (ScalarType::F16, u64::from(f16_to_bits(v))),
        BF16(v) => (ScalarType::BF16, u64::from(bf16_to_bits(v))),
        _ => return None,
    };
    let nan = x.as_float().is_some_and(f64::is_nan);
    let bits = if nan && c == BitCast::ToBitsCanonical {
        BitCast::canonical_nan(from)
    } else {
        bits
    };
    Some(match from {
        ScalarType::F64 => I64(bits as i64),
        ScalarType::F32 => I32(bits as u32 as i32),
        _ => I16(bits as u16 as i16),
    })
}

/// A `Math.*` or `Bits.*` call on evaluated arguments: scalars, or vectors lane by lane
/// (scalar arguments, such as a rotation count, apply to every lane). The error names the
/// problem.
pub fn lanewise(op: Intrinsic, args: &[Value]) -> Result<Value, String> {
    let one = |xs: &[Scalar]| scalar_fn(op, xs);
    let lanes = args.iter().find_map(|a| match a {
        Value::Vector(l) => Some(l.len()),
        _ => None,
    });
    let lane = |a: &Value, i: usize| -> Result<Scalar, String> {
        match a {
            Value::Scalar(s) => Ok(*s),
            Value::Vector(l) => l
                .get(i)
                .copied()
                .ok_or_else(|| "vector lengths differ".into()),
            other => Err(format!("{other:?} is not a number")),
        }
    };
    match lanes {
        None => {
            let xs = (0..args.len())
                .map(|k| lane(&args[k], 0))
                .collect::<Result<Vec<_>, _>>()?;
            one(&xs).map(Value::Scalar)
        }
        Some(n) => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let xs = args
                    .iter()
                    .map(|a| lane(a, i))
                    .collect::<Result<Vec<_>, _>>()?;
                out.push(one(&xs)?);
            }
            Ok(Value::Vector(Rc::from(out)))
        }
    }
}

/// Whether a scalar type is one `Bits.*` accepts on the device (32-bit integers).
pub fn bits_type(s: ScalarType) -> bool {
    matches!(s, ScalarType::I32 | ScalarType::U32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_match_their_definitions() {
        let b = |f, a: &[Scalar]| bits(f, a).unwrap();
        assert_eq!(b(BitsFn::Count, &[Scalar::I32(-1)]), Scalar::I32(32));
        assert_eq!(b(BitsFn::Count, &[Scalar::U32(u32::MAX)]), Scalar::U32(32));
        assert_eq!(
            b(BitsFn::Reverse, &[Scalar::U32(1)]),
            Scalar::U32(0x8000_0000)
        );
        assert_eq!(b(BitsFn::FindLsb, &[Scalar::U32(0)]), Scalar::I32(-1));
        assert_eq!(b(BitsFn::FindLsb, &[Scalar::U32(8)]), Scalar::I32(3));
        assert_eq!(b(BitsFn::FindMsb, &[Scalar::I32(-1)]), Scalar::I32(-1));
        assert_eq!(b(BitsFn::FindMsb, &[Scalar::I32(-2)]), Scalar::I32(0));
        assert_eq!(
            b(BitsFn::FindMsb, &[Scalar::U32(0x8000_0001)]),
            Scalar::I32(31)
        );
        assert_eq!(
            b(
                BitsFn::RotateLeft,
                &[Scalar::U32(0x8000_0001), Scalar::I32(1)]
            ),
            Scalar::U32(3)
        );
        assert_eq!(
            b(BitsFn::RotateRight, &[Scalar::U32(3), Scalar::I32(33)]),
            Scalar::U32(0x8000_0001)
        );
        assert_eq!(
            b(
                BitsFn::Extract,
                &[Scalar::I32(0xF0), Scalar::I32(4), Scalar::I32(4)]
            ),
            Scalar::I32(-1)
        );
        assert_eq!(
            b(
                BitsFn::Extract,
                &[Scalar::U32(0xF0), Scalar::I32(4), Scalar::I32(4)]
            ),
            Scalar::U32(15)
        );
        assert_eq!(
            b(
                BitsFn::Insert,
                &[
                    Scalar::U32(0),
                    Scalar::U32(0xFF),
                    Scalar::I32(8),
                    Scalar::I32(4)
                ]
            ),
            Scalar::U32(0xF00)
        );
        assert!(bits(
            BitsFn::Extract,
            &[Scalar::U32(1), Scalar::I32(30), Scalar::I32(4)]
        )
        .is_err());
    }

    #[test]
    fn math_formulas() {
        let m = |f, a: &[Scalar]| math(f, a).unwrap();
        let f = Scalar::F32;
        assert_eq!(m(MathFn::Round, &[f(2.5)]), f(2.0));
        assert_eq!(m(MathFn::Round, &[f(-3.5)]), f(-4.0));
        assert_eq!(m(MathFn::Fract, &[f(-1.25)]), f(0.75));
        assert_eq!(m(MathFn::Sign, &[Scalar::I32(-7)]), Scalar::I32(-1));
        assert_eq!(m(MathFn::Step, &[f(1.0), f(0.5)]), f(0.0));
        assert_eq!(m(MathFn::Mix, &[f(2.0), f(4.0), f(0.25)]), f(2.5));
        assert_eq!(m(MathFn::Smoothstep, &[f(0.0), f(1.0), f(0.5)]), f(0.5));
        assert_eq!(
            m(
                MathFn::Clamp,
                &[Scalar::U32(9), Scalar::U32(1), Scalar::U32(5)]
            ),
            Scalar::U32(5)
        );
        assert_eq!(m(MathFn::IsNan, &[f(f32::NAN)]), Scalar::Bool(true));
        assert_eq!(m(MathFn::IsInf, &[f(1.0)]), Scalar::Bool(false));
        assert_eq!(m(MathFn::Exp2, &[f(10.0)]), f(1024.0));
        assert!(math(MathFn::Sin, &[Scalar::I32(1)]).is_err());
    }
}
