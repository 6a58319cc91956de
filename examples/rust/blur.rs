//! Textures from Rust: a kernel writes a storage image, a second kernel reads that same image
//! as a `Texture2D` through a sampler (the runtime moves it GENERAL → SHADER_READ_ONLY_OPTIMAL
//! and logs the transition), and the same blur runs on a texture uploaded from the host.
//!
//! Run: `cargo run -p cajetac --example blur`.

use cajetac::embed::rt::{AddressMode, Filter, Hazard, ImageFormat, TextureDesc};
use cajetac::embed::{args, Device, Error, Program};

const SOURCE: &str = r#"
package demo;
import cajeta.xpu.*;

public final class Blur {
    @Kernel
    public static void gradient(Image2D dst, uint32 w, uint32 h) {
        uint32 x = KernelThread.globalIdX();
        uint32 y = KernelThread.globalIdY();
        if (x < w && y < h) {
            dst.store(x, y, (float32) (x * x + 3 * y));
        }
    }

    @Kernel
    public static void blur(Texture2D src, Sampler s, KernelBuffer<float32> out, uint32 w, uint32 h) {
        uint32 x = KernelThread.globalIdX();
        uint32 y = KernelThread.globalIdY();
        if (x < w && y < h) {
            uint32 l = x == 0 ? 0 : x - 1;
            uint32 r = x + 1 == w ? x : x + 1;
            float32 v = src.fetch(l, y).x + src.fetch(x, y).x + src.fetch(r, y).x;
            float32 u = ((float32) x + 0.5f) / (float32) w;
            float32 t = ((float32) y + 0.5f) / (float32) h;
            // Sampled at the texel's centre: the texel itself, whatever the filter.
            out[y * w + x] = v / 3.0f + 0.0f * src.sample(s, u, t).x;
        }
    }
}
"#;

/// The host's blur of `img` (`w` × `h`, row-major), clamping at the edges like the kernel.
pub fn host_blur(img: &[f32], w: usize, h: usize) -> Vec<f32> {
    let mut out = vec![0.0; w * h];
    for y in 0..h {
        for x in 0..w {
            let (l, r) = (x.saturating_sub(1), (x + 1).min(w - 1));
            out[y * w + x] = (img[y * w + l] + img[y * w + x] + img[y * w + r]) / 3.0;
        }
    }
    out
}

/// Runs both paths on a `w` × `h` image; returns the largest difference from the host.
pub fn blur(device: &Device, w: u32, h: u32) -> Result<f32, Error> {
    let program = Program::compile("blur.cajeta", SOURCE)?;
    let gradient = device.kernel(&program, "gradient")?;
    let blur = device.kernel(&program, "blur")?;
    let ctx = device.context();
    let stream = device.stream();
    let sampler = ctx.create_sampler(Filter::Linear, AddressMode::ClampToEdge)?;
    let out = device.buffer::<f32>((w * h) as usize)?;
    let grid = [w.div_ceil(8), h.div_ceil(8), 1];
    let host: Vec<f32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x * x + 3 * y) as f32))
        .collect();
    let want = host_blur(&host, w as usize, h as usize);
    let worst = |got: &[f32]| {
        got.iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0.0f32, f32::max)
    };

    // 1. A storage image written by a kernel, then read as a texture.
    let img = ctx.create_image2d(w, h, ImageFormat::R32Float)?;
    ctx.clear_barrier_log();
    gradient.launch(&stream, grid, [8, 8, 1], args![&img, w, h])?;
    blur.launch(&stream, grid, [8, 8, 1], args![&img, &sampler, &out, w, h])?;
    let from_image = worst(&out.download(&stream)?);
    let moved = ctx.barrier_log().iter().any(|r| {
        r.resource == img.id()
            && r.hazard == Hazard::LayoutTransition
            && r.new_layout.as_deref() == Some("SHADER_READ_ONLY_OPTIMAL")
    });
    assert!(moved, "the image was moved to the sampled layout");

    // 2. A texture uploaded from the host.
    let tex = ctx.create_texture(TextureDesc::d2(w, h, ImageFormat::R32Float))?;
    let bytes: Vec<u8> = host.iter().flat_map(|v| v.to_le_bytes()).collect();
    stream.upload_texture(&tex, 0, None, &bytes)?;
    blur.launch(&stream, grid, [8, 8, 1], args![&tex, &sampler, &out, w, h])?;
    let from_texture = worst(&out.download(&stream)?);
    Ok(from_image.max(from_texture))
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
    let err = blur(&device, 100, 60)?;
    println!("blur of a 100x60 image, from a storage image and from a texture: max relative error {err:e}");
    assert!(err < 1e-6, "{err}");
    Ok(())
}
