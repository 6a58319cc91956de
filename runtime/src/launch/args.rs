//! What a caller hands a launch: its shape ([`LaunchConfig`]) and arguments ([`KernelArg`],
//! [`ScalarValue`]), and the packed push-constant bytes they become ([`PushBlock`]).

use super::*;

/// The shape of one launch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Number of workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Workgroup size in x, y, z; sets SpecIds 0, 1, 2.
    pub block: [u32; 3],
    /// Raw 32-bit values for the user `Spec` slots: `spec[i]` sets SpecId `4 + i`.
    pub spec: Vec<u32>,
    /// Size of the dynamic shared array; sets SpecId 3 (only if the kernel declares it).
    pub shared_bytes: Option<u32>,
    /// Specialize the kernel's `psc(p)` parameters to this launch's (non-zero) argument
    /// values: one pipeline per distinct set of values, cached like any other.
    pub psc: bool,
}

impl LaunchConfig {
    /// A launch of `grid` workgroups of `block` threads, without spec values or shared size.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            spec: Vec::new(),
            shared_bytes: None,
            psc: false,
        }
    }
}

/// A scalar kernel argument, travelling in the push-constant block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    /// `boolean`, pushed as a 4-byte 0 or 1.
    Bool(bool),
    /// `int8`.
    I8(i8),
    /// `int16`.
    I16(i16),
    /// `int32`.
    I32(i32),
    /// `int64`.
    I64(i64),
    /// `uint8`.
    U8(u8),
    /// `uint16`.
    U16(u16),
    /// `uint32`.
    U32(u32),
    /// `uint64`.
    U64(u64),
    /// `float32`.
    F32(f32),
    /// `float64`.
    F64(f64),
}

impl ScalarValue {
    /// The reflection type name: `"boolean"`, `"int8"` … `"uint64"`, `"float32"`, `"float64"`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ScalarValue::Bool(_) => "boolean",
            ScalarValue::I8(_) => "int8",
            ScalarValue::I16(_) => "int16",
            ScalarValue::I32(_) => "int32",
            ScalarValue::I64(_) => "int64",
            ScalarValue::U8(_) => "uint8",
            ScalarValue::U16(_) => "uint16",
            ScalarValue::U32(_) => "uint32",
            ScalarValue::U64(_) => "uint64",
            ScalarValue::F32(_) => "float32",
            ScalarValue::F64(_) => "float64",
        }
    }

    /// Little-endian bytes as the push-constant block holds them (boolean as a 4-byte 0/1,
    /// the SPIR-V representation of a boolean in a block).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut bytes = [0u8; 8];
        let len = self.write_le(&mut bytes);
        bytes[..len].to_vec()
    }

    /// Writes those bytes into `out` without allocating; returns how many.
    pub(super) fn write_le(&self, out: &mut [u8; 8]) -> usize {
        fn put<const N: usize>(out: &mut [u8; 8], b: [u8; N]) -> usize {
            out[..N].copy_from_slice(&b);
            N
        }
        match *self {
            ScalarValue::Bool(b) => put(out, u32::from(b).to_le_bytes()),
            ScalarValue::I8(v) => put(out, v.to_le_bytes()),
            ScalarValue::I16(v) => put(out, v.to_le_bytes()),
            ScalarValue::I32(v) => put(out, v.to_le_bytes()),
            ScalarValue::I64(v) => put(out, v.to_le_bytes()),
            ScalarValue::U8(v) => put(out, v.to_le_bytes()),
            ScalarValue::U16(v) => put(out, v.to_le_bytes()),
            ScalarValue::U32(v) => put(out, v.to_le_bytes()),
            ScalarValue::U64(v) => put(out, v.to_le_bytes()),
            ScalarValue::F32(v) => put(out, v.to_le_bytes()),
            ScalarValue::F64(v) => put(out, v.to_le_bytes()),
        }
    }
}

