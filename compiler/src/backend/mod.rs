//! Backends: consumers of the checked [`crate::ir::Module`].
//!
//! `spirv` compiles each kernel (and the `@Device` helpers it calls) to a SPIR-V module plus
//! its reflection document; `host` runs host code on the runtime.

pub mod host;
pub mod spirv;
