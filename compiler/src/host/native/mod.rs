//! Native host code: lowers a program's host functions to LLVM IR and runs them through
//! LLVM's JIT (docs/architecture.md "Host code").
//!
//! Every program runs natively. Scalars, control flow, calls, arrays of scalars, vectors,
//! matrices and PODs of scalars, `Math.*`, strings, printing and `printf` are native code
//! (strings and formatting by typed calls of the functions the interpreter uses too,
//! [`string_calls`]); what the backend does not lower itself (device work, files, array
//! allocation, `bfloat16`, nested arrays…) is handed expression by expression
//! to the run's interpreter through [`bridge`], so both executors share one implementation
//! of those operations and the results are the interpreter's, bit for bit: the
//! differential tests (`compiler/tests/suite/native_host.rs`, `tests/native_vs_interp.rs`)
//! run programs through both.
//!
//! Stages: [`repr`] (how each type is held), [`codegen`] (functions and statements),
//! [`loops`] (loops, in place or outlined), [`expr`] (expressions), [`arrays`] (in-place
//! array access), [`places`] (fields and lanes in place), [`vectors`] (vectors and matrices in registers), [`words`] (them and PODs crossing into the frame), [`scalar_fns`] (`Math`/`Bits`), [`delegate`] (the frame and the calls into
//! the interpreter), [`strings`] (strings in frame slots) build the module; [`jit`] optimizes it with LLVM's short O2-class pass
//! pipeline, [`split`] generates its code on several threads and [`orc`] links it;
//! [`runtime`], [`string_calls`] and [`bridge`] are the C-ABI functions the code calls.

mod arrays;
mod bridge;
mod calls;
mod codegen;
mod delegate;
mod device_calls;
mod expr;
mod flat_arrays;
mod handoff_log;
mod jit;
mod loops;
mod orc;
mod places;
mod repr;
mod runtime;
mod scalar_fns;
mod split;
mod string_calls;
mod strings;
mod text;
mod typed_ops;
mod vectors;
mod words;

pub use jit::{compile_time, emit_ir, CompileTime, Native};
// The CPU device's kernels are JIT-compiled the same way (`kernel/llvm/cpu`).
pub(crate) use jit::target_machine;
pub(crate) use orc::Linked;

/// Every C-ABI function the generated code may call: symbol, signature, address.
fn runtime_functions() -> Vec<(&'static str, &'static str, usize)> {
    let mut all = runtime::functions().to_vec();
    all.extend(bridge::functions());
    all.extend(scalar_fns::functions());
    all.extend(words::functions());
    all.extend(string_calls::functions());
    all.extend(device_calls::functions());
    all
}
