//! The library GEMM's generated kernels (`cajetac::blas`): every candidate shape of every
//! precision compiles and passes spirv-val, with and without the H200's profile, and shapes
//! that cannot work are refused with a reason.

use cajeta_tests::{spirv_val, tests_dir};
use cajetac::blas::shapes::candidates;
use cajetac::blas::{coop_gemm_source, CoopGemmShape, GemmPrecision};
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
