//! One kernel through the LLVM backend: checked and written as LLVM IR ([`prepare`]),
//! emitted by LLVM and fixed up by the post-pass (alone, [`compile`], or in a batch,
//! `batch.rs`), and given its reflection ([`finish`]).

use super::{emit, isolate, jumps, module_text, narrow_values, post, refuse, shared};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId, Type};
use crate::kernel::spirv::{CompiledKernel, SpirvOptions, TargetEnv};
use crate::layout;

/// Compiles one kernel alone: its module emitted with each pipeline of its list in turn
/// until one passes the post-pass.
pub(super) fn compile(
    module: &ir::Module,
    kernel_id: FunctionId,
    options: &SpirvOptions,
) -> Result<CompiledKernel, Diagnostic> {
    let p = prepare(module, kernel_id, options)?;
    let result = emit_alone(&p, options);
    finish(p, result, options)
}

/// A kernel ready for LLVM: checked, laid out and written as LLVM IR.
pub(super) struct Prepared<'m> {
    pub(super) kernel: &'m ir::Function,
    layout: layout::KernelLayout,
    access: Vec<(bool, bool)>,
    /// The kernel's module as LLVM IR text.
    pub(super) text: String,
    shared_bytes: u64,
    /// The pipelines to try, in order (`emit::PIPELINES` and its kin).
    pub(super) pipes: &'static [&'static str],
    labeled_jumps: bool,
    narrow_source: bool,
}

/// Checks `kernel_id` for this backend and writes its LLVM IR.
pub(super) fn prepare<'m>(
    module: &'m ir::Module,
    kernel_id: FunctionId,
    options: &SpirvOptions,
) -> Result<Prepared<'m>, Diagnostic> {
    let kernel = super::kernel_function(module, kernel_id, |span, what| refuse(span, what))?;
    if options.target_env != TargetEnv::Vulkan1_3 {
        return Err(refuse(
            kernel.span,
            format!(
                "a module for {} (its target is vulkan1.3: pass `--target-env vulkan1.3`)",
                options.target_env.name()
            ),
        ));
    }
    if options.checked {
        return Err(refuse(kernel.span, "checked mode (`--checked`)"));
    }
    // Structured buffers (`KernelBuffer<Particle>`) and POD locals: this backend emits no
    // struct types besides the push-constant block yet.
    for (i, l) in kernel.locals.iter().enumerate() {
        let what = match &l.ty {
            Type::Buffer(e) if matches!(**e, Type::Struct(_)) => "a buffer of POD elements",
            Type::Struct(_) if i >= kernel.param_count => "a POD local",
            _ => continue,
        };
        return Err(refuse(l.span, format!("{what} (`{}`)", l.ty)));
    }
    if options.buffer_address {
        return Err(refuse(
            kernel.span,
            "buffers addressed through buffer device addresses (the address variant for buffers past maxStorageBufferRange)",
        ));
    }
    crate::kernel::spirv::check_kernel_shape(kernel)?;
    let access = crate::kernel::spirv::resource_access(module, kernel_id)?;
    let layout = layout::kernel_layout(kernel)?;
    let (text, shared_bytes) = module_text(module, kernel, &layout, &access)?;
    if let Some(dir) = std::env::var_os("CAJETA_DUMP_LLVM_KERNELS") {
        // For looking at what the SPIR-V target is given (docs/backends.md).
        let _ = std::fs::write(
            std::path::Path::new(&dir).join(format!("{}.ll", kernel.name)),
            &text,
        );
    }
    // Shared arrays are indexed with GEPs, which O2's unrolling and instcombine fold into
    // forms LLVM 23's SPIR-V target lowers wrongly (measured: a shared-memory tree reduction
    // read a fixed element instead of `t[l + s]` on lavapipe); such kernels get only SSA
    // promotion and CSE.
    // A labeled jump out of nested loops (lowered one loop at a time, see `jumps`) also
    // gets LLVM's region structurizer after optimization.
    let labeled_jumps = text.contains(jumps::JUMP_LOCAL);
    // The source's own 8- and 16-bit values (any narrow value LLVM's optimizer adds is
    // carried in 32 bits; `narrow_values`).
    let narrow_source = narrow_values::mentions_narrow_ints(&text);
    // (A dynamic shared array takes no static bytes but is indexed the same way.)
    let shared_arrays = shared_bytes > 0 || text.contains("addrspace(3) global");
    let pipes: &'static [&'static str] = match (shared_arrays, labeled_jumps) {
        (true, false) => &emit::SHARED_MEMORY_PIPELINES,
        (true, true) => &emit::SHARED_MEMORY_JUMP_PIPELINES,
        (false, false) => &emit::PIPELINES,
        (false, true) => &emit::JUMP_PIPELINES,
    };
    Ok(Prepared {
        kernel,
        layout,
        access,
        text,
        shared_bytes,
        pipes,
        labeled_jumps,
        narrow_source,
    })
}

/// The post-pass on the words LLVM emitted for `p`.
fn post_pass(
    p: &Prepared<'_>,
    words: Vec<u32>,
    options: &SpirvOptions,
) -> Result<(Vec<u32>, post::Features), String> {
    let module = rspirv::dr::load_words(&words).map_err(|e| format!("{e:?}"))?;
    post_pass_module(p, module, options)
}

