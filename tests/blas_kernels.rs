//! The library GEMM's generated kernels (`cajetac::blas`): every candidate shape of every
//! precision compiles and passes spirv-val, with and without the H200's profile, shapes
//! that cannot work are refused with a reason, and the grouped block order takes every block
//! of a grid once (run on the device).

use cajeta_runtime::{KernelArg, LaunchConfig};
use cajeta_tests::{device_context, spirv_val, tests_dir};
use cajetac::blas::shapes::candidates;
use cajetac::blas::{block_order_source, coop_gemm_source, CoopGemmShape, GemmPrecision};
use cajetac::embed::Program;
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

fn options(profile: Option<&str>) -> SpirvOptions {
    let profile = profile.map(|p| {
        let text = std::fs::read_to_string(tests_dir().join("profiles").join(p)).expect("profile");
        cajeta_runtime::DeviceProfile::from_json(&text).expect("profile")
    });
    SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        device_features: profile
            .as_ref()
            .map(|p| p.features.clone())
            .unwrap_or_default(),
        target: cajetac::specialize::Target {
            profile,
            ..Default::default()
        },
        ..SpirvOptions::default()
    }
}

#[test]
fn every_candidate_shape_compiles_and_validates() {
    let mut count = 0;
    for profile in [None, Some("h200.json")] {
        let opts = options(profile);
        for p in GemmPrecision::ALL {
            let shapes = candidates(p, 32);
            assert!(shapes.len() >= 4, "{p:?}: only {} shapes", shapes.len());
            for shape in shapes {
                let src = coop_gemm_source(&shape, "Gemm").expect("source");
                let prog =
                    Program::compile_files(&[(format!("{}.cajeta", shape.name()), src)], &opts)
                        .unwrap_or_else(|e| panic!("{}: {e}", shape.name()));
                let k = prog.get("gemm").expect("kernel");
                spirv_val(&k.words, TargetEnv::Vulkan1_3, &shape.name())
                    .unwrap_or_else(|e| panic!("{}: {e}", shape.name()));
                count += 1;
            }
        }
    }
    assert!(count > 40, "{count} kernels");
}

#[test]
fn impossible_shapes_are_refused_with_a_reason() {
    let base = CoopGemmShape {
        precision: GemmPrecision::F16F32,
        bm: 128,
        bn: 128,
        bk: 32,
        sg_rows: 2,
        sg_cols: 4,
        subgroup: 32,
        b_col_major: false,
        loads_first: false,
        unroll_k: false,
        fixed_nk: None,
        group_rows: 0,
    };
    assert!(coop_gemm_source(&base, "G").is_ok());
    let cases = [
        (CoopGemmShape { bm: 120, ..base }, "whole tiles"),
        (CoopGemmShape { bk: 24, ..base }, "K slice"),
        (CoopGemmShape { bk: 128, ..base }, "K slice"),
        (
            CoopGemmShape {
                bm: 512,
                bn: 256,
                ..base
            },
            "shared memory",
        ),
        (CoopGemmShape { sg_rows: 0, ..base }, "no subgroups"),
    ];
    for (shape, why) in cases {
        let e = coop_gemm_source(&shape, "G").expect_err(&shape.name());
        assert!(e.contains(why), "{}: {e}", shape.name());
    }
}

#[test]
fn grouped_block_orders_take_every_block_once() {
    // The statements the GEMM kernels use to pick their block, in a kernel that records each
    // workgroup's pick: every block of the grid exactly once, for grids that are and are not
    // whole groups of rows.
    let Some(ctx) = device_context(false) else {
        return;
    };
    for g in [0, 4, 8, 16] {
        let (order, by, bx) = block_order_source(g);
        let src = format!(
            "package blas;\nimport cajeta.xpu.*;\n\npublic final class Order {{\n    @Kernel\n    \
             public static void order(KernelBuffer<uint32> out) {{\n{order}        \
             if (KernelThread.x() == 0) {{\n            \
             out[Workgroup.y() * Workgroup.countX() + Workgroup.x()] = ({by}) * 65536 + ({bx});\n        \
             }}\n    }}\n}}\n"
        );
        let prog = Program::compile_files(&[("order.cajeta".to_string(), src)], &options(None))
            .unwrap_or_else(|e| panic!("group {g}: {e}"));
        let k = prog.get("order").expect("kernel");
        let kernel = ctx.load_kernel(&k.words, &k.reflection).expect("load");
        for (nx, ny) in [(1u32, 1u32), (3, 5), (16, 9), (33, 17), (64, 32), (7, 40)] {
            let count = (nx * ny) as usize;
            let out = ctx.create_buffer(count as u64 * 4).expect("buffer");
            let s = ctx.default_stream();
            s.launch(
                &kernel,
                &LaunchConfig::new([nx, ny, 1], [32, 1, 1]),
                &[KernelArg::Buffer(&out)],
            )
            .expect("launch");
            s.sync().expect("sync");
            let mut bytes = vec![0u8; count * 4];
            s.download_buffer(&out, &mut bytes).expect("download");
            let mut picks: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let first = picks[..count.min(2)].to_vec();
            picks.sort_unstable();
            let mut want: Vec<u32> = (0..ny)
                .flat_map(|y| (0..nx).map(move |x| y * 65536 + x))
                .collect();
            want.sort_unstable();
            assert_eq!(picks, want, "group {g}, grid {nx}x{ny}");
            // Grouped, the second workgroup takes the block below the first, not beside it.
            if g > 0 && ny > 1 && count > 1 {
                assert_eq!(first, vec![0, 65536], "group {g}, grid {nx}x{ny}");
            }
        }
    }
}
