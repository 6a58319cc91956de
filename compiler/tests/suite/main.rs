//! The compiler's integration tests (the `cajetac` command, the Rust embedding examples,
//! parsing, host vectors, native host code against the interpreter), one module each, linked into one test binary. Run one with a
//! filter on its module name, e.g. `cargo test -p cajetac --test suite -- cli::`.

mod caches;
#[cfg(feature = "native-host")]
mod cajeta_autotune;
#[cfg(feature = "native-host")]
mod cajeta_forms;
#[cfg(feature = "native-host")]
mod cajeta_generics;
#[cfg(feature = "native-host")]
mod cajeta_host_library;
#[cfg(feature = "native-host")]
mod cajeta_kernel_manifest;
#[cfg(feature = "native-host")]
mod cajeta_presentation;
mod cajeta_surface;
#[cfg(feature = "native-host")]
mod cajeta_try_catch;
mod checked;
mod cli;
mod embed_memory;
mod error_format;
mod examples;
#[cfg(feature = "native-host")]
mod host_run;
#[cfg(feature = "native-host")]
mod host_strings;
#[cfg(feature = "native-host")]
mod llvm_batches;
#[cfg(feature = "native-host")]
mod llvm_isolation;
mod lsp;
#[cfg(feature = "mpi")]
mod mpi;
mod multi_device;
#[cfg(feature = "native-host")]
mod native_bfloat16;
#[cfg(feature = "native-host")]
mod native_device_calls;
#[cfg(feature = "native-host")]
mod native_flat_arrays;
#[cfg(feature = "native-host")]
mod native_host;
#[cfg(feature = "native-host")]
mod native_host_programs;
#[cfg(feature = "native-host")]
mod native_host_random;
#[cfg(feature = "native-host")]
mod native_random_objects;
#[cfg(feature = "native-host")]
mod native_selects;
#[cfg(feature = "native-host")]
mod native_vec3;
mod parse_smoke;
mod pathological;
mod startup_libraries;
#[cfg(feature = "native-host")]
mod throughput;
mod vector_host;
