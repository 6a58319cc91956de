//! `run_program_mode`: the driver's entry to native host code, in a module of its own so
//! that binaries calling only [`super::run_program_with`] (the interpreter) do not reference
//! the LLVM backend and so do not link LLVM.

use super::{HostMode, RunError};
use crate::diagnostics::SourceMap;
use crate::host::interp::{HostExecutor, HostIo, HostOutcome};
use crate::kernel::spirv::SpirvOptions;

/// [`super::run_program_with`] with the host code run as `mode` says: natively (`Auto` and
/// `Native` in builds with the `native-host` feature) or by the interpreter.
pub fn run_program_mode(
    sources: &mut SourceMap,
    files: &[(String, String)],
    options: &SpirvOptions,
    args: &[String],
    io: &mut HostIo,
    context_options: Option<cajeta_runtime::ContextOptions>,
    mode: HostMode,
) -> Result<HostOutcome, RunError> {
    run_program_entry(sources, files, options, args, io, context_options, mode).map(|(o, _)| o)
}

/// [`run_program_mode`], also naming the entry method that ran (`run` or `main`): the CLI
/// prints what `run()` returns and makes what `main` returns the exit status.
pub fn run_program_entry(
    sources: &mut SourceMap,
    files: &[(String, String)],
    options: &SpirvOptions,
    args: &[String],
    io: &mut HostIo,
    context_options: Option<cajeta_runtime::ContextOptions>,
    mode: HostMode,
) -> Result<(HostOutcome, String), RunError> {
    super::run_program_entry_with(
        sources,
        files,
        (options, args),
        io,
        context_options,
        (mode, super::RunDevice::Vulkan),
        // Callers of this API read `Module::warnings` from `frontend` where they want them.
        (native(), &mut |_, _| {}),
    )
}

/// The native executor, in builds that have one.
fn native() -> Option<&'static dyn HostExecutor> {
    #[cfg(feature = "native-host")]
    {
        Some(&crate::host::native::Native)
    }
    #[cfg(not(feature = "native-host"))]
    {
        None
    }
}
