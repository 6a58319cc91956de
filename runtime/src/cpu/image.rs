//! Storage images on the CPU device: host memory holding the texels row after row (x
//! fastest), each texel in its format's own bytes (`ImageFormat::texel_size`: an `RGBA8`
//! texel is four bytes, an `R16F` one a half float). That is the layout a Vulkan image's
//! download produces, so a download is one copy, and what the CPU target's kernels address
//! (`compiler/src/kernel/llvm/cpu/images.rs` converts between the stored texel and the
//! kernel's value).

use super::{CpuBuffer, CpuDevice};
use crate::{ImageFormat, Result, RuntimeError};

/// The largest width or height of an image: lavapipe's `maxImageDimension2D`, so an image
/// refused on one device is refused on the other.
pub const MAX_IMAGE_DIMENSION_2D: u32 = 16384;

/// A 2-D storage image in host memory. Cheap to clone; clones share the texels.
#[derive(Debug, Clone)]
pub struct CpuImage {
    texels: CpuBuffer,
    width: u32,
    height: u32,
    format: ImageFormat,
}

impl CpuImage {
    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The texel format.
    pub fn format(&self) -> ImageFormat {
        self.format
    }

    /// The texels' memory (`width * height * texel_size` bytes, row-major).
    pub(super) fn texels(&self) -> &CpuBuffer {
        &self.texels
    }
}

impl CpuDevice {
    /// A `width` x `height` image of `format`, every texel zero (a Vulkan image's contents
    /// are undefined until written; zero is one such content). The size checks and their
    /// messages are the Vulkan device's.
    pub fn create_image2d(&self, width: u32, height: u32, format: ImageFormat) -> Result<CpuImage> {
        if width == 0 || height == 0 {
            return Err(RuntimeError::InvalidResource(format!(
                "image size {width}x{height} has a zero dimension"
            )));
        }
        let max = MAX_IMAGE_DIMENSION_2D;
        if width > max || height > max {
            return Err(RuntimeError::InvalidResource(format!(
                "image size {width}x{height} exceeds maxImageDimension2D = {max}"
            )));
        }
        let bytes = u64::from(width) * u64::from(height) * u64::from(format.texel_size());
        Ok(CpuImage {
            texels: self.create_buffer(bytes)?,
            width,
            height,
            format,
        })
    }

    /// Copies every texel of `image` into `out` (row-major, tightly packed, the format's
    /// bytes: what a Vulkan image download gives); the lengths must be equal.
    pub fn download_image(&self, image: &CpuImage, out: &mut [u8]) -> Result<()> {
        if image.texels.size() != out.len() as u64 {
            return Err(RuntimeError::LengthMismatch {
                resource: "image",
                resource_bytes: image.texels.size(),
                host_bytes: out.len() as u64,
            });
        }
        self.download(&image.texels, out)
    }

    /// Copies `data` (laid out as [`CpuDevice::download_image`] gives it) into `image`.
    pub fn upload_image(&self, image: &CpuImage, data: &[u8]) -> Result<()> {
        if image.texels.size() != data.len() as u64 {
            return Err(RuntimeError::LengthMismatch {
                resource: "image",
                resource_bytes: image.texels.size(),
                host_bytes: data.len() as u64,
            });
        }
        self.upload(&image.texels, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_row_major_texels_and_check_their_sizes() {
        let dev = CpuDevice::new();
        let img = dev.create_image2d(3, 2, ImageFormat::Rgba8Unorm).unwrap();
        assert_eq!((img.width(), img.height()), (3, 2));
        let data: Vec<u8> = (0..24).collect();
        dev.upload_image(&img, &data).unwrap();
        let mut out = vec![0u8; 24];
        dev.download_image(&img, &mut out).unwrap();
        assert_eq!(out, data);
        assert!(dev.download_image(&img, &mut [0u8; 23]).is_err());
        assert!(dev.create_image2d(0, 4, ImageFormat::R32Float).is_err());
        let e = dev
            .create_image2d(16385, 1, ImageFormat::R32Float)
            .unwrap_err();
        assert!(e.to_string().contains("maxImageDimension2D = 16384"), "{e}");
    }
}
