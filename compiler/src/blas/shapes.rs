//! Which block shapes the library considers per precision: the candidates the benchmark
//! sweeps (`coop_gemm --sweep`) and the tuned choice per device.

use super::coop_source::{CoopGemmShape, GemmPrecision};

/// Accumulator registers a thread may hold before the kernels spill (measured on the H200:
/// docs/PERFORMANCE.md, "Tensor cores").
const MAX_ACC_REGISTERS: u32 = 128;

/// Every shape worth measuring for `precision` with `subgroup`-wide subgroups: blocks from
/// 128×128 to 256×256, 2×4 and 4×2 subgroups, B row- and column-major, the K steps looped or
/// unrolled (loads first only looped); shapes that do not fit
/// (shared memory, thread split) or would hold more than `MAX_ACC_REGISTERS` accumulator
/// registers a thread are left out.
pub fn candidates(precision: GemmPrecision, subgroup: u32) -> Vec<CoopGemmShape> {
    let blocks: &[(u32, u32, u32)] = match precision {
        GemmPrecision::F16F16 => &[
            (256, 256, 32),
            (256, 128, 32),
            (128, 256, 32),
            (128, 128, 64),
            (128, 128, 32),
        ],
        GemmPrecision::F16F32 | GemmPrecision::Bf16F32 => &[
            (128, 128, 64),
            (128, 128, 32),
            (256, 128, 32),
            (128, 256, 32),
        ],
        GemmPrecision::I8I32 => &[
            (128, 256, 64),
            (256, 128, 64),
            (128, 128, 64),
            (256, 256, 32),
        ],
    };
    let mut out = Vec::new();
    for &(bm, bn, bk) in blocks {
        for (sg_rows, sg_cols) in [(2, 4), (4, 2)] {
            for (b_col_major, loads_first, unroll_k) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (true, true, false),
                (false, false, true),
                (true, false, true),
            ] {
                let s = CoopGemmShape {
                    precision,
                    bm,
                    bn,
                    bk,
                    sg_rows,
                    sg_cols,
                    subgroup,
                    b_col_major,
                    loads_first,
                    unroll_k,
                    fixed_nk: None,
                    group_rows: 0,
                };
                if s.check().is_ok() && s.accumulator_registers() <= MAX_ACC_REGISTERS {
                    out.push(s);
                }
            }
        }
    }
    out
}
