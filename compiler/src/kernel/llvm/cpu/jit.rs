//! Optimizing a CPU kernel module for the host's CPU and linking it in process, with the
//! same LLVM and ORC JIT as native host code (`crate::host::native`).

use std::sync::Arc;

use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

use super::simd;
use crate::host::native::Linked;
use cajeta_runtime::cpu::KernelEntry;
use inkwell::values::AsValueRef;
use std::fmt::Write;

/// The linked code of one kernel. The JIT is only read (its code run) after linking and
/// dropped once.
struct Code {
    _linked: Linked,
}

// SAFETY: see `Code`: nothing mutates the JIT after `compile` returns.
unsafe impl Send for Code {}
// SAFETY: as above.
unsafe impl Sync for Code {}

/// The linked code of a kernel, which its entries live in.
pub(crate) type LinkedCode = Arc<dyn std::any::Any + Send + Sync>;

/// What of a kernel module gets the SIMD-lane form (`simd.rs`).
pub(crate) enum Lanes<'a> {
    /// Nothing: a kernel run on a team of threads.
    None,
    /// A kernel without barriers: its one-invocation function and its scalar workgroup
    /// entry, whose address becomes the vector workgroup's when the vector form takes it.
    Kernel(&'a str, &'a str),
    /// A kernel split at its barriers: each region run in a loop over the invocations, as
    /// (region function, its scalar loop); calls of a loop go to the region's vector form
    /// where that takes the region.
    Regions(&'a [(String, String)]),
}

/// Parses, verifies and optimizes `text` (LLVM's O2 for the host CPU: kernels are small and
/// run many times, so the full pipeline pays), compiles it to an object and links it;
/// returns the addresses of `entries` and the code they live in. The optimized module is
/// written to `dump` when given (`CAJETA_DUMP_LLVM_KERNELS`), with a first line saying what
/// runs as SIMD lanes; also how many loops over the invocations run as SIMD lanes.
pub(crate) fn compile(
    text: &str,
    entries: &[&str],
    dump: Option<std::path::PathBuf>,
    plan: Lanes,
) -> Result<(Vec<KernelEntry>, LinkedCode, usize), String> {
    // Initializes LLVM's native target once per process.
    crate::host::native::target_machine()?;
    let ctx = Context::create();
    let parse = |text: &str| crate::kernel::llvm::emit::parse_verified(&ctx, text);
    // The module with the vector form's functions (`extra`, LLVM IR text) added, parsed
    // anew; a module LLVM refuses is written beside the dump (if one was asked for).
    let with_vector_form = |module: &inkwell::module::Module<'_>, extra: &str| {
        let both = format!("{}{extra}", module.print_to_string().to_string());
        parse(&both).map_err(|e| {
            if let Some(path) = &dump {
                let _ = std::fs::write(path.with_extension("simd-failed.ll"), &both);
            }
            format!("the vector form: {e}")
        })
    };
    let mut module = parse(text)?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| format!("LLVM target: {e}"))?;
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    let machine = target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Default,
            RelocMode::PIC,
            CodeModel::Small,
        )
        .ok_or("cannot create an LLVM target machine")?;
    // `vectorizers`: LLVM's loop and SLP vectorizers run. They do not before the vector
    // form is written: it takes scalar code only, and the SLP vectorizer would pair up
    // values (two channels of a texel, two adjacent stores) into short vectors it refuses.
    // Shared-memory read-modify-writes of split regions stay calls until then (the vector
    // form runs them lane by lane), and are inlined for the final optimization.
    let optimize = |module: &inkwell::module::Module<'_>, vectorizers: bool| {
        module.set_triple(&triple);
        module.set_data_layout(&machine.get_target_data().get_data_layout());
        cap_access_alignment(module);
        if vectorizers {
            inline_lanewise_shared(&ctx, module);
        }
        let options = PassBuilderOptions::create();
        options.set_loop_vectorization(vectorizers);
        options.set_loop_slp_vectorization(vectorizers);
        module
            .run_passes("default<O2>", &machine, options)
            .map_err(|e| format!("optimize: {}", e.to_string_lossy()))
    };
    let lanes = simd::lane_count();
    let try_simd = lanes > 1 && !matches!(plan, Lanes::None);
    optimize(&module, !try_simd)?;
    let mut note = String::new();
    let mut vector_workgroup = None;
    let mut lane_loops = 0;
    match plan {
        Lanes::Kernel(kernel, workgroup) if try_simd => {
            let function = module
                .get_function(kernel)
                .ok_or_else(|| format!("no function `{kernel}` to vectorize"))?;
            // SAFETY: the module is live and defines `function`; nothing else holds its values.
            match unsafe {
                simd::vectorize(
                    module.as_mut_ptr(),
                    function.as_value_ref(),
                    &simd::KERNEL_NAMES,
                    lanes,
                )
            } {
                Ok((extra, lanes)) => {
                    module = with_vector_form(&module, &extra)?;
                    optimize(&module, true)?;
                    vector_workgroup = Some(workgroup);
                    lane_loops = 1;
                    note = format!("; {lanes} lanes per vector ({})\n", simd::SIMD_WORKGROUP);
                }
                Err(why) => {
                    if let Some(path) = &dump {
                        let refused = path.with_extension("refused.ll");
                        let _ = std::fs::write(refused, module.print_to_string().to_string());
                    }
                    // The scalar workgroup loop, optimized with the vectorizers after all.
                    module = parse(text)?;
                    optimize(&module, true)?;
                    note = format!("; scalar invocations: the vector form refused {why}\n");
                }
            }
        }
        Lanes::Regions(regions) if try_simd => {
            let mut extra = String::new();
            let mut declared = std::collections::HashSet::new();
            let mut replaced = Vec::new();
            for (region, scalar_loop) in regions {
                let Some(function) = module.get_function(region) else {
                    continue;
                };
                // SAFETY: the module is live and defines `function`.
                if !unsafe { simd::worth_lanes(function.as_value_ref()) } {
                    let _ = writeln!(note, "; {region}: scalar: straight-line code");
                    continue;
                }
                let k = region.rsplit('.').next().unwrap_or_default();
                let names = (
                    format!("cajeta.cpu.simd.region.{k}"),
                    format!("cajeta.cpu.simd.regionwg.{k}"),
                );
                let vector_names = simd::Names {
                    function: &names.0,
                    workgroup: &names.1,
                };
                // SAFETY: the module is live and defines `function`; nothing else holds
                // its values.
                match unsafe {
                    simd::vectorize(
                        module.as_mut_ptr(),
                        function.as_value_ref(),
                        &vector_names,
                        lanes,
                    )
                } {
                    Ok((form, lanes)) => {
                        for line in form.lines() {
                            // Two regions may declare the same intrinsic.
                            if !line.starts_with("declare ") || declared.insert(line.to_string()) {
                                extra.push_str(line);
                                extra.push('\n');
                            }
                        }
                        let _ = writeln!(note, "; {region}: {lanes} lanes per vector");
                        replaced.push((scalar_loop.clone(), names.1));
                    }
                    Err(why) => {
                        let _ = writeln!(note, "; {region}: scalar: the vector form refused {why}");
                    }
                }
            }
            lane_loops = replaced.len();
            if replaced.is_empty() {
                module = parse(text)?;
            } else {
                module = with_vector_form(&module, &extra)?;
                for (scalar_loop, vector_loop) in &replaced {
                    let (Some(old), Some(new)) = (
                        module.get_function(scalar_loop),
                        module.get_function(vector_loop),
                    ) else {
                        return Err(format!("no function `{scalar_loop}` or `{vector_loop}`"));
                    };
                    old.as_global_value()
                        .as_pointer_value()
                        .replace_all_uses_with(new.as_global_value().as_pointer_value());
                    // SAFETY: nothing uses `old` any more.
                    unsafe { old.delete() };
                }
            }
            optimize(&module, true)?;
        }
        _ => {}
    }
    if let Some(path) = dump {
        let _ = std::fs::write(path, note + &module.print_to_string().to_string());
    }
    let object = machine
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| format!("emit: {}", e.to_string_lossy()))?;
    let linked = Linked::new(&[])?;
    linked.add_object(object.as_slice())?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = match vector_workgroup {
            Some(w) if w == *entry => simd::SIMD_WORKGROUP,
            _ => entry,
        };
        let addr = linked.address(entry)?;
        // SAFETY: each entry is defined by the module as `void (ptr)`, the `KernelEntry`
        // type, and lives as long as `linked`, which the returned code keeps.
        found.push(unsafe { std::mem::transmute::<usize, KernelEntry>(addr) });
    }
    Ok((found, Arc::new(Code { _linked: linked }), lane_loops))
}

