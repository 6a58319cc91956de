//! Parses the kernel's LLVM IR, verifies it, runs LLVM's optimizer and emits SPIR-V with
//! LLVM's SPIR-V target.

use std::io::Write;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetTriple};
use inkwell::OptimizationLevel;

/// The target triple of Vulkan 1.3 compute modules.
pub(crate) const TRIPLE: &str = "spirv1.6-unknown-vulkan1.3-compute";

/// The passes that structure a kernel's control flow, last in every structurizer pipeline:
/// `emit_spirv` runs what comes before them, pins the values phis take (see
/// `ir_fixups::pin_phi_inputs`), then runs them.
macro_rules! structurize {
    () => {
        "function(lower-switch,fix-irreducible,unify-loop-exits,structurizecfg)"
    };
}

/// The lean pipeline every kernel without shared arrays or labeled jumps tries first: locals
/// promoted to SSA values (`sroa`), common subexpressions removed (`early-cse`),
/// instructions simplified (`instcombine`) and dead or trivial blocks folded
/// (`simplifycfg`). No loop passes, no inliner (the `@Device` helpers are `noinline`
/// anyway), no GVN: the GPU driver optimizes every module again, and `default<O2>` was 39% of
/// the emission helper's instructions for the 200 kernels of the compile_speed bench (365M
/// of 935M; with this pipeline, 69M of 694M). Over the `tests/` and `examples/` programs
/// built with `--backend llvm` (289 modules) its modules are 0.5% smaller than O2's in
/// total, every kernel O2 emitted still compiles, and spirv-val passes them all; without
/// `simplifycfg` three kernels (examples/noise.cajeta, examples/splat.cajeta,
/// tests/device/math_bits.cajeta) came out with an `OpSwitch` without a merge
/// (docs/performance-history.md, "`--backend llvm`: a lean first pipeline").
pub(crate) const LEAN_PIPELINE: &str =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg)";

/// The optimization pipelines, tried in order until one gives a module that passes the
/// post-processing and the structure check (`post.rs`, `structure.rs`): the
/// [`LEAN_PIPELINE`]; then LLVM's standard O2 (the first pipeline until the lean one
/// replaced it, so a kernel the lean pipeline leaves unstructured or invalid goes through
/// exactly the chain it went through before; no fast-math flags are ever set, so O2
/// neither contracts nor reassociates float arithmetic); then a pipeline that only
/// promotes locals to SSA and simplifies instructions (an `OpSwitch` with no merge was seen
/// for labeled `break`s out of nested loops after O2); then both followed by LLVM's region
/// structurizer ([`JUMP_PIPELINES`]), for the kernels whose control flow LLVM's SPIR-V
/// target leaves unstructured after the others (the `llvm-unstructured-selection` class of
/// docs/fuzzing.md: nested loops with `continue`/`break` under conditions). The
/// structurizer pipelines ([`is_structurizer`]) are tried only when a module of an earlier
/// one failed the structure check (`compile::emit_alone`). A kernel none of them
/// structures is refused.
pub(crate) const PIPELINES: [&str; 5] = [
    LEAN_PIPELINE,
    "default<O2>",
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>)",
    JUMP_PIPELINES[0],
    JUMP_PIPELINES[1],
];

/// Whether `pipeline` ends with LLVM's region structurizer: such pipelines are fallbacks
/// for modules another pipeline left unstructured (or the first choice of kernels with
/// labeled jumps), see [`PIPELINES`].
pub(crate) fn is_structurizer(pipeline: &str) -> bool {
    pipeline.ends_with(structurize!())
}

/// The pipelines of kernels with shared arrays (see `compile`): no loop unrolling and no
/// instcombine, which fold the arrays' GEPs into offsets the SPIR-V target mislowers; then,
/// when the target could not structure the result (a merge instruction away from its
/// branch, seen for the bounds-checked indexing of a multi-dimensional shared array), the
/// same with `simplifycfg`; then (as for [`PIPELINES`], only when a module of those failed
/// the structure check) the first with the region structurizer (an early `return`
/// out of a loop with barriers, `tests/device/barrier_shapes.cajeta`, left a selection
/// entered past its header).
pub(crate) const SHARED_MEMORY_PIPELINES: [&str; 3] = [
    "function(sroa,early-cse)",
    "function(sroa,early-cse,simplifycfg)",
    SHARED_MEMORY_JUMP_PIPELINES[0],
];