/// The post-pass on `p`'s module split out of its batch's (`split.rs`).
pub(super) fn post_pass_module(
    p: &Prepared<'_>,
    module: rspirv::dr::Module,
    options: &SpirvOptions,
) -> Result<(Vec<u32>, post::Features), String> {
    post::fix_up_module(
        module,
        &p.layout,
        (&p.kernel.name, p.narrow_source),
        &options.device_features,
    )
}

/// `p` emitted alone, with each of its pipelines in turn until one passes the post-pass.
fn emit_alone(
    p: &Prepared<'_>,
    options: &SpirvOptions,
) -> Result<(Vec<u32>, post::Features), String> {
    let mut result = Err(String::new());
    // The structurizer pipelines after the plain ones are only for kernels with a module
    // the structure check refused (measured exact on lavapipe, docs/fuzzing.md); others
    // are refused as before (seed 50 program 26, structurized, crashed lavapipe).
    let mut structurizer_allowed = p.labeled_jumps;
    for &pipeline in p.pipes {
        if emit::is_structurizer(pipeline) && !structurizer_allowed {
            break;
        }
        // LLVM 23.1's SPIR-V target crashes on some kernels with shared arrays (a shared
        // array indexed in a loop), and ends the process with `LLVM ERROR` on instructions
        // it cannot legalize (found by the four-way fuzz campaign on a kernel without
        // shared memory): every kernel is emitted in a helper process, so that a crash is a
        // refusal instead of the end of the compiler (`isolate.rs`).
        let emitted = isolate::emit_isolated(&p.text, pipeline);
        result = emitted.and_then(|words| post_pass(p, words, options));
        if result.is_ok() {
            break;
        }
        structurizer_allowed |= result
            .as_ref()
            .is_err_and(|e| e.starts_with(post::UNSTRUCTURED));
    }
    result
}

/// The compiled kernel of `p` from the post-pass's `result` (an error refuses it).
pub(super) fn finish(
    p: Prepared<'_>,
    result: Result<(Vec<u32>, post::Features), String>,
    options: &SpirvOptions,
) -> Result<CompiledKernel, Diagnostic> {
    let Prepared {
        kernel,
        layout,
        access,
        shared_bytes,
        ..
    } = p;
    let (words, mut features) = result.map_err(|e| {
        refuse(
            kernel.span,
            format!("this kernel (LLVM's SPIR-V target: {})", e.trim()),
        )
    })?;
    if kernel.wave_width.is_some() {
        // As with rspirv: the module is unchanged, the required subgroup size is a pipeline
        // property of Vulkan 1.3's subgroup size control (the runtime sets it).
        features
            .vulkan_features
            .push("subgroupSizeControl".to_string());
    }
    let access = crate::kernel::llvm::binding_access(&layout, &access);
    let mut interface = layout::reflect_interface(&layout, kernel.params(), &access, &[]);
    // Whether a buffer array is indexed non-uniformly shows in the finished module.
    for b in &mut interface.bindings {
        if let Some(array) = &mut b.array {
            array.non_uniform = features.non_uniform_bindings.contains(&b.binding);
        }
    }
    let mut spec_constants = interface.workgroup_spec_constants;
    let mut parameters = interface.parameters;
    for spec in &features.spec_constants {
        // The names the rspirv backend gives them.
        let name = match spec.id.checked_sub(layout::PSC_SPEC_BASE) {
            _ if spec.id == layout::SHARED_SPEC_ID => shared::SHARED_BYTES_NAME.to_string(),
            Some(i) => {
                let param = kernel.params().get(i as usize);
                if let Some(p) = parameters.get_mut(i as usize) {
                    p.psc_spec_id = Some(spec.id);
                }
                format!("psc_{}", param.map_or("", |p| p.name.as_str()))
            }
            None => format!("spec_slot_{}", spec.id - layout::USER_SPEC_BASE),
        };
        spec_constants.push(cajeta_runtime::SpecConstant {
            id: spec.id,
            name,
            ty: spec.ty.clone(),
            default: spec.default,
        });
    }
    spec_constants.extend(interface.buffer_array_spec_constants);
    let (major, minor) = options.target_env.spirv_version();
    let reflection = cajeta_runtime::Reflection {
        entry_point: kernel.name.clone(),
        spirv_version: format!("{major}.{minor}"),
        target_env: options.target_env.name().to_string(),
        workgroup_size_spec_ids: layout::WORKGROUP_SIZE_SPEC_IDS,
        default_workgroup_size: layout::DEFAULT_WORKGROUP_SIZE,
        bindings: interface.bindings,
        push_constants: interface.push_constants,
        spec_constants,
        capabilities: features.capabilities,
        extensions: features.extensions,
        vulkan_features: features.vulkan_features,
        precision_variant: options.target.precision.name(),
        parameters,
        static_shared_bytes: u32::try_from(shared_bytes).unwrap_or(u32::MAX),
        bounds_check: None,
        required_subgroup_size: kernel.wave_width,
        // The LLVM backend lowers no cooperative matrices (docs/backends.md).
        coop_matrix_shapes: Vec::new(),
    };
    Ok(CompiledKernel {
        name: kernel.name.clone(),
        words,
        reflection,
        by_address: Default::default(),
    })
}
