//! The three workloads — separable blur, two-pass reduction, tiled SGEMM — each launched with
//! every variant's kernels through the same runtime context, the same resources and the same
//! launch shapes. Variants take turns inside every repetition (the order rotates), so load
//! from elsewhere on the machine hits them alike. Each variant's output is checked against
//! the first variant's bit for bit and against a host computation of sampled elements.

use cajeta_runtime::{
    Buffer, Context, Image2D, ImageFormat, Kernel, KernelArg, LaunchConfig, ScalarValue, Stream,
    TextureDesc,
};

use crate::Row;

/// One variant's kernels (by kernel name), e.g. cajetac's or glslang's.
pub struct Variant {
    /// Column label.
    pub label: String,
    /// Loaded kernels by name.
    pub kernels: std::collections::HashMap<String, Kernel>,
}

impl Variant {
    fn get(&self, name: &str) -> Result<&Kernel, String> {
        self.kernels
            .get(name)
            .ok_or_else(|| format!("variant {} has no kernel {name}", self.label))
    }
}

/// Problem sizes of one run.
pub struct Sizes {
    /// Blur image side.
    pub blur: u32,
    /// Reduction element count.
    pub reduce: u32,
    /// Workgroups of the reduction's first pass.
    pub reduce_groups: u32,
    /// SGEMM matrix side.
    pub sgemm: u32,
    /// Timed repetitions per variant.
    pub reps: usize,
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn u32a(v: u32) -> KernelArg<'static> {
    KernelArg::Scalar(ScalarValue::U32(v))
}

