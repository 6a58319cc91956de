//! Host I/O (SPEC §9): programs under `tests/host_io/` run with a temporary folder as their
//! first argument; the files they write are checked here against values computed in Rust,
//! and their printed output against Java's formatting.

use cajeta_tests::{device_context, tests_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{self, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::SpirvOptions;
use std::path::PathBuf;

/// A fresh, empty folder for one test.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cajeta-host-io-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `tests/host_io/<file>` with `args`; returns (result or error text, stdout).
fn run(
    ctx: Option<cajeta_runtime::Context>,
    file: &str,
    args: &[String],
) -> (Result<String, String>, String) {
    run_mode(ctx, file, args, driver::HostMode::Interp)
}

/// [`run`] on the host executor `mode`.
fn run_mode(
    ctx: Option<cajeta_runtime::Context>,
    file: &str,
    args: &[String],
    mode: driver::HostMode,
) -> (Result<String, String>, String) {
    let path = tests_dir().join("host_io").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: ctx,
    };
    let result = driver::run_program_mode(
        &mut sources,
        &[(file.to_string(), text)],
        &SpirvOptions::default(),
        args,
        &mut io,
        None,
        mode,
    );
    let printed = String::from_utf8_lossy(&out).into_owned();
    let r = match result {
        Ok(HostOutcome::Returned(v)) => Ok(v.to_string()),
        Ok(HostOutcome::Void) => Err("returned nothing".to_string()),
        Err(RunError::Compile(d)) => Err(cajetac::diagnostics::render_human(&sources, &d)),
        Err(RunError::NoEntryPoint | RunError::NotNative(_)) => Err("no entry point".into()),
        Err(RunError::Runtime(e)) => Err(e.render(&sources)),
    };
    (r, printed)
}

fn read_words(path: PathBuf) -> Vec<[u8; 4]> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() % 4, 0);
    bytes
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

#[test]
fn raw_files_round_trip_and_printf_formats_like_java() {
    let dir = temp_dir("raw");
    let n = 37usize;
    let args = vec![
        dir.display().to_string(),
        n.to_string(),
        " -2.5e1f".to_string(),
    ];
    let (r, printed) = run(None, "roundtrip.cajeta", &args);
    assert_eq!(r, Ok("777".to_string()), "printed:\n{printed}");
    // The files hold exactly what the program computed, little-endian, no header.
    let scale = -25.0f32;
    let f: Vec<f32> = read_words(dir.join("f.bin"))
        .into_iter()
        .map(f32::from_le_bytes)
        .collect();
    let s: Vec<i32> = read_words(dir.join("s.bin"))
        .into_iter()
        .map(i32::from_le_bytes)
        .collect();
    let u: Vec<u32> = read_words(dir.join("u.bin"))
        .into_iter()
        .map(u32::from_le_bytes)
        .collect();
    assert_eq!((f.len(), s.len(), u.len()), (n, n, n));
    for i in 0..n {
        assert_eq!(
            f[i].to_bits(),
            (scale * i as f32 + 0.1f32).to_bits(),
            "f[{i}]"
        );
        assert_eq!(s[i], (i as i32 - 3).wrapping_mul(1000003), "s[{i}]");
        assert_eq!(u[i], (i as u32).wrapping_mul(0x9E3779B9), "u[{i}]");
    }
    // Java: String.format("[%5d|%-4x|%08.2f|%e|%s]", -3000009, 0x9e3779b9, -24.9f, -899.9f, "ok")
    assert_eq!(
        printed,
        "n=37 scale=-25.000 args=3\n[-3000009|9e3779b9|-0024.90|-8.999000e+02|ok]\n"
    );
}

#[test]
fn a_bad_number_is_a_runtime_error_with_its_position() {
    let dir = temp_dir("bad");
    for (count, scale, what) in [
        ("12x", "1", "\"12x\" is not an integer"),
        ("99999999999", "1", "out of the int32 range"),
        ("3", "1.0.0", "\"1.0.0\" is not a number"),
    ] {
        let args = vec![dir.display().to_string(), count.into(), scale.into()];
        let (r, _) = run(None, "roundtrip.cajeta", &args);
        let e = r.unwrap_err();
        let line = if scale == "1" { 8 } else { 9 };
        assert!(
            e.contains(&format!("roundtrip.cajeta:{line}:")) && e.contains(what),
            "{e}"
        );
    }
    let (r, _) = run(
        None,
        "roundtrip.cajeta",
        &[
            dir.join("missing").display().to_string(),
            "1".into(),
            "1".into(),
        ],
    );
    assert!(r.unwrap_err().contains("cannot write"));
}

