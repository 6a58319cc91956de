//! Optimizing and running the module: LLVM's `default<O2>` pipeline, then MCJIT.
//!
//! The code is generated for the generic x86-64 CPU (SSE2, like `gcc -O2` without
//! `-march`), so a given program gets the same machine code on every machine. Floats keep
//! strict IEEE semantics: no instruction carries fast-math flags and the target's
//! `AllowFPOpFusion` stays at its default (fuse only explicit `fmuladd`, which is never
//! emitted), so no multiply-add is contracted.
//!
//! A run happens on a thread of its own (LLVM contexts are not `Send`, and the stack is
//! sized for `MAX_CALL_DEPTH` native frames); output goes back to the caller's writer
//! through a channel, as the interpreter's does.

use std::io::{self, Write};
use std::sync::mpsc;

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

use super::codegen::Codegen;
use super::runtime::{self, Site};
use super::{support, NativeError};
use crate::backend::host::ops::{f16_from_bits, f16_to_bits, round_f16};
use crate::backend::host::{HostError, HostOutcome, Scalar, Value};
use crate::ir::{self, FunctionId, Type};

/// Native stack of the run: `MAX_CALL_DEPTH` frames of at most a few hundred bytes each.
const NATIVE_STACK_BYTES: usize = 64 << 20;

/// Builds, verifies and optimizes the module of the program's host code from `entry`.
fn build<'ctx>(
    ctx: &'ctx Context,
    ir: &ir::Module,
    entry: FunctionId,
) -> Result<(Module<'ctx>, Vec<Site>), NativeError> {
    let ids = support::reachable(ir, entry).map_err(NativeError::Unsupported)?;
    let internal = NativeError::Internal;
    let mut cg = Codegen::new(ctx, ir, "cajeta_host");
    cg.declare(&ids);
    for &id in &ids {
        cg.define(id).map_err(internal)?;
    }
    cg.entry_wrapper(entry).map_err(internal)?;
    let Codegen { module, sites, .. } = cg;
    let machine = target_machine()?;
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    module
        .verify()
        .map_err(|e| internal(format!("internal error: invalid LLVM IR: {e}")))?;
    module
        .run_passes("default<O2>", &machine, PassBuilderOptions::create())
        .map_err(|e| internal(format!("internal error: LLVM passes: {e}")))?;
    Ok((module, sites))
}

/// The host's target, generic CPU.
fn target_machine() -> Result<TargetMachine, NativeError> {
    // LLVM's target registry is not safe to initialize from two threads at once (runs may
    // be concurrent: tests, embedders); once per process is enough.
    static INIT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()))
        .clone()
        .map_err(|e| NativeError::Internal(format!("LLVM native target: {e}")))?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple)
        .map_err(|e| NativeError::Internal(format!("LLVM target: {e}")))?;
    target
        .create_target_machine(
            &triple,
            "x86-64",
            "",
            OptimizationLevel::Default,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| NativeError::Internal("cannot create an LLVM target machine".into()))
}

/// The optimized LLVM IR of the program's host code (`cajetac build --emit llvm`).
pub fn emit_ir(module: &ir::Module, entry: FunctionId) -> Result<String, NativeError> {
    crate::driver::with_stage_stack(|| {
        let ctx = Context::create();
        let (m, _) = build(&ctx, module, entry)?;
        Ok(m.print_to_string().to_string())
    })
}

/// A result that can leave the run's thread.
enum Sent {
    Void,
    Scalar(Scalar),
    Text(String),
}

/// Compiles and runs host entry point `entry` natively, writing its output to `out`.
/// [`NativeError::Unsupported`] means nothing ran (the caller may use the interpreter).
pub fn run_native(
    module: &ir::Module,
    entry: FunctionId,
    out: &mut dyn Write,
) -> Result<HostOutcome, NativeError> {
    // Decided here already, so that an unsupported program never starts a thread.
    support::reachable(module, entry).map_err(NativeError::Unsupported)?;
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let (result, write_error) = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cajeta-native".into())
            .stack_size(NATIVE_STACK_BYTES)
            .spawn_scoped(scope, move || run_on_this_thread(module, entry, tx));
        let worker = match worker {
            Ok(w) => w,
            Err(e) => {
                let msg = format!("cannot start the native host thread: {e}");
                return (Err(NativeError::Internal(msg)), None);
            }
        };
        let mut write_error = None;
        for chunk in rx {
            if let Err(e) = out.write_all(&chunk) {
                write_error = Some(e);
                break;
            }
        }
        let result = worker.join().unwrap_or_else(|_| {
            Err(NativeError::Internal(
                "internal error: native host code panicked".into(),
            ))
        });
        (result, write_error)
    });
    if let Some(e) = write_error.or_else(|| out.flush().err()) {
        return Err(NativeError::Runtime(HostError {
            message: format!("cannot write to standard output: {e}"),
            span: None,
            launch: None,
        }));
    }
    let ret = &module.function(entry).return_type;
    Ok(match result? {
        Sent::Void if *ret == Type::Void => HostOutcome::Void,
        Sent::Void => return Err(NativeError::Internal("internal error: no result".into())),
        Sent::Scalar(s) => HostOutcome::Returned(Value::Scalar(s)),
        Sent::Text(t) => HostOutcome::Returned(Value::str(t)),
    })
}

