//! Compiles the kernels at build time: `OUT_DIR/kernels.rs` holds their SPIR-V and one typed
//! launch method each (docs/build-rs.md).

fn main() {
    cajeta_build::Builder::new()
        .file("kernels/saxpy.cajeta")
        .file("kernels/affine.cajeta")
        .compile("kernels");
}
