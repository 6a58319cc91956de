//! The LLVM kernel backend's batches (`kernel::llvm::batch`): runs of a program's kernels
//! compiled together, one LLVM module each. The backend registers its batch compiler and
//! batch size here, as it registers its one-kernel compiler (`register_llvm_kernel_backend`),
//! so that programs that never choose `--backend llvm` do not link it.

use super::parallel::{self, Threads};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::{self, CompiledKernel, SpirvOptions};

/// The LLVM kernel backend's batch entry point: the kernels of a run of `FunctionId`s
/// compiled together (`kernel::llvm::compile_kernel_batch`), the results in their order.
pub type KernelBatchCompiler =
    fn(&ir::Module, &[FunctionId], &SpirvOptions) -> Vec<Result<CompiledKernel, Vec<Diagnostic>>>;

/// The batch size for a program of that many kernels (`kernel::llvm::batch_size`).
pub type BatchSize = fn(usize) -> usize;

/// The LLVM backend's batch compiler and its batch size, once linked in.
static LLVM_KERNEL_BATCHES: std::sync::OnceLock<(KernelBatchCompiler, BatchSize)> =
    std::sync::OnceLock::new();

/// Registers the LLVM kernel backend's batch compiler and the function giving its batch
/// size for a number of kernels (called by `kernel::llvm::enable`).
pub fn register_llvm_kernel_batches(compile: KernelBatchCompiler, size: BatchSize) {
    let _ = LLVM_KERNEL_BATCHES.set((compile, size));
}

/// The kernels `ids` compiled in batches on at most `threads` threads, the results in the
/// order of `ids`; `None` when they are not compiled in batches (another backend, one
/// kernel, a batch size of 1). A thread takes whole batches, and the batches are the same
/// for any thread count, so the modules are too.
pub(super) fn compile_in_batches(
    module: &ir::Module,
    ids: &[FunctionId],
    options: &SpirvOptions,
    threads: Threads,
    address_variants: bool,
) -> Option<Vec<Result<CompiledKernel, Vec<Diagnostic>>>> {
    let &(batch, size) = LLVM_KERNEL_BATCHES.get()?;
    if options.backend != spirv::KernelBackend::Llvm || ids.len() <= 1 {
        return None;
    }
    let size = size(ids.len());
    if size <= 1 {
        return None;
    }
    let chunks: Vec<&[FunctionId]> = ids.chunks(size).collect();
    let compiled = parallel::map_ordered(&chunks, threads, |chunk| {
        let main = batch(module, chunk, options);
        chunk
            .iter()
            .zip(main)
            .map(|(&id, kernel)| match kernel {
                Ok(k) if address_variants => {
                    Ok(super::with_address_variant(module, id, options, k))
                }
                other => other,
            })
            .collect::<Vec<_>>()
    });
    Some(compiled.into_iter().flatten().collect())
}
