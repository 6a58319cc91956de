//! The launch options of SPEC §6/§7 that depend on the compiled kernel: `spec: [...]`
//! values converted to their slot's type, and the dynamic shared array's byte size.

use cajeta_runtime::reflection::Reflection;

use super::eval::{err, Fail, Interp};
use super::value::Scalar;
use crate::diagnostics::Span;
use crate::ir::{self, visit};
use crate::layout::USER_SPEC_BASE;

/// The raw 32-bit values of `spec: [v0, v1, …]`: an `int32` slot takes an integer, a
/// `float32` slot an integer or a float (converted to float32). Slots the kernel never reads
/// take any number.
pub fn spec_bits(reflection: &Reflection, values: &[(Scalar, Span)]) -> Result<Vec<u32>, Fail> {
    let mut out = Vec::with_capacity(values.len());
    for (i, (v, span)) in values.iter().enumerate() {
        let slot = reflection
            .spec_constants
            .iter()
            .find(|s| s.id == USER_SPEC_BASE + i as u32);
        let bits = match (slot.map(|s| s.ty.as_str()), v.as_int(), v.as_float()) {
            (Some("float32"), Some(x), _) => (x as f32).to_bits(),
            (Some("float32"), _, Some(x)) => (x as f32).to_bits(),
            (Some("int32") | None, Some(x), _) => {
                let Ok(x) = i32::try_from(x) else {
                    return err(
                        *span,
                        format!("spec value {x} for slot {i} does not fit in int32"),
                    );
                };
                x as u32
            }
            (None, _, Some(x)) => (x as f32).to_bits(),
            (ty, _, _) => {
                let ty = ty.unwrap_or("unused");
                return err(
                    *span,
                    format!(
                        "spec slot {i} of `{}` is {ty}; found the {} {v}",
                        reflection.entry_point,
                        v.ty()
                    ),
                );
            }
        };
        out.push(bits);
    }
    Ok(out)
}

/// The kernel's dynamic shared array, as [`visit::dynamic_shared`] finds it: its length
/// parameter and element type.
pub type DynamicShared = Option<(ir::LocalId, ir::Type)>;

/// The byte size of the kernel's dynamic shared array (`dynamic`, found once per kernel by
/// [`Interp::dynamic_shared`], not by a walk of the kernel at every launch): `sharedBytes:`
/// when given (it must hold the `n` elements the length parameter says), otherwise `n` ×
/// the element size.
pub fn shared_size(
    kernel: &ir::Function,
    dynamic: &DynamicShared,
    args: &[Option<Scalar>],
    given: Option<u32>,
    span: Span,
) -> Result<Option<u32>, Fail> {
    let Some((param, elem)) = dynamic else {
        return Ok(given);
    };
    // The element size the kernel divides the byte size by (SPIR-V backend, `memory.rs`).
    let Some(size) = elem.std430_stride().map(u64::from) else {
        return err(span, format!("a shared array of `{elem}` has no size"));
    };
    let n = args
        .get(param.0)
        .copied()
        .flatten()
        .and_then(Scalar::as_int)
        .unwrap_or(0);
    let name = &kernel.locals[param.0].name;
    if n <= 0 {
        return err(
            span,
            format!(
                "the dynamic shared array of `{}` needs at least one element, but `{name}` is {n}",
                kernel.name
            ),
        );
    }
    let needed = n as u64 * size;
    match given {
        Some(bytes) if (bytes as u64) < needed => err(
            span,
            format!(
                "sharedBytes: {bytes} is too small for the {n} {elem} elements (`{name}`) of `{}`'s shared array: it needs {needed}",
                kernel.name
            ),
        ),
        Some(bytes) => Ok(Some(bytes)),
        None => match u32::try_from(needed) {
            Ok(b) => Ok(Some(b)),
            Err(_) => err(span, format!("a shared array of {needed} bytes is too large")),
        },
    }
}

impl Interp<'_> {
    /// The dynamic shared array of kernel `id` (`kernel`), found by a walk of its body the
    /// first time a run launches it.
    pub(super) fn dynamic_shared(
        &mut self,
        id: ir::FunctionId,
        kernel: &ir::Function,
    ) -> &DynamicShared {
        self.shared_arrays
            .entry(id)
            .or_insert_with(|| visit::dynamic_shared(kernel))
    }
}
