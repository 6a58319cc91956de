//! The host-code interpreter (SPEC §9): runs a program's `run()` / `main` under
//! `cajetac run`, allocating arrays, buffers and images and launching kernels through
//! `cajeta-runtime`.
//!
//! It walks the typed IR directly ([`eval`]), with arithmetic in [`ops`], values in
//! [`value`], device work in [`device`] and Java-like printing in [`format`]. The
//! interpretation runs on a thread of its own with a large stack, so that
//! [`eval::MAX_CALL_DEPTH`] nested host calls end in an error instead of a stack overflow;
//! its output is forwarded to [`HostIo::stdout`] on the calling thread.

mod acceleration;
mod async_transfer;
mod autotune_ops;
mod buffer_transfer;
mod comm;
mod cpu_gemm;
pub mod cpu_run;
mod device;
mod device_control;
mod device_query;
mod devices;
#[cfg(feature = "native-host")]
mod direct;
mod eval;
mod files;
pub(crate) mod flat;
mod gemm;
mod geometry;
mod host_pins;
mod hostops;
// The native host code's string `+` (host/native/string_calls.rs).
#[cfg(feature = "native-host")]
pub(crate) use hostops::{append, append_text};
mod int_precision;
mod int_transfer;
mod kernels;
mod lanes;
mod launch;
mod launch_opts;
pub mod math;
mod operands;
pub mod ops;
mod pod_transfer;
mod precision;
mod rng;
mod streams;
pub(crate) mod strings;
mod textures;
mod timers;
pub mod value;
mod value_ops;
mod vector;
mod vector_ops;
mod vector_transfer;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::sync::{mpsc, Mutex, MutexGuard};

use crate::diagnostics::{json, SourceMap, Span};
use crate::ir::{self, FunctionId, Type};
use crate::kernel::spirv::CompiledKernel;
// The native host code's element access to arrays of vectors and PODs (host/native/words.rs).
#[cfg(feature = "native-host")]
pub(crate) use eval::{load_element, store_element};
pub use eval::{Fail, Frame, Interp, MAX_CALL_DEPTH};
// What native host code's typed calls into the runtime need (host/native/device_calls.rs).
#[cfg(feature = "native-host")]
pub(crate) use direct::DirectArg;
#[cfg(feature = "native-host")]
pub(crate) use eval::internal as internal_fail;
#[cfg(feature = "native-host")]
pub(crate) use gemm::gemm_value_operands;
#[cfg(feature = "native-host")]
pub(crate) use hostops::nano_time;
#[cfg(feature = "native-host")]
pub(crate) use launch::LaunchOperands;
pub use value::{Array, Scalar, Text, Value};
#[cfg(feature = "native-host")]
pub(crate) use vector_ops::intrinsic_values;

/// Stack of the interpreter thread: enough for [`MAX_CALL_DEPTH`] nested calls even in
/// unoptimized builds (about 9 KiB per simple call level there, 1.4 KiB optimized). The
/// memory is only reserved; pages are touched only as deep as a run goes.
const INTERPRETER_STACK_BYTES: usize = 512 << 20;

/// Tried when the system refuses the large stack; deep recursion may then overflow.
const FALLBACK_STACK_BYTES: usize = 64 << 20;

/// Where a run writes, and the device context it uses.
pub struct HostIo<'a> {
    /// Receives `System.out.print`/`println` output.
    pub stdout: &'a mut dyn Write,
    /// The runtime context. Created with `Context::new()` on first device use when `None`;
    /// the caller may inject one. After the run it holds the context that was used, if any.
    pub context: Option<cajeta_runtime::Context>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum HostOutcome {
    /// The entry method returned a value (`int32 run()`).
    Returned(Value),
    /// The entry method is `void`.
    Void,
}

/// A runtime error of host code: what went wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    /// The problem, in words.
    pub message: String,
    /// The expression or statement that failed, when known.
    pub span: Option<Span>,
    /// For an out-of-bounds access of a checked kernel (whose `span` is the access in the
    /// kernel): the launch it happened in, rendered as a note.
    pub launch: Option<Span>,
    /// More about the error, each rendered on a line of its own (`  note: …`).
    pub notes: Vec<String>,
}

impl HostError {
    /// `file:line:col: runtime error: message` (no position when the span is unknown), then
    /// the notes and the launch.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut text = match self.span {
            Some(span) => format!(
                "{}: runtime error: {}",
                sources.position(span),
                self.message
            ),
            None => format!("runtime error: {}", self.message),
        };
        for note in &self.notes {
            text.push_str(&format!("\n  note: {note}"));
        }
        if let Some(launch) = self.launch {
            text.push_str(&format!(
                "\n{}: note: in this launch",
                sources.position(launch)
            ));
        }
        text
    }

    /// The error for tools (`--error-format json`): the failing expression as the primary
    /// label, the launch as a secondary one (`in this launch`), and [`HostError::render`]'s
    /// text.
    pub fn record(&self, sources: &SourceMap) -> json::Record {
        let at = self.span.map(|s| json::Label::new(sources, s, true, ""));
        let launch = self
            .launch
            .map(|s| json::Label::new(sources, s, false, "in this launch"));
        json::Record {
            labels: at.into_iter().chain(launch).collect(),
            notes: self.notes.iter().map(json::Note::plain).collect(),
            rendered: self.render(sources) + "\n",
            ..json::Record::plain(json::Kind::Runtime, json::Level::Error, &self.message)
        }
    }

    fn general(message: impl Into<String>) -> HostError {
        HostError {
            message: message.into(),
            span: None,
            launch: None,
            notes: Vec::new(),
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "runtime error: {}", self.message)
    }
}

