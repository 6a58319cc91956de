//! Buffer arrays through the runtime API: non-uniform indexing runs (checked against values
//! computed here) where the device has `shaderStorageBufferArrayNonUniformIndexing` and is
//! refused at load, naming the feature, where it has not (lavapipe); every buffer of an array
//! is hazard-tracked; misuse (an empty array, a single buffer for an array parameter, too
//! many buffers) is a clear launch error.

use cajeta_runtime::{
    Context, Hazard, KernelArg, LaunchConfig, ScalarValue, BUFFER_ARRAY_CAPACITY,
};
use cajeta_tests::{device_context, tests_dir};
use cajetac::driver;
use cajetac::kernel::spirv::{CompiledKernel, SpirvOptions};

const NON_UNIFORM: &str = "shaderStorageBufferArrayNonUniformIndexing";

fn kernel(name: &str) -> CompiledKernel {
    let path = tests_dir().join("device").join("buffer_arrays.cajeta");
    let (_, result) = cajeta_tests::frontend(&path);
    let module = result.expect("compiles");
    driver::compile_kernels(&module, &SpirvOptions::default(), None)
        .expect("backend")
        .into_iter()
        .map(|(_, k)| k)
        .find(|k| k.name == name)
        .expect("kernel")
}

fn floats(ctx: &Context, data: &[f32]) -> cajeta_runtime::Buffer {
    let b = ctx.create_buffer(data.len() as u64 * 4).expect("buffer");
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.default_stream()
        .upload_buffer(&b, &bytes)
        .expect("upload");
    b
}

fn read(ctx: &Context, b: &cajeta_runtime::Buffer, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; n * 4];
    ctx.default_stream()
        .download_buffer(b, &mut bytes)
        .expect("download");
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig::new([grid, 1, 1], [block, 1, 1])
}

#[test]
fn gather_reflects_a_non_uniform_array() {
    let k = kernel("gather");
    let b = &k.reflection.bindings[0];
    let array = b.array.as_ref().expect("bufs is a buffer array");
    assert!(array.non_uniform, "gather indexes by a buffer's contents");
    assert_eq!(
        k.reflection.push_constants.members[array.count_member].name,
        "bufs.length"
    );
    assert!(k
        .reflection
        .vulkan_features
        .iter()
        .any(|f| f == NON_UNIFORM));
    let uniform = kernel("scaleOne");
    let array = uniform.reflection.bindings[0]
        .array
        .as_ref()
        .expect("array");
    assert!(!array.non_uniform, "scaleOne indexes by a parameter");
    let looped = kernel("sumAll");
    let array = looped.reflection.bindings[0].array.as_ref().expect("array");
    assert!(
        !array.non_uniform,
        "sumAll indexes by a uniform loop counter"
    );
    assert!(!uniform
        .reflection
        .vulkan_features
        .iter()
        .any(|f| f == NON_UNIFORM));
}

#[test]
fn non_uniform_gather_runs_or_is_refused_by_name() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let k = kernel("gather");
    let loaded = ctx.load_kernel(&k.words, &k.reflection);
    let has = ctx.device_info().features.iter().any(|f| f == NON_UNIFORM);
    if !has {
        let e = loaded.expect_err("a device without non-uniform indexing must refuse gather");
        assert!(e.to_string().contains(NON_UNIFORM), "{e}");
        return;
    }
    let kernel = loaded.expect("load gather");
    let lens = [5usize, 17, 64];
    let host: Vec<Vec<f32>> = lens
        .iter()
        .enumerate()
        .map(|(b, &n)| (0..n).map(|i| (1000 * b + i) as f32).collect())
        .collect();
    let bufs: Vec<_> = host.iter().map(|h| floats(&ctx, h)).collect();
    let n = 200usize;
    let pick: Vec<u32> = (0..n as u32).map(|t| (t * 7 + 3) % 11).collect();
    let pick_bytes: Vec<u8> = pick.iter().flat_map(|x| x.to_le_bytes()).collect();
    let dpick = ctx.create_buffer(n as u64 * 4).expect("buffer");
    let s = ctx.default_stream();
    s.upload_buffer(&dpick, &pick_bytes).expect("upload");
    let out = ctx.create_buffer(n as u64 * 4).expect("buffer");
    let args = [
        KernelArg::Buffers(&bufs),
        KernelArg::Buffer(&dpick),
        KernelArg::Buffer(&out),
        KernelArg::Scalar(ScalarValue::U32(n as u32)),
    ];
    s.launch(&kernel, &cfg(4, 64), &args).expect("launch");
    s.sync().expect("sync");
    let got = read(&ctx, &out, n);
    for t in 0..n {
        let b = pick[t] as usize % 3;
        let want = host[b][t % lens[b]] + (100 * b) as f32;
        assert_eq!(got[t], want, "thread {t} (buffer {b})");
    }
}

#[test]
fn every_buffer_of_an_array_is_tracked_and_misuse_is_refused() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let scale = kernel("scaleOne");
    let scale = ctx
        .load_kernel(&scale.words, &scale.reflection)
        .expect("load scaleOne");
    let copy = kernel("copyOut");
    let copy = ctx
        .load_kernel(&copy.words, &copy.reflection)
        .expect("load copyOut");
    let a = floats(&ctx, &[1.0; 8]);
    let b = floats(&ctx, &[5.0; 8]);
    let out = ctx.create_buffer(65 * 4).expect("buffer");
    let s = ctx.default_stream();
    let pair = [a.clone(), b.clone()];
    ctx.clear_barrier_log();
    let which = |w: u32| KernelArg::Scalar(ScalarValue::U32(w));
    s.launch(
        &scale,
        &cfg(1, 64),
        &[
            KernelArg::Buffers(&pair),
            which(1),
            KernelArg::Scalar(ScalarValue::F32(3.0)),
        ],
    )
    .expect("scale");
    // Reads `b` through another array: a read-after-write barrier on `b`.
    let only_b = [b.clone()];
    let second = s
        .launch(
            &copy,
            &cfg(1, 64),
            &[
                KernelArg::Buffers(&only_b),
                which(0),
                KernelArg::Buffer(&out),
            ],
        )
        .expect("copy");
    s.sync().expect("sync");
    let log = ctx.barrier_log();
    assert!(
        log.iter().any(|r| r.before == second
            && r.resource == b.id()
            && r.hazard == Hazard::ReadAfterWrite),
        "no read-after-write barrier on the written buffer: {log:#?}"
    );
    let got = read(&ctx, &out, 65);
    assert_eq!(got[0], 8.0, "length of b");
    // 5 * 3 + bufs.length (2).
    assert!(got[1..9].iter().all(|&x| x == 17.0), "{got:?}");
    assert_eq!(read(&ctx, &a, 8), vec![1.0; 8], "a was not selected");

    let launch = |args: &[KernelArg<'_>]| s.launch(&copy, &cfg(1, 64), args).map(|_| ());
    let e = launch(&[KernelArg::Buffers(&[]), which(0), KernelArg::Buffer(&out)])
        .expect_err("empty array");
    assert!(e.to_string().contains("empty buffer array"), "{e}");
    let e = launch(&[KernelArg::Buffer(&a), which(0), KernelArg::Buffer(&out)])
        .expect_err("a single buffer");
    assert!(e.to_string().contains("expects an array of buffers"), "{e}");
    let many: Vec<_> = (0..=BUFFER_ARRAY_CAPACITY).map(|_| a.clone()).collect();
    let e = launch(&[KernelArg::Buffers(&many), which(0), KernelArg::Buffer(&out)])
        .expect_err("too many buffers");
    assert!(e.to_string().contains("capacity"), "{e}");
}
