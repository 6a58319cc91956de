//! Texel fetches and filtered samples of CPU-device textures, by Vulkan's rules ("Texel
//! Filtering" and "Texel Coordinate Systems" of the Vulkan specification):
//!
//! - a fetch reads one texel of a level; a texel or level outside the texture reads zero with
//!   the missing channels of a one-channel format as (0, 0, 1), as `robustImageAccess2` has it;
//! - a sample clamps its LOD to the texture's levels; a nearest sampler takes the level
//!   `floor(lod + 0.5)` (one of the two roundings Vulkan allows, lavapipe's) and the texel `floor(u * size)`, a linear one blends the two levels
//!   around the LOD and, in each, the 2, 4 or 8 texels around `u * size - 0.5` with the
//!   fractions as weights (full float weights: Vulkan's minimum of 4 bits of sub-texel
//!   precision is exceeded, lavapipe's 8 bits differ by at most 1/256 of a texel step);
//! - texel coordinates outside the level wrap by the sampler's address mode (clamp to edge,
//!   repeat, mirrored repeat) after the blend's texels are chosen; a 2-D array's layer is its
//!   coordinate rounded to nearest even and clamped to the layers;
//! - a cube direction picks the face of its largest component (Vulkan's face table) and
//!   samples it clamped to its edges. A linear sample whose texels would cross a face edge
//!   needs Vulkan's seamless filtering, which this does not do: it marks the texture
//!   (`TextureData::edge_crossed`), and the launch fails saying so instead of returning a
//!   different value;
//! - integer textures are always sampled nearest (Vulkan has no linear filter for them).

use std::sync::atomic::Ordering;

use super::texture::{texel_lanes, SamplerAccess, TextureAccess, TextureData};
use crate::{ImageFormat, TextureDim};

fn is_integer(format: ImageFormat) -> bool {
    matches!(
        format,
        ImageFormat::R32Uint
            | ImageFormat::R32Sint
            | ImageFormat::Rgba32Uint
            | ImageFormat::Rgba32Sint
    )
}

/// What a texel outside the texture reads.
fn outside(format: ImageFormat) -> [u32; 4] {
    let one = if is_integer(format) {
        1
    } else {
        1.0f32.to_bits()
    };
    match format {
        ImageFormat::R32Float
        | ImageFormat::R16Float
        | ImageFormat::R8Unorm
        | ImageFormat::R32Uint
        | ImageFormat::R32Sint => [0, 0, 0, one],
        _ => [0; 4],
    }
}

/// The kernel's `fetch`.
pub(super) extern "C" fn fetch(
    tex: *const TextureAccess,
    coords: *const i32,
    lod: i32,
    out: *mut u32,
) {
    // SAFETY: the CPU target passes the `TextureAccess` of a bound texture (the first field
    // of its `TextureData`), 4 coordinates and room for 4 lanes.
    let (data, c, out) = unsafe {
        (
            &*tex.cast::<TextureData>(),
            std::slice::from_raw_parts(coords, 4),
            std::slice::from_raw_parts_mut(out, 4),
        )
    };
    let c = [c[0] as u32, c[1] as u32, c[2] as u32];
    out.copy_from_slice(&fetch_texel(data, c, lod as u32));
}

fn fetch_texel(data: &TextureData, c: [u32; 3], level: u32) -> [u32; 4] {
    let desc = &data.desc;
    if level >= desc.mip_levels {
        return outside(desc.format);
    }
    let [w, h, d] = desc.level_extent(level);
    let (xyz, layer) = match desc.dim {
        TextureDim::D1 => ([c[0], 0, 0], 0),
        TextureDim::D2 => ([c[0], c[1], 0], 0),
        TextureDim::D3 => (c, 0),
        TextureDim::D2Array | TextureDim::Cube => ([c[0], c[1], 0], c[2]),
    };
    if xyz[0] >= w || xyz[1] >= h || xyz[2] >= d || layer >= desc.layers {
        return outside(desc.format);
    }
    texel_lanes(desc.format, data.texel_bytes(level, layer, xyz))
}

/// The kernel's `sample`.
pub(super) extern "C" fn sample(
    tex: *const TextureAccess,
    sampler: *const SamplerAccess,
    coords: *const f32,
    lod: f32,
    out: *mut u32,
) {
    // SAFETY: as in `fetch`, with a bound sampler.
    let (data, s, c, out) = unsafe {
        (
            &*tex.cast::<TextureData>(),
            &*sampler,
            std::slice::from_raw_parts(coords, 4),
            std::slice::from_raw_parts_mut(out, 4),
        )
    };
    out.copy_from_slice(&sample_texel(data, s, [c[0], c[1], c[2]], lod));
}

