//! The emission helper: `cajetac-llvm` started again, as a fresh process, to run LLVM's SPIR-V
//! target on kernels (`isolate.rs` and `helper_process.rs` start it and read its answers).
//! Started with [`HELPER_ARG`] as its only argument, it reads requests from stdin and writes
//! an answer to stdout for each, until stdin ends; each request and each answer is a frame
//! (its length as 8 little-endian bytes, then its bytes):
//!
//! - request: the [`IDENTITY`] in hexadecimal, a newline, the pipeline, a newline, the
//!   module's LLVM IR text. An empty pipeline is a probe: the answer says whether the
//!   identities match, and LLVM does not run.
//! - answer: [`WORDS`] and the SPIR-V words (little-endian), [`ERROR`] and LLVM's message,
//!   or [`MISMATCH`] (another build's helper: the request's format or the emitter may differ).
//!
//! `CAJETA_LLVM_HELPER_FAULT` makes a helper fail on purpose, for the tests of what a failing
//! helper becomes: `abort` aborts (SIGABRT), `hang` never answers, `hang:FILE` writes the
//! helper's process id into FILE first; `log:FILE` only appends the process id of the helper
//! that took each request to FILE (which helpers served a compile).

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use cajeta_runtime::checksum::Fnv1a64;

use super::emit;

/// The argument that makes `cajetac-llvm` the helper (checked first thing in its `main`).
pub const HELPER_ARG: &str = "--internal-llvm-emit-helper";

/// What parent and helper must share: the compiler version and the text of the emitter and
/// of this protocol, so a helper of another build (an older `cajetac` left beside a test
/// binary) is not used.
pub(super) const IDENTITY: u64 = Fnv1a64::new()
    .update(env!("CARGO_PKG_VERSION").as_bytes())
    .update(include_str!("emit.rs").as_bytes())
    .update(include_str!("ir_fixups.rs").as_bytes())
    .update(include_str!("helper.rs").as_bytes())
    .finish();

/// Answer: the words follow.
pub(super) const WORDS: u8 = 0;
/// Answer: LLVM's error message follows.
pub(super) const ERROR: u8 = 1;
/// Answer: the request came from another build.
pub(super) const MISMATCH: u8 = 2;

/// Set once this process has passed [`emit_helper_main`] without being the helper: its own
/// executable answers [`HELPER_ARG`], so it needs no search and no probe.
static SERVES: AtomicBool = AtomicBool::new(false);

/// Whether this process's executable is a helper (see [`SERVES`]).
pub(super) fn executable_serves() -> bool {
    SERVES.load(Ordering::Relaxed)
}

/// The start of a request for `pipeline` (the LLVM IR text follows).
pub(super) fn request_header(pipeline: &str) -> String {
    format!("{IDENTITY:016x}\n{pipeline}\n")
}

/// Runs the emission helper when this process was started as one: call it first thing in
/// `main`. Returns the exit status to leave with when it was the helper, `None` otherwise
/// (and then this program's own executable is used as the helper of its LLVM compiles, with
/// no search: `cajetac-llvm` calls it, and an embedder's program may, see docs/backends.md).
pub fn emit_helper_main() -> Option<i32> {
    if std::env::args_os().nth(1).as_deref() != Some(OsStr::new(HELPER_ARG)) {
        SERVES.store(true, Ordering::Relaxed);
        return None;
    }
    use crate::driver::compile_trace::event;
    event(|| "helper: main".into());
    no_core_files();
    skip_idle_codegen_passes();
    let mut stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    // One request after the other until the compiler closes stdin (or goes away).
    loop {
        let request = match read_frame(&mut stdin) {
            Ok(Some(r)) => r,
            Ok(None) => return Some(0),
            Err(_) => return Some(2),
        };
        event(|| format!("helper: request of {} bytes read", request.len()));
        let answer = answer(&request);
        event(|| "helper: answered".into());
        if write_frame(&mut out, &answer).is_err() {
            return Some(2);
        }
    }
}

/// Code-generator passes of LLVM's default level that change nothing in the SPIR-V target's
/// modules, switched off by their LLVM options: building and running them was 33M of the
/// helper's 1,494M instructions for the 200 kernels of the compile_speed bench (2.2%), and
/// with them off every module of that bench and of every tests/ and examples/ program built
/// with `--backend llvm` (354 requests, all pipelines) stayed byte-identical. The passes of
/// that level that do change modules (machine CSE, LICM and sinking, CodeGenPrepare) stay
/// (loop strength reduction is off in every process that emits SPIR-V, for being wrong:
/// `emit::SPIRV_CODEGEN_OPTIONS`): the code generator at level none, without them, made a
/// fuzz-found kernel miss the structurizer fallback and be refused (docs/PERFORMANCE.md,
/// "The LLVM backend's per-kernel cost").
const IDLE_CODEGEN_PASSES_OFF: [&str; 8] = [
    "-disable-peephole",
    "-disable-machine-dce",
    "-disable-copyprop",
    "-disable-postra-machine-sink",
    "-disable-branch-fold",
    "-disable-tail-duplicate",
    "-disable-early-taildup",
    "-disable-block-placement",
];

