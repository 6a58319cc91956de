//! Optimizing and running the module: a short O2-class pass pipeline, code generation on
//! several threads ([`super::split`]), and an in-process link ([`super::orc`]).
//!
//! The optimizer's cost models see the host's CPU and its features (`target_machine`), but
//! the code is generated for a generic x86-64 (`split::object_machine`): SSE2, as
//! `gcc -O2` does by default, and a loop vectorized for AVX2's width is split into SSE
//! halves. Marking the functions for the host's CPU (`target-cpu`/`target-features`) was
//! measured and made the compile 5–10% slower (docs/PERFORMANCE.md). Floats keep strict
//! IEEE semantics whatever the CPU: no instruction carries fast-math flags and the target's
//! `AllowFPOpFusion` stays at its default (fuse only explicit `fmuladd`, which is never
//! emitted), so no multiply-add is contracted even where the CPU has FMA.
//!
//! [`Native`] is a [`HostExecutor`]: it runs on the interpreter's thread (whose stack is
//! sized for `MAX_CALL_DEPTH` frames) with the interpreter's state, so output, device work
//! and runtime errors are shared with the code it delegates.

use std::cell::RefCell;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

use super::codegen::Codegen;
use super::orc::Linked;
use super::repr::{repr, Repr};
use super::runtime::{self, Site};
use super::split;
use crate::diagnostics::Span;
use crate::host::interp::ops::{f16_from_bits, f16_to_bits, round_f16};
use crate::host::interp::{Fail, HostError, HostExecutor, Interp, Scalar, Value};
use crate::ir::{self, ExprKind, FunctionId, FunctionKind};

/// The host functions native code may call from `entry` (entry first, then in discovery
/// order).
fn reachable(module: &ir::Module, entry: FunctionId) -> Vec<FunctionId> {
    let mut order = vec![entry];
    let mut seen: HashSet<FunctionId> = order.iter().copied().collect();
    let mut next = 0;
    while let Some(&id) = order.get(next) {
        next += 1;
        let callees = RefCell::new(Vec::new());
        ir::visit::find_expr(&module.function(id).body, &|e| {
            if let ExprKind::Call { func, .. } = &e.kind {
                callees.borrow_mut().push(*func);
            }
            false
        });
        for callee in callees.into_inner() {
            let host = module
                .functions
                .get(callee.0)
                .is_some_and(|f| f.kind == FunctionKind::Host);
            if host && seen.insert(callee) {
                order.push(callee);
            }
        }
    }
    order
}

/// Lowers the host code reachable from `entry` to a verified, unoptimized module.
fn lower<'ctx>(
    ctx: &'ctx Context,
    ir: &ir::Module,
    entry: FunctionId,
) -> Result<(Module<'ctx>, Vec<Site>), String> {
    let ids = reachable(ir, entry);
    let mut cg = Codegen::new(ctx, ir, "cajeta_host");
    if outline_loops() {
        cg.outline_in = super::loops::run_once(ir, &ids);
    }
    cg.declare(&ids);
    for &id in &ids {
        cg.define(id)?;
    }
    cg.entry_wrapper(entry)?;
    let Codegen { module, sites, .. } = cg;
    module
        .verify()
        .map_err(|e| format!("internal error: invalid LLVM IR: {e}"))?;
    Ok((module, sites))
}

/// Runs `passes` over the module, for the host's target.
fn run_passes(module: &Module<'_>, passes: &str) -> Result<(), String> {
    let machine = target_machine()?;
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    module
        .run_passes(passes, &machine, PassBuilderOptions::create())
        .map_err(|e| format!("internal error: LLVM passes: {e}"))
}

/// The optimization pipeline, in two parts: [`INLINE`] on the whole module, then
/// [`AFTER_INLINE`] on each partition (`split.rs`) — or on the whole module, for
/// `--emit llvm`. It is a short, fixed list of LLVM passes instead of `default<O2>`,
/// whose analyses (scalar evolution above all) took about two thirds of the examples' JIT
/// time. Before inlining only what the inliner's cost model needs (locals to registers,
/// CFG cleanup); after it one round of cleanup and the loop work the benchmarks need:
/// hoisting, rotation, full unrolling of loops of a small constant trip count (a 3 × 3
/// filter's `dx`/`dy` loops, which gcc -O2 unrolls too: 1.67x gcc without it) and
/// vectorization. The first such list took half the optimization
/// time of `default<O2>`, this one about a third less again, and it leaves every
/// `host_speed` loop within its 1.5x of gcc (docs/PERFORMANCE.md "Host code").
/// Induction-variable simplification (`indvars`, the most expensive pass of the list, 8% of
/// the JIT time) and a first `early-cse` and `instcombine` round before inlining were
/// dropped: they cost a third of the optimization time, and what they changed in the
/// loops' code is mostly a sign extension per array index (32-bit indices not widened to
/// 64 bits).
const INLINE: &str = "function(sroa,simplifycfg),cgscc(inline),globaldce";

