//! Shared memory, atomics, waves and specialization on the device, beyond the 777 programs:
//! float atomics compiled both with the device's native float add and with the
//! compare-exchange loop give the same exact counts; the memory programs also run compiled
//! for the device's features; spec values create one pipeline per distinct combination.

use cajeta_runtime::{Context, DeviceProfile, KernelArg, LaunchConfig, ScalarValue};
use cajeta_tests::{device_context, frontend, run_file_on, spirv_val, tests_dir};
use cajetac::driver;
use cajetac::kernel::spirv::{disassemble, CompiledKernel, SpirvOptions, TargetEnv};
use cajetac::specialize::Target;

const NATIVE_ADD: &str = "shaderBufferFloat32AtomicAdd";
const NATIVE_MIN_MAX: &str = "shaderBufferFloat32AtomicMinMax";

fn kernel(file: &str, name: &str, features: &[&str]) -> CompiledKernel {
    let options = SpirvOptions {
        device_features: features.iter().map(|f| f.to_string()).collect(),
        ..SpirvOptions::default()
    };
    kernel_for(file, name, &options)
}

/// `count` compiled for a device profile whose subgroups vote and reduce (the emulated float
/// add then combines each subgroup's updates), without the native float add.
fn combining_count(profile: Option<DeviceProfile>) -> CompiledKernel {
    let mut profile = profile.unwrap_or_else(|| {
        DeviceProfile::from_json(
            &std::fs::read_to_string(tests_dir().join("profiles").join("h200.json"))
                .expect("profile"),
        )
        .expect("profile")
    });
    profile.features.retain(|f| f != NATIVE_ADD);
    let options = SpirvOptions {
        device_features: profile.features.clone(),
        target: Target {
            profile: Some(profile),
            ..Target::default()
        },
        ..SpirvOptions::default()
    };
    kernel_for("atomics.cajeta", "count", &options)
}

fn kernel_for(file: &str, name: &str, options: &SpirvOptions) -> CompiledKernel {
    let (_, result) = frontend(&tests_dir().join("device").join(file));
    let module = result.expect("compiles");
    let options = options.clone();
    driver::compile_kernels(&module, &options, Some(name))
        .expect("backend")
        .into_iter()
        .map(|(_, k)| k)
        .next()
        .expect("kernel")
}

/// Float min and max are native with `shaderBufferFloat32AtomicMinMax`, and the buffer
/// then keeps its native add too; without it the buffer is a bit view and all three loop.
#[test]
fn float_atomic_min_max_lower_natively_with_the_feature_and_keep_native_add() {
    let all = kernel("atomics.cajeta", "extremes", &[NATIVE_ADD, NATIVE_MIN_MAX]);
    let add_only = kernel("atomics.cajeta", "extremes", &[NATIVE_ADD]);
    let (a, o) = (disassemble(&all.words), disassemble(&add_only.words));
    for op in ["OpAtomicFMinEXT", "OpAtomicFMaxEXT", "OpAtomicFAddEXT"] {
        assert!(a.contains(op), "{op}:\n{a}");
        assert!(!o.contains(op), "{op}:\n{o}");
    }
    assert!(!a.contains("OpAtomicCompareExchange") && o.contains("OpAtomicCompareExchange"));
    assert!(a.contains("OpCapability AtomicFloat32MinMaxEXT"), "{a}");
    assert!(all
        .reflection
        .vulkan_features
        .iter()
        .any(|f| f == NATIVE_MIN_MAX));
    assert!(all
        .reflection
        .extensions
        .iter()
        .any(|e| e == "SPV_EXT_shader_atomic_float_min_max"));
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let options = SpirvOptions {
            target_env: env,
            device_features: vec![NATIVE_ADD.into(), NATIVE_MIN_MAX.into()],
            ..SpirvOptions::default()
        };
        let k = kernel_for("atomics.cajeta", "extremes", &options);
        spirv_val(&k.words, env, "extremes").expect("spirv-val");
    }
}

