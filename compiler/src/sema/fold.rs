//! Constant folding of conversions, with exactly the run-time semantics of SPEC §3.

use super::literals::round_to_float;
use crate::ir::{Constant, ScalarType};

/// Sign-extends (signed types) or keeps (unsigned) the low `bits` of `v` as an i128.
fn int_value(bits: u64, ty: ScalarType) -> i128 {
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
}
