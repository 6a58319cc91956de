//! The CPU target of the LLVM kernel lowering: a kernel compiled to native code for the
//! host CPU, run by the CPU device (`cajeta_runtime::cpu`).
//!
//! The body is the SPIR-V lowering's own (`super::lower` with [`super::target::Target::Cpu`]);
//! what differs is in [`hooks`] (resources, ids, push constants, shared memory, barriers
//! through the invocation context), [`pods`] (POD values as std430 memory) and
//! [`placeholders`] (the SPIR-V instructions the lowering asks for by name, defined as small
//! LLVM functions; `matrix_ops` holds the matrix ones). The interface — bindings,
//! push-constant offsets — is [`crate::layout`]'s, as for both SPIR-V backends, so the
//! reflection and the runtime's argument packing are shared. [`jit`] optimizes the module
//! for the host's CPU and links it in process; for a kernel without barriers it also adds
//! the kernel's vector form ([`simd`]: invocations as SIMD lanes under execution masks).
//!
//! What the CPU target cannot lower yet is refused with [`Code::CpuDeviceUnsupported`]
//! naming it (docs/cpu-device.md).

pub(crate) mod hooks;
mod images;
mod jit;
mod matrix_ops;
mod placeholders;
pub(crate) mod pods;
mod simd;
mod simd_choice;
mod simd_classify;
mod simd_emit;
mod simd_ops;
mod simd_unrolled;
mod spec_slots;
mod split;
mod split_plan;
mod split_private;
mod textures;
mod unsigned_to_float;
mod waves;

use std::fmt::Write;

use super::lower::FnLower;
use super::target::Target;
use super::{lower_helpers, push, shared, types, Handle, NO_TABLES};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, FunctionId, Intrinsic, Type};
use crate::kernel::spirv::SpirvOptions;
use crate::layout::{self, BindingKind};

/// The name of the kernel's entry in the linked code: one invocation.
const ENTRY: &str = "cajeta.cpu.kernel";
/// The entry running a whole workgroup (kernels without barriers).
const WORKGROUP_ENTRY: &str = "cajeta.cpu.workgroup";

/// A refusal of a construct the CPU target does not lower yet, naming it.
pub(crate) fn refuse_cpu(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(
        Code::CpuDeviceUnsupported,
        span,
        format!("the cpu device cannot run {what} yet; run this kernel on a Vulkan device"),
    )
}

/// What an intrinsic the CPU target refuses is called in its refusal.
pub(crate) fn unsupported_intrinsic(op: &Intrinsic) -> Option<&'static str> {
    Some(match op {
        Intrinsic::RayQuery(..) => "ray queries",
        _ => return None,
    })
}

/// Compiles kernel `kernel_id` for the CPU device. `options` supplies the precision variant
/// and checked mode as for the SPIR-V backends.
pub fn compile_kernel(
    module: &ir::Module,
    kernel_id: FunctionId,
    options: &SpirvOptions,
) -> Result<cajeta_runtime::cpu::CpuKernel, Vec<Diagnostic>> {
    compile(module, kernel_id, options).map_err(|d| vec![for_cpu(d)])
}

/// A refusal of the shared lowering (worded for `--backend llvm`, E0045) reworded as the
/// CPU device's (E0048), naming the same construct.
fn for_cpu(d: Diagnostic) -> Diagnostic {
    if d.code != Code::LlvmBackendUnsupported {
        return d;
    }
    let what = d
        .message
        .split_once("cannot lower ")
        .and_then(|(_, rest)| rest.rsplit_once("; use the default"))
        .map_or(d.message.as_str(), |(what, _)| what);
    refuse_cpu(d.primary, what)
}

