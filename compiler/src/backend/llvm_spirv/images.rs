//! Image queries: `imageWidth()`/`imageHeight()` of a storage image, through LLVM's
//! `llvm.spv.resource.getdimensions.xy` (one `OpImageQuerySize`, as with rspirv).

use super::lower::{FnLower, Val};
use super::refuse;
use super::Handle;
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, ExprKind, Place};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// Lane `lane` (0 width, 1 height) of the size of the storage image `args[0]`.
    pub(super) fn image_size(&mut self, args: &[Expr], e: &Expr, lane: u32) -> Res<Val> {
        let [img] = args else {
            return Err(refuse(e.span, "a malformed image size query"));
        };
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
