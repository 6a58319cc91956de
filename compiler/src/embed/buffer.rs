//! Typed device buffers for the embedding API.

use std::marker::PhantomData;

use cajeta_runtime::{Buffer, Context, Stream};

use super::Result;

/// A plain element type of a `KernelBuffer<T>`: its reflection name and little-endian bytes.
pub trait Element: Copy + Default + 'static {
    /// The reflection's `element_type` for this type (`"float32"`, `"uint32"`…).
    const TYPE_NAME: &'static str;
    /// Size in bytes.
    const SIZE: usize;
    /// Appends the little-endian bytes of `self`.
    fn put(self, out: &mut Vec<u8>);
    /// Reads one value from exactly `Self::SIZE` little-endian bytes.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($($t:ty => $name:literal),*) => {$(
        impl Element for $t {
            const TYPE_NAME: &'static str = $name;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(bytes);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
element!(f32 => "float32", f64 => "float64", i8 => "int8", i16 => "int16", i32 => "int32",
    i64 => "int64", u8 => "uint8", u16 => "uint16", u32 => "uint32", u64 => "uint64");

/// A device buffer of `len` elements of `T`. Cheap to clone (clones share the buffer).
#[derive(Debug, Clone)]
pub struct DeviceBuffer<T: Element> {
    buffer: Buffer,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Element> DeviceBuffer<T> {
    pub(crate) fn new(ctx: &Context, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = (len as u64).saturating_mul(T::SIZE as u64);
        Ok(DeviceBuffer {
            buffer: ctx.create_buffer(bytes)?,
            len,
            _t: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements (never true: zero-sized buffers are refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The runtime buffer.
    pub fn raw(&self) -> &Buffer {
        &self.buffer
    }

    /// Records an upload of `data` (exactly `len()` elements).
    pub fn upload(&self, stream: &Stream, data: &[T]) -> Result<()> {
        let mut bytes = Vec::with_capacity(data.len() * T::SIZE);
        for &v in data {
            v.put(&mut bytes);
        }
        stream.upload_buffer(&self.buffer, &bytes)?;
        Ok(())
    }

    /// Copies all of `src`, a buffer of the same length on any device, into this buffer (a
    /// peer copy through host memory both devices import, or staged where they cannot; see
    /// [`cajeta_runtime::copy_buffer_peer`]). `stream` is a stream of this buffer's device,
    /// `src_stream` of `src`'s; the copy follows their work so far and has finished when this
    /// returns.
    pub fn copy_from(
        &self,
        stream: &Stream,
        src: &DeviceBuffer<T>,
        src_stream: &Stream,
    ) -> Result<cajeta_runtime::PeerPath> {
        Ok(cajeta_runtime::copy_buffer_peer(
            src_stream,
            &src.buffer,
            stream,
            &self.buffer,
        )?)
    }

    /// Submits the stream's work, waits, and returns the buffer's contents.
    pub fn download(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut bytes = vec![0u8; self.len * T::SIZE];
        stream.download_buffer(&self.buffer, &mut bytes)?;
        Ok(bytes.chunks_exact(T::SIZE).map(T::get).collect())
    }
}
