//! The library GEMM (`cajetac::blas::Gemm`) on the default device (lavapipe in CI: the scalar
//! kernel): every precision, both layouts of A and B, shapes that are not multiples of any
//! block, each element checked against an exact host product; the `pack`/`unpad` copies of
//! the cooperative path run on their own (its stand-in through buffer addresses where the
//! context allows them, as the library launches its cooperative kernels, and through
//! descriptors); every kernel the library emits, and its buffer-address variant, passes
//! spirv-val with and without the H200's profile, where the selector picks the cooperative
//! kernel.

use cajeta_runtime::{Buffer, BufferAddressing, Context, ContextOptions, DeviceProfile};
use cajeta_tests::{
    device_context, device_context_with, rerun_test_in_child, spirv_val, tests_dir,
};
use cajetac::blas::gemm::{compile, options_for};
use cajetac::blas::pad_source::pad_source;
use cajetac::blas::tuned::{specializes_whole_k, TUNED_SUBGROUP};
use cajetac::blas::{select, tuned, Gemm, GemmKernel, GemmLayout, GemmPrecision};
use cajetac::embed::Program;
use cajetac::kernel::spirv::{AddressVariant, TargetEnv};

const SHAPES: [(u32, u32, u32); 5] = [
    (1, 1, 1),
    (7, 13, 5),
    (17, 33, 65),
    (130, 70, 300),
    (257, 129, 64),
];

const LAYOUTS: [GemmLayout; 2] = [GemmLayout::RowMajor, GemmLayout::ColumnMajor];

fn profile(name: &str) -> DeviceProfile {
    let text = std::fs::read_to_string(tests_dir().join("profiles").join(name)).expect("profile");
    DeviceProfile::from_json(&text).expect("profile")
}

/// Element `i` of input `seed`: a multiple of 1/2 in [-1, 1] (an integer in [-4, 4] for
/// int8), so that every sum of up to 300 products is exact in float32 and float16 alike.
fn value(p: GemmPrecision, i: usize, seed: usize) -> f64 {
    let h = (i.wrapping_mul(2654435761) + seed * 40503) % 9;
    if p == GemmPrecision::I8I32 {
        h as f64 - 4.0
    } else {
        ((h % 5) as f64 - 2.0) / 2.0
    }
}