#[test]
fn float_atomic_add_lowers_natively_only_with_the_feature() {
    let native = kernel("atomics.cajeta", "count", &[NATIVE_ADD]);
    let looped = kernel("atomics.cajeta", "count", &[]);
    let (n, l) = (disassemble(&native.words), disassemble(&looped.words));
    assert!(n.contains("OpAtomicFAddEXT") && !n.contains("OpAtomicCompareExchange"));
    assert!(!l.contains("OpAtomicFAddEXT") && l.contains("OpAtomicCompareExchange"));
    assert!(native
        .reflection
        .vulkan_features
        .iter()
        .any(|f| f == NATIVE_ADD));
    assert!(native
        .reflection
        .extensions
        .iter()
        .any(|e| e == "SPV_EXT_shader_atomic_float_add"));
    assert!(looped.reflection.vulkan_features.is_empty());
    assert!(!l.contains("OpGroupNonUniformAllEqual"));
    let combined = combining_count(None);
    let c = disassemble(&combined.words);
    assert!(c.contains("OpGroupNonUniformAllEqual") && c.contains("OpGroupNonUniformElect"));
    assert!(c.contains("OpAtomicCompareExchange") && !c.contains("OpAtomicFAddEXT"));
    for (k, tag) in [
        (&native, "native"),
        (&looped, "loop"),
        (&combined, "combined"),
    ] {
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            spirv_val(&k.words, env, &format!("count_{tag}")).expect("valid");
        }
    }
}

/// Runs `count` (`n` increments of one int32, float32 and uint32 counter) and returns the
/// three counters.
fn run_count(ctx: &Context, k: &CompiledKernel, n: u32) -> (i32, f32, u32) {
    let kernel = ctx.load_kernel(&k.words, &k.reflection).expect("load");
    let bufs: Vec<_> = (0..3)
        .map(|_| ctx.create_buffer(4).expect("buffer"))
        .collect();
    let s = ctx.default_stream();
    s.upload_buffer(&bufs[0], &0i32.to_le_bytes())
        .expect("upload");
    s.upload_buffer(&bufs[1], &0f32.to_le_bytes())
        .expect("upload");
    s.upload_buffer(&bufs[2], &n.to_le_bytes()).expect("upload");
    let cfg = LaunchConfig::new([n.div_ceil(256), 1, 1], [256, 1, 1]);
    let args = [
        KernelArg::Buffer(&bufs[0]),
        KernelArg::Buffer(&bufs[1]),
        KernelArg::Buffer(&bufs[2]),
        KernelArg::Scalar(ScalarValue::U32(n)),
    ];
    s.launch(&kernel, &cfg, &args).expect("launch");
    let mut out = [[0u8; 4]; 3];
    for (b, o) in bufs.iter().zip(out.iter_mut()) {
        s.download_buffer(b, o).expect("download");
    }
    (
        i32::from_le_bytes(out[0]),
        f32::from_le_bytes(out[1]),
        u32::from_le_bytes(out[2]),
    )
}

#[test]
fn a_million_contended_increments_are_exact_on_every_path() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let info = ctx.device_info();
    let has_native = info.features.iter().any(|f| f == NATIVE_ADD);
    // The per-lane compare-exchange loop (no profile: plain Vulkan 1.1) serializes every
    // lane on one counter; 65,536 of them keep the kernel short on any GPU (a kernel that
    // spins for seconds is what lost the device next to other contexts on the H200).
    let n = 65_536;
    let looped = kernel("atomics.cajeta", "count", &[]);
    assert_eq!(run_count(&ctx, &looped, n), (n as i32, n as f32, 0));
    let m = 1_000_000;
    let profile = DeviceProfile::from_info(info);
    let combines = ["vote", "arithmetic"]
        .iter()
        .all(|op| profile.subgroup_operations.iter().any(|o| o == op));
    if combines {
        let combined = combining_count(Some(profile));
        assert_eq!(run_count(&ctx, &combined, m), (m as i32, m as f32, 0));
    } else {
        eprintln!("device subgroups lack vote or arithmetic: the combined loop is not run");
    }
    if has_native {
        let native = kernel("atomics.cajeta", "count", &[NATIVE_ADD]);
        assert_eq!(run_count(&ctx, &native, m), (m as i32, m as f32, 0));
    } else {
        eprintln!("device lacks {NATIVE_ADD}: the native add is not run");
    }
}

