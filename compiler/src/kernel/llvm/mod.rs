//! The LLVM kernel backend (`--backend llvm`): each kernel is lowered from the typed IR to
//! LLVM IR for the `spirv1.6-unknown-vulkan1.3-compute` target, optimized by LLVM, and
//! emitted as SPIR-V by LLVM's own SPIR-V backend (feature `native-host`, which links LLVM).
//!
//! Stages: [`crate::layout`] places the parameters (the same interface as the rspirv
//! backend, so reflection and runtime are shared); [`lower`] writes the kernel as LLVM IR
//! text — text rather than inkwell's builder because inkwell 0.11 cannot represent the
//! target-extension types (`target("spirv.Image", …)`) the resource intrinsics take — with
//! [`arith`] (operators, conversions), [`bfloat16`], [`bit_casts`], [`vectors`],
//! [`matrices`], [`push`] (the push-constant block), [`resources`] (buffers, images,
//! shared arrays, built-ins, `Math`), [`buffers`] (lengths) and [`buffer_arrays`];
//! [`emit`] parses, verifies, optimizes and emits it; [`post`] (with [`cleanup`] and
//! [`vulkan_fixups`]) fixes up what LLVM's SPIR-V target does not produce for Vulkan
//! compute (workgroup size as specialization constants, the push-constant block's
//! decorations, storage-access capabilities, `OpArrayLength`, buffer-array lengths) and
//! strips the `Int8` capability its resource names imply.
//!
//! What the backend does not lower is refused with [`Code::LlvmBackendUnsupported`] naming
//! the construct; docs/backends.md lists the coverage per feature.

mod arith;
mod atomics;
mod batch;
mod bfloat16;
mod bit_casts;
mod bool_phis;
mod buffer_arrays;
mod buffers;
mod cleanup;
mod clock;
mod compile;
pub mod cpu;
mod device_helpers;
mod emit;
mod half_round;
mod helper;
mod helper_process;
mod images;
mod int_pack;
mod ir_fixups;
mod isolate;
mod jumps;
mod lower;
mod math_bits;
mod matrices;
mod narrow_arith;
mod narrow_convert;
mod narrow_values;
mod pointer_args;
mod post;
mod printf;
mod push;
mod resources;
mod shared;
mod spec;
mod spirv_ops;
mod split;
mod storage_widths;
mod structure;
pub use structure::check_structured_control_flow;
mod structure_cfg;
mod target;
mod textures;
mod types;
mod undef_phis;
mod vectors;
mod vulkan_fixups;
mod waves;
mod workgroup_reduce;

pub use batch::{
    batch_size, compile_kernel_batch, BATCH_VAR, MAX_BATCH, MIN_BATCH, TARGET_BATCHES,
};
pub(crate) use device_helpers::lower_helpers;
pub use helper::{emit_helper_main, HELPER_ARG};
pub use helper_process::{defer_helper_waits, end_helpers};
pub use isolate::{emission_helper, emit_with_pipeline, prestart_helpers};

use std::fmt::Write;

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::{CompiledKernel, SpirvOptions};
use crate::layout::{self, BindingKind};

/// The attribute every emitted function carries so that LLVM's `simplifycfg` never turns a
/// chain of equality tests (a desugared `switch`, or `if`s written so) into a lookup table:
/// the table becomes a module-scope constant array in a storage class Vulkan rejects
/// (`CrossWorkgroup`), and pipeline creation fails.
pub(crate) const NO_TABLES: &str = "\"no-jump-tables\"=\"true\"";

/// Each binding's access for the reflection, from the kernel's parameters' (read, written)
/// usage.
pub(crate) fn binding_access(
    layout: &layout::KernelLayout,
    access: &[(bool, bool)],
) -> Vec<cajeta_runtime::Access> {
    layout
        .bindings
        .iter()
        .map(|b| {
            let (r, w) = access.get(b.param).copied().unwrap_or((false, false));
            layout::access_from_usage(r, w)
        })
        .collect()
}

