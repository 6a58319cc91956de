//! Host transfers of `KernelBuffer<sfp>` (SPEC §8): the host holds `float32[]`, the buffer
//! the variant's storage form; the runtime's `encode_sfp`/`decode_sfp` convert.

use cajeta_runtime::FloatStorage;

use super::value::Array;

/// The buffer image of a `float32[]` in `form`, padded to whole 4-byte words (packed forms
/// hold two elements per word).
pub(super) fn encode(form: FloatStorage, a: &Array) -> Vec<u8> {
    let Array::F32(values) = a else {
        return Vec::new();
    };
    let mut bytes = cajeta_runtime::encode_sfp(form, values);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes
}

/// Overwrites a `float32[]` from a buffer image in `form`.
pub(super) fn decode(form: FloatStorage, bytes: &[u8], a: &mut Array) {
    if let Array::F32(values) = a {
        cajeta_runtime::decode_sfp(form, bytes, values);
    }
}
