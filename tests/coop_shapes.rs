//! Integer and non-square cooperative matrices on the default device (lavapipe in CI). Each
//! kernel of `tests/kernels/coop_int8.cajeta` runs where the device lists its shape, and every
//! element is checked against the product computed here; where the device does not list it
//! (lavapipe has no cooperative matrices at all) loading fails with the runtime's error naming
//! the shape. A device that lists a shape but fails to load or run it fails the test, so nothing
//! passes without running on a device that has the shape; with `CI=true` a missing device fails.

use cajeta_runtime::{Buffer, Context, Kernel, KernelArg, LaunchConfig, ScalarValue};
use cajeta_tests::{device_context, frontend, tests_dir};
use cajetac::diagnostics::render_human;
use cajetac::driver::compile_kernels;
use cajetac::kernel::spirv::{CompiledKernel, SpirvOptions};

fn kernel(name: &str) -> CompiledKernel {
    kernel_of(&tests_dir().join("kernels").join("coop_int8.cajeta"), name)
}

fn kernel_of(path: &std::path::Path, name: &str) -> CompiledKernel {
    let (map, module) = frontend(path);
    let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
    compile_kernels(&module, &SpirvOptions::default(), None)
        .unwrap_or_else(|d| panic!("{}", render_human(&map, &d)))
        .into_iter()
        .map(|(_, k)| k)
        .find(|k| k.name == name)
        .expect("kernel")
}

/// The kernel loaded where the device lists its one shape; `None` after checking that the
/// refusal names that shape where it does not.
fn load_where_listed(ctx: &Context, k: &CompiledKernel) -> Option<Kernel> {
    let [shape] = k.reflection.coop_matrix_shapes.as_slice() else {
        panic!("{}: one shape expected", k.name);
    };
    let listed = ctx.device_info().coop_matrix_shapes.contains(shape);
    match ctx.load_kernel(&k.words, &k.reflection) {
        Ok(kernel) => {
            assert!(
                listed,
                "{} loaded although the device does not list {shape}",
                k.name
            );
            Some(kernel)
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!listed, "{}: the device lists {shape} but: {text}", k.name);
            assert!(
                text.contains(&format!("needs cooperative matrices {shape}")),
                "{}: {text}",
                k.name
            );
            eprintln!("{}: refused as expected: {text}", k.name);
            None
        }
    }
}

fn buffer(ctx: &Context, bytes: &[u8]) -> Buffer {
    let b = ctx.create_buffer(bytes.len() as u64).expect("buffer");
    ctx.default_stream()
        .upload_buffer(&b, bytes)
        .expect("upload");
    b
}

fn download(ctx: &Context, b: &Buffer, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    ctx.default_stream()
        .download_buffer(b, &mut out)
        .expect("download");
    out
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn block(ctx: &Context, grid: [u32; 2]) -> LaunchConfig {
    LaunchConfig::new(
        [grid[0], grid[1], 1],
        [ctx.device_info().subgroup_size, 1, 1],
    )
}

/// C = alpha * A x B + beta * C with int8 A (m x k), B (k x n) and int32 C, 16x16x32 tiles:
/// negative products, the staged A tile and the integer epilogue all show in the result.
#[test]
fn int8_gemm_matches_the_host_where_the_device_lists_16x16x32() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let Some(k) = load_where_listed(&ctx, &kernel("gemmS8")) else {
        return;
    };
    let (m, n, kk) = (32usize, 48usize, 64usize);
    let a: Vec<i8> = (0..m * kk).map(|i| ((i * 7) % 17) as i8 - 8).collect();
    let b: Vec<i8> = (0..kk * n).map(|i| ((i * 5) % 13) as i8 - 6).collect();
    let c0: Vec<i32> = (0..m * n).map(|i| (i % 11) as i32 - 5).collect();
    let (alpha, beta) = (3i32, -2i32);
    let bytes = |v: &[i8]| v.iter().map(|x| *x as u8).collect::<Vec<u8>>();
    let c_bytes: Vec<u8> = c0.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (ba, bb, bc) = (
        buffer(&ctx, &bytes(&a)),
        buffer(&ctx, &bytes(&b)),
        buffer(&ctx, &c_bytes),
    );
    let args = [
        KernelArg::Buffer(&ba),
        KernelArg::Buffer(&bb),
        KernelArg::Buffer(&bc),
        KernelArg::Scalar(ScalarValue::U32(n as u32)),
        KernelArg::Scalar(ScalarValue::U32(kk as u32)),
        KernelArg::Scalar(ScalarValue::I32(alpha)),
        KernelArg::Scalar(ScalarValue::I32(beta)),
    ];
    let cfg = block(&ctx, [(n / 16) as u32, (m / 16) as u32]);
    ctx.default_stream()
        .launch(&k, &cfg, &args)
        .expect("launch");
    let got = words(&download(&ctx, &bc, m * n * 4));
    for r in 0..m {
        for col in 0..n {
            let dot: i32 = (0..kk)
                .map(|i| i32::from(a[r * kk + i]) * i32::from(b[i * n + col]))
                .sum();
            let want = alpha * dot + beta * c0[r * n + col];
            assert_eq!(got[r * n + col] as i32, want, "c[{r}][{col}]");
        }
    }
}

