//! Whole programs on the CPU device with the Vulkan loader hidden: every example (at its small
//! size) and every program of the device suite runs through `cajetac run --device cpu` with
//! `VK_DRIVER_FILES` and `VK_ICD_FILENAMES` pointing at nothing, and again on the Vulkan
//! device (lavapipe in CI). Each must either print what it prints on lavapipe and end the
//! same way (integers bit for bit, numbers with a fraction within the tolerance of
//! docs/cpu-device.md), or be refused before it runs with E0048 diagnostics only. The refused
//! programs are listed here, so a regression, and a program that starts to run, both show.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cajeta_tests::{cajetac_program, device_context, files, tests_dir};

/// The programs the CPU device refuses today, with what they need first.
const REFUSED: &[&str] = &[
    // Quad operations (the CPU device's subgroup is one invocation).
    "device/cajeta_waves.cajeta",
    "device/waves.cajeta",
    // Vectors of bfloat16 (`v.toBF16()`).
    "device/cajeta_vector_conversions.cajeta",
    // The rest: buffer arrays (two programs) and kernel printf.
    "device/buffer_array_stores.cajeta",
    "device/buffer_arrays.cajeta",
    "device/kernel_printf.cajeta",
];

/// Programs that need subgroups of more than one invocation, which the CPU device's are not:
/// they run, and their own check of the width fails with this first line (a Vulkan device
/// with one-lane subgroups would fail them the same way).
const WIDER_SUBGROUPS: &[(&str, &str)] = &[
    ("device/wave_ids.cajeta", "unexpected subgroup width 1"),
    // A shuffle from lane 1 of a one-lane subgroup.
    ("device/waves_half.cajeta", "thread 0 value 3: 0.0 != 1.0"),
];

/// Lines a program prints about the device it runs on, which differ between devices by
/// design: (program, what the line starts with).
const DEVICE_LINES: &[(&str, &str)] = &[
    ("device/device_coop_gemm.cajeta", "cooperative path"),
    ("device/device_coop_int8.cajeta", "cooperative int8"),
    ("examples/event_timer.cajeta", ""),
    // Printed on either device when a cycle counter read runs backwards (a thread moved to
    // another core).
    ("device/shader_clock.cajeta", "clock readings ran backwards"),
    ("examples/pipeline.cajeta", ""),
    // The path the GEMM took (cooperative matrices where the device has them, as NVIDIA's
    // do; scalar tiles on lavapipe and the CPU device): each prints its own, after checking
    // every element.
    ("examples/gemm_tiled.cajeta", "gemm "),
    ("examples/gemm_int8_tiled.cajeta", "gemm "),
    // The worst error of the bilinear filter, printed once every pixel is within the bound:
    // a GPU's filter weights are fixed point (8 bits on NVIDIA: 2.1e-3 where lavapipe and the
    // CPU device give 1.2e-7).
    ("examples/resize.cajeta", "resize "),
    // The worst difference from the host, printed once every channel is within one 8-bit
    // step: a GPU may round a UNORM store of `x * 255` either way (0.559 steps on an H100,
    // 0.500 on the CPU device).
    ("examples/tonemap.cajeta", "tonemap "),
    // The path the shared-memory tiles took (cooperative matrices on NVIDIA, scalar on the
    // CPU device), printed after every element was checked.
    ("device/device_coop_shared.cajeta", "cooperative path"),
];

/// Relative tolerance for numbers with a fraction (docs/cpu-device.md), at least this much
/// absolute.
const TOLERANCE: f64 = 1e-5;

/// One program: its name as listed above, the file, and its arguments.
struct Program {
    name: String,
    path: PathBuf,
    args: Vec<String>,
}

fn programs(out: &Path) -> Vec<Program> {
    let root = tests_dir().join("..");
    let mut list = Vec::new();
    for p in files("../examples", "cajeta") {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let name = format!("examples/{}", p.file_name().unwrap().to_string_lossy());
        // `main(String[] args)` takes the output folder, the size and the data folder
        // (tests/examples.rs); `run()` takes nothing.
        let args = if text.contains("main(String[] args)") {
            vec![
                out.display().to_string(),
                "small".to_string(),
                root.join("examples/data").display().to_string(),
            ]
        } else {
            Vec::new()
        };
        list.push(Program {
            name,
            path: p,
            args,
        });
    }
    for p in files("device", "cajeta") {
        let name = format!("device/{}", p.file_name().unwrap().to_string_lossy());
        list.push(Program {
            name,
            path: p,
            args: Vec::new(),
        });
    }
    list
}

