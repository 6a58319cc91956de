//! Device resources: storage buffers and 2-D storage images.
//!
//! Both are `Arc` handles. A batch that records a command using one keeps a clone until its
//! fence signals, so dropping the user's handle while work is in flight only releases the
//! user's reference; the Vulkan object is destroyed when the last reference goes.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::lock;
use crate::memory::{RawBuffer, RawImage};

/// Identifies a buffer or image within its context; never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub u64);

impl fmt::Display for ResourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Whether a resource is a buffer or an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// A storage buffer.
    Buffer,
    /// A storage image.
    Image,
}

/// Texel formats of [`Image2D`] (SPEC §6: R32F by default, the others an extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImageFormat {
    /// One 32-bit float channel (`VK_FORMAT_R32_SFLOAT`, SPIR-V `R32f`).
    #[default]
    R32Float,
    /// Four 32-bit float channels.
    Rgba32Float,
    /// Four 16-bit float channels.
    Rgba16Float,
    /// One 16-bit float channel.
    R16Float,
    /// Four 8-bit unsigned normalized channels.
    Rgba8Unorm,
    /// One 32-bit unsigned integer channel.
    R32Uint,
    /// One 32-bit signed integer channel.
    R32Sint,
    /// One 8-bit unsigned normalized channel (textures; storage needs
    /// `shaderStorageImageExtendedFormats`).
    R8Unorm,
    /// Four 32-bit signed integer channels.
    Rgba32Sint,
    /// Four 32-bit unsigned integer channels.
    Rgba32Uint,
}

/// What a shader reads from a format: floats (float and normalized formats), signed or
/// unsigned integers. A sampled image's SPIR-V sampled type must match the class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormatClass {
    /// Float and UNORM formats.
    Float,
    /// Signed integer formats.
    Sint,
    /// Unsigned integer formats.
    Uint,
}

/// The formats of textures are the formats of images (SPEC §6 `TextureFormat`).
pub type TextureFormat = ImageFormat;

impl ImageFormat {
    const ALL: [(ImageFormat, &'static str); 10] = [
        (ImageFormat::R32Float, "r32f"),
        (ImageFormat::Rgba32Float, "rgba32f"),
        (ImageFormat::Rgba16Float, "rgba16f"),
        (ImageFormat::R16Float, "r16f"),
        (ImageFormat::Rgba8Unorm, "rgba8"),
        (ImageFormat::R32Uint, "r32ui"),
        (ImageFormat::R32Sint, "r32i"),
        (ImageFormat::R8Unorm, "r8"),
        (ImageFormat::Rgba32Sint, "rgba32i"),
        (ImageFormat::Rgba32Uint, "rgba32ui"),
    ];

    /// Every format, in declaration order.
    pub fn all() -> impl Iterator<Item = ImageFormat> {
        Self::ALL.iter().map(|(f, _)| *f)
    }

    /// Whether shaders read floats, signed or unsigned integers from this format.
    pub fn class(self) -> FormatClass {
        match self {
            ImageFormat::R32Uint | ImageFormat::Rgba32Uint => FormatClass::Uint,
            ImageFormat::R32Sint | ImageFormat::Rgba32Sint => FormatClass::Sint,
            _ => FormatClass::Float,
        }
    }

    /// Parses a reflection `image_format` name (`"r32f"`, `"rgba8"`…, the SPIR-V/GLSL spelling).
    pub fn from_reflection_name(name: &str) -> Option<ImageFormat> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }

    /// The reflection name of the format.
    pub fn reflection_name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .unwrap_or("r32f")
    }

    /// Bytes per texel, as downloads lay them out.
    pub fn texel_size(self) -> u32 {
        match self {
            ImageFormat::R32Float | ImageFormat::R32Uint | ImageFormat::R32Sint => 4,
            ImageFormat::Rgba32Float | ImageFormat::Rgba32Sint | ImageFormat::Rgba32Uint => 16,
            ImageFormat::R8Unorm => 1,
            ImageFormat::Rgba16Float => 8,
            ImageFormat::R16Float => 2,
            ImageFormat::Rgba8Unorm => 4,
        }
    }

    /// The Vulkan format.
    pub fn vk_format(self) -> vk::Format {
        match self {
            ImageFormat::R32Float => vk::Format::R32_SFLOAT,
            ImageFormat::Rgba32Float => vk::Format::R32G32B32A32_SFLOAT,
            ImageFormat::Rgba16Float => vk::Format::R16G16B16A16_SFLOAT,
            ImageFormat::R16Float => vk::Format::R16_SFLOAT,
            ImageFormat::Rgba8Unorm => vk::Format::R8G8B8A8_UNORM,
            ImageFormat::R32Uint => vk::Format::R32_UINT,
            ImageFormat::R32Sint => vk::Format::R32_SINT,
            ImageFormat::R8Unorm => vk::Format::R8_UNORM,
            ImageFormat::Rgba32Sint => vk::Format::R32G32B32A32_SINT,
            ImageFormat::Rgba32Uint => vk::Format::R32G32B32A32_UINT,
        }
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reflection_name())
    }
}

