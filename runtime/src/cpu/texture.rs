//! Sampled textures and samplers on the CPU device. A texture is host memory holding its mip
//! levels one after the other, each level's layers (cube faces) one after the other, each
//! layer row-major in the format's bytes (what an upload hands over). A kernel reaches it
//! through a [`TextureAccess`] (its binding slot's `data`): the texture's size and two
//! functions, `sample` and `fetch`, which the CPU target calls with the coordinates; they
//! follow Vulkan's texel filtering rules (`filter.rs`). A sampler is a [`SamplerAccess`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::filter;
use super::{CpuBuffer, CpuDevice, CpuImage};
use crate::{AddressMode, Filter, ImageFormat, Result, RuntimeError, TextureDesc, TextureDim};

/// `sample(texture, sampler, coordinates (4 floats), lod, out (4 lanes))`.
pub type SampleFn =
    extern "C" fn(*const TextureAccess, *const SamplerAccess, *const f32, f32, *mut u32);
/// `fetch(texture, coordinates (4 ints), lod, out (4 lanes))`.
pub type FetchFn = extern "C" fn(*const TextureAccess, *const i32, i32, *mut u32);

/// What a kernel reads of a texture, at the start of the texture's data. The compiler's CPU
/// target (`kernel/llvm/cpu/textures.rs`) declares the same layout: the functions at fields
/// 0 and 1, the size at field 2.
#[repr(C)]
pub struct TextureAccess {
    /// Filtered read at normalized coordinates (a 2-D array's layer unnormalized).
    pub sample: SampleFn,
    /// Read of one texel at integer coordinates.
    pub fetch: FetchFn,
    /// Level 0's width, height, depth (a 2-D array's layers), and the mip level count.
    pub size: [u32; 4],
    /// Level 0's texels, for the kernel's own reads of [`FAST_R32F`] textures.
    pub level0: *const u8,
    /// [`FAST_R32F`] for a 2-D `R32F` texture, which a kernel's `fetch` at level 0 inside
    /// the texture reads directly (the runtime's `fetch` gives the same texel); 0 otherwise.
    pub fast: u32,
}

/// [`TextureAccess::fast`] of a 2-D `R32F` texture.
pub const FAST_R32F: u32 = 1;

/// A texture's description, memory and where each level starts; `access` first, so that a
/// pointer to it is a pointer to the whole.
#[repr(C)]
pub(super) struct TextureData {
    access: TextureAccess,
    pub(super) desc: TextureDesc,
    memory: CpuBuffer,
    level_offsets: Vec<u64>,
    /// Set by a linear cube sample whose texels crossed a face edge (`filter.rs`).
    pub(super) edge_crossed: AtomicBool,
}

// SAFETY: `access.level0` points into `memory`, which the data owns and which is written
// only by uploads, never while a launch reads it (launches are synchronous).
unsafe impl Send for TextureData {}
// SAFETY: as above.
unsafe impl Sync for TextureData {}

/// A texture on the CPU device. Cheap to clone; clones share the texels.
#[derive(Clone)]
pub struct CpuTexture {
    data: Arc<TextureData>,
}

impl std::fmt::Debug for CpuTexture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuTexture({:?})", self.data.desc)
    }
}

/// What a kernel reads of a sampler: its filter (0 nearest, 1 linear; the mip filter is the
/// same) and address mode (0 clamp to edge, 1 repeat, 2 mirrored repeat) on every axis.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SamplerAccess {
    /// `Filter` as its code.
    pub filter: u32,
    /// `AddressMode` as its code.
    pub address: u32,
}

/// A sampler on the CPU device. Cheap to clone.
#[derive(Debug, Clone)]
pub struct CpuSampler {
    access: Arc<SamplerAccess>,
}