/// `cajetac run` of `p`, on the CPU device with the loader hidden when `cpu`.
fn run(cajetac: &Path, p: &Program, cpu: bool) -> Output {
    let mut cmd = Command::new(cajetac);
    cmd.arg("run");
    if cpu {
        cmd.args(["--device", "cpu"])
            .env("VK_DRIVER_FILES", "/nonexistent")
            .env("VK_ICD_FILENAMES", "/nonexistent");
    }
    cmd.arg(&p.path);
    if !p.args.is_empty() {
        cmd.arg("--").args(&p.args);
    }
    cmd.output().expect("cajetac starts")
}

/// Whether two printed words agree: the same text, or two numbers with a fraction within
/// [`TOLERANCE`].
fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let trim = |w: &str| w.trim_end_matches([',', ';', ')', ':']).to_string();
    let (ta, tb) = (trim(a), trim(b));
    let float = |w: &str| w.contains(['.', 'e', 'E']);
    match (ta.parse::<f64>(), tb.parse::<f64>()) {
        (Ok(x), Ok(y)) if float(&ta) || float(&tb) => {
            (x.is_nan() && y.is_nan()) || (x - y).abs() <= TOLERANCE * x.abs().max(y.abs()).max(1.0)
        }
        _ => false,
    }
}

/// The first difference between the two outputs, or `None`.
fn compare(name: &str, cpu: &str, gpu: &str) -> Option<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (cpu.lines().collect(), gpu.lines().collect());
    if a.len() != b.len() {
        return Some(format!(
            "{} lines on cpu, {} on vulkan:\ncpu:\n{cpu}\nvulkan:\n{gpu}",
            a.len(),
            b.len()
        ));
    }
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let device_line = DEVICE_LINES
            .iter()
            .any(|(p, start)| *p == name && x.starts_with(start) && y.starts_with(start));
        let wa: Vec<&str> = x.split_whitespace().collect();
        let wb: Vec<&str> = y.split_whitespace().collect();
        let same = wa.len() == wb.len() && wa.iter().zip(&wb).all(|(p, q)| same_word(p, q));
        if !same && !device_line {
            return Some(format!("line {}: cpu `{x}`, vulkan `{y}`", i + 1));
        }
    }
    None
}

#[test]
fn printed_numbers_compare_within_the_tolerance() {
    assert!(same_word("1.0000001", "1.0"));
    assert!(!same_word("1.001", "1.0"));
    assert!(!same_word("7", "8"), "integers are compared exactly");
    assert!(same_word("NaN,", "NaN,"));
    assert!(compare("x", "a 2.0\nb", "a 2.0000001\nb").is_none());
    assert!(compare("x", "a 2\n", "a 3\n").is_some());
    assert!(compare("x", "a\n", "a\nb\n").is_some());
}

#[test]
fn programs_run_on_the_cpu_device_as_on_vulkan_or_are_refused() {
    let Some(cajetac) = cajetac_program() else {
        return;
    };
    // The comparison needs the Vulkan device's results.
    if device_context(false).is_none() {
        return;
    }
    let out = std::env::temp_dir().join(format!("cajeta-cpu-programs-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let mut refused = Vec::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for p in programs(&out) {
        let cpu = run(&cajetac, &p, true);
        let cpu_err = String::from_utf8_lossy(&cpu.stderr).into_owned();
        let errors: Vec<&str> = cpu_err.lines().filter(|l| l.starts_with("error")).collect();
        if errors.iter().any(|l| l.starts_with("error[E0048]")) {
            // A refusal is E0048 and nothing else, before the program printed anything.
            let only = errors.iter().all(|l| {
                l.starts_with("error[E0048]") || l.starts_with("error: could not compile")
            });
            if !only || !cpu.stdout.is_empty() {
                failures.push(format!(
                    "{}: refused with more than E0048:\n{cpu_err}",
                    p.name
                ));
            }
            refused.push(p.name.clone());
            continue;
        }
        if let Some((_, line)) = WIDER_SUBGROUPS.iter().find(|(n, _)| *n == p.name) {
            let out = String::from_utf8_lossy(&cpu.stdout);
            if out.lines().next() != Some(*line) {
                failures.push(format!(
                    "{}: expected `{line}` first, got:\n{out}{cpu_err}",
                    p.name
                ));
            }
            continue;
        }
        let gpu = run(&cajetac, &p, false);
        let (a, b) = (
            String::from_utf8_lossy(&cpu.stdout),
            String::from_utf8_lossy(&gpu.stdout),
        );
        if cpu.status.code() != gpu.status.code() {
            failures.push(format!(
                "{}: exit status {:?} on cpu, {:?} on vulkan\ncpu stderr:\n{cpu_err}\ncpu stdout:\n{a}",
                p.name,
                cpu.status.code(),
                gpu.status.code()
            ));
        } else if let Some(d) = compare(&p.name, &a, &b) {
            failures.push(format!("{}: {d}", p.name));
        } else {
            ran += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    println!(
        "cpu device: {ran} programs as on vulkan, {} refused (E0048): {refused:?}",
        refused.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let mut want: Vec<&str> = REFUSED.to_vec();
    want.sort();
    refused.sort();
    assert_eq!(
        refused, want,
        "the refused programs changed: update REFUSED (a program that now runs leaves it)"
    );
}

/// `cajetac` with the Vulkan loader pointed at no driver.
fn without_vulkan(cajetac: &Path) -> Command {
    let mut cmd = Command::new(cajetac);
    cmd.env("VK_DRIVER_FILES", "/nonexistent")
        .env("VK_ICD_FILENAMES", "/nonexistent")
        .env_remove("CAJETA_DEVICE");
    cmd
}

/// With no Vulkan driver, `cajetac run` says so in one line and runs on the CPU device; a
/// kernel the CPU device cannot run is then its E0048 diagnostic, naming what is missing.
#[test]
fn without_a_vulkan_driver_run_falls_back_to_the_cpu_device() {
    let Some(cajetac) = cajetac_program() else {
        return;
    };
    let saxpy = tests_dir().join("device/saxpy.cajeta");
    let out = without_vulkan(&cajetac)
        .arg("run")
        .arg(&saxpy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "777", "{err}");
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.trim(),
        "note: no Vulkan device found; running on the cpu device",
        "one line of notice"
    );
    // Storage images run there too.
    let images = tests_dir().join("device/image_queries.cajeta");
    let out = without_vulkan(&cajetac)
        .arg("run")
        .arg(&images)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "777", "{err}");
    // A kernel the cpu device cannot run is refused before the program starts.
    let rays = tests_dir().join("ray_query/trace_scene.cajeta");
    let out = without_vulkan(&cajetac)
        .arg("run")
        .arg(&rays)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "error[E0048]: the cpu device cannot run `AccelerationStructure` parameters (ray queries)"
        ),
        "{err}"
    );
    // Asking for a Vulkan device when there is none is an error naming the one choice.
    let out = without_vulkan(&cajetac)
        .args(["run", "--device", "0"])
        .arg(&saxpy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no device `0`") && err.contains("`cpu`"),
        "{err}"
    );
}

