//! Host file I/O (SPEC §9): raw little-endian arrays, images read as luminance or RGBA,
//! `Files.writeImage`/`writeImageRGBA` of float arrays and `Image2D.save`, to PNG or PFM. Every I/O failure is a runtime error naming the path.

use std::path::Path;

use cajeta_runtime::ImageFormat as RtImageFormat;

use super::eval::{err, internal, Fail, Interp};
use super::hostops::int_value;
use super::operands::{array_of, image_of, path_of, scalar_of, u32_of};
use super::ops::f16_from_bits;
use super::value::{Array, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp, ScalarType};

impl Interp<'_> {
    /// Runs file or image operation `op` (expression `e`) on its operands' `values`, in
    /// order (both host executors run this; native code through typed calls).
    pub(crate) fn file_op_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (args, mut next) = super::operands::host_operands(op, values, e)?;
        match (op, args) {
            (HostOp::FileRead(elem), [p]) => {
                let path = path_of(next(), p)?;
                let bytes = std::fs::read(&path)
                    .or_else(|x| err(span, format!("cannot read `{path}`: {x}")))?;
                let size = elem.size_bytes() as usize;
                if bytes.len() % size != 0 {
                    return err(
                        span,
                        format!(
                            "`{path}` has {} bytes, not a whole number of {elem} values",
                            bytes.len()
                        ),
                    );
                }
                let words = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
                let array = match elem {
                    ScalarType::F32 => Array::F32(words.map(f32::from_le_bytes).collect()),
                    ScalarType::I32 => Array::I32(words.map(i32::from_le_bytes).collect()),
                    ScalarType::U32 => Array::U32(words.map(u32::from_le_bytes).collect()),
                    other => return internal(span, format!("reading {other} files")),
                };
                Ok(Value::array(array))
            }
            (HostOp::FileWrite(_), [p, a]) => {
                let path = path_of(next(), p)?;
                let array = array_of(next(), a)?;
                let bytes: Vec<u8> = match &*array.borrow() {
                    Array::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    Array::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    Array::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    _ => return internal(span, "writing a non-32-bit array"),
                };
                std::fs::write(&path, bytes)
                    .or_else(|x| err(span, format!("cannot write `{path}`: {x}")))?;
                Ok(Value::Void)
            }
            (HostOp::ReadImage, [p]) => {
                let path = path_of(next(), p)?;
                let img = open_image(&path, span)?.decode();
                let img = img.or_else(|x| err(span, format!("cannot decode `{path}`: {x}")))?;
                Ok(Value::array(Array::F32(img.to_luma32f().into_raw())))
            }
            (HostOp::ReadImageRgba, [p]) => {
                let path = path_of(next(), p)?;
                let img = open_image(&path, span)?.decode();
                let img = img.or_else(|x| err(span, format!("cannot decode `{path}`: {x}")))?;
                Ok(Value::array(Array::F32(img.to_rgba32f().into_raw())))
            }
            (HostOp::WriteImage(channels), [p, a, w, h]) => {
                let path = path_of(next(), p)?;
                let array = array_of(next(), a)?;
                let (w, h) = (
                    u32_of(scalar_of(next(), w)?, w, "width")?,
                    u32_of(scalar_of(next(), h)?, h, "height")?,
                );
                let (method, format) = if channels == 1 {
                    ("Files.writeImage", RtImageFormat::R32Float)
                } else {
                    ("Files.writeImageRGBA", RtImageFormat::Rgba32Float)
                };
                let bytes: Vec<u8> = match &*array.borrow() {
                    Array::F32(v) => {
                        let want = u64::from(w) * u64::from(h) * u64::from(channels);
                        if v.len() as u64 != want {
                            return err(
                                span,
                                format!(
                                    "{method}: {w} x {h} pixels of {channels} channel(s) need {want} values, the array has {}",
                                    v.len()
                                ),
                            );
                        }
                        v.iter().flat_map(|x| x.to_le_bytes()).collect()
                    }
                    _ => return internal(span, "writing an image from a non-float32 array"),
                };
                save_image(method, &path, w, h, format, &bytes, span)?;
                Ok(Value::Void)
            }
            (HostOp::ImageFileWidth | HostOp::ImageFileHeight, [p]) => {
                let path = path_of(next(), p)?;
                let (w, h) = open_image(&path, span)?
                    .into_dimensions()
                    .or_else(|x| err(span, format!("cannot decode `{path}`: {x}")))?;
                let n = if op == HostOp::ImageFileWidth { w } else { h };
                int_value(n as u64, &e.ty, span)
            }
            (HostOp::ImageSave, [i, p]) => {
                let img = image_of(next(), i)?;
                let path = path_of(next(), p)?;
                let (w, h, format) = (img.width, img.height, img.format());
                let bytes = self.image_bytes(&img, span)?;
                save_image("Image2D.save", &path, w, h, format, &bytes, span)?;
                Ok(Value::Void)
            }
            (op, args) => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }
}