/// What kernels with a labeled jump out of nested loops run after optimizing: LLVM's
/// region structurizer with the passes it expects before it (switches lowered to branches,
/// irreducible loops fixed, loop exits unified), as AMDGPU runs it. Without it LLVM 23.1's
/// SPIR-V target left invalid modules for jumps out of three nested loops (a selection
/// merge before a plain branch after O2; a selection header not dominating its merge
/// after the other pipeline); `structurizecfg` alone, without `unify-loop-exits`, gave
/// wrong results on lavapipe (tests/device/control_flow.cajeta). The SSA pipeline of
/// [`PIPELINES`], then O2, followed by the structurizer (the lean first pipeline is not used
/// here: the structurizer's results were measured on lavapipe after these two). O2 came
/// first until a grid-stride loop with a labeled `continue` and `break` from an unrolled
/// inner loop lost the invocations' last increment on lavapipe where the SSA pipeline's
/// module is right (tests/device/labeled_jumps_strided.cajeta); O2 remains for a kernel the
/// first leaves unstructured.
pub(crate) const JUMP_PIPELINES: [&str; 2] = [
    concat!(
        "function(sroa,early-cse,instcombine<no-verify-fixpoint>),",
        structurize!()
    ),
    concat!("default<O2>,", structurize!()),
];

/// [`SHARED_MEMORY_PIPELINES`] followed by the structurizer, for kernels with shared arrays
/// and labeled jumps.
pub(crate) const SHARED_MEMORY_JUMP_PIPELINES: [&str; 1] =
    [concat!("function(sroa,early-cse),", structurize!())];

// inkwell 0.11 has no `target-spirv` feature; the static LLVM has the target linked in
// (llvm-sys links every component), so its initializers are declared here.
extern "C" {
    fn LLVMInitializeSPIRVTargetInfo();
    fn LLVMInitializeSPIRVTarget();
    fn LLVMInitializeSPIRVTargetMC();
    fn LLVMInitializeSPIRVAsmPrinter();
}

/// LLVM options that SPIR-V emission needs in whatever process it runs. `-disable-lsr`: the
/// code generator's loop strength reduction of LLVM 23.1 rewrote `((-i) & 0x7FFFFFFF) - i`
/// in a loop as the sum of two new counters, `-i` and `i * 0x7FFFFFFF`, which is 2^31 off for
/// every even `i` from 2 on (fuzz seed 80 program 341, docs/fuzzing.md); the optimized
/// module handed to the target still had the `and`. Vulkan drivers reduce strength
/// themselves.
pub(crate) const SPIRV_CODEGEN_OPTIONS: [&str; 1] = ["-disable-lsr"];

extern "C" {
    fn LLVMParseCommandLineOptions(
        argc: i32,
        argv: *const *const std::ffi::c_char,
        overview: *const std::ffi::c_char,
    );
}

/// Parses [`SPIRV_CODEGEN_OPTIONS`] and `extra` as LLVM's command line, once per process
/// (LLVM counts an option's occurrences over every parse, and refuses a second one): the
/// emission helper calls it first with its own options, an in-process emission
/// ([`emit_spirv`]) with none. LLVM's options are the whole process's, so in a process that
/// also compiles for the CPU device and emits SPIR-V itself (no helper found), the CPU
/// device's kernels lose loop strength reduction too: slower, never wrong.
pub(crate) fn set_codegen_options(extra: &[&str]) {
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        let owned: Vec<std::ffi::CString> = std::iter::once("cajetac")
            .chain(SPIRV_CODEGEN_OPTIONS)
            .chain(extra.iter().copied())
            .filter_map(|s| std::ffi::CString::new(s).ok())
            .collect();
        let argv: Vec<*const std::ffi::c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        // SAFETY: `argv` points into `owned`'s NUL-terminated strings, alive for the call;
        // `Once` makes it the process's only parse, before this process's first emission.
        unsafe { LLVMParseCommandLineOptions(argv.len() as i32, argv.as_ptr(), c"".as_ptr()) };
    });
}

