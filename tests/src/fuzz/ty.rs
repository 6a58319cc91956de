//! The scalar types of generated programs and their literals.

use super::rng::Rng;

/// A scalar type the generator uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    /// `int8`
    I8,
    /// `int16`
    I16,
    /// `int32`
    I32,
    /// `int64`
    I64,
    /// `uint8`
    U8,
    /// `uint16`
    U16,
    /// `uint32`
    U32,
    /// `uint64`
    U64,
    /// `float32`
    F32,
    /// `float64`
    F64,
    /// `boolean` (locals and conditions only: never in a buffer)
    Bool,
}

/// The numeric types: everything but `boolean`.
pub const NUMERIC: [Ty; 10] = [
    Ty::I8,
    Ty::I16,
    Ty::I32,
    Ty::I64,
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::F32,
    Ty::F64,
];

/// The integer types.
pub const INTS: [Ty; 8] = [
    Ty::I8,
    Ty::I16,
    Ty::I32,
    Ty::I64,
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
];

impl Ty {
    /// The Cajeta spelling.
    pub fn name(self) -> &'static str {
        match self {
            Ty::I8 => "int8",
            Ty::I16 => "int16",
            Ty::I32 => "int32",
            Ty::I64 => "int64",
            Ty::U8 => "uint8",
            Ty::U16 => "uint16",
            Ty::U32 => "uint32",
            Ty::U64 => "uint64",
            Ty::F32 => "float32",
            Ty::F64 => "float64",
            Ty::Bool => "boolean",
        }
    }

    /// Whether it is `float32` or `float64`.
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    /// Whether it is an integer type.
    pub fn is_int(self) -> bool {
        !self.is_float() && self != Ty::Bool
    }

    /// Whether it is a signed integer type.
    pub fn signed(self) -> bool {
        matches!(self, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64)
    }

    /// Its width in bits (1 for `boolean`).
    pub fn bits(self) -> u32 {
        match self {
            Ty::I8 | Ty::U8 => 8,
            Ty::I16 | Ty::U16 => 16,
            Ty::I32 | Ty::U32 | Ty::F32 => 32,
            Ty::Bool => 1,
            _ => 64,
        }
    }
}

/// Renders an integer literal of `ty` with the value `v` (bits of the type, sign-extended for
/// signed types). Decimal where the value reads the same under any literal typing, hex bits
/// otherwise (hex literals fill the type's bits, docs/language.md).
pub fn int_literal(ty: Ty, v: i128) -> String {
    let bits = ty.bits();
    let mask: u128 = if bits == 64 {
        u64::MAX as u128
    } else {
        (1u128 << bits) - 1
    };
    let unsigned = (v as u128) & mask;
    let min = if ty.signed() {
        -(1i128 << (bits - 1))
    } else {
        0
    };
    let suffix = if bits == 64 { "L" } else { "" };
    if v > min && v.abs() <= i32::MAX as i128 {
        format!("(({}) {v})", ty.name())
    } else if v > min && bits == 64 && v.abs() <= i64::MAX as i128 {
        format!("(({}) {v}L)", ty.name())
    } else {
        format!("(({}) 0x{unsigned:X}{suffix})", ty.name())
    }
}

/// An interesting value for an integer type: boundaries, small numbers, random bits.
pub fn int_value(rng: &mut Rng, ty: Ty) -> i128 {
    let bits = ty.bits();
    let (min, max) = if ty.signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    match rng.below(8) {
        0 => min,
        1 => max,
        2 => *rng.pick(&[min + 1, max - 1, 0, 1]),
        3 | 4 => (rng.below(19) as i128 - 9).clamp(min, max),
        5 => (rng.below(70) as i128).clamp(min, max),
        _ => {
            let raw = rng.next_u64() as u128 & ((1u128 << bits) - 1);
            if ty.signed() && raw >= 1u128 << (bits - 1) {
                raw as i128 - (1i128 << bits)
            } else {
                raw as i128
            }
        }
    }
}

/// A whole-number float literal (gen.rs says why only whole numbers).
pub fn float_literal(rng: &mut Rng, ty: Ty) -> String {
    let v: f64 = match rng.below(6) {
        0 => 0.0,
        1 => *rng.pick(&[1.0, -1.0, 2.0, 16777216.0, 16777217.0, 1.0e30, -3.0e38]),
        2 => (rng.next_u64() % 4_000_000_000) as f64 - 2.0e9,
        _ => rng.below(41) as f64 - 20.0,
    };
    let (suffix, v) = if ty == Ty::F32 {
        ("f", v.clamp(-3.0e38, 3.0e38))
    } else {
        ("", v)
    };
    format!("(({}) {v:?}{suffix})", ty.name())
}
