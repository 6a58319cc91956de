//! Handing a command that needs LLVM from `cajetac` to `cajetac-llvm`. LLVM is linked
//! statically, and its static initializers (hundreds of `cl::opt` registrations) and its
//! half of the executable's pages cost every process that links it at start-up, about as
//! much as a whole small compile: so `cajetac`, which `check` and `build` run, does not link
//! it, and a command that needs it is run by `cajetac-llvm` instead, on the same arguments.

use std::ffi::OsString;
use std::path::PathBuf;

/// The executable that links LLVM, installed beside `cajetac` (`cargo install` installs both).
pub(crate) const LLVM_EXE: &str = "cajetac-llvm";

/// The environment variable that names the LLVM executable explicitly (a `cajetac` copied
/// somewhere without it, tests).
pub(crate) const LLVM_EXE_VAR: &str = "CAJETAC_LLVM_EXE";

/// Why `cajetac` cannot do a command that needs LLVM itself.
pub(crate) const NO_LLVM: &str =
    "this needs LLVM, which this `cajetac` does not link (it hands such commands to `cajetac-llvm`)";

/// Why a `cajetac` built without the `native-host` feature refuses a command that needs LLVM.
pub(crate) const NO_LLVM_BUILD: &str = "this needs LLVM, and this `cajetac` was built without it \
     (cargo feature `native-host`): native host code and `--backend llvm` are not available; \
     `run --host interp` interprets the host code";

/// The LLVM executable: the one `CAJETAC_LLVM_EXE` names, else `cajetac-llvm` beside this
/// executable.
fn llvm_exe() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(LLVM_EXE_VAR).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let name = format!("{LLVM_EXE}{}", std::env::consts::EXE_SUFFIX);
    let beside = exe.with_file_name(name);
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!("`{}` does not exist", beside.display()))
    }
}

/// Runs the command `args` (this process's arguments, the program name first) with
/// `cajetac-llvm`: on Unix it replaces this process, so this returns only when that could
/// not be done, with the reason. Elsewhere it waits for it and exits with its status.
pub(crate) fn hand_over(args: &[OsString]) -> String {
    let exe = match llvm_exe() {
        Ok(e) => e,
        Err(why) => return format!("{NO_LLVM}: {why}"),
    };
    let mut cmd = std::process::Command::new(&exe);
    cmd.args(args.iter().skip(1));
    #[cfg(unix)]
    {
        use std::io::Write as _;
        use std::os::unix::process::CommandExt as _;
        // Nothing this process printed may be lost when its image is replaced.
        let _ = std::io::stdout().flush();
        cajetac::driver::compile_trace::event(|| "handing over to cajetac-llvm".into());
        let e = cmd.exec();
        format!("{NO_LLVM}: cannot start `{}`: {e}", exe.display())
    }
    #[cfg(not(unix))]
    match cmd.status() {
        Ok(s) => std::process::exit(s.code().unwrap_or(1)),
        Err(e) => format!("{NO_LLVM}: cannot start `{}`: {e}", exe.display()),
    }
}
