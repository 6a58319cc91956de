//! Printing from kernels (`System.out.printf` in device code, lowered to
//! `NonSemantic.DebugPrintf`): `tests/device/kernel_printf.cajeta` run by `cajetac run` on
//! both host executors and through the embedding API prints exactly the lines computed here
//! (sorted: the order of threads is undefined), after the host line printed before the
//! sync and before the one printed after it. Without the validation layer the same run
//! prints no kernel line, warns once, and still computes its results.

use cajeta_runtime::{Context, ContextOptions, KernelPrintf};
use cajeta_tests::{cajetac_program, device_context, tests_dir};
use cajetac::embed::{args, Device, Program};

const THREADS: i32 = 24;

/// The lines the kernel prints, computed from the same formulas.
fn expected_lines() -> Vec<String> {
    let mut lines = vec!["kernel says 100% done".to_string()];
    for i in 0..THREADS {
        let v = i * i - 7;
        let x = i as f32 * 0.25;
        let big = (i64::from(v) * 1_000_000_000) as u64;
        lines.push(format!(
            "t={i} v={v} x={x:.2} odd={} big={big} hex={big:x}",
            i % 2
        ));
        lines.push(format!("helper t={i} half={:.3}", x * 0.5));
    }
    lines.sort();
    lines
}

/// Whether kernel printing works on the default device (`None`: no device).
fn printing() -> Option<KernelPrintf> {
    device_context(false)?;
    let ctx = Context::with_options(ContextOptions::from_env().with_kernel_printf(true)).ok()?;
    Some(ctx.kernel_printf())
}

/// `cajetac run --host <host> --backend <backend>` of the device program: (exit success,
/// stdout, stderr).
fn run_cajetac(
    (host, backend): (&str, &str),
    printf_env: Option<&str>,
) -> Option<(bool, String, String)> {
    run_program("device/kernel_printf.cajeta", (host, backend), printf_env)
}

/// [`run_cajetac`] of the program `file` (a path under `tests/`).
fn run_program(
    file: &str,
    (host, backend): (&str, &str),
    printf_env: Option<&str>,
) -> Option<(bool, String, String)> {
    let cajetac = cajetac_program()?;
    let mut cmd = std::process::Command::new(cajetac);
    cmd.args(["run", "--host", host, "--backend", backend])
        .arg(tests_dir().join(file))
        .env_remove("CAJETA_KERNEL_PRINTF")
        .env_remove("CAJETA_VALIDATION");
    if let Some(v) = printf_env {
        cmd.env("CAJETA_KERNEL_PRINTF", v);
    }
    let out = cmd.output().ok()?;
    Some((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Splits the program's output into the host lines and the kernel lines between them.
fn kernel_lines_between_syncs(stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let launched = lines.iter().position(|l| *l == "host: launched");
    let synced = lines.iter().position(|l| *l == "host: synced");
    let (Some(a), Some(b)) = (launched, synced) else {
        panic!("host lines missing from:\n{stdout}");
    };
    assert!(a < b, "host lines out of order:\n{stdout}");
    assert_eq!(lines.last(), Some(&"777"), "{stdout}");
    // Nothing from the kernel before its launch's sync or after the next host line.
    assert_eq!(a, 0, "output before the launch line:\n{stdout}");
    assert_eq!(b + 2, lines.len(), "output after the sync line:\n{stdout}");
    let mut kernel: Vec<String> = lines[a + 1..b].iter().map(|l| l.to_string()).collect();
    kernel.sort();
    kernel
}

#[test]
fn cajetac_run_prints_kernel_lines_on_both_host_executors() {
    let Some(state) = printing() else {
        return;
    };
    // Both host executors, and the kernels through LLVM's SPIR-V target too.
    for (host, backend) in [
        ("native", "rspirv"),
        ("interp", "rspirv"),
        ("native", "llvm"),
    ] {
        let Some((ok, stdout, stderr)) = run_cajetac((host, backend), None) else {
            return;
        };
        let host = format!("{host} --backend {backend}");
        assert!(ok, "--host {host} failed:\n{stdout}\n{stderr}");
        let kernel = kernel_lines_between_syncs(&stdout);
        match &state {
            KernelPrintf::Active => {
                assert_eq!(kernel, expected_lines(), "--host {host}");
                assert!(!stderr.contains("warning"), "--host {host}: {stderr}");
            }
            _ => {
                // No layer: the program runs with its printing dropped, and says so once.
                assert!(kernel.is_empty(), "--host {host}: {kernel:?}");
                assert_eq!(stderr.matches("output is dropped").count(), 1, "{stderr}");
            }
        }
    }
}

#[test]
fn printing_turned_off_drops_the_lines_and_warns_once() {
    if printing().is_none() {
        return;
    }
    let Some((ok, stdout, stderr)) = run_cajetac(("interp", "rspirv"), Some("0")) else {
        return;
    };
    assert!(ok, "{stdout}\n{stderr}");
    assert!(kernel_lines_between_syncs(&stdout).is_empty(), "{stdout}");
    assert_eq!(
        stderr.matches("warning: kernel `show` prints").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn embedding_api_hands_out_the_kernel_lines_after_the_download() {
    let Some(state) = printing() else {
        return;
    };
    let text = std::fs::read_to_string(tests_dir().join("device/kernel_printf.cajeta")).unwrap();
    let program = Program::compile("kernel_printf.cajeta", &text).expect("compiles");
    let device = Device::for_program(&program).expect("device");
    assert_eq!(device.context().kernel_printf(), state);
    let show = device.kernel(&program, "show").expect("kernel");
    let xs: Vec<f32> = (0..THREADS).map(|i| i as f32 * 0.25).collect();
    let x = device.buffer_from(&xs).expect("x");
    let out = device.buffer::<i32>(THREADS as usize).expect("out");
    let stream = device.stream();
    show.launch(
        &stream,
        [1, 1, 1],
        [32, 1, 1],
        args![&out, &x, THREADS as u32],
    )
    .expect("launch");
    let values = out.download(&stream).expect("download");
    let want: Vec<i32> = (0..THREADS).map(|i| i * i - 7).collect();
    assert_eq!(values, want);
    let mut lines = device.context().take_kernel_output();
    lines.sort();
    match state {
        KernelPrintf::Active => assert_eq!(lines, expected_lines()),
        _ => assert!(lines.is_empty(), "{lines:?}"),
    }
    // Taken once: a second call has nothing new.
    assert!(device.context().take_kernel_output().is_empty());
}

/// A download that completes a launch writes the kernel's lines before the host's next line,
/// on both host executors (`tests/kernel_printf_programs/download_order.cajeta`).
#[test]
fn a_download_writes_the_kernel_lines_before_the_next_host_line() {
    let Some(KernelPrintf::Active) = printing() else {
        return;
    };
    for host in ["native", "interp"] {
        let Some((ok, stdout, stderr)) = run_program(
            "kernel_printf_programs/download_order.cajeta",
            (host, "rspirv"),
            None,
        ) else {
            return;
        };
        assert!(ok, "--host {host}:\n{stdout}\n{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines,
            ["kernel line", "host: downloaded 1", "777"],
            "--host {host}"
        );
    }
}
