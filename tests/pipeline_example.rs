//! `examples/pipeline.cajeta`, the pipelined image-processing loop of docs/runtime.md and the
//! tutorial (issue 15): run on both host executors at a small size, under validation, it must
//! check every pixel of every frame of its serial and its pipelined run against the host and
//! say so; the timings it prints are shown, never checked (they depend on the device and the
//! load). Arguments it refuses make it return its own status. (Its default small run, which
//! prints no times, is also run by `examples.rs` and compared across executors by cajetac's
//! `native_host` suite.)

use cajeta_tests::{device_context, tests_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{self, HostMode, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::SpirvOptions;

/// Runs the example with `args` after the output folder: what it printed and what `main`
/// returned (or the rendered error).
fn run_pipeline(
    ctx: &cajeta_runtime::Context,
    args: &[&str],
    mode: HostMode,
) -> (String, Result<String, String>) {
    let path = tests_dir().join("../examples/pipeline.cajeta");
    let text = std::fs::read_to_string(&path).expect("examples/pipeline.cajeta");
    let files = [("pipeline.cajeta".to_string(), text)];
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let mut all = vec![std::env::temp_dir().display().to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    let options = SpirvOptions::default();
    let result =
        driver::run_program_mode(&mut sources, &files, &options, &all, &mut io, None, mode);
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

fn modes() -> Vec<HostMode> {
    let mut modes = vec![HostMode::Interp];
    if driver::native_support().is_ok() {
        modes.push(HostMode::Native);
    }
    modes
}

#[test]
fn the_pipelined_loop_checks_every_pixel_on_both_executors() {
    let Some(ctx) = device_context(true).or_else(|| device_context(false)) else {
        return;
    };
    // A full run (times printed) made small: 7 frames (more than the three lanes, so every
    // lane is reused and the last two steps only wait), a frame not a multiple of the 16x16
    // block, radius 3.
    let args = ["full", "unused", "7", "45", "37", "3"];
    for mode in modes() {
        let (printed, value) = run_pipeline(&ctx, &args, mode);
        eprintln!("{mode:?}:\n{printed}");
        assert_eq!(value, Ok("0".to_string()), "{mode:?}: {printed}");
        assert!(
            printed.contains(
                "pipeline 45x37, radius 3, 7 frames: every pixel of the serial and the pipelined run matches the host: OK"
            ),
            "{mode:?}: {printed}"
        );
        for line in ["serial, 1 stream:", "pipelined, 3 streams:", "speed-up"] {
            assert!(printed.contains(line), "{mode:?}: no `{line}` in {printed}");
        }
    }
    let messages = ctx.validation_messages();
    assert!(messages.is_empty(), "validation:\n{}", messages.join("\n"));
}

#[test]
fn the_pipelined_loop_refuses_an_empty_run() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let (printed, value) = run_pipeline(&ctx, &["small", "unused", "0"], HostMode::Interp);
    assert_eq!(value, Ok("4".to_string()), "{printed}");
    assert!(
        printed.contains("FRAMES, WIDTH and HEIGHT must be at least 1"),
        "{printed}"
    );
}
