//! The `cajetac` command line: build, check, run, devices (SPEC §10), shared by the two
//! executables of the package (each includes this module with `#[path]`):
//!
//! - `cajetac` (`src/main.rs`) names nothing of LLVM, so LLVM's static initializers and its
//!   half of the code are not in it: `check`, `build` and `run --host interp` start without
//!   paying for them. A command that needs LLVM (`run` with native host code, `--backend
//!   llvm`, `--emit llvm|kernel-llvm`) is handed whole to `cajetac-llvm`, which replaces the
//!   process (`exec`: same pid, same stdin/stdout, its exit status is the command's).
//! - `cajetac-llvm` (`src/llvm_main.rs`, feature `native-host`) links LLVM and gives this
//!   module its [`LlvmParts`]; it also serves as the LLVM kernel backend's emission helper.
//!
//! Each process has its own C `main` (no `std::rt::lang_start`): std's start-up asks glibc
//! for the main thread's stack bounds (`pthread_getattr_np` reads and parses
//! `/proc/self/maps`) to print a message on stack overflow, about 4% of a small kernel's
//! whole compile. Without it a stack overflow is a plain SIGSEGV; arguments, panics (exit
//! status 101), SIGPIPE and stdout flushing are handled in [`c_main`] as std's runtime
//! handles them.

use cajetac::diagnostics::json::{Kind, Level};
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{self, RunError};
use cajetac::host::interp::{HostIo, HostOutcome, Value};
use cajetac::kernel::spirv::{disassemble, KernelBackend, SpirvOptions, TargetEnv};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

// Before the modules, which see a macro only when it is defined above them.
/// `println!` that does not panic when stdout is closed (`cajetac devices | head`): a
/// consumer that stopped reading is not an error of ours.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod backend_choice;
mod build_command;
mod device_choice;
mod handover;
mod outputs;
mod precision_flags;
mod quick_args;
mod reflection_json;
mod report;
mod run_command;
mod small_blocks;
use backend_choice::{kernel_llvm_ir, resolve_backend, BackendArg};
use handover::NO_LLVM;

/// Small blocks come from per-thread free lists during `build` and `check`
/// (`small_blocks.rs`). Large host blocks (host arrays of 16 MiB and more) are allocated by
/// the GPU's driver while a run uses the device, so that their transfers are one device copy
/// at the bus's rate (`cudaHostAlloc`'s counterpart; docs/runtime.md "Transfers"); the rest
/// is the system allocator's.
#[global_allocator]
static ALLOCATOR: small_blocks::SmallBlocks = small_blocks::SmallBlocks;
use precision_flags::PrecisionFlags;

/// What of LLVM the command line uses, given by the executable that links it
/// (`cajetac-llvm`); `cajetac` has none and hands LLVM's commands over ([`hand_over`]).
pub struct LlvmParts {
    /// Makes `--backend llvm` available to the driver (`kernel::llvm::enable`).
    pub enable_kernel_backend: fn(),
    /// Starts the emission helpers of a `--backend llvm` compile of about that many kernels
    /// ahead of the front end (`kernel::llvm::prestart_helpers`).
    pub prestart_helpers: fn(usize),
    /// Makes dropped emission helpers be killed without a wait where they are dropped
    /// (`kernel::llvm::defer_helper_waits`): the command line waits for them in `end_helpers`.
    pub defer_helper_waits: fn(),
    /// Kills the emission helpers still running and, when asked, waits for every helper
    /// killed so far (`kernel::llvm::end_helpers`).
    pub end_helpers: fn(bool),
    /// `--emit kernel-llvm`: a kernel's LLVM IR (`kernel::llvm::kernel_ir`).
    pub kernel_ir: fn(
        &cajetac::ir::Module,
        cajetac::ir::FunctionId,
    ) -> Result<String, cajetac::diagnostics::Diagnostic>,
    /// `--emit llvm`: the host code's optimized LLVM IR (`host::native::emit_ir`).
    pub host_ir: fn(&cajetac::ir::Module, cajetac::ir::FunctionId) -> Result<String, String>,
    /// The native host executor (`host::native::Native`).
    pub native: &'static dyn cajetac::host::interp::HostExecutor,
}

/// This executable's LLVM parts, set once by [`c_main`].
static LLVM: std::sync::OnceLock<&'static LlvmParts> = std::sync::OnceLock::new();

/// The LLVM parts, in `cajetac-llvm`.
fn llvm() -> Option<&'static LlvmParts> {
    LLVM.get().copied()
}
use report::{asks_for_json, clap_record, exit_status, ExitCode, Report};

