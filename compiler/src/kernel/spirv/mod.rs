//! The SPIR-V backend: one Vulkan compute module plus its reflection document per kernel
//! (SPEC §7).
//!
//! [`compile_kernel`] runs in four steps:
//! 1. `access` walks the kernel and every `@Device` helper it calls to find which resource
//!    parameters are read and written (for `NonWritable`/`NonReadable` and the reflection);
//! 2. `module` declares the globals the backend-independent [`crate::layout`] step placed:
//!    workgroup-size spec constants, the push-constant block, one descriptor variable per
//!    resource parameter (bindings in parameter order);
//! 3. `function` (with `expr` and `intrinsics`) lowers the kernel body, then every helper
//!    specialization it requested: a helper that takes resources is compiled once per distinct
//!    tuple of resource arguments, because logical addressing cannot pass resource pointers;
//! 4. `module` emits the capabilities, extensions, entry point and execution mode that were
//!    actually needed, and `reflect` builds the [`cajeta_runtime::Reflection`].
//!
//! Everything is emitted in a fixed order with sequentially allocated ids and no iteration
//! over hash maps, so the same IR always produces the same words (disassembly goldens rely
//! on it). Unsupported input yields a diagnostic, never a panic.

mod access;
mod address;
mod arith;
mod atomics;
mod barrier_check;
mod bitcast;
mod bounds;
mod bounds_access;
mod buffer_array;
mod coop;
mod debug_printf;
mod disasm;
mod expr;
mod feature_set;
mod float_to_wide;
mod function;
mod group_segmented;
mod half_round;
mod hoist;
mod index_range;
mod int_dot;
mod int_precision;
mod intrinsics;
mod loop_checks;
mod loop_flow;
mod loop_ranges;
mod math;
mod memory;
mod module;
mod narrow_caps;
mod pod;
mod precision;
mod psc;
mod ray_query;
mod reflect;
mod storage;
mod switch;
#[cfg(test)]
mod tests;
mod textures;
mod types;
pub(crate) mod uniformity;
mod unroll;
mod vector;
mod vector_ops;
mod wave;
mod wave_lanes;
mod workgroup_reduce;

pub use disasm::disassemble;
#[cfg(feature = "native-host")]
pub(crate) use module::FeatureSet;
#[cfg(feature = "native-host")]
pub(crate) use types::f64_to_f16_bits;

use std::collections::{HashMap, VecDeque};

use rspirv::binary::Assemble;
use rspirv::dr::Builder;
use rspirv::spirv::Word;

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, FunctionId, FunctionKind, Type};

/// The Vulkan environment a module is generated and validated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TargetEnv {
    /// Vulkan 1.1, SPIR-V 1.3 (the default, SPEC §7).
    #[default]
    Vulkan1_1,
    /// Vulkan 1.2, SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3, SPIR-V 1.6.
    Vulkan1_3,
}

impl TargetEnv {
    /// The `--target-env` spelling, also spirv-val's: `vulkan1.1`, `vulkan1.2`, `vulkan1.3`.
    pub fn name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// Parses a `--target-env` value.
    pub fn from_name(name: &str) -> Option<TargetEnv> {
        [
            TargetEnv::Vulkan1_1,
            TargetEnv::Vulkan1_2,
            TargetEnv::Vulkan1_3,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// The SPIR-V version (major, minor) of modules for this environment.
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }
}

/// Which backend emits kernels' SPIR-V (`--backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KernelBackend {
    /// The direct rspirv emitter (the default; every kernel).
    #[default]
    Rspirv,
    /// LLVM's SPIR-V target (feature `native-host`, Vulkan 1.3 only; see docs/backends.md
    /// for what it lowers).
    Llvm,
}

impl KernelBackend {
    /// The `--backend` spelling.
    pub fn name(self) -> &'static str {
        match self {
            KernelBackend::Rspirv => "rspirv",
            KernelBackend::Llvm => "llvm",
        }
    }
}

/// Options of the SPIR-V backend.
#[derive(Debug, Clone, Default)]
pub struct SpirvOptions {
    /// Which backend emits the modules.
    pub backend: KernelBackend,
    /// Target environment; decides the SPIR-V version and which extensions are core.
    pub target_env: TargetEnv,
    /// Optional Vulkan features the target device has, by Vulkan name (the runtime's
    /// `DeviceInfo::features`). Empty means plain Vulkan 1.1: code that could use a feature
    /// falls back to what works everywhere (float atomic add becomes a compare-exchange loop
    /// without `shaderBufferFloat32AtomicAdd`).
    pub device_features: Vec<String>,
    /// What precision types and device queries are specialized to before lowering (SPEC §8).
    pub target: crate::specialize::Target,
    /// Checked mode: every buffer, shared-array and image access is bounds-checked, an
    /// out-of-bounds one is skipped and reported through an extra binding (see
    /// `cajeta_runtime::BoundsCheck`).
    pub checked: bool,
    /// Compile the kernel's address variant: every `KernelBuffer<T>` parameter is addressed
    /// through its buffer device address (`PhysicalStorageBuffer64`) and its `uint64` length
    /// from the push-constant block instead of a descriptor (see [`crate::layout`]). The
    /// driver sets it to make [`CompiledKernel::by_address`].
    pub buffer_address: bool,
}

