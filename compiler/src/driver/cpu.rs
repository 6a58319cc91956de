//! Running a program on the CPU device (docs/cpu-device.md): which device a run uses
//! (`cajetac run --device`, `CAJETA_DEVICE`), and the program's kernels compiled for the CPU
//! by the LLVM kernel lowering's CPU target before the run. The driver does not name that
//! target itself (it needs LLVM); `kernel::llvm::enable` registers it, as it registers the
//! LLVM kernel backend.

use std::collections::HashMap;

use crate::diagnostics::{Code, Diagnostic};
use crate::host::interp::cpu_run::CpuRun;
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::SpirvOptions;

/// Which device a run's launches go to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RunDevice {
    /// A Vulkan device: the one the context options select (`CAJETA_DEVICE=N`), or the best.
    #[default]
    Vulkan,
    /// The CPU device: kernels compiled for the host CPU, run on its cores.
    Cpu,
}

/// Compiles one kernel for the CPU device.
pub type CpuKernelCompiler = fn(
    &ir::Module,
    FunctionId,
    &SpirvOptions,
) -> Result<cajeta_runtime::cpu::CpuKernel, Vec<Diagnostic>>;

/// The CPU target, once a program has linked it in (`cajetac::kernel::llvm::enable`).
static CPU_KERNEL_TARGET: std::sync::OnceLock<CpuKernelCompiler> = std::sync::OnceLock::new();

/// Registers the CPU target (called by `kernel::llvm::enable`).
pub fn register_cpu_kernel_target(compile: CpuKernelCompiler) {
    let _ = CPU_KERNEL_TARGET.set(compile);
}

/// Whether this program can run kernels on the CPU device (it linked the CPU target).
pub fn cpu_device_available() -> bool {
    CPU_KERNEL_TARGET.get().is_some()
}

/// Every kernel of `ids` compiled for the CPU device, or every refusal (E0048, naming what
/// the CPU device cannot run) and error, in kernel order. The module is specialized for
/// `options.target` first, as for the SPIR-V backends (`Device.*` queries folded, precision
/// types made concrete).
pub fn compile_for_cpu(
    module: &ir::Module,
    ids: impl IntoIterator<Item = FunctionId>,
    options: &SpirvOptions,
) -> Result<CpuRun, Vec<Diagnostic>> {
    let module = &*crate::specialize::specialize(module, &options.target)?;
    let mut ids: Vec<FunctionId> = ids.into_iter().collect();
    ids.sort();
    let Some(compile) = CPU_KERNEL_TARGET.get() else {
        let span = ids
            .first()
            .map(|id| module.function(*id).span)
            .unwrap_or_default();
        return Err(vec![Diagnostic::error(
            Code::CpuDeviceUnsupported,
            span,
            "the cpu device needs the LLVM kernel lowering, which this program does not link \
             (builds with the `native-host` feature: `cajetac-llvm`, or call \
             `cajetac::kernel::llvm::enable()`)",
        )]);
    };
    let mut kernels = HashMap::new();
    let mut refusals = Vec::new();
    for id in ids {
        match compile(module, id, options) {
            Ok(k) => {
                kernels.insert(id, k);
            }
            Err(d) => refusals.extend(d),
        }
    }
    if !refusals.is_empty() {
        return Err(refusals);
    }
    Ok(CpuRun {
        device: cajeta_runtime::cpu::CpuDevice::new(),
        kernels,
    })
}