pub(crate) fn init_target() {
    // LLVM's target registry is not safe to initialize from two threads at once.
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| {
        // SAFETY: the initializers only register the SPIR-V target in LLVM's registry, and
        // `Once` runs them exactly once per process.
        unsafe {
            LLVMInitializeSPIRVTargetInfo();
            LLVMInitializeSPIRVTarget();
            LLVMInitializeSPIRVTargetMC();
            LLVMInitializeSPIRVAsmPrinter();
        }
    });
}

/// The module whose LLVM IR is `text`, parsed into `ctx` and checked by LLVM's verifier; the
/// SPIR-V emission, the CPU device's JIT and its tests all start here.
pub(crate) fn parse_verified<'c>(
    ctx: &'c Context,
    text: &str,
) -> Result<inkwell::module::Module<'c>, String> {
    let buffer = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "kernel.ll");
    let module = ctx
        .create_module_from_ir(buffer)
        .map_err(|e| format!("parse: {}", e.to_string_lossy()))?;
    module
        .verify()
        .map_err(|e| format!("verify: {}", e.to_string_lossy()))?;
    Ok(module)
}

/// With `CAJETA_DUMP_LLVM_KERNELS` set, writes the optimized module (what LLVM's SPIR-V target
/// is given, after `ir_fixups`) to `<dir>/<kernel>.opt.ll`, each pipeline tried appending its
/// own module. The other dump (`<kernel>.ll`, `mod.rs`) is the module before optimization;
/// comparing this one with the SPIR-V tells a wrong optimization from a wrong code generator.
fn dump_optimized(module: &inkwell::module::Module<'_>, pipeline: &str) {
    let Some(dir) = std::env::var_os("CAJETA_DUMP_LLVM_KERNELS") else {
        return;
    };
    let Some(name) = module.get_functions().find(|f| f.count_basic_blocks() > 0) else {
        return;
    };
    let path =
        std::path::Path::new(&dir).join(format!("{}.opt.ll", name.get_name().to_string_lossy()));
    let text = format!(
        "; pipeline: {pipeline}\n{}\n",
        module.print_to_string().to_string_lossy()
    );
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

/// What separates the kernels' modules in the text of a batch (`batch.rs`): LLVM IR text
/// never holds a NUL.
pub(crate) const BATCH_SEPARATOR: char = '\0';

/// The prefix of the names of kernel `i`'s own functions and globals in a batch's module:
/// `cjb<i>.` (`split.rs` strips it from the names in the SPIR-V).
pub(crate) const BATCH_PREFIX: &str = "cjb";

/// The kernels' modules of a batch (`text` split at [`BATCH_SEPARATOR`]) linked into one,
/// each kernel's functions and globals renamed with its [`BATCH_PREFIX`] so that no two
/// kernels share one: every kernel keeps its own copy of a helper (the inliner then decides
/// for it as for the kernel alone, one caller each) and its own push-constant block. A
/// declared function keeps its name (LLVM's SPIR-V target knows its built-ins by name), as
/// do `llvm.` and `__spirv_` globals (built-in variables); kernels declaring one differently
/// fail the link, and the batch is then emitted kernel by kernel.
fn parse_batch<'c>(ctx: &'c Context, text: &str) -> Result<inkwell::module::Module<'c>, String> {
    let mut merged: Option<inkwell::module::Module<'c>> = None;
    for (i, part) in text.split(BATCH_SEPARATOR).enumerate() {
        let prefix = format!("{BATCH_PREFIX}{i}.");
        let m = parse_verified(ctx, &prefixed_resource_names(part, &prefix))?;
        for f in m.get_functions().filter(|f| f.count_basic_blocks() > 0) {
            let g = f.as_global_value();
            g.set_name(&format!("{prefix}{}", g.get_name().to_string_lossy()));
        }
        for g in m.get_globals() {
            let name = g.get_name().to_string_lossy().into_owned();
            if !name.starts_with("llvm.") && !name.starts_with("__spirv_") {
                g.set_name(&format!("{prefix}{name}"));
            }
        }
        match &merged {
            None => merged = Some(m),
            Some(all) => all
                .link_in_module(m)
                .map_err(|e| format!("link: {}", e.to_string_lossy()))?,
        }
    }
    merged.ok_or_else(|| "an empty batch".to_string())
}

