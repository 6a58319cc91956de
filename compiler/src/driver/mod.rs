//! The driver: wires the stages together for the CLI and for embedders.
//!
//! `frontend` runs syntax and sema over the user's files plus the stdlib prelude;
//! `compile_kernels` runs the SPIR-V backend over every kernel; `run_program` compiles the
//! kernels and runs a host entry point.

mod batches;
pub mod cache;
pub mod compile_trace;
mod cpu;
mod kernel_checks;
mod library_sources;
mod native;
mod parallel;
mod stage_stack;
pub(crate) mod stdlib;
mod stdlib_scan;
#[cfg(test)]
mod tests;

pub use kernel_checks::{check_profile, resolve_check_positions};

use crate::diagnostics::{Diagnostic, SourceMap};
use crate::host::interp::{self, HostIo, HostOutcome};
use crate::ir::{self, FunctionId, FunctionKind};
use crate::kernel::spirv::{self, CompiledKernel, SpirvOptions};
use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};

pub use batches::{register_llvm_kernel_batches, BatchSize, KernelBatchCompiler};
pub use cpu::{
    compile_for_cpu, cpu_device_available, register_cpu_kernel_target, CpuKernelCompiler, RunDevice,
};
pub use native::{run_program_entry, run_program_mode};
use parallel::Threads;
pub use parallel::{default_threads, THREADS_VAR};
pub use stage_stack::with_stage_stack;
use stage_stack::STAGE_STACK;
pub use stdlib::STDLIB_FILES;

/// Parses and checks `files` (name, source) together with the stdlib.
///
/// Only the stdlib classes the program can reach are parsed (see
/// [`stdlib::pruned_stdlib`]); if the program does not check that way, it is checked again
/// with the whole stdlib, so diagnostics are those of the whole prelude.
pub fn frontend(
    sources: &mut SourceMap,
    files: &[(String, String)],
) -> Result<ir::Module, Vec<Diagnostic>> {
    with_stage_stack(|| frontend_on_this_stack(sources, files))
}

/// Whether [`frontend`] leaves the syntax trees it checked to the process exit (see
/// [`leave_syntax_trees_to_exit`]).
static SYNTAX_TREES_LEFT_TO_EXIT: AtomicBool = AtomicBool::new(false);

/// Makes every later [`frontend`] of this process leave the syntax trees of a program that
/// checked (the program's and the stdlib's) allocated instead of freeing them node by node:
/// for a command that exits once the program is compiled (`cajetac build` and `check`),
/// the exit returns that memory at once. Freeing them was 2% of the instructions of `check`
/// of a small program and of 200 kernels. A long-running embedder (the language server)
/// does not call it.
pub fn leave_syntax_trees_to_exit() {
    SYNTAX_TREES_LEFT_TO_EXIT.store(true, Ordering::Relaxed);
}

/// Drops `trees`, or leaves them allocated (see [`leave_syntax_trees_to_exit`]).
fn done_with_syntax_trees<T>(trees: T) {
    if SYNTAX_TREES_LEFT_TO_EXIT.load(Ordering::Relaxed) {
        std::mem::forget(trees);
    }
}