/// The function-local optimization after inlining (see [`INLINE`]).
/// `instcombine<no-verify-fixpoint>` as in LLVM's own pipelines: the bare pass name
/// verifies that one round reached a fixpoint and aborts the process when not.
const AFTER_INLINE: &str =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(loop-rotate,licm),gvn,loop(indvars,loop-unroll-full),\
     loop-vectorize,instcombine<no-verify-fixpoint>,simplifycfg),strip-dead-prototypes";

/// Whether the outermost loops of functions that run a bounded number of times are
/// outlined (`loops.rs`); `CAJETA_JIT_OUTLINE=0` turns it off, to measure it.
fn outline_loops() -> bool {
    !std::env::var("CAJETA_JIT_OUTLINE").is_ok_and(|v| matches!(v.trim(), "0" | "off" | "no"))
}

/// How many threads generate code: the machine's parallelism, or `CAJETA_JIT_THREADS`.
fn jit_threads() -> usize {
    std::env::var("CAJETA_JIT_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The host's target: its CPU and features (for the optimizer's cost models).
pub(crate) fn target_machine() -> Result<TargetMachine, String> {
    // LLVM's target registry is not safe to initialize from two threads at once (runs may
    // be concurrent: tests, embedders); once per process is enough.
    static INIT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()))
        .clone()
        .map_err(|e| format!("LLVM native target: {e}"))?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| format!("LLVM target: {e}"))?;
    // The host's own CPU and features (the code runs where it is compiled). Results do not
    // depend on them: no operation is contracted or reassociated (see the module comment).
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Default,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| "cannot create an LLVM target machine".to_string())
}

/// The optimized LLVM IR of the program's host code (`cajetac build --emit llvm`). The
/// delegated expressions appear as constant addresses of the IR nodes: the module is for
/// reading, not for linking.
pub fn emit_ir(module: &ir::Module, entry: FunctionId) -> Result<String, String> {
    crate::driver::with_stage_stack(|| {
        let ctx = Context::create();
        let (m, _) = lower(&ctx, module, entry)?;
        run_passes(&m, INLINE)?;
        run_passes(&m, AFTER_INLINE)?;
        Ok(m.print_to_string().to_string())
    })
}

/// How long compiling a program's host code takes, stage by stage ([`compile_time`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct CompileTime {
    /// Lowering the typed IR to LLVM IR (and verifying it).
    pub lower: Duration,
    /// The optimization up to inlining, on the whole module.
    pub optimize: Duration,
    /// The partitions' optimization after inlining and their code generation (on several
    /// threads), and the link, up to the entry point's address.
    pub machine_code: Duration,
    /// How many partitions (threads) generated code.
    pub partitions: usize,
}

/// The program's host code, compiled and linked: `cajeta.main` and the JIT that owns it.
struct Compiled {
    /// Declared before `_linked`: the entry point must not outlive its code.
    main: Main,
    _linked: Linked,
    sites: Vec<Site>,
    time: CompileTime,
}

/// Lowers, optimizes, generates and links the host code reachable from `entry`.
fn compile(module: &ir::Module, entry: FunctionId) -> Result<Compiled, String> {
    crate::driver::with_stage_stack(|| {
        let ctx = Context::create();
        let start = Instant::now();
        let (m, sites) = lower(&ctx, module, entry)?;
        let lowered = Instant::now();
        run_passes(&m, INLINE)?;
        let inlined = Instant::now();
        let plan = split::plan(&m, jit_threads());
        let objects = split::compile(&m, &plan, AFTER_INLINE)?;
        let symbols: Vec<(&str, usize)> = super::runtime_functions()
            .into_iter()
            .map(|(sym, _, addr)| (sym, addr))
            .chain(helpers())
            .collect();
        let link_start = Instant::now();
        let linked = Linked::new(&symbols)?;
        let created = link_start.elapsed();
        if let Some(dir) = std::env::var_os("CAJETA_JIT_OBJECTS") {
            // A debugging aid: the partitions' objects, for `readelf`/`objdump`.
            for (i, object) in objects.iter().enumerate() {
                let path = std::path::Path::new(&dir).join(format!("partition{i}.o"));
                std::fs::write(&path, object)
                    .map_err(|e| format!("CAJETA_JIT_OBJECTS: {}: {e}", path.display()))?;
            }
        }
        for object in &objects {
            linked.add_object(object)?;
        }
        let addr = linked.address("cajeta.main")?;
        if std::env::var_os("CAJETA_JIT_PLAN").is_some() {
            eprintln!(
                "cajeta jit link: JIT made in {:.1} ms, {} objects linked in {:.1} ms",
                created.as_secs_f64() * 1e3,
                objects.len(),
                (link_start.elapsed() - created).as_secs_f64() * 1e3
            );
        }
        // SAFETY: `cajeta.main` is built by `Codegen::entry_wrapper` with exactly this type,
        // and its code lives as long as `linked`, which `Compiled` keeps.
        let main = unsafe { std::mem::transmute::<usize, Main>(addr) };
        Ok(Compiled {
            main,
            _linked: linked,
            sites,
            time: CompileTime {
                lower: lowered - start,
                optimize: inlined - lowered,
                machine_code: inlined.elapsed(),
                partitions: plan.len(),
            },
        })
    })
}

