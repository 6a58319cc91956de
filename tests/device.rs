//! Device suite: programs under `tests/device/` run on the default Vulkan device (lavapipe in
//! CI) and must return 777; the barrier log shows exactly the barriers SPEC §7 asks for; the
//! whole suite runs once more under the Khronos validation layer with synchronization
//! validation and must produce no message. With `CI=true` a missing device fails.

use cajeta_runtime::{Context, Hazard, ImageFormat, KernelArg, LaunchConfig, ScalarValue};
use cajeta_tests::{device_context, files, run_file_on, tests_dir};
use cajetac::driver;
use cajetac::kernel::spirv::{CompiledKernel, SpirvOptions};

pub(crate) fn run_file(ctx: &Context, path: &std::path::Path) -> Result<String, String> {
    let (printed, value) = run_file_on(ctx, path, &SpirvOptions::default());
    value.map_err(|e| format!("{e}\nprinted:\n{printed}"))
}

fn run_suite(ctx: &Context) {
    let programs = files("device", "cajeta");
    assert!(programs.len() >= 4, "device corpus missing");
    let mut failures = Vec::new();
    for p in &programs {
        match run_file(ctx, p) {
            Ok(v) if v == "777" => {}
            Ok(v) => failures.push(format!("{}: returned {v}, expected 777", p.display())),
            Err(e) => failures.push(format!("{}: {e}", p.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn device_programs_return_777() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    eprintln!(
        "device: {} ({})",
        ctx.device_info().name,
        ctx.device_info().driver_info
    );
    run_suite(&ctx);
}

#[test]
fn device_suite_is_clean_under_synchronization_validation() {
    let Some(ctx) = device_context(true) else {
        return;
    };
    run_suite(&ctx);
    let messages = ctx.validation_messages();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

fn kernels_of(file: &str) -> Vec<CompiledKernel> {
    let (_, result) = cajeta_tests::frontend(&tests_dir().join("device").join(file));
    let module = result.expect("compiles");
    driver::compile_kernels(&module, &SpirvOptions::default(), None)
        .expect("backend")
        .into_iter()
        .map(|(_, k)| k)
        .collect()
}

#[test]
fn barrier_log_has_exactly_the_needed_barriers() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let kernels = kernels_of("image_chain.cajeta");
    let load = |name: &str| {
        let k = kernels.iter().find(|k| k.name == name).expect("kernel");
        ctx.load_kernel(&k.words, &k.reflection).expect("load")
    };
    let (fill, rmw) = (load("fill"), load("rmw"));
    let img = ctx
        .create_image2d(16, 16, ImageFormat::R32Float)
        .expect("image");
    let s = ctx.default_stream();
    ctx.clear_barrier_log();
    let cfg = LaunchConfig {
        grid: [2, 2, 1],
        block: [8, 8, 1],
        spec: vec![],
        shared_bytes: None,
        psc: false,
    };
    let dims = [
        KernelArg::Scalar(ScalarValue::U32(16)),
        KernelArg::Scalar(ScalarValue::U32(16)),
    ];
    let first = s
        .launch(&fill, &cfg, &[KernelArg::Image(&img), dims[0], dims[1]])
        .expect("fill");
    let rmw_args = [
        KernelArg::Image(&img),
        dims[0],
        dims[1],
        KernelArg::Scalar(ScalarValue::F32(2.0)),
        KernelArg::Scalar(ScalarValue::F32(1.0)),
    ];
    let second = s.launch(&rmw, &cfg, &rmw_args).expect("rmw");
    s.sync().expect("sync");
    let log = ctx.barrier_log();
    let before = |id| log.iter().filter(|b| b.before == id).collect::<Vec<_>>();
    let b1 = before(first);
    assert_eq!(
        b1.len(),
        1,
        "one layout transition before the first use: {b1:#?}"
    );
    assert_eq!(b1[0].hazard, Hazard::LayoutTransition);
    assert_eq!(b1[0].new_layout.as_deref(), Some("GENERAL"));
    let b2 = before(second);
    assert_eq!(
        b2.len(),
        1,
        "exactly one barrier between the write and the read-modify-write: {b2:#?}"
    );
    assert_eq!(b2[0].hazard, Hazard::ReadAfterWrite);
    assert_eq!(b2[0].resource, img.id());

    // Two launches on unrelated buffers: no barrier between them.
    let saxpy = kernels_of("saxpy.cajeta");
    let k = ctx
        .load_kernel(&saxpy[0].words, &saxpy[0].reflection)
        .expect("load saxpy");
    let bufs: Vec<_> = (0..4)
        .map(|_| ctx.create_buffer(1024 * 4).expect("buffer"))
        .collect();
    ctx.clear_barrier_log();
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [256, 1, 1],
        spec: vec![],
        shared_bytes: None,
        psc: false,
    };
    let n = KernelArg::Scalar(ScalarValue::U32(1024));
    let a = KernelArg::Scalar(ScalarValue::F32(2.0));
    let l1 = s
        .launch(
            &k,
            &cfg,
            &[
                KernelArg::Buffer(&bufs[0]),
                KernelArg::Buffer(&bufs[1]),
                a,
                n,
            ],
        )
        .expect("l1");
    let l2 = s
        .launch(
            &k,
            &cfg,
            &[
                KernelArg::Buffer(&bufs[2]),
                KernelArg::Buffer(&bufs[3]),
                a,
                n,
            ],
        )
        .expect("l2");
    // A third launch that reads what the first wrote needs a barrier: the log is not just empty.
    let l3 = s
        .launch(
            &k,
            &cfg,
            &[
                KernelArg::Buffer(&bufs[1]),
                KernelArg::Buffer(&bufs[3]),
                a,
                n,
            ],
        )
        .expect("l3");
    s.sync().expect("sync");
    let log = ctx.barrier_log();
    assert!(
        log.iter().all(|b| b.before != l1 && b.before != l2),
        "no barriers between independent launches: {log:#?}"
    );
    assert!(
        log.iter()
            .any(|b| b.before == l3 && b.resource == bufs[1].id()),
        "dependent launch got its barrier: {log:#?}"
    );
}

/// `Device.name()` and the other host-side queries answer from the device the run uses: the
/// program prints them and they must equal what the runtime reports for the same context.
#[test]
fn host_device_queries_answer_from_the_running_device() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let src = r#"
import cajeta.xpu.*;
public final class Queries {
    public static int32 run() {
        System.out.println(Device.name());
        System.out.println(Device.memoryBytes());
        System.out.println(Device.waveSize());
        System.out.println(Device.sharedBytesPerBlock());
        System.out.println(Device.maxBlockSize());
        System.out.println(Device.isIntegrated());
        return 777;
    }
}
"#;
    let (printed, value) = cajeta_tests::run_on(
        &ctx,
        "queries.cajeta",
        src.to_string(),
        &SpirvOptions::default(),
    );
    assert_eq!(value.as_deref(), Ok("777"), "{printed}");
    let info = ctx.device_info();
    let integrated = matches!(
        info.device_type,
        cajeta_runtime::DeviceType::IntegratedGpu | cajeta_runtime::DeviceType::Cpu
    );
    let want = format!(
        "{}\n{}\n{}\n{}\n{}\n{}\n",
        info.name,
        ctx.device_local_heap_bytes(),
        info.subgroup_size,
        info.limits.max_compute_shared_memory_size,
        info.limits.max_compute_work_group_invocations,
        integrated
    );
    assert_eq!(printed, want);
    assert!(ctx.device_local_heap_bytes() > 0 && info.subgroup_size > 0);
}

/// An `Image2D` written by one kernel and passed to the `Texture2D` parameter of the next
/// (`tests/device/image_as_texture.cajeta`), on both host executors: the barrier log shows the
/// move from the storage layout to the sampled one waiting for the storage write and making
/// it visible to the sampling read, and the move back before the image is written again.
#[test]
fn image_written_then_sampled_is_transitioned_after_the_write() {
    use cajetac::driver::{self, HostMode};
    let Some(ctx) = device_context(false) else {
        return;
    };
    let path = tests_dir().join("device/image_as_texture.cajeta");
    let text = std::fs::read_to_string(&path).expect("program");
    let mut modes = vec![HostMode::Interp];
    if driver::native_support().is_ok() {
        modes.push(HostMode::Native);
    }
    for mode in modes {
        ctx.clear_barrier_log();
        let mut sources = cajetac::diagnostics::SourceMap::new();
        let mut out = Vec::new();
        let mut io = cajetac::host::interp::HostIo {
            stdout: &mut out,
            context: Some(ctx.clone()),
        };
        let files = [("image_as_texture.cajeta".to_string(), text.clone())];
        let result = driver::run_program_mode(
            &mut sources,
            &files,
            &SpirvOptions::default(),
            &[],
            &mut io,
            None,
            mode,
        );
        let printed = String::from_utf8_lossy(&out).into_owned();
        match result {
            Ok(cajetac::host::interp::HostOutcome::Returned(v)) => {
                assert_eq!(v.to_string(), "777", "{mode:?}: {printed}")
            }
            Ok(_) => panic!("{mode:?}: returned nothing"),
            Err(driver::RunError::Runtime(e)) => panic!("{mode:?}: {}", e.render(&sources)),
            Err(_) => panic!("{mode:?}: did not compile or run"),
        }
        let log = ctx.barrier_log();
        let layout = |r: &cajeta_runtime::BarrierRecord| {
            (
                r.old_layout.clone().unwrap_or_default(),
                r.new_layout.clone().unwrap_or_default(),
            )
        };
        let to_sampled: Vec<_> = log
            .iter()
            .filter(|r| layout(r) == ("GENERAL".into(), "SHADER_READ_ONLY_OPTIMAL".into()))
            .collect();
        // Three storage writes read as textures: RGBA32F twice, R32UI once.
        assert_eq!(to_sampled.len(), 3, "{mode:?}: {log:#?}");
        for r in &to_sampled {
            assert_eq!(r.hazard, Hazard::LayoutTransition);
            assert!(r.before_label.starts_with("launch read"), "{r:#?}");
            assert_eq!(
                (
                    r.src_stage.as_str(),
                    r.src_access.as_str(),
                    r.dst_access.as_str()
                ),
                ("COMPUTE_SHADER", "SHADER_WRITE", "SHADER_READ"),
                "{mode:?}: the sampled read must wait for the storage write: {r:#?}"
            );
        }
        // Written again after being sampled: back to GENERAL before the second `fill`.
        let back: Vec<_> = log
            .iter()
            .filter(|r| layout(r) == ("SHADER_READ_ONLY_OPTIMAL".into(), "GENERAL".into()))
            .collect();
        assert!(
            back.iter().any(|r| r.before_label == "launch fill"),
            "{mode:?}: {log:#?}"
        );
    }
}

/// Operations the rspirv backend never applies to 8- or 16-bit integers (it computes them in
/// 32 bits): NVIDIA's 580 driver got narrow forms of several wrong (docs/fuzzing.md).
const NARROW_FREE: [&str; 18] = [
    "OpConvertFToS",
    "OpConvertFToU",
    "OpIAdd",
    "OpISub",
    "OpIMul",
    "OpSNegate",
    "OpNot",
    "OpBitwiseAnd",
    "OpBitwiseOr",
    "OpBitwiseXor",
    "OpSDiv",
    "OpUDiv",
    "OpSRem",
    "OpSMod",
    "OpUMod",
    "OpShiftLeftLogical",
    "OpShiftRightLogical",
    "OpShiftRightArithmetic",
];

/// Every narrowing conversion in the rspirv backend's modules takes a value already brought
/// into the narrow type's range by a shift left and back, so that a driver which folds a
/// narrowing conversion and the widening after it into nothing still gets the value
/// (NVIDIA's 580 driver did for vector lanes: `tests/device/narrow_forms.cajeta`); and no
/// arithmetic is done in 8 or 16 bits.
#[test]
fn rspirv_narrows_only_values_in_range() {
    for file in [
        "device/narrow_forms.cajeta",
        "device/narrow_wrap.cajeta",
        "device/narrow_divide.cajeta",
    ] {
        let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
        let module = module.expect("checks");
        let kernels =
            driver::compile_kernels(&module, &SpirvOptions::default(), None).expect("compiles");
        for (name, k) in kernels {
            let text = cajetac::kernel::spirv::disassemble(&k.words);
            let mut narrow_types = std::collections::BTreeSet::new();
            let (mut narrow_values, mut shifted) = (Vec::new(), Vec::new());
            let mut narrowings = 0;
            for line in text.lines() {
                let w: Vec<&str> = line.split_whitespace().collect();
                match w.as_slice() {
                    [id, "=", "OpTypeInt", "8" | "16", _] => {
                        narrow_types.insert(id.to_string());
                    }
                    [id, "=", "OpTypeVector", lane, _] if narrow_types.contains(*lane) => {
                        narrow_types.insert(id.to_string());
                    }
                    [_, "=", op, ty, ..]
                        if NARROW_FREE.contains(op) && narrow_types.contains(*ty) =>
                    {
                        panic!("{file}:{name:?}: 8/16-bit arithmetic left: {line}\n{text}")
                    }
                    [id, "=", "OpShiftRightArithmetic" | "OpShiftRightLogical", ..] => {
                        shifted.push(id.to_string())
                    }
                    [id, "=", _, ty, ..] if narrow_types.contains(*ty) => {
                        narrow_values.push(id.to_string())
                    }
                    _ => {}
                }
                if let [_, "=", "OpSConvert" | "OpUConvert", ty, from] = w.as_slice() {
                    if narrow_types.contains(*ty) && !narrow_values.iter().any(|v| v == from) {
                        narrowings += 1;
                        assert!(
                            shifted.iter().any(|v| v == from),
                            "{file}:{name:?}: narrowing of a value not brought into range: {line}\n{text}"
                        );
                    }
                }
            }
            if file.ends_with("narrow_forms.cajeta") {
                assert!(narrowings > 10, "{file}:{name:?}: {narrowings} narrowings");
            }
        }
    }
}

/// Each kernel of the test program `file` compiled by the rspirv backend, disassembled.
fn rspirv_disassemblies(file: &str) -> Vec<(String, String)> {
    let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
    let module = module.expect("checks");
    let kernels =
        driver::compile_kernels(&module, &SpirvOptions::default(), None).expect("compiles");
    kernels
        .into_iter()
        .map(|(name, k)| {
            (
                format!("{name:?}"),
                cajetac::kernel::spirv::disassemble(&k.words),
            )
        })
        .collect()
}

#[test]
fn rspirv_converts_floats_to_64_bits_in_halves() {
    // The check itself sees the one-step form.
    let one_step = "%1 = OpTypeInt 64 0\n%2 = OpTypeFloat 32\n%5 = OpConvertFToU %1 %4\n";
    assert_eq!(cajeta_tests::float_to_64_in_one_step(one_step).len(), 1);
    let file = "device/wide_conversions.cajeta";
    for (name, text) in rspirv_disassemblies(file) {
        let found = cajeta_tests::float_to_64_in_one_step(&text);
        assert!(found.is_empty(), "{file}:{name}: {found:?}");
        assert!(
            text.contains("OpConvertFToU"),
            "{file}:{name}: no conversion"
        );
    }
}

#[test]
fn rspirv_rounds_to_float16_before_narrowing_in_registers() {
    // The check itself sees a plain narrowing.
    let plain =
        "%1 = OpTypeFloat 16\n%2 = OpTypeFloat 32\n%4 = OpLoad %2 %3\n%5 = OpFConvert %1 %4\n";
    assert_eq!(cajeta_tests::unrounded_half_narrowings(plain).len(), 1);
    let file = "device/half_rounding.cajeta";
    for (name, text) in rspirv_disassemblies(file) {
        let found = cajeta_tests::unrounded_half_narrowings(&text);
        assert!(found.is_empty(), "{file}:{name}: {found:?}");
        assert!(text.contains("OpFConvert"), "{file}:{name}: no conversion");
    }
}
