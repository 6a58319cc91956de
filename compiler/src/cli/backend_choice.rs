//! `--backend`: which kernel backend emits the SPIR-V, the target environment it implies,
//! and `--emit kernel-llvm`.

use cajetac::kernel::spirv::KernelBackend;
use clap::ValueEnum;

/// `--backend`: which kernel backend emits the SPIR-V.
#[derive(Clone, Copy, ValueEnum, PartialEq, Debug, Default)]
pub(crate) enum BackendArg {
    /// The direct rspirv emitter (every kernel; the default).
    #[default]
    Rspirv,
    /// LLVM's SPIR-V target (Vulkan 1.3; docs/backends.md lists what it lowers).
    Llvm,
}

impl BackendArg {
    /// The driver's value for this choice.
    pub(crate) fn backend(self) -> KernelBackend {
        match self {
            BackendArg::Rspirv => KernelBackend::Rspirv,
            BackendArg::Llvm => KernelBackend::Llvm,
        }
    }
}

/// The kernel backend, made available to the driver, and the `--target-env` given or the
/// backend's default: vulkan1.3 for LLVM (the only environment its SPIR-V target emits),
/// vulkan1.1 otherwise.
pub(crate) fn resolve_backend(env: &Option<String>, backend: BackendArg) -> (&str, KernelBackend) {
    if let Some(parts) = super::llvm().filter(|_| backend == BackendArg::Llvm) {
        (parts.enable_kernel_backend)();
    }
    let env = env.as_deref().unwrap_or(match backend {
        BackendArg::Llvm => "vulkan1.3",
        BackendArg::Rspirv => "vulkan1.1",
    });
    (env, backend.backend())
}

/// With `--backend llvm`, starts the emission helpers the compile will use before the front
/// end runs (`kernel::llvm::prestart_helpers`), for the kernels the sources seem to have: their
/// `@Kernel` annotations, or the one `--kernel` names. An estimate only changes how many
/// helpers wait ready, never what is compiled.
pub(crate) fn prestart_llvm_helpers(
    inputs: &[(String, String)],
    backend: KernelBackend,
    only: Option<&str>,
) {
    let Some(parts) = super::llvm().filter(|_| backend == KernelBackend::Llvm) else {
        return;
    };
    let kernels = match only {
        Some(_) => 1,
        None => inputs
            .iter()
            .map(|(_, text)| text.matches("@Kernel").count())
            .sum(),
    };
    (parts.prestart_helpers)(kernels);
}

/// `--emit kernel-llvm`: the LLVM IR the LLVM kernel backend hands to LLVM for a kernel
/// (`None`: an executable without LLVM).
pub(crate) fn kernel_llvm_ir(
    module: &cajetac::ir::Module,
    id: cajetac::ir::FunctionId,
) -> Result<String, Option<cajetac::diagnostics::Diagnostic>> {
    match super::llvm() {
        Some(parts) => (parts.kernel_ir)(module, id).map_err(Some),
        None => Err(None),
    }
}
