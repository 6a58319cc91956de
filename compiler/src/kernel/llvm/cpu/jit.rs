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

/// The linked code of one kernel. The JIT is only read (its code run) after linking and
/// dropped once.
struct Code {
    _linked: Linked,
}

// SAFETY: see `Code`: nothing mutates the JIT after `compile` returns.
unsafe impl Send for Code {}
// SAFETY: as above.
unsafe impl Sync for Code {}

/// Parses, verifies and optimizes `text` (LLVM's O2 for the host CPU: kernels are small and
/// run many times, so the full pipeline pays), compiles it to an object and links it;
/// returns the addresses of `entries` and the code they live in. The optimized module is
/// written to `dump` when given (`CAJETA_DUMP_LLVM_KERNELS`).
///
/// With `simd` (the one-invocation function and the scalar workgroup entry of a kernel
/// without barriers), the kernel also gets its vector form (`simd.rs`) when it allows one,
/// and the workgroup entry's address is then the vector workgroup's.
pub(crate) fn compile(
    text: &str,
    entries: &[&str],
    dump: Option<std::path::PathBuf>,
    simd: Option<(&str, &str)>,
) -> Result<(Vec<KernelEntry>, Arc<dyn std::any::Any + Send + Sync>), String> {
    // Initializes LLVM's native target once per process.
    crate::host::native::target_machine()?;
    let ctx = Context::create();
    let parse = |text: &str| crate::kernel::llvm::emit::parse_verified(&ctx, text);
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
    let optimize = |module: &inkwell::module::Module<'_>, vectorizers: bool| {
        module.set_triple(&triple);
        module.set_data_layout(&machine.get_target_data().get_data_layout());
        let options = PassBuilderOptions::create();
        options.set_loop_vectorization(vectorizers);
        options.set_loop_slp_vectorization(vectorizers);
        module
            .run_passes("default<O2>", &machine, options)
            .map_err(|e| format!("optimize: {}", e.to_string_lossy()))
    };
    let lanes = simd::lane_count();
    let try_simd = simd.is_some() && lanes > 1;
    optimize(&module, !try_simd)?;
    let mut note = String::new();
    let mut vector_workgroup = None;
    if let (Some((kernel, workgroup)), true) = (simd, try_simd) {
        let function = module
            .get_function(kernel)
            .ok_or_else(|| format!("no function `{kernel}` to vectorize"))?;
        // SAFETY: the module is live and defines `function`; nothing else holds its values.
        match unsafe {
            simd::vectorize(
                module.as_mut_ptr(),
                function.as_value_ref(),
                workgroup,
                lanes,
            )
        } {
            Ok(extra) => {
                let both = format!("{}{extra}", module.print_to_string().to_string());
                module = parse(&both).map_err(|e| {
                    if let Some(path) = &dump {
                        let _ = std::fs::write(path.with_extension("simd-failed.ll"), &both);
                    }
                    format!("the vector form: {e}")
                })?;
                optimize(&module, true)?;
                vector_workgroup = Some(workgroup);
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
    Ok((found, Arc::new(Code { _linked: linked })))
}