/// The float16 bits of `x` (exact for the inputs above: 0, ±0.5, ±1).
fn f16_bits(x: f64) -> u16 {
    let f = (x as f32).to_bits();
    if x == 0.0 {
        return 0;
    }
    let sign = ((f >> 16) & 0x8000) as u16;
    let exp = ((f >> 23) & 0xff) as i32 - 127 + 15;
    let mant = ((f >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | mant
}

fn f16_value(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let mant = f64::from(bits & 0x3ff);
    if exp == 0 {
        sign * mant * 2f64.powi(-24)
    } else {
        sign * (1.0 + mant / 1024.0) * 2f64.powi(exp - 15)
    }
}

/// The raw bytes of `xs` as operands of `p`.
fn encode(p: GemmPrecision, xs: &[f64]) -> Vec<u8> {
    xs.iter()
        .flat_map(|&x| match p {
            GemmPrecision::I8I32 => vec![x as i8 as u8],
            GemmPrecision::Bf16F32 => ((((x as f32).to_bits()) >> 16) as u16)
                .to_le_bytes()
                .to_vec(),
            _ => f16_bits(x).to_le_bytes().to_vec(),
        })
        .collect()
}

fn decode(p: GemmPrecision, bytes: &[u8]) -> Vec<f64> {
    let rb = p.result_bytes() as usize;
    bytes
        .chunks(rb)
        .map(|c| match p {
            GemmPrecision::I8I32 => f64::from(i32::from_le_bytes(c.try_into().expect("4"))),
            GemmPrecision::F16F16 => f16_value(u16::from_le_bytes([c[0], c[1]])),
            _ => f64::from(f32::from_le_bytes(c.try_into().expect("4"))),
        })
        .collect()
}

fn upload(ctx: &Context, bytes: &[u8]) -> Buffer {
    let buf = ctx.create_buffer(bytes.len() as u64).expect("buffer");
    let s = ctx.default_stream();
    s.upload_buffer(&buf, bytes).expect("upload");
    s.sync().expect("sync");
    buf
}

/// `rows × cols` matrix `x` (row-major) as it lies in `layout`.
fn lay_out(x: &[f64], rows: usize, cols: usize, layout: GemmLayout) -> Vec<f64> {
    match layout {
        GemmLayout::RowMajor => x.to_vec(),
        GemmLayout::ColumnMajor => (0..rows * cols)
            .map(|i| x[(i % rows) * cols + i / rows])
            .collect(),
    }
}

/// Runs one GEMM through `gemm` and checks every element against the host; the number of
/// elements checked.
fn check_one(
    ctx: &Context,
    gemm: &Gemm,
    (m, n, k): (u32, u32, u32),
    al: GemmLayout,
    bl: GemmLayout,
) -> usize {
    let p = gemm.precision();
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let ha: Vec<f64> = (0..m * k).map(|i| value(p, i, 1)).collect();
    let hb: Vec<f64> = (0..k * n).map(|i| value(p, i, 2)).collect();
    let a = upload(ctx, &encode(p, &lay_out(&ha, m, k, al)));
    let b = upload(ctx, &encode(p, &lay_out(&hb, k, n, bl)));
    let c = ctx
        .create_buffer((m * n) as u64 * u64::from(p.result_bytes()))
        .expect("c");
    let s = ctx.default_stream();
    gemm.multiply(&s, &a, al, &b, bl, &c, m as u32, n as u32, k as u32)
        .expect("multiply");
    let mut out = vec![0u8; m * n * p.result_bytes() as usize];
    s.download_buffer(&c, &mut out).expect("download");
    let got = decode(p, &out);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|t| ha[i * k + t] * hb[t * n + j]).sum();
            assert_eq!(
                got[i * n + j],
                want,
                "{} {m}×{n}×{k} A {al:?} B {bl:?}: C[{i}][{j}]",
                p.short()
            );
        }
    }
    m * n
}