/// Compiles the program's host code from `entry` as a run would, without running it, and
/// says how long each stage took: what `cajetac run` reports as its JIT compile under
/// `CAJETA_HOST_TIMING=1`, measured in process so that a benchmark (`bench/`'s `jit_time`)
/// can repeat it without a device or the process's start.
pub fn compile_time(module: &ir::Module, entry: FunctionId) -> Result<CompileTime, String> {
    compile(module, entry).map(|c| c.time)
}

/// The native executor: compiles the host code reachable from the entry point and runs it.
pub struct Native;

impl HostExecutor for Native {
    fn run(
        &self,
        interp: &mut Interp<'_>,
        entry: FunctionId,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Value, Fail> {
        let internal = |m: String| {
            Box::new(HostError {
                message: m,
                span: Some(span),
                launch: None,
                notes: Vec::new(),
            })
        };
        let module = interp.module;
        let compiled = compile(module, entry).map_err(internal)?;
        let time = compiled.time;
        let start = Instant::now();
        let handoffs = super::bridge::handoffs();
        let logging = super::handoff_log::start();
        let result = run(compiled, module.function(entry), interp, &args);
        let by_kind = super::handoff_log::finish();
        if logging {
            // The program's output first, so the report follows it on a terminal.
            let _ = interp.out.flush();
            super::handoff_log::report(&by_kind);
        }
        if std::env::var_os("CAJETA_HOST_TIMING").is_some() {
            eprintln!(
                "native host code: compile {:.2} ms (IR and optimization to inlining {:.2} ms, optimization and machine code on {} threads {:.2} ms), run {:.2} ms, {} hand-offs to the interpreter",
                (time.lower + time.optimize + time.machine_code).as_secs_f64() * 1e3,
                (time.lower + time.optimize).as_secs_f64() * 1e3,
                time.partitions,
                time.machine_code.as_secs_f64() * 1e3,
                start.elapsed().as_secs_f64() * 1e3,
                super::bridge::handoffs() - handoffs
            );
        }
        result.map_err(|e| match e {
            Ran::Failed(e) => Box::new(e),
            Ran::Internal(m) => internal(m),
        })
    }
}

/// How a run did not return a value.
enum Ran {
    /// The program's runtime error.
    Failed(HostError),
    /// LLVM failed (a bug of this backend).
    Internal(String),
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

/// The signature of `cajeta.main` (see `Codegen::entry_wrapper`).
type Main = unsafe extern "C" fn(*mut u64, *const Value) -> i32;

/// Runs compiled host code with `args`.
fn run(
    compiled: Compiled,
    entry: &ir::Function,
    interp: &mut Interp<'_>,
    args: &[Value],
) -> Result<Value, Ran> {
    let internal = |e: String| Ran::Internal(format!("internal error: {e}"));
    let Compiled { main, sites, .. } = &compiled;
    let sites = sites.clone();
    let args_ptr = args.first().map_or(std::ptr::null(), |a| a as *const Value);
    let mut slot = 0u64;
    let ret = repr(&entry.return_type);
    let ((ok, value), error) = runtime::with_state(interp, sites, || {
        // SAFETY: the module was verified; the runtime state it calls is installed, and
        // `args_ptr` outlives the call.
        let ok = unsafe { main(&mut slot, args_ptr) };
        let value = match ret {
            // SAFETY: an object result is a box the entry function gave up.
            // SAFETY: so is a vector or POD result (`cajeta_words_box`).
            Repr::Object | Repr::Vector(..) | Repr::Pod if ok != 0 => {
                Some(unsafe { *Box::from_raw(slot as *mut Value) })
            }
            _ => None,
        };
        (ok, value)
    });
    if ok == 0 {
        return Err(Ran::Failed(error.unwrap_or_else(|| HostError {
            message: "internal error: native code failed without an error".into(),
            span: None,
            launch: None,
            notes: Vec::new(),
        })));
    }
    if let Some(v) = value {
        return Ok(v);
    }
    Ok(match ret {
        Repr::Scalar(s) if s.is_float() => {
            let x = f64::from_bits(slot);
            Value::Scalar(Scalar::from_float(x, s).ok_or_else(|| internal("result".into()))?)
        }
        Repr::Scalar(s) => Value::Scalar(Scalar::from_int_wrapping(i128::from(slot as i64), s)),
        _ => Value::Void,
    })
}
