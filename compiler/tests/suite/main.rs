//! The compiler's integration tests (the `cajetac` command, the Rust embedding examples,
//! parsing, host vectors), one module each, linked into one test binary. Run one with a
//! filter on its module name, e.g. `cargo test -p cajetac --test suite -- cli::`.

mod checked;
mod cli;
mod examples;
mod parse_smoke;
mod pathological;
mod vector_host;