fn run_with(ctx: &Context, file: &str, options: &SpirvOptions) -> Result<String, String> {
    let (printed, value) = run_file_on(ctx, &tests_dir().join("device").join(file), options);
    value.map_err(|e| format!("{e}\n{printed}"))
}

#[test]
fn memory_programs_also_pass_compiled_for_the_device_features() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let options = SpirvOptions {
        device_features: ctx.device_info().features.clone(),
        ..SpirvOptions::default()
    };
    for file in ["atomics.cajeta", "shared_reduce.cajeta", "waves.cajeta"] {
        assert_eq!(run_with(&ctx, file, &options), Ok("777".into()), "{file}");
    }
}

#[test]
fn spec_values_and_shared_sizes_select_cached_pipelines() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let spec = kernel("spec_constants.cajeta", "fill", &[]);
    let k = ctx
        .load_kernel(&spec.words, &spec.reflection)
        .expect("load");
    let out = ctx.create_buffer(64 * 4).expect("buffer");
    let s = ctx.default_stream();
    let launch = |values: Vec<u32>, block: u32| {
        let cfg = LaunchConfig {
            spec: values,
            ..LaunchConfig::new([64 / block, 1, 1], [block, 1, 1])
        };
        s.launch(&k, &cfg, &[KernelArg::Buffer(&out)])
            .expect("launch");
        let mut bytes = vec![0u8; 64 * 4];
        s.download_buffer(&out, &mut bytes).expect("download");
        bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect::<Vec<f32>>()
    };
    let expect = |scale: i32, offset: f32| -> Vec<f32> {
        (0..64).map(|i| (i * scale) as f32 + offset).collect()
    };
    // `prepare` creates the pipeline a default launch of that workgroup size uses.
    k.prepare([64, 1, 1]).expect("prepare");
    assert_eq!(k.pipelines_created(), 1);
    assert_eq!(launch(vec![], 64), expect(7, 1.5));
    assert_eq!(
        k.pipelines_created(),
        1,
        "the launch reuses the prepared pipeline"
    );
    let custom = vec![3u32, 0.25f32.to_bits()];
    assert_eq!(launch(custom.clone(), 64), expect(3, 0.25));
    assert_eq!(k.pipelines_created(), 2);
    assert_eq!(launch(custom.clone(), 64), expect(3, 0.25));
    assert_eq!(
        k.pipelines_created(),
        2,
        "same spec values reuse the pipeline"
    );
    assert_eq!(launch(custom, 32), expect(3, 0.25));
    assert_eq!(k.pipelines_created(), 3);

    // Two dynamic shared sizes: two pipelines; a size the device cannot hold is refused.
    let dynamic = kernel("shared_reduce.cajeta", "dynSum", &[]);
    let ids: Vec<u32> = dynamic
        .reflection
        .spec_constants
        .iter()
        .map(|c| c.id)
        .collect();
    assert!(ids.contains(&3), "{ids:?}");
    let dk = ctx
        .load_kernel(&dynamic.words, &dynamic.reflection)
        .expect("load");
    let input = ctx.create_buffer(256 * 4).expect("buffer");
    let partial = ctx.create_buffer(8 * 4).expect("buffer");
    let ones: Vec<u8> = (0..256).flat_map(|_| 1f32.to_le_bytes()).collect();
    s.upload_buffer(&input, &ones).expect("upload");
    for block in [64u32, 128] {
        let cfg = LaunchConfig {
            shared_bytes: Some(block * 4),
            ..LaunchConfig::new([256 / block, 1, 1], [block, 1, 1])
        };
        let args = [
            KernelArg::Buffer(&input),
            KernelArg::Buffer(&partial),
            KernelArg::Scalar(ScalarValue::U32(256)),
            KernelArg::Scalar(ScalarValue::U32(block)),
        ];
        s.launch(&dk, &cfg, &args).expect("launch");
        let mut bytes = vec![0u8; 8 * 4];
        s.download_buffer(&partial, &mut bytes).expect("download");
        let first = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        assert_eq!(first, block as f32);
    }
    assert_eq!(dk.pipelines_created(), 2);
    let too_big = LaunchConfig {
        shared_bytes: Some(ctx.device_info().limits.max_compute_shared_memory_size + 4),
        ..LaunchConfig::new([1, 1, 1], [64, 1, 1])
    };
    let args = [
        KernelArg::Buffer(&input),
        KernelArg::Buffer(&partial),
        KernelArg::Scalar(ScalarValue::U32(256)),
        KernelArg::Scalar(ScalarValue::U32(64)),
    ];
    let err = s.launch(&dk, &too_big, &args).expect_err("refused");
    assert!(
        err.to_string().contains("maxComputeSharedMemorySize"),
        "{err}"
    );
}

