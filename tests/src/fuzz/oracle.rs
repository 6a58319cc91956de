//! The oracles: what must hold for every fuzz input.
//!
//! - no panic: each input runs on its own thread with an ordinary 8 MiB stack under
//!   `catch_unwind` (a stack overflow aborts the whole process instead: the long-running
//!   driver therefore runs inputs in a child process, see `bin/cajeta_fuzz.rs`);
//! - bounded time: an input slower than [`SLOW`] is a finding;
//! - every diagnostic has a span inside a file of its source map, and renders (human and
//!   JSON) without panicking;
//! - a program that `check`s also builds (specialization and SPIR-V emission succeed);
//! - every module that compiles passes `spirv-val`;
//! - for generated programs: the frontend accepts them, and `run()` returns 0 on the device
//!   (device and host agree on every output element).

use super::gen::Program;
use cajetac::diagnostics::{render_human, render_json, Diagnostic, SourceMap};
use cajetac::driver;
use cajetac::host::interp::{self, HostIo, HostOutcome};
use cajetac::ir::{self, FunctionId};
use cajetac::kernel::spirv::{CompiledKernel, SpirvOptions, TargetEnv};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// Inputs slower than this through the whole pipeline are findings: 1 s in an optimized
/// build (the long campaign), 20 s in an unoptimized one (the CI slice, whose 2 cores may be
/// shared with other test threads): a hang or a quadratic blow-up exceeds either, load does not.
pub const SLOW: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(20)
} else {
    Duration::from_secs(1)
};

/// The stack each input runs on: the main thread's usual size, so that a recursion the
/// compiler cannot afford on an ordinary thread is found here too.
pub const STACK: usize = 8 << 20;

/// What went wrong with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The compiler panicked.
    Panic,
    /// The input took longer than [`SLOW`].
    Slow,
    /// A diagnostic's span lies outside its file, or rendering it panicked.
    BadDiagnostic,
    /// The frontend accepted the program but the backend refused it.
    CheckBuildDisagree,
    /// `spirv-val` rejected a module.
    SpirvVal,
    /// A generated (well-typed) program did not compile.
    GeneratedRejected,
    /// A generated program failed at run time or device and host disagreed.
    WrongResult,
}

/// One finding: its kind and a description (diagnostics, validator output, mismatches).
#[derive(Clone, Debug)]
pub struct Finding {
    /// What kind of failure.
    pub kind: Kind,
    /// Details.
    pub detail: String,
}

impl Finding {
    /// A finding of `kind` described by `detail`.
    pub fn new(kind: Kind, detail: impl Into<String>) -> Finding {
        Finding {
            kind,
            detail: detail.into(),
        }
    }

    /// A short signature used to group findings: the kind and the first line of the detail,
    /// with digits blanked (line numbers, sizes) so one defect groups as one.
    pub fn signature(&self) -> String {
        // spirv-val's first line only names the file: its `error:` line says what is wrong.
        let first = self
            .detail
            .lines()
            .find(|l| l.starts_with("error"))
            .or_else(|| self.detail.lines().next())
            .unwrap_or("");
        let blanked: String = first
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .take(160)
            .collect();
        format!("{:?}: {blanked}", self.kind)
    }
}

/// How far an input got through the pipeline (counts per fuzz target).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reached {
    /// Stopped at a lexer or parser error (or never got there: a panic).
    #[default]
    Syntax,
    /// Parsed, rejected by the checker.
    Checker,
    /// Checked; the backend ran (specialization and SPIR-V emission).
    Emission,
    /// Compiled; its modules went through `spirv-val`.
    Validated,
}

/// Runs `f` on a fresh thread with an 8 MiB stack, catching panics. `Err` holds the panic
/// message. Panics are reported through the finding, so the default hook is silenced while
/// fuzzing (see [`quiet_panics`]).
pub fn on_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || catch_unwind(AssertUnwindSafe(f)))
        .expect("spawn fuzz thread");
    match handle.join() {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(payload)) | Err(payload) => Err(payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".to_string())),
    }
}