#[test]
fn every_precision_layout_and_edge_shape_matches_the_host_exactly() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let mut checked = 0;
    let mut runs = 0;
    for p in GemmPrecision::ALL {
        let gemm = Gemm::new(&ctx, p).expect("gemm");
        for shape in SHAPES {
            for al in LAYOUTS {
                for bl in LAYOUTS {
                    checked += check_one(&ctx, &gemm, shape, al, bl);
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 4 * 5 * 4);
    assert!(checked > 4 * 4 * 130 * 70, "{checked} elements");
}

/// An unreadable `CAJETA_BUFFER_ADDRESS` (none of `auto`, `always`, `never`) stops the
/// library GEMM with the error a launch of a kernel with an address variant gives, rather
/// than quietly running through descriptors. The variable is read when a context is made, so
/// the test runs itself again in a child process with it set.
#[test]
fn an_unreadable_buffer_address_choice_is_the_librarys_error() {
    if std::env::var_os("CAJETA_GEMM_ADDRESS_CHILD").is_some() {
        let Some(ctx) = device_context(false) else {
            return;
        };
        let shape = tuned(GemmPrecision::F16F32, TUNED_SUBGROUP);
        match Gemm::coop_stand_in(&ctx, shape) {
            Ok(_) => panic!("the GEMM loaded with CAJETA_BUFFER_ADDRESS=sometimes"),
            Err(e) => {
                assert!(e.0.contains("CAJETA_BUFFER_ADDRESS=sometimes"), "{e}");
                assert!(e.0.contains("auto, always, never"), "{e}");
            }
        }
        println!("the library refused the choice");
        return;
    }
    let (text, errors, success) = rerun_test_in_child(
        "blas_gemm::an_unreadable_buffer_address_choice_is_the_librarys_error",
        &[
            ("CAJETA_GEMM_ADDRESS_CHILD", "1"),
            ("CAJETA_BUFFER_ADDRESS", "sometimes"),
        ],
    );
    let skipped = errors.contains("skipping device test");
    assert!(
        success && (skipped || text.contains("the library refused the choice")),
        "child failed: {text}\n{errors}"
    );
}

/// The cooperative path end to end on lavapipe: its padding, layout packing, direct use of
/// operands that fit and the unpad copy, around a scalar stand-in with the cooperative
/// kernel's interface, for each precision's tuned shape and the same with B's layout flipped.
#[test]
fn the_cooperative_paths_padding_and_copies_match_the_host_exactly() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let mut runs = 0;
    for p in GemmPrecision::ALL {
        let t = tuned(p, TUNED_SUBGROUP);
        for shape in [
            t,
            cajetac::blas::CoopGemmShape {
                b_col_major: !t.b_col_major,
                ..t
            },
        ] {
            let gemm = Gemm::coop_stand_in(&ctx, shape).expect("stand-in");
            assert_eq!(gemm.kernel(), GemmKernel::Coop(shape));
            // Where the context made its buffers addressable (lavapipe does), the kernel
            // reaches them through its buffer-address variant.
            assert_eq!(gemm.by_address(), addressable(&ctx), "{}", shape.name());
            // Whole blocks (operands used as they are where their layout fits) and edges.
            let whole = (shape.bm, shape.bn, 2 * shape.bk);
            let e = p.per_vector();
            // Ragged m, then ragged n: the last block shifted back to the edge, which
            // overlaps its neighbour; no copies where the layouts fit.
            let rows = (shape.bm + 5, shape.bn, shape.bk);
            let cols = (shape.bm, shape.bn + 3 * e, shape.bk);
            // Ragged m, n and k: shifted blocks, k padded by copies of A and B.
            let all = (shape.bm + 7, shape.bn + e, shape.bk + 3);
            // A ragged k of whole vectors, past one slice and inside the first: read in place
            // by the kernel compiled for it, the last slice's missing vectors zeroed.
            let ragged_k = (shape.bm + 7, shape.bn + e, 2 * shape.bk + e);
            let short_k = (shape.bm, shape.bn, e);
            // n not whole vectors, and smaller than a block: padded all round.
            let odd = (shape.bm + 1, shape.bn + 1, shape.bk);
            // n not whole vectors but C's rows whole 16 bytes (float32 and int32 results):
            // shifted in place where B is column-major, padded where B's rows are not whole.
            let c_whole = (shape.bm + 3, shape.bn + 4, shape.bk);
            for dims in [
                whole,
                rows,
                cols,
                all,
                ragged_k,
                short_k,
                odd,
                c_whole,
                (1, 1, 1),
                (17, 33, 65),
                (130, 70, 300),
            ] {
                for al in LAYOUTS {
                    for bl in LAYOUTS {
                        check_one(&ctx, &gemm, dims, al, bl);
                        runs += 1;
                    }
                }
            }
            // Each launch ran a kernel compiled for its own `n` and `k` (float16
            // accumulators: only the two whose `k` is not whole slices).
            let least = if specializes_whole_k(p) { 4 } else { 2 };
            assert!(
                gemm.specialized_count() >= least,
                "{}",
                gemm.specialized_count()
            );
        }
    }
    assert_eq!(runs, 4 * 2 * 11 * 4);
}

/// Whether `ctx` made its buffers addressable (and launches may take address variants).
fn addressable(ctx: &Context) -> bool {
    let f = ctx.enabled_features();
    f.iter().any(|x| x == "bufferDeviceAddress")
        && f.iter().any(|x| x == "shaderInt64")
        && ctx.buffer_addressing() != Ok(BufferAddressing::Never)
}

/// With buffer addresses turned off (`CAJETA_BUFFER_ADDRESS=never`, here the context's
/// option) the cooperative path runs its descriptor modules, with the same results: each
/// precision's tuned shape on whole blocks, shifted edges, a ragged `k` read in place and
/// one padded all round.
#[test]
fn the_cooperative_path_through_descriptors_matches_the_host_exactly() {
    let Some(ctx) = device_context_with(ContextOptions {
        buffer_addressing: Some(BufferAddressing::Never),
        ..ContextOptions::from_env()
    }) else {
        return;
    };
    for p in GemmPrecision::ALL {
        let shape = tuned(p, TUNED_SUBGROUP);
        let gemm = Gemm::coop_stand_in(&ctx, shape).expect("stand-in");
        assert!(!gemm.by_address(), "{}", shape.name());
        let e = p.per_vector();
        for dims in [
            (shape.bm, shape.bn, 2 * shape.bk),
            (shape.bm + 7, shape.bn + e, 2 * shape.bk + e),
            (shape.bm + 1, shape.bn + 1, shape.bk),
        ] {
            for al in LAYOUTS {
                check_one(&ctx, &gemm, dims, al, GemmLayout::RowMajor);
            }
        }
    }
}

/// Past `MAX_SPECIALIZED` distinct `(n, k)` pairs the library stops compiling kernels of its
/// own for each and runs the general one, with the same results.
#[test]
fn shapes_past_the_specialization_limit_run_the_general_kernel_exactly() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let shape = tuned(GemmPrecision::F16F32, TUNED_SUBGROUP);
    let gemm = Gemm::coop_stand_in(&ctx, shape).expect("stand-in");
    // A new `n` each time (whole vectors, the last block shifted), one K slice: the stand-in's
    // loops stay far below lavapipe's 65,535 iterations an invocation (docs/backends.md).
    let e = GemmPrecision::F16F32.per_vector();
    for step in 1..=cajetac::blas::MAX_SPECIALIZED as u32 + 2 {
        let dims = (shape.bm, shape.bn + (step - 1) * e, shape.bk);
        check_one(
            &ctx,
            &gemm,
            dims,
            GemmLayout::RowMajor,
            GemmLayout::RowMajor,
        );
        let want = (step as usize).min(cajetac::blas::MAX_SPECIALIZED);
        assert_eq!(gemm.specialized_count(), want, "after n = {}", dims.1);
    }
}