fn open_image(
    path: &str,
    span: Span,
) -> Result<image::ImageReader<impl std::io::BufRead + std::io::Seek>, Fail> {
    image::ImageReader::open(path)
        .and_then(|r| r.with_guessed_format())
        .or_else(|x| err(span, format!("cannot read `{path}`: {x}")))
}

/// Texels of a downloaded image as float channels (1 or 4 per texel); `None` for the integer
/// formats, which have no [0, 1] meaning.
fn float_texels(format: RtImageFormat, bytes: &[u8]) -> Option<(usize, Vec<f32>)> {
    let f32s = || {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let f16s = || {
        bytes
            .chunks_exact(2)
            .map(|c| f16_from_bits(u16::from_le_bytes([c[0], c[1]])))
            .collect()
    };
    Some(match format {
        RtImageFormat::R32Float => (1, f32s()),
        RtImageFormat::R16Float => (1, f16s()),
        RtImageFormat::Rgba32Float => (4, f32s()),
        RtImageFormat::Rgba16Float => (4, f16s()),
        RtImageFormat::Rgba8Unorm => (4, bytes.iter().map(|b| *b as f32 / 255.0).collect()),
        _ => return None,
    })
}

/// 8-bit quantization for PNG: clamp to [0, 1] (NaN → 0), round to nearest.
fn quantize(x: f32) -> u8 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// Writes `bytes` (texels of `format`) to `path` as PNG or PFM by its extension; `method`
/// names the caller in errors.
fn save_image(
    method: &str,
    path: &str,
    w: u32,
    h: u32,
    format: RtImageFormat,
    bytes: &[u8],
    span: Span,
) -> Result<(), Fail> {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let Some((channels, texels)) = float_texels(format, bytes) else {
        return err(
            span,
            format!(
                "{method}: {format} images hold integers, not [0, 1] values; download them instead"
            ),
        );
    };
    let write_err = |x: &dyn std::fmt::Display| err(span, format!("cannot write `{path}`: {x}"));
    match ext.as_deref() {
        Some("png") => {
            let data: Vec<u8> = if format == RtImageFormat::Rgba8Unorm {
                bytes.to_vec()
            } else {
                texels.iter().map(|x| quantize(*x)).collect()
            };
            let color = if channels == 1 {
                image::ExtendedColorType::L8
            } else {
                image::ExtendedColorType::Rgba8
            };
            image::save_buffer_with_format(path, &data, w, h, color, image::ImageFormat::Png)
                .or_else(|x| write_err(&x))
        }
        Some("pfm") => {
            // PFM: "Pf" grayscale or "PF" RGB (alpha is dropped), a negative scale for
            // little-endian data, rows from the bottom up.
            let mut out = format!(
                "{}\n{w} {h}\n-1.0\n",
                if channels == 1 { "Pf" } else { "PF" }
            )
            .into_bytes();
            let row = w as usize * channels;
            for y in (0..h as usize).rev() {
                for px in texels[y * row..(y + 1) * row].chunks_exact(channels) {
                    for c in px.iter().take(channels.min(3)) {
                        out.extend(c.to_le_bytes());
                    }
                }
            }
            std::fs::write(path, out).or_else(|x| write_err(&x))
        }
        _ => err(
            span,
            format!("{method} writes `.png` or `.pfm` files, not `{path}`"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantization_clamps_and_rounds() {
        assert_eq!(quantize(-0.5), 0);
        assert_eq!(quantize(f32::NAN), 0);
        assert_eq!(quantize(0.5), 128);
        assert_eq!(quantize(1.0 / 255.0 * 7.4), 7);
        assert_eq!(quantize(3.0), 255);
    }

    #[test]
    fn integer_images_have_no_float_texels() {
        assert!(float_texels(RtImageFormat::R32Uint, &[0; 4]).is_none());
        let (c, t) = float_texels(RtImageFormat::Rgba8Unorm, &[0, 51, 255, 1]).unwrap();
        assert_eq!((c, t[1], t[2]), (4, 0.2, 1.0));
    }
}
