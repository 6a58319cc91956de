//! Host side of images of every format, sampled textures and samplers: allocation, texel
//! conversion between host arrays and the formats' bytes, uploads and downloads.
//!
//! Host arrays hold the texel type the kernel reads (float32 for float and UNORM formats,
//! int32 / uint32 for integer ones), `channels` values per texel, row-major; the conversion
//! to the stored form happens here: float16 rounds to nearest even, UNORM8 clamps to [0, 1]
//! and rounds to the nearest of 255 steps (NaN → 0), as Vulkan's conversion rules say.

use std::rc::Rc;

use cajeta_runtime::{
    AddressMode, Filter, ImageFormat as RtImageFormat, TextureDesc, TextureDim as RtDim,
};

use super::cpu_run::{DevSampler, DevTexture};

use super::device::ImageObj;
use super::eval::{err, internal, Fail, Interp};
use super::hostops::int_value;
use super::operands::{scalar_of, u32_of};
use super::ops::{f16_from_bits, f16_to_bits};
use super::value::{Array, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp, ImageFormat, TextureDim};

/// A `Texture1D/2D/3D/2DArray/Cube` of the host program.
pub struct TextureObj {
    /// The runtime texture.
    pub texture: DevTexture,
}

/// A `Sampler` of the host program.
pub struct SamplerObj {
    /// The runtime sampler.
    pub sampler: DevSampler,
}

/// The runtime's format for an IR format.
pub fn rt_format(f: ImageFormat) -> RtImageFormat {
    match f {
        ImageFormat::R32f => RtImageFormat::R32Float,
        ImageFormat::Rgba32f => RtImageFormat::Rgba32Float,
        ImageFormat::Rgba16f => RtImageFormat::Rgba16Float,
        ImageFormat::R16f => RtImageFormat::R16Float,
        ImageFormat::Rgba8 => RtImageFormat::Rgba8Unorm,
        ImageFormat::R8 => RtImageFormat::R8Unorm,
        ImageFormat::R32ui => RtImageFormat::R32Uint,
        ImageFormat::R32i => RtImageFormat::R32Sint,
        ImageFormat::Rgba32ui => RtImageFormat::Rgba32Uint,
        ImageFormat::Rgba32i => RtImageFormat::Rgba32Sint,
    }
}

/// Channels per texel of a runtime format.
pub fn channels(f: RtImageFormat) -> usize {
    match f {
        RtImageFormat::Rgba32Float
        | RtImageFormat::Rgba16Float
        | RtImageFormat::Rgba8Unorm
        | RtImageFormat::Rgba32Uint
        | RtImageFormat::Rgba32Sint => 4,
        _ => 1,
    }
}