impl SpirvOptions {
    /// Whether the device is known to have a Vulkan feature.
    pub fn has_feature(&self, name: &str) -> bool {
        self.device_features.iter().any(|f| f == name)
    }
}

/// A compiled kernel: the SPIR-V words and the reflection document the runtime consumes.
#[derive(Debug, Clone)]
pub struct CompiledKernel {
    /// Kernel (and entry point) name.
    pub name: String,
    /// The SPIR-V module.
    pub words: Vec<u32>,
    /// Bindings, push constants, spec constants, capabilities and features of the module.
    pub reflection: cajeta_runtime::Reflection,
    /// The kernel's address variant, which launches use for buffers past
    /// `maxStorageBufferRange` (or always, with `CAJETA_BUFFER_ADDRESS=always`).
    pub by_address: AddressVariant,
}

impl CompiledKernel {
    /// The compiled buffer-address variant, when there is one (not when it was not made or
    /// the backend refused it).
    pub fn address_variant(&self) -> Option<&CompiledKernel> {
        match &self.by_address {
            AddressVariant::Compiled(v) => Some(v),
            AddressVariant::None | AddressVariant::Refused(_) => None,
        }
    }
}

/// A kernel's address variant ([`SpirvOptions::buffer_address`]).
#[derive(Debug, Clone, Default)]
pub enum AddressVariant {
    /// Not made: the kernel has no `KernelBuffer<T>` parameter, or this is a variant itself.
    #[default]
    None,
    /// Compiled.
    Compiled(Box<CompiledKernel>),
    /// The backend refused it: the diagnostic's message (code included), reported when a
    /// launch needs the variant.
    Refused(String),
}

/// Compiles one kernel of `module`, with the device helpers it calls, to a SPIR-V module.
pub fn compile_kernel(
    module: &ir::Module,
    kernel: FunctionId,
    options: &SpirvOptions,
) -> Result<CompiledKernel, Vec<Diagnostic>> {
    compile(module, kernel, options).map_err(|d| vec![d])
}

fn compile(
    module: &ir::Module,
    kernel_id: FunctionId,
    options: &SpirvOptions,
) -> Res<CompiledKernel> {
    let Some(kernel) = module.functions.get(kernel_id.0) else {
        return Err(unsupported(
            Span::default(),
            format!("no function with id {}", kernel_id.0),
        ));
    };
    if kernel.kind != FunctionKind::Kernel {
        return Err(Diagnostic::error(
            Code::KernelSignature,
            kernel.span,
            format!("`{}` is not a `@Kernel` method", kernel.name),
        ));
    }
    if kernel.return_type != Type::Void {
        return Err(Diagnostic::error(
            Code::KernelSignature,
            kernel.span,
            format!("kernel `{}` must return void", kernel.name),
        ));
    }
    check_shape(kernel)?;
    let usage = access::analyze(
        module,
        kernel_id,
        atomics::NativeFloatAtomics {
            add: options.has_feature(memory::BUFFER_FLOAT_ADD),
            min_max: options.has_feature(memory::BUFFER_FLOAT_MIN_MAX),
        },
    )?;
    let mut cx = Ctx::new(module, kernel, options.target_env);
    cx.mem.device_features = options.device_features.clone();
    cx.mem.subgroup_combining = options.target.profile.as_ref().is_some_and(|p| {
        ["vote", "arithmetic"]
            .iter()
            .all(|op| p.subgroup_operations.iter().any(|o| o == op))
    });
    let layout = crate::layout::kernel_layout_for(kernel, options.buffer_address)?;
    cx.declare_globals(&layout, &usage)?;
    if kernel.wave_width.is_some() {
        // A required subgroup size is a pipeline property of Vulkan 1.3's subgroup size
        // control (the reflection carries the size; the runtime sets it).
        cx.features.vulkan_feature("subgroupSizeControl");
    }
    if options.checked {
        cx.declare_bounds();
    }
    let entry = function::compile_kernel_body(&mut cx)?;
    while let Some((key, id)) = cx.pending.pop_front() {
        function::compile_helper(&mut cx, &key, id)?;
    }
    barrier_check::reset_barrier_counters(&mut cx, entry);
    cx.emit_bounds_report(kernel.span)?;
    cx.finish_module(entry);
    address::align_physical_accesses(cx.b.module_mut());
    let mut reflection = reflect::build(&cx, &layout);
    reflection.precision_variant = options.target.precision.name();
    let words = cx.b.module().assemble();
    Ok(CompiledKernel {
        name: kernel.name.clone(),
        words,
        reflection,
        by_address: AddressVariant::None,
    })
}