/// Sets [`IDLE_CODEGEN_PASSES_OFF`] with the options every SPIR-V emission needs
/// (`emit::set_codegen_options`). LLVM's options are the whole process's: only the helper,
/// which compiles nothing but SPIR-V, switches the idle passes off; a compiler emitting in its
/// own process (no helper found) keeps them, and wrote the same modules in the measurement
/// above.
fn skip_idle_codegen_passes() {
    super::emit::set_codegen_options(&IDLE_CODEGEN_PASSES_OFF);
}

/// Reads one frame (its length as 8 little-endian bytes, then the bytes); `None` at the end
/// of the stream before a frame.
pub(super) fn read_frame(from: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 8];
    let mut got = 0;
    while got < len.len() {
        match from.read(&mut len[got..])? {
            0 if got == 0 => return Ok(None),
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => got += n,
        }
    }
    let len = usize::try_from(u64::from_le_bytes(len))
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
    let mut bytes = Vec::new();
    from.take(len as u64).read_to_end(&mut bytes)?;
    if bytes.len() != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Some(bytes))
}

/// Writes `bytes` as one frame (see [`read_frame`]) and flushes it.
pub(super) fn write_frame(to: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    to.write_all(&(bytes.len() as u64).to_le_bytes())?;
    to.write_all(bytes)?;
    to.flush()
}

/// A crash is expected now and then (docs/backends.md): no core file for it, whether the
/// system writes cores to files (the limit) or pipes them to a collector (not dumpable). And
/// when the compiler is killed, its helper goes with it.
fn no_core_files() {
    let none = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: sets this process's own limit from a valid struct.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &none) };
    #[cfg(target_os = "linux")]
    // SAFETY: plain flags of this process.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    }
}

/// The answer to `request` (see the module comment).
fn answer(request: &[u8]) -> Vec<u8> {
    let mut parts = request.splitn(3, |&b| b == b'\n');
    let (Some(identity), Some(pipeline), Some(text)) = (parts.next(), parts.next(), parts.next())
    else {
        return vec![MISMATCH];
    };
    if identity != format!("{IDENTITY:016x}").as_bytes() {
        return vec![MISMATCH];
    }
    if pipeline.is_empty() {
        return vec![WORDS];
    }
    let (Ok(pipeline), Ok(text)) = (std::str::from_utf8(pipeline), std::str::from_utf8(text))
    else {
        return failed("the request is not UTF-8");
    };
    fault_on_request(text);
    match std::panic::catch_unwind(|| emit::emit_spirv(text, pipeline)) {
        Ok(Ok(words)) => {
            let mut out = Vec::with_capacity(1 + 4 * words.len());
            out.push(WORDS);
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
            out
        }
        Ok(Err(e)) => failed(&e),
        Err(_) => failed("LLVM panicked emitting this kernel"),
    }
}

fn failed(message: &str) -> Vec<u8> {
    let mut out = vec![ERROR];
    out.extend_from_slice(message.as_bytes());
    out
}

/// `CAJETA_LLVM_HELPER_FAULT` (see the module comment).
fn fault_on_request(text: &str) {
    let Ok(fault) = std::env::var("CAJETA_LLVM_HELPER_FAULT") else {
        return;
    };
    if fault == "abort" {
        std::process::abort();
    }
    if let Some(kernel) = fault.strip_prefix("abort-on:") {
        if text.contains(&format!("define void @\"{kernel}\"()")) {
            std::process::abort();
        }
        return;
    }
    if let Some(file) = fault.strip_prefix("log:") {
        // Not a fault: which helper took each request, for the test that helpers are reused.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(file)
        {
            // One write per line: helpers append at once, and `writeln!` may split the
            // number and its newline into two writes that another helper's line lands between.
            let _ = f.write_all(format!("{}\n", std::process::id()).as_bytes());
        }
        return;
    }
    if let Some(rest) = fault.strip_prefix("hang") {
        if let Some(file) = rest.strip_prefix(':') {
            let _ = std::fs::write(file, std::process::id().to_string());
        }
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}
