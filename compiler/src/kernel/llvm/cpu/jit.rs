//! Optimizing a CPU kernel module for the host's CPU and linking it in process, with the
//! same LLVM and ORC JIT as native host code (`crate::host::native`).

use std::sync::Arc;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

use crate::host::native::Linked;
use cajeta_runtime::cpu::KernelEntry;

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
pub(crate) fn compile(
    text: &str,
    entries: &[&str],
    dump: Option<std::path::PathBuf>,
) -> Result<(Vec<KernelEntry>, Arc<dyn std::any::Any + Send + Sync>), String> {
    // Initializes LLVM's native target once per process.
    crate::host::native::target_machine()?;
    let ctx = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "kernel.ll");
    let module = ctx
        .create_module_from_ir(buffer)
        .map_err(|e| format!("parse: {}", e.to_string_lossy()))?;
    module
        .verify()
        .map_err(|e| format!("verify: {}", e.to_string_lossy()))?;
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
    module.set_triple(&triple);
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    module
        .run_passes("default<O2>", &machine, PassBuilderOptions::create())
        .map_err(|e| format!("optimize: {}", e.to_string_lossy()))?;
    if let Some(path) = dump {
        let _ = std::fs::write(path, module.print_to_string().to_string());
    }
    let object = machine
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| format!("emit: {}", e.to_string_lossy()))?;
    let linked = Linked::new(&[])?;
    linked.add_object(object.as_slice())?;
    let mut found = Vec::new();
    for entry in entries {
        let addr = linked.address(entry)?;
        // SAFETY: each entry is defined by the module as `void (ptr)`, the `KernelEntry`
        // type, and lives as long as `linked`, which the returned code keeps.
        found.push(unsafe { std::mem::transmute::<usize, KernelEntry>(addr) });
    }
    Ok((found, Arc::new(Code { _linked: linked })))
}