fn bytes_of<T: Copy>(v: &[T], to: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(|&x| to(x)).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A deterministic hash of `i` (the examples' generator), as a float in [-1, 1).
fn value(i: u32, seed: u32) -> f32 {
    let mut h = i.wrapping_mul(0x9E37_79B1).wrapping_add(seed);
    h = (h ^ (h >> 15)).wrapping_mul(0x85EB_CA77);
    h ^= h >> 13;
    (h >> 8) as f32 / 8_388_608.0 - 1.0
}

/// Runs `launch` on a fresh profile, waits, and returns GPU nanoseconds per kernel name.
fn timed(
    ctx: &Context,
    stream: &Stream,
    launch: impl FnOnce() -> Result<(), String>,
) -> Result<Vec<(String, f64)>, String> {
    ctx.clear_profile();
    launch()?;
    stream.sync().map_err(err)?;
    Ok(ctx
        .profile_report()
        .entries
        .into_iter()
        .filter(|e| e.kind == cajeta_runtime::ProfileKind::Kernel)
        .map(|e| (e.name, e.total_ns))
        .collect())
}

/// Repeats `run(variant)` `reps` times per variant, rotating the order each repetition, and
/// collects the GPU time of each kernel name in milliseconds: `[name][variant] -> samples`.
fn measure(
    ctx: &Context,
    stream: &Stream,
    variants: &[Variant],
    names: &[&str],
    reps: usize,
    mut run: impl FnMut(usize) -> Result<(), String>,
) -> Result<Vec<Vec<Vec<f64>>>, String> {
    let mut samples = vec![vec![Vec::new(); variants.len()]; names.len()];
    for rep in 0..reps {
        for j in 0..variants.len() {
            let v = (rep + j) % variants.len();
            let got = timed(ctx, stream, || run(v))?;
            for (n, name) in names.iter().enumerate() {
                let ns: f64 = got.iter().filter(|(k, _)| k == name).map(|(_, t)| t).sum();
                samples[n][v].push(ns / 1e6);
            }
        }
    }
    Ok(samples)
}

fn same_bits(label: &str, what: &str, first: &[u8], other: &[u8]) -> Result<(), String> {
    if let Some(i) =
        (0..first.len() / 4).find(|&i| first[4 * i..4 * i + 4] != other[4 * i..4 * i + 4])
    {
        return Err(format!(
            "{what}: variant {label} disagrees with cajetac's output at element {i}"
        ));
    }
    Ok(())
}

/// The separable Gaussian blur of a `size`² image (sigma 4, radius 12, as the example's full
/// run): X pass Texture2D → Image2D, Y pass Image2D → Image2D.
pub fn blur(ctx: &Context, variants: &[Variant], s: &Sizes) -> Result<Vec<Row>, String> {
    let (w, h) = (s.blur, s.blur);
    let sigma = 4.0f32;
    let r = (3.0 * sigma).ceil() as i32;
    let img: Vec<f32> = (0..w * h).map(|i| 0.5 + 0.5 * value(i, 7)).collect();
    let mut wts: Vec<f32> = (-r..=r)
        .map(|j| (-((j * j) as f32) / (2.0 * sigma * sigma)).exp())
        .collect();
    let total: f32 = wts.iter().sum();
    wts.iter_mut().for_each(|x| *x /= total);
    let stream = ctx.default_stream();
    let tex = ctx
        .create_texture(TextureDesc::d2(w, h, ImageFormat::R32Float))
        .map_err(err)?;
    stream
        .upload_texture(&tex, 0, None, &bytes_of(&img, f32::to_le_bytes))
        .map_err(err)?;
    let wt = ctx.create_buffer(4 * wts.len() as u64).map_err(err)?;
    stream
        .upload_buffer(&wt, &bytes_of(&wts, f32::to_le_bytes))
        .map_err(err)?;
    let mut imgs: Vec<(Image2D, Image2D)> = Vec::new();
    for _ in variants {
        imgs.push((
            ctx.create_image2d(w, h, ImageFormat::R32Float)
                .map_err(err)?,
            ctx.create_image2d(w, h, ImageFormat::R32Float)
                .map_err(err)?,
        ));
    }
    let cfg = LaunchConfig::new([w.div_ceil(16), h.div_ceil(16), 1], [16, 16, 1]);
    let run = |v: usize| -> Result<(), String> {
        let (tmp, out) = &imgs[v];
        let ri = KernelArg::Scalar(ScalarValue::I32(r));
        let x = variants[v].get("blurX")?;
        let y = variants[v].get("blurY")?;
        let args = [
            KernelArg::Texture(&tex),
            KernelArg::Buffer(&wt),
            KernelArg::Image(tmp),
            u32a(w),
            u32a(h),
            ri,
        ];
        stream.launch(x, &cfg, &args).map_err(err)?;
        let args = [
            KernelArg::Image(tmp),
            KernelArg::Buffer(&wt),
            KernelArg::Image(out),
            u32a(w),
            u32a(h),
            ri,
        ];
        stream.launch(y, &cfg, &args).map_err(err)?;
        Ok(())
    };
    // Warm-up (pipelines) and the output check.
    let mut first = Vec::new();
    for (v, var) in variants.iter().enumerate() {
        run(v)?;
        let mut out = vec![0u8; (4 * w * h) as usize];
        stream.download_image(&imgs[v].1, &mut out).map_err(err)?;
        if v == 0 {
            first = out;
        } else {
            same_bits(&var.label, "blur", &first, &out)?;
        }
    }
    let got = f32s(&first);
    let clampi = |i: i32, n: u32| i.clamp(0, n as i32 - 1) as u32;
    for y in (0..h).step_by((h as usize / 16).max(1)) {
        for x in (0..w).step_by((w as usize / 16).max(1)) {
            let mut acc = 0.0f32;
            for j in -r..=r {
                let sy = clampi(y as i32 + j, h);
                let mut row = 0.0f32;
                for i in -r..=r {
                    row += wts[(i + r) as usize] * img[(sy * w + clampi(x as i32 + i, w)) as usize];
                }
                acc += wts[(j + r) as usize] * row;
            }
            let d = got[(y * w + x) as usize];
            if d != acc {
                return Err(format!("blur texel ({x}, {y}): device {d}, host {acc}"));
            }
        }
    }
    let names = ["blurX", "blurY"];
    let mut t = measure(ctx, &stream, variants, &names, s.reps, run)?;
    let size = format!("{w}x{h}, r {r}");
    Ok(vec![
        Row::new("blur X (Texture2D -> Image2D)", &size, &mut t[0]),
        Row::new("blur Y (Image2D -> Image2D)", &size, &mut t[1]),
    ])
}

/// The two-pass reduction of `s.reduce` int32 values (fewer if the device's storage-buffer
/// range is smaller: lavapipe's is 128 MiB): `s.reduce_groups` workgroups of 256 threads, then
/// one workgroup over the partial sums. Both launches are timed together.
pub fn reduction(ctx: &Context, variants: &[Variant], s: &Sizes) -> Result<Vec<Row>, String> {
    let range = ctx.device_info().limits.max_storage_buffer_range;
    let (n, groups) = (s.reduce.min(range / 4), s.reduce_groups);
    let mut state = 12345u32;
    let data: Vec<i32> = (0..n)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((state >> 8) % 2001) as i32 - 1000
        })
        .collect();
    let expect = data.iter().fold(0i32, |a, &x| a.wrapping_add(x));
    let stream = ctx.default_stream();
    let input = ctx.create_buffer(4 * u64::from(n)).map_err(err)?;
    stream
        .upload_buffer(&input, &bytes_of(&data, i32::to_le_bytes))
        .map_err(err)?;
    drop(data);
    let mut bufs: Vec<(Buffer, Buffer)> = Vec::new();
    for _ in variants {
        bufs.push((
            ctx.create_buffer(4 * u64::from(groups)).map_err(err)?,
            ctx.create_buffer(4).map_err(err)?,
        ));
    }
    let run = |v: usize| -> Result<(), String> {
        let k = variants[v].get("blockSum")?;
        let (partial, total) = &bufs[v];
        let pass1 = [
            KernelArg::Buffer(&input),
            KernelArg::Buffer(partial),
            u32a(n),
        ];
        let cfg = LaunchConfig::new([groups, 1, 1], [256, 1, 1]);
        stream.launch(k, &cfg, &pass1).map_err(err)?;
        let pass2 = [
            KernelArg::Buffer(partial),
            KernelArg::Buffer(total),
            u32a(groups),
        ];
        let cfg = LaunchConfig::new([1, 1, 1], [256, 1, 1]);
        stream.launch(k, &cfg, &pass2).map_err(err)?;
        Ok(())
    };
    let mut first = Vec::new();
    for (v, var) in variants.iter().enumerate() {
        run(v)?;
        let mut partial = vec![0u8; 4 * groups as usize];
        stream
            .download_buffer(&bufs[v].0, &mut partial)
            .map_err(err)?;
        let mut total = [0u8; 4];
        stream
            .download_buffer(&bufs[v].1, &mut total)
            .map_err(err)?;
        let sum = i32::from_le_bytes(total);
        if sum != expect {
            return Err(format!(
                "reduction: variant {} sums to {sum}, host {expect}",
                var.label
            ));
        }
        if v == 0 {
            first = partial;
        } else {
            same_bits(&var.label, "reduction partial sums", &first, &partial)?;
        }
    }
    let mut t = measure(ctx, &stream, variants, &["blockSum"], s.reps, run)?;
    let size = format!("{n} int32, {groups} groups");
    Ok(vec![Row::new("reduction (both passes)", &size, &mut t[0])])
}

