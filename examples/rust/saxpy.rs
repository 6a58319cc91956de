//! Embedding cajetac from Rust: compile a Cajeta kernel at run time, launch it with typed
//! arguments, and check the result against the host.
//!
//! Run: `cargo run -p cajetac --example saxpy` (`CAJETA_VALIDATION=1` for the validation
//! layer, `CAJETA_PROFILE=1` to print GPU times).

use cajetac::embed::{args, Device, Error, Program};

const SOURCE: &str = r#"
package demo;
import cajeta.xpu.*;

public final class Demo {
    @Kernel
    public static void saxpy(KernelBuffer<float32> x, KernelBuffer<float32> y, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            y[i] = a * x[i] + y[i];
        }
    }
}
"#;

/// Compiles, runs and checks saxpy on `n` elements; returns the largest error.
pub fn saxpy(device: &Device, n: u32) -> Result<f32, Error> {
    let program = Program::compile("saxpy.cajeta", SOURCE)?;
    let kernel = device.kernel(&program, "saxpy")?;
    let hx: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let hy: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let x = device.buffer_from(&hx)?;
    let y = device.buffer_from(&hy)?;
    let stream = device.stream();
    let a = 3.0f32;
    kernel.launch(
        &stream,
        [n.div_ceil(256), 1, 1],
        [256, 1, 1],
        args![&x, &y, a, n],
    )?;
    let out = y.download(&stream)?;
    let mut worst = 0.0f32;
    for i in 0..n as usize {
        worst = worst.max((out[i] - (a * hx[i] + hy[i])).abs());
    }
    // A wrong argument is an error naming the parameter, and the device stays usable.
    let ints = device.buffer_from(&vec![0i32; n as usize])?;
    let err = kernel
        .launch(&stream, [1, 1, 1], [256, 1, 1], args![&ints, &y, a, n])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("parameter `x` expects KernelBuffer<float32>"),
        "{err}"
    );
    Ok(worst)
}

pub fn main() -> Result<(), Error> {
    let device = match Device::new() {
        Ok(d) => d,
        Err(Error::Runtime(cajetac::embed::rt::RuntimeError::NoDevice)) => {
            eprintln!("no Vulkan device; nothing to run");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let worst = saxpy(&device, 1_000_003)?;
    println!(
        "saxpy on {}: 1000003 elements, max error {worst}",
        device.context().device_info().name
    );
    if device.context().is_profiling() {
        print!("{}", device.context().profile_report().table());
    }
    assert_eq!(worst, 0.0, "a * x + y is exact for these inputs");
    Ok(())
}