/// The CPU device's texture limits: lavapipe's 2-D (and 1-D) limit, so an image or texture
/// refused on one is refused on the other, and the smallest 3-D, cube and layer limits of
/// the llvmpipe versions this project meets (the texel memory is the host's either way).
fn limits() -> ash::vk::PhysicalDeviceLimits {
    ash::vk::PhysicalDeviceLimits {
        max_image_dimension1_d: super::MAX_IMAGE_DIMENSION_2D,
        max_image_dimension2_d: super::MAX_IMAGE_DIMENSION_2D,
        max_image_dimension3_d: 2048,
        max_image_dimension_cube: 8192,
        max_image_array_layers: 2048,
        ..Default::default()
    }
}

impl CpuTexture {
    /// Its description.
    pub fn desc(&self) -> &TextureDesc {
        &self.data.desc
    }

    /// Whether a linear sample of this cube texture crossed a face edge since the last
    /// call (which clears it).
    pub(super) fn take_edge_crossed(&self) -> bool {
        self.data.edge_crossed.swap(false, Ordering::Relaxed)
    }

    /// The kernel's view of it (what its binding slot points at).
    pub(super) fn access(&self) -> *const TextureAccess {
        &self.data.access
    }

    fn new(desc: TextureDesc, memory: CpuBuffer, level_offsets: Vec<u64>) -> CpuTexture {
        let depth = if desc.dim == TextureDim::D2Array {
            desc.layers
        } else {
            desc.depth
        };
        let fast = if desc.dim == TextureDim::D2 && desc.format == ImageFormat::R32Float {
            FAST_R32F
        } else {
            0
        };
        CpuTexture {
            data: Arc::new(TextureData {
                access: TextureAccess {
                    sample: filter::sample,
                    fetch: filter::fetch,
                    size: [desc.width, desc.height, depth, desc.mip_levels],
                    level0: memory.ptr(),
                    fast,
                },
                desc,
                memory,
                level_offsets,
                edge_crossed: AtomicBool::new(false),
            }),
        }
    }
}

impl TextureData {
    /// The bytes of texel (`x`, `y`, `z`) of `layer` of `level` (inside the level).
    pub(super) fn texel_bytes(&self, level: u32, layer: u32, [x, y, z]: [u32; 3]) -> &[u8] {
        let [w, h, d] = self.desc.level_extent(level);
        let size = u64::from(self.desc.format.texel_size());
        let index = ((u64::from(layer) * u64::from(d) + u64::from(z)) * u64::from(h)
            + u64::from(y))
            * u64::from(w)
            + u64::from(x);
        let at = (self.level_offsets[level as usize] + index * size) as usize;
        // SAFETY: the texture's memory is only written by uploads, never during a launch
        // (launches are synchronous); `at .. at + size` is inside it for a texel inside the
        // level (the callers check the coordinates).
        unsafe { std::slice::from_raw_parts(self.memory.ptr().add(at), size as usize) }
    }
}

impl CpuImage {
    /// A 2-D texture of one level reading this image's texels (an `Image2D` passed for a
    /// `Texture2D` parameter), sharing its memory.
    pub fn as_texture(&self) -> CpuTexture {
        let desc = TextureDesc::d2(self.width(), self.height(), self.format());
        CpuTexture::new(desc, self.texels().clone(), vec![0])
    }
}

impl CpuSampler {
    /// The kernel's view of it.
    pub(super) fn access(&self) -> *const SamplerAccess {
        &*self.access
    }
}

impl CpuDevice {
    /// A texture of `desc` (every texel zero until uploaded), with the Vulkan device's checks.
    pub fn create_texture(&self, desc: TextureDesc) -> Result<CpuTexture> {
        desc.check(&limits())
            .map_err(RuntimeError::InvalidResource)?;
        let mut offsets = Vec::new();
        let mut bytes = 0u64;
        for level in 0..desc.mip_levels {
            offsets.push(bytes);
            bytes += desc.level_layer_bytes(level) * u64::from(desc.layers);
        }
        Ok(CpuTexture::new(desc, self.create_buffer(bytes)?, offsets))
    }

