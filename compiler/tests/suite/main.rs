//! The compiler's integration tests (the `cajetac` command, the Rust embedding examples,
//! parsing, host vectors, native host code against the interpreter), one module each, linked into one test binary. Run one with a
//! filter on its module name, e.g. `cargo test -p cajetac --test suite -- cli::`.

mod caches;
mod checked;
mod cli;
mod error_format;
mod examples;
#[cfg(feature = "native-host")]
mod llvm_isolation;
mod lsp;
#[cfg(feature = "native-host")]
mod native_host;
mod parse_smoke;
mod pathological;
mod vector_host;
