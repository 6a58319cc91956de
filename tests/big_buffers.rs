//! Buffers past the descriptor range (docs/runtime.md, "Buffers past the descriptor range"):
//! the device suite through kernels' address variants (forced, under validation), the
//! `examples/big_buffer.cajeta` program over a buffer past lavapipe's 128 MiB
//! maxStorageBufferRange on both host executors (the address variant chosen at the launch),
//! the refusal when addresses are turned off, checked mode's 64-bit bounds check, and the
//! LLVM kernel backend's refusal of address variants (E0045).

use cajeta_runtime::{BufferAddressing, Context, ContextOptions};
use cajeta_tests::{files, run_file_on, tests_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{self, HostMode, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::{AddressVariant, KernelBackend, SpirvOptions, TargetEnv};

/// A context whose launches take address variants as `mode` says (validation on or off).
fn context(mode: BufferAddressing, validation: bool) -> Option<Context> {
    let options = ContextOptions {
        validation,
        buffer_addressing: Some(mode),
        ..ContextOptions::from_env()
    };
    match Context::with_options(options) {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "CI=true but no usable Vulkan device: {e}"
            );
            None
        }
    }
}

/// [`context`] where the device can address buffers (`bufferDeviceAddress`): `None` without
/// a device or without the feature, which with `CI=true` fails instead (lavapipe and the
/// H200 have it).
fn addressed_context(mode: BufferAddressing, validation: bool) -> Option<Context> {
    let ctx = context(mode, validation)?;
    let has = ctx
        .device_info()
        .features
        .iter()
        .any(|f| f == "bufferDeviceAddress");
    assert!(
        has || std::env::var("CI").map_or(true, |v| v != "true"),
        "CI=true but the device has no bufferDeviceAddress"
    );
    has.then_some(ctx)
}

#[test]
fn device_programs_return_777_through_buffer_addresses() {
    let Some(ctx) = addressed_context(BufferAddressing::Always, true) else {
        return;
    };
    let mut failures = Vec::new();
    for p in files("device", "cajeta") {
        match run_file_on(&ctx, &p, &SpirvOptions::default()) {
            (_, Ok(v)) if v == "777" => {}
            (printed, v) => failures.push(format!("{}: {v:?}\n{printed}", p.display())),
        }
    }
    let messages = ctx.validation_messages();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(messages.is_empty(), "validation:\n{}", messages.join("\n"));
}

/// Runs examples/big_buffer.cajeta over `count` elements: what it printed and its result.
fn big_buffer(ctx: &Context, count: u64, mode: HostMode) -> (String, Result<String, String>) {
    let path = tests_dir().join("../examples/big_buffer.cajeta");
    let text = std::fs::read_to_string(&path).expect("examples/big_buffer.cajeta");
    let files = [("big_buffer.cajeta".to_string(), text)];
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let args = ["out".to_string(), count.to_string()];
    let options = SpirvOptions::default();
    let result =
        driver::run_program_mode(&mut sources, &files, &options, &args, &mut io, None, mode);
    let printed = String::from_utf8_lossy(&out).into_owned();
    let value = match result {
        Ok(HostOutcome::Returned(v)) => Ok(format!("{v}")),
        Ok(HostOutcome::Void) => Err("returned nothing".into()),
        Err(RunError::Runtime(e)) => Err(e.render(&sources)),
        Err(RunError::Compile(d)) => Err(cajetac::diagnostics::render_human(&sources, &d)),
        Err(RunError::NoEntryPoint) => Err("no entry point".into()),
        Err(RunError::NotNative(m)) => Err(m),
    };
    (printed, value)
}

#[test]
fn a_buffer_past_the_descriptor_range_is_filled_transformed_and_summed_on_both_executors() {
    let Some(ctx) = addressed_context(BufferAddressing::Auto, false) else {
        return;
    };
    let range = u64::from(ctx.device_info().limits.max_storage_buffer_range);
    // Past the range (lavapipe: 128 MiB), but within what a CI machine holds.
    let count = range / 4 + 1_000_003;
    if count * 4 > 1 << 30 {
        return;
    }
    for mode in [HostMode::Native, HostMode::Interp] {
        if mode == HostMode::Native && driver::native_support().is_err() {
            continue;
        }
        let (printed, value) = big_buffer(&ctx, count, mode);
        assert_eq!(value, Ok("0".to_string()), "{mode:?}: {printed}");
        // The program checks its samples and total itself; the total is also checked here.
        let r = count % 1024;
        let want = (count / 1024) * 1_048_576 + r * r;
        assert!(
            printed.contains(&format!("{count} elements"))
                && printed.contains(&format!("sum {want} ok")),
            "{mode:?}: {printed}"
        );
    }
    // Turned off, the same launch is refused naming the descriptor limit.
    let Some(never) = context(BufferAddressing::Never, false) else {
        return;
    };
    let (_, value) = big_buffer(&never, count, HostMode::Interp);
    let message = value.expect_err("a buffer past the range without addresses");
    assert!(
        message.contains("exceeds maxStorageBufferRange"),
        "{message}"
    );
}