fn run_on_this_thread(
    module: &ir::Module,
    entry: FunctionId,
    tx: mpsc::Sender<Vec<u8>>,
) -> Result<Sent, NativeError> {
    let ctx = Context::create();
    let (m, sites) = build(&ctx, module, entry)?;
    map_and_run(&m, sites, module.function(entry), tx)
}

/// Helper functions LLVM's code generator may call for `half` on a CPU without F16C, and
/// `fmod`: mapped to Rust implementations so that they never depend on what the process
/// happens to export (`libgcc_s` lacks `__extendhfsf2`).
fn helpers() -> [(&'static str, usize); 5] {
    [
        ("__extendhfsf2", extend_hf_sf as *const () as usize),
        ("__truncsfhf2", trunc_sf_hf as *const () as usize),
        ("__truncdfhf2", trunc_df_hf as *const () as usize),
        ("fmodf", fmodf as *const () as usize),
        ("fmod", fmod as *const () as usize),
    ]
}

// On x86-64 a `half` travels in the low 16 bits of an XMM register, as does the low half of
// an `f32`: these signatures are ABI-compatible with LLVM's `half` libcalls.
extern "C" fn extend_hf_sf(x: f32) -> f32 {
    f16_from_bits(x.to_bits() as u16)
}

extern "C" fn trunc_sf_hf(x: f32) -> f32 {
    f32::from_bits(u32::from(f16_to_bits(round_f16(f64::from(x)))))
}

extern "C" fn trunc_df_hf(x: f64) -> f32 {
    f32::from_bits(u32::from(f16_to_bits(round_f16(x))))
}

extern "C" fn fmodf(a: f32, b: f32) -> f32 {
    a % b
}

extern "C" fn fmod(a: f64, b: f64) -> f64 {
    a % b
}

fn map_and_run(
    m: &Module<'_>,
    sites: Vec<Site>,
    entry: &ir::Function,
    tx: mpsc::Sender<Vec<u8>>,
) -> Result<Sent, NativeError> {
    let internal = |e: String| NativeError::Internal(format!("internal error: {e}"));
    let engine = m
        .create_jit_execution_engine(OptimizationLevel::Default)
        .map_err(|e| internal(format!("LLVM JIT: {e}")))?;
    let ctx = m.get_context();
    let symbols = runtime::functions()
        .map(|(sym, _, addr)| (sym, addr))
        .into_iter()
        .chain(helpers());
    for (sym, addr) in symbols {
        // Declared (again, if the optimizer dropped it) so that it can be mapped by name.
        let f = m.get_function(sym).unwrap_or_else(|| {
            m.add_function(
                sym,
                ctx.void_type().fn_type(&[], false),
                Some(Linkage::External),
            )
        });
        engine.add_global_mapping(&f, addr);
    }
    type Main = unsafe extern "C" fn(*mut u64) -> i32;
    // SAFETY: `cajeta.main` is built by `Codegen::entry_wrapper` with exactly this type.
    let main = unsafe { engine.get_function::<Main>("cajeta.main") }
        .map_err(|e| internal(format!("LLVM JIT: {e}")))?;
    let mut writer = io::LineWriter::new(crate::backend::ChannelWriter(tx));
    let mut slot = 0u64;
    let ((ok, text), error) = runtime::with_state(&mut writer, sites, || {
        // SAFETY: the module was verified; the runtime state it calls is installed.
        let ok = unsafe { main.call(&mut slot) };
        let text = match entry.return_type {
            // SAFETY: a `String` result is a string of this run, still alive in the state.
            Type::String if ok != 0 => Some(unsafe { runtime::string_of(slot as *const _) }),
            _ => None,
        };
        (ok, text)
    });
    let flushed = writer.flush();
    if ok == 0 {
        let e = error.unwrap_or_else(|| HostError {
            message: "internal error: native code failed without an error".into(),
            span: None,
            launch: None,
        });
        return Err(NativeError::Runtime(e));
    }
    flushed.map_err(|e| {
        NativeError::Runtime(HostError {
            message: format!("cannot write to standard output: {e}"),
            span: None,
            launch: None,
        })
    })?;
    if let Some(t) = text {
        return Ok(Sent::Text(t));
    }
    Ok(match entry.return_type.as_scalar() {
        None => Sent::Void,
        Some(s) if s.is_float() => {
            let x = f64::from_bits(slot);
            Sent::Scalar(Scalar::from_float(x, s).ok_or_else(|| internal("result".into()))?)
        }
        Some(s) => Sent::Scalar(Scalar::from_int_wrapping(i128::from(slot as i64), s)),
    })
}