/// UNORM8 of a float: clamp to [0, 1] (NaN → 0), round to nearest.
pub fn unorm8(x: f32) -> u8 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// The stored bytes of `a` in `format`; `None` when the array's element type is not the
/// format's texel type.
pub fn texels_to_bytes(format: RtImageFormat, a: &Array) -> Option<Vec<u8>> {
    use RtImageFormat as F;
    Some(match (format, a) {
        (F::R32Float | F::Rgba32Float, Array::F32(v)) => {
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        (F::R16Float | F::Rgba16Float, Array::F32(v)) => v
            .iter()
            .flat_map(|x| f16_to_bits(*x).to_le_bytes())
            .collect(),
        (F::R8Unorm | F::Rgba8Unorm, Array::F32(v)) => v.iter().map(|x| unorm8(*x)).collect(),
        (F::R32Sint | F::Rgba32Sint, Array::I32(v)) => {
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        (F::R32Uint | F::Rgba32Uint, Array::U32(v)) => {
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        _ => return None,
    })
}

/// Overwrites `a` (already the right type and length) from stored bytes of `format`.
pub fn texels_from_bytes(format: RtImageFormat, bytes: &[u8], a: &mut Array) {
    use RtImageFormat as F;
    let words = || bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    match (format, a) {
        (F::R32Float | F::Rgba32Float, Array::F32(v)) => {
            for (x, w) in v.iter_mut().zip(words()) {
                *x = f32::from_le_bytes(w);
            }
        }
        (F::R16Float | F::Rgba16Float, Array::F32(v)) => {
            for (x, c) in v.iter_mut().zip(bytes.chunks_exact(2)) {
                *x = f16_from_bits(u16::from_le_bytes([c[0], c[1]]));
            }
        }
        (F::R8Unorm | F::Rgba8Unorm, Array::F32(v)) => {
            for (x, b) in v.iter_mut().zip(bytes) {
                *x = f32::from(*b) / 255.0;
            }
        }
        (F::R32Sint | F::Rgba32Sint, Array::I32(v)) => {
            for (x, w) in v.iter_mut().zip(words()) {
                *x = i32::from_le_bytes(w);
            }
        }
        (F::R32Uint | F::Rgba32Uint, Array::U32(v)) => {
            for (x, w) in v.iter_mut().zip(words()) {
                *x = u32::from_le_bytes(w);
            }
        }
        _ => {}
    }
}

/// The array type a format's texels are read into, for messages.
pub fn texel_array_name(format: RtImageFormat) -> &'static str {
    match format {
        RtImageFormat::R32Sint | RtImageFormat::Rgba32Sint => "int32[]",
        RtImageFormat::R32Uint | RtImageFormat::Rgba32Uint => "uint32[]",
        _ => "float32[]",
    }
}

/// The texture operand `e` evaluated to (`v`); null is an error at `e`.
fn texture_of(v: Value, e: &Expr) -> Result<Rc<TextureObj>, Fail> {
    match v {
        Value::Texture(t) => Ok(t),
        Value::Void => err(e.span, "use of a null texture"),
        other => internal(e.span, format!("expected a texture, found {other:?}")),
    }
}

impl Interp<'_> {
    /// Runs texture or sampler operation `op` (expression `e`) on its operands' `values`,
    /// in order (both host executors run this; native code through typed calls).
    pub(crate) fn texture_op_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        self.device.used.set(true);
        let span = e.span;
        let (args, mut next) = super::operands::host_operands(op, values, e)?;
        match (op, args) {
            (HostOp::NewTexture(dim, format), _) => {
                let Some((levels, sizes)) = args.split_last() else {
                    return internal(span, "texture without sizes");
                };
                let mut s = Vec::new();
                for a in sizes {
                    s.push(u32_of(scalar_of(next(), a)?, a, "texture size")?);
                }
                let levels = u32_of(scalar_of(next(), levels)?, levels, "mip level count")?;
                let fmt = rt_format(format);
                let desc = match (dim, s.as_slice()) {
                    (TextureDim::D1, [w]) => TextureDesc::d1(*w, fmt),
                    (TextureDim::D2, [w, h]) => TextureDesc::d2(*w, *h, fmt),
                    (TextureDim::D3, [w, h, d]) => TextureDesc::d3(*w, *h, *d, fmt),
                    (TextureDim::D2Array, [w, h, l]) => TextureDesc::d2_array(*w, *h, *l, fmt),
                    (TextureDim::Cube, [size]) => TextureDesc::cube(*size, fmt),
                    _ => return internal(span, format!("{dim:?} with {} sizes", s.len())),
                };
                let desc = desc.with_mip_levels(levels);
                let texture = match &self.device.cpu {
                    Some(cpu) => DevTexture::Cpu(
                        cpu.device
                            .create_texture(desc)
                            .or_else(|x| err(span, x.to_string()))?,
                    ),
                    None => DevTexture::Vulkan(
                        self.device
                            .context(span)?
                            .create_texture(desc)
                            .or_else(|x| err(span, x.to_string()))?,
                    ),
                };
                Ok(Value::Texture(Rc::new(TextureObj { texture })))
            }
            (HostOp::NewSampler, [filter, address]) => {
                let fc = scalar_of(next(), filter)?.as_int().unwrap_or(-1);
                let ac = scalar_of(next(), address)?.as_int().unwrap_or(-1);
                let Some(filter) = i32::try_from(fc).ok().and_then(Filter::from_code) else {
                    return err(
                        span,
                        format!("Sampler filter must be 0 (nearest) or 1 (linear), got {fc}"),
                    );
                };
                let Some(address) = i32::try_from(ac).ok().and_then(AddressMode::from_code) else {
                    return err(span, format!("Sampler address mode must be 0 (clamp to edge), 1 (repeat) or 2 (mirrored repeat), got {ac}"));
                };
                let sampler = match &self.device.cpu {
                    Some(cpu) => DevSampler::Cpu(cpu.device.create_sampler(filter, address)),
                    None => DevSampler::Vulkan(
                        self.device
                            .context(span)?
                            .create_sampler(filter, address)
                            .or_else(|x| err(span, x.to_string()))?,
                    ),
                };
                Ok(Value::Sampler(Rc::new(SamplerObj { sampler })))
            }
            (HostOp::TextureUpload, [t, a]) => {
                let tex = texture_of(next(), t)?;
                self.upload(tex, 0, (next(), a), span)
            }
            (HostOp::TextureUploadLevel, [t, l, a]) => {
                let tex = texture_of(next(), t)?;
                let level = u32_of(scalar_of(next(), l)?, l, "mip level")?;
                self.upload(tex, level, (next(), a), span)
            }
            (HostOp::TextureWidth | HostOp::TextureHeight | HostOp::TextureDepth, [t]) => {
                let tex = texture_of(next(), t)?;
                let d = *tex.texture.desc();
                let n = match op {
                    HostOp::TextureWidth => d.width,
                    HostOp::TextureHeight => d.height,
                    _ if d.dim == RtDim::D2Array => d.layers,
                    _ => d.depth,
                };
                int_value(n as u64, &e.ty, span)
            }
            (op, args) => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }

    /// Every texel of `img` as the runtime lays it out (row-major, tightly packed), after the
    /// work recorded before it.
    pub(super) fn image_bytes(&mut self, img: &ImageObj, span: Span) -> Result<Vec<u8>, Fail> {
        let texels = img.width as usize * img.height as usize;
        let mut bytes = vec![0u8; texels * img.format().texel_size() as usize];
        if let (Some(cpu), Some(image)) = (&self.device.cpu, img.cpu()) {
            cpu.device
                .download_image(image, &mut bytes)
                .or_else(|e| err(span, e.to_string()))?;
            return Ok(bytes);
        }
        let stream = self.device.stream(span)?;
        let r = stream
            .vk(span, "an image")?
            .download_image(img.vulkan(span, "a Vulkan image")?, &mut bytes);
        self.device.waited(span, r)?;
        Ok(bytes)
    }

    /// `img.download(arr)`: channels x texels values of the format's channel type.
    pub(super) fn image_download(
        &mut self,
        img: Rc<ImageObj>,
        array: super::value::ArrayRef,
        span: Span,
    ) -> Result<Value, Fail> {
        let format = img.format();
        let values = img.width as u64 * img.height as u64 * channels(format) as u64;
        {
            let a = array.borrow();
            if texels_to_bytes(format, &a).is_none() {
                return err(
                    span,
                    format!(
                        "a {format} Image2D downloads into a {}",
                        texel_array_name(format)
                    ),
                );
            }
            if a.len() as u64 != values {
                return err(
                    span,
                    format!(
                        "download length mismatch: the {}x{} {format} Image2D holds {values} values ({} per texel) but the host array has {}",
                        img.width,
                        img.height,
                        channels(format),
                        a.len()
                    ),
                );
            }
        }
        let bytes = self.image_bytes(&img, span)?;
        texels_from_bytes(format, &bytes, &mut array.borrow_mut());
        Ok(Value::Void)
    }

    /// `tex.upload(arr)` / `tex.uploadLevel(level, arr)`: every layer of the level, layers
    /// (cube faces) one after another.
    fn upload(
        &mut self,
        tex: Rc<TextureObj>,
        level: u32,
        (array, a): (Value, &Expr),
        span: Span,
    ) -> Result<Value, Fail> {
        let desc = *tex.texture.desc();
        if level >= desc.mip_levels {
            return err(
                span,
                format!(
                    "mip level {level} does not exist: the texture has {} level(s)",
                    desc.mip_levels
                ),
            );
        }
        let array = match array {
            Value::Array(a) => a,
            Value::Void => return err(a.span, "use of a null array"),
            other => return internal(a.span, format!("expected an array, found {other:?}")),
        };
        let format = desc.format;
        let [w, h, d] = desc.level_extent(level);
        let values = w as u64 * h as u64 * d as u64 * desc.layers as u64 * channels(format) as u64;
        let bytes = {
            let a = array.borrow();
            if a.len() as u64 != values {
                let layers = if desc.layers > 1 {
                    format!(" x {} layers", desc.layers)
                } else {
                    String::new()
                };
                return err(
                    span,
                    format!(
                        "upload length mismatch: level {level} of the {} texture ({w}x{h}x{d}{layers}, {format}, {} value(s) per texel) takes {values} values, the array has {}",
                        desc.dim,
                        channels(format),
                        a.len()
                    ),
                );
            }
            match texels_to_bytes(format, &a) {
                Some(b) => b,
                None => {
                    return err(
                        span,
                        format!("a {format} texture takes a {}", texel_array_name(format)),
                    )
                }
            }
        };
        let texture = match (&tex.texture, &self.device.cpu) {
            (DevTexture::Cpu(t), Some(cpu)) => {
                cpu.device
                    .upload_texture(t, level, &bytes)
                    .or_else(|x| err(span, x.to_string()))?;
                return Ok(Value::Void);
            }
            (DevTexture::Vulkan(t), None) => t,
            _ => return internal(span, "a texture of another device"),
        };
        let stream = self.device.stream(span)?;
        stream
            .vk(span, "an image")?
            .upload_texture(texture, level, None, &bytes)
            .or_else(|x| err(span, x.to_string()))?;
        Ok(Value::Void)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip_through_the_stored_forms() {
        let a = Array::F32(vec![-1.0, 0.5, 1.0 / 255.0, 2.0, f32::NAN]);
        let b = texels_to_bytes(RtImageFormat::Rgba8Unorm, &a).unwrap();
        assert_eq!(b, vec![0, 128, 1, 255, 0]);
        let mut back = Array::F32(vec![0.0; 5]);
        texels_from_bytes(RtImageFormat::Rgba8Unorm, &b, &mut back);
        assert_eq!(
            back,
            Array::F32(vec![0.0, 128.0 / 255.0, 1.0 / 255.0, 1.0, 0.0])
        );
        let h = texels_to_bytes(RtImageFormat::R16Float, &Array::F32(vec![0.1])).unwrap();
        let mut back = Array::F32(vec![0.0]);
        texels_from_bytes(RtImageFormat::R16Float, &h, &mut back);
        assert_eq!(back, Array::F32(vec![0.099975586]));
        assert!(texels_to_bytes(RtImageFormat::R32Sint, &Array::F32(vec![1.0])).is_none());
    }

    #[test]
    fn every_ir_format_maps_to_the_runtime_format_of_the_same_name() {
        for (f, _) in ImageFormat::ALL {
            assert_eq!(rt_format(f).reflection_name(), f.reflection_name());
            assert_eq!(channels(rt_format(f)), f.channels() as usize);
        }
    }
}