#[test]
fn checked_mode_bounds_checks_64_bit_indices_through_addresses() {
    let Some(ctx) = addressed_context(BufferAddressing::Always, false) else {
        return;
    };
    let text = r#"
import cajeta.xpu.*;
public final class Wide {
    @Kernel
    public static void poke(KernelBuffer<float32> x, int64 at) {
        if (KernelThread.globalIdX() == 0) { x[at] = 1.0f; }
    }
    public static int32 run() {
        KernelBuffer<float32> x = heap KernelBuffer<float32>(100);
        poke.launch(KernelStream.current(), grid: [1], block: [64])(x, 99);
        poke.launch(KernelStream.current(), grid: [1], block: [64])(x, 4294967296 + 5);
        return 777;
    }
}
"#;
    let options = SpirvOptions {
        checked: true,
        ..SpirvOptions::default()
    };
    let (printed, value) = cajeta_tests::run_on(&ctx, "wide.cajeta", text.to_string(), &options);
    let message = value.expect_err("the second index is out of bounds");
    assert!(
        message.contains("4294967301") && message.contains("100"),
        "{message}\n{printed}"
    );
}

#[test]
fn the_llvm_backend_refuses_address_variants_with_e0045() {
    cajetac::kernel::llvm::enable();
    let text = r#"
import cajeta.xpu.*;
public final class Scale {
    @Kernel
    public static void scale(KernelBuffer<float32> x, float32 k, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { x[i] = k * x[i]; }
    }
}
"#;
    let mut sources = SourceMap::new();
    let module =
        driver::frontend(&mut sources, &[("scale.cajeta".into(), text.into())]).expect("compiles");
    let options = SpirvOptions {
        backend: KernelBackend::Llvm,
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    };
    // The descriptor module compiles through LLVM; its address variant is refused.
    let kernels = driver::compile_kernels(&module, &options, None).expect("compiles");
    let [(_, k)] = kernels.as_slice() else {
        panic!("one kernel");
    };
    match &k.by_address {
        AddressVariant::Refused(why) => {
            assert!(
                why.contains("E0045") && why.contains("buffer device addresses"),
                "{why}"
            )
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_buffer_past_max_buffer_size_is_refused_naming_the_limit() {
    let Some(ctx) = context(BufferAddressing::Auto, false) else {
        return;
    };
    let Some(max) = ctx.device_info().limits.max_buffer_size else {
        return; // before Vulkan 1.3 the device does not report it
    };
    let Err(err) = ctx.create_buffer(max + 1) else {
        panic!("a buffer past maxBufferSize was created");
    };
    let text = err.to_string();
    assert!(
        text.contains(&format!("{} bytes", max + 1))
            && text.contains(&format!("maxBufferSize = {max}")),
        "{text}"
    );
}

#[test]
fn the_embedding_api_takes_the_address_variant_past_the_descriptor_range() {
    use cajetac::embed::{args, Device, Program};
    let Some(ctx) = addressed_context(BufferAddressing::Auto, false) else {
        return;
    };
    let range = u64::from(ctx.device_info().limits.max_storage_buffer_range);
    let count = (range / 4 + 4096) as usize;
    if count > 1 << 28 {
        return;
    }
    let text = std::fs::read_to_string(tests_dir().join("../examples/big_buffer.cajeta")).unwrap();
    let program = Program::compile("big_buffer.cajeta", &text).expect("compiles");
    let device = Device::with_options(ContextOptions {
        buffer_addressing: Some(BufferAddressing::Auto),
        ..ContextOptions::from_env()
    })
    .expect("device");
    let fill = device.kernel(&program, "fill").expect("fill");
    let x = device.buffer::<f32>(count).expect("buffer past the range");
    let stream = device.stream();
    fill.launch(&stream, [64, 1, 1], [256, 1, 1], args![&x])
        .expect("launched through the address variant");
    let got = x.download(&stream).expect("download");
    assert!(got.iter().enumerate().all(|(i, &v)| v == (i % 1024) as f32));
    // With addresses off, the same launch names the descriptor limit.
    let never = Device::with_options(ContextOptions {
        buffer_addressing: Some(BufferAddressing::Never),
        ..ContextOptions::from_env()
    })
    .expect("device");
    let fill = never.kernel(&program, "fill").expect("fill");
    let x = never.buffer::<f32>(count).expect("buffer");
    let err = fill
        .launch(&never.stream(), [64, 1, 1], [256, 1, 1], args![&x])
        .expect_err("past the range without addresses");
    assert!(err.to_string().contains("maxStorageBufferRange"), "{err}");
}

/// A 64-bit index past 2^32 - 1 stays out of bounds through a descriptor with both kernel
/// backends (`tests/lavapipe/wide_index_past_u32.cajeta`): lavapipe drops the writes and reads
/// 0 where it truncated the index to 32 bits before. Out of bounds is undefined on other
/// drivers, so the program runs only where the device is lavapipe (CI's).
#[test]
fn wide_indices_past_u32_stay_out_of_bounds_on_lavapipe() {
    let Some(ctx) = context(BufferAddressing::Never, false) else {
        return;
    };
    if !ctx.device_info().name.contains("llvmpipe") {
        return;
    }
    let Some(cajetac) = cajeta_tests::cajetac_program() else {
        return;
    };
    let file = tests_dir()
        .join("lavapipe")
        .join("wide_index_past_u32.cajeta");
    for backend in ["rspirv", "llvm"] {
        let out = std::process::Command::new(&cajetac)
            .args(["run", "--backend", backend])
            .arg(&file)
            .output()
            .expect("cajetac runs");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(
            printed.trim() == "777",
            "--backend {backend}: {printed}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
