//! Storage images of every format and sampled textures: `Image2D.store/load` (one
//! `OpImageWrite` / `OpImageRead`), `tex.sample/sampleLod` (`OpSampledImage` +
//! `OpImageSampleExplicitLod`: compute shaders have no derivatives, so even `sample` passes
//! an explicit LOD of 0), `fetch/fetchLod` (`OpImageFetch`) and the size queries
//! (`OpImageQuerySizeLod`, capability `ImageQuery`).

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, ImageOperands, Op, Word};

use super::expr::scalar_of;
use super::function::FnCx;
use super::module::ResourceKind;
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Expr, ImageFormat, ScalarType, TextureDim};

/// A loaded texture operand.
struct Tex {
    /// The loaded `OpTypeImage` value.
    image: Word,
    /// Its type.
    image_type: Word,
    dim: TextureDim,
    texel: ScalarType,
}

impl FnCx<'_, '_> {
    /// `img.store(x, y, v)`: one `OpImageWrite`; a one-channel texel is written as
    /// `<v, 0, 0, 0>`, a four-channel one as the vector itself.
    pub(crate) fn image_store(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [img, x, y, v] = args else {
            return Err(arity(e, 4));
        };
        let (image, format) = self.image_operand(img)?;
        let coord = self.coordinate(x, y)?;
        let (coord, guard) = self.checked_texel(image, coord, img, x, y)?;
        let value = self.expr(v)?;
        let texel = if format.channels() == 1 {
            if scalar_of(v)? != format.channel_type() {
                return Err(unsupported(
                    v.span,
                    format!(
                        "a {} texel must be a {}",
                        format.source_name(),
                        format.channel_type()
                    ),
                ));
            }
            let chan = self.cx.channel_type(format.channel_type());
            let zero = self.zero_of(format.channel_type(), e)?;
            let v4 = self.cx.vector_type(chan, 4);
            self.op(Op::CompositeConstruct, v4, &[value, zero, zero, zero])?
        } else {
            value
        };
        self.guarded(guard, None, |s| {
            s.cx.b
                .image_write(image, coord, texel, None, [])
                .ice(e.span)
                .map(|_| 0)
        })?;
        Ok(0)
    }

    /// `img.load(x, y)`: one `OpImageRead` of a 4-vector of the channel type; lane 0 for
    /// one-channel formats.
    pub(crate) fn image_load(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [img, x, y] = args else {
            return Err(arity(e, 3));
        };
        let (image, format) = self.image_operand(img)?;
        let coord = self.coordinate(x, y)?;
        let (coord, guard) = self.checked_texel(image, coord, img, x, y)?;
        let chan = self.cx.channel_type(format.channel_type());
        let v4 = self.cx.vector_type(chan, 4);
        let texel = self.guarded_read(guard, v4, |s| s.op(Op::ImageRead, v4, &[image, coord]))?;
        if format.channels() == 1 {
            self.cx
                .b
                .composite_extract(chan, None, texel, [0])
                .ice(e.span)
        } else {
            Ok(texel)
        }
    }

    /// `tex.sample(s, coords…)` (`lod` = `None`: level 0) and `tex.sampleLod(s, coords…, lod)`.
    pub(crate) fn texture_sample(&mut self, args: &[Expr], e: &Expr, with_lod: bool) -> Res<Word> {
        let Some((recv, rest)) = args.split_first() else {
            return Err(arity(e, 2));
        };
        let tex = self.texture_operand(recv)?;
        let n = tex.dim.coord_count();
        let want = 1 + n + usize::from(with_lod);
        let (Some(s), true) = (rest.first(), rest.len() == want) else {
            return Err(arity(e, want + 1));
        };
        let sampler = self.sampler_operand(s)?;
        let coord = self.float_coordinate(&rest[1..1 + n])?;
        let lod = match with_lod {
            true => self.float32_operand(&rest[1 + n])?,
            false => self.cx.const_float(ScalarType::F32, 0.0, e.span)?,
        };
        let sampled_type = self.cx.sampled_image_type(tex.image_type);
        let sampled = self.op(Op::SampledImage, sampled_type, &[tex.image, sampler])?;
        let chan = self.cx.channel_type(tex.texel);
        let v4 = self.cx.vector_type(chan, 4);
        self.cx
            .b
            .image_sample_explicit_lod(
                v4,
                None,
                sampled,
                coord,
                ImageOperands::LOD,
                [Operand::IdRef(lod)],
            )
            .ice(e.span)
    }

    /// `tex.fetch(coords…)` / `fetchLod(coords…, lod)`: `OpImageFetch` with an explicit
    /// integer LOD (0 for `fetch`).
    pub(crate) fn texture_fetch(&mut self, args: &[Expr], e: &Expr, with_lod: bool) -> Res<Word> {
        let Some((recv, rest)) = args.split_first() else {
            return Err(arity(e, 1));
        };
        let tex = self.texture_operand(recv)?;
        let n = tex.dim.fetch_count();
        if n == 0 {
            return Err(unsupported(e.span, "a cube texture cannot be fetched"));
        }
        let want = n + usize::from(with_lod);
        if rest.len() != want {
            return Err(arity(e, want + 1));
        }
        let mut parts = Vec::new();
        for c in &rest[..n] {
            parts.push(self.uint32_operand(c)?);
        }
        let mut lod = match with_lod {
            true => self.uint32_operand(&rest[n])?,
            false => self.cx.const_u32(0),
        };
        let mut guard = None;
        if self.checked() && !self.is_proven("fetch", e.span) {
            let mut signed = true;
            for c in &rest[..want] {
                signed &= super::bounds::index_type(c)? == ScalarType::I32;
            }
            let layered = tex.dim == TextureDim::D2Array;
            let name = self.resource_name(recv);
            let level = with_lod.then_some(lod);
            let (safe, safe_lod, g) =
                self.check_fetch(tex.image, (&parts, signed, layered), level, &name, e.span)?;
            (parts, lod, guard) = (safe, safe_lod, Some(g));
        }
        let coord = self.compose(ScalarType::U32, &parts)?;
        let chan = self.cx.channel_type(tex.texel);
        let v4 = self.cx.vector_type(chan, 4);
        self.guarded_read(guard, v4, |s| {
            s.cx.b
                .image_fetch(
                    v4,
                    None,
                    tex.image,
                    coord,
                    Some(ImageOperands::LOD),
                    [Operand::IdRef(lod)],
                )
                .ice(e.span)
        })
    }

