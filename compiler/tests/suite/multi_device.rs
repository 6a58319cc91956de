//! Several devices in one program and the one-rank `Comm` API, through `cajetac run` on both
//! host executors: the programs of `compiler/tests/multi_device/` run with
//! `CAJETA_DEVICES=0,0` (two logical devices on the one test GPU), and the interpreter and
//! native host code must print the same lines, which are checked here.

use std::process::Output;

use crate::cli::{assert_no_handoffs, cajetac, repo};

/// `cajetac run --host MODE` of `compiler/tests/multi_device/<file>` with `devices` as
/// `CAJETA_DEVICES`.
fn run(file: &str, mode: &str, devices: &str) -> Output {
    cajetac()
        .args(["run", "--host", mode])
        .arg(repo().join("compiler/tests/multi_device").join(file))
        .env("CAJETA_DEVICES", devices)
        .output()
        .unwrap()
}

/// Runs `file` on both host executors, checks that they agree, and returns the interpreter's
/// exit status, standard output and standard error.
fn run_both(file: &str, devices: &str) -> (Option<i32>, String, String) {
    let text = |o: &Output| {
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let interp = text(&run(file, "interp", devices));
    if cfg!(feature = "native-host") {
        let native = text(&run(file, "native", devices));
        assert_eq!(interp, native, "{file}: the host executors disagree");
    }
    interp
}

#[test]
fn a_buffer_moves_between_two_devices_and_is_computed_on_each() {
    let (code, out, err) = run_both("two_devices.cajeta", "0,0");
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "devices 2 2, current 0");
    assert_eq!(lines[1], "on device 1: 0 mismatches");
    assert_eq!(lines[2], "back on device 0: 0 mismatches, a kept true");
    assert!(lines[3].starts_with("same GPU: "), "{out}");
    // Device.count/all/current/set and copyFrom are typed calls in native code.
    if cfg!(feature = "native-host") {
        assert_no_handoffs(
            &repo().join("compiler/tests/multi_device/two_devices.cajeta"),
            &[("CAJETA_DEVICES", "0,0")],
        );
    }
}

#[test]
fn a_buffer_of_another_device_is_refused_at_the_launch() {
    let (code, _, err) = run_both("wrong_device.cajeta", "0,0");
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("wrong_device.cajeta:14:9: runtime error: launch of `inc`: parameter `a`: the buffer belongs to a different Context"),
        "{err}"
    );
    assert!(
        err.contains("note: buffers, streams and events belong to the device that was current"),
        "{err}"
    );
}

#[test]
fn setting_a_device_past_the_list_is_an_error_naming_the_count() {
    // One device listed: device 1 does not exist.
    let (code, _, err) = run_both("wrong_device.cajeta", "0");
    assert_eq!(code, Some(3));
    assert!(
        err.contains("wrong_device.cajeta:13:9: runtime error: Device.set(1): the program has 1 device(s), 0 .. 0"),
        "{err}"
    );
}

#[test]
fn comm_works_as_one_rank_without_mpirun() {
    let (code, out, err) = run_both("comm_single.cajeta", "0");
    assert_eq!(
        out,
        "rank 0 of 1, local 0, device 0\nsum 0.1 -2.5 1.0E300\ngathered 7 -3\nbuffer 3000000000000\n"
    );
    // The last line sends to itself, which one rank cannot.
    assert_eq!(code, Some(3));
    assert!(
        err.contains("comm_single.cajeta:34:9: runtime error: rank 0 cannot send to itself"),
        "{err}"
    );
    // Every `Comm` operation is a typed call in native code.
    if cfg!(feature = "native-host") {
        assert_no_handoffs(
            &repo().join("compiler/tests/multi_device/comm_single.cajeta"),
            &[("CAJETA_DEVICES", "0")],
        );
    }
}

/// The Rust embedding API: a second device (`Device::sibling`, a second logical device on the
/// test GPU), a kernel loaded and launched on each, and `DeviceBuffer::copy_from` between them.
#[test]
fn the_embedding_api_launches_on_two_devices_and_copies_between_them() {
    use cajetac::embed::{args, Device, Program};
    const SOURCE: &str = r#"
import cajeta.xpu.*;
public final class Twice {
    @Kernel
    public static void twice(KernelBuffer<int32> a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { a[i] = a[i] * 2 + 1; }
    }
}
"#;
    let program = Program::compile("twice.cajeta", SOURCE).unwrap();
    let Ok(first) = Device::for_program(&program) else {
        return; // no Vulkan device here
    };
    let second = first
        .sibling(&first.context().device_info().index.to_string())
        .unwrap();
    let n = 3000u32;
    let host: Vec<i32> = (0..n as i32).map(|i| i * 3 - 1000).collect();
    let a = first.buffer_from(&host).unwrap();
    let b = second.buffer::<i32>(n as usize).unwrap();
    let (s0, s1) = (first.stream(), second.stream());
    let k0 = first.kernel(&program, "twice").unwrap();
    let k1 = second.kernel(&program, "twice").unwrap();
    k0.launch(&s0, [n.div_ceil(256), 1, 1], [256, 1, 1], args![&a, n])
        .unwrap();
    b.copy_from(&s1, &a, &s0).unwrap();
    k1.launch(&s1, [n.div_ceil(256), 1, 1], [256, 1, 1], args![&b, n])
        .unwrap();
    let got = b.download(&s1).unwrap();
    let want: Vec<i32> = host.iter().map(|v| (v * 2 + 1) * 2 + 1).collect();
    assert_eq!(got, want);
    // A kernel of one device refuses the other's buffer.
    let e = k1
        .launch(&s1, [1, 1, 1], [256, 1, 1], args![&a, n])
        .unwrap_err();
    assert!(e.to_string().contains("different Context"), "{e}");
}