    /// Copies `data` (every layer of mip `level`, layers one after the other) into `tex`.
    pub fn upload_texture(&self, tex: &CpuTexture, level: u32, data: &[u8]) -> Result<()> {
        let desc = &tex.data.desc;
        if level >= desc.mip_levels {
            return Err(RuntimeError::InvalidResource(format!(
                "mip level {level} of a texture of {} level(s)",
                desc.mip_levels
            )));
        }
        let bytes = desc.level_layer_bytes(level) * u64::from(desc.layers);
        if bytes != data.len() as u64 {
            return Err(RuntimeError::LengthMismatch {
                resource: "texture",
                resource_bytes: bytes,
                host_bytes: data.len() as u64,
            });
        }
        let part = tex
            .data
            .memory
            .slice(tex.data.level_offsets[level as usize], bytes)?;
        self.upload(&part, data)
    }

    /// A sampler with `filter` and `address` on every axis.
    pub fn create_sampler(&self, filter: Filter, address: AddressMode) -> CpuSampler {
        let filter = match filter {
            Filter::Nearest => 0,
            Filter::Linear => 1,
        };
        let address = match address {
            AddressMode::ClampToEdge => 0,
            AddressMode::Repeat => 1,
            AddressMode::MirroredRepeat => 2,
        };
        CpuSampler {
            access: Arc::new(SamplerAccess { filter, address }),
        }
    }
}

/// The four lanes of a texel of `format` as the kernel reads them: float bits for float and
/// UNORM formats, the integers for integer ones; a one-channel format reads (r, 0, 0, 1).
pub(super) fn texel_lanes(format: ImageFormat, b: &[u8]) -> [u32; 4] {
    let word = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let half = |i: usize| f16_to_f32(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])).to_bits();
    // `c * (1 / 255)` with the reciprocal rounded to float32, as lavapipe converts (within
    // an ulp of `c / 255`, which Vulkan allows).
    let unorm = |i: usize| (f32::from(b[i]) * (1.0f32 / 255.0)).to_bits();
    let one_f = 1.0f32.to_bits();
    match format {
        ImageFormat::R32Float => [word(0), 0, 0, one_f],
        ImageFormat::R32Uint | ImageFormat::R32Sint => [word(0), 0, 0, 1],
        ImageFormat::Rgba32Float | ImageFormat::Rgba32Uint | ImageFormat::Rgba32Sint => {
            [word(0), word(1), word(2), word(3)]
        }
        ImageFormat::R16Float => [half(0), 0, 0, one_f],
        ImageFormat::Rgba16Float => [half(0), half(1), half(2), half(3)],
        ImageFormat::R8Unorm => [unorm(0), 0, 0, one_f],
        ImageFormat::Rgba8Unorm => [unorm(0), unorm(1), unorm(2), unorm(3)],
    }
}

/// The value of the IEEE half float `h` (exact).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * (2.0f32).powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + frac / 1024.0) * (2.0f32).powi(exp - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_each_other_and_uploads_check_lengths() {
        let dev = CpuDevice::new();
        let desc = TextureDesc::d2(4, 2, ImageFormat::R32Float).with_mip_levels(3);
        let tex = dev.create_texture(desc).unwrap();
        assert_eq!(tex.data.level_offsets, vec![0, 32, 40]);
        dev.upload_texture(&tex, 1, &[1, 0, 0, 0, 2, 0, 0, 0])
            .unwrap();
        assert_eq!(tex.data.texel_bytes(1, 0, [1, 0, 0]), &[2, 0, 0, 0]);
        assert!(dev.upload_texture(&tex, 1, &[0; 4]).is_err());
        assert!(dev.upload_texture(&tex, 3, &[0; 4]).is_err());
        assert!(dev
            .create_texture(TextureDesc::d2(4, 4, ImageFormat::R32Float).with_mip_levels(3))
            .is_ok());
        // 4x4, 2x2, 1x1: a fourth level does not exist.
        assert!(dev
            .create_texture(TextureDesc::d2(4, 4, ImageFormat::R32Float).with_mip_levels(4))
            .is_err());
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(
            texel_lanes(ImageFormat::R8Unorm, &[51]),
            [(51.0f32 * (1.0 / 255.0)).to_bits(), 0, 0, 1.0f32.to_bits()]
        );
    }
}
