//! Which GEMM kernel the library runs on a device: the tuned cooperative-matrix block shape
//! per precision (the table the H200 measurements keep up to date), where the device can run
//! it, and the tiled scalar kernel everywhere else.

use cajeta_runtime::DeviceProfile;

use super::coop_source::{CoopGemmShape, GemmPrecision};

/// The subgroup width the tuned shapes are written for: their thread split and the
/// cooperative-matrix tiles a subgroup holds assume it.
pub const TUNED_SUBGROUP: u32 = 32;

/// The tuned block shape of `precision` for `subgroup`-wide subgroups (measured with
/// `coop_gemm --sweep` on the H200). Whether the device can run it is [`select`]'s question.
pub fn tuned(precision: GemmPrecision, subgroup: u32) -> CoopGemmShape {
    // (bm, bn, bk, sg_rows, sg_cols, b_col_major, loads_first): the fastest of the sweep at
    // 8192³ (docs/PERFORMANCE.md, "Tensor cores"), preferring B row-major (the layout most
    // callers have, so no transposed copy) where it is as fast. float32 accumulators: 128×256
    // (the two 16-bit precisions within 1% of each other); float16 accumulators take half the
    // registers, so a 256×256 block fits, the fastest float16 shape of the sweep; int8 needs B
    // column-major (with B row-major the same int8 blocks ran at about half the rate). The
    // kernels write their K steps out (`unroll_k`): for the 16-bit ones 2–4% faster as the
    // library runs them (compiled for their n and k) on an H100; int8's 1–2% slower through
    // descriptors but 10% faster through buffer addresses (538 against 488 TOPS), which the
    // library takes wherever the context allows them.
    let (bm, bn, bk, sg_rows, sg_cols, b_col_major, loads_first, unroll_k) = match precision {
        GemmPrecision::F16F32 | GemmPrecision::Bf16F32 => (128, 256, 32, 2, 4, false, false, true),
        GemmPrecision::F16F16 => (256, 256, 32, 2, 4, false, false, true),
        GemmPrecision::I8I32 => (256, 128, 64, 4, 2, true, false, true),
    };
    CoopGemmShape {
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
        // Blocks in groups of block rows, as the library runs them (for their n and k) on an
        // H100: groups of eight 0.3–0.9% faster for the float32 accumulators; groups of four
        // 4.3–4.7% faster for int8 (561.4 and 563.2 TOPS against 538.7 and 538.0 in row
        // order; eight gave 557.2 and 547.0); row order for the float16 accumulators' 256×256
        // blocks, which every grouping slowed by 1–3% (docs/PERFORMANCE.md, "The subgroup's
        // index and the order of the blocks", "Group sizes").
        group_rows: match precision {
            GemmPrecision::F16F16 => 0,
            GemmPrecision::I8I32 => 4,
            GemmPrecision::F16F32 | GemmPrecision::Bf16F32 => 8,
        },
    }
}

/// Whether the library compiles `precision`'s cooperative kernel again for an `(n, k)` whose
/// `k` is whole K slices (a `k` that is not is always given a kernel of its own, which reads
/// it in place). With `n` and `k` as constants the float32-accumulator and int8 kernels ran
/// 2–10% faster on an H100; the float16-accumulator kernel, written out, ran slower so (364.1
/// against 354.6 TFLOP/s through descriptors, 377.0 against 342.3 through buffer addresses,
/// 8192³, docs/PERFORMANCE.md), so for it the general kernel runs whole slices.
pub fn specializes_whole_k(precision: GemmPrecision) -> bool {
    precision != GemmPrecision::F16F16
}

/// The kind of kernel the library GEMM runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmKernel {
    /// The tiled cooperative-matrix kernel of this block shape (operands padded to it).
    Coop(CoopGemmShape),
    /// The tiled scalar kernel: 16×16 blocks of C, any shape and layout, no padding.
    Scalar,
}

/// The Vulkan features a cooperative-matrix GEMM of `precision` needs beyond plain compute.
pub fn coop_features(precision: GemmPrecision) -> &'static [&'static str] {
    match precision {
        GemmPrecision::Bf16F32 => &["cooperativeMatrix", "shaderBFloat16CooperativeMatrix"],
        _ => &["cooperativeMatrix"],
    }
}

/// The kernel for `precision` on the device `profile` describes: the tuned cooperative-matrix
/// shape when the device lists the precision's 16×16 tile at subgroup scope, has the features
/// it needs, and its subgroups are [`TUNED_SUBGROUP`] wide (the kernels require exactly that
/// width); the scalar kernel otherwise.
pub fn select(precision: GemmPrecision, profile: &DeviceProfile) -> GemmKernel {
    let [tm, tn, tk] = precision.tile();
    let (op, res) = (precision.operand_type(), precision.result_type());
    let listed = profile.coop_matrix_shapes.iter().any(|s| {
        [s.m, s.n, s.k] == [tm, tn, tk]
            && s.a == op
            && s.b == op
            && s.c == res
            && s.result == res
            && s.scope == "subgroup"
    });
    let features = coop_features(precision)
        .iter()
        .all(|f| profile.has_feature(f));
    if listed && features && profile.subgroup_size == TUNED_SUBGROUP {
        GemmKernel::Coop(tuned(precision, TUNED_SUBGROUP))
    } else {
        GemmKernel::Scalar
    }
}
