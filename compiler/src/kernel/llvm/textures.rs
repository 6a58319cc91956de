//! Sampled textures and separate samplers through LLVM 23's HLSL resource intrinsics, each
//! one instruction as with rspirv: `tex.sample`/`sampleLod` are
//! `llvm.spv.resource.samplelevel` (`OpSampledImage` + `OpImageSampleExplicitLod`; compute
//! shaders have no derivatives, so `sample` passes an explicit LOD of 0), `fetch`/`fetchLod`
//! are `llvm.spv.resource.load.level` (`OpImageFetch` with `Lod`), and the size queries are
//! `llvm.spv.resource.getdimensions.levels.*` (`OpImageQuerySizeLod` at level 0, plus an
//! `OpImageQueryLevels` the target adds and nothing reads). A zero offset operand adds no
//! `ConstOffset`.

use super::lower::{FnLower, Val};
use super::target::Target;
use super::types::{self, scalar_of};
use super::{refuse, Handle};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Place, ScalarType, TextureDim, Type};

type Res<T> = Result<T, Diagnostic>;

/// `target("spirv.Image", T, dim, 0 (not depth), arrayed, 0, 1 (sampled), 0 (format
/// unknown))` of a texture parameter — the `OpTypeImage` rspirv declares — with its
/// intrinsic-name mangling and the LLVM type of the texel vector its reads return. An
/// `int32` texture takes `spirv.SignedImage`, whose sampled type is a signed `OpTypeInt`.
pub(crate) fn texture_handle(
    dim: TextureDim,
    texel: ScalarType,
    span: Span,
) -> Res<(String, String, &'static str)> {
    let (kind, lane, mangled, vector) = match texel {
        ScalarType::F32 => ("Image", "float", "f32", "<4 x float>"),
        ScalarType::I32 => ("SignedImage", "i32", "i32", "<4 x i32>"),
        ScalarType::U32 => ("Image", "i32", "i32", "<4 x i32>"),
        other => {
            return Err(refuse(
                span,
                format!("textures of `{}` texels", other.name()),
            ))
        }
    };
    // SPIR-V `Dim`: 1D 0, 2D 1, 3D 2, Cube 3; a 2-D array is an arrayed 2-D image.
    let (code, arrayed) = match dim {
        TextureDim::D1 => (0, 0),
        TextureDim::D2 => (1, 0),
        TextureDim::D3 => (2, 0),
        TextureDim::Cube => (3, 0),
        TextureDim::D2Array => (1, 1),
    };
    Ok((
        format!("target(\"spirv.{kind}\", {lane}, {code}, 0, {arrayed}, 0, 1, 0)"),
        format!("tspirv.{kind}_{mangled}_{code}_0_{arrayed}_0_1_0t"),
        vector,
    ))
}

/// `target("spirv.Sampler")` and its mangling.
pub(crate) fn sampler_handle() -> (String, String) {
    (
        "target(\"spirv.Sampler\")".to_string(),
        "tspirv.Samplert".to_string(),
    )
}

/// A texture operand's handle.
struct Tex {
    var: String,
    ty: String,
    mangled: String,
    dim: TextureDim,
    texel: &'static str,
}

