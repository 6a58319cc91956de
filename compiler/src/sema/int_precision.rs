//! Typing rules of the integer precision families of SPEC §8 (`sint8`, `aint8`, `sint16`,
//! `aint16`, `lint16`). Like the float families they stay symbolic in sema; what each is on a
//! device is decided per target by `specialize::int_precision`.
//!
//! - reading an element of a `KernelBuffer<sint8>` yields `aint8`, of a `KernelBuffer<sint16>`
//!   or `Shared<lint16>` yields `aint16` (lane count kept);
//! - storage ↔ arithmetic of one family convert implicitly (`sint8` ↔ `aint8`,
//!   `sint16`/`lint16` ↔ `aint16`), so `buf[i] = v` converts back;
//! - widening is implicit: `int8` → `aint8`, `int8`/`int16`/`aint8` → `aint16`, and
//!   `aint8`/`aint16` → `int32`/`int64`; narrowing (`int32` → `aint8`) needs a cast, which
//!   keeps the low bits;
//! - `Vector<sint8, N>` exists only with N = 4 (one `int32` word holds the four lanes).

use crate::ir::ScalarType;

use ScalarType::{Aint16, Aint8, Lint16, Sint16, Sint8, I16, I32, I64, I8};

/// Whether `from` converts implicitly to `to` when either is an integer precision type;
/// `None` when neither is one.
pub fn implicit(from: ScalarType, to: ScalarType) -> Option<bool> {
    if !from.is_int_precision() && !to.is_int_precision() {
        return None;
    }
    if from == to {
        return Some(true);
    }
    Some(matches!(
        (from, to),
        (Sint8, Aint8)
            | (Aint8, Sint8)
            | (Sint16 | Lint16, Aint16)
            | (Aint16, Sint16 | Lint16)
            // The raw storage form and the local form hold the same bits (ncnn stages
            // `i16buffer_sm4` results straight into `lint16vec4` shared memory).
            | (Sint16, Lint16)
            | (Lint16, Sint16)
            | (I8, Aint8)
            | (I8 | I16 | Aint8, Aint16)
            | (Aint8 | Aint16, I32 | I64)
    ))
}

/// The type both operands of an arithmetic, bitwise or comparison operator convert to when
/// either is an integer precision type: the type the other converts to implicitly (so
/// `aint8 / aint8` stays `aint8`, `aint8 + int32` is `int32`); `None` leaves the ordinary
/// rules of SPEC §4 (which treat the family as 32 bits wide).
pub fn operand_type(l: ScalarType, r: ScalarType) -> Option<ScalarType> {
    if !l.is_int_precision() && !r.is_int_precision() || !l.is_integer() || !r.is_integer() {
        return None;
    }
    let arith = |s: ScalarType| read_scalar(s).unwrap_or(s);
    let (l, r) = (arith(l), arith(r));
    if l == r || implicit(r, l) == Some(true) {
        Some(l)
    } else if implicit(l, r) == Some(true) {
        Some(r)
    } else {
        None
    }
}

/// The arithmetic type an element of type `s` reads as, when `s` is an integer storage type.
pub fn read_scalar(s: ScalarType) -> Option<ScalarType> {
    match s {
        Sint8 => Some(Aint8),
        Sint16 | Lint16 => Some(Aint16),
        _ => None,
    }
}

/// The bits a value of an integer precision type holds in every variant (8 or 16), which
/// bounds its literals; `None` for other types.
pub fn value_bits(s: ScalarType) -> Option<u32> {
    match s {
        Sint8 | Aint8 => Some(8),
        Sint16 | Aint16 | Lint16 => Some(16),
        _ => None,
    }
}

/// Whether `Vector<s, n>` exists: `sint8` vectors have 4 lanes, the others 2 or 4.
pub fn vector_lanes_ok(s: ScalarType, n: u8) -> bool {
    match s {
        Sint8 => n == 4,
        _ if s.is_int_precision() => n == 2 || n == 4,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_convert_within_and_widen_out() {
        assert_eq!(implicit(Sint8, Aint8), Some(true));
        assert_eq!(implicit(Aint16, Lint16), Some(true));
        assert_eq!(implicit(Aint8, I32), Some(true));
        assert_eq!(implicit(I8, Aint16), Some(true));
        assert_eq!(implicit(I32, Aint8), Some(false));
        assert_eq!(implicit(Sint8, Aint16), Some(false));
        assert_eq!(implicit(Aint16, Aint8), Some(false));
        assert_eq!(implicit(I32, I64), None);
        assert_eq!(read_scalar(Lint16), Some(Aint16));
        assert_eq!(read_scalar(Aint8), None);
        assert_eq!(operand_type(Aint8, Aint8), Some(Aint8));
        assert_eq!(operand_type(Aint8, I32), Some(I32));
        assert_eq!(operand_type(I8, Aint16), Some(Aint16));
        assert_eq!(operand_type(Sint8, Aint8), Some(Aint8));
        assert_eq!(operand_type(I32, I32), None);
        assert!(vector_lanes_ok(Sint8, 4) && !vector_lanes_ok(Sint8, 2));
        assert!(vector_lanes_ok(Sint16, 2) && !vector_lanes_ok(Aint16, 3));
    }
}
