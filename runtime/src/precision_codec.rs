//! Host-side encoding of `sfp` buffers (SPEC §8): `float32` values to and from the bytes a
//! kernel compiled for a [`PrecisionVariant`] reads and writes, for embedders that fill and
//! read such buffers themselves (the host interpreter uses the same functions).
//!
//! Every 16-bit form has the same byte image: element `i` is the little-endian 16-bit value
//! at byte `2 i`. In the packed forms that is the low (even `i`) or high (odd `i`) half of
//! `uint32` word `i / 2`, which is how the kernels address it, so packed and native buffers
//! need no different host code. Values are rounded to nearest even (NaN stays NaN).

use crate::precision::{FloatStorage, IntStorage, PrecisionVariant};

/// The bytes of `values` as `sfp` storage in `storage` form (`4 * len` bytes for fp32,
/// `2 * len` for the 16-bit forms; callers pad the packed forms to whole words).
pub fn encode_sfp(storage: FloatStorage, values: &[f32]) -> Vec<u8> {
    match storage {
        FloatStorage::Fp32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        FloatStorage::Fp16 | FloatStorage::Fp16Packed => values
            .iter()
            .flat_map(|v| half::f16::from_f32(*v).to_bits().to_le_bytes())
            .collect(),
        FloatStorage::Bf16 | FloatStorage::Bf16Packed => values
            .iter()
            .flat_map(|v| half::bf16::from_f32(*v).to_bits().to_le_bytes())
            .collect(),
    }
}

/// Decodes `out.len()` values of `sfp` storage in `storage` form from `bytes` (which must
/// hold at least that many; extra bytes are ignored).
pub fn decode_sfp(storage: FloatStorage, bytes: &[u8], out: &mut [f32]) {
    match storage {
        FloatStorage::Fp32 => {
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        FloatStorage::Fp16 | FloatStorage::Fp16Packed => {
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32();
            }
        }
        FloatStorage::Bf16 | FloatStorage::Bf16Packed => {
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32();
            }
        }
    }
}

/// Bytes of `len` `sfp` elements in `storage` form, rounded up to whole 4-byte words (what
/// a buffer of them must hold).
pub fn sfp_buffer_bytes(storage: FloatStorage, len: u64) -> u64 {
    match storage {
        FloatStorage::Fp32 => len * 4,
        _ => (len * 2).div_ceil(4) * 4,
    }
}

impl PrecisionVariant {
    /// Parses a [`PrecisionVariant::name`] (`fp16s+fp16a`, `bf16p+int8s` …); `None` for an
    /// unknown part. `int16_arithmetic` is not part of the name and comes back `false`.
    pub fn from_name(name: &str) -> Option<PrecisionVariant> {
        let mut parts = name.split('+');
        let mut v = PrecisionVariant {
            float_storage: match parts.next()? {
                "fp32" => FloatStorage::Fp32,
                "fp16p" => FloatStorage::Fp16Packed,
                "fp16s" => FloatStorage::Fp16,
                "bf16p" => FloatStorage::Bf16Packed,
                "bf16s" => FloatStorage::Bf16,
                _ => return None,
            },
            ..Default::default()
        };
        for p in parts {
            match p {
                "fp16a" => v.fp16_arithmetic = true,
                "fp16u" => v.fp16_uniform = true,
                "int8s" => v.int8_storage = IntStorage::Native,
                "int8a" => v.int8_arithmetic = true,
                "int16s" => v.int16_storage = IntStorage::Native,
                _ => return None,
            }
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bit_forms_round_to_nearest_even_and_share_one_image() {
        let values = [1.0f32, 1.0 + 1.0 / 4096.0, -2.5, 65504.0];
        let packed = encode_sfp(FloatStorage::Fp16Packed, &values);
        assert_eq!(packed, encode_sfp(FloatStorage::Fp16, &values));
        assert_eq!(&packed[..2], &0x3c00u16.to_le_bytes());
        let mut back = [0f32; 4];
        decode_sfp(FloatStorage::Fp16Packed, &packed, &mut back);
        // 1 + 2^-12 is a tie between 1 and 1 + 2^-10: even wins.
        assert_eq!(back, [1.0, 1.0, -2.5, 65504.0]);
        let bf = encode_sfp(FloatStorage::Bf16Packed, &[1.0 + 3.0 / 256.0]);
        decode_sfp(FloatStorage::Bf16, &bf, &mut back[..1]);
        assert_eq!(back[0], 1.015625);
        assert_eq!(sfp_buffer_bytes(FloatStorage::Fp16Packed, 3), 8);
        assert_eq!(sfp_buffer_bytes(FloatStorage::Fp32, 3), 12);
    }

    #[test]
    fn names_parse_back() {
        for name in [
            "fp32",
            "fp16p",
            "fp16s+fp16a",
            "fp16p+fp16a",
            "fp16s+fp16u",
            "bf16p",
            "bf16s+int8s+int8a",
        ] {
            let v = PrecisionVariant::from_name(name).expect(name);
            assert_eq!(v.name(), name);
        }
        assert_eq!(PrecisionVariant::from_name("fp8"), None);
    }
}
