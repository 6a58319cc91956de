//! Compiles the build-time example's kernels into `OUT_DIR/kernels.rs`, as that example's own
//! `build.rs` does: `build_time.rs` includes the example's `main.rs`, whose bindings module
//! includes this file (see tests/Cargo.toml for why the example's tests run here). It also
//! tells the suite where it is, for the check that build scripts link no LLVM.

fn main() {
    cajeta_build::Builder::new()
        .file("../examples/rust/build-time/kernels/saxpy.cajeta")
        .file("../examples/rust/build-time/kernels/affine.cajeta")
        .compile("kernels");
    if let Ok(exe) = std::env::current_exe() {
        println!(
            "cargo:rustc-env=CAJETA_TESTS_BUILD_SCRIPT={}",
            exe.display()
        );
    }
}
