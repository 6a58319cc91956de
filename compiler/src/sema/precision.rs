//! Typing rules of the precision-polymorphic float types of SPEC §8 (`sfp`, `afp`, `lfp`).
//!
//! Sema keeps them symbolic: it only decides where a value changes family member (a storage
//! read yields `afp`, a store converts back) and records that as an ordinary
//! [`ExprKind::Convert`]. What each type *is* on a device is decided later, per target, by
//! `specialize::precision` (see its module doc for the representation).
//!
//! The rules:
//! - reading an element of a `KernelBuffer<sfp>` / `Shared<lfp>` (or of vectors of them)
//!   yields `afp` (lane count kept): [`promote_load`] wraps the load in a `Convert`;
//! - `sfp`/`lfp` ↔ `afp` convert implicitly (so `buf[i] = v` converts back);
//! - `afp` sits between `float16` and `float32`: `float16` → `afp` → `float32`/`float64` are
//!   implicit, so `afp * 2.0` types the literal as `afp` and `afp + float32` is `float32`;
//!   `int8`/`uint8` → `afp` is implicit (11 significand bits hold them);
//! - every other conversion to or from a precision float needs a cast.
//!
//! The integer families (`sint8` …) have no implicit conversions here yet: their rules live in
//! `sema/int_precision*.rs` (owned by the integer work), which [`implicit`] consults first.

use crate::ir::{self, ExprKind, ScalarType, Type};

/// Whether `from` converts implicitly to `to` when either is a precision float type;
/// `None` when neither is one (the ordinary rules of SPEC §3 apply).
pub fn implicit(from: ScalarType, to: ScalarType) -> Option<bool> {
    use ScalarType::*;
    if let Some(b) = super::int_precision::implicit(from, to) {
        return Some(b);
    }
    if !from.is_precision() && !to.is_precision() {
        return None;
    }
    if from == to {
        return Some(true);
    }
    Some(matches!(
        (from, to),
        (Sfp | Lfp, Afp) | (Afp, Sfp | Lfp) | (F16 | I8 | U8, Afp) | (Afp, F32 | F64)
    ))
}

/// The type an element read of type `ty` yields: `afp` (or `Vector<afp,N>`) for `sfp`/`lfp`
/// elements, `ty` itself otherwise.
pub fn read_type(ty: &Type) -> Type {
    match ty {
        Type::Scalar(s) if is_storage_float(*s) => Type::Scalar(ScalarType::Afp),
        Type::Vector(s, n) if is_storage_float(*s) => Type::Vector(ScalarType::Afp, *n),
        // The integer families: sint8 → aint8, sint16/lint16 → aint16.
        Type::Scalar(s) => super::int_precision::read_scalar(*s).map_or(ty.clone(), Type::Scalar),
        Type::Vector(s, n) => {
            super::int_precision::read_scalar(*s).map_or(ty.clone(), |a| Type::Vector(a, *n))
        }
        other => other.clone(),
    }
}

/// Wraps a load of an `sfp`/`lfp` element (or vector of them) in the conversion to `afp`
/// (SPEC §8: `buf[i]` yields an `afp`); any other expression is returned unchanged.
pub fn promote_load(e: ir::Expr) -> ir::Expr {
    let ty = read_type(&e.ty);
    if ty == e.ty {
        return e;
    }
    let span = e.span;
    ir::Expr {
        kind: ExprKind::Convert(Box::new(e)),
        ty,
        span,
    }
}

/// The implicit conversion of a precision-typed scalar or vector value to `to`, if one
/// applies (`Vector<afp,4>` → `Vector<sfp,4>` for a store); `None` leaves the value to the
/// ordinary rules.
pub fn coerce(v: ir::Expr, to: &Type) -> Result<ir::Expr, ir::Expr> {
    let ok = match (&v.ty, to) {
        (Type::Scalar(f), Type::Scalar(t)) => implicit(*f, *t) == Some(true),
        (Type::Vector(f, n), Type::Vector(t, m)) => n == m && implicit(*f, *t) == Some(true),
        _ => false,
    };
    if !ok || &v.ty == to {
        return Err(v);
    }
    let span = v.span;
    Ok(ir::Expr {
        kind: ExprKind::Convert(Box::new(v)),
        ty: to.clone(),
        span,
    })
}

/// `sfp` or `lfp`.
fn is_storage_float(s: ScalarType) -> bool {
    matches!(s, ScalarType::Sfp | ScalarType::Lfp)
}

/// Checks the lane count of `Vector<T, N>` when `T` is a precision type: only 2 and 4 exist
/// (ncnn's `sfpvec2`/`sfpvec4`), because packed forms hold whole 16-bit pairs.
pub fn vector_lanes_ok(s: ScalarType, n: u8) -> bool {
    (!s.is_precision() || n == 2 || n == 4) && super::int_precision::vector_lanes_ok(s, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn implicit_rules() {
        assert_eq!(implicit(F32, I32), None);
        assert_eq!(implicit(Sfp, Afp), Some(true));
        assert_eq!(implicit(Afp, Lfp), Some(true));
        assert_eq!(implicit(Sfp, Lfp), Some(false));
        assert_eq!(implicit(F16, Afp), Some(true));
        assert_eq!(implicit(Afp, F32), Some(true));
        assert_eq!(implicit(F32, Afp), Some(false));
        assert_eq!(implicit(Afp, F16), Some(false));
        assert_eq!(implicit(I32, Afp), Some(false));
    }

    #[test]
    fn reads_yield_afp() {
        assert_eq!(read_type(&Type::Scalar(Sfp)), Type::Scalar(Afp));
        assert_eq!(read_type(&Type::Vector(Lfp, 4)), Type::Vector(Afp, 4));
        assert_eq!(read_type(&Type::Scalar(F32)), Type::Scalar(F32));
        assert!(!vector_lanes_ok(Sfp, 3));
        assert!(vector_lanes_ok(F32, 3));
    }
}
