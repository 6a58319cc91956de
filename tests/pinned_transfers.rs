//! Host arrays pinned for direct transfers (docs/runtime.md, "Transfers"): with a 64 KiB pin
//! threshold, `tests/device/pinned_transfers.cajeta` pins its arrays from their second
//! transfer on; run by native host code and by the interpreter, every element compared, and
//! the pins reported where the device can import host memory (lavapipe can); with pinning
//! off the same program gives the same answer through staging.

use cajeta_tests::{cajetac_program, tests_dir};

fn run(host: &str, pin: &str) -> (String, String) {
    run_with(host, pin, &[])
}

/// [`run`] with more environment (`env` after the pinning variables).
fn run_with(host: &str, pin: &str, env: &[(&str, &str)]) -> (String, String) {
    let cajetac = cajetac_program().expect("cajetac");
    let out = std::process::Command::new(&cajetac)
        .args(["run", "--host", host])
        .arg(tests_dir().join("device").join("pinned_transfers.cajeta"))
        .env("CAJETA_PIN_MIN_KIB", "64")
        .env("CAJETA_PIN_HOST", pin)
        .env("CAJETA_PIN_HOST_LOG", "1")
        .env("CAJETA_NO_HOST_VISIBLE", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run cajetac");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pinned_transfers_are_exact_on_both_host_executors() {
    if cajetac_program().is_none() {
        eprintln!("skipping: no cajetac executable next to the test binary");
        return;
    }
    for host in ["native", "interp"] {
        let (stdout, stderr) = run(host, "1");
        assert_eq!(
            stdout.trim(),
            "777",
            "{host}: stdout {stdout}\nstderr {stderr}"
        );
        let pins = stderr.matches("pinned a host array").count();
        // a and b (5 rounds), then c and e in each of 3 rounds: every array pinned at its
        // second transfer, where the device can import host memory.
        if pins == 0 {
            let device = std::process::Command::new(cajetac_program().unwrap())
                .args(["devices"])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            assert!(
                !device.contains("llvmpipe"),
                "{host}: lavapipe can pin host memory, but nothing was pinned:\n{stderr}"
            );
        } else {
            assert_eq!(pins, 8, "{host}: {stderr}");
        }
        let (stdout, stderr) = run(host, "0");
        assert_eq!(
            stdout.trim(),
            "777",
            "{host}, pinning off: {stdout}\n{stderr}"
        );
        assert!(!stderr.contains("pinned a host array"), "{host}: {stderr}");
    }
}

/// The same program with its arrays in driver-allocated host memory (`cajetac`'s global
/// allocator, threshold lowered to 64 KiB) and transfers of more than 64 KiB taking the
/// one-copy path into and out of that memory: every element still compared.
#[test]
fn driver_allocated_host_arrays_are_exact_on_both_host_executors() {
    if cajetac_program().is_none() {
        eprintln!("skipping: no cajetac executable next to the test binary");
        return;
    }
    let env = [
        ("CAJETA_HOST_ALLOC_MIN_KIB", "64"),
        ("CAJETA_TRANSFER_CHUNK_KIB", "64"),
    ];
    for host in ["native", "interp"] {
        for pin in ["1", "0"] {
            let (stdout, stderr) = run_with(host, pin, &env);
            assert_eq!(
                stdout.trim(),
                "777",
                "{host}, pinning {pin}: {stdout}\n{stderr}"
            );
        }
    }
}