/// The float16-accumulator kernel runs whole K slices with its general kernel (faster than
/// one compiled for `n` and `k` on the H100) and gets a kernel of its own only for a `k` it
/// must read in place; the results are exact either way.
#[test]
fn float16_accumulators_compile_a_kernel_only_for_a_ragged_k() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let p = GemmPrecision::F16F16;
    assert!(!specializes_whole_k(p));
    let shape = tuned(p, TUNED_SUBGROUP);
    let gemm = Gemm::coop_stand_in(&ctx, shape).expect("stand-in");
    let e = p.per_vector();
    let row = GemmLayout::RowMajor;
    check_one(&ctx, &gemm, (shape.bm, shape.bn, 2 * shape.bk), row, row);
    assert_eq!(gemm.specialized_count(), 0);
    check_one(
        &ctx,
        &gemm,
        (shape.bm, shape.bn, 2 * shape.bk + e),
        row,
        row,
    );
    assert_eq!(gemm.specialized_count(), 1);
}

#[test]
fn bad_arguments_are_refused_with_the_operand_named() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let gemm = Gemm::new(&ctx, GemmPrecision::F16F32).expect("gemm");
    let s = ctx.default_stream();
    let small = ctx.create_buffer(16).expect("buffer");
    let big = ctx.create_buffer(4096).expect("buffer");
    let row = GemmLayout::RowMajor;
    let e = gemm
        .multiply(&s, &small, row, &big, row, &big, 8, 8, 8)
        .expect_err("A too small");
    assert!(e.to_string().contains("operand A is 8×8 float16"), "{e}");
    let e = gemm
        .multiply(&s, &big, row, &big, row, &small, 8, 8, 8)
        .expect_err("C too small");
    assert!(e.to_string().contains("operand C is 8×8 float32"), "{e}");
    let e = gemm
        .multiply(&s, &big, row, &big, row, &big, 0, 8, 8)
        .expect_err("empty");
    assert!(e.to_string().contains("at least 1"), "{e}");
}

