//! `cajetac`: the command line (`cli/`), without LLVM. LLVM is linked statically and its
//! start-up (static initializers, its half of the pages) costs about as much as a small
//! compile, so this executable names nothing of it: the commands that need it are handed
//! to `cajetac-llvm` (`cli/handover.rs`).
#![cfg_attr(not(test), no_main)]
// The test build has the harness's `main`, not ours, so the commands are unused there.
#![cfg_attr(test, allow(dead_code))]

mod cli;
// libm's functions defined here and loaded on first use, so that starting `cajetac` does not
// load libm (see the module).
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod lazy_libm;

/// The C entry point (see `cli`'s module comment): std reads `argc`/`argv` itself at load
/// time on Linux, so `std::env::args` works as usual.
#[cfg(not(test))]
#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    cli::c_main(None)
}
