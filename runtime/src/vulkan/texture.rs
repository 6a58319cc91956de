//! Sampled textures (1-D, 2-D, 3-D, 2-D array, cube; any number of mip levels) and samplers.
//!
//! A texture is created `SAMPLED | TRANSFER_DST | TRANSFER_SRC` in `UNDEFINED` layout. Uploads
//! move it to `TRANSFER_DST_OPTIMAL`, launches that bind it to `SHADER_READ_ONLY_OPTIMAL`; the
//! hazard tracker records each move as a `LayoutTransition` barrier (see `sync.rs`). Layouts
//! are tracked per texture, not per level or layer: uploading level 1 after level 0 is ordered
//! by a write-after-write barrier even though the two regions do not overlap.

use std::fmt;
use std::sync::Arc;

use ash::vk;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::memory::RawImage;
use crate::resources::{ImageFormat, ResourceId};

/// The shape of a texture; decides the image type and the view type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `Texture1D`: width only.
    D1,
    /// `Texture2D`: width and height.
    D2,
    /// `Texture3D`: width, height and depth.
    D3,
    /// `Texture2DArray`: width, height and `layers`.
    D2Array,
    /// `TextureCube`: six square faces (`width == height`), in the order +X, -X, +Y, -Y, +Z, -Z.
    Cube,
}

impl fmt::Display for TextureDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TextureDim::D1 => "1-D",
            TextureDim::D2 => "2-D",
            TextureDim::D3 => "3-D",
            TextureDim::D2Array => "2-D array",
            TextureDim::Cube => "cube",
        })
    }
}

/// How to create a [`crate::Texture`]. Build one with [`TextureDesc::d2`] and friends; fields
/// a dimension does not use must stay 1 (`height` of a 1-D texture, `depth` of all but 3-D,
/// `layers` of all but arrays; cubes have `layers == 6`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// The shape.
    pub dim: TextureDim,
    /// The texel format.
    pub format: ImageFormat,
    /// Width of level 0 in texels.
    pub width: u32,
    /// Height of level 0 in texels.
    pub height: u32,
    /// Depth of level 0 in texels (3-D only).
    pub depth: u32,
    /// Array layers (2-D arrays; 6 for cubes).
    pub layers: u32,
    /// Mip levels, at least 1; level `l` is `max(1, size >> l)` in each dimension.
    pub mip_levels: u32,
}

impl TextureDesc {
    fn new(dim: TextureDim, format: ImageFormat, w: u32, h: u32, d: u32, layers: u32) -> Self {
        TextureDesc {
            dim,
            format,
            width: w,
            height: h,
            depth: d,
            layers,
            mip_levels: 1,
        }
    }

    /// A 1-D texture of `width` texels.
    pub fn d1(width: u32, format: ImageFormat) -> Self {
        Self::new(TextureDim::D1, format, width, 1, 1, 1)
    }

    /// A 2-D texture.
    pub fn d2(width: u32, height: u32, format: ImageFormat) -> Self {
        Self::new(TextureDim::D2, format, width, height, 1, 1)
    }

    /// A 3-D texture.
    pub fn d3(width: u32, height: u32, depth: u32, format: ImageFormat) -> Self {
        Self::new(TextureDim::D3, format, width, height, depth, 1)
    }

    /// A 2-D array texture of `layers` layers.
    pub fn d2_array(width: u32, height: u32, layers: u32, format: ImageFormat) -> Self {
        Self::new(TextureDim::D2Array, format, width, height, 1, layers)
    }

    /// A cube texture with faces of `size` × `size` texels.
    pub fn cube(size: u32, format: ImageFormat) -> Self {
        Self::new(TextureDim::Cube, format, size, size, 1, 6)
    }

    /// The same description with `levels` mip levels.
    pub fn with_mip_levels(mut self, levels: u32) -> Self {
        self.mip_levels = levels;
        self
    }

    /// Extent of mip `level` (width, height, depth), each at least 1.
    pub fn level_extent(&self, level: u32) -> [u32; 3] {
        let at = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
        [at(self.width), at(self.height), at(self.depth)]
    }

    /// Bytes of one layer of mip `level`, tightly packed.
    pub fn level_layer_bytes(&self, level: u32) -> u64 {
        let [w, h, d] = self.level_extent(level);
        u64::from(w) * u64::from(h) * u64::from(d) * u64::from(self.format.texel_size())
    }