    /// `textureWidth/Height/Depth()`: lane `lane` of `OpImageQuerySizeLod` at level 0.
    pub(crate) fn texture_size(&mut self, args: &[Expr], e: &Expr, lane: u32) -> Res<Word> {
        let [recv] = args else {
            return Err(arity(e, 1));
        };
        let tex = self.texture_operand(recv)?;
        let comps = match tex.dim {
            TextureDim::D1 => 1,
            TextureDim::D2 | TextureDim::Cube => 2,
            TextureDim::D3 | TextureDim::D2Array => 3,
        };
        if lane >= comps {
            return Err(unsupported(e.span, "the texture has no such dimension"));
        }
        self.cx.features.require(Capability::ImageQuery);
        let uint = self.cx.u32_type();
        let zero = self.cx.const_u32(0);
        if comps == 1 {
            return self.op(Op::ImageQuerySizeLod, uint, &[tex.image, zero]);
        }
        let vt = self.cx.vector_type(uint, comps);
        let size = self.op(Op::ImageQuerySizeLod, vt, &[tex.image, zero])?;
        self.cx
            .b
            .composite_extract(uint, None, size, [lane])
            .ice(e.span)
    }

    /// Checked mode: the texel coordinate to access with and the guard of the access.
    fn checked_texel(
        &mut self,
        image: Word,
        coord: Word,
        img: &Expr,
        x: &Expr,
        y: &Expr,
    ) -> Res<(Word, Option<super::bounds::Guard>)> {
        if !self.checked() {
            return Ok((coord, None));
        }
        let signed = scalar_of(x)? == ScalarType::I32 && scalar_of(y)? == ScalarType::I32;
        let name = self.resource_name(img);
        self.check_texel(image, coord, signed, &name, img.span.to(y.span))
    }

    /// Loads the image object of an `Image2D` expression, with its format.
    fn image_operand(&mut self, img: &Expr) -> Res<(Word, ImageFormat)> {
        let (var, kind) = self.resource_of(img)?;
        let ResourceKind::Image { image, format } = kind else {
            return Err(unsupported(img.span, "expected an Image2D"));
        };
        // Checked mode queries the image's size once, in the first block (`hoist.rs`).
        let object = match self.checked() {
            true => self.hoisted_image(var, image)?,
            false => self.op(Op::Load, image, &[var])?,
        };
        Ok((object, format))
    }

    fn texture_operand(&mut self, tex: &Expr) -> Res<Tex> {
        let (var, kind) = self.resource_of(tex)?;
        let ResourceKind::Texture { dim, texel, image } = kind else {
            return Err(unsupported(tex.span, "expected a texture"));
        };
        // Checked mode queries the texture's size once, in the first block (`hoist.rs`).
        let object = match self.checked() {
            true => self.hoisted_image(var, image)?,
            false => self.op(Op::Load, image, &[var])?,
        };
        Ok(Tex {
            image: object,
            image_type: image,
            dim,
            texel,
        })
    }

    fn sampler_operand(&mut self, s: &Expr) -> Res<Word> {
        let (var, kind) = self.resource_of(s)?;
        let ResourceKind::Sampler { sampler } = kind else {
            return Err(unsupported(s.span, "expected a Sampler"));
        };
        self.op(Op::Load, sampler, &[var])
    }

    fn float32_operand(&mut self, e: &Expr) -> Res<Word> {
        if scalar_of(e)? != ScalarType::F32 {
            return Err(unsupported(e.span, "texture coordinates are float32"));
        }
        self.expr(e)
    }

    fn uint32_operand(&mut self, e: &Expr) -> Res<Word> {
        let s = scalar_of(e)?;
        if !s.is_integer() {
            return Err(unsupported(e.span, "texel coordinates are integers"));
        }
        let v = self.expr(e)?;
        self.convert_int(v, s, ScalarType::U32, e.span)
    }

    /// A float32 scalar (one component) or vector coordinate.
    fn float_coordinate(&mut self, es: &[Expr]) -> Res<Word> {
        let mut parts = Vec::new();
        for c in es {
            parts.push(self.float32_operand(c)?);
        }
        self.compose(ScalarType::F32, &parts)
    }

    fn compose(&mut self, s: ScalarType, parts: &[Word]) -> Res<Word> {
        if let [one] = parts {
            return Ok(*one);
        }
        let elem = self.cx.channel_type(s);
        let vt = self.cx.vector_type(elem, parts.len() as u32);
        self.op(Op::CompositeConstruct, vt, parts)
    }

    fn zero_of(&mut self, s: ScalarType, e: &Expr) -> Res<Word> {
        match s {
            ScalarType::F32 => self.cx.const_float(s, 0.0, e.span),
            _ => self.cx.const_int(s, 0, e.span),
        }
    }
}

/// A wrong argument count (sema normally prevents it).
fn arity(e: &Expr, want: usize) -> Diagnostic {
    Diagnostic::error(
        Code::ArgumentCount,
        e.span,
        format!("intrinsic expects {want} argument(s)"),
    )
}
