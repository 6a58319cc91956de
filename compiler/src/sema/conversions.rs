//! The conversion and operand-typing rules of SPEC §3 and §4, as pure functions.

use crate::ir::ScalarType;
use crate::syntax::ast::BinOp;

/// Whether `from` converts to `to` without a cast (SPEC §3): a wider integer of the same
/// signedness, an integer to a float whose significand holds every value, a float to a wider
/// float. Identity counts as implicit.
pub fn is_implicit(from: ScalarType, to: ScalarType) -> bool {
    if from == to {
        return true;
    }
    if let Some(b) = super::precision::implicit(from, to) {
        return b;
    }
    if from == ScalarType::Bool || to == ScalarType::Bool {
        return false;
    }
    if from.is_integer() && to.is_integer() {
        return from.is_signed_integer() == to.is_signed_integer() && to.bits() > from.bits();
    }
    if from.is_integer() && to.is_float() {
        // A signed type needs one bit less of significand than its width.
        let needed = if from.is_signed_integer() {
            from.bits() - 1
        } else {
            from.bits()
        };
        return to.mantissa_bits() > needed;
    }
    if from.is_float() && to.is_float() {
        // bfloat16 and float16 do not contain each other.
        return to.bits() > from.bits() && to.mantissa_bits() > from.mantissa_bits();
    }
    false
}

/// Whether an explicit cast `(to) e` is allowed.
pub fn is_castable(from: ScalarType, to: ScalarType) -> bool {
    (from == ScalarType::Bool) == (to == ScalarType::Bool)
}

fn with_width(signed: bool, bits: u32) -> ScalarType {
    match (signed, bits) {
        (true, 8) => ScalarType::I8,
        (true, 16) => ScalarType::I16,
        (true, 32) => ScalarType::I32,
        (true, _) => ScalarType::I64,
        (false, 8) => ScalarType::U8,
        (false, 16) => ScalarType::U16,
        (false, 32) => ScalarType::U32,
        (false, _) => ScalarType::U64,
    }
}

fn common_float(l: ScalarType, r: ScalarType) -> ScalarType {
    match (l.is_float(), r.is_float()) {
        (true, false) => l,
        (false, true) => r,
        _ if l == r => l,
        _ if is_implicit(l, r) => r,
        _ if is_implicit(r, l) => l,
        // float16 with bfloat16: neither holds the other; float32 holds both.
        _ => ScalarType::F32,
    }
}

/// The type both operands of a binary operator are converted to, or `None` when the
/// operator does not apply. Shifts are not handled here (their result is the left type).
///
/// Integers (SPEC §4): `+ - *` use the wider type, and unsigned when equal widths differ in
/// signedness; `/ %` and bitwise operators are unsigned when either side is; comparisons are
/// signed when either side is. An integer meeting a float becomes that float.
pub fn operand_type(op: BinOp, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
    use BinOp::*;
    let bools = l == ScalarType::Bool || r == ScalarType::Bool;
    if bools {
        let both = l == ScalarType::Bool && r == ScalarType::Bool;
        return (both && matches!(op, Eq | Ne | BitAnd | BitOr | BitXor | And | Or))
            .then_some(ScalarType::Bool);
    }
    if matches!(op, And | Or) {
        return None;
    }
    let any_float = l.is_float() || r.is_float();
    if any_float {
        if matches!(op, BitAnd | BitOr | BitXor | Shl | Shr | UShr) {
            return None;
        }
        return Some(common_float(l, r));
    }
    if let Some(t) = super::int_precision::operand_type(l, r) {
        return (!matches!(op, Shl | Shr | UShr | And | Or)).then_some(t);
    }
    let bits = l.bits().max(r.bits());
    let mixed = l.is_signed_integer() != r.is_signed_integer();
    Some(match op {
        Add | Sub | Mul => {
            if l.bits() != r.bits() {
                if l.bits() > r.bits() {
                    l
                } else {
                    r
                }
            } else if mixed {
                with_width(false, bits)
            } else {
                l
            }
        }
        Div | Rem | BitAnd | BitOr | BitXor => {
            with_width(l.is_signed_integer() && r.is_signed_integer(), bits)
        }
        Lt | Le | Gt | Ge | Eq | Ne => {
            with_width(l.is_signed_integer() || r.is_signed_integer(), bits)
        }
        Shl | Shr | UShr | And | Or => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn implicit_rules() {
        assert!(is_implicit(I8, I32));
        assert!(!is_implicit(I32, U32));
        assert!(!is_implicit(U8, I16));
        assert!(is_implicit(I16, F32));
        assert!(!is_implicit(I32, F32));
        assert!(is_implicit(I32, F64));
        assert!(is_implicit(F16, F32));
        assert!(!is_implicit(F16, BF16));
        assert!(!is_implicit(F32, I32));
    }

    #[test]
    fn operand_rules() {
        assert_eq!(operand_type(BinOp::Div, I32, U32), Some(U32));
        assert_eq!(operand_type(BinOp::Lt, I32, U32), Some(I32));
        assert_eq!(operand_type(BinOp::Add, I64, U32), Some(I64));
        assert_eq!(operand_type(BinOp::Mul, F32, I32), Some(F32));
        assert_eq!(operand_type(BinOp::BitAnd, F32, F32), None);
        assert_eq!(operand_type(BinOp::And, Bool, Bool), Some(Bool));
        assert_eq!(operand_type(BinOp::Add, Bool, I32), None);
    }
}