/// Replaces the panic hook with one that prints nothing for fuzz threads, so thousands of
/// expected-to-be-caught panics do not flood the output; the finding carries the message.
pub fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let fuzz_thread = std::thread::current().name().is_none();
        if !fuzz_thread {
            default(info);
        }
    }));
}

/// Every diagnostic's primary and secondary spans lie within its file; rendering works.
fn check_diagnostics(sources: &SourceMap, diags: &[Diagnostic]) -> Option<Finding> {
    if diags.is_empty() {
        return Some(Finding::new(
            Kind::BadDiagnostic,
            "an error result without any diagnostic",
        ));
    }
    for d in diags {
        let spans = std::iter::once(&d.primary).chain(d.secondary.iter().map(|(s, _)| s));
        for s in spans {
            let len = sources.source(s.file).len() as u32;
            if s.start > s.end || s.end > len {
                return Some(Finding::new(
                    Kind::BadDiagnostic,
                    format!(
                        "{} span {}..{} outside its file ({len} bytes): {}",
                        d.code.as_str(),
                        s.start,
                        s.end,
                        d.message
                    ),
                ));
            }
        }
    }
    let rendered = catch_unwind(AssertUnwindSafe(|| {
        (render_human(sources, diags), render_json(sources, diags))
    }));
    match rendered {
        Ok(_) => None,
        Err(_) => Some(Finding::new(
            Kind::BadDiagnostic,
            "rendering the diagnostics panicked",
        )),
    }
}

/// What compiling one input produced.
pub struct Compiled {
    /// How far it got.
    pub reached: Reached,
    /// The checked module, when the frontend accepted it.
    pub module: Option<ir::Module>,
    /// Its kernels for Vulkan 1.1 (and 1.3 when asked), when the backend accepted it.
    pub kernels: Vec<(TargetEnv, Vec<(FunctionId, CompiledKernel)>)>,
    /// Rendered diagnostics when the frontend or backend refused it.
    pub errors: Option<String>,
    /// Time through the pipeline.
    pub elapsed: Duration,
}

/// Lexes, parses, checks and compiles `text` for each of `envs` on a fresh 8 MiB thread.
/// Returns the findings of the compile oracles (panic, span, check/build) and the result.
pub fn compile(text: String, envs: &[TargetEnv]) -> (Compiled, Vec<Finding>) {
    let envs = envs.to_vec();
    let result = on_thread(move || {
        let start = Instant::now();
        let mut findings = Vec::new();
        let mut c = Compiled {
            reached: Reached::Syntax,
            module: None,
            kernels: Vec::new(),
            errors: None,
            elapsed: Duration::ZERO,
        };
        let mut sources = SourceMap::new();
        let (_, lex_diags) = cajetac::syntax::lexer::lex(0, &text);
        let parsed = lex_diags.is_empty() && cajetac::syntax::parse_file(0, &text).is_ok();
        let files = [("fuzz.cajeta".to_string(), text)];
        match driver::frontend(&mut sources, &files) {
            Err(d) => {
                c.reached = if parsed {
                    Reached::Checker
                } else {
                    Reached::Syntax
                };
                findings.extend(check_diagnostics(&sources, &d));
                c.errors = Some(render_human(&sources, &d));
            }
            Ok(module) => {
                c.reached = Reached::Emission;
                for env in envs {
                    let options = SpirvOptions {
                        target_env: env,
                        ..SpirvOptions::default()
                    };
                    match driver::compile_kernels(&module, &options, None) {
                        Ok(k) => c.kernels.push((env, k)),
                        Err(d) => {
                            findings.extend(check_diagnostics(&sources, &d));
                            let text = render_human(&sources, &d);
                            findings.push(Finding::new(
                                Kind::CheckBuildDisagree,
                                format!("check accepts, build for {} refuses: {text}", env.name()),
                            ));
                            c.errors = Some(text);
                            break;
                        }
                    }
                }
                c.module = Some(module);
            }
        }
        c.elapsed = start.elapsed();
        if c.elapsed > SLOW {
            findings.push(Finding::new(
                Kind::Slow,
                format!("took {:.1} s (limit {:?})", c.elapsed.as_secs_f64(), SLOW),
            ));
        }
        (c, findings)
    });
    match result {
        Ok(r) => r,
        Err(msg) => (
            Compiled {
                reached: Reached::Syntax,
                module: None,
                kernels: Vec::new(),
                errors: None,
                elapsed: Duration::ZERO,
            },
            vec![Finding::new(Kind::Panic, format!("panic: {msg}"))],
        ),
    }
}