fn compile(
    module: &ir::Module,
    kernel_id: FunctionId,
    options: &SpirvOptions,
) -> Result<cajeta_runtime::cpu::CpuKernel, Diagnostic> {
    let kernel = crate::kernel::llvm::kernel_function(module, kernel_id, |span, what| {
        refuse_cpu(span, what)
    })?;
    if options.checked {
        return Err(refuse_cpu(kernel.span, "checked mode (`--checked`)"));
    }
    if kernel.wave_width.is_some() {
        return Err(refuse_cpu(kernel.span, "a required subgroup size"));
    }
    crate::kernel::spirv::check_kernel_shape(kernel)?;
    let access = crate::kernel::spirv::resource_access(module, kernel_id)?;
    let layout = layout::kernel_layout(kernel)?;
    let (text, shared_bytes, mode, looped) = module_text(module, kernel_id, &layout)?;
    let dump = std::env::var_os("CAJETA_DUMP_LLVM_KERNELS").map(std::path::PathBuf::from);
    if let Some(dir) = &dump {
        let _ = std::fs::write(dir.join(format!("{}.cpu.ll", kernel.name)), &text);
    }
    let dump = dump.map(|d| d.join(format!("{}.cpu.opt.ll", kernel.name)));
    let wanted: &[&str] = match mode {
        Mode::Loop => &[ENTRY, WORKGROUP_ENTRY],
        Mode::Split => &[WORKGROUP_ENTRY, split::PRIVATE_BYTES],
        Mode::Team => &[ENTRY],
    };
    let plan = match mode {
        Mode::Loop => jit::Lanes::Kernel(ENTRY, WORKGROUP_ENTRY),
        Mode::Split => jit::Lanes::Regions(&looped),
        Mode::Team => jit::Lanes::None,
    };
    let (entries, code, lane_loops) = jit::compile(&text, wanted, dump, plan).map_err(|e| {
        Diagnostic::error(
            Code::CpuDeviceUnsupported,
            kernel.span,
            format!(
                "internal error: compiling kernel `{}` for the cpu device: {e}",
                kernel.name
            ),
        )
    })?;
    let (entry, workgroup, private_bytes) = match mode {
        Mode::Loop => (Some(entries[0]), Some(entries[1]), 0),
        Mode::Team => (Some(entries[0]), None, 0),
        Mode::Split => {
            // SAFETY: `split::PRIVATE_BYTES` is defined as `i64 ()` by the split module,
            // whose code `code` keeps linked.
            let size = unsafe {
                std::mem::transmute::<cajeta_runtime::cpu::KernelEntry, extern "C" fn() -> u64>(
                    entries[1],
                )
            }();
            (None, Some(entries[0]), size as usize)
        }
    };
    let access = crate::kernel::llvm::binding_access(&layout, &access);
    let interface = layout::reflect_interface(&layout, kernel.params(), &access, &[]);
    let reflection = cajeta_runtime::Reflection {
        entry_point: kernel.name.clone(),
        spirv_version: String::new(),
        target_env: "cpu".to_string(),
        workgroup_size_spec_ids: layout::WORKGROUP_SIZE_SPEC_IDS,
        default_workgroup_size: layout::DEFAULT_WORKGROUP_SIZE,
        bindings: interface.bindings,
        push_constants: interface.push_constants,
        spec_constants: interface
            .workgroup_spec_constants
            .into_iter()
            .chain(spec_slots::user_spec_constants(module, kernel_id))
            .collect(),
        capabilities: Vec::new(),
        extensions: Vec::new(),
        vulkan_features: Vec::new(),
        precision_variant: options.target.precision.name(),
        parameters: interface.parameters,
        static_shared_bytes: u32::try_from(shared_bytes).unwrap_or(u32::MAX),
        bounds_check: None,
        required_subgroup_size: None,
        coop_matrix_shapes: Vec::new(),
    };
    // SAFETY: the entries are `cajeta.cpu.kernel` and `cajeta.cpu.workgroup`, defined by
    // `module_text` with the context interface for this reflection (a split workgroup entry
    // with context arrays of `private_bytes` per invocation); `code` keeps them linked.
    Ok(unsafe {
        cajeta_runtime::cpu::CpuKernel::new(
            cajeta_runtime::cpu::KernelEntries {
                invocation: entry,
                workgroup,
                private_bytes,
                lane_loops,
            },
            reflection,
            mode != Mode::Loop,
            code,
        )
    })
}