/// `--device` and `CAJETA_DEVICE` choose the device (`Device.activeBackend()` says which ran
/// the kernels); a bad value names the choices; `cajetac devices` lists `cpu` last.
#[test]
fn device_flag_and_variable_choose_the_device() {
    let Some(cajetac) = cajetac_program() else {
        return;
    };
    if device_context(false).is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("cajeta-cpu-choice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("which.cajeta");
    std::fs::write(
        &file,
        "package t;\nimport cajeta.xpu.*;\npublic final class Which {\n\
         @Kernel public static void twice(KernelBuffer<int32> x) { x[KernelThread.globalIdX()] *= 2; }\n\
         public static int32 run() {\n\
         int32[] h = heap int32[4]; h[3] = 21;\n\
         KernelBuffer<int32> b = heap KernelBuffer<int32>(4); b.upload(h);\n\
         twice.launch(KernelStream.current(), grid: [1], block: [4])(b); b.download(h);\n\
         System.out.println(Device.activeBackend() + \" \" + h[3]);\n\
         return 0; } }\n",
    )
    .unwrap();
    let run = |device: Option<&str>, env: Option<&str>| {
        let mut cmd = Command::new(&cajetac);
        cmd.arg("run").env_remove("CAJETA_DEVICE");
        if let Some(d) = device {
            cmd.args(["--device", d]);
        }
        if let Some(e) = env {
            cmd.env("CAJETA_DEVICE", e);
        }
        cmd.arg(&file).output().unwrap()
    };
    // The first line: what the program printed (the second is what `run()` returned).
    let text = |o: &Output| {
        let out = String::from_utf8_lossy(&o.stdout);
        out.lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(text(&run(Some("cpu"), None)), "cpu 42");
    assert_eq!(text(&run(None, Some("cpu"))), "cpu 42");
    assert_eq!(text(&run(Some("0"), None)), "vulkan 42");
    // The flag wins over the variable.
    assert_eq!(text(&run(Some("0"), Some("cpu"))), "vulkan 42");
    assert_eq!(text(&run(None, None)), "vulkan 42");
    for bad in [(Some("9"), None), (None, Some("no-such-gpu"))] {
        let out = run(bad.0, bad.1);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("choose one of 0 (") && err.contains("cpu (the CPU device)"),
            "{err}"
        );
    }
    let out = Command::new(&cajetac).arg("devices").output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = list.lines().collect();
    assert!(lines[0].starts_with("[0] "), "{list}");
    assert!(
        lines.last().unwrap().starts_with("[cpu] ") && lines.last().unwrap().contains("threads"),
        "{list}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
