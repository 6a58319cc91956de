//! What is checked of kernels once compiled: their access sites' source positions (checked
//! mode) and what they need of a device profile.

use crate::diagnostics::{Diagnostic, SourceMap};
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::CompiledKernel;

/// Fills the `file:line:col` of every checked access site (`Reflection::bounds_check`, checked
/// mode) from the sources, so that runtime errors of embedders and of `.json` files carry it.
pub fn resolve_check_positions(kernels: &mut [(FunctionId, CompiledKernel)], sources: &SourceMap) {
    for (_, k) in kernels.iter_mut() {
        let Some(check) = k.reflection.bounds_check.as_mut() else {
            continue;
        };
        for site in &mut check.sites {
            let at = site.offset as usize;
            let span = crate::diagnostics::Span::new(site.file as usize, at, at);
            site.position = sources.position(span);
        }
    }
}

/// With a device profile, a kernel that needs something the device lacks (a type's
/// capability, a Vulkan feature, a newer target environment) is a compile error naming it, at
/// the kernel's name. Without a profile the module declares what it needs and the runtime
/// refuses to load it on a device that lacks it.
pub fn check_profile(
    module: &ir::Module,
    kernels: &[(FunctionId, CompiledKernel)],
    profile: &cajeta_runtime::DeviceProfile,
) -> Result<(), Vec<Diagnostic>> {
    let diags: Vec<Diagnostic> = kernels
        .iter()
        .filter_map(|(id, k)| {
            let need = profile.check(&k.reflection).err()?;
            Some(
                Diagnostic::error(
                    crate::diagnostics::Code::MissingDeviceFeature,
                    module.function(*id).span,
                    format!("kernel `{}` needs {need}, which device profile `{}` lacks", k.name, profile.name),
                )
                .with_label("compiled for that profile")
                .with_note("help: avoid the type or operation in this kernel, or build without --device-profile to let the runtime decide"),
            )
        })
        .collect();
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}
