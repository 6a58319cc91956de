//! Unit tests of `stride_unroll`: which loops take two iterations a trip, in which variants.

use cajeta_runtime::{FloatStorage, PrecisionVariant};

use super::{specialize, Target};
use crate::diagnostics::SourceMap;
use crate::driver;
use crate::ir::{Block, FunctionKind, Stmt};

/// The loops of the kernel `name` of `src` once specialized for `storage`: for each loop at
/// the top of the body (or inside an `if`), whether its condition is the unrolled guard
/// (`&&`) and how many statements its body has.
fn loops(src: &str, name: &str, storage: FloatStorage) -> Vec<(bool, usize)> {
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("s.cajeta".into(), src.into())])
        .unwrap_or_else(|d| panic!("{d:?}"));
    let target = Target {
        precision: PrecisionVariant {
            float_storage: storage,
            ..Default::default()
        },
        profile: None,
    };
    let out = specialize(&module, &target).unwrap_or_else(|d| panic!("{d:?}"));
    let f = out
        .functions
        .iter()
        .find(|f| f.kind == FunctionKind::Kernel && f.name.ends_with(name))
        .expect("kernel");
    let mut found = Vec::new();
    collect(&f.body, &mut found);
    found
}

fn collect(b: &Block, found: &mut Vec<(bool, usize)>) {
    for s in b {
        match s {
            Stmt::Loop { pre_cond, body, .. } => {
                let guard = pre_cond
                    .as_ref()
                    .is_some_and(|c| matches!(c.kind, crate::ir::ExprKind::LogicalAnd(..)));
                found.push((guard, body.len()));
            }
            Stmt::If {
                then, otherwise, ..
            } => {
                collect(then, found);
                collect(otherwise, found);
            }
            _ => {}
        }
    }
}

const SRC: &str = r#"
package t;
import cajeta.xpu.*;
public final class S {
    @Kernel
    public static void axpb(KernelBuffer<Vector<sfp,4>> x, KernelBuffer<Vector<sfp,4>> y, float32 a, uint32 n) {
        uint32 stride = KernelThread.globalSizeX();
        for (uint32 i = KernelThread.globalIdX(); i < n; i += stride) {
            y[i] = x[i] * (afp) a;
        }
    }
    @Kernel
    public static void plain(KernelBuffer<float32> x, uint32 n) {
        for (uint32 i = KernelThread.globalIdX(); i < n; i += 64) {
            x[i] = x[i] * 2.0f;
        }
    }
    @Kernel
    public static void breaks(KernelBuffer<sfp> x, uint32 n) {
        for (uint32 i = KernelThread.globalIdX(); i < n; i += 64) {
            if (x[i] > (afp) 1.0) {
                break;
            }
            x[i] = (afp) 0.0;
        }
    }
    @Kernel
    public static void moving_bound(KernelBuffer<sfp> x, uint32 n) {
        uint32 end = n;
        for (uint32 i = KernelThread.globalIdX(); i < end; i += 64) {
            x[i] = (afp) 0.0;
            end = end - 1;
        }
    }
    @Kernel
    public static void constant_bound(KernelBuffer<sfp> x) {
        for (uint32 k = 0; k < 16; k++) {
            x[k] = (afp) 0.0;
        }
    }
    @Kernel
    public static void signed_index(KernelBuffer<sfp> x, int32 n) {
        for (int32 i = (int32) KernelThread.globalIdX(); i < n; i += 64) {
            x[(uint32) i] = (afp) 0.0;
        }
    }
}
"#;

#[test]
fn a_16_bit_variant_runs_the_stride_loop_two_iterations_a_trip_then_the_original() {
    for storage in [
        FloatStorage::Fp16,
        FloatStorage::Fp16Packed,
        FloatStorage::Bf16Packed,
    ] {
        let found = loops(SRC, "axpb", storage);
        assert_eq!(found.len(), 2, "{storage:?}: {found:?}");
        assert!(found[0].0 && !found[1].0, "{storage:?}: {found:?}");
        // The unrolled body: the body, the update, the body again.
        assert!(found[0].1 > found[1].1, "{storage:?}: {found:?}");
    }
}

#[test]
fn fp32_and_loops_that_do_not_qualify_are_left_as_written() {
    assert_eq!(loops(SRC, "axpb", FloatStorage::Fp32).len(), 1);
    for name in [
        "plain",
        "breaks",
        "moving_bound",
        "constant_bound",
        "signed_index",
    ] {
        let found = loops(SRC, name, FloatStorage::Fp16);
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        assert!(!found[0].0, "{name}: {found:?}");
    }
}