/// Makes the lane-by-lane shared-memory read-modify-writes of split regions
/// (`hooks::SHARED_RMW_PREFIX`) inlinable: `noinline` until the vector form is written, so
/// that it sees each as one call to run per lane, then inlined like any small function.
fn inline_lanewise_shared(ctx: &Context, module: &inkwell::module::Module<'_>) {
    use inkwell::attributes::{Attribute, AttributeLoc};
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    let always = Attribute::get_named_enum_kind_id("alwaysinline");
    let mut f = module.get_first_function();
    while let Some(function) = f {
        if function
            .get_name()
            .to_bytes()
            .starts_with(super::hooks::SHARED_RMW_PREFIX.as_bytes())
        {
            function.remove_enum_attribute(AttributeLoc::Function, noinline);
            function.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(always, 0));
        }
        f = function.get_next_function();
    }
}

/// The most alignment the CPU device guarantees a buffer, a slice of one, or a shared array
/// (`cajeta_runtime::cpu::CpuBuffer`, `hooks::cpu_place_shared`): 16 bytes.
const GUARANTEED_ALIGNMENT: u32 = 16;

/// Lowers every load's and store's alignment to at most [`GUARANTEED_ALIGNMENT`]. The
/// lowering leaves a load of a 32-byte value (`Quaternion<float64>`, a 4-lane `float64`
/// vector) at its type's ABI alignment, which lets LLVM use aligned 32-byte moves that fault
/// on a buffer only 16-byte aligned.
fn cap_access_alignment(module: &inkwell::module::Module<'_>) {
    use inkwell::values::InstructionOpcode;
    let mut f = module.get_first_function();
    while let Some(function) = f {
        for block in function.get_basic_blocks() {
            let mut i = block.get_first_instruction();
            while let Some(inst) = i {
                if matches!(
                    inst.get_opcode(),
                    InstructionOpcode::Load | InstructionOpcode::Store
                ) && inst.get_alignment().is_ok_and(|a| a > GUARANTEED_ALIGNMENT)
                {
                    // Only fails for instructions without an alignment, which these have.
                    let _ = inst.set_alignment(GUARANTEED_ALIGNMENT);
                }
                i = inst.get_next_instruction();
            }
        }
        f = function.get_next_function();
    }
}