/// Where a buffer's memory lives (Cajeta's `MemoryKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MemoryKind {
    /// Device-local memory (`DEVICE_LOCAL`; host-visible too where the device has such a
    /// heap above 1 GiB, so uploads can write it directly). The default.
    #[default]
    Device,
    /// Host-visible, host-coherent memory the device reads and writes (device-local too
    /// where the device allows: unified memory, ReBAR). Downloads read it directly.
    HostVisible,
    /// Host-visible, host-cached memory, best for data the host reads back. Downloads read
    /// it directly.
    HostCached,
}

pub(crate) struct BufferInner {
    pub(crate) shared: Arc<DeviceShared>,
    pub(crate) id: ResourceId,
    pub(crate) size: u64,
    pub(crate) raw: RawBuffer,
    /// The memory kind it was created with.
    pub(crate) kind: MemoryKind,
    /// Its buffer device address (0 where the device has no `bufferDeviceAddress`).
    pub(crate) device_address: u64,
    /// Serializes direct host writes into a host-visible buffer.
    host_lock: Mutex<()>,
}

impl Drop for BufferInner {
    fn drop(&mut self) {
        // Last reference: no batch holds a clone, so no pending command uses the buffer.
        self.raw.destroy(&self.shared);
        lock(&self.shared.tracker).forget(self.id);
    }
}

/// A device-local storage buffer (`STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST`). Contents
/// start undefined. Cheap to clone; all clones are the same buffer. A [`Buffer::slice`] is a
/// `Buffer` too, covering a byte range of its parent's memory (which it keeps alive).
#[derive(Clone)]
pub struct Buffer {
    pub(crate) inner: Arc<BufferInner>,
    /// First byte of the memory this handle covers.
    pub(crate) offset: u64,
    /// Bytes this handle covers (the whole buffer unless it is a slice).
    pub(crate) len: u64,
}

impl Buffer {
    pub(crate) fn new(shared: &Arc<DeviceShared>, size: u64, kind: MemoryKind) -> Result<Buffer> {
        if size == 0 {
            return Err(RuntimeError::InvalidResource(
                "buffer size must be greater than zero".into(),
            ));
        }
        // Past it vkCreateBuffer's behaviour is undefined; past device memory the allocation
        // fails with its own error.
        if let Some(max) = shared.info.limits.max_buffer_size.filter(|&m| size > m) {
            return Err(RuntimeError::InvalidResource(format!(
                "a buffer of {size} bytes exceeds the device's maxBufferSize = {max}"
            )));
        }
        let mut usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        if shared.buffer_address {
            usage |= vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        }
        // Where device-local memory is host-visible too, buffers live there so uploads can
        // write them directly (see `upload_buffer`); shaders see device-local memory either way.
        let location = match kind {
            MemoryKind::Device if shared.host_visible_device_local => MemoryLocation::CpuToGpu,
            MemoryKind::Device => MemoryLocation::GpuOnly,
            MemoryKind::HostVisible => MemoryLocation::CpuToGpu,
            MemoryKind::HostCached => MemoryLocation::GpuToCpu,
        };
        let raw = RawBuffer::new(
            shared,
            size,
            usage,
            location,
            &format!("buffer of {size} bytes"),
        )?;
        let id = ResourceId(shared.next_resource_id());
        let device_address = if shared.buffer_address {
            let info = vk::BufferDeviceAddressInfo::default().buffer(raw.buffer);
            // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage on a device
            // with bufferDeviceAddress enabled, and its memory is bound.
            unsafe { shared.logical.0.get_buffer_device_address(&info) }
        } else {
            0
        };
        Ok(Buffer {
            inner: Arc::new(BufferInner {
                shared: shared.clone(),
                id,
                size,
                raw,
                kind,
                device_address,
                host_lock: Mutex::new(()),
            }),
            offset: 0,
            len: size,
        })
    }

