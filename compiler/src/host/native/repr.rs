//! How native host code holds each value, decided from its type alone.
//!
//! Scalars of the types with an exact LLVM lowering live in registers, and so do vectors and
//! matrices of them (an LLVM vector of their lanes, a matrix's column-major) and PODs of
//! those (an LLVM struct), and `bfloat16` scalars (a `float` rounded after every operation,
//! `bfloat16.rs`); everything else (strings, arrays, buffers, images, textures, samplers,
//! streams, vectors and PODs of `bfloat16`) is an
//! *object*: a [`crate::host::interp::Value`] in the function's frame, worked on by typed
//! calls (strings, `string_calls.rs`; device objects, `device_calls.rs`) or the
//! interpreter (`bridge.rs`) and freed by reference counting as there. Arrays of native
//! scalars, and flat arrays of vectors, matrices and PODs, are objects that native code
//! also indexes in place.

use crate::ir::{ScalarType, Type};

/// The representation of a value in native code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repr {
    /// An LLVM scalar of this type.
    Scalar(ScalarType),
    /// An LLVM vector of this many lanes of this native scalar type: a `Vector<T, N>`, or a
    /// `Matrix<T, R, C>` as its R × C lanes column-major.
    Vector(ScalarType, u8),
    /// An LLVM struct of the fields of a POD whose fields are all held in registers
    /// (scalars and vectors of native scalars).
    Pod,
    /// A value in the frame.
    Object,
    /// No value.
    Void,
}

/// How many lanes the LLVM vector holding `n` lanes has: `n`, except that three lanes are
/// held in four, the fourth always zero.
///
/// LLVM widens a `<3 x float>` to four lanes in registers anyway, and leaves the fourth
/// undefined: loaded from a 16-byte slot whose last four bytes nothing wrote (a `store` of
/// `<3 x float>` writes twelve), it holds whatever the stack held there, and when that is a
/// subnormal every operation on the vector takes a microcode assist (a POD with two
/// `Vector<float32,3>` fields ran 10× slower than C, docs/PERFORMANCE.md). With the fourth
/// lane part of the value, every store writes it and every operation computes it from
/// zeros: `+ - *` keep it zero, `/` makes it NaN, neither of which is slow. No lane-wise
/// operation reads it (`split_lanes` returns the three real ones) and nothing observes it:
/// words, flat arrays and uploads take the three lanes one by one.
pub fn register_lanes(n: u8) -> u32 {
    if n == 3 {
        4
    } else {
        u32::from(n)
    }
}

/// True for the scalar types native code computes with itself.
pub fn native_scalar(s: ScalarType) -> bool {
    s == ScalarType::Bool
        || s.is_integer() && !s.is_precision()
        || matches!(s, ScalarType::F16 | ScalarType::F32 | ScalarType::F64)
}

/// How a value of type `ty` is held.
pub fn repr(ty: &Type) -> Repr {
    match ty {
        Type::Void => Repr::Void,
        Type::Scalar(s) if native_scalar(*s) || *s == ScalarType::BF16 => Repr::Scalar(*s),
        Type::Vector(s, n) if native_scalar(*s) => Repr::Vector(*s, *n),
        Type::Matrix(s, r, c) if native_scalar(*s) => Repr::Vector(*s, r * c),
        Type::Struct(d)
            if d.fields.iter().all(|(_, t)| match repr(t) {
                // A `bfloat16` field keeps the POD an object (see `bfloat16.rs`).
                Repr::Scalar(s) => native_scalar(s),
                Repr::Vector(..) => true,
                _ => false,
            }) =>
        {
            Repr::Pod
        }
        _ => Repr::Object,
    }
}

/// The element type of an array type that native code indexes in place.
pub fn fast_array(ty: &Type) -> Option<ScalarType> {
    match ty {
        Type::Array(elem) => match **elem {
            // A `bfloat16` array stores each value as the `float` it equals, as native code
            // holds it (`bfloat16.rs`).
            Type::Scalar(s) if native_scalar(s) || s == ScalarType::BF16 => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// The element type of an array type stored flat (vectors, matrices and PODs held in
/// registers, `host::interp::flat`), which native code also indexes in place.
pub fn flat_elem(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(elem)
            if aggregate(elem) && crate::host::interp::flat::layout(elem).is_some() =>
        {
            Some(elem)
        }
        _ => None,
    }
}

/// True for array types whose locals keep a view of the storage (data pointer and length):
/// arrays of native scalars and flat arrays.
pub fn has_view(ty: &Type) -> bool {
    fast_array(ty).is_some() || flat_elem(ty).is_some()
}

/// True for the values native code holds in registers (scalars, vectors, matrices, PODs).
pub fn in_registers(ty: &Type) -> bool {
    matches!(repr(ty), Repr::Scalar(_) | Repr::Vector(..) | Repr::Pod)
}

/// True for the values held in registers that cross into the interpreter's frame as words
/// (`words.rs`): vectors, matrices, PODs.
pub fn aggregate(ty: &Type) -> bool {
    matches!(repr(ty), Repr::Vector(..) | Repr::Pod)
}
