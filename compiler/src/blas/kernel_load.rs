//! How the library GEMM loads its kernels: the descriptor module or, where launches on the
//! context can take it, the cooperative kernel's buffer-address variant.

use cajeta_runtime::{required_features, BufferAddressing, Context, Kernel, Reflection};

use super::gemm::GemmError;
use crate::embed::Program;

/// Loads `program`'s kernel `name` on `ctx`, naming it if the device refuses it: its
/// buffer-address variant when `prefer_address` and [`takes_variant`] allows it, else the
/// descriptor module; the flag says whether the variant was loaded. On the H100 the
/// cooperative kernels ran 5–10% faster through addresses than through descriptors
/// (docs/PERFORMANCE.md), as NVIDIA's sample reaches its buffers.
pub(super) fn load_kernel(
    ctx: &Context,
    program: &Program,
    name: &str,
    prefer_address: bool,
) -> Result<(Kernel, bool), GemmError> {
    let k = program.get(name).map_err(|e| GemmError(e.to_string()))?;
    let variant = match k.address_variant() {
        Some(v) if prefer_address && takes_variant(ctx, &v.reflection)? => Some(v),
        _ => None,
    };
    let module = variant.unwrap_or(k);
    let kernel = ctx
        .load_kernel(&module.words, &module.reflection)
        .map_err(|e| GemmError(format!("the device refused the GEMM's `{name}`: {e}")))?;
    Ok((kernel, variant.is_some()))
}

/// Whether launches on `ctx` can take an address variant of this `reflection`: buffer
/// addressing is not turned off (`CAJETA_BUFFER_ADDRESS=never`, or the context's option),
/// the context enabled every feature the variant needs (`bufferDeviceAddress`, which also
/// makes its buffers addressable, and `shaderInt64`), and its push constants fit the device
/// (the runtime's own test, as `always` applies it). An unreadable choice (a
/// `CAJETA_BUFFER_ADDRESS` that is none of `auto`, `always`, `never`) is the error a launch
/// of a kernel with an address variant reports, not a quiet fall back to descriptors.
fn takes_variant(ctx: &Context, reflection: &Reflection) -> Result<bool, GemmError> {
    if ctx.buffer_addressing().map_err(GemmError)? == BufferAddressing::Never {
        return Ok(false);
    }
    let enabled = ctx.enabled_features();
    Ok(required_features(&[reflection])
        .iter()
        .all(|f| enabled.contains(f))
        && ctx.wants_address_variant(
            BufferAddressing::Always,
            reflection.push_constants.size,
            std::iter::empty(),
        ))
}
