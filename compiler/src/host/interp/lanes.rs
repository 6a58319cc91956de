//! Byte layouts of vectors and matrices between the host interpreter and the device:
//! buffers of `Vector<T,N>` (std430 array stride, so a `Vector<float32,3>` element takes 16
//! bytes) filled from flat `T[]` arrays, and vector/matrix kernel arguments in the
//! push-constant block.

use super::buffer_transfer::array_to_bytes;
use super::value::{Array, Scalar, Value};
use crate::ir::{ScalarType, StructDef, Type};

/// How the elements of a flat host array sit in a buffer: groups of `lanes` lanes of
/// `lane_bytes` each, one group every `stride` bytes.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    lane_bytes: usize,
    lanes: usize,
    stride: usize,
}

impl Layout {
    /// The layout of a buffer of `lanes` lanes of `elem` per element.
    pub fn of(elem: ScalarType, lanes: u8) -> Layout {
        let ty = if lanes > 1 {
            Type::Vector(elem, lanes)
        } else {
            Type::Scalar(elem)
        };
        let lane_bytes = elem.size_bytes() as usize;
        Layout {
            lane_bytes,
            lanes: usize::from(lanes.max(1)),
            stride: ty.std430_stride().unwrap_or(lane_bytes as u32) as usize,
        }
    }

    fn packed(&self) -> usize {
        self.lane_bytes * self.lanes
    }

    /// Whether the buffer image is the flat lanes themselves (no padding between elements).
    pub fn is_flat(&self) -> bool {
        self.packed() == self.stride || self.packed() == 0
    }

    /// Flat bytes (lanes back to back) → the buffer image (padding after each element).
    pub fn pad(&self, flat: Vec<u8>) -> Vec<u8> {
        let packed = self.packed();
        if packed == self.stride || packed == 0 {
            return flat;
        }
        let mut out = Vec::with_capacity(flat.len() / packed * self.stride);
        for chunk in flat.chunks(packed) {
            out.extend_from_slice(chunk);
            out.resize(out.len() + self.stride - chunk.len(), 0);
        }
        out
    }

    /// The buffer image → flat bytes (padding dropped).
    pub fn unpad(&self, image: Vec<u8>) -> Vec<u8> {
        let packed = self.packed();
        if packed == self.stride || packed == 0 {
            return image;
        }
        image
            .chunks(self.stride)
            .flat_map(|c| c[..packed.min(c.len())].to_vec())
            .collect()
    }
}

/// The little-endian bytes of one lane as stored (booleans as a 4-byte 0/1).
fn lane_bytes(s: Scalar) -> Vec<u8> {
    let array = match s {
        Scalar::Bool(x) => Array::Bool(vec![x]),
        Scalar::I8(x) => Array::I8(vec![x]),
        Scalar::I16(x) => Array::I16(vec![x]),
        Scalar::I32(x) => Array::I32(vec![x]),
        Scalar::I64(x) => Array::I64(vec![x]),
        Scalar::U8(x) => Array::U8(vec![x]),
        Scalar::U16(x) => Array::U16(vec![x]),
        Scalar::U32(x) => Array::U32(vec![x]),
        Scalar::U64(x) => Array::U64(vec![x]),
        Scalar::F16(x) => Array::F16(vec![x]),
        Scalar::BF16(x) => Array::BF16(vec![x]),
        Scalar::F32(x) => Array::F32(vec![x]),
        Scalar::F64(x) => Array::F64(vec![x]),
    };
    array_to_bytes(&array).unwrap_or_default()
}

/// The std430 bytes of a vector or matrix kernel argument: a vector's lanes back to back,
/// a matrix's columns each padded to the column alignment (a 3-row column takes 16 bytes for
/// float32).
pub fn push_bytes(ty: &Type, lanes: &[Scalar]) -> Vec<u8> {
    let rows = match ty {
        Type::Matrix(_, r, _) => usize::from(*r),
        _ => lanes.len().max(1),
    };
    let column_bytes = match ty {
        Type::Matrix(s, r, _) => Type::Vector(*s, *r)
            .std430_layout()
            .map(|(_, align)| align as usize)
            .unwrap_or(0),
        _ => 0,
    };
    let mut out = Vec::new();
    for column in lanes.chunks(rows) {
        let start = out.len();
        for &l in column {
            out.extend(lane_bytes(l));
        }
        if column_bytes > 0 {
            out.resize(start + column_bytes, 0);
        }
    }
    out
}

/// The std430 bytes of a POD kernel argument: each field at its offset, padding zeroed.
pub fn pod_bytes(d: &StructDef, fields: &[Value]) -> Vec<u8> {
    let (size, _) = d.layout();
    let mut out = vec![0u8; size as usize];
    for (((_, ty), offset), v) in d.fields.iter().zip(d.offsets()).zip(fields) {
        let bytes = match v {
            Value::Scalar(s) => lane_bytes(*s),
            Value::Vector(lanes) => push_bytes(ty, lanes),
            _ => Vec::new(),
        };
        let at = offset as usize;
        if let Some(dst) = out.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec3_elements_pad_to_sixteen_bytes() {
        let l = Layout::of(ScalarType::F32, 3);
        let flat: Vec<u8> = (0..24).collect();
        let image = l.pad(flat.clone());
        assert_eq!(image.len(), 32);
        assert_eq!(&image[12..16], &[0, 0, 0, 0]);
        assert_eq!(&image[16..28], &flat[12..24]);
        assert_eq!(l.unpad(image), flat);
    }

    #[test]
    fn vec4_and_scalars_are_unchanged() {
        for l in [
            Layout::of(ScalarType::F32, 4),
            Layout::of(ScalarType::I32, 1),
        ] {
            let flat: Vec<u8> = (0..32).collect();
            assert_eq!(l.pad(flat.clone()), flat);
        }
    }

    #[test]
    fn matrix_columns_are_padded() {
        let m = Type::Matrix(ScalarType::F32, 3, 2);
        let lanes: Vec<Scalar> = (0..6).map(|i| Scalar::F32(i as f32)).collect();
        let b = push_bytes(&m, &lanes);
        assert_eq!(b.len(), 32);
        assert_eq!(&b[16..20], &3f32.to_le_bytes());
        let v = Type::Vector(ScalarType::Bool, 2);
        let b = push_bytes(&v, &[Scalar::Bool(true), Scalar::Bool(false)]);
        assert_eq!(b, vec![1, 0, 0, 0, 0, 0, 0, 0]);
    }
}
