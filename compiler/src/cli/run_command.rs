//! `cajetac run`: the program compiled and its `run()` or `main()` executed on the device
//! the selector picks, by the interpreter or as native code.

use super::*;

/// `cajetac run` (SPEC §10): compiles `file`, runs its entry point with `args`, and returns
/// the entry point's status as the exit status.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    file: &Path,
    (env, backend): (&str, KernelBackend),
    args: &[String],
    report: Report,
    (profile, checked): (bool, bool),
    precision: &PrecisionFlags,
    host: driver::HostMode,
    device: Option<&str>,
) -> ExitCode {
    let env = match target_env(env, report) {
        Ok(e) => e,
        Err(c) => return c,
    };
    let inputs = match read_files(&[file.to_path_buf()], report) {
        Ok(i) => i,
        Err(c) => return c,
    };
    let mut sources = SourceMap::new();
    let mut stdout = std::io::stdout();
    // Kernels are compiled for the device they will run on, so that optional features it
    // has (native float atomic add, …) are used. Without a device the host code still
    // runs; a launch then reports why there is no GPU.
    // The features come from the device's profile (no device is created for that); the
    // context is then created with exactly the features the compiled kernels use.
    if let Some(parts) = llvm() {
        // The CPU device's kernel target (registered with the LLVM kernel backend).
        (parts.enable_kernel_backend)();
    }
    let choice = match device_choice::choose(device, driver::cpu_device_available()) {
        Ok(c) => c,
        Err(why) => return report.fail(Kind::Usage, why),
    };
    let (device_profile, selector, run_device) = match choice {
        device_choice::Choice::Vulkan { profile, selector } => {
            (profile.map(|p| *p), selector, driver::RunDevice::Vulkan)
        }
        device_choice::Choice::Cpu { fallback } => {
            if fallback {
                report.say(
                    Kind::Runtime,
                    Level::Note,
                    "no Vulkan device found; running on the cpu device",
                );
            }
            // Kernels are specialized for the CPU device's profile (its subgroup of one,
            // no optional Vulkan features).
            let cpu = cajeta_runtime::cpu::CpuDevice::new().profile();
            (Some(cpu), None, driver::RunDevice::Cpu)
        }
    };
    let device_features = device_profile
        .as_ref()
        .map(|p| p.features.clone())
        .unwrap_or_default();
    let mut io = HostIo {
        stdout: &mut stdout,
        context: None,
    };
    let variant = precision.resolve(&device_features, report);
    let mut opts = cajeta_runtime::ContextOptions::from_env().with_profile(profile);
    if selector.is_some() {
        opts.device = selector;
    }
    opts.checked |= checked;
    let options = SpirvOptions {
        backend,
        target_env: env,
        device_features,
        target: cajetac::specialize::Target {
            precision: variant,
            profile: device_profile,
        },
        checked: opts.checked,
        buffer_address: false,
    };
    opts.precision = precision.options();
    let result = driver::run_program_entry_with(
        &mut sources,
        &inputs,
        (&options, args),
        &mut io,
        Some(opts),
        (host, run_device),
        (
            llvm().map(|p| p.native),
            &mut |sources: &SourceMap, warnings: &[cajetac::diagnostics::Diagnostic]| {
                report.warnings(sources, warnings)
            },
        ),
    );
    if let Some(ctx) = io.context.as_ref().filter(|_| profile) {
        if ctx.is_profiling() {
            eprint!("{}", ctx.profile_report().table());
        } else {
            report.say(
                Kind::Runtime,
                Level::Note,
                "the device's compute queue has no timestamps; no profile",
            );
        }
    }
    match result {
        // `main` returning an integer: the exit status, as in C (its low 8 bits) and Java's
        // `System.exit`; nothing is printed.
        Ok((HostOutcome::Returned(Value::Scalar(s)), entry)) if entry == "main" => {
            match s.as_int() {
                Some(status) => ExitCode::from(status as u8),
                None => {
                    out!("{s}");
                    ExitCode::SUCCESS
                }
            }
        }
        Ok((HostOutcome::Returned(v), _)) => {
            out!("{v}");
            ExitCode::SUCCESS
        }
        Ok((HostOutcome::Void, _)) => ExitCode::SUCCESS,
        Err(RunError::Compile(d)) => report.compile(&sources, &d),
        Err(RunError::NoEntryPoint) => report.fail(Kind::Compile, format!("`{}` has no entry point: declare `public static int32 run()` or `public static void main()`", file.display())),
        Err(RunError::Runtime(e)) => report.runtime(&sources, &e),
        Err(RunError::NotNative(why)) => report.fail(Kind::Compile, format!("--host native: {why}")),
    }
}
