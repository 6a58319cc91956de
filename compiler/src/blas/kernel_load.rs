//! How the library GEMM loads its kernels: the descriptor module or, where the context made
//! its buffers addressable, the cooperative kernel's buffer-address variant.

use cajeta_runtime::{BufferAddressing, Context, Kernel};

use super::gemm::GemmError;
use crate::embed::Program;
use crate::kernel::spirv::AddressVariant;

/// Loads `program`'s kernel `name` on `ctx`, naming it if the device refuses it: its
/// buffer-address variant when `by_address` and the kernel has one whose push constants fit
/// the device, else the descriptor module.
pub(super) fn load_kernel(
    ctx: &Context,
    program: &Program,
    name: &str,
    by_address: bool,
) -> Result<Kernel, GemmError> {
    let k = program.get(name).map_err(|e| GemmError(e.to_string()))?;
    let limit = ctx.device_info().limits.max_push_constants_size;
    let (words, reflection) = match &k.by_address {
        AddressVariant::Compiled(v) if by_address && v.reflection.push_constants.size <= limit => {
            (&v.words, &v.reflection)
        }
        _ => (&k.words, &k.reflection),
    };
    ctx.load_kernel(words, reflection)
        .map_err(|e| GemmError(format!("the device refused the GEMM's `{name}`: {e}")))
}

/// Whether the GEMM's kernel reaches A, B and C through buffer device addresses: where the
/// context made its buffers addressable (`bufferDeviceAddress` and `shaderInt64` enabled)
/// and `CAJETA_BUFFER_ADDRESS` (or the context's option) is not `never`. On the H100 the
/// cooperative kernels ran 5–10% faster so than through descriptors (docs/PERFORMANCE.md),
/// as NVIDIA's sample reaches its buffers.
pub(super) fn addresses_buffers(ctx: &Context) -> bool {
    let features = ctx.enabled_features();
    let on = |f: &str| features.iter().any(|g| g == f);
    on("bufferDeviceAddress")
        && on("shaderInt64")
        && !matches!(
            ctx.buffer_addressing(),
            Ok(BufferAddressing::Never) | Err(_)
        )
}