/// C = A x B with uint8 inputs up to 255 (products that do not fit in int8 or int16) into
/// uint32, 16x8x32 tiles.
#[test]
fn uint8_gemm_matches_the_host_where_the_device_lists_16x8x32() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let Some(k) = load_where_listed(&ctx, &kernel("gemmU8")) else {
        return;
    };
    let (m, n, kk) = (32usize, 24usize, 96usize);
    let a: Vec<u8> = (0..m * kk).map(|i| ((i * 37) % 256) as u8).collect();
    let b: Vec<u8> = (0..kk * n).map(|i| ((i * 91 + 7) % 256) as u8).collect();
    let (ba, bb) = (buffer(&ctx, &a), buffer(&ctx, &b));
    let bc = buffer(&ctx, &vec![0xAB; m * n * 4]);
    let args = [
        KernelArg::Buffer(&ba),
        KernelArg::Buffer(&bb),
        KernelArg::Buffer(&bc),
        KernelArg::Scalar(ScalarValue::U32(n as u32)),
        KernelArg::Scalar(ScalarValue::U32(kk as u32)),
    ];
    let cfg = block(&ctx, [(n / 8) as u32, (m / 16) as u32]);
    ctx.default_stream()
        .launch(&k, &cfg, &args)
        .expect("launch");
    let got = words(&download(&ctx, &bc, m * n * 4));
    for r in 0..m {
        for col in 0..n {
            let want: u32 = (0..kk)
                .map(|i| u32::from(a[r * kk + i]) * u32::from(b[i * n + col]))
                .sum();
            assert_eq!(got[r * n + col], want, "c[{r}][{col}]");
        }
    }
}

/// float16 bits of a small integer (exact).
fn f16_bits(v: i32) -> u16 {
    if v == 0 {
        return 0;
    }
    let bits = (v as f32).to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    sign | ((exp as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
}

/// One 16x8x16 float16 tile into float32 accumulators (exact for these small integers), and
/// the same values converted to float16 and stored column-major.
#[test]
fn a_16x8x16_float16_tile_matches_the_host_where_the_device_lists_it() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let Some(k) = load_where_listed(&ctx, &kernel("tile16x8")) else {
        return;
    };
    let a: Vec<i32> = (0..256).map(|i| (i * 3) % 7 - 3).collect();
    let b: Vec<i32> = (0..128).map(|i| (i * 5) % 9 - 4).collect();
    let input: Vec<u8> = a
        .iter()
        .chain(&b)
        .flat_map(|v| f16_bits(*v).to_le_bytes())
        .collect();
    let ba = buffer(&ctx, &input);
    let bc = buffer(&ctx, &[0u8; 128 * 4]);
    let bh = buffer(&ctx, &[0u8; 128 * 2]);
    let args = [
        KernelArg::Buffer(&ba),
        KernelArg::Buffer(&bc),
        KernelArg::Buffer(&bh),
    ];
    ctx.default_stream()
        .launch(&k, &block(&ctx, [1, 1]), &args)
        .expect("launch");
    let got = words(&download(&ctx, &bc, 128 * 4));
    let half = download(&ctx, &bh, 128 * 2);
    for r in 0..16 {
        for col in 0..8 {
            let want: i32 = (0..16).map(|i| a[r * 16 + i] * b[i * 8 + col]).sum();
            assert_eq!(
                f32::from_bits(got[r * 8 + col]),
                want as f32,
                "c[{r}][{col}]"
            );
            let at = 2 * (col * 16 + r);
            let h = u16::from_le_bytes([half[at], half[at + 1]]);
            assert_eq!(h, f16_bits(want), "float16 c[{r}][{col}] (column-major)");
        }
    }
}

/// The coop_gemm bench's tiled int8 GEMM (`bench/src/bin/coop_gemm/int8_tiled.cajeta`: A and B
/// staged through shared arrays of 128-bit vectors, int8 tiles read from them) at 256×256×128,
/// every element checked.
#[test]
fn the_benchs_tiled_int8_gemm_matches_the_host_where_the_device_lists_16x16x32() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let path = tests_dir().join("../bench/src/bin/coop_gemm/int8_tiled.cajeta");
    let Some(k) = load_where_listed(&ctx, &kernel_of(&path, "gemm")) else {
        return;
    };
    let (m, n, kk) = (256usize, 256usize, 128usize);
    let a: Vec<i8> = (0..m * kk).map(|i| ((i * 7 + 3) % 19) as i8 - 9).collect();
    let b: Vec<i8> = (0..kk * n).map(|i| ((i * 11) % 15) as i8 - 7).collect();
    let bytes = |v: &[i8]| v.iter().map(|x| *x as u8).collect::<Vec<u8>>();
    let (ba, bb) = (buffer(&ctx, &bytes(&a)), buffer(&ctx, &bytes(&b)));
    let bc = buffer(&ctx, &vec![0u8; m * n * 4]);
    let args = [
        KernelArg::Buffer(&ba),
        KernelArg::Buffer(&bb),
        KernelArg::Buffer(&bc),
        KernelArg::Scalar(ScalarValue::U32(m as u32)),
        KernelArg::Scalar(ScalarValue::U32(n as u32)),
        KernelArg::Scalar(ScalarValue::U32(kk as u32)),
    ];
    let sg = ctx.device_info().subgroup_size;
    let cfg = LaunchConfig::new([(n / 128) as u32, (m / 128) as u32, 1], [8 * sg, 1, 1]);
    ctx.default_stream()
        .launch(&k, &cfg, &args)
        .expect("launch");
    let got = words(&download(&ctx, &bc, m * n * 4));
    for r in 0..m {
        for col in 0..n {
            let want: i32 = (0..kk)
                .map(|i| i32::from(a[r * kk + i]) * i32::from(b[i * n + col]))
                .sum();
            assert_eq!(got[r * n + col] as i32, want, "c[{r}][{col}]");
        }
    }
}
