//! `KernelBuffer<bfloat16>` element by element (`tests/device/bfloat16_buffers.cajeta`): the
//! program rounds float32 values to bfloat16 in a kernel (ties, overflow to infinity, NaNs
//! whose payload lies only in the low bits), widens them back, computes with them and stages
//! them through a `Shared<bfloat16>` array, and compares every element with bits written out
//! by hand and with the host's own conversion; then it multiplies two 16x16 bfloat16 tiles
//! read from one `KernelBuffer<bfloat16>` (as cooperative-matrix tiles where the device has
//! bfloat16 cooperative matrices, by a scalar loop elsewhere). Run by native host code and by the
//! interpreter, on the default Vulkan device (lavapipe in CI) and on the CPU device; every
//! run must return 777 and print nothing else.

use cajeta_tests::{cajetac_program, device_context, tests_dir};

/// `cajetac run --host HOST [--device DEVICE]` of the program: its stdout and stderr.
fn run(host: &str, device: Option<&str>) -> (String, String) {
    let cajetac = cajetac_program().expect("cajetac");
    let mut cmd = std::process::Command::new(&cajetac);
    cmd.args(["run", "--host", host]);
    if let Some(d) = device {
        cmd.args(["--device", d]);
    }
    let out = cmd
        .arg(tests_dir().join("device").join("bfloat16_buffers.cajeta"))
        .output()
        .expect("run cajetac");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bfloat16_buffers_round_and_widen_exactly_on_both_host_executors() {
    if cajetac_program().is_none() {
        eprintln!("skipping: no cajetac executable next to the test binary");
        return;
    }
    // The CPU device needs no Vulkan device; the default device does.
    let mut devices = vec![Some("cpu")];
    if device_context(false).is_some() {
        devices.push(None);
    }
    for device in devices {
        for host in ["native", "interp"] {
            let (stdout, stderr) = run(host, device);
            assert_eq!(
                stdout.trim(),
                "777",
                "{host} on {device:?}: stdout {stdout}\nstderr {stderr}"
            );
        }
    }
}

/// Lane stores into `KernelBuffer<Vector<bfloat16,4>>` elements with the default backend
/// (`tests/bfloat16_lanes/lane_stores.cajeta`): the module passes spirv-val and the program's
/// own check on the default device.
#[test]
fn bfloat16_vector_lanes_are_stored_as_bfloat16() {
    let Some(cajetac) = cajetac_program() else {
        return;
    };
    let file = tests_dir()
        .join("bfloat16_lanes")
        .join("lane_stores.cajeta");
    let (_, result) = cajeta_tests::frontend(&file);
    let module = result.expect("the program compiles");
    let options = cajetac::kernel::spirv::SpirvOptions::default();
    let kernels = cajetac::driver::compile_kernels(&module, &options, None)
        .unwrap_or_else(|d| panic!("rspirv: {d:?}"));
    let words = &kernels[0].1.words;
    cajeta_tests::spirv_val(words, options.target_env, "bf16-lanes").expect("spirv-val");
    if device_context(false).is_none() {
        return;
    }
    let out = std::process::Command::new(&cajetac)
        .arg("run")
        .arg(&file)
        .output()
        .expect("run cajetac");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim(),
        "777",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