/// Push-constant bytes of one launch: inline up to [`PushBlock::INLINE`] bytes (the
/// guaranteed `maxPushConstantsSize`), on the heap beyond. Reused from launch to launch.
pub(crate) struct PushBlock {
    inline: [u8; PushBlock::INLINE],
    heap: Vec<u8>,
    len: usize,
}

impl Default for PushBlock {
    fn default() -> PushBlock {
        PushBlock {
            inline: [0; PushBlock::INLINE],
            heap: Vec::new(),
            len: 0,
        }
    }
}

impl PushBlock {
    const INLINE: usize = 128;

    /// Makes the block `len` zero bytes (the bytes no member covers stay zero).
    pub(super) fn reset(&mut self, len: usize) {
        self.len = len;
        if len > PushBlock::INLINE {
            self.heap.clear();
            self.heap.resize(len, 0);
        } else {
            self.inline[..len].fill(0);
        }
    }

    /// The bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        if self.len > PushBlock::INLINE {
            &self.heap
        } else {
            &self.inline[..self.len]
        }
    }

    pub(super) fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.len > PushBlock::INLINE {
            &mut self.heap
        } else {
            &mut self.inline[..self.len]
        }
    }

    /// Whether there are no bytes.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One kernel argument, in parameter order.
#[derive(Debug, Clone, Copy)]
pub enum KernelArg<'a> {
    /// A `KernelBuffer<T>` parameter.
    Buffer(&'a Buffer),
    /// A buffer-array parameter (`KernelBuffer<T>[]`): its buffers in index order (at least
    /// one, at most the kernel's capacity, [`crate::BUFFER_ARRAY_CAPACITY`] or the device's
    /// smaller limit).
    Buffers(&'a [Buffer]),
    /// An `Image2D` parameter, or a `Texture2D` parameter fed by a storage image created with
    /// `SAMPLED` usage ([`Image2D::is_sampled`]).
    Image(&'a Image2D),
    /// A `Texture1D/2D/3D/2DArray/Cube` parameter.
    Texture(&'a Texture),
    /// A `Sampler` parameter.
    Sampler(&'a Sampler),
    /// An `AccelerationStructure` parameter: a top-level structure.
    AccelStruct(&'a crate::acceleration::AccelStruct),
    /// A scalar parameter.
    Scalar(ScalarValue),
    /// A vector or POD push-constant parameter as raw std430 bytes (length must equal the
    /// member's size); the host interpreter packs these, the runtime only places them.
    Bytes(&'a [u8]),
}

impl KernelArg<'_> {
    pub(crate) fn describe(&self) -> String {
        match self {
            KernelArg::Buffer(_) => "a buffer".into(),
            KernelArg::Buffers(b) => format!("an array of {} buffers", b.len()),
            KernelArg::Image(i) => format!("an {} image", i.format()),
            KernelArg::Texture(t) => format!("a {} {} texture", t.desc().dim, t.format()),
            KernelArg::Sampler(_) => "a sampler".into(),
            KernelArg::AccelStruct(a) => match a.level() {
                crate::acceleration::AccelLevel::Top => "a top-level acceleration structure".into(),
                crate::acceleration::AccelLevel::Bottom => {
                    "a bottom-level acceleration structure".into()
                }
            },
            KernelArg::Scalar(v) => format!("a {} value", v.type_name()),
            KernelArg::Bytes(b) => format!("{} raw bytes", b.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScalarValue;

    #[test]
    fn scalars_become_their_push_constant_bytes() {
        assert_eq!(ScalarValue::Bool(true).to_le_bytes(), [1, 0, 0, 0]);
        assert_eq!(ScalarValue::I8(-2).to_le_bytes(), [0xFE]);
        assert_eq!(ScalarValue::U16(0x1234).to_le_bytes(), [0x34, 0x12]);
        assert_eq!(ScalarValue::F32(1.0).to_le_bytes(), 1.0f32.to_le_bytes());
        assert_eq!(ScalarValue::I64(-1).to_le_bytes(), [0xFF; 8]);
    }
}