/// lavapipe ends an invocation's loops after 65,535 iterations (docs/runtime.md): a K whose
/// loops would pass that is refused there, naming the limit, and the largest K that fits
/// still multiplies exactly.
#[test]
fn a_k_past_lavapipes_loop_limit_is_refused_there_not_answered_wrongly() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    if !ctx.device_info().driver_name.contains("llvmpipe") {
        return;
    }
    let gemm = Gemm::new(&ctx, GemmPrecision::F16F32).expect("gemm");
    assert_eq!(gemm.kernel(), GemmKernel::Scalar);
    let s = ctx.default_stream();
    let k = 70_000u32;
    let a = ctx.create_buffer(2 * u64::from(k)).expect("a");
    let b = ctx.create_buffer(2 * u64::from(k)).expect("b");
    let c = ctx.create_buffer(4).expect("c");
    let row = GemmLayout::RowMajor;
    let e = gemm
        .multiply(&s, &a, row, &b, row, &c, 1, 1, k)
        .expect_err("past the limit");
    assert!(
        e.to_string()
            .contains("lavapipe runs fewer than 65535 in all"),
        "{e}"
    );
    // 3,854 slices of 16 (65,518 iterations): the largest K accepted.
    check_one(&ctx, &gemm, (1, 1, 61_664), row, row);
    assert!(gemm
        .multiply(&s, &a, row, &b, row, &c, 1, 1, 61_665)
        .is_err());
}

#[test]
fn the_selector_picks_cooperative_matrices_on_the_h200_and_scalar_on_lavapipe() {
    let h200 = profile("h200.json");
    let lavapipe = profile("lavapipe.json");
    for p in GemmPrecision::ALL {
        assert_eq!(select(p, &lavapipe), GemmKernel::Scalar, "{p:?}");
        let coop = GemmKernel::Coop(tuned(p, TUNED_SUBGROUP));
        let bf16_ok = h200.has_feature("shaderBFloat16CooperativeMatrix");
        if p != GemmPrecision::Bf16F32 || bf16_ok {
            assert_eq!(select(p, &h200), coop, "{p:?}");
        } else {
            assert_eq!(select(p, &h200), GemmKernel::Scalar, "{p:?}");
        }
        // The same device with 64-wide subgroups cannot run the tuned kernels.
        let wide = DeviceProfile {
            subgroup_size: 64,
            ..h200.clone()
        };
        assert_eq!(select(p, &wide), GemmKernel::Scalar, "{p:?}");
    }
}

#[test]
fn every_kernel_the_library_emits_validates() {
    let mut count = 0;
    let mut variants = 0;
    for name in ["h200.json", "lavapipe.json"] {
        let prof = profile(name);
        let opts = options_for(&prof);
        for p in GemmPrecision::ALL {
            let t = tuned(p, TUNED_SUBGROUP);
            // The general kernel, and ones compiled for a ragged `n` and a `k` as constants:
            // whole slices, a ragged last slice (B in either layout) and less than a slice.
            let fixed = |n: u32, k: u32, flip: bool| {
                GemmKernel::Coop(cajetac::blas::CoopGemmShape {
                    fixed_nk: Some((n, k)),
                    b_col_major: t.b_col_major != flip,
                    ..t
                })
            };
            let e = p.per_vector();
            for kernel in [
                GemmKernel::Scalar,
                GemmKernel::Coop(t),
                fixed(4000, 4096, false),
                fixed(4000, 62 * t.bk + e, false),
                fixed(4000, 63 * t.bk - e, true),
                fixed(4000, e, false),
                fixed(4000, e, true),
                // The K steps unrolled, as the sample writes them.
                GemmKernel::Coop(cajetac::blas::CoopGemmShape {
                    unroll_k: true,
                    fixed_nk: Some((4000, 62 * t.bk + e)),
                    ..t
                }),
            ] {
                if matches!(kernel, GemmKernel::Coop(_)) && name == "lavapipe.json" {
                    continue;
                }
                let prog = compile(p, kernel, &opts)
                    .unwrap_or_else(|e| panic!("{name} {p:?} {kernel:?}: {e}"));
                let names = prog.kernel_names();
                let want = if kernel == GemmKernel::Scalar { 1 } else { 3 };
                assert_eq!(names.len(), want, "{names:?}");
                for k in names {
                    let tag = format!("{name} {} {k}", p.short());
                    let compiled = prog.get(k).expect("kernel");
                    spirv_val(&compiled.words, TargetEnv::Vulkan1_3, &tag)
                        .unwrap_or_else(|e| panic!("{tag}: {e}"));
                    count += 1;
                    // The buffer-address variant the library launches where it can.
                    match &compiled.by_address {
                        AddressVariant::Compiled(v) => {
                            spirv_val(&v.words, TargetEnv::Vulkan1_3, &format!("{tag} by address"))
                                .unwrap_or_else(|e| panic!("{tag} by address: {e}"));
                            variants += 1;
                        }
                        other => panic!("{tag}: no address variant: {other:?}"),
                    }
                }
            }
        }
    }
    assert_eq!(count, 4 * 3 * 7 + 4 + 4);
    assert_eq!(variants, count);
}

