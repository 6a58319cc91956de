//! `cajetac-llvm`: the `cajetac` command line with LLVM linked in. `cajetac` hands it the
//! commands that need LLVM (native host code for `run`, `--backend llvm`, `--emit llvm` and
//! `kernel-llvm`; see `cli/handover.rs`), and it is the LLVM kernel backend's emission helper
//! (docs/backends.md). Run directly, it does everything `cajetac` does.
#![cfg_attr(not(test), no_main)]
// The test build has the harness's `main`, not ours, so the commands are unused there.
#![cfg_attr(test, allow(dead_code))]

mod cli;

/// The LLVM half of the command line.
static LLVM: cli::LlvmParts = cli::LlvmParts {
    enable_kernel_backend: cajetac::kernel::llvm::enable,
    prestart_helpers: cajetac::kernel::llvm::prestart_helpers,
    defer_helper_waits: cajetac::kernel::llvm::defer_helper_waits,
    end_helpers: cajetac::kernel::llvm::end_helpers,
    kernel_ir: cajetac::kernel::llvm::kernel_ir,
    host_ir: cajetac::host::native::emit_ir,
    native: &cajetac::host::native::Native,
};

/// The C entry point (see `cli`'s module comment): std reads `argc`/`argv` itself at load
/// time on Linux, so `std::env::args` works as usual.
#[cfg(not(test))]
#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // Started as the LLVM kernel backend's emission helper (a fresh process running one
    // kernel through LLVM, docs/backends.md): that and nothing else.
    if let Some(code) = cajetac::kernel::llvm::emit_helper_main() {
        return code;
    }
    cli::c_main(Some(&LLVM))
}
