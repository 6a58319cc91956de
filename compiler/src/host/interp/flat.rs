//! Arrays of vectors, matrices and PODs stored flat, in native layout: element after
//! element, each one's scalar lanes in order (a vector's lanes, a matrix's column-major, a
//! POD's fields in declaration order), every lane at the next multiple of its own size and
//! the element's stride rounded up to its largest lane. That is the layout of the same
//! data as a C array of structs of scalars and arrays (`struct { float pos[3]; float
//! vel[3]; float mass; }`), so native host code reads and writes an element in place, one
//! load or store per lane at offsets it knows at compile time, with the bounds check of a
//! scalar array, and LLVM combines the lanes into vector loads.
//!
//! Lanes are stored as native code holds them: `boolean` one byte (0 or 1), `float16` its
//! 16-bit pattern. Element types with a lane native code cannot hold (`bfloat16`, the
//! precision types) stay arrays of values.

use super::ops::{f16_from_bits, f16_to_bits};
use super::value::{Scalar, Value};
use crate::ir::{ScalarType, Type};

/// Where each lane of an element sits, and the element's stride in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Each scalar lane in order: its type and its byte offset in the element.
    pub lanes: Vec<(ScalarType, u32)>,
    /// Bytes from one element to the next.
    pub stride: u32,
}

/// Bytes a lane of type `s` takes (and its alignment).
pub fn lane_bytes(s: ScalarType) -> u32 {
    match s {
        ScalarType::Bool => 1,
        other => other.size_bytes(),
    }
}

/// True for the lane types flat arrays hold (those native code computes with).
fn flat_scalar(s: ScalarType) -> bool {
    s == ScalarType::Bool
        || s.is_integer() && !s.is_precision()
        || matches!(s, ScalarType::F16 | ScalarType::F32 | ScalarType::F64)
}

/// The lane types of `ty` in order; `None` when a part is not a flat lane.
fn lane_types(ty: &Type, out: &mut Vec<ScalarType>) -> Option<()> {
    match ty {
        Type::Scalar(s) if flat_scalar(*s) => out.push(*s),
        Type::Vector(s, _) | Type::Matrix(s, ..) if flat_scalar(*s) => {
            out.extend(std::iter::repeat_n(*s, ty.lanes()));
        }
        _ => return None,
    }
    Some(())
}

/// The layout of flat arrays of `elem`, when its elements are stored flat: a vector or
/// matrix of flat lanes, or a POD whose fields are flat scalars, vectors and matrices.
pub fn layout(elem: &Type) -> Option<Layout> {
    let mut types = Vec::new();
    match elem {
        Type::Vector(..) | Type::Matrix(..) => lane_types(elem, &mut types)?,
        Type::Struct(d) => {
            for (_, t) in &d.fields {
                lane_types(t, &mut types)?;
            }
        }
        _ => return None,
    }
    let mut at = 0u32;
    let mut align = 1u32;
    let mut lanes = Vec::with_capacity(types.len());
    for s in types {
        let n = lane_bytes(s);
        at = at.next_multiple_of(n);
        lanes.push((s, at));
        at += n;
        align = align.max(n);
    }
    Some(Layout {
        lanes,
        stride: at.next_multiple_of(align).max(1),
    })
}

/// An array of vectors, matrices or PODs in flat native layout (see the module comment).
#[derive(Debug, Clone, PartialEq)]
pub struct FlatArray {
    elem: Type,
    layout: Layout,
    /// The elements' bytes, in 8-byte words so that every lane is aligned.
    data: Vec<u64>,
    len: usize,
}