#[derive(Parser)]
#[command(
    name = "cajetac",
    version,
    about = "Compiler and runner for Cajeta GPU kernels (SPIR-V for Vulkan compute)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Debug)]
enum ErrorFormat {
    Human,
    Json,
}

/// `cajetac run --host`: see [`driver::HostMode`].
#[derive(Clone, Copy, ValueEnum, PartialEq, Debug)]
enum HostArg {
    Auto,
    Native,
    Interp,
}

impl HostArg {
    fn mode(self) -> driver::HostMode {
        match self {
            HostArg::Auto => driver::HostMode::Auto,
            HostArg::Native => driver::HostMode::Native,
            HostArg::Interp => driver::HostMode::Interp,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile kernels to SPIR-V, disassembly and reflection JSON.
    Build {
        /// Source files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output directory.
        #[arg(short = 'o', long = "out-dir", default_value = ".")]
        out: PathBuf,
        /// What to write per kernel: spirv, spvasm, reflect, kernel-llvm (the LLVM IR the
        /// LLVM kernel backend starts from, `<kernel>.ll`) (comma-separated); `llvm` writes
        /// the optimized LLVM IR of the host code (`<first file's stem>.ll`, native-host
        /// builds only).
        #[arg(long, value_delimiter = ',', default_value = "spirv,reflect")]
        emit: Vec<String>,
        /// vulkan1.1 (SPIR-V 1.3, default), vulkan1.2 (1.5) or vulkan1.3 (1.6; the default
        /// and only choice with `--backend llvm`).
        #[arg(long = "target-env")]
        target_env: Option<String>,
        /// Kernel backend: rspirv (default) or llvm (LLVM's SPIR-V target).
        #[arg(long, value_enum, default_value = "rspirv")]
        backend: BackendArg,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// Diagnostics as text or JSON.
        #[arg(long = "error-format", value_enum, default_value = "human")]
        error_format: ErrorFormat,
        /// Check every kernel against a device profile (`cajetac devices --json` output, or
        /// `auto` for the device a run would pick).
        #[arg(long = "device-profile")]
        device_profile: Option<String>,
        /// Precision options (SPEC §8), resolved against the device profile (none: no
        /// optional features).
        #[command(flatten)]
        precision: PrecisionFlags,
        /// Compile the kernels in checked mode (bounds-checked accesses, as `run --checked`
        /// compiles them), to read or measure what checking costs.
        #[arg(long)]
        checked: bool,
    },
    /// Parse and type-check without writing anything.
    Check {
        /// Source files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Diagnostics as text or JSON.
        #[arg(long = "error-format", value_enum, default_value = "human")]
        error_format: ErrorFormat,
    },
    /// Compile and run the program's `run()` or `main()` on the default device.
    Run {
        /// The program.
        file: PathBuf,
        /// vulkan1.1 (default), vulkan1.2 or vulkan1.3 (the default with `--backend llvm`).
        #[arg(long = "target-env")]
        target_env: Option<String>,
        /// Kernel backend: rspirv (default) or llvm (LLVM's SPIR-V target).
        #[arg(long, value_enum, default_value = "rspirv")]
        backend: BackendArg,
        /// Diagnostics as text or JSON.
        #[arg(long = "error-format", value_enum, default_value = "human")]
        error_format: ErrorFormat,
        /// Time every launch and transfer on the GPU and print a table to stderr at the end.
        #[arg(long)]
        profile: bool,
        /// Bounds-check every buffer, shared-array and image access in kernels; the first
        /// violation is a runtime error (also `CAJETA_CHECKED=1`).
        #[arg(long)]
        checked: bool,
        /// Precision options (docs/language.md, "Precision"), resolved against the device the run uses.
        #[command(flatten)]
        precision: PrecisionFlags,
        /// The device every launch runs on: a Vulkan device's index or a name substring (as
        /// `cajetac devices` lists them), or `cpu` (also `CAJETA_DEVICE`).
        #[arg(long)]
        device: Option<String>,
        /// How host code runs: `auto` and `native` compile it to native code through LLVM
        /// (`auto` interprets in a build without the `native-host` feature, `native` then
        /// refuses); `interp` runs the interpreter.
        #[arg(long = "host", value_enum, default_value = "auto")]
        host: HostArg,
        /// Arguments passed to `main(String[] args)`.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Serve the Language Server Protocol on stdin/stdout for editors (docs/editors.md):
    /// diagnostics as you type, hover, go to definition, completion, outline, semantic
    /// highlighting.
    Lsp,
    /// List the devices a program can run on: the Vulkan devices, then `cpu`.
    Devices {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn read_files(paths: &[PathBuf], report: Report) -> Result<Vec<(String, String)>, ExitCode> {
    paths
        .iter()
        .map(|p| match std::fs::read(p) {
            // Valid UTF-8 (nearly always) becomes the text without a copy; `from_utf8_lossy`
            // checked it byte by byte and then copied it.
            Ok(bytes) => Ok((
                p.display().to_string(),
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            )),
            Err(e) => Err(report.io(format!("cannot read `{}`: {e}", p.display()))),
        })
        .collect()
}

fn target_env(name: &str, report: Report) -> Result<TargetEnv, ExitCode> {
    let full = if name.starts_with("vulkan") {
        name.to_string()
    } else {
        format!("vulkan{name}")
    };
    TargetEnv::from_name(&full).ok_or_else(|| {
        report.usage(format!(
            "unknown target env `{name}` (expected vulkan1.1, vulkan1.2 or vulkan1.3)"
        ))
    })
}

fn check(files: &[PathBuf], report: Report) -> ExitCode {
    small_blocks::enable();
    driver::leave_syntax_trees_to_exit();
    let inputs = match read_files(files, report) {
        Ok(i) => i,
        Err(c) => return c,
    };
    let mut sources = SourceMap::new();
    match driver::frontend(&mut sources, &inputs) {
        Ok(module) => {
            report.warnings(&sources, &module.warnings);
            left_to_exit((module, sources, inputs));
            ExitCode::SUCCESS
        }
        Err(d) => report.compile(&sources, &d),
    }
}

/// Drops nothing of `value`: the command is done and the process exits right after, which
/// returns all its memory at once. Freeing a large program's IR, sources and compiled
/// kernels piece by piece was about 3% of `build`'s time for 200 kernels.
fn left_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Loads `--device-profile`: a file, or `auto` for the device a run would pick.
fn load_profile(arg: &str) -> Result<cajeta_runtime::DeviceProfile, (Kind, String)> {
    if arg == "auto" {
        return cajeta_runtime::DeviceProfile::auto()
            .map_err(|e| (Kind::Usage, format!("--device-profile auto: {e}")));
    }
    let text = std::fs::read_to_string(arg)
        .map_err(|e| (Kind::Io, format!("cannot read `{arg}`: {e}")))?;
    cajeta_runtime::DeviceProfile::from_json(&text)
        .map_err(|e| (Kind::Usage, format!("`{arg}`: {e}")))
}

fn devices(json: bool) -> ExitCode {
    let list = match cajeta_runtime::Context::list_devices() {
        Ok(l) => l,
        // The CPU device is still there.
        Err(e) if !json => {
            Report(ErrorFormat::Human).say(
                Kind::Runtime,
                Level::Note,
                format!("no Vulkan device: {e}"),
            );
            Vec::new()
        }
        Err(e) => return Report(ErrorFormat::Human).fail(Kind::Runtime, e),
    };
    if json {
        let profiles: Vec<cajeta_runtime::DeviceProfile> = list
            .iter()
            .map(cajeta_runtime::DeviceProfile::from_info)
            .collect();
        out!(
            "{}",
            serde_json::to_string_pretty(&profiles).unwrap_or_default()
        );
    } else {
        for line in device_choice::device_lines(&list) {
            out!("{line}");
        }
    }
    ExitCode::SUCCESS
}

/// The body of both executables' C `main` (see the module comment): `llvm` is what of LLVM
/// the executable links (`cajetac-llvm`), `None` in `cajetac`.
pub fn c_main(llvm: Option<&'static LlvmParts>) -> std::ffi::c_int {
    use std::io::Write as _;
    if let Some(parts) = llvm {
        let _ = LLVM.set(parts);
        (parts.defer_helper_waits)();
    }
    driver::compile_trace::event(|| format!("main (LLVM linked: {})", llvm.is_some()));
    // As std's runtime does: writing to a closed pipe is an error to handle, not a signal that
    // ends the process (`cajetac devices | head`).
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(signum: std::ffi::c_int, handler: usize) -> usize;
        }
        const SIGPIPE: std::ffi::c_int = 13;
        const SIG_IGN: usize = 1;
        // SAFETY: setting a signal's disposition to "ignore" before any thread is started.
        unsafe { signal(SIGPIPE, SIG_IGN) };
    }
    // A panic has printed its message through the hook; exit as std's runtime would.
    let code = std::panic::catch_unwind(cajetac_main).map_or(101, |c| c.0.into());
    // Emission helpers end with the command, and are waited for: their time is its time.
    if let Some(parts) = llvm {
        (parts.end_helpers)(true);
    }
    // libc's `exit` does not flush std's buffered stdout; the runtime's cleanup did.
    let _ = std::io::stdout().flush();
    code
}

fn cajetac_main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = match quick_args::quick_command(&args) {
        Some(c) => c,
        None => match Cli::try_parse_from(&args) {
            Ok(cli) => cli.command,
            // A command line clap refuses is a usage error like the others: JSON when it asks
            // for JSON. `--help` and `--version` (not errors) print as usual.
            Err(e) if e.use_stderr() && asks_for_json(&args) => {
                Report(ErrorFormat::Json).emit(&clap_record(&e));
                return exit_status(Kind::Usage);
            }
            Err(e) => e.exit(),
        },
    };
    if llvm().is_none() {
        if let Some((required, format)) = needs_llvm(&command) {
            if cfg!(feature = "native-host") {
                // Returns only when `cajetac-llvm` could not be started.
                let why = handover::hand_over(&args);
                if required {
                    return Report(format).fail(Kind::Usage, why);
                }
            } else if required {
                // A build without LLVM never hands over: a `cajetac-llvm` of another build
                // may sit beside it (one target folder, other features) and would run the
                // command without this build's features (`mpi`).
                return Report(format).fail(Kind::Usage, handover::NO_LLVM_BUILD.to_string());
            }
            // `run --host auto`: the interpreter, as in a build without LLVM.
        }
    }
    match command {
        Command::Build {
            files,
            out,
            emit,
            target_env,
            backend,
            kernel,
            error_format,
            device_profile,
            precision,
            checked,
        } => {
            // One stage stack for the whole command: the front end and the kernels then run
            // on it without mapping one each.
            driver::with_stage_stack(|| {
                build_command::build(
                    &files,
                    &out,
                    &emit,
                    resolve_backend(&target_env, backend),
                    kernel.as_deref(),
                    Report(error_format),
                    (device_profile.as_deref(), &precision, checked),
                )
            })
        }
        Command::Check {
            files,
            error_format,
        } => driver::with_stage_stack(|| check(&files, Report(error_format))),
        Command::Run {
            file,
            target_env,
            backend,
            error_format,
            profile,
            checked,
            precision,
            device,
            host,
            args,
        } => {
            // Under mpirun (in a cajetac built with `mpi`) this process is one rank of the
            // job; otherwise rank 0 of 1 (docs/distributed.md).
            let job = cajetac::comm::init();
            let code = run_command::run(
                &file,
                resolve_backend(&target_env, backend),
                &args,
                Report(error_format),
                (profile, checked),
                &precision,
                host.mode(),
                device.as_deref(),
            );
            if code.0 != 0 && job.is_some() {
                // The other ranks may wait in a collective this rank never reaches: name the
                // rank and end the whole job rather than let it hang.
                if let Some(rank) = cajetac::comm::rank_label() {
                    // One write: mpirun tags each write of a rank's unbuffered stderr.
                    let line = format!(
                        "cajetac: {rank} failed (exit status {}); aborting the MPI job\n",
                        code.0
                    );
                    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
                }
                cajetac::comm::abort_job_on_failure(i32::from(code.0));
            }
            // `job` finalizes MPI as it goes out of scope, after the run.
            code
        }
        Command::Devices { json } => devices(json),
        Command::Lsp => {
            if cajetac::lsp::serve_stdio() {
                ExitCode::SUCCESS
            } else {
                ExitCode(1)
            }
        }
    }
}

/// Whether `command` uses LLVM, and then whether it needs it (`false`: `run --host auto`,
/// which interprets without it), with its diagnostics format.
fn needs_llvm(command: &Command) -> Option<(bool, ErrorFormat)> {
    match command {
        Command::Build {
            emit,
            backend,
            error_format,
            ..
        } => (*backend == BackendArg::Llvm
            || emit.iter().any(|e| e == "llvm" || e == "kernel-llvm"))
        .then_some((true, *error_format)),
        Command::Run {
            backend,
            host,
            error_format,
            device,
            ..
        } => {
            // The CPU device's kernels are compiled by LLVM.
            let cpu = device_choice::selector(device.as_deref())
                .is_some_and(|s| device_choice::is_cpu(&s));
            let required = *backend == BackendArg::Llvm || *host == HostArg::Native || cpu;
            (required || *host != HostArg::Interp).then_some((required, *error_format))
        }
        Command::Check { .. } | Command::Lsp | Command::Devices { .. } => None,
    }
}