    /// Checks the description against itself and the device limits.
    pub(crate) fn check(
        &self,
        limits: &vk::PhysicalDeviceLimits,
    ) -> std::result::Result<(), String> {
        let (w, h, d, l) = (self.width, self.height, self.depth, self.layers);
        if w == 0 || h == 0 || d == 0 || l == 0 {
            return Err(format!(
                "{} texture size {w}x{h}x{d} with {l} layer(s) has a zero dimension",
                self.dim
            ));
        }
        let (max, name, shape_ok) = match self.dim {
            TextureDim::D1 => (
                limits.max_image_dimension1_d,
                "maxImageDimension1D",
                h == 1 && d == 1 && l == 1,
            ),
            TextureDim::D2 => (
                limits.max_image_dimension2_d,
                "maxImageDimension2D",
                d == 1 && l == 1,
            ),
            TextureDim::D2Array => (limits.max_image_dimension2_d, "maxImageDimension2D", d == 1),
            TextureDim::D3 => (limits.max_image_dimension3_d, "maxImageDimension3D", l == 1),
            TextureDim::Cube => (
                limits.max_image_dimension_cube,
                "maxImageDimensionCube",
                w == h && d == 1 && l == 6,
            ),
        };
        if !shape_ok {
            return Err(format!(
                "a {} texture cannot have size {w}x{h}x{d} with {l} layer(s)",
                self.dim
            ));
        }
        if w.max(h).max(d) > max {
            return Err(format!("texture size {w}x{h}x{d} exceeds {name} = {max}"));
        }
        if l > limits.max_image_array_layers {
            return Err(format!(
                "{l} layers exceed maxImageArrayLayers = {}",
                limits.max_image_array_layers
            ));
        }
        let full_chain = 32 - w.max(h).max(d).leading_zeros();
        if self.mip_levels == 0 || self.mip_levels > full_chain {
            return Err(format!(
                "{} mip levels requested; a {w}x{h}x{d} texture has 1 to {full_chain}",
                self.mip_levels
            ));
        }
        Ok(())
    }
}

pub(crate) struct TextureInner {
    pub(crate) shared: Arc<DeviceShared>,
    pub(crate) id: ResourceId,
    pub(crate) desc: TextureDesc,
    pub(crate) raw: RawImage,
    pub(crate) view: vk::ImageView,
}

impl Drop for TextureInner {
    fn drop(&mut self) {
        self.raw.destroy_with_view(&self.shared, self.view, self.id);
    }
}

/// A sampled texture (`SAMPLED | TRANSFER_DST | TRANSFER_SRC`, optimal tiling). Texels start
/// undefined; fill them with [`crate::Stream::upload_texture`]. Cheap to clone.
#[derive(Clone)]
pub struct Texture {
    pub(crate) inner: Arc<TextureInner>,
}

impl Texture {
    pub(crate) fn new(shared: &Arc<DeviceShared>, desc: TextureDesc) -> Result<Texture> {
        desc.check(&shared.raw_limits)
            .map_err(RuntimeError::InvalidResource)?;
        let format = desc.format;
        let vk_format = format.vk_format();
        let features = shared.optimal_format_features(vk_format);
        let needed = vk::FormatFeatureFlags::SAMPLED_IMAGE
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST;
        if !features.contains(needed) {
            return Err(RuntimeError::InvalidResource(format!(
                "texture format {format} ({vk_format:?}) cannot be sampled on device `{}`",
                shared.info.name
            )));
        }
        let (image_type, view_type, flags) = match desc.dim {
            TextureDim::D1 => (
                vk::ImageType::TYPE_1D,
                vk::ImageViewType::TYPE_1D,
                vk::ImageCreateFlags::empty(),
            ),
            TextureDim::D2 => (
                vk::ImageType::TYPE_2D,
                vk::ImageViewType::TYPE_2D,
                vk::ImageCreateFlags::empty(),
            ),
            TextureDim::D3 => (
                vk::ImageType::TYPE_3D,
                vk::ImageViewType::TYPE_3D,
                vk::ImageCreateFlags::empty(),
            ),
            TextureDim::D2Array => (
                vk::ImageType::TYPE_2D,
                vk::ImageViewType::TYPE_2D_ARRAY,
                vk::ImageCreateFlags::empty(),
            ),
            TextureDim::Cube => (
                vk::ImageType::TYPE_2D,
                vk::ImageViewType::CUBE,
                vk::ImageCreateFlags::CUBE_COMPATIBLE,
            ),
        };
        let usage = vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST;
        // SAFETY: valid physical device; the query has no side effects.
        let limits = unsafe {
            shared
                .instance
                .instance
                .get_physical_device_image_format_properties(
                    shared.physical,
                    vk_format,
                    image_type,
                    vk::ImageTiling::OPTIMAL,
                    usage,
                    flags,
                )
        }
        .map_err(|_| {
            RuntimeError::InvalidResource(format!(
                "a {} texture of format {format} is not supported on device `{}`",
                desc.dim, shared.info.name
            ))
        })?;
        // Checked here, not left to vkCreateImage: creating an image beyond these limits is
        // invalid usage, not an error the driver must report.
        let bytes: u64 = (0..desc.mip_levels)
            .map(|l| desc.level_layer_bytes(l) * u64::from(desc.layers))
            .sum();
        if bytes > limits.max_resource_size {
            return Err(RuntimeError::InvalidResource(format!(
                "texture of {bytes} bytes exceeds maxResourceSize = {} for format {format}",
                limits.max_resource_size
            )));
        }
        if desc.layers > limits.max_array_layers || desc.mip_levels > limits.max_mip_levels {
            return Err(RuntimeError::InvalidResource(format!(
                "{} layer(s) and {} mip level(s) exceed the format's limits ({} layers, {} levels)",
                desc.layers, desc.mip_levels, limits.max_array_layers, limits.max_mip_levels
            )));
        }
        let info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(image_type)
            .format(vk_format)
            .extent(vk::Extent3D {
                width: desc.width,
                height: desc.height,
                depth: desc.depth,
            })
            .mip_levels(desc.mip_levels)
            .array_layers(desc.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let what = format!(
            "{} texture {}x{}x{} {format}",
            desc.dim, desc.width, desc.height, desc.depth
        );
        let mut raw = RawImage::new(shared, &info, &what)?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw.image)
            .view_type(view_type)
            .format(vk_format)
            .subresource_range(crate::sync::color_range());
        // SAFETY: the image is valid and the view matches its type and format.
        let view = match unsafe { shared.device().create_image_view(&view_info, None) } {
            Ok(v) => v,
            Err(e) => {
                raw.destroy(shared);
                return Err(vk_err("vkCreateImageView")(e));
            }
        };
        Ok(Texture {
            inner: Arc::new(TextureInner {
                shared: shared.clone(),
                id: ResourceId(shared.next_resource_id()),
                desc,
                raw,
                view,
            }),
        })
    }