impl FlatArray {
    /// A zeroed array of `len` elements of `elem` (zero lanes are the zero value of every
    /// element type); `None` when `elem` is not stored flat.
    pub fn new(elem: &Type, len: usize) -> Option<Result<FlatArray, String>> {
        let layout = layout(elem)?;
        let bytes = (layout.stride as usize).checked_mul(len);
        let words = bytes.map(|b| b.div_ceil(8));
        let mut data = Vec::new();
        let reserved = words.map(|w| data.try_reserve_exact(w).is_ok());
        let (Some(words), Some(true)) = (words, reserved) else {
            return Some(Err(format!(
                "out of memory allocating an array of {len} elements"
            )));
        };
        data.resize(words, 0);
        Some(Ok(FlatArray {
            elem: elem.clone(),
            layout,
            data,
            len,
        }))
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The element type.
    pub fn elem(&self) -> &Type {
        &self.elem
    }

    /// The address of the first element's bytes (native code's view of the array: the
    /// storage never moves, arrays have a fixed length).
    pub fn data_mut(&mut self) -> *mut u8 {
        self.data.as_mut_ptr().cast()
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: plain words viewed as their bytes.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr().cast(), self.data.len() * 8) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`; every bit pattern is a valid word.
        unsafe {
            std::slice::from_raw_parts_mut(self.data.as_mut_ptr().cast(), self.data.len() * 8)
        }
    }

    /// Element `i`, or `None` when out of range.
    pub fn get(&self, i: usize) -> Option<Value> {
        if i >= self.len {
            return None;
        }
        let base = i * self.layout.stride as usize;
        let bytes = self.bytes();
        let mut lanes = self.layout.lanes.iter().map(|&(s, off)| {
            let at = base + off as usize;
            read_lane(s, &bytes[at..at + lane_bytes(s) as usize])
        });
        Some(build(&self.elem, &mut lanes))
    }

    /// Writes element `i`; an error for an index out of range or a value of another type.
    pub fn set(&mut self, i: usize, v: Value) -> Result<(), String> {
        if i >= self.len {
            return Err(format!("index {i} out of range for length {}", self.len));
        }
        let mut scalars = Vec::with_capacity(self.layout.lanes.len());
        flatten(&v, &mut scalars);
        if scalars.len() != self.layout.lanes.len() {
            return Err(format!(
                "internal error: cannot store {v:?} in an array of {}",
                self.elem
            ));
        }
        let base = i * self.layout.stride as usize;
        let lanes = self.layout.lanes.clone();
        let bytes = self.bytes_mut();
        for ((s, off), x) in lanes.into_iter().zip(scalars) {
            let at = base + off as usize;
            write_lane(s, x, &mut bytes[at..at + lane_bytes(s) as usize]);
        }
        Ok(())
    }
}

/// The scalar lanes of a vector, matrix or POD value, in order.
fn flatten(v: &Value, out: &mut Vec<Scalar>) {
    match v {
        Value::Scalar(s) => out.push(*s),
        Value::Vector(lanes) => out.extend(lanes.iter().copied()),
        Value::Struct(fields) => fields.iter().for_each(|f| flatten(f, out)),
        _ => {}
    }
}

/// The value of type `ty` made of the next lanes.
fn build(ty: &Type, lanes: &mut impl Iterator<Item = Scalar>) -> Value {
    match ty {
        Type::Vector(..) | Type::Matrix(..) => {
            let v: Vec<Scalar> = lanes.take(ty.lanes()).collect();
            Value::Vector(v.into())
        }
        Type::Struct(d) => {
            let fields: Vec<Value> = d.fields.iter().map(|(_, t)| build(t, lanes)).collect();
            Value::Struct(fields.into())
        }
        Type::Scalar(s) => Value::Scalar(lanes.next().unwrap_or(Scalar::zero(*s))),
        other => Value::zero(other),
    }
}

fn read_lane(s: ScalarType, b: &[u8]) -> Scalar {
    let word = |n: usize| -> [u8; 8] {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&b[..n]);
        w
    };
    let bits = u64::from_le_bytes(word(b.len()));
    match s {
        ScalarType::Bool => Scalar::Bool(bits != 0),
        ScalarType::F16 => Scalar::F16(f16_from_bits(bits as u16)),
        ScalarType::F32 => Scalar::F32(f32::from_bits(bits as u32)),
        ScalarType::F64 => Scalar::F64(f64::from_bits(bits)),
        // Integers: the low bytes, wrapped to the type (sign-extension included).
        other => Scalar::from_int_wrapping(i128::from(bits), other),
    }
}

fn write_lane(s: ScalarType, x: Scalar, b: &mut [u8]) {
    let bits: u64 = match x {
        Scalar::Bool(v) => u64::from(v),
        Scalar::F16(v) => u64::from(f16_to_bits(v)),
        Scalar::F32(v) => u64::from(v.to_bits()),
        Scalar::F64(v) => v.to_bits(),
        other => other.as_int().map_or(0, |i| i as u64),
    };
    let n = lane_bytes(s) as usize;
    b[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_sit_at_their_natural_alignment() {
        let v3 = Type::Vector(ScalarType::F32, 3);
        assert_eq!(layout(&v3).map(|l| l.stride), Some(12));
        let mixed = Type::Vector(ScalarType::F64, 2);
        assert_eq!(layout(&mixed).map(|l| l.stride), Some(16));
        assert_eq!(layout(&Type::Scalar(ScalarType::F32)), None);
        assert_eq!(layout(&Type::Vector(ScalarType::BF16, 2)), None);
    }

    #[test]
    fn elements_round_trip_through_the_bytes() {
        let ty = Type::Vector(ScalarType::I16, 3);
        let mut a = FlatArray::new(&ty, 4).unwrap().unwrap();
        assert_eq!(a.get(2), Some(Value::zero(&ty)));
        let v = Value::Vector(vec![Scalar::I16(-3), Scalar::I16(7), Scalar::I16(i16::MIN)].into());
        a.set(2, v.clone()).unwrap();
        assert_eq!(a.get(2), Some(v));
        assert_eq!(a.get(1), Some(Value::zero(&ty)));
        assert!(a.set(4, Value::zero(&ty)).is_err());
        assert_eq!(a.get(4), None);
    }
}
