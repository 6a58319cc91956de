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
    // One walk of the module tells, for most programs, all that the three checks below would
    // each walk it for (a walk of every expression, 1.2M instructions of a 200-kernel build
    // when done three times); a module with a query is walked again after the queries.
    let scan = scan(module);
    let (mut float, mut int) = (scan.float, scan.int);
    if scan.query {
        device::specialize_queries(&mut out, target);
        // After the queries, so that dead branches are gone before types are chosen.
        float = device_code_mentions(&out, ir::ScalarType::is_float_precision);
        int = None;
    }
    if float {
        // Where `sfp` is stored in 16 bits, loops over such buffers take two iterations a trip
        // (the fp32 variant keeps its loops as written).
        if target.precision.float_storage != cajeta_runtime::FloatStorage::Fp32 {
            stride_unroll::unroll_stride_loops(out.to_mut());
        }
        precision::specialize_float(out.to_mut(), &target.precision)?;
        int = None;
    }
    let int = int.unwrap_or_else(|| device_code_mentions(&out, ir::ScalarType::is_int_precision));
    if int {
        int_precision::specialize_int(out.to_mut(), &target.precision)?;
    }
    Ok(out)
}

/// What [`specialize`] asks of a module before changing it.
struct Scan {
    /// Whether some function has a device or option query.
    query: bool,
    /// [`device_code_mentions`] of the float precision family (meaningless when `query`).
    float: bool,
    /// The same of the integer family; `None` where it must be asked again of the module as
    /// the passes before it leave it.
    int: Option<bool>,
}

/// [`Scan`] of `module` in one walk of its expressions, stopping at the first query.
fn scan(module: &ir::Module) -> Scan {
    let float = |t: &ir::Type| t.mentions_scalar(ir::ScalarType::is_float_precision);
    let int = |t: &ir::Type| t.mentions_scalar(ir::ScalarType::is_int_precision);
    let (mut has_float, mut has_int) = (false, false);
    for f in &module.functions {
        let device = f.kind != ir::FunctionKind::Host;
        if device && !(has_float && has_int) {
            has_float |= float(&f.return_type) || f.locals.iter().any(|l| float(&l.ty));
            has_int |= int(&f.return_type) || f.locals.iter().any(|l| int(&l.ty));
        }
        let mentions = std::cell::Cell::new((has_float, has_int));
        let query = ir::visit::find_expr(&f.body, &|e| {
            if device::is_query(e) {
                return true;
            }
            let (fl, it) = mentions.get();
            if device && !(fl && it) {
                mentions.set((fl || float(&e.ty), it || int(&e.ty)));
            }
            false
        });
        if query.is_some() {
            return Scan {
                query: true,
                float: false,
                int: None,
            };
        }
        (has_float, has_int) = mentions.get();
    }
    Scan {
        query: false,
        float: has_float,
        int: Some(has_int),
    }
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
