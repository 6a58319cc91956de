//! The targets one kernel lowering serves. The lowering (`lower`, `arith`, `vectors`, …)
//! writes the kernel body once; where the target matters — how a resource is reached, where
//! the built-in ids and the push-constant block live, what a barrier is — it asks
//! [`Target`] and branches to the SPIR-V form (this folder's `resources`, `buffers`, `push`,
//! `atomics`) or the CPU form (`cpu/hooks.rs`).

/// What a kernel is lowered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Target {
    /// LLVM's SPIR-V target for Vulkan (`--backend llvm`): resources are `spirv.*` handles,
    /// built-ins are the target's intrinsics and `__spirv_BuiltIn` globals, SPIR-V
    /// instructions LLVM cannot be asked for are placeholders `post` replaces.
    #[default]
    Spirv,
    /// The host CPU (the CPU device): every function takes the invocation context
    /// (`cajeta_runtime::cpu::InvocationContext`) as its first argument `%ctx`; resources,
    /// ids, the push-constant block and shared memory are read from it, and barriers call
    /// the runtime through it.
    Cpu,
}