fn sample_texel(data: &TextureData, s: &SamplerAccess, c: [f32; 3], lod: f32) -> [u32; 4] {
    let desc = &data.desc;
    let linear = s.filter == 1 && !is_integer(desc.format);
    let q = (desc.mip_levels - 1) as f32;
    let d = if lod.is_nan() { 0.0 } else { lod.clamp(0.0, q) };
    if !linear {
        // Vulkan's alternative rounding `floor(d + 0.5)` (ties up), lavapipe's choice.
        let level = (d + 0.5).floor().clamp(0.0, q) as u32;
        return sample_level(data, s, c, level, false);
    }
    let lo = d.floor();
    let delta = d - lo;
    let a = sample_level(data, s, c, lo as u32, true);
    if delta == 0.0 {
        return a;
    }
    let b = sample_level(data, s, c, (lo + 1.0).min(q) as u32, true);
    let mut r = [0u32; 4];
    for i in 0..4 {
        r[i] = lerp(f32::from_bits(a[i]), f32::from_bits(b[i]), delta).to_bits();
    }
    r
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}

/// Texel coordinate `i` of an axis of `n` texels wrapped by address mode `mode`.
fn wrap(i: i64, n: u32, mode: u32) -> u32 {
    let n = i64::from(n);
    (match mode {
        1 => i.rem_euclid(n),
        2 => {
            let m = i.rem_euclid(2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        _ => i.clamp(0, n - 1),
    }) as u32
}

/// The cube face of direction `c` and the face's (s, t) in [0, 1].
fn cube_face(c: [f32; 3]) -> (u32, f32, f32) {
    let [x, y, z] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// One level's nearest texel or linear blend at normalized coordinates `c`.
fn sample_level(
    data: &TextureData,
    s: &SamplerAccess,
    c: [f32; 3],
    level: u32,
    linear: bool,
) -> [u32; 4] {
    let desc = &data.desc;
    let [w, h, d] = desc.level_extent(level);
    // Per axis: the texel count and the normalized coordinate; the layer (face) apart.
    let (axes, layer, mode): (Vec<(u32, f32)>, u32, u32) = match desc.dim {
        TextureDim::D1 => (vec![(w, c[0])], 0, s.address),
        TextureDim::D2 => (vec![(w, c[0]), (h, c[1])], 0, s.address),
        TextureDim::D3 => (vec![(w, c[0]), (h, c[1]), (d, c[2])], 0, s.address),
        TextureDim::D2Array => {
            let l = c[2].round_ties_even().clamp(0.0, (desc.layers - 1) as f32);
            (vec![(w, c[0]), (h, c[1])], l as u32, s.address)
        }
        TextureDim::Cube => {
            let (face, fs, ft) = cube_face(c);
            (vec![(w, fs), (h, ft)], face, 0)
        }
    };
    let texel = |idx: &[u32]| {
        let xyz = [idx[0], *idx.get(1).unwrap_or(&0), *idx.get(2).unwrap_or(&0)];
        texel_lanes(desc.format, data.texel_bytes(level, layer, xyz))
    };
    if !linear {
        let idx: Vec<u32> = axes
            .iter()
            .map(|&(n, x)| wrap((x * n as f32).floor() as i64, n, mode))
            .collect();
        return texel(&idx);
    }
    // The two texels and the fraction per axis.
    let mut corners = Vec::new();
    for &(n, x) in &axes {
        let u = x * n as f32 - 0.5;
        let i0 = u.floor();
        let (a, b) = (i0 as i64, i0 as i64 + 1);
        if desc.dim == TextureDim::Cube && (a < 0 || b >= i64::from(n)) {
            data.edge_crossed.store(true, Ordering::Relaxed);
        }
        corners.push((wrap(a, n, mode), wrap(b, n, mode), u - i0));
    }
    blend(&corners, &mut Vec::new(), &texel)
}

/// The blend over the axes from `picked.len()` on: a lerp along the first remaining axis of
/// the blends of the rest (x innermost, as lavapipe blends).
fn blend(
    corners: &[(u32, u32, f32)],
    picked: &mut Vec<u32>,
    texel: &dyn Fn(&[u32]) -> [u32; 4],
) -> [u32; 4] {
    if picked.len() == corners.len() {
        let mut idx = picked.clone();
        idx.reverse();
        return texel(&idx);
    }
    // Pick the outermost axis first, so x (axis 0) is the innermost lerp.
    let (a, b, t) = corners[corners.len() - 1 - picked.len()];
    picked.push(a);
    let lo = blend(corners, picked, texel);
    picked.pop();
    picked.push(b);
    let hi = blend(corners, picked, texel);
    picked.pop();
    let mut r = [0u32; 4];
    for i in 0..4 {
        r[i] = lerp(f32::from_bits(lo[i]), f32::from_bits(hi[i]), t).to_bits();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_modes_wrap_as_vulkan_says() {
        // Clamp, repeat and mirrored repeat of -2..6 on 3 texels.
        let c: Vec<u32> = (-2..6).map(|i| wrap(i, 3, 0)).collect();
        assert_eq!(c, [0, 0, 0, 1, 2, 2, 2, 2]);
        let r: Vec<u32> = (-2..6).map(|i| wrap(i, 3, 1)).collect();
        assert_eq!(r, [1, 2, 0, 1, 2, 0, 1, 2]);
        let m: Vec<u32> = (-2..6).map(|i| wrap(i, 3, 2)).collect();
        assert_eq!(m, [1, 0, 0, 1, 2, 2, 1, 0]);
        assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, 0.5, 0.5));
        assert_eq!(cube_face([0.0, -1.0, 0.0]).0, 3);
        assert_eq!(cube_face([0.0, 0.0, -2.0]).0, 5);
    }
}