/// `pack` pads an operand of either layout with zeros to whole vectors and rows, and
/// `unpad` takes the result's rows and columns back: the cooperative path's copies, run on
/// the device where its GEMM kernel cannot.
#[test]
fn pack_and_unpad_copy_and_zero_pad_exactly() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let s = ctx.default_stream();
    for p in GemmPrecision::ALL {
        let prog = Program::compile_files(
            &[("pad.cajeta".to_string(), pad_source(p, "GemmPad"))],
            &cajetac::kernel::spirv::SpirvOptions::default(),
        )
        .expect("pad source");
        let load = |name: &str| {
            let k = prog.get(name).expect("kernel");
            ctx.load_kernel(&k.words, &k.reflection).expect("load")
        };
        let (pack, unpad) = (load("pack"), load("unpad"));
        let e = p.per_vector() as usize;
        let (rows, cols) = (5usize, 19usize);
        let (drows, dcols) = (8usize, 2 * e.max(16));
        let x: Vec<f64> = (0..rows * cols).map(|i| value(p, i, 3)).collect();
        for layout in LAYOUTS {
            let src = upload(&ctx, &encode(p, &lay_out(&x, rows, cols, layout)));
            let (rs, cs) = match layout {
                GemmLayout::RowMajor => (cols as u32, 1),
                GemmLayout::ColumnMajor => (1, rows as u32),
            };
            let ob = p.operand_bytes() as usize;
            let dst = ctx.create_buffer((drows * dcols * ob) as u64).expect("dst");
            let u = |v: usize| {
                cajeta_runtime::KernelArg::Scalar(cajeta_runtime::ScalarValue::U32(v as u32))
            };
            let dvecs = dcols / e;
            s.launch(
                &pack,
                &cajeta_runtime::LaunchConfig::new([1, drows as u32, 1], [64, 1, 1]),
                &[
                    cajeta_runtime::KernelArg::Buffer(&src),
                    cajeta_runtime::KernelArg::Buffer(&dst),
                    u(rows),
                    u(cols),
                    u(rs as usize),
                    u(cs as usize),
                    u(drows),
                    u(dvecs),
                ],
            )
            .expect("pack");
            let mut out = vec![0u8; drows * dcols * ob];
            s.download_buffer(&dst, &mut out).expect("download");
            let mut want = vec![0.0; drows * dcols];
            for r in 0..rows {
                for c in 0..cols {
                    want[r * dcols + c] = x[r * cols + c];
                }
            }
            assert_eq!(out, encode(p, &want), "{} pack {layout:?}", p.short());
        }
        // unpad: the 3×5 corner of a 4×8 result.
        let rb = p.result_bytes() as usize;
        let padded: Vec<u8> = (0..4 * 8 * rb).map(|i| i as u8).collect();
        let src = upload(&ctx, &padded);
        let dst = ctx.create_buffer((3 * 5 * rb) as u64).expect("dst");
        let u = |v: u32| cajeta_runtime::KernelArg::Scalar(cajeta_runtime::ScalarValue::U32(v));
        s.launch(
            &unpad,
            &cajeta_runtime::LaunchConfig::new([1, 3, 1], [64, 1, 1]),
            &[
                cajeta_runtime::KernelArg::Buffer(&src),
                cajeta_runtime::KernelArg::Buffer(&dst),
                u(3),
                u(5),
                u(8),
            ],
        )
        .expect("unpad");
        let mut out = vec![0u8; 3 * 5 * rb];
        s.download_buffer(&dst, &mut out).expect("download");
        let want: Vec<u8> = (0..3)
            .flat_map(|r| padded[r * 8 * rb..(r * 8 + 5) * rb].to_vec())
            .collect();
        assert_eq!(out, want, "{} unpad", p.short());
    }
}