#[test]
fn image_save_writes_png_and_pfm_that_read_back() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let dir = temp_dir("save");
    let (r, printed) = run(Some(ctx), "save.cajeta", &[dir.display().to_string()]);
    assert_eq!(r, Ok("777".to_string()), "printed:\n{printed}");
    let (w, h) = (23u32, 11u32);
    let value = |x: u32, y: u32| (x + y * w) as f32 / (w * h - 1) as f32 * 1.5f32 - 0.25f32;
    // PNG: 8-bit grayscale, clamped and rounded; decoded here by the image crate.
    let png = image::open(dir.join("save.png")).unwrap();
    let png = png.as_luma8().expect("an 8-bit grayscale PNG");
    assert_eq!(png.dimensions(), (w, h));
    // The device's division may differ from the host's by an ulp (Vulkan's OpFDiv bound),
    // which can move a value across a rounding boundary: the PNG must hold exactly the
    // quantized device floats (read back from the PFM below), and those floats must be close
    // to the host's.
    let device_floats = read_pfm_gray(&std::fs::read(dir.join("save.pfm")).unwrap(), w, h);
    for y in 0..h {
        for x in 0..w {
            let exact = device_floats[((h - 1 - y) * w + x) as usize];
            let want = (exact.clamp(0.0, 1.0) * 255.0).round() as u8;
            assert_eq!(
                png.get_pixel(x, y).0[0],
                want,
                "png texel ({x}, {y}) of {exact}"
            );
        }
    }
    // RGBA8 image: the PNG holds the stored UNORM codes; Vulkan picks one of the two codes
    // nearest to each value, so each byte is within one step of value * 255.
    let rgba = image::open(dir.join("rgba.png")).unwrap();
    let rgba = rgba.as_rgba8().expect("an 8-bit RGBA PNG");
    for y in 0..h {
        for x in 0..w {
            let want = [
                x as f32 / (w - 1) as f32,
                y as f32 / (h - 1) as f32,
                0.5,
                1.0,
            ];
            let got = rgba.get_pixel(x, y).0;
            for c in 0..4 {
                let d = (got[c] as f32 - want[c] * 255.0).abs();
                assert!(
                    d < 1.0,
                    "rgba texel ({x}, {y}) channel {c}: {} vs {}",
                    got[c],
                    want[c] * 255.0
                );
            }
        }
    }
    let pfm = std::fs::read(dir.join("rgba.pfm")).unwrap();
    let header = format!("PF\n{w} {h}\n-1.0\n");
    assert!(pfm.starts_with(header.as_bytes()));
    assert_eq!(
        pfm.len(),
        header.len() + (w * h * 3 * 4) as usize,
        "RGB floats, alpha dropped"
    );
    // PFM: the exact floats, bottom row first.
    let pfm = std::fs::read(dir.join("save.pfm")).unwrap();
    let header = format!("Pf\n{w} {h}\n-1.0\n");
    assert!(pfm.starts_with(header.as_bytes()));
    let data: Vec<f32> = pfm[header.len()..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(data.len(), (w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let got = data[((h - 1 - y) * w + x) as usize];
            let want = value(x, y);
            // The kernel computes the same float32 operations; division is correctly rounded
            // on lavapipe, within 2.5 ulp (Vulkan's OpFDiv bound) elsewhere.
            assert!(
                (got - want).abs() <= 4.0 * f32::EPSILON,
                "pfm texel ({x}, {y}): {got} vs {want}"
            );
        }
    }
}

#[test]
fn read_image_decodes_png_and_jpeg_to_luminance() {
    let dir = temp_dir("read");
    // An RGB PNG: luminance uses Rec. 709 weights on the stored values.
    let rgb = image::RgbImage::from_raw(3, 1, vec![255, 0, 0, 0, 255, 0, 51, 102, 204]).unwrap();
    let png = dir.join("rgb.png");
    rgb.save(&png).unwrap();
    let lum = |r: f32, g: f32, b: f32| (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0;
    let mut args = vec![png.display().to_string(), "3".into(), "1".into()];
    for (r, g, b) in [(255.0, 0.0, 0.0), (0.0, 255.0, 0.0), (51.0, 102.0, 204.0)] {
        args.push(lum(r, g, b).to_string());
    }
    // The crate rounds the weighted sum to 8 bits before widening: half a step.
    args.push((0.5f32 / 255.0 + 1e-6).to_string());
    let (r, printed) = run(None, "readimage.cajeta", &args);
    assert_eq!(r, Ok("777".to_string()), "printed:\n{printed}");

    // A flat gray JPEG decodes to the same gray within a JPEG step or two.
    let gray = image::GrayImage::from_pixel(16, 8, image::Luma([128u8]));
    let jpg = dir.join("gray.jpg");
    gray.save(&jpg).unwrap();
    let mut args = vec![jpg.display().to_string(), "16".into(), "8".into()];
    args.extend(std::iter::repeat_n((128.0f32 / 255.0).to_string(), 16 * 8));
    args.push((2.0f32 / 255.0).to_string());
    let (r, printed) = run(None, "readimage.cajeta", &args);
    assert_eq!(r, Ok("777".to_string()), "printed:\n{printed}");

    // A file that is not an image is a runtime error naming it.
    let bad = dir.join("bad.png");
    std::fs::write(&bad, b"not an image").unwrap();
    let (r, _) = run(
        None,
        "readimage.cajeta",
        &[
            bad.display().to_string(),
            "1".into(),
            "1".into(),
            "0".into(),
            "0".into(),
        ],
    );
    let e = r.unwrap_err();
    assert!(
        e.contains("bad.png") && e.contains("readimage.cajeta:"),
        "{e}"
    );
}

#[test]
fn texture_misuse_is_a_runtime_error_with_its_position() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let cases = [
        (
            "1",
            10,
            "address mode must be 0 (clamp to edge), 1 (repeat) or 2 (mirrored repeat), got 7",
        ),
        ("2", 14, "takes 32 values, the array has 8"),
        (
            "3",
            18,
            "mip level 2 does not exist: the texture has 2 level(s)",
        ),
        (
            "4",
            23,
            "holds 4 values (1 per texel) but the host array has 3",
        ),
    ];
    for (what, line, message) in cases {
        let (r, _) = run(
            Some(ctx.clone()),
            "texture_errors.cajeta",
            &[what.to_string()],
        );
        let e = r.unwrap_err();
        assert!(
            e.contains(&format!("texture_errors.cajeta:{line}:")) && e.contains(message),
            "{what}: {e}"
        );
    }
    let (r, _) = run(Some(ctx), "texture_errors.cajeta", &["0".to_string()]);
    assert_eq!(r, Ok("777".to_string()));
}

