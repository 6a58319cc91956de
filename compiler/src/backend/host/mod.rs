//! The host-code interpreter (SPEC §9): runs a program's `run()` / `main` under
//! `cajetac run`, allocating arrays, buffers and images and launching kernels through
//! `cajeta-runtime`.
//!
//! It walks the typed IR directly ([`eval`]), with arithmetic in [`ops`], values in
//! [`value`], device work in [`device`] and Java-like printing in [`format`]. The
//! interpretation runs on a thread of its own with a large stack, so that
//! [`eval::MAX_CALL_DEPTH`] nested host calls end in an error instead of a stack overflow;
//! its output is forwarded to [`HostIo::stdout`] on the calling thread.

mod device;
mod eval;
pub mod format;
mod hostops;
pub mod ops;
pub mod value;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::sync::mpsc;

use crate::backend::spirv::CompiledKernel;
use crate::diagnostics::{SourceMap, Span};
use crate::ir::{self, FunctionId, Type};
pub use eval::MAX_CALL_DEPTH;
pub use value::{Array, Scalar, Value};

/// Stack of the interpreter thread. Debug builds need several KiB per interpreted call
/// level; the memory is only reserved, and pages are touched only as deep as a run goes.
const INTERPRETER_STACK_BYTES: usize = 1 << 30;

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
}

impl HostError {
    /// `file:line:col: runtime error: message` (no position when the span is unknown).
    pub fn render(&self, sources: &SourceMap) -> String {
        match self.span {
            Some(span) => format!(
                "{}: runtime error: {}",
                sources.position(span),
                self.message
            ),
            None => format!("runtime error: {}", self.message),
        }
    }

    fn general(message: impl Into<String>) -> HostError {
        HostError {
            message: message.into(),
            span: None,
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
            })
        }
    };
    let is_void = func.return_type == Type::Void;
    let context = io.context.take();

    // The interpreter's values are `Rc`-based and stay on its thread; what crosses back is
    // the context and a plain (`Send`) form of the result.
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let (result, context, write_error) = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cajeta-host".into())
            .stack_size(INTERPRETER_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut out = io::LineWriter::new(ChannelWriter(tx));
                let entry_args = if takes_args {
                    let strings = args.iter().map(Value::str).collect();
                    match Array::from_values(&Type::String, strings) {
                        Ok(a) => vec![Value::array(a)],
                        Err(m) => return (Err(HostError::general(m)), context),
                    }
                } else {
                    Vec::new()
                };
                let device = device::Device::new(kernels, context);
                let mut interp = eval::Interp::new(module, &mut out, device);
                let result = interp.call(entry, entry_args, func.span);
                let result = result.map(SentValue::from_value);
                let context = interp.device.into_context();
                let result = match (result, out.flush()) {
                    (Ok(_), Err(e)) => Err(HostError::general(format!(
                        "cannot write to standard output: {e}"
                    ))),
                    (r, _) => r,
                };
                (result, context)
            });
        let worker = match worker {
            Ok(w) => w,
            Err(e) => {
                let msg = format!("cannot start the interpreter thread: {e}");
                return (Err(HostError::general(msg)), None, None);
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
        match worker.join() {
            Ok((r, ctx)) => (r, ctx, write_error),
            Err(_) => (
                Err(HostError::general(
                    "internal error: the host interpreter panicked",
                )),
                None,
                write_error,
            ),
        }
    });
    io.context = context;
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

/// Sends everything written to the calling thread.
struct ChannelWriter(mpsc::Sender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "output closed"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
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
