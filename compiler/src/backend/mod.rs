//! Backends: consumers of the checked [`crate::ir::Module`].
//!
//! `spirv` compiles each kernel (and the `@Device` helpers it calls) to a SPIR-V module plus
//! its reflection document; `host` interprets host code on the runtime; `llvm` (feature
//! `native-host`) compiles host code to native code through LLVM's JIT.

pub mod host;
#[cfg(feature = "native-host")]
pub mod llvm;
pub mod spirv;
