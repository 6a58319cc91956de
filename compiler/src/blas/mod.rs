//! The library GEMM and its kernels: Cajeta source for the tiled cooperative-matrix GEMM in
//! each precision and block shape (`coop_source`), which the benchmarks tune; the tuned shape
//! per precision and the kernel choice per device (`tuned`); the tiled scalar GEMM for
//! devices without cooperative matrices (`scalar_source`); the copy kernels that pad
//! operands to whole blocks (`pad_source`); and [`Gemm`], which runs them (`gemm`).

pub mod coop_source;
pub mod gemm;
mod kernel_load;
pub mod pad_source;
pub mod scalar_source;
pub mod shapes;
pub mod tuned;

pub use coop_source::{block_order_source, coop_gemm_source, CoopGemmShape, GemmPrecision};
pub use gemm::{Gemm, GemmError, GemmLayout, MAX_SPECIALIZED};
pub use tuned::{select, tuned, GemmKernel};
