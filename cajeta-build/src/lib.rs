//! Compile Cajeta kernels from a `build.rs` and get typed Rust launch functions.
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     cajeta_build::Builder::new()
//!         .file("kernels/saxpy.cajeta")
//!         .compile("kernels");
//! }
//! ```
//!
//! ```ignore
//! // src/main.rs
//! mod kernels {
//!     include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
//! }
//! let device = kernels::Kernels::device()?;
//! let k = kernels::Kernels::load(&device)?;
//! k.saxpy(&device.stream(), [4, 1, 1], [256, 1, 1], &x, &y, 2.0, n)?;
//! ```
//!
//! [`Builder::compile`] compiles the files together (as `cajetac build` would), writes each
//! kernel's SPIR-V and reflection JSON into `OUT_DIR`, and writes `OUT_DIR/<name>.rs`: a
//! module that embeds them and has one typed launch method per kernel, generated from the
//! reflection (see docs/build-rs.md). Compile errors are printed as cargo errors with their
//! `file:line:col` and code, and the full rendered diagnostics go to stderr, which cargo shows
//! when the build script fails.

mod bindings;
mod names;

use std::path::{Path, PathBuf};

use cajetac::diagnostics::{render_human, Diagnostic, Severity, SourceMap};
use cajetac::kernel::spirv::{AddressVariant, SpirvOptions};

pub use bindings::{KernelInfo, ParamInfo};

/// Compiles a set of `.cajeta` files into SPIR-V and Rust bindings; see the crate docs.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    files: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    checked: bool,
}

/// A failed build: what a build script prints before it fails.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// One `cargo::error=…` or `cargo:warning=…` line per diagnostic: its `file:line:col`,
    /// code and message.
    pub cargo_lines: Vec<String>,
    /// The diagnostics rendered as `cajetac` renders them (source excerpt, labels, notes).
    pub rendered: String,
}

/// What a successful build wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The generated Rust module, `OUT_DIR/<name>.rs`.
    pub module: PathBuf,
    /// The kernels, in source order.
    pub kernels: Vec<KernelInfo>,
    /// `cargo:rerun-if-changed=…` for every source file, then a `cargo::warning=…` line for
    /// each of the checker's warnings (`W0001`…).
    pub cargo_lines: Vec<String>,
}

impl Builder {
    /// A builder with no files, writing into `OUT_DIR`.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Adds a source file (relative paths are relative to the package root, where cargo runs
    /// build scripts). All files are compiled together, like `cajetac build a.cajeta b.cajeta`.
    pub fn file(mut self, path: impl Into<PathBuf>) -> Builder {
        self.files.push(path.into());
        self
    }