/// The kernel's shape check, for the other kernel backend.
#[cfg(feature = "native-host")]
pub(crate) fn check_kernel_shape(f: &ir::Function) -> Res<()> {
    check_shape(f)
}

/// Per kernel parameter: (read, written) by the kernel or a helper it calls, for the other
/// kernel backend's reflection (float atomics counted as native).
#[cfg(feature = "native-host")]
pub(crate) fn resource_access(module: &ir::Module, kernel: FunctionId) -> Res<Vec<(bool, bool)>> {
    let usage = access::analyze(
        module,
        kernel,
        atomics::NativeFloatAtomics {
            add: true,
            min_max: true,
        },
    )?;
    Ok(usage.iter().map(|u| (u.reads, u.writes)).collect())
}

/// Per kernel parameter: whether a float atomic on it needs the buffer's integer bit view
/// on a device without native float atomics (the LLVM kernel backend runs every float
/// atomic but an exchange as a compare-exchange loop on the bits).
#[cfg(feature = "native-host")]
pub(crate) fn float_atomic_bit_views(module: &ir::Module, kernel: FunctionId) -> Res<Vec<bool>> {
    let usage = access::analyze(module, kernel, atomics::NativeFloatAtomics::default())?;
    Ok(usage.iter().map(|u| u.bits_view).collect())
}

/// Rejects a function whose parameter count exceeds its locals (malformed IR), so that
/// slicing the parameters can never panic.
pub(crate) fn check_shape(f: &ir::Function) -> Res<()> {
    if f.param_count > f.locals.len() {
        return Err(unsupported(
            f.span,
            format!(
                "internal error: `{}` has more parameters than locals",
                f.name
            ),
        ));
    }
    Ok(())
}

/// Result type of the backend's internals: one diagnostic ends the compilation.
pub(crate) type Res<T> = Result<T, Diagnostic>;

/// An `UnsupportedFeature` error.
pub(crate) fn unsupported(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Code::UnsupportedFeature, span, message)
}

/// Turns an rspirv builder error (which only happens if the backend emits into no block, a
/// backend bug) into a diagnostic instead of a panic.
pub(crate) trait BuildExt<T> {
    /// Maps the error to an internal-error diagnostic at `span`.
    fn ice(self, span: Span) -> Res<T>;
}

impl<T> BuildExt<T> for Result<T, rspirv::dr::Error> {
    fn ice(self, span: Span) -> Res<T> {
        self.map_err(|e| unsupported(span, format!("internal error in the SPIR-V backend: {e}")))
    }
}

/// One specialization of a device helper: the function and, per parameter, the kernel
/// parameter a resource argument denotes (`None` for scalar parameters).
pub(crate) type HelperKey = (FunctionId, Vec<Option<usize>>);

/// State of one module under construction, shared by the lowering steps.
pub(crate) struct Ctx<'m> {
    /// The module being built.
    pub(crate) b: Builder,
    /// The whole program (for helper lookups).
    pub(crate) ir: &'m ir::Module,
    /// The kernel this module is for.
    pub(crate) kernel: &'m ir::Function,
    /// Target environment.
    pub(crate) env: TargetEnv,
    /// Interned types and constants.
    pub(crate) types: types::TypeCache,
    /// Global variables and their layout.
    pub(crate) globals: module::Globals,
    /// Capabilities and extensions used so far.
    pub(crate) features: module::FeatureSet,
    /// Helper specializations already requested, with their function ids.
    pub(crate) helpers: HashMap<HelperKey, Word>,
    /// Requested specializations not compiled yet, in request order.
    pub(crate) pending: VecDeque<(HelperKey, Word)>,
    /// Shared arrays, spec constants and subgroup built-ins.
    pub(crate) mem: memory::MemState,
    /// Checked mode's violation buffer and sites (`None` unless `SpirvOptions::checked`).
    pub(crate) bounds: Option<bounds::BoundsState>,
}

impl<'m> Ctx<'m> {
    fn new(ir: &'m ir::Module, kernel: &'m ir::Function, env: TargetEnv) -> Ctx<'m> {
        let mut b = Builder::new();
        let (major, minor) = env.spirv_version();
        b.set_version(major, minor);
        Ctx {
            b,
            ir,
            kernel,
            env,
            types: types::TypeCache::for_kernel(),
            globals: module::Globals::default(),
            features: module::FeatureSet::default(),
            helpers: HashMap::new(),
            pending: VecDeque::new(),
            mem: memory::MemState::default(),
            bounds: None,
        }
    }

    /// The SPIR-V function id of a helper specialization, queueing it on first request.
    pub(crate) fn helper_id(&mut self, key: HelperKey) -> Word {
        if let Some(&id) = self.helpers.get(&key) {
            return id;
        }
        let id = self.b.id();
        self.helpers.insert(key.clone(), id);
        self.pending.push_back((key, id));
        id
    }
}
