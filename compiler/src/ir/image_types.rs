//! Texel formats of images and textures and the shapes of sampled textures (SPEC §6):
//! the parts of [`super::Type`] that name an image.

use super::ScalarType;

/// Texel format of an image or texture (SPEC §6 `TextureFormat`). `R32f` is Cajeta's
/// `Image2D` default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// One float32 channel: `VK_FORMAT_R32_SFLOAT`, SPIR-V `R32f`.
    R32f,
    /// Four float32 channels: `R32G32B32A32_SFLOAT`, `Rgba32f`.
    Rgba32f,
    /// Four float16 channels: `R16G16B16A16_SFLOAT`, `Rgba16f`.
    Rgba16f,
    /// One float16 channel: `R16_SFLOAT`, `R16f` (storage needs `StorageImageExtendedFormats`).
    R16f,
    /// Four 8-bit unsigned normalized channels: `R8G8B8A8_UNORM`, `Rgba8`.
    Rgba8,
    /// One 8-bit unsigned normalized channel: `R8_UNORM`, `R8` (storage needs
    /// `StorageImageExtendedFormats`).
    R8,
    /// One uint32 channel: `R32_UINT`, `R32ui`.
    R32ui,
    /// One int32 channel: `R32_SINT`, `R32i`.
    R32i,
    /// Four uint32 channels: `R32G32B32A32_UINT`, `Rgba32ui`.
    Rgba32ui,
    /// Four int32 channels: `R32G32B32A32_SINT`, `Rgba32i`.
    Rgba32i,
}

impl ImageFormat {
    /// Every format with its `TextureFormat.X` source name.
    pub const ALL: [(ImageFormat, &'static str); 10] = [
        (ImageFormat::R32f, "R32F"),
        (ImageFormat::R8, "R8_UNORM"),
        (ImageFormat::Rgba8, "RGBA8_UNORM"),
        (ImageFormat::Rgba32f, "RGBA32F"),
        (ImageFormat::R16f, "R16F"),
        (ImageFormat::Rgba16f, "RGBA16F"),
        (ImageFormat::R32i, "R32I"),
        (ImageFormat::R32ui, "R32UI"),
        (ImageFormat::Rgba32i, "RGBA32I"),
        (ImageFormat::Rgba32ui, "RGBA32UI"),
    ];

    /// The name used in reflection JSON and by the runtime (SPIR-V/GLSL spelling).
    pub fn reflection_name(self) -> &'static str {
        match self {
            ImageFormat::R32f => "r32f",
            ImageFormat::Rgba32f => "rgba32f",
            ImageFormat::Rgba16f => "rgba16f",
            ImageFormat::R16f => "r16f",
            ImageFormat::Rgba8 => "rgba8",
            ImageFormat::R8 => "r8",
            ImageFormat::R32ui => "r32ui",
            ImageFormat::R32i => "r32i",
            ImageFormat::Rgba32ui => "rgba32ui",
            ImageFormat::Rgba32i => "rgba32i",
        }
    }

    /// The `TextureFormat.X` constant name.
    pub fn source_name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .unwrap_or("R32F")
    }

    /// Parses a `TextureFormat.X` constant name.
    pub fn from_source_name(name: &str) -> Option<ImageFormat> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }

    /// The scalar a texel channel reads as in a kernel: float32 for float and UNORM
    /// formats, int32 / uint32 for integer formats.
    pub fn channel_type(self) -> ScalarType {
        match self {
            ImageFormat::R32ui | ImageFormat::Rgba32ui => ScalarType::U32,
            ImageFormat::R32i | ImageFormat::Rgba32i => ScalarType::I32,
            _ => ScalarType::F32,
        }
    }

    /// 1 or 4.
    pub fn channels(self) -> u8 {
        match self {
            ImageFormat::R32f
            | ImageFormat::R16f
            | ImageFormat::R8
            | ImageFormat::R32ui
            | ImageFormat::R32i => 1,
            _ => 4,
        }
    }

    /// Whether a storage image of this format needs the `StorageImageExtendedFormats`
    /// capability (Vulkan feature `shaderStorageImageExtendedFormats`).
    pub fn needs_extended_formats(self) -> bool {
        matches!(self, ImageFormat::R16f | ImageFormat::R8)
    }
}

/// The shape of a sampled texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `Texture1D`
    D1,
    /// `Texture2D`
    D2,
    /// `Texture3D`
    D3,
    /// `Texture2DArray`
    D2Array,
    /// `TextureCube`
    Cube,
}

impl TextureDim {
    /// Every shape with its class name.
    pub const ALL: [(TextureDim, &'static str); 5] = [
        (TextureDim::D1, "Texture1D"),
        (TextureDim::D2, "Texture2D"),
        (TextureDim::D3, "Texture3D"),
        (TextureDim::D2Array, "Texture2DArray"),
        (TextureDim::Cube, "TextureCube"),
    ];

    /// The class name (`Texture2D`…).
    pub fn class_name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(d, _)| *d == self)
            .map(|(_, n)| *n)
            .unwrap_or("Texture2D")
    }

    /// Parses a class name.
    pub fn from_class_name(name: &str) -> Option<TextureDim> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(d, _)| *d)
    }

    /// Components of a sampling coordinate: 1 (1D), 2 (2D), 3 (3D, 2D array: u, v, layer;
    /// cube: a direction).
    pub fn coord_count(self) -> usize {
        match self {
            TextureDim::D1 => 1,
            TextureDim::D2 => 2,
            TextureDim::D3 | TextureDim::D2Array | TextureDim::Cube => 3,
        }
    }

    /// Components of an integer texel coordinate for `fetch` (cubes cannot be fetched).
    pub fn fetch_count(self) -> usize {
        match self {
            TextureDim::D1 => 1,
            TextureDim::D2 => 2,
            TextureDim::D3 | TextureDim::D2Array => 3,
            TextureDim::Cube => 0,
        }
    }
}
