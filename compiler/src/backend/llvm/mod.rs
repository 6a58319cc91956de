//! Native host code: lowers a program's host functions to LLVM IR and runs them through
//! LLVM's JIT (issue 10, docs/architecture.md "Host code").
//!
//! The whole program either runs natively or not at all: [`support::reachable`] decides
//! from the IR alone whether every host function reachable from the entry point is inside
//! the supported subset, and names the first construct that is not. `cajetac run --host
//! auto` then falls back to the interpreter (`backend::host`), `--host native` refuses.
//! Inside the subset the results are the interpreter's, bit for bit: the differential test
//! (`compiler/tests/suite/native_host.rs`) runs a corpus through both.
//!
//! Stages: [`codegen`] (functions, statements, calls, runtime errors) and [`expr`]
//! (expressions) build the module; [`jit`] optimizes it with LLVM's `default<O2>` pipeline
//! and runs it; [`runtime`] is the C-ABI layer the code calls for printing and strings.

mod codegen;
mod expr;
mod jit;
mod runtime;
pub mod support;

pub use jit::{emit_ir, run_native};
pub use support::{reachable, Unsupported};

use crate::backend::host::HostError;

/// Why the native backend did not run a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NativeError {
    /// The program uses something outside the subset; nothing ran.
    Unsupported(Unsupported),
    /// The program ran and stopped with a runtime error (its output so far was written).
    Runtime(HostError),
    /// LLVM failed (a bug of this backend); nothing ran.
    Internal(String),
}