/// `text` with `prefix` before the name of every resource (the strings `@.name.<binding>`
/// that `handlefrombinding` takes, written by `module_text` as
/// `@.name.<b> = private unnamed_addr constant [<n> x i8] c"<name>\00"`). LLVM 23.1's SPIR-V
/// target makes one variable per resource *name* in a module: two kernels of a batch with a
/// buffer `a` of different element types would share the first one's variable (spirv-val:
/// "Expected Result Type and Operand type to be the same"). `split.rs` takes the prefix off
/// the variable's name again.
fn prefixed_resource_names(text: &str, prefix: &str) -> String {
    const BYTES: &str = " x i8] c\"";
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        if line.starts_with("@.name.") {
            if let (Some(open), Some(close)) = (line.find('['), line.find(BYTES)) {
                if let Ok(n) = line[open + 1..close].parse::<usize>() {
                    out.push_str(&line[..=open]);
                    out.push_str(&(n + prefix.len()).to_string());
                    out.push_str(BYTES);
                    out.push_str(prefix);
                    out.push_str(&line[close + BYTES.len()..]);
                    continue;
                }
            }
        }
        out.push_str(line);
    }
    out
}

/// The SPIR-V words of the module whose LLVM IR is `text`: one kernel's module, or the
/// modules of a batch of kernels separated by [`BATCH_SEPARATOR`], emitted as one module
/// with an entry point each (on one target machine: a machine is made per module, as LLVM
/// 23.1.1's SPIR-V target cannot be reused for a second one).
pub(crate) fn emit_spirv(text: &str, pipeline: &str) -> Result<Vec<u32>, String> {
    init_target();
    set_codegen_options(&[]);
    let ctx = Context::create();
    let module = if text.contains(BATCH_SEPARATOR) {
        parse_batch(&ctx, text)?
    } else {
        parse_verified(&ctx, text)?
    };
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| e.to_string_lossy().to_string())?;
    let machine = target
        .create_target_machine(
            &triple,
            "",
            "",
            OptimizationLevel::Default,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or("cannot create a SPIR-V target machine")?;
    // No CPU-style vectorization: a GPU's lanes are its invocations, and the vectors the
    // loop vectorizer builds (8 lanes of `i32` for a loop over a 4-lane vector, found by the
    // fuzz campaign) are wider than Vulkan allows; LLVM's SPIR-V target cannot legalize
    // them and stops the process with `LLVM ERROR: unable to legalize instruction`.
    let run = |passes: &str| {
        let options = PassBuilderOptions::create();
        options.set_loop_vectorization(false);
        options.set_loop_slp_vectorization(false);
        options.set_loop_interleaving(false);
        module
            .run_passes(passes, &machine, options)
            .map_err(|e| format!("optimize: {}", e.to_string_lossy()))
    };
    match pipeline
        .strip_suffix(structurize!())
        .and_then(|p| p.strip_suffix(','))
    {
        Some(optimize) => {
            run(optimize)?;
            super::ir_fixups::pin_phi_inputs(&module).map_err(|e| format!("optimize: {e}"))?;
            run(structurize!())?;
        }
        None => run(pipeline)?,
    }
    super::ir_fixups::fix_up(&module).map_err(|e| format!("optimize: {e}"))?;
    dump_optimized(&module, pipeline);
    // Codegen mutates the module: it is emitted exactly once.
    let out = machine
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| format!("emit: {}", e.to_string_lossy()))?;
    let bytes = out.as_slice();
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(format!(
            "emit: {} bytes is not a SPIR-V module",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