/// Runs `spirv-val` on compiled modules, skipping modules it already validated (mutations
/// often compile to the same words).
#[derive(Default)]
pub struct Validator {
    seen: HashSet<u64>,
    /// Number of `spirv-val` runs.
    pub runs: usize,
}

impl Validator {
    /// Validates every kernel: a module built for Vulkan 1.1 under 1.1 and (when `both`)
    /// 1.3, as tests/golden.rs does; one built for 1.3 under 1.3.
    pub fn validate(
        &mut self,
        kernels: &[(TargetEnv, Vec<(FunctionId, CompiledKernel)>)],
        both: bool,
    ) -> Vec<Finding> {
        let mut findings = Vec::new();
        for (built, ks) in kernels {
            for (_, k) in ks {
                let envs: &[TargetEnv] = match built {
                    TargetEnv::Vulkan1_1 if both => &[TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3],
                    e => std::slice::from_ref(e),
                };
                for env in envs {
                    let mut h = DefaultHasher::new();
                    (env.name(), &k.words).hash(&mut h);
                    if !self.seen.insert(h.finish()) {
                        continue;
                    }
                    self.runs += 1;
                    if let Err(e) = crate::spirv_val(&k.words, *env, &k.name) {
                        findings.push(Finding::new(Kind::SpirvVal, e));
                    }
                }
            }
        }
        findings
    }
}

/// Compiles a generated program for Vulkan 1.1 and 1.3 and validates every kernel.
/// Returns the compile result (for [`run_on_device`]) and the findings.
pub fn check_generated(p: &Program, val: &mut Validator) -> (Compiled, Vec<Finding>) {
    let (c, mut findings) = compile(
        p.source.clone(),
        &[TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3],
    );
    if c.module.is_none() {
        findings.push(Finding::new(
            Kind::GeneratedRejected,
            format!(
                "generated program rejected:\n{}",
                c.errors.as_deref().unwrap_or("")
            ),
        ));
    }
    findings.extend(val.validate(&c.kernels, true));
    (c, findings)
}

/// Runs a compiled generated program's `run()` with `ctx`: device results must equal the
/// host's (`run()` returns the number of differing elements and prints each).
pub fn run_on_device(c: &Compiled, ctx: &cajeta_runtime::Context) -> Option<Finding> {
    let module = c.module.as_ref()?;
    let (_, ks) = c.kernels.iter().find(|(e, _)| *e == TargetEnv::Vulkan1_1)?;
    let kernels: HashMap<FunctionId, CompiledKernel> = ks.iter().cloned().collect();
    let entry = driver::entry_point(module)?;
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let sources = SourceMap::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        interp::run_host(module, entry, &[], &kernels, &sources, &mut io)
    }));
    let printed = String::from_utf8_lossy(&out).into_owned();
    match result {
        Err(_) => Some(Finding::new(
            Kind::Panic,
            "panic while running on the device",
        )),
        Ok(Err(e)) => Some(Finding::new(
            Kind::WrongResult,
            format!("runtime error: {}", e.message),
        )),
        Ok(Ok(HostOutcome::Returned(v))) if v.to_string() == "0" && printed.is_empty() => None,
        Ok(Ok(outcome)) => Some(Finding::new(
            Kind::WrongResult,
            format!(
                "device and host disagree ({outcome:?}):\n{}",
                printed.lines().take(20).collect::<Vec<_>>().join("\n")
            ),
        )),
    }
}
