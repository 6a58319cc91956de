//! Host-array ↔ `KernelBuffer` transfers: the checks that an array fits a buffer, and the
//! little-endian byte images the runtime copies.

use super::device::DevBuffer;

use super::eval::{err, internal, Fail, Interp};
use super::operands::{array_of, buffer_of};
use super::ops::{bf16_from_bits, bf16_to_bits, f16_from_bits, f16_to_bits};
use super::value::{Array, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, ScalarType};

/// The little-endian buffer image of a scalar array.
pub(super) fn array_to_bytes(a: &Array) -> Option<Vec<u8>> {
    macro_rules! le {
        ($v:expr, $f:expr) => {
            $v.iter().flat_map(|x| $f(*x)).collect()
        };
    }
    Some(match a {
        Array::Bool(v) => le!(v, |b: bool| u32::from(b).to_le_bytes()),
        Array::I8(v) => le!(v, i8::to_le_bytes),
        Array::I16(v) => le!(v, i16::to_le_bytes),
        Array::I32(v) => le!(v, i32::to_le_bytes),
        Array::I64(v) => le!(v, i64::to_le_bytes),
        Array::U8(v) => v.clone(),
        Array::U16(v) => le!(v, u16::to_le_bytes),
        Array::U32(v) => le!(v, u32::to_le_bytes),
        Array::U64(v) => le!(v, u64::to_le_bytes),
        Array::F16(v) => le!(v, |x: f32| f16_to_bits(x).to_le_bytes()),
        Array::BF16(v) => le!(v, |x: f32| bf16_to_bits(x).to_le_bytes()),
        Array::F32(v) => le!(v, f32::to_le_bytes),
        Array::F64(v) => le!(v, f64::to_le_bytes),
        Array::Flat(_) | Array::Values(_) => return None,
    })
}

/// The array's own memory as its little-endian buffer image, where the two are the same
/// bytes (32- and 64-bit integers and floats on a little-endian host): a transfer then
/// copies straight between the array and the staging memory, with no image in between.
pub(super) fn plain_bytes(a: &Array) -> Option<&[u8]> {
    fn view<T>(v: &[T]) -> &[u8] {
        // SAFETY: plain-old-data elements without padding, viewed as the bytes they occupy.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
    }
    if cfg!(target_endian = "big") {
        return None;
    }
    Some(match a {
        Array::I32(v) => view(v),
        Array::U32(v) => view(v),
        Array::F32(v) => view(v),
        Array::I64(v) => view(v),
        Array::U64(v) => view(v),
        Array::F64(v) => view(v),
        _ => return None,
    })
}

/// [`plain_bytes`], writable: a download lands straight in the array.
pub(super) fn plain_bytes_mut(a: &mut Array) -> Option<&mut [u8]> {
    fn view<T>(v: &mut [T]) -> &mut [u8] {
        // SAFETY: as in `plain_bytes`; every bit pattern is a valid value of these types.
        unsafe {
            std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(v))
        }
    }
    if cfg!(target_endian = "big") {
        return None;
    }
    Some(match a {
        Array::I32(v) => view(v),
        Array::U32(v) => view(v),
        Array::F32(v) => view(v),
        Array::I64(v) => view(v),
        Array::U64(v) => view(v),
        Array::F64(v) => view(v),
        _ => return None,
    })
}

