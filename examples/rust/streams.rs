//! Two streams ordered by an event, a kernel loaded from `cajetac build` output (`.spv` +
//! reflection JSON), and the GPU-time profile.
//!
//! Run: `cargo run -p cajetac --example streams`.

use cajetac::embed::rt::{ContextOptions, Event};
use cajetac::embed::{args, Device, Error, Program};

const SOURCE: &str = r#"
package demo;
import cajeta.xpu.*;

public final class Steps {
    @Kernel
    public static void iota(KernelBuffer<uint32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = i * 3; }
    }
    @Kernel
    public static void square(KernelBuffer<uint32> src, KernelBuffer<uint32> dst, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { dst[i] = src[i] * src[i]; }
    }
}
"#;

/// Writes the program's kernels like `cajetac build` does and loads them back.
fn build_and_load(dir: &std::path::Path) -> Result<Program, Error> {
    let program = Program::compile("steps.cajeta", SOURCE)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::Io(e.to_string()))?;
    let mut pairs = Vec::new();
    for name in program.kernel_names() {
        let k = program.get(name)?;
        let spv = dir.join(format!("{name}.spv"));
        let json = dir.join(format!("{name}.json"));
        let bytes: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&spv, bytes).map_err(|e| Error::Io(e.to_string()))?;
        let text =
            serde_json::to_string_pretty(&k.reflection).map_err(|e| Error::Io(e.to_string()))?;
        std::fs::write(&json, text).map_err(|e| Error::Io(e.to_string()))?;
        pairs.push((spv, json));
    }
    Program::load_spv(&pairs)
}

/// Runs iota on one stream and square on another, ordered by an event; returns the result.
pub fn pipeline(device: &Device, n: u32) -> Result<Vec<u32>, Error> {
    let dir = std::env::temp_dir().join(format!("cajeta-example-streams-{}", std::process::id()));
    let program = build_and_load(&dir)?;
    let _ = std::fs::remove_dir_all(&dir);
    let iota = device.kernel(&program, "iota")?;
    let square = device.kernel(&program, "square")?;
    let a = device.buffer::<u32>(n as usize)?;
    let b = device.buffer::<u32>(n as usize)?;
    let first = device.context().create_stream()?;
    let second = device.context().create_stream()?;
    let grid = [n.div_ceil(64), 1, 1];
    iota.launch(&first, grid, [64, 1, 1], args![&a, n])?;
    let done = Event::create(device.context())?;
    done.record_on(&first)?;
    second.wait_event(&done)?;
    square.launch(&second, grid, [64, 1, 1], args![&a, &b, n])?;
    b.download(&second)
}

pub fn main() -> Result<(), Error> {
    let opts = ContextOptions::from_env().with_profile(true);
    let device = match Device::with_options(opts) {
        Ok(d) => d,
        Err(Error::Runtime(cajetac::embed::rt::RuntimeError::NoDevice)) => {
            eprintln!("no Vulkan device; nothing to run");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let n = 100_000u32;
    let out = pipeline(&device, n)?;
    assert!(out
        .iter()
        .enumerate()
        .all(|(i, &v)| v == (3 * i as u32).wrapping_mul(3 * i as u32)));
    println!("two streams, {n} elements: ok");
    print!("{}", device.context().profile_report().table());
    Ok(())
}
