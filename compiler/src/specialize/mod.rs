//! Specialization: checked IR → IR for one target (SPEC §8).
//!
//! Sema produces target-independent IR: precision types (`sfp`, `afp`, `lfp`, the integer
//! families) and device/option queries (`Device.*`, `Option.*`) stay symbolic there. This stage
//! takes that IR plus a [`Target`] (the precision variant and, when known, the device profile)
//! and returns IR the backends can lower without knowing about §8: precision types become
//! concrete types with explicit conversions, queries become constants, and branches on them
//! that are dead are removed (so they emit no code and no capability).
//!
//! When a module uses none of this the input is returned borrowed, so plain kernels pay nothing.
//!
//! Passes, in order: `stride_unroll` (16-bit storage variants only: counted loops over
//! precision-typed buffers take two iterations a trip), `precision` (the float family `sfp afp lfp`; its module doc describes the
//! representation and how the integer families plug in as `int_precision`), then the integer
//! and device passes. Host functions are left symbolic.

mod int_precision;
mod int_precision_codec;
mod int_precision_fns;
mod precision;
mod precision_codec;
mod precision_fns;
#[cfg(test)]
mod precision_tests;
mod rewrite;
mod stride_unroll;
#[cfg(test)]
mod stride_unroll_tests;

mod device;
mod device_fold;
/// Whether a device profile has what a capability needs (`Device.supports`).
pub use device::supports as profile_supports;

use std::borrow::Cow;

use crate::diagnostics::Diagnostic;
use crate::ir;
use cajeta_runtime::{DeviceProfile, PrecisionVariant};

/// What a module is specialized for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Target {
    /// The precision variant (options ∩ device features, see
    /// [`cajeta_runtime::PrecisionOptions::resolve`]); fp32 by default.
    pub precision: PrecisionVariant,
    /// The device profile, when compiling for a known device; `None` is the baseline of §8
    /// (plain Vulkan 1.1, no optional features).
    pub profile: Option<DeviceProfile>,
}

/// Specializes `module` for `target`. Function ids are preserved, so kernels and host code
/// refer to the same functions before and after.
pub fn specialize<'m>(
    module: &'m ir::Module,
    target: &Target,
) -> Result<Cow<'m, ir::Module>, Vec<Diagnostic>> {
    let mut out = Cow::Borrowed(module);
    device::specialize_queries(&mut out, target);
    // After the queries, so that dead branches are gone before types are chosen.
    if device_code_mentions(&out, ir::ScalarType::is_float_precision) {
        // Where `sfp` is stored in 16 bits, loops over such buffers take two iterations a trip
        // (the fp32 variant keeps its loops as written).
        if target.precision.float_storage != cajeta_runtime::FloatStorage::Fp32 {
            stride_unroll::unroll_stride_loops(out.to_mut());
        }
        precision::specialize_float(out.to_mut(), &target.precision)?;
    }
    if device_code_mentions(&out, ir::ScalarType::is_int_precision) {
        int_precision::specialize_int(out.to_mut(), &target.precision)?;
    }
    Ok(out)
}

/// Whether a kernel or device helper of `module` uses a type of the precision `family`
/// (in a local, its return type or any expression); host functions do not count.
fn device_code_mentions(module: &ir::Module, family: fn(ir::ScalarType) -> bool) -> bool {
    let mentions = |t: &ir::Type| t.mentions_scalar(family);
    module
        .functions
        .iter()
        .filter(|f| f.kind != ir::FunctionKind::Host)
        .any(|f| {
            f.locals.iter().any(|l| mentions(&l.ty))
                || mentions(&f.return_type)
                || ir::visit::find_expr(&f.body, &|e| mentions(&e.ty)).is_some()
        })
}