/// The `@Kernel` function `kernel_id` of `module`, or the diagnostic for an unknown function
/// (`refuse`'s, the caller's backend) or for a function that is not a kernel returning void.
pub(crate) fn kernel_function(
    module: &ir::Module,
    kernel_id: ir::FunctionId,
    refuse: fn(Span, &str) -> Diagnostic,
) -> Result<&ir::Function, Diagnostic> {
    let Some(kernel) = module.functions.get(kernel_id.0) else {
        return Err(refuse(Span::default(), "an unknown function"));
    };
    if kernel.kind != ir::FunctionKind::Kernel || kernel.return_type != ir::Type::Void {
        return Err(Diagnostic::error(
            Code::KernelSignature,
            kernel.span,
            format!("`{}` is not a `@Kernel` method returning void", kernel.name),
        ));
    }
    Ok(kernel)
}

/// An `UnsupportedByLlvmBackend` refusal naming the construct.
pub(crate) fn refuse(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(
        Code::LlvmBackendUnsupported,
        span,
        format!("the LLVM kernel backend (`--backend llvm`) cannot lower {what}; use the default rspirv backend"),
    )
}

/// A resource parameter's handle, made once at the kernel's entry.
#[derive(Debug, Clone)]
pub(crate) enum Handle {
    /// A storage buffer of 32-bit scalars.
    Buffer {
        /// The SSA value of the handle.
        var: String,
        /// Its `target(…)` type.
        ty: String,
        /// The type's intrinsic-name mangling.
        mangled: String,
        /// Element type (the lane type of vector elements).
        elem: ir::ScalarType,
        /// 1 for scalar elements, N for `Vector<elem, N>` elements.
        lanes: u8,
        /// Binding number.
        binding: u32,
        /// The `handlefrombinding` call that makes it (a function's entry line).
        create: String,
    },
    /// A buffer array (`KernelBuffer<T>[]`): a handle per access ([`buffer_arrays`]).
    BufferArray {
        /// The handle type of one buffer.
        ty: String,
        /// The type's intrinsic-name mangling.
        mangled: String,
        /// Element lane type.
        elem: ir::ScalarType,
        /// 1 for scalar elements, N for `Vector<elem, N>` elements.
        lanes: u8,
        /// Binding number.
        binding: u32,
        /// The global naming the binding.
        name: String,
        /// The push-constant member holding the number of buffers bound.
        count_member: usize,
    },
    /// A storage image.
    Image {
        /// The SSA value of the handle.
        var: String,
        /// Its `target(…)` type.
        ty: String,
        /// The type's intrinsic-name mangling.
        mangled: String,
        /// The channel's LLVM type.
        channel: &'static str,
        /// The texel format.
        format: ir::ImageFormat,
        /// Binding number.
        binding: u32,
        /// The `handlefrombinding` call that makes it (a function's entry line).
        create: String,
    },
    /// A sampled texture (`textures`).
    Texture {
        /// The SSA value of the handle.
        var: String,
        /// Its `target(…)` type.
        ty: String,
        /// The type's intrinsic-name mangling.
        mangled: String,
        /// Its shape.
        dim: ir::TextureDim,
        /// The LLVM type of the texel vector its reads return.
        texel: &'static str,
        /// Binding number.
        binding: u32,
        /// The `handlefrombinding` call that makes it (a function's entry line).
        create: String,
    },
    /// A separate sampler.
    Sampler {
        /// The SSA value of the handle.
        var: String,
        /// Its `target(…)` type.
        ty: String,
        /// The type's intrinsic-name mangling.
        mangled: String,
        /// Binding number.
        binding: u32,
        /// The `handlefrombinding` call that makes it (a function's entry line).
        create: String,
    },
    /// A shared array passed to a `@Device` helper (no descriptor: the helper indexes the
    /// array's global).
    Shared(shared::SharedArray),
}

impl Handle {
    /// Whether this is a float buffer declared with `uint32` elements (its bit view: float
    /// atomics on it are compare-exchange loops on the bits, plain accesses bit-cast).
    pub(crate) fn is_bit_view(&self) -> bool {
        matches!(self, Handle::Buffer { elem, ty, .. } if elem.is_float() && ty.contains("x i32]"))
    }

    /// The binding number (`u32::MAX` for a shared array, which has none).
    pub(crate) fn binding(&self) -> u32 {
        match self {
            Handle::Buffer { binding, .. }
            | Handle::Image { binding, .. }
            | Handle::Texture { binding, .. }
            | Handle::Sampler { binding, .. }
            | Handle::BufferArray { binding, .. } => *binding,
            Handle::Shared(_) => u32::MAX,
        }
    }

