//! The library GEMM's kernels: Cajeta source for the tiled cooperative-matrix GEMM in each
//! precision and block shape (`coop_source`), which the benchmarks tune and the library
//! launches.

pub mod coop_source;
pub mod shapes;

pub use coop_source::{coop_gemm_source, CoopGemmShape, GemmPrecision};