    /// A small host-readable storage buffer (`GpuToCpu` memory, zero-filled): checked mode's
    /// violation record, which the host reads after the launch's batch has finished.
    pub(crate) fn new_readback(shared: &Arc<DeviceShared>, size: u64) -> Result<Buffer> {
        let raw = RawBuffer::new(
            shared,
            size,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::GpuToCpu,
            "bounds-check record",
        )?;
        let id = ResourceId(shared.next_resource_id());
        let b = Buffer {
            inner: Arc::new(BufferInner {
                shared: shared.clone(),
                id,
                size,
                raw,
                kind: MemoryKind::HostCached,
                device_address: 0,
                host_lock: Mutex::new(()),
            }),
            offset: 0,
            len: size,
        };
        b.zero_readback();
        Ok(b)
    }

    /// The words of a readback buffer (empty if it is not mapped). The caller guarantees the
    /// device is done writing it (its batch's fence signalled, after a SHADER→HOST barrier).
    pub(crate) fn read_words(&self) -> Vec<u32> {
        let Some(ptr) = self.inner.raw.mapped_ptr() else {
            return Vec::new();
        };
        let n = (self.inner.size / 4) as usize;
        let _guard = lock(&self.inner.host_lock);
        // SAFETY: the mapping covers `size` bytes, is HOST_COHERENT (gpu-allocator's GpuToCpu)
        // and 4-byte aligned (a mapping starts at least `minMemoryMapAlignment`-aligned plus a
        // storage-buffer-aligned offset); the device no longer writes it (caller's guarantee).
        (0..n)
            .map(|i| unsafe { ptr.cast::<u32>().add(i).read_volatile() })
            .collect()
    }

    /// Zero-fills a readback buffer that no pending command uses.
    pub(crate) fn zero_readback(&self) {
        if let Some(ptr) = self.inner.raw.mapped_ptr() {
            let _guard = lock(&self.inner.host_lock);
            // SAFETY: as in `read_words`; no pending command uses the buffer.
            unsafe { std::ptr::write_bytes(ptr, 0, self.inner.size as usize) };
        }
    }

    /// Writes `data` straight into a host-visible buffer; `false` (nothing written) when the
    /// buffer is not host-mapped. The caller guarantees no device work uses the buffer.
    pub(crate) fn write_mapped(&self, data: &[u8]) -> bool {
        if !self.inner.shared.host_visible_device_local {
            return false;
        }
        let Some(ptr) = self.inner.raw.mapped_ptr() else {
            return false;
        };
        if data.len() as u64 > self.inner.size {
            return false;
        }
        let _guard = lock(&self.inner.host_lock);
        // SAFETY: the mapping covers the buffer's `size` bytes (checked above); the device
        // does not access it (caller's guarantee) and other host writers are excluded by the
        // lock. The memory is HOST_COHERENT, and the next vkQueueSubmit makes it visible.
        let dst = unsafe { std::slice::from_raw_parts_mut(ptr, data.len()) };
        crate::host_copy::copy(dst, data, self.inner.shared.transfer.threads);
        true
    }

    /// The memory kind the buffer was created with.
    pub fn memory_kind(&self) -> MemoryKind {
        self.inner.kind
    }

    /// Copies the whole buffer's bytes from its mapping into `out` (same length); `false`
    /// (nothing read) when it is not mapped. The caller guarantees the device's writes are
    /// finished and made available to the host.
    pub(crate) fn read_mapped(&self, out: &mut [u8]) -> bool {
        let Some(ptr) = self.inner.raw.mapped_ptr() else {
            return false;
        };
        if out.len() as u64 != self.inner.size {
            return false;
        }
        let _guard = lock(&self.inner.host_lock);
        // SAFETY: the mapping covers the buffer's `size` bytes (checked above); gpu-allocator
        // maps host-visible memory HOST_COHERENT; the device no longer writes it (caller).
        let src = unsafe { std::slice::from_raw_parts(ptr.cast_const(), out.len()) };
        crate::host_copy::copy(out, src, self.inner.shared.transfer.threads);
        true
    }

    /// Whether the buffer lives in host-visible device-local memory.
    pub fn is_host_visible(&self) -> bool {
        self.inner.shared.host_visible_device_local && self.inner.raw.mapped_ptr().is_some()
    }

    /// The buffer's id, as the barrier log names it.
    pub fn id(&self) -> ResourceId {
        self.inner.id
    }

    /// Size in bytes (of the slice, for a slice).
    pub fn size(&self) -> u64 {
        self.len
    }

    /// Byte offset of this handle in the buffer's memory (0 unless it is a slice).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether this handle covers only part of the buffer's memory.
    pub fn is_slice(&self) -> bool {
        self.offset != 0 || self.len != self.inner.size
    }