    /// What tells helper specializations apart: the binding, or a shared array's global.
    pub(crate) fn key(&self) -> String {
        match self {
            Handle::Shared(a) => a
                .global
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect(),
            h => h.binding().to_string(),
        }
    }

    /// The entry line that makes the handle (every function using it makes its own: the
    /// target maps all of them to the binding's one variable).
    pub(crate) fn create(&self) -> &str {
        match self {
            Handle::Buffer { create, .. }
            | Handle::Image { create, .. }
            | Handle::Texture { create, .. }
            | Handle::Sampler { create, .. } => create,
            Handle::BufferArray { .. } | Handle::Shared(_) => "",
        }
    }
}

/// Makes `--backend llvm` and the CPU device's kernel target available to the driver (and
/// so to `run_program` and the embedding API) in this program; idempotent. Calling it links LLVM's SPIR-V target into
/// the program, which is why the driver does not do it by itself.
pub fn enable() {
    crate::driver::register_llvm_kernel_backend(compile_kernel);
    crate::driver::register_llvm_kernel_batches(compile_kernel_batch, batch_size);
    crate::driver::register_cpu_kernel_target(cpu::compile_kernel);
}

/// Compiles one kernel through LLVM's SPIR-V backend.
pub fn compile_kernel(
    module: &ir::Module,
    kernel_id: FunctionId,
    options: &SpirvOptions,
) -> Result<CompiledKernel, Vec<Diagnostic>> {
    compile::compile(module, kernel_id, options).map_err(|d| vec![d])
}

