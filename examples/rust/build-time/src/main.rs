//! Kernels compiled at build time (`build.rs` runs `cajeta-build`) and launched through the
//! typed methods generated from their reflection: a wrong buffer element type or a scalar of
//! the wrong type is a rustc error here, not a launch error.
//!
//! Run: `cargo run -p cajeta-build-example`.

use cajetac::embed::{Device, Error};

/// The generated bindings: `EMBEDDED`, the POD struct `Affine`, and `Kernels`.
mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

use kernels::{Affine, Kernels};

/// Runs saxpy and the POD kernel on `n` elements; returns the number of wrong elements.
fn run(device: &Device, n: u32) -> Result<usize, Error> {
    let k = Kernels::load(device)?;
    let stream = device.stream();
    let hx: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let hy: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let x = device.buffer_from(&hx)?;
    let y = device.buffer_from(&hy)?;
    let a = 3.0f32;
    k.saxpy(&stream, [n.div_ceil(256), 1, 1], [256, 1, 1], &x, &y, a, n)?;
    let out = y.download(&stream)?;
    let mut wrong = (0..n as usize)
        .filter(|&i| out[i] != a * hx[i] + hy[i])
        .count();

    let p = Affine {
        scale: 2.0,
        offset: [0.0, 0.5, 0.0],
        shift: -1.0,
        negate: true,
    };
    // Only elements 10..n-10 change.
    let range = [10, n as i32 - 10];
    k.apply_affine(&stream, [n.div_ceil(64), 1, 1], [64, 1, 1], &x, &p, range)?;
    let out = x.download(&stream)?;
    wrong += (0..n as usize)
        .filter(|&i| {
            let inside = i >= 10 && i + 10 < n as usize;
            let want = if inside {
                -(hx[i] * 2.0 - 1.0 + 0.5)
            } else {
                hx[i]
            };
            out[i] != want
        })
        .count();
    Ok(wrong)
}

fn main() -> Result<(), Error> {
    let device = Kernels::device()?;
    let n = 100_003;
    let wrong = run(&device, n)?;
    println!(
        "saxpy and applyAffine on {}: {n} elements, {wrong} wrong",
        device.context().device_info().name
    );
    assert_eq!(wrong, 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernels run on the default device and every element is right. Without a device
    /// the test is skipped, except with `CI=true`, where it fails.
    #[test]
    fn typed_launches_compute_every_element() {
        let device = match Kernels::device() {
            Ok(d) => d,
            Err(Error::Runtime(cajetac::embed::rt::RuntimeError::NoDevice)) => {
                assert!(
                    std::env::var("CI").map_or(true, |v| v != "true"),
                    "CI=true but no Vulkan device"
                );
                eprintln!("skipping: no Vulkan device");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(run(&device, 1000).unwrap(), 0);
        assert_eq!(run(&device, 100_003).unwrap(), 0);
    }

    /// The embedded reflection is what the typed methods were generated from.
    #[test]
    fn the_embedded_kernels_are_both_there() {
        let program = Kernels::program().unwrap();
        assert_eq!(program.kernel_names(), vec!["saxpy", "applyAffine"]);
        assert_eq!(Affine::STD430_SIZE, 48);
        let bytes = Affine {
            scale: 1.0,
            offset: [0.0, 2.0, 0.0],
            shift: 3.0,
            negate: true,
        }
        .to_std430();
        assert_eq!(&bytes[0..4], &1.0f32.to_le_bytes());
        assert_eq!(&bytes[20..24], &2.0f32.to_le_bytes());
        assert_eq!(&bytes[28..32], &3.0f32.to_le_bytes());
        assert_eq!(&bytes[32..36], &1u32.to_le_bytes());
    }
}