/// The tiled SGEMM C = A·B of `s.sgemm`² matrices, 16×16 workgroups.
pub fn sgemm(ctx: &Context, variants: &[Variant], s: &Sizes) -> Result<Vec<Row>, String> {
    let (m, n, k) = (s.sgemm, s.sgemm, s.sgemm);
    let ha: Vec<f32> = (0..m * k).map(|i| value(i, 17)).collect();
    let hb: Vec<f32> = (0..k * n).map(|i| value(i, 91)).collect();
    let stream = ctx.default_stream();
    let a = ctx.create_buffer(4 * u64::from(m * k)).map_err(err)?;
    let b = ctx.create_buffer(4 * u64::from(k * n)).map_err(err)?;
    stream
        .upload_buffer(&a, &bytes_of(&ha, f32::to_le_bytes))
        .map_err(err)?;
    stream
        .upload_buffer(&b, &bytes_of(&hb, f32::to_le_bytes))
        .map_err(err)?;
    let mut cs = Vec::new();
    for _ in variants {
        cs.push(ctx.create_buffer(4 * u64::from(m * n)).map_err(err)?);
    }
    let cfg = LaunchConfig::new([n.div_ceil(16), m.div_ceil(16), 1], [16, 16, 1]);
    let run = |v: usize| -> Result<(), String> {
        let kern = variants[v].get("sgemm")?;
        let args = [
            KernelArg::Buffer(&a),
            KernelArg::Buffer(&b),
            KernelArg::Buffer(&cs[v]),
            u32a(m),
            u32a(n),
            u32a(k),
        ];
        stream.launch(kern, &cfg, &args).map_err(err)?;
        Ok(())
    };
    let mut first = Vec::new();
    for (v, var) in variants.iter().enumerate() {
        run(v)?;
        let mut out = vec![0u8; 4 * (m * n) as usize];
        stream.download_buffer(&cs[v], &mut out).map_err(err)?;
        if v == 0 {
            first = out;
        } else {
            same_bits(&var.label, "sgemm", &first, &out)?;
        }
    }
    // Products summed in order k = 0, 1, 2, … without fused multiply-adds, as on the device.
    let got = f32s(&first);
    for r in (0..m).step_by((m as usize / 16).max(1)) {
        for j in (0..n).step_by((n as usize / 16).max(1)) {
            let mut acc = 0.0f32;
            for t in 0..k {
                acc += ha[(r * k + t) as usize] * hb[(t * n + j) as usize];
            }
            let d = got[(r * n + j) as usize];
            if d != acc {
                return Err(format!("sgemm C[{r}][{j}]: device {d}, host {acc}"));
            }
        }
    }
    let mut t = measure(ctx, &stream, variants, &["sgemm"], s.reps, run)?;
    let size = format!("{m}x{n}x{k}");
    Ok(vec![Row::new("sgemm (16x16 tiles)", &size, &mut t[0])])
}