    /// The `len` bytes from byte `offset` of this buffer (or slice) as a buffer of their own:
    /// usable as a kernel argument (bound with that offset and range) and as a transfer
    /// source or target. Hazards are tracked for the whole underlying buffer. Fails when the
    /// range is empty or does not lie inside this handle's bytes. A kernel argument's offset
    /// must also be a multiple of the device's `minStorageBufferOffsetAlignment` (checked at
    /// launch).
    pub fn slice(&self, offset: u64, len: u64) -> Result<Buffer> {
        let end = offset.checked_add(len);
        if len == 0 || end.is_none_or(|e| e > self.len) {
            return Err(RuntimeError::InvalidResource(format!(
                "slice of {len} bytes at byte {offset} is out of bounds of a buffer of {} bytes",
                self.len
            )));
        }
        Ok(Buffer {
            inner: self.inner.clone(),
            offset: self.offset + offset,
            len,
        })
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("id", &self.inner.id)
            .field("size", &self.inner.size)
            .finish()
    }
}

pub(crate) struct ImageInner {
    pub(crate) shared: Arc<DeviceShared>,
    pub(crate) id: ResourceId,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) format: ImageFormat,
    pub(crate) raw: RawImage,
    pub(crate) view: vk::ImageView,
    /// Whether the image was created with `SAMPLED` usage (the format allows sampling).
    pub(crate) sampled: bool,
}

impl Drop for ImageInner {
    fn drop(&mut self) {
        self.raw.destroy_with_view(&self.shared, self.view, self.id);
    }
}

/// A 2-D storage image (`STORAGE | TRANSFER_SRC | TRANSFER_DST`, plus `SAMPLED` when the format
/// can be sampled; optimal tiling, one mip level). Created in `UNDEFINED` layout; the first
/// command using it moves it to `GENERAL`, where it stays for dispatches and copies. Bound to a
/// sampled-texture parameter (`KernelArg::Image` for a `Texture2D`), it moves to
/// `SHADER_READ_ONLY_OPTIMAL` for that launch and back to `GENERAL` at its next other use.
/// Texels start undefined.
#[derive(Clone)]
pub struct Image2D {
    pub(crate) inner: Arc<ImageInner>,
}

impl Image2D {
    pub(crate) fn new(
        shared: &Arc<DeviceShared>,
        width: u32,
        height: u32,
        format: ImageFormat,
    ) -> Result<Image2D> {
        let max = shared.raw_limits.max_image_dimension2_d;
        if width == 0 || height == 0 {
            return Err(RuntimeError::InvalidResource(format!(
                "image size {width}x{height} has a zero dimension"
            )));
        }
        if width > max || height > max {
            return Err(RuntimeError::InvalidResource(format!(
                "image size {width}x{height} exceeds maxImageDimension2D = {max}"
            )));
        }
        let vk_format = format.vk_format();
        let features = shared.optimal_format_features(vk_format);
        let needed = vk::FormatFeatureFlags::STORAGE_IMAGE
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST;
        if !features.contains(needed) {
            return Err(RuntimeError::InvalidResource(format!(
                "image format {format} ({vk_format:?}) cannot be a storage image on device `{}`",
                shared.info.name
            )));
        }
        let sampled = features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE);
        let mut usage = vk::ImageUsageFlags::STORAGE
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST;
        if sampled {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk_format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let mut raw = RawImage::new(shared, &info, &format!("image {width}x{height} {format}"))?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw.image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(vk_format)
            .subresource_range(crate::sync::color_range());
        // SAFETY: the image is valid and the view matches its format.
        let view = match unsafe { shared.device().create_image_view(&view_info, None) } {
            Ok(v) => v,
            Err(e) => {
                raw.destroy(shared);
                return Err(vk_err("vkCreateImageView")(e));
            }
        };
        let id = ResourceId(shared.next_resource_id());
        Ok(Image2D {
            inner: Arc::new(ImageInner {
                shared: shared.clone(),
                id,
                width,
                height,
                format,
                raw,
                view,
                sampled,
            }),
        })
    }

    /// Whether the image can also be bound to a sampled-texture parameter.
    pub fn is_sampled(&self) -> bool {
        self.inner.sampled
    }

    /// The image's id, as the barrier log names it.
    pub fn id(&self) -> ResourceId {
        self.inner.id
    }

    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.inner.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.inner.height
    }

    /// Texel format.
    pub fn format(&self) -> ImageFormat {
        self.inner.format
    }

    /// Size of a tightly packed row-major download in bytes.
    pub fn byte_size(&self) -> u64 {
        u64::from(self.inner.width)
            * u64::from(self.inner.height)
            * u64::from(self.inner.format.texel_size())
    }
}

impl fmt::Debug for Image2D {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Image2D")
            .field("id", &self.inner.id)
            .field("width", &self.inner.width)
            .field("height", &self.inner.height)
            .field("format", &self.inner.format)
            .finish()
    }
}