impl FnLower<'_> {
    /// `tex.sample(s, coords…)` (`with_lod` false: level 0) and `tex.sampleLod(s, coords…,
    /// lod)`.
    pub(super) fn texture_sample(&mut self, args: &[Expr], e: &Expr, with_lod: bool) -> Res<Val> {
        let Some((recv, rest)) = args.split_first() else {
            return Err(refuse(e.span, "a malformed texture sample"));
        };
        let tex = self.texture_operand(recv)?;
        let n = tex.dim.coord_count();
        let want = 1 + n + usize::from(with_lod);
        let (Some(s), true) = (rest.first(), rest.len() == want) else {
            return Err(refuse(e.span, "a malformed texture sample"));
        };
        let (sampler, sampler_ty, sampler_mangled) = self.sampler_operand(s)?;
        let coord = self.coordinate(&rest[1..1 + n], ScalarType::F32)?;
        let lod = match with_lod {
            true => self.float32_operand(&rest[1 + n])?,
            false => types::float_const(0.0),
        };
        if self.target == Target::Cpu {
            return Ok(self.cpu_texture_sample((&tex.var, &sampler), &coord, &lod, tex.texel));
        }
        let offset = offset_zero(tex.dim);
        let name = format!(
            "llvm.spv.resource.samplelevel.{}.{}.{sampler_mangled}.{}.f32.{}",
            types::mangle(tex.texel),
            tex.mangled,
            types::mangle(coord.ty),
            types::mangle(offset.0)
        );
        self.declare(format!(
            "declare {} @{name}({}, {sampler_ty}, {}, float, {})",
            tex.texel, tex.ty, coord.ty, offset.0
        ));
        let t = self.tmp();
        self.emit(format!(
            "{t} = call {} @{name}({} {}, {sampler_ty} {sampler}, {} {}, float {lod}, {} {})",
            tex.texel, tex.ty, tex.var, coord.ty, coord.text, offset.0, offset.1
        ));
        Ok(Val::new(t, tex.texel))
    }

    /// `tex.fetch(coords…)` / `fetchLod(coords…, lod)`: one `OpImageFetch` with an explicit
    /// integer LOD (0 for `fetch`).
    pub(super) fn texture_fetch(&mut self, args: &[Expr], e: &Expr, with_lod: bool) -> Res<Val> {
        let Some((recv, rest)) = args.split_first() else {
            return Err(refuse(e.span, "a malformed texture fetch"));
        };
        let tex = self.texture_operand(recv)?;
        let n = tex.dim.fetch_count();
        if n == 0 {
            return Err(refuse(e.span, "a fetch from a cube texture"));
        }
        if rest.len() != n + usize::from(with_lod) {
            return Err(refuse(e.span, "a malformed texture fetch"));
        }
        let coord = self.coordinate(&rest[..n], ScalarType::U32)?;
        let lod = match with_lod {
            true => self.uint32_operand(&rest[n])?.text,
            false => "0".to_string(),
        };
        if self.target == Target::Cpu {
            if tex.dim == TextureDim::D2 && tex.texel == "<4 x float>" {
                return Ok(self.cpu_texture_fetch_2d(&tex.var, &coord, &lod));
            }
            return Ok(self.cpu_texture_fetch(&tex.var, &coord, &lod, tex.texel));
        }
        let offset = offset_zero(tex.dim);
        let name = format!(
            "llvm.spv.resource.load.level.{}.{}.{}.i32.{}",
            types::mangle(tex.texel),
            tex.mangled,
            types::mangle(coord.ty),
            types::mangle(offset.0)
        );
        self.declare(format!(
            "declare {} @{name}({}, {}, i32, {})",
            tex.texel, tex.ty, coord.ty, offset.0
        ));
        let t = self.tmp();
        self.emit(format!(
            "{t} = call {} @{name}({} {}, {} {}, i32 {lod}, {} {})",
            tex.texel, tex.ty, tex.var, coord.ty, coord.text, offset.0, offset.1
        ));
        Ok(Val::new(t, tex.texel))
    }

    /// `textureWidth/Height/Depth()`: lane `lane` of the size of level 0.
    pub(super) fn texture_size(&mut self, args: &[Expr], e: &Expr, lane: u32) -> Res<Val> {
        let [recv] = args else {
            return Err(refuse(e.span, "a malformed texture size query"));
        };
        let tex = self.texture_operand(recv)?;
        let (suffix, result, lanes) = match tex.dim {
            TextureDim::D1 => ("x", "<2 x i32>", 1),
            TextureDim::D2 | TextureDim::Cube => ("xy", "<3 x i32>", 2),
            TextureDim::D3 | TextureDim::D2Array => ("xyz", "<4 x i32>", 3),
        };
        if lane >= lanes {
            return Err(refuse(e.span, "a size the texture does not have"));
        }
        if self.target == Target::Cpu {
            return Ok(self.cpu_texture_size(&tex.var, lane));
        }
        // The last lane is the number of mip levels.
        let name = format!(
            "llvm.spv.resource.getdimensions.levels.{suffix}.{}",
            tex.mangled
        );
        self.declare(format!("declare {result} @{name}({}, i32)", tex.ty));
        let (size, t) = (self.tmp(), self.tmp());
        self.emit(format!(
            "{size} = call {result} @{name}({} {}, i32 0)",
            tex.ty, tex.var
        ));
        self.emit(format!("{t} = extractelement {result} {size}, i32 {lane}"));
        Ok(Val::new(t, "i32"))
    }

    fn texture_operand(&mut self, tex: &Expr) -> Res<Tex> {
        let ExprKind::Load(Place::Local(l)) = &tex.kind else {
            return Err(refuse(tex.span, "a texture that is not a parameter"));
        };
        let Some(Some(Handle::Texture {
            var,
            ty,
            mangled,
            dim,
            texel,
            ..
        })) = self.handles.get(l.0).cloned()
        else {
            return Err(refuse(tex.span, "a texture that is not a parameter"));
        };
        Ok(Tex {
            var,
            ty,
            mangled,
            dim,
            texel,
        })
    }

    /// The sampler's handle value, type and mangling.
    fn sampler_operand(&mut self, s: &Expr) -> Res<(String, String, String)> {
        let handle = match &s.kind {
            ExprKind::Load(Place::Local(l)) => self.handles.get(l.0).cloned().flatten(),
            _ => None,
        };
        let Some(Handle::Sampler {
            var, ty, mangled, ..
        }) = handle
        else {
            return Err(refuse(s.span, "a sampler that is not a parameter"));
        };
        Ok((var, ty, mangled))
    }

    fn float32_operand(&mut self, e: &Expr) -> Res<String> {
        if scalar_of(&e.ty, e.span)? != ScalarType::F32 {
            return Err(refuse(e.span, "texture coordinates other than float32"));
        }
        Ok(self.expr(e)?.text)
    }

    /// An integer texel coordinate or LOD as `uint32` (narrower integers extended by their
    /// signedness, wider ones truncated, as rspirv converts them).
    fn uint32_operand(&mut self, e: &Expr) -> Res<Val> {
        let s = scalar_of(&e.ty, e.span)?;
        if !s.is_integer() {
            return Err(refuse(e.span, "texel coordinates that are not integers"));
        }
        let v = self.expr(e)?;
        self.convert_int(v, s, ScalarType::U32, e.span)
    }

    /// A `float32` (`lane` F32) or `uint32` (`lane` U32) coordinate: a scalar for one
    /// component, else a vector.
    fn coordinate(&mut self, parts: &[Expr], lane: ScalarType) -> Res<Val> {
        let mut values = Vec::new();
        for p in parts {
            values.push(match lane {
                ScalarType::F32 => self.float32_operand(p)?,
                _ => self.uint32_operand(p)?.text,
            });
        }
        let elem = if lane == ScalarType::F32 {
            "float"
        } else {
            "i32"
        };
        if let [one] = values.as_slice() {
            return Ok(Val::new(one.clone(), elem));
        }
        let span = parts.first().map_or(Span::default(), |p| p.span);
        let ty = types::vector(elem, values.len() as u8, span)?;
        let mut acc = "poison".to_string();
        for (i, v) in values.iter().enumerate() {
            let t = self.tmp();
            self.emit(format!(
                "{t} = insertelement {ty} {acc}, {elem} {v}, i32 {i}"
            ));
            acc = t;
        }
        Ok(Val::new(acc, ty))
    }
}

/// The offset operand that adds no `ConstOffset`: a zero of the shape's offset type (the
/// coordinate without an array layer).
fn offset_zero(dim: TextureDim) -> (&'static str, &'static str) {
    match dim {
        TextureDim::D1 => ("i32", "0"),
        TextureDim::D2 | TextureDim::D2Array => ("<2 x i32>", "zeroinitializer"),
        TextureDim::D3 | TextureDim::Cube => ("<3 x i32>", "zeroinitializer"),
    }
}

/// Whether `ty` is a resource a `@Device` helper is specialized to (its argument names a
/// kernel parameter's handle).
pub(crate) fn is_resource_argument(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Buffer(_) | Type::Image2D(_) | Type::Texture(..) | Type::Sampler
    )
}