/// The LLVM IR text of the module holding `kernel`, and the bytes of workgroup memory its
/// shared arrays take.
fn module_text(
    module: &ir::Module,
    kernel: &ir::Function,
    layout: &layout::KernelLayout,
    access: &[(bool, bool)],
) -> Result<(String, u64), Diagnostic> {
    let mut head = String::new();
    let mut entry = String::new();
    let mut handles: Vec<Option<Handle>> = vec![None; kernel.param_count];
    let _ = writeln!(
        head,
        "target datalayout = \"e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1\"\n\
         target triple = \"{}\"\n",
        emit::TRIPLE
    );
    let mut decls = Vec::new();
    let bit_views = match module
        .functions
        .iter()
        .position(|f| std::ptr::eq(f, kernel))
    {
        Some(id) => crate::kernel::spirv::float_atomic_bit_views(module, FunctionId(id))?,
        None => Vec::new(),
    };
    let push = push::push_block(kernel, layout)?;
    for slot in &layout.bindings {
        let span = kernel.params()[slot.param].span;
        let writes = access.get(slot.param).is_some_and(|a| a.1);
        let name = format!("@.name.{}", slot.binding);
        let bytes = slot.name.len() + 1;
        let _ = writeln!(
            head,
            "{name} = private unnamed_addr constant [{bytes} x i8] c\"{}\\00\"",
            slot.name
        );
        let var = format!("%h{}", slot.binding);
        let create_line = |ty: &str, mangled: &str| {
            format!(
                "  {var} = call {ty} @llvm.spv.resource.handlefrombinding.{mangled}(i32 {}, i32 {}, i32 1, i32 0, ptr {name})\n",
                layout::DESCRIPTOR_SET,
                slot.binding
            )
        };
        let (ty, mangled, handle) = match &slot.kind {
            BindingKind::Buffer { lane, lanes, .. } => {
                let mut elem = types::stored(*lane, span)?;
                if *lanes > 1 {
                    elem = types::vector(elem, *lanes, span)?;
                } else if bit_views.get(slot.param).copied().unwrap_or(false) {
                    elem = "i32";
                }
                let (ty, mangled) = types::buffer_handle(elem, writes);
                let h = Handle::Buffer {
                    var: var.clone(),
                    create: create_line(&ty, &mangled),
                    ty: ty.clone(),
                    mangled: mangled.clone(),
                    elem: *lane,
                    lanes: *lanes,
                    binding: slot.binding,
                };
                (ty, mangled, h)
            }
            BindingKind::StorageImage(format) => {
                let (ty, mangled, channel) = images::image_handle(*format, span)?;
                let h = Handle::Image {
                    var: var.clone(),
                    create: create_line(&ty, &mangled),
                    ty: ty.clone(),
                    mangled: mangled.clone(),
                    channel,
                    format: *format,
                    binding: slot.binding,
                };
                (ty, mangled, h)
            }
            BindingKind::Texture(dim, texel) => {
                let (ty, mangled, texel) = textures::texture_handle(*dim, *texel, span)?;
                let h = Handle::Texture {
                    var: var.clone(),
                    create: create_line(&ty, &mangled),
                    ty: ty.clone(),
                    mangled: mangled.clone(),
                    dim: *dim,
                    texel,
                    binding: slot.binding,
                };
                (ty, mangled, h)
            }
            BindingKind::Sampler => {
                let (ty, mangled) = textures::sampler_handle();
                let h = Handle::Sampler {
                    var: var.clone(),
                    create: create_line(&ty, &mangled),
                    ty: ty.clone(),
                    mangled: mangled.clone(),
                    binding: slot.binding,
                };
                (ty, mangled, h)
            }
            BindingKind::BufferArray {
                lane,
                lanes,
                count_member,
                ..
            } => {
                let mut elem = types::stored(*lane, span)?;
                if *lanes > 1 {
                    elem = types::vector(elem, *lanes, span)?;
                }
                let (ty, mangled) = types::buffer_handle(elem, writes);
                let h = Handle::BufferArray {
                    ty: ty.clone(),
                    mangled: mangled.clone(),
                    elem: *lane,
                    lanes: *lanes,
                    binding: slot.binding,
                    name: name.clone(),
                    count_member: push.first_member[*count_member],
                };
                (ty, mangled, h)
            }
            BindingKind::AccelStruct => {
                return Err(refuse(
                    span,
                    "`AccelerationStructure` parameters (ray queries)",
                ))
            }
        };
        let decl = format!(
            "declare {ty} @llvm.spv.resource.handlefrombinding.{mangled}(i32, i32, i32, i32, ptr)"
        );
        if !decls.contains(&decl) {
            decls.push(decl);
        }
        entry.push_str(handle.create());
        handles[slot.param] = Some(handle);
    }
    if !push.fields.is_empty() {
        let _ = writeln!(
            head,
            "%PushConstants = type {{ {} }}\n@push_constants = external hidden addrspace(13) externally_initialized global %PushConstants",
            push.fields.join(", ")
        );
    }
    let mut f = lower::FnLower::new(kernel, &handles);
    f.helpers_share_atomics = shared::helpers_share_atomics(module);
    f.prologue(&[])?;
    f.load_push_block(&push, kernel.span)?;
    f.lower_body()?;
    decls.extend(f.decls.iter().cloned());
    decls.extend(f.globals.iter().cloned());
    let (helpers, helper_shared) = lower_helpers(
        module,
        f.calls.clone(),
        &mut decls,
        target::Target::Spirv,
        0,
    )?;
    let mut text = head;
    for d in &decls {
        let _ = writeln!(text, "{d}");
    }
    text.push_str(&helpers);
    let _ = write!(
        text,
        "\ndefine void @\"{}\"() #0 {{\nentry:\n{}{}{}}}\n\n\
         attributes #0 = {{ \"hlsl.shader\"=\"compute\" \"hlsl.numthreads\"=\"{},{},{}\" {NO_TABLES} }}\n",
        kernel.name,
        f.allocas,
        entry,
        f.body,
        layout::DEFAULT_WORKGROUP_SIZE[0],
        layout::DEFAULT_WORKGROUP_SIZE[1],
        layout::DEFAULT_WORKGROUP_SIZE[2],
    );
    Ok((text, f.shared_bytes + helper_shared))
}

/// The LLVM IR text `cajetac build --backend llvm --emit llvm` shows for a kernel.
pub fn kernel_ir(module: &ir::Module, kernel_id: FunctionId) -> Result<String, Diagnostic> {
    let kernel = module.function(kernel_id);
    let access = crate::kernel::spirv::resource_access(module, kernel_id)?;
    let layout = layout::kernel_layout(kernel)?;
    module_text(module, kernel, &layout, &access).map(|(text, _)| text)
}
