//! cajetac: a compiler for a Cajeta-like GPU kernel language that emits SPIR-V for Vulkan.
//!
//! The pipeline, one stage per folder, each with one input and one output type:
//! `syntax` (source → AST) → `sema` (AST → checked [`ir::Module`]) → `specialize` (device
//! profile and precision choices) → the kernel backends `kernel::{spirv, llvm}` (IR kernel →
//! SPIR-V words + reflection) and the host executors `host::{native, interp}` (IR host code →
//! execution on the runtime). `driver` wires the stages for the CLI; `diagnostics` renders
//! errors.

pub mod blas;
pub mod comm;
pub mod diagnostics;
pub mod driver;
pub mod embed;
pub mod host;
pub mod ir;
pub mod kernel;
pub mod layout;
pub mod lsp;
pub mod sema;
pub mod specialize;
pub mod syntax;
