//! Storage-image handle types of every format and the image queries:
//! `imageWidth()`/`imageHeight()` through LLVM's `llvm.spv.resource.getdimensions.xy` (one
//! `OpImageQuerySize`, as with rspirv). Texel loads and stores are in `resources`.

use super::lower::{FnLower, Val};
use super::refuse;
use super::Handle;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, ExprKind, ImageFormat, Place};

type Res<T> = Result<T, Diagnostic>;

/// `target("spirv.Image", T, 1 (2-D), 2 (depth unknown), 0, 0, 2 (storage), format)` of a
/// storage image format, its intrinsic-name mangling and the LLVM type of a texel as the
/// kernel sees it: the channel scalar for one-channel formats, a 4-vector for
/// four-channel ones (the target reads and writes that type with one
/// `OpImageRead`/`OpImageWrite`).
pub(crate) fn image_handle(format: ImageFormat, span: Span) -> Res<(String, String, &'static str)> {
    // SPIR-V `ImageFormat` enumerants; a signed-integer format takes `spirv.SignedImage`,
    // whose sampled type the target declares as a signed `OpTypeInt`.
    let (kind, lane, mangled, code) = match format {
        ImageFormat::Rgba32f => ("Image", "float", "f32", 1),
        ImageFormat::Rgba16f => ("Image", "float", "f32", 2),
        ImageFormat::R32f => ("Image", "float", "f32", 3),
        ImageFormat::Rgba8 => ("Image", "float", "f32", 4),
        ImageFormat::R16f => ("Image", "float", "f32", 9),
        ImageFormat::R8 => ("Image", "float", "f32", 15),
        ImageFormat::Rgba32i => ("SignedImage", "i32", "i32", 21),
        ImageFormat::R32i => ("SignedImage", "i32", "i32", 24),
        ImageFormat::Rgba32ui => ("Image", "i32", "i32", 30),
        ImageFormat::R32ui => ("Image", "i32", "i32", 33),
    };
    let texel = match (format.channels(), lane) {
        (1, lane) => lane,
        (_, "float") => "<4 x float>",
        _ => "<4 x i32>",
    };
    if format.channels() != 1 && format.channels() != 4 {
        return Err(refuse(
            span,
            format!("storage images of format {}", format.source_name()),
        ));
    }
    Ok((
        format!("target(\"spirv.{kind}\", {lane}, 1, 2, 0, 0, 2, {code})"),
        format!("tspirv.{kind}_{mangled}_1_2_0_0_2_{code}t"),
        texel,
    ))
}

impl FnLower<'_> {
    /// Lane `lane` (0 width, 1 height) of the size of the storage image `args[0]`.
    pub(super) fn image_size(&mut self, args: &[Expr], e: &Expr, lane: u32) -> Res<Val> {
        let [img] = args else {
            return Err(refuse(e.span, "a malformed image size query"));
        };
        if self.target == super::target::Target::Cpu {
            let (var, ..) = self.cpu_image_param(img)?;
            return Ok(self.cpu_image_size(&var, lane));
        }
        let ExprKind::Load(Place::Local(l)) = &img.kind else {
            return Err(refuse(img.span, "an image that is not a kernel parameter"));
        };
        let Some(Some(Handle::Image {
            var, ty, mangled, ..
        })) = self.handles.get(l.0).cloned()
        else {
            return Err(refuse(img.span, "an image that is not a kernel parameter"));
        };
        let name = format!("llvm.spv.resource.getdimensions.xy.{mangled}");
        self.declare(format!("declare <2 x i32> @{name}({ty})"));
        let (size, t) = (self.tmp(), self.tmp());
        self.emit(format!("{size} = call <2 x i32> @{name}({ty} {var})"));
        self.emit(format!("{t} = extractelement <2 x i32> {size}, i32 {lane}"));
        Ok(Val::new(t, "i32"))
    }
}
