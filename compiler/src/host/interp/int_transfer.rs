//! Host transfers of the integer precision families (SPEC §8): a `KernelBuffer<sint8>` (or
//! `<sint16>`, `<Vector<sint8,4>>` …) uploads from and downloads into an `int32[]`.
//!
//! The buffer image is the same in every mode: four int8 lanes per word low lane first
//! (int8p) is exactly a little-endian array of `int8` (int8s), and likewise two int16 lanes
//! per word. So a transfer narrows the `int32` values to `int8`/`int16` (keeping the low bits,
//! like `Precision.packInt4x8`) on upload and sign-extends them on download; buffers are
//! allocated in whole words so that a packed kernel can read the last, partial one.

use super::buffer_transfer::{array_from_bytes, array_to_bytes};
use super::value::Array;
use crate::ir::{ScalarType, Type};

/// The native lane type whose array layout an integer storage type has in a buffer
/// (`sint8` → `int8`, `sint16`/`lint16` → `int16`); `None` for other types.
pub fn native_lane(elem: ScalarType) -> Option<ScalarType> {
    match elem {
        ScalarType::Sint8 => Some(ScalarType::I8),
        ScalarType::Sint16 | ScalarType::Lint16 => Some(ScalarType::I16),
        _ => None,
    }
}

/// The element stride of a new `KernelBuffer` of `lanes` lanes of `elem`, given its std430
/// `stride`: the native lane layout for integer storage types. An arithmetic family
/// (`aint8`, `aint16`) has a size that depends on the variant, so the host cannot make one;
/// the error says why.
pub fn stride(elem: ScalarType, lanes: u8, stride: u32) -> Result<u32, &'static str> {
    if matches!(elem, ScalarType::Aint8 | ScalarType::Aint16) {
        return Err("has no fixed layout: use sint8 or sint16 elements");
    }
    Ok(match native_lane(elem) {
        Some(l) if lanes > 1 => Type::Vector(l, lanes).std430_stride().unwrap_or(stride),
        Some(l) => l.size_bytes(),
        None => stride,
    })
}

/// `bytes` rounded up to whole 32-bit words.
fn whole_words(bytes: u64) -> u64 {
    bytes.div_ceil(4) * 4
}

/// The allocation size of a buffer of `bytes` bytes of `elem`: whole words for integer
/// storage types, so that a packed kernel can read the last, partial word.
pub fn to_words(bytes: u64, elem: ScalarType) -> u64 {
    match native_lane(elem) {
        Some(_) => whole_words(bytes),
        None => bytes,
    }
}

/// A transfer image padded with zeros to whole words when it is an integer lane image.
pub fn pad_words(mut bytes: Vec<u8>, int_lane: Option<ScalarType>) -> Vec<u8> {
    if int_lane.is_some() {
        bytes.resize(whole_words(bytes.len() as u64) as usize, 0);
    }
    bytes
}

/// The little-endian image of `a`, narrowed to `int_lane` first when given.
pub fn to_bytes(a: &Array, int_lane: Option<ScalarType>) -> Vec<u8> {
    match int_lane.and_then(|l| narrow(a, l)) {
        Some(n) => array_to_bytes(&n),
        None => array_to_bytes(a),
    }
    .unwrap_or_default()
}

/// Overwrites `a` from its image `bytes` (of `int_lane` lanes when given, sign-extended).
pub fn from_bytes(a: &mut Array, bytes: &[u8], int_lane: Option<ScalarType>) {
    match int_lane.and_then(|l| narrow(a, l)) {
        Some(mut lanes) => {
            array_from_bytes(&mut lanes, bytes);
            widen_into(a, &lanes);
        }
        None => array_from_bytes(a, bytes),
    }
}

/// The `int32` array `a` narrowed to `lane` (`int8` or `int16`), keeping the low bits;
/// `None` when `a` is not an `int32` array.
pub fn narrow(a: &Array, lane: ScalarType) -> Option<Array> {
    let Array::I32(v) = a else {
        return None;
    };
    Some(match lane {
        ScalarType::I8 => Array::I8(v.iter().map(|&x| x as i8).collect()),
        _ => Array::I16(v.iter().map(|&x| x as i16).collect()),
    })
}

/// Writes the lanes of `from` (an `int8`/`int16` array) sign-extended into the `int32`
/// array `to` (same length).
pub fn widen_into(to: &mut Array, from: &Array) {
    let Array::I32(out) = to else {
        return;
    };
    match from {
        Array::I8(v) => out.iter_mut().zip(v).for_each(|(o, &x)| *o = i32::from(x)),
        Array::I16(v) => out.iter_mut().zip(v).for_each(|(o, &x)| *o = i32::from(x)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_keeps_low_bits_and_widen_sign_extends() {
        let a = Array::I32(vec![-128, 127, 128, -129, 0x1234_5678]);
        let n = narrow(&a, ScalarType::I8).unwrap();
        let mut back = Array::I32(vec![0; 5]);
        widen_into(&mut back, &n);
        assert!(matches!(back, Array::I32(ref v) if v == &[-128, 127, -128, 127, 0x78]));
        let n = narrow(&a, ScalarType::I16).unwrap();
        widen_into(&mut back, &n);
        assert!(matches!(back, Array::I32(ref v) if v == &[-128, 127, 128, -129, 0x5678]));
        assert!(narrow(&Array::F32(vec![1.0]), ScalarType::I8).is_none());
        assert_eq!(whole_words(5), 8);
        assert_eq!(pad_words(vec![1; 5], Some(ScalarType::I8)).len(), 8);
        assert_eq!(pad_words(vec![1; 5], None).len(), 5);
        assert_eq!(native_lane(ScalarType::Lint16), Some(ScalarType::I16));
    }
}