    /// The texture's id, as the barrier log names it.
    pub fn id(&self) -> ResourceId {
        self.inner.id
    }

    /// The description it was created from.
    pub fn desc(&self) -> &TextureDesc {
        &self.inner.desc
    }

    /// Texel format.
    pub fn format(&self) -> ImageFormat {
        self.inner.desc.format
    }
}

impl fmt::Debug for Texture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Texture")
            .field("id", &self.inner.id)
            .field("desc", &self.inner.desc)
            .finish()
    }
}

/// Texel filtering of a [`Sampler`] (also used between mip levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Nearest texel (`filter` 0 in Cajeta).
    Nearest,
    /// Bilinear/trilinear interpolation (`filter` 1); float formats only.
    Linear,
}

impl Filter {
    /// The Cajeta code (`Sampler(filter, address)`): 0 nearest, 1 linear.
    pub fn from_code(code: i32) -> Option<Filter> {
        match code {
            0 => Some(Filter::Nearest),
            1 => Some(Filter::Linear),
            _ => None,
        }
    }
}

/// What a [`Sampler`] does with coordinates outside `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Clamp to the edge texel (`address` 0).
    ClampToEdge,
    /// Wrap around (`address` 1).
    Repeat,
    /// Wrap around, mirroring every other repetition (`address` 2).
    MirroredRepeat,
}

impl AddressMode {
    /// The Cajeta code: 0 clamp-to-edge, 1 repeat, 2 mirrored repeat.
    pub fn from_code(code: i32) -> Option<AddressMode> {
        match code {
            0 => Some(AddressMode::ClampToEdge),
            1 => Some(AddressMode::Repeat),
            2 => Some(AddressMode::MirroredRepeat),
            _ => None,
        }
    }
}

pub(crate) struct SamplerInner {
    pub(crate) shared: Arc<DeviceShared>,
    pub(crate) sampler: vk::Sampler,
    filter: Filter,
    address: AddressMode,
}

impl Drop for SamplerInner {
    fn drop(&mut self) {
        // SAFETY: last reference; batches keep a clone until their fence signals.
        unsafe { self.shared.device().destroy_sampler(self.sampler, None) };
    }
}

/// A separate sampler (`VK_DESCRIPTOR_TYPE_SAMPLER`): normalized coordinates, the same filter
/// for magnification, minification and mip levels, the same address mode on every axis, no
/// LOD clamp. Cheap to clone.
#[derive(Clone)]
pub struct Sampler {
    pub(crate) inner: Arc<SamplerInner>,
}

impl Sampler {
    pub(crate) fn new(
        shared: &Arc<DeviceShared>,
        filter: Filter,
        address: AddressMode,
    ) -> Result<Sampler> {
        let (f, m) = match filter {
            Filter::Nearest => (vk::Filter::NEAREST, vk::SamplerMipmapMode::NEAREST),
            Filter::Linear => (vk::Filter::LINEAR, vk::SamplerMipmapMode::LINEAR),
        };
        let a = match address {
            AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
            AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        };
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(f)
            .min_filter(f)
            .mipmap_mode(m)
            .address_mode_u(a)
            .address_mode_v(a)
            .address_mode_w(a)
            .min_lod(0.0)
            .max_lod(vk::LOD_CLAMP_NONE);
        // SAFETY: valid device and create info.
        let sampler = unsafe { shared.device().create_sampler(&info, None) }
            .map_err(vk_err("vkCreateSampler"))?;
        Ok(Sampler {
            inner: Arc::new(SamplerInner {
                shared: shared.clone(),
                sampler,
                filter,
                address,
            }),
        })
    }

    /// The filter.
    pub fn filter(&self) -> Filter {
        self.inner.filter
    }

    /// The address mode.
    pub fn address_mode(&self) -> AddressMode {
        self.inner.address
    }
}

impl fmt::Debug for Sampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sampler")
            .field("filter", &self.inner.filter)
            .field("address", &self.inner.address)
            .finish()
    }
}