    /// Writes into `dir` instead of `OUT_DIR` (tests; a build script keeps `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.out_dir = Some(dir.into());
        self
    }

    /// Compiles the kernels in checked mode (bounds-checked accesses reported after the
    /// launch, as `cajetac run --checked`).
    pub fn checked(mut self, checked: bool) -> Builder {
        self.checked = checked;
        self
    }

    /// Compiles, writes `OUT_DIR/<name>.rs` and the kernels, and prints the cargo lines. On a
    /// compile error prints the diagnostics and exits the build script with status 1, so
    /// `cargo build` fails showing them.
    pub fn compile(&self, name: &str) -> Output {
        match self.try_compile(name) {
            Ok(out) => {
                for line in &out.cargo_lines {
                    println!("{line}");
                }
                out
            }
            Err(failure) => {
                // Rerun once a file changes, not on every build, failed or not.
                for file in &self.files {
                    println!("cargo:rerun-if-changed={}", file.display());
                }
                for line in &failure.cargo_lines {
                    println!("{line}");
                }
                eprint!("{}", failure.rendered);
                std::process::exit(1);
            }
        }
    }

    /// [`Builder::compile`] without printing or exiting: what it would print, as data.
    pub fn try_compile(&self, name: &str) -> Result<Output, Failure> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| {
                plain_failure("OUT_DIR is not set: call cajeta-build from a build script")
            })?),
        };
        let mut files = Vec::new();
        for path in &self.files {
            let text = std::fs::read_to_string(path)
                .map_err(|e| plain_failure(&format!("cannot read `{}`: {e}", path.display())))?;
            files.push((path.display().to_string(), text));
        }
        let mut sources = SourceMap::new();
        let module = cajetac::driver::frontend(&mut sources, &files)
            .map_err(|d| diagnostics_failure(&sources, &d))?;
        let options = SpirvOptions {
            checked: self.checked,
            ..SpirvOptions::default()
        };
        let mut compiled = cajetac::driver::compile_kernels(&module, &options, None)
            .map_err(|d| diagnostics_failure(&sources, &d))?;
        cajetac::driver::resolve_check_positions(&mut compiled, &sources);
        let kernels = bindings::describe(&module, &compiled, &sources)
            .map_err(|d| diagnostics_failure(&sources, &d))?;
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| plain_failure(&format!("cannot create `{}`: {e}", out_dir.display())))?;
        for (_, k) in &compiled {
            write_kernel(&out_dir, &k.name, &k.words, &k.reflection)?;
            if let AddressVariant::Compiled(v) = &k.by_address {
                write_kernel(
                    &out_dir,
                    &format!("{}.by_address", k.name),
                    &v.words,
                    &v.reflection,
                )?;
            }
        }
        let sources_list: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
        let code = bindings::generate(&out_dir, &sources_list, &kernels, &compiled);
        let module_path = out_dir.join(format!("{name}.rs"));
        write(&module_path, code.as_bytes())?;
        Ok(Output {
            module: module_path,
            kernels,
            cargo_lines: sources_list
                .iter()
                .map(|f| format!("cargo:rerun-if-changed={f}"))
                .chain(module.warnings.iter().map(|d| cargo_line(&sources, d)))
                .collect(),
        })
    }
}

/// Writes `<name>.spv` and `<name>.json` into `dir`.
fn write_kernel(
    dir: &Path,
    name: &str,
    words: &[u32],
    reflection: &cajetac::embed::rt::Reflection,
) -> Result<(), Failure> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    write(&dir.join(format!("{name}.spv")), &bytes)?;
    let json = serde_json::to_string_pretty(reflection)
        .map_err(|e| plain_failure(&format!("cannot write the reflection of `{name}`: {e}")))?;
    write(&dir.join(format!("{name}.json")), json.as_bytes())
}

/// Writes `bytes` to `path` unless it already holds them: a rerun that changes nothing (a
/// comment edited in a kernel) leaves the outputs' modification times alone for anything
/// that watches `OUT_DIR`. (Cargo recompiles the crate after every rerun of its build script
/// regardless.)
fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes)
        .map_err(|e| plain_failure(&format!("cannot write `{}`: {e}", path.display())))
}

/// A failure that is not a diagnostic of the sources (a file that cannot be read or written).
fn plain_failure(message: &str) -> Failure {
    Failure {
        cargo_lines: vec![format!("cargo::error={message}")],
        rendered: format!("error: {message}\n"),
    }
}

/// Compile diagnostics as cargo lines (errors and warnings, `file:line:col: error[E0008]:
/// message`) and as the compiler renders them.
fn diagnostics_failure(sources: &SourceMap, diags: &[Diagnostic]) -> Failure {
    Failure {
        cargo_lines: diags.iter().map(|d| cargo_line(sources, d)).collect(),
        rendered: render_human(sources, diags),
    }
}

/// A diagnostic as a cargo line: `cargo::error=file:line:col: error[E0008]: message` (or
/// `cargo::warning=…` for a warning).
fn cargo_line(sources: &SourceMap, d: &Diagnostic) -> String {
    let (key, level) = match d.severity {
        Severity::Error => ("cargo::error", "error"),
        Severity::Warning => ("cargo::warning", "warning"),
    };
    let position = sources.position(d.primary);
    let message = d.message.replace('\n', " ");
    format!("{key}={position}: {level}[{}]: {message}", d.code.as_str())
}