fn frontend_on_this_stack(
    sources: &mut SourceMap,
    files: &[(String, String)],
) -> Result<ir::Module, Vec<Diagnostic>> {
    let ids: Vec<_> = STDLIB_FILES
        .iter()
        .map(|(name, text)| sources.add(format!("<stdlib>/{name}"), *text))
        .collect();
    let mut user = Vec::new();
    let mut diags = Vec::new();
    for (name, text) in files {
        let id = sources.add(name.clone(), text.clone());
        match crate::syntax::parse_file(id, text) {
            Ok(ast) => user.push((ast, false)),
            Err(mut d) => diags.append(&mut d),
        }
    }
    // Library classes written in the language: checked as the program's own classes.
    let library = library_sources::needed(files);
    for (name, text) in &library {
        let id = sources.add(name.clone(), text.to_string());
        match crate::syntax::parse_file(id, text) {
            Ok(ast) => user.push((ast, false)),
            Err(mut d) => diags.append(&mut d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let parts = if library.is_empty() {
        stdlib::pruned_stdlib(files)
    } else {
        // What the library classes name must be kept too.
        let mut all = files.to_vec();
        all.extend(library.iter().map(|(n, t)| (n.clone(), t.to_string())));
        stdlib::pruned_stdlib(&all)
    };
    if let Ok(mut parsed) = parse_stdlib(&ids, Some(&parts)) {
        parsed.append(&mut user);
        match crate::sema::check(&parsed) {
            Ok(module) => {
                done_with_syntax_trees(parsed);
                return Ok(module);
            }
            Err(_) => user = parsed.split_off(ids.len()),
        }
    }
    let mut parsed = parse_stdlib(&ids, None)?;
    parsed.append(&mut user);
    let checked = crate::sema::check(&parsed);
    if checked.is_ok() {
        done_with_syntax_trees(parsed);
    }
    checked
}

/// Parses the stdlib files under their file ids: only the given parts of each (pruned), or
/// whole.
fn parse_stdlib(
    ids: &[crate::diagnostics::FileId],
    parts: Option<&[Vec<(usize, usize)>]>,
) -> Result<Vec<(crate::syntax::ast::SourceFile, bool)>, Vec<Diagnostic>> {
    let mut parsed = Vec::new();
    let mut diags = Vec::new();
    for (f, (&id, (_, text))) in ids.iter().zip(STDLIB_FILES).enumerate() {
        let result = match parts {
            Some(parts) => crate::syntax::parse_file_parts(id, text, &parts[f]),
            None => crate::syntax::parse_file(id, text),
        };
        match result {
            Ok(ast) => parsed.push((ast, true)),
            Err(mut d) => diags.append(&mut d),
        }
    }
    if diags.is_empty() {
        Ok(parsed)
    } else {
        Err(diags)
    }
}

/// Compiles every kernel (or only `only`, by name) to SPIR-V, each with its address variant
/// where it has one (what a launch may need: `cajetac run`, the embedding API).
pub fn compile_kernels(
    module: &ir::Module,
    options: &SpirvOptions,
    only: Option<&str>,
) -> Result<Vec<(FunctionId, CompiledKernel)>, Vec<Diagnostic>> {
    with_stage_stack(|| {
        compile_kernels_on_this_stack(module, options, only, true, Threads::Default)
    })
}

/// [`compile_kernels`] without the address variants: the modules `cajetac build` writes,
/// compiled once each.
pub fn compile_kernel_modules(
    module: &ir::Module,
    options: &SpirvOptions,
    only: Option<&str>,
) -> Result<Vec<(FunctionId, CompiledKernel)>, Vec<Diagnostic>> {
    with_stage_stack(|| {
        compile_kernels_on_this_stack(module, options, only, false, Threads::Default)
    })
}

/// [`compile_kernel_modules`] on at most `threads` threads (the output does not depend on
/// the count; see [`parallel`]).
pub fn compile_kernel_modules_on(
    module: &ir::Module,
    options: &SpirvOptions,
    only: Option<&str>,
    threads: NonZeroUsize,
) -> Result<Vec<(FunctionId, CompiledKernel)>, Vec<Diagnostic>> {
    with_stage_stack(|| {
        compile_kernels_on_this_stack(module, options, only, false, Threads::AtMost(threads))
    })
}

fn compile_kernels_on_this_stack(
    module: &ir::Module,
    options: &SpirvOptions,
    only: Option<&str>,
    address_variants: bool,
    threads: Threads,
) -> Result<Vec<(FunctionId, CompiledKernel)>, Vec<Diagnostic>> {
    let module = &*crate::specialize::specialize(module, &options.target)?;
    let ids: Vec<FunctionId> = module
        .kernels()
        .filter(|&id| {
            let f = module.function(id);
            only.is_none_or(|n| n == f.name || n == f.qualified_name)
        })
        .collect();
    // The rspirv backend compiles a small kernel in microseconds: threads pay only for
    // much kernel code. LLVM's takes milliseconds a kernel and keeps one thread per core.
    let threads = match threads {
        // One kernel is compiled on the calling thread whatever the count says.
        Threads::Default if ids.len() <= 1 => Threads::AtMost(NonZeroUsize::MIN),
        Threads::Default if options.backend == crate::kernel::spirv::KernelBackend::Rspirv => {
            let mut expressions = 0usize;
            for &id in &ids {
                let count = std::cell::Cell::new(0usize);
                crate::ir::visit::find_expr(&module.function(id).body, &|_| {
                    count.set(count.get() + 1);
                    false
                });
                expressions += count.get();
            }
            parallel::threads_for_rspirv(expressions)
        }
        other => other,
    };
    let batched = batches::compile_in_batches(module, &ids, options, threads, address_variants);
    let compiled = match batched {
        Some(compiled) => compiled,
        None => parallel::map_ordered(&ids, threads, |&id| {
            if address_variants {
                compile_one(module, id, options)
            } else {
                compile_one_variant(module, id, options)
            }
        }),
    };
    let mut out = Vec::new();
    let mut diags = Vec::new();
    for (id, compiled) in ids.into_iter().zip(compiled) {
        match compiled {
            Ok(k) => out.push((id, k)),
            Err(mut d) => diags.append(&mut d),
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(diags)
    }
}

/// A kernel backend's entry point.
pub type KernelCompiler =
    fn(&ir::Module, FunctionId, &SpirvOptions) -> Result<CompiledKernel, Vec<Diagnostic>>;

/// The LLVM kernel backend, once a program has linked it in
/// (`cajetac::kernel::llvm::enable`). The driver does not name it itself, so that
/// programs that never choose `--backend llvm` (the test suites, benchmarks, embedders) do
/// not link LLVM's SPIR-V target statically, as `run_program` keeps the native host apart.
static LLVM_KERNEL_BACKEND: std::sync::OnceLock<KernelCompiler> = std::sync::OnceLock::new();

/// Registers the LLVM kernel backend (called by `kernel::llvm::enable`).
pub fn register_llvm_kernel_backend(compile: KernelCompiler) {
    let _ = LLVM_KERNEL_BACKEND.set(compile);
}

/// One kernel through the backend the options choose, with its address variant
/// ([`spirv::AddressVariant`]) when it has a `KernelBuffer<T>` parameter.
fn compile_one(
    module: &ir::Module,
    id: FunctionId,
    options: &SpirvOptions,
) -> Result<CompiledKernel, Vec<Diagnostic>> {
    let kernel = compile_one_variant(module, id, options)?;
    Ok(with_address_variant(module, id, options, kernel))
}

/// `kernel` with its address variant ([`spirv::AddressVariant`]) when it has a
/// `KernelBuffer<T>` parameter.
pub(super) fn with_address_variant(
    module: &ir::Module,
    id: FunctionId,
    options: &SpirvOptions,
    mut kernel: CompiledKernel,
) -> CompiledKernel {
    if !options.buffer_address && crate::layout::has_addressable_buffer(module.function(id)) {
        let by_address = SpirvOptions {
            buffer_address: true,
            ..options.clone()
        };
        kernel.by_address = match compile_one_variant(module, id, &by_address) {
            Ok(v) => spirv::AddressVariant::Compiled(Box::new(v)),
            Err(d) => spirv::AddressVariant::Refused(
                d.first()
                    .map(|d| format!("error[{}]: {}", d.code.as_str(), d.message))
                    .unwrap_or_default(),
            ),
        };
    }
    kernel
}

/// One kernel (one variant) through the backend the options choose.
fn compile_one_variant(
    module: &ir::Module,
    id: FunctionId,
    options: &SpirvOptions,
) -> Result<CompiledKernel, Vec<Diagnostic>> {
    match (options.backend, LLVM_KERNEL_BACKEND.get()) {
        (spirv::KernelBackend::Rspirv, _) => spirv::compile_kernel(module, id, options),
        (spirv::KernelBackend::Llvm, Some(compile)) => compile(module, id, options),
        (spirv::KernelBackend::Llvm, None) => Err(vec![Diagnostic::error(
            crate::diagnostics::Code::LlvmBackendUnsupported,
            module.function(id).span,
            "the LLVM kernel backend (`--backend llvm`) is not linked into this program: \
             call `cajetac::kernel::llvm::enable()` first (builds with the `native-host` feature)",
        )]),
    }
}

/// Finds the host entry point: `run()`, then `main()` / `main(String[] args)`. A `run` or
/// `main` with other parameters is an ordinary method and does not hide a `main` that can
/// be an entry point; when no method has an entry point's parameters, the first `run` or
/// `main` is returned, and running it reports why it cannot be one.
pub fn entry_point(module: &ir::Module) -> Option<FunctionId> {
    let string_array = ir::Type::Array(Box::new(ir::Type::String));
    let find = |name: &str, fits: &dyn Fn(&ir::Function) -> bool| {
        module
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Host && f.name == name && fits(f))
            .map(FunctionId)
    };
    let entry_params = |f: &ir::Function| match f.params() {
        [] => true,
        [p] => f.name == "main" && p.ty == string_array,
        _ => false,
    };
    find("run", &entry_params)
        .or_else(|| find("main", &entry_params))
        .or_else(|| find("run", &|_| true))
        .or_else(|| find("main", &|_| true))
}

/// Why `run_program` failed.
pub enum RunError {
    /// The program did not compile.
    Compile(Vec<Diagnostic>),
    /// There is no `run`/`main` method.
    NoEntryPoint,
    /// Host code failed at run time: [`interp::HostError::render`] gives the text with its
    /// position, [`interp::HostError::record`] the JSON record.
    Runtime(interp::HostError),
    /// [`HostMode::Native`] was asked for and the program cannot run natively: why (the
    /// construct and its position, or that this build has no native backend).
    NotNative(String),
}

/// How host code runs (`cajetac run --host`, docs/architecture.md "Host code").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HostMode {
    /// Natively through LLVM in builds with the `native-host` feature, else interpreted.
    #[default]
    Auto,
    /// Natively, or not at all ([`RunError::NotNative`] in builds without the feature).
    Native,
    /// Always the interpreter.
    Interp,
}

impl HostMode {
    /// Parses `auto`, `native` or `interp`.
    pub fn from_name(name: &str) -> Option<HostMode> {
        match name {
            "auto" => Some(HostMode::Auto),
            "native" => Some(HostMode::Native),
            "interp" => Some(HostMode::Interp),
            _ => None,
        }
    }
}

/// Whether this build runs host code natively: `Err` with the reason when it has no
/// `native-host` feature.
pub fn native_support() -> Result<(), String> {
    if cfg!(feature = "native-host") {
        Ok(())
    } else {
        Err("this cajetac was built without the `native-host` feature".to_string())
    }
}

/// Compiles and runs a program's host entry point. Kernels come from the compile cache
/// (`CAJETA_CACHE_DIR`, see [`cache`]) when the sources, options and compiler are unchanged.
pub fn run_program(
    sources: &mut SourceMap,
    files: &[(String, String)],
    options: &SpirvOptions,
    args: &[String],
    io: &mut HostIo,
) -> Result<HostOutcome, RunError> {
    run_program_with(sources, files, options, args, io, None)
}

/// [`run_program`], and when `io.context` is `None` and the program has kernels, first creates
/// the context from `context_options` with exactly the Vulkan features the compiled kernels
/// need enabled (what `cajetac run` does). If that fails (no device, a feature missing), the
/// run goes on without one and the first device use reports why.
pub fn run_program_with(
    sources: &mut SourceMap,
    files: &[(String, String)],
    options: &SpirvOptions,
    args: &[String],
    io: &mut HostIo,
    context_options: Option<cajeta_runtime::ContextOptions>,
) -> Result<HostOutcome, RunError> {
    let (module, kernels, entry) = prepare(sources, files, options)?;
    interpret(
        &module,
        entry,
        &kernels,
        args,
        sources,
        io,
        context_options,
        (&interp::Interpret, (None, None)),
    )
}

/// Where [`run_program_entry_with`] hands the checker's warnings (W0001…) about a program
/// that compiled, before it runs: `cajetac run` prints them as `check` does.
pub type WarningSink<'a> = &'a mut dyn FnMut(&SourceMap, &[Diagnostic]);

/// [`run_program_entry`] with the native executor given (`None`: the program has none, as in
/// the `cajetac` executable, which does not link LLVM): `Auto` runs host code natively when
/// there is one, `Native` refuses without one. The pair is the options and `main`'s arguments.
/// The checker's warnings go to `on_warnings` before the program runs.
pub fn run_program_entry_with(
    sources: &mut SourceMap,
    files: &[(String, String)],
    (options, args): (&SpirvOptions, &[String]),
    io: &mut HostIo,
    context_options: Option<cajeta_runtime::ContextOptions>,
    (mode, device): (HostMode, RunDevice),
    (native, on_warnings): (Option<&dyn interp::HostExecutor>, WarningSink<'_>),
) -> Result<(HostOutcome, String), RunError> {
    let executor: &dyn interp::HostExecutor = match (mode, native) {
        (HostMode::Interp, _) | (HostMode::Auto, None) => &interp::Interpret,
        (_, Some(native)) => native,
        (HostMode::Native, None) => {
            return Err(RunError::NotNative(
                "this cajetac was built without the `native-host` feature".to_string(),
            ))
        }
    };
    let (module, kernels, entry) = prepare(sources, files, options)?;
    on_warnings(sources, &module.warnings);
    let name = module.function(entry).name.clone();
    let cpu = match device {
        RunDevice::Vulkan => None,
        RunDevice::Cpu => Some(
            compile_for_cpu(&module, kernels.keys().copied(), options)
                .map_err(RunError::Compile)?,
        ),
    };
    // A Vulkan run of a program that calls `Device.force` may move to the CPU device before
    // its first device use: its kernels are compiled for it too, when they can be (when not,
    // `force("cpu")` is a runtime error).
    let spare_cpu = match device {
        RunDevice::Vulkan
            if calls_host_op(&module, |op| {
                op == ir::HostOp::DeviceControl(ir::DeviceControl::Force)
            }) && cpu_device_available() =>
        {
            compile_for_cpu(&module, kernels.keys().copied(), options).ok()
        }
        _ => None,
    };
    interpret(
        &module,
        entry,
        &kernels,
        args,
        sources,
        io,
        context_options,
        (executor, (cpu.as_ref(), spare_cpu.as_ref())),
    )
    .map(|outcome| (outcome, name))
}

/// The compiled program: checked module, compiled kernels, entry point.
type Prepared = (ir::Module, HashMap<FunctionId, CompiledKernel>, FunctionId);

/// Checks the program and compiles its kernels (through the compile cache).
fn prepare(
    sources: &mut SourceMap,
    files: &[(String, String)],
    options: &SpirvOptions,
) -> Result<Prepared, RunError> {
    let module = frontend(sources, files).map_err(RunError::Compile)?;
    let key = cache::compile_key(files, options, None, None);
    let dir = cajeta_runtime::cache_dir_from_env();
    let kernels: HashMap<FunctionId, CompiledKernel> =
        cache::compile_kernels_cached(&module, options, None, dir.as_deref(), &key)
            .map_err(RunError::Compile)?
            .0
            .into_iter()
            .collect();
    let entry = entry_point(&module).ok_or(RunError::NoEntryPoint)?;
    Ok((module, kernels, entry))
}

/// Whether some host function of `module` calls `Blas.gemm`.
fn calls_library_gemm(module: &ir::Module) -> bool {
    calls_host_op(module, |op| op == ir::HostOp::Gemm)
}

/// Whether some function of `module` runs a host operation that `wanted` accepts.
fn calls_host_op(module: &ir::Module, wanted: impl Fn(ir::HostOp) -> bool) -> bool {
    let found = |e: &ir::Expr| matches!(e.kind, ir::ExprKind::Host { op, .. } if wanted(op));
    module
        .functions
        .iter()
        .any(|f| ir::visit::find_expr(&f.body, &found).is_some())
}

/// Runs the host code with `executor`, creating the context first (see
/// [`run_program_with`]).
#[allow(clippy::too_many_arguments)]
fn interpret(
    module: &ir::Module,
    entry: FunctionId,
    kernels: &HashMap<FunctionId, CompiledKernel>,
    args: &[String],
    sources: &SourceMap,
    io: &mut HostIo,
    context_options: Option<cajeta_runtime::ContextOptions>,
    (executor, cpu): (
        &dyn interp::HostExecutor,
        (
            Option<&interp::cpu_run::CpuRun>,
            Option<&interp::cpu_run::CpuRun>,
        ),
    ),
) -> Result<HostOutcome, RunError> {
    let mut pending = None;
    let wants_context = io.context.is_none() && !kernels.is_empty() && cpu.0.is_none();
    if let Some(opts) = context_options.filter(|_| wants_context) {
        // Address variants count: a launch may need one (a buffer past the descriptor range).
        // A device without their features fails this context, and a plain one is made.
        let reflections: Vec<&cajeta_runtime::Reflection> = kernels
            .values()
            .flat_map(|k| {
                let variant = match &k.by_address {
                    spirv::AddressVariant::Compiled(v) => Some(&v.reflection),
                    _ => None,
                };
                std::iter::once(&k.reflection).chain(variant)
            })
            .collect();
        // Printing kernels turn the validation layer's printf on (CAJETA_KERNEL_PRINTF=0:
        // off, their printing dropped).
        let prints = kernels
            .values()
            .any(|k| cajeta_runtime::kernel_prints(&k.words));
        let opts = opts
            .with_features(cajeta_runtime::required_features(&reflections))
            .with_kernel_printf(cajeta_runtime::kernel_printf_from_env().unwrap_or(prints));
        // Blas.gemm compiles its kernels at run time for the device's features (cooperative
        // matrices where it has them): such a program gets them all, not only its own
        // kernels' (a context without them would run the scalar GEMM).
        let opts = if calls_library_gemm(module) {
            cajeta_runtime::ContextOptions {
                features: None,
                ..opts
            }
        } else {
            opts
        };
        // Made on a thread of its own while the host code compiles (natively, tens of
        // milliseconds; the device's creation takes about as long): the first device use
        // waits for it.
        let (tx, rx) = std::sync::mpsc::channel();
        let made = std::thread::Builder::new()
            .name("cajeta-context".into())
            .spawn(move || {
                let _ =
                    tx.send(cajeta_runtime::Context::with_options(opts).map_err(|e| e.to_string()));
            });
        pending = made.is_ok().then_some(rx);
    }
    interp::run_host_on(
        module, entry, args, kernels, sources, io, executor, pending, cpu,
    )
    .map_err(RunError::Runtime)
}