impl std::error::Error for HostError {}

/// Runs host method `entry`: `int32 run()`, `void main()` or `void main(String[] args)`
/// (any return type is accepted; a non-void result is returned). `args` become the
/// `String[]` of `main(String[] args)`. `kernels` maps each kernel to its compiled module;
/// a launch of a kernel missing from it is a runtime error. `sources` is not read here: the
/// caller renders errors with [`HostError::render`].
pub fn run_host(
    module: &ir::Module,
    entry: FunctionId,
    args: &[String],
    kernels: &HashMap<FunctionId, CompiledKernel>,
    sources: &SourceMap,
    io: &mut HostIo,
) -> Result<HostOutcome, HostError> {
    run_host_with(module, entry, args, kernels, sources, io, &Interpret)
}

/// Runs the entry method of a program: what differs between the interpreter and native code.
///
/// Both executors get the same [`Interp`] (its device, its output, its kernels) and the
/// entry's evaluated arguments, so device work, printing and runtime errors have one
/// implementation; native code calls back into the interpreter for what it does not lower
/// itself (`host::native`).
pub trait HostExecutor: Sync {
    /// Runs `entry` with `args` on `interp`'s state; `span` is the entry's declaration.
    fn run(
        &self,
        interp: &mut Interp<'_>,
        entry: FunctionId,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Value, Fail>;
}

/// The executor that walks the IR.
pub struct Interpret;

impl HostExecutor for Interpret {
    fn run(
        &self,
        interp: &mut Interp<'_>,
        entry: FunctionId,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Value, Fail> {
        interp.call(entry, args, span)
    }
}

/// [`run_host`] with the entry method run by `executor`.
pub fn run_host_with(
    module: &ir::Module,
    entry: FunctionId,
    args: &[String],
    kernels: &HashMap<FunctionId, CompiledKernel>,
    sources: &SourceMap,
    io: &mut HostIo,
    executor: &dyn HostExecutor,
) -> Result<HostOutcome, HostError> {
    run_host_pending(
        module, entry, args, kernels, sources, io, executor, None, None,
    )
}

/// A context being created on another thread: the run starts (and native host code
/// compiles) meanwhile, and the first device use waits for it.
pub type PendingContext = mpsc::Receiver<Result<cajeta_runtime::Context, String>>;

/// [`run_host_with`], with the context, when `io.context` is `None`, coming from `pending`;
/// or, with `cpu`, on the CPU device and its compiled kernels (no Vulkan context is made).
#[allow(clippy::too_many_arguments)]
pub fn run_host_pending(
    module: &ir::Module,
    entry: FunctionId,
    args: &[String],
    kernels: &HashMap<FunctionId, CompiledKernel>,
    sources: &SourceMap,
    io: &mut HostIo,
    executor: &dyn HostExecutor,
    pending: Option<PendingContext>,
    cpu: Option<&cpu_run::CpuRun>,
) -> Result<HostOutcome, HostError> {
    run_host_on(
        module,
        entry,
        args,
        kernels,
        sources,
        io,
        executor,
        pending,
        (cpu, None),
    )
}

/// [`run_host_pending`] with `cpu.0` as its `cpu`, and `cpu.1` the CPU device a Vulkan run
/// may still move to (`Device.force("cpu")`).
#[allow(clippy::too_many_arguments)]
pub fn run_host_on(
    module: &ir::Module,
    entry: FunctionId,
    args: &[String],
    kernels: &HashMap<FunctionId, CompiledKernel>,
    sources: &SourceMap,
    io: &mut HostIo,
    executor: &dyn HostExecutor,
    pending: Option<PendingContext>,
    (cpu, spare_cpu): (Option<&cpu_run::CpuRun>, Option<&cpu_run::CpuRun>),
) -> Result<HostOutcome, HostError> {
    let _ = sources;
    let func = module
        .functions
        .get(entry.0)
        .ok_or_else(|| HostError::general(format!("no function #{} to run", entry.0)))?;
    let string_array = Type::Array(Box::new(Type::String));
    let takes_args = match func.params() {
        [] => false,
        [p] if p.ty == string_array => true,
        _ => {
            return Err(HostError {
                message: format!(
                    "`{}` cannot be run: the entry method must be `run()`, `main()` or `main(String[] args)`",
                    func.qualified_name
                ),
                span: Some(func.span),
                launch: None,
                notes: Vec::new(),
            })
        }
    };
    let is_void = func.return_type == Type::Void;
    let context = Mutex::new(io.context.take());
    let pending = Mutex::new(pending);
    let job = Job {
        pending: &pending,
        module,
        entry,
        args,
        takes_args,
        kernels,
        context: &context,
        executor,
        cpu,
        spare_cpu,
    };

    // The interpreter's values are `Rc`-based and stay on its thread; what crosses back is
    // the context (through `context`) and a plain (`Send`) form of the result.
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let (result, write_error) = std::thread::scope(|scope| {
        let mut worker = Err(None);
        for stack in [INTERPRETER_STACK_BYTES, FALLBACK_STACK_BYTES] {
            let tx = tx.clone();
            let spawned = std::thread::Builder::new()
                .name("cajeta-host".into())
                .stack_size(stack)
                .spawn_scoped(scope, move || {
                    eval::set_stack_floor(stack);
                    job.run(tx)
                });
            match spawned {
                Ok(w) => {
                    worker = Ok(w);
                    break;
                }
                Err(e) => worker = Err(Some(e)),
            }
        }
        // Only the worker's sender may keep the channel open, so the loop below ends when
        // the worker does.
        drop(tx);
        let worker = match worker {
            Ok(w) => w,
            Err(e) => {
                let e = e.map(|e| e.to_string()).unwrap_or_default();
                let msg = format!("cannot start the interpreter thread: {e}");
                return (Err(HostError::general(msg)), None);
            }
        };
        // Forward output as it comes; on a write error stop receiving, so that the
        // interpreter's next write fails and the run ends.
        let mut write_error = None;
        for chunk in rx {
            if let Err(e) = io.stdout.write_all(&chunk) {
                write_error = Some(e);
                break;
            }
        }
        let result = worker.join().unwrap_or_else(|_| {
            Err(HostError::general(
                "internal error: the host interpreter panicked",
            ))
        });
        (result, write_error)
    });
    io.context = context.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = write_error.or_else(|| io.stdout.flush().err()) {
        return Err(HostError::general(format!(
            "cannot write to standard output: {e}"
        )));
    }
    let value = result?;
    Ok(if is_void {
        HostOutcome::Void
    } else {
        HostOutcome::Returned(value.into_value())
    })
}

/// What the interpreter thread needs; all of it `Sync` or handed over through the mutex.
#[derive(Clone, Copy)]
struct Job<'a> {
    executor: &'a dyn HostExecutor,
    module: &'a ir::Module,
    entry: FunctionId,
    args: &'a [String],
    takes_args: bool,
    kernels: &'a HashMap<FunctionId, CompiledKernel>,
    /// The context goes in here before the run and comes back out after it.
    context: &'a Mutex<Option<cajeta_runtime::Context>>,
    /// Where the context comes from when `context` holds none.
    pending: &'a Mutex<Option<PendingContext>>,
    /// The CPU device, when the run uses it.
    cpu: Option<&'a cpu_run::CpuRun>,
    /// The CPU device `Device.force("cpu")` may still choose, on a Vulkan run.
    spare_cpu: Option<&'a cpu_run::CpuRun>,
}

impl Job<'_> {
    /// Runs the entry method on the current thread, writing output to `tx`.
    fn run(self, tx: mpsc::Sender<Vec<u8>>) -> Result<SentValue, HostError> {
        let mut out = io::LineWriter::new(crate::host::ChannelWriter(tx));
        let entry_args = if self.takes_args {
            let strings = self.args.iter().map(Value::str).collect();
            let array = Array::from_values(&Type::String, strings).map_err(HostError::general)?;
            vec![Value::array(array)]
        } else {
            Vec::new()
        };
        let context = self.lock_context().take();
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let device = device::Device::new(self.kernels, context)
            .with_pending(pending)
            .on_cpu(self.cpu)
            .with_spare_cpu(self.spare_cpu);
        let mut interp = eval::Interp::new(self.module, &mut out, device);
        let span = self.module.function(self.entry).span;
        let result = self
            .executor
            .run(&mut interp, self.entry, entry_args, span)
            .and_then(|v| interp.device.finish().map(|()| v))
            .and_then(|v| interp.write_kernel_output(span).map(|()| v))
            .map(SentValue::from_value)
            .map_err(|e| *e);
        *self.lock_context() = interp.device.into_context();
        match (result, out.flush()) {
            (Ok(_), Err(e)) => Err(HostError::general(format!(
                "cannot write to standard output: {e}"
            ))),
            (r, _) => r,
        }
    }

    fn lock_context(&self) -> MutexGuard<'_, Option<cajeta_runtime::Context>> {
        // A poisoned lock still holds a usable context; never turn it into a panic.
        self.context.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A returned value in a form that can leave the interpreter thread: scalars and strings
/// exactly, anything else as its printed text.
enum SentValue {
    Void,
    Scalar(Scalar),
    Text(String),
}

impl SentValue {
    fn from_value(v: Value) -> SentValue {
        match v {
            Value::Void => SentValue::Void,
            Value::Scalar(s) => SentValue::Scalar(s),
            other => SentValue::Text(other.to_string()),
        }
    }

    fn into_value(self) -> Value {
        match self {
            SentValue::Void => Value::Void,
            SentValue::Scalar(s) => Value::Scalar(s),
            SentValue::Text(t) => Value::str(t),
        }
    }
}
