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

mod device;
mod device_fold;

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
    Ok(out)
}