/// Overwrites a scalar array from its little-endian buffer image (same length).
pub(super) fn array_from_bytes(a: &mut Array, bytes: &[u8]) {
    macro_rules! de {
        ($v:expr, $n:literal, $f:expr) => {
            for (x, c) in $v.iter_mut().zip(bytes.chunks_exact($n)) {
                let mut raw = [0u8; $n];
                raw.copy_from_slice(c);
                *x = $f(raw);
            }
        };
    }
    match a {
        Array::Bool(v) => de!(v, 4, |r| u32::from_le_bytes(r) != 0),
        Array::I8(v) => de!(v, 1, i8::from_le_bytes),
        Array::I16(v) => de!(v, 2, i16::from_le_bytes),
        Array::I32(v) => de!(v, 4, i32::from_le_bytes),
        Array::I64(v) => de!(v, 8, i64::from_le_bytes),
        Array::U8(v) => de!(v, 1, u8::from_le_bytes),
        Array::U16(v) => de!(v, 2, u16::from_le_bytes),
        Array::U32(v) => de!(v, 4, u32::from_le_bytes),
        Array::U64(v) => de!(v, 8, u64::from_le_bytes),
        Array::F16(v) => de!(v, 2, |r| f16_from_bits(u16::from_le_bytes(r))),
        Array::BF16(v) => de!(v, 2, |r| bf16_from_bits(u16::from_le_bytes(r))),
        Array::F32(v) => de!(v, 4, f32::from_le_bytes),
        Array::F64(v) => de!(v, 8, f64::from_le_bytes),
        Array::Flat(_) | Array::Values(_) => {}
    }
}

impl Interp<'_> {
    /// Buffer upload/download: checks that the values of `[buffer, array]` (the operands
    /// `args`) match.
    pub(super) fn transfer(
        &mut self,
        (buffer, array): (Value, Value),
        args: &[Expr],
        span: Span,
        dir: &str,
    ) -> Result<Transfer, Fail> {
        // A third argument, when present, is the stream (see `transfer_stream`).
        let [b, a, ..] = args else {
            return internal(span, format!("{dir} needs a buffer and an array"));
        };
        let obj = buffer_of(buffer, b)?;
        let array = array_of(array, a)?;
        let buffer = self.live_buffer(&obj, b, span)?;
        let (len, elem) = {
            let a = array.borrow();
            (a.len() as u64, a.elem_scalar())
        };
        let int_lane = super::int_transfer::native_lane(obj.elem);
        let sfp = (obj.elem == ScalarType::Sfp).then(|| self.device.sfp_storage());
        let matches = elem == Some(obj.elem)
            || (int_lane.is_some() && elem == Some(ScalarType::I32))
            || (sfp.is_some() && elem == Some(ScalarType::F32));
        if !matches {
            let name = elem.map(|s| s.name()).unwrap_or("object");
            return err(
                span,
                format!(
                    "cannot {dir} a {name}[] array with a KernelBuffer<{}>",
                    obj.elem_type()
                ),
            );
        }
        // A buffer of Vector<T,N> travels as a flat T[] of N times its length.
        let want = obj.len.saturating_mul(u64::from(obj.lanes));
        if len != want {
            let flat = if obj.lanes > 1 {
                format!(" ({want} {} values)", obj.elem)
            } else {
                String::new()
            };
            return err(
                span,
                format!(
                    "{dir} length mismatch: the KernelBuffer<{}> has {} elements{flat} but the host array has {len}",
                    obj.elem_type(), obj.len
                ),
            );
        }
        Ok(Transfer {
            buffer,
            sfp,
            array,
            layout: super::lanes::Layout::of(int_lane.unwrap_or(obj.elem), obj.lanes),
            int_lane,
        })
    }
}

impl Transfer {
    /// Whether the array's memory is the buffer's image as it is (see [`plain_bytes`]).
    pub(super) fn is_plain(&self) -> bool {
        self.sfp.is_none()
            && self.int_lane.is_none()
            && self.layout.is_flat()
            && plain_bytes(&self.array.borrow()).is_some()
    }
}

/// A checked buffer transfer.
pub(super) struct Transfer {
    pub(super) buffer: DevBuffer,
    /// `Some(form)` for a `KernelBuffer<sfp>` (float32 values on the host, SPEC §8).
    pub(super) sfp: Option<cajeta_runtime::FloatStorage>,
    pub(super) array: super::value::ArrayRef,
    /// How the flat array's elements sit in the buffer (vec3 padding).
    pub(super) layout: super::lanes::Layout,
    /// The native lane of an integer precision buffer (see `int_transfer`).
    pub(super) int_lane: Option<ScalarType>,
}