/// `@Wave(width = N)`: a kernel requiring a subgroup size the device offers runs with it;
/// one outside the device's range (or on a device that cannot size compute subgroups) is
/// refused when loaded, naming the range.
#[test]
fn wave_width_is_honoured_or_refused_by_the_device() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let source = |w: u32| {
        format!(
            "import cajeta.xpu.*;\npublic final class W {{\n    @Kernel\n    @Wave(width = {w})\n    \
             public static void lanes(KernelBuffer<uint32> o) {{\n        \
             o[KernelThread.globalIdX()] = Wave.width();\n    }}\n}}\n"
        )
    };
    let compile = |w: u32| {
        let path =
            std::env::temp_dir().join(format!("cajeta-wave-{w}-{}.cajeta", std::process::id()));
        std::fs::write(&path, source(w)).unwrap();
        let (_, module) = frontend(&path);
        std::fs::remove_file(&path).ok();
        let module = module.expect("compiles");
        driver::compile_kernels(&module, &SpirvOptions::default(), None)
            .expect("backend")
            .remove(0)
            .1
    };
    let [lo, hi] = ctx.device_info().subgroup_size_range;
    if lo == 0 {
        let k = compile(32);
        let Err(err) = ctx.load_kernel(&k.words, &k.reflection) else {
            panic!("refused")
        };
        assert!(
            err.to_string().contains("cannot set the subgroup size"),
            "{err}"
        );
        return;
    }
    for w in [lo, hi] {
        let k = compile(w);
        assert_eq!(k.reflection.required_subgroup_size, Some(w));
        let loaded = ctx.load_kernel(&k.words, &k.reflection).expect("load");
        let out = ctx.create_buffer(256 * 4).expect("buffer");
        let s = ctx.default_stream();
        let cfg = LaunchConfig::new([4, 1, 1], [64, 1, 1]);
        s.launch(&loaded, &cfg, &[KernelArg::Buffer(&out)])
            .expect("launch");
        let mut bytes = vec![0u8; 256 * 4];
        s.download_buffer(&out, &mut bytes).expect("download");
        assert!(
            bytes
                .chunks(4)
                .all(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) == w),
            "every invocation sees a subgroup of {w}"
        );
    }
    if hi < 128 {
        let k = compile(hi * 2);
        let Err(err) = ctx.load_kernel(&k.words, &k.reflection) else {
            panic!("refused")
        };
        let text = err.to_string();
        assert!(text.contains(&format!("{lo} to {hi} wide")), "{text}");
    }
}