/// The floats of a grayscale PFM (`Pf`, little-endian), bottom row first.
fn read_pfm_gray(pfm: &[u8], w: u32, h: u32) -> Vec<f32> {
    let header = format!("Pf\n{w} {h}\n-1.0\n");
    assert!(pfm.starts_with(header.as_bytes()), "grayscale PFM header");
    pfm[header.len()..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn string_equality_compares_text() {
    let args = |a: &str, b: &str| [a.to_string(), b.to_string()];
    for (a, b, expect) in [
        ("full", "full", "101"),
        ("small", "full", "110"),
        ("ful", "ful", "100"),
    ] {
        let (r, printed) = run(None, "strings.cajeta", &args(a, b));
        assert_eq!(r, Ok(expect.to_string()), "{a} {b}; printed:\n{printed}");
    }
}

/// `Files.readImageRGBA` reads every channel of an RGBA and of an RGB PNG (alpha 1), and
/// `Files.writeImageRGBA` / `Files.writeImage` write 8-bit PNGs the `image` crate decodes to
/// the values computed here, on both host executors; a size that does not match the array
/// is a runtime error at the call.
#[test]
fn rgba_pngs_are_read_and_written_on_both_executors() {
    use cajetac::driver::HostMode;
    let mut modes = vec![HostMode::Interp];
    if driver::native_support().is_ok() {
        modes.push(HostMode::Native);
    }
    let (w, h) = (7u32, 5u32);
    let rgba = image::RgbaImage::from_fn(w, h, |x, y| {
        let i = (y * w + x) as u8;
        image::Rgba([
            i * 7,
            255 - i * 3,
            i.wrapping_mul(11).wrapping_add(5),
            40 + i * 5,
        ])
    });
    let rgb = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8 * 30, y as u8 * 40, 9]));
    for mode in modes {
        let dir = temp_dir(&format!("rgba-{mode:?}"));
        rgba.save(dir.join("in.png")).unwrap();
        rgb.save(dir.join("rgb.png")).unwrap();
        let args = |name: &str| vec![dir.display().to_string(), name.to_string()];
        let (r, printed) = run_mode(None, "rgba.cajeta", &args("in.png"), mode);
        assert_eq!(r, Ok("777".to_string()), "{mode:?}: {printed}");
        let out = image::open(dir.join("out.png")).unwrap();
        assert_eq!(out.color(), image::ColorType::Rgba8, "{mode:?}");
        let want: Vec<u8> = rgba
            .pixels()
            .flat_map(|p| [p[2], p[1], p[0], 255 - p[3]])
            .collect();
        assert_eq!(out.into_rgba8().into_raw(), want, "{mode:?}");
        let alpha = image::open(dir.join("alpha.png")).unwrap();
        assert_eq!(alpha.color(), image::ColorType::L8, "{mode:?}");
        let want: Vec<u8> = rgba.pixels().map(|p| p[3]).collect();
        assert_eq!(alpha.into_luma8().into_raw(), want, "{mode:?}");

        let (r, printed) = run_mode(None, "rgba.cajeta", &args("rgb.png"), mode);
        assert_eq!(r, Ok("777".to_string()), "{mode:?}: {printed}");
        let out = image::open(dir.join("out.png")).unwrap().into_rgba8();
        let want: Vec<u8> = rgb.pixels().flat_map(|p| [p[2], p[1], p[0], 0]).collect();
        assert_eq!(
            out.into_raw(),
            want,
            "{mode:?}: no alpha in the file reads as 1"
        );

        let mut bad = args("in.png");
        bad.push("bad".into());
        let (r, _) = run_mode(None, "rgba.cajeta", &bad, mode);
        let e = r.unwrap_err();
        assert!(
            e.contains("rgba.cajeta:31:")
                && e.contains("8 x 5 pixels of 4 channel(s) need 160 values, the array has 140"),
            "{mode:?}: {e}"
        );
    }
}
