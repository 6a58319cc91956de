//! Kernels emitted in batches: the kernels of a batch that start with the same pipeline go
//! to LLVM as one module (`emit::parse_batch`), made into SPIR-V on one target machine with
//! one run of the optimizer and code generator, and the module is split back into one per
//! kernel (`split.rs`) before each kernel's own post-pass. Making a target machine and
//! setting up the pass managers was about half of what the emission helper did per kernel
//! (docs/performance-history.md, "where `--backend llvm` spends its time").
//!
//! Batches are runs of kernels in the program's kernel order, their size ([`batch_size`])
//! set by the number of kernels, whatever the thread count, so a kernel's module does not
//! depend on the threads (the driver gives each thread whole batches). Anything that does not work out for the batch — LLVM's error or
//! crash, a module the splitter cannot divide, a kernel's post-pass failing on its part —
//! sends the kernels concerned through the one-kernel path (`compile::compile`), which
//! names the kernel LLVM failed on and tries the kernel's other pipelines.

use super::compile::{self, Prepared};
use super::{emit, isolate, split};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::{CompiledKernel, SpirvOptions};

/// The batches a program's kernels are divided into when that leaves each batch between
/// [`MIN_BATCH`] and [`MAX_BATCH`] kernels: one batch per compile thread of a 16-core
/// machine, so that the threads there finish together (200 kernels: 16 batches of 13;
/// the batches of a 2-core machine are the same, each thread taking eight). The size depends
/// on the program alone, never on the thread count, so neither do the modules.
pub const TARGET_BATCHES: usize = 16;

/// The fewest kernels a batch is made of (smaller programs still share modules).
pub const MIN_BATCH: usize = 4;

/// The most kernels a batch is made of: past it, the helper's fixed cost per module is
/// already small beside the kernels' own (about 2.9M instructions a module against 4.3M a
/// kernel, for the kernels of the compile_speed bench).
pub const MAX_BATCH: usize = 16;

/// How many times a batch LLVM crashed on is emitted again before its kernels are emitted
/// one by one (see `compile_kernel_batch`).
const CRASH_RETRIES: usize = 2;

/// The environment variable that sets the batch size (`1`: every kernel alone).
pub const BATCH_VAR: &str = "CAJETA_LLVM_BATCH";

/// The kernels per batch for a program of `kernels` kernels: [`BATCH_VAR`] when it is a
/// positive number, else `kernels` over [`TARGET_BATCHES`] between [`MIN_BATCH`] and
/// [`MAX_BATCH`]; 1 when `CAJETA_DUMP_LLVM_KERNELS` asks for each kernel's optimized module
/// (which is written per module).
pub fn batch_size(kernels: usize) -> usize {
    if std::env::var_os("CAJETA_DUMP_LLVM_KERNELS").is_some() {
        return 1;
    }
    std::env::var(BATCH_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| kernels.div_ceil(TARGET_BATCHES).clamp(MIN_BATCH, MAX_BATCH))
}

/// Compiles the kernels `ids` as one batch (see the module comment); the results in the
/// order of `ids`.
pub fn compile_kernel_batch(
    module: &ir::Module,
    ids: &[FunctionId],
    options: &SpirvOptions,
) -> Vec<Result<CompiledKernel, Vec<Diagnostic>>> {
    use crate::driver::compile_trace::event;
    event(|| {
        format!(
            "batch of {} kernels from {:?}: start",
            ids.len(),
            ids.first()
        )
    });
    // A kernel refused before LLVM is refused again, with the same diagnostic, alone.
    let mut prepared: Vec<Option<Prepared<'_>>> = ids
        .iter()
        .map(|&id| compile::prepare(module, id, options).ok())
        .collect();
    let mut emitted: Vec<Option<rspirv::dr::Module>> = (0..ids.len()).map(|_| None).collect();
    // Kernels of one first pipeline, in kernel order.
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, p) in prepared.iter().enumerate() {
        let Some(p) = p else { continue };
        let first = p.pipes[0];
        match groups.iter_mut().find(|(pipe, _)| *pipe == first) {
            Some((_, members)) => members.push(i),
            None => groups.push((first, vec![i])),
        }
    }
    for (pipeline, members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
        let mut text = String::new();
        let mut names = Vec::with_capacity(members.len());
        for &i in &members {
            if let Some(p) = &prepared[i] {
                if !text.is_empty() {
                    text.push(emit::BATCH_SEPARATOR);
                }
                text.push_str(&p.text);
                names.push(p.kernel.name.as_str());
            }
        }
        // A crash is tried again, twice at most, on a fresh helper, before the kernels go
        // one by one: LLVM 23.1.1's SPIR-V target crashes now and then on a batch it emits
        // at other times (a segmentation fault in its pointer-cast legalization,
        // `SPIRVGlobalRegistry::buildAssignPtr`, for about one request in a hundred of the
        // compile_speed bench's batches; each retry measured succeeded), and a crash that
        // does not come again must not change the modules.
        event(|| {
            format!(
                "batch: {} kernels' IR ready, {} bytes",
                names.len(),
                text.len()
            )
        });
        let mut words = isolate::emit_isolated(&text, pipeline);
        event(|| "batch: SPIR-V back".into());
        for _ in 0..CRASH_RETRIES {
            match &words {
                Err(e) if e.starts_with(isolate::CRASHED) => {
                    words = isolate::emit_isolated(&text, pipeline);
                }
                _ => break,
            }
        }
        let Ok(words) = words else {
            continue;
        };
        let Ok(parts) = split::split(&words, &names) else {
            continue;
        };
        for (&i, part) in members.iter().zip(parts) {
            emitted[i] = Some(part);
        }
        event(|| "batch: split".into());
    }
    let done = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let done = match (prepared[i].take(), emitted[i].take()) {
                (Some(p), Some(part)) => match compile::post_pass_module(&p, part, options) {
                    Ok(fixed) => Some(compile::finish(p, Ok(fixed), options)),
                    Err(_) => None,
                },
                _ => None,
            };
            match done {
                Some(k) => k.map_err(|d| vec![d]),
                None => compile::compile(module, id, options).map_err(|d| vec![d]),
            }
        })
        .collect();
    event(|| "batch: post-passes done".into());
    done
}
