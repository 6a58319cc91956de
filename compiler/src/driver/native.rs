//! `run_program_mode`: the driver's entry to native host code, in a module of its own so
//! that binaries calling only [`super::run_program_with`] (the interpreter) do not reference
//! the LLVM backend and so do not link LLVM.

use super::{interpret, native_support, prepare, with_stage_stack, HostMode, RunError};
use crate::backend::host::{HostIo, HostOutcome};
use crate::backend::spirv::SpirvOptions;
use crate::diagnostics::SourceMap;
use crate::ir::{self, FunctionId};

/// [`super::run_program_with`] with the host code run as `mode` says. Kernels are compiled
/// (and their errors reported) in every mode; a native run needs no device, since programs
/// that use one never lower.
pub fn run_program_mode(
    sources: &mut SourceMap,
    files: &[(String, String)],
    options: &SpirvOptions,
    args: &[String],
    io: &mut HostIo,
    context_options: Option<cajeta_runtime::ContextOptions>,
    mode: HostMode,
) -> Result<HostOutcome, RunError> {
    let (module, kernels, entry) = prepare(sources, files, options)?;
    if mode != HostMode::Interp {
        match native_support(&module, entry, sources) {
            Ok(()) => return run_native(&module, entry, sources, io),
            Err(why) if mode == HostMode::Native => return Err(RunError::NotNative(why)),
            Err(_) => {}
        }
    }
    interpret(&module, entry, &kernels, args, sources, io, context_options)
}

/// Runs host code natively (only called once [`native_support`] said yes).
#[cfg(feature = "native-host")]
fn run_native(
    module: &ir::Module,
    entry: FunctionId,
    sources: &SourceMap,
    io: &mut HostIo,
) -> Result<HostOutcome, RunError> {
    use crate::backend::llvm::{run_native, NativeError};
    match with_stage_stack(|| run_native(module, entry, io.stdout)) {
        Ok(outcome) => Ok(outcome),
        Err(NativeError::Runtime(e)) => Err(RunError::Runtime(e.render(sources))),
        Err(NativeError::Unsupported(u)) => Err(RunError::NotNative(u.render(sources))),
        Err(NativeError::Internal(m)) => Err(RunError::Runtime(format!("runtime error: {m}"))),
    }
}

#[cfg(not(feature = "native-host"))]
fn run_native(
    _: &ir::Module,
    _: FunctionId,
    _: &SourceMap,
    _: &mut HostIo,
) -> Result<HostOutcome, RunError> {
    Err(RunError::NotNative(
        "this cajetac was built without the `native-host` feature".to_string(),
    ))
}