/// The LLVM IR text of the CPU module of kernel `kernel_id`, the bytes of shared memory
/// a workgroup needs, how it runs, and (split kernels) the regions run in loops over the
/// invocations, as (region function, its scalar loop).
fn module_text(
    module: &ir::Module,
    kernel_id: FunctionId,
    layout: &layout::KernelLayout,
) -> Result<(String, u64, Mode, RegionLoops), Diagnostic> {
    let kernel = module.function(kernel_id);
    let bit_views = crate::kernel::spirv::float_atomic_bit_views(module, kernel_id)?;
    let mut handles: Vec<Option<Handle>> = vec![None; kernel.param_count];
    let mut entry = String::new();
    for slot in &layout.bindings {
        let span = kernel.params()[slot.param].span;
        if let BindingKind::StorageImage(format) = &slot.kind {
            let (_, _, channel) = super::images::image_handle(*format, span)?;
            let var = format!("%h{}", slot.binding);
            let h = Handle::Image {
                create: images::image_handle(&var, slot.binding),
                var,
                ty: String::new(),
                mangled: String::new(),
                channel,
                format: *format,
                binding: slot.binding,
            };
            entry.push_str(h.create());
            handles[slot.param] = Some(h);
            continue;
        }
        let var = format!("%h{}", slot.binding);
        let access = match &slot.kind {
            BindingKind::Texture(dim, texel) => {
                let (_, _, texel) = super::textures::texture_handle(*dim, *texel, span)?;
                Some(Handle::Texture {
                    create: textures::access_handle(&var, slot.binding),
                    var: var.clone(),
                    ty: String::new(),
                    mangled: String::new(),
                    dim: *dim,
                    texel,
                    binding: slot.binding,
                })
            }
            BindingKind::Sampler => Some(Handle::Sampler {
                create: textures::access_handle(&var, slot.binding),
                var: var.clone(),
                ty: String::new(),
                mangled: String::new(),
                binding: slot.binding,
            }),
            _ => None,
        };
        if let Some(h) = access {
            entry.push_str(h.create());
            handles[slot.param] = Some(h);
            continue;
        }
        let BindingKind::Buffer { lane, lanes, .. } = &slot.kind else {
            let what = match &slot.kind {
                BindingKind::BufferArray { .. } => "buffer arrays (`KernelBuffer<T>[]`)",
                _ => "`AccelerationStructure` parameters (ray queries)",
            };
            return Err(refuse_cpu(span, what));
        };
        let pod = match &slot.kind {
            BindingKind::Buffer {
                elem: Type::Struct(_),
                stride,
                ..
            } => Some(*stride),
            _ => None,
        };
        // An element read out of bounds goes to the invocation's scratch area, which must
        // hold a whole element.
        if pod.is_some_and(|s| s as usize > cajeta_runtime::cpu::SCRATCH_BYTES) {
            return Err(refuse_cpu(
                span,
                format!(
                    "a buffer of POD elements wider than {} bytes",
                    cajeta_runtime::cpu::SCRATCH_BYTES
                ),
            ));
        }
        let mut elem = types::stored(*lane, span)?.to_string();
        if let Some(stride) = pod {
            // A POD element is its std430 bytes (`cpu/pods.rs` reads fields at offsets).
            elem = format!("[{stride} x i8]");
        } else if *lanes > 1 {
            elem = types::vector(types::stored(*lane, span)?, *lanes, span)?.to_string();
        } else if bit_views.get(slot.param).copied().unwrap_or(false) {
            elem = "i32".to_string();
        }
        let var = format!("%h{}", slot.binding);
        let h = Handle::Buffer {
            create: hooks::buffer_handle(&var, slot.binding),
            var,
            // On the CPU target the handle's type is its element type (`cpu_buffer_pointer`).
            ty: elem,
            mangled: String::new(),
            elem: *lane,
            lanes: *lanes,
            binding: slot.binding,
        };
        entry.push_str(h.create());
        handles[slot.param] = Some(h);
    }
    let push = push::push_block(kernel, layout)?;
    let mut text = String::from(hooks::CONTEXT_TYPES);
    if !push.fields.is_empty() {
        let _ = writeln!(
            text,
            "%PushConstants = type {{ {} }}",
            push.fields.join(", ")
        );
    }
    let mut f = FnLower::new(kernel, &handles);
    f.target = Target::Cpu;
    f.push_offsets = push::member_offsets(layout);
    f.helpers_share_atomics = shared::helpers_share_atomics(module);
    f.prologue(&[])?;
    let has_barrier = split_plan::has_barrier(module, &kernel.body, 0);
    let split = if has_barrier {
        split::split(&mut f, module, &entry, &push, WORKGROUP_ENTRY)?
    } else {
        None
    };
    if split.is_none() {
        f.load_push_block(&push, kernel.span)?;
        f.lower_body()?;
    }
    let mut decls: Vec<String> = f.decls.iter().chain(&f.globals).cloned().collect();
    let (helpers, helper_shared) = lower_helpers(
        module,
        f.calls.clone(),
        &mut decls,
        Target::Cpu,
        f.shared_bytes,
    )?;
    for d in &decls {
        match placeholders::define(d) {
            Ok(Some(def)) => text.push_str(&def),
            Ok(None) => text.push_str(d),
            Err(what) => return Err(refuse_cpu(kernel.span, what)),
        }
        text.push('\n');
    }
    text.push_str(&helpers);
    let mut looped = Vec::new();
    let mode = if let Some(split) = split {
        text.push_str(&split.text);
        looped = split.looped;
        Mode::Split
    } else {
        let _ = write!(
            text,
            "\ndefine void @\"{ENTRY}\"(ptr %ctx) alwaysinline {NO_TABLES} {{\nentry:\n{}{}{}{}}}\n",
            hooks::prologue(),
            f.allocas,
            entry,
            f.body,
        );
        if text.contains(hooks::BARRIER_MARK) {
            Mode::Team
        } else {
            text.push_str(&hooks::workgroup_loop(WORKGROUP_ENTRY, ENTRY));
            Mode::Loop
        }
    };
    if let Some(what) = spirv_leftover(&text) {
        return Err(refuse_cpu(kernel.span, what));
    }
    Ok((text, f.shared_bytes + helper_shared, mode, looped))
}

/// The regions of a split kernel run in loops over the invocations: (region function, its
/// scalar loop).
type RegionLoops = Vec<(String, String)>;

/// How the runtime runs a kernel's workgroups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// No barriers: the workgroup entry loops over the invocations.
    Loop,
    /// Split at its barriers (`split.rs`): the workgroup entry runs region after region.
    Split,
    /// Barriers this does not split: one thread per invocation, one call of the entry each.
    Team,
}

/// A SPIR-V-only construct left in a CPU module (one the lowering reached without passing a
/// CPU hook), named for the refusal.
fn spirv_leftover(text: &str) -> Option<String> {
    if text.contains("addrspace(3) global") {
        return Some("workgroup memory of this form".to_string());
    }
    if text.contains("spirv.printf.") {
        return Some("printing from kernels (`printf`)".to_string());
    }
    for marker in ["@__spirv_BuiltIn", "@llvm.spv.", "cajeta.array_length."] {
        if let Some(at) = text.find(marker) {
            let name: String = text[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
                .collect();
            return Some(format!("`{name}` (a SPIR-V construct)"));
        }
    }
    None
}
