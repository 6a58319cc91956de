//! Transfer bandwidth against the bus: the runtime's `upload_buffer` + `sync` and
//! `download_buffer` of a host array (wall time, as a program sees them) at 4 KiB, 1 MiB,
//! 256 MiB and 1 GiB, against the best the link can do: a raw `vkCmdCopyBuffer` between an
//! already-filled pinned host-visible buffer and device-local memory, timed on the GPU with
//! timestamps (no host copy, no submission cost).

use std::time::Instant;

use ash::vk;
use cajeta_runtime::Context;

use crate::baseline::Baseline;
use crate::{median, Row};

/// The sizes measured and the samples taken of each (after one warm-up).
fn plan(quick: bool) -> Vec<(u64, usize)> {
    if quick {
        vec![(4 << 10, 51), (1 << 20, 21), (32 << 20, 3)]
    } else {
        vec![(4 << 10, 201), (1 << 20, 51), (256 << 20, 9), (1 << 30, 5)]
    }
}

/// `4 KiB`, `1 MiB`, `1 GiB`.
fn size_name(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}

/// Runs the transfer rows; prints one line per size and direction as it goes.
pub fn run(ctx: &Context, base: &Baseline, quick: bool) -> Result<Vec<Row>, String> {
    let e = |x: cajeta_runtime::RuntimeError| x.to_string();
    let mut rows = Vec::new();
    for (bytes, reps) in plan(quick) {
        let len = bytes as usize;
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let mut back = vec![0u8; len];
        let (mut up, mut down) = (Vec::new(), Vec::new());
        {
            let buf = ctx.create_buffer(bytes).map_err(e)?;
            let s = ctx.default_stream();
            for rep in 0..=reps {
                let t = Instant::now();
                s.upload_buffer(&buf, &data).map_err(e)?;
                s.sync().map_err(e)?;
                let u = t.elapsed().as_secs_f64();
                let t = Instant::now();
                s.download_buffer(&buf, &mut back).map_err(e)?;
                let d = t.elapsed().as_secs_f64();
                if rep > 0 {
                    up.push(u);
                    down.push(d);
                }
                if back != data {
                    return Err(format!(
                        "runtime round trip of {} corrupted the data",
                        size_name(bytes)
                    ));
                }
                back.fill(0);
            }
        }
        let pinned = if bytes >= 32 << 20 {
            pinned_rates(ctx, bytes, reps, &data, &mut back)?
        } else {
            None
        };
        let (bus_up, bus_down) = bus(base, bytes, reps, &data)?;
        let name = size_name(bytes);
        if bytes >= 32 << 20 {
            // The same pinned transfers between arrays backed by 2 MiB pages (transparent
            // huge pages asked for with madvise before the first touch): whether the page
            // size of the imported memory bounds the device's copies.
            let mut huge_data = huge_page_vec(len);
            huge_data.copy_from_slice(&data);
            let mut huge_back = huge_page_vec(len);
            if let Some((mut pu, mut pd, pin_ms)) =
                pinned_rates(ctx, bytes, reps, &huge_data, &mut huge_back)?
            {
                for (dir, ours) in [("upload", &mut pu), ("download", &mut pd)] {
                    let rate = bytes as f64 / median(ours) / 1e9;
                    println!(
                        "transfer {dir} {name} pinned, 2 MiB pages: cajeta {rate:.2} GB/s \
                         (median of {reps}; pinning took {pin_ms:.1} ms)"
                    );
                }
            }
        }
        if bytes >= 32 << 20 {
            if let Some((mut du, mut dd)) = driver_memory_rates(ctx, bytes, reps, &data)? {
                for (dir, ours, bus) in [
                    ("upload", &mut du, &bus_up),
                    ("download", &mut dd, &bus_down),
                ] {
                    let label = format!("{dir} {name} (driver-allocated host array, vs bus)");
                    let row = rate_row(&label, bytes, ours, bus);
                    println!(
                        "transfer {dir} {name} driver-allocated host memory: cajeta {:.2} GB/s \
                         (median of {reps}), bus {:.2} GB/s, {:.0}% of the bus",
                        row.ours,
                        row.baseline,
                        100.0 * row.ours / row.baseline
                    );
                    rows.push(row);
                }
            }
        }
        if let Some((mut pu, mut pd, pin_ms)) = pinned {
            for (dir, ours, bus) in [
                ("upload", &mut pu, &bus_up),
                ("download", &mut pd, &bus_down),
            ] {
                let label = format!("{dir} {name} (pinned host array, vs bus)");
                let row = rate_row(&label, bytes, ours, bus);
                println!(
                    "transfer {dir} {name} pinned: cajeta {:.2} GB/s (median of {reps}; pinning \
                     the array took {pin_ms:.1} ms), bus {:.2} GB/s, {:.0}% of the bus",
                    row.ours,
                    row.baseline,
                    100.0 * row.ours / row.baseline
                );
                rows.push(row);
            }
        }
        for (dir, ours, bus) in [
            ("upload", &mut up, bus_up),
            ("download", &mut down, bus_down),
        ] {
            let t_ours = median(ours) * 1e6;
            let label = format!("{dir} {name} (host array, vs bus: GPU-timed raw copy)");
            let row = rate_row(&label, bytes, ours, &bus);
            println!(
                "transfer {dir} {name}: cajeta {:.2} GB/s ({t_ours:.1} us, median of {reps}), \
                 bus {:.2} GB/s, {:.0}% of the bus",
                row.ours,
                row.baseline,
                100.0 * row.ours / row.baseline
            );
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The row of `label`: `bytes` moved in each of `seconds` (ours) against each of `bus_ns`
/// (the raw copy), as GB/s.
fn rate_row(label: &str, bytes: u64, seconds: &[f64], bus_ns: &[f64]) -> Row {
    let mut rate: Vec<f64> = seconds.iter().map(|s| bytes as f64 / s / 1e9).collect();
    let mut bus_rate: Vec<f64> = bus_ns.iter().map(|ns| bytes as f64 / ns).collect();
    Row::rate(label, "GB/s", &mut rate, &mut bus_rate)
}

/// Seconds of each upload and each download.
type UpDown = (Vec<f64>, Vec<f64>);

/// Seconds of `reps` plain uploads from and downloads into host memory the driver allocated
/// (`Context::alloc_host`, what `cajetac` gives large host arrays); `None` where the device
/// has none.
fn driver_memory_rates(
    ctx: &Context,
    bytes: u64,
    reps: usize,
    data: &[u8],
) -> Result<Option<UpDown>, String> {
    let e = |x: cajeta_runtime::RuntimeError| x.to_string();
    let (Some(src), Some(dst)) = (ctx.alloc_host(data.len()), ctx.alloc_host(data.len())) else {
        return Ok(None);
    };
    // SAFETY: two live, distinct allocations of `data.len()` bytes, used only here.
    let (src, dst) = unsafe {
        (
            std::slice::from_raw_parts_mut(src.as_ptr(), src.len()),
            std::slice::from_raw_parts_mut(dst.as_ptr(), dst.len()),
        )
    };
    src.copy_from_slice(data);
    let buf = ctx.create_buffer(bytes).map_err(e)?;
    let s = ctx.default_stream();
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        let t = Instant::now();
        s.upload_buffer(&buf, src).map_err(e)?;
        s.sync().map_err(e)?;
        let u = t.elapsed().as_secs_f64();
        let t = Instant::now();
        s.download_buffer(&buf, dst).map_err(e)?;
        let d = t.elapsed().as_secs_f64();
        if rep > 0 {
            up.push(u);
            down.push(d);
        }
        if dst != data {
            return Err(format!(
                "driver-memory round trip of {bytes} bytes corrupted the data"
            ));
        }
        dst.fill(0);
    }
    Ok(Some((up, down)))
}

/// Seconds of `reps` uploads from and downloads into pinned arrays (`Context::pin_host`, as
/// the host executors pin an array at its second large transfer) and the milliseconds the
/// two pins took; `None` where the device cannot pin host memory.
type PinnedRates = Option<(Vec<f64>, Vec<f64>, f64)>;

fn pinned_rates(
    ctx: &Context,
    bytes: u64,
    reps: usize,
    data: &[u8],
    back: &mut [u8],
) -> Result<PinnedRates, String> {
    let e = |x: cajeta_runtime::RuntimeError| x.to_string();
    let t = Instant::now();
    // SAFETY: `data` and `back` outlive the pins (dropped at the end of this function) and
    // are neither freed nor reallocated meanwhile.
    let Some(pin_up) = (unsafe { ctx.pin_host(data.as_ptr(), data.len()) }) else {
        return Ok(None);
    };
    // SAFETY: as above.
    let Some(pin_down) = (unsafe { ctx.pin_host(back.as_ptr(), back.len()) }) else {
        return Ok(None);
    };
    let pin_ms = t.elapsed().as_secs_f64() * 1e3;
    let buf = ctx.create_buffer(bytes).map_err(e)?;
    let s = ctx.default_stream();
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        let t = Instant::now();
        s.upload_buffer_pinned(&buf, data, &pin_up).map_err(e)?;
        let u = t.elapsed().as_secs_f64();
        let t = Instant::now();
        s.download_buffer_pinned(&buf, back, &pin_down).map_err(e)?;
        let d = t.elapsed().as_secs_f64();
        if rep > 0 {
            up.push(u);
            down.push(d);
        }
        if back != data {
            return Err(format!(
                "pinned round trip of {bytes} bytes corrupted the data"
            ));
        }
        back.fill(0);
    }
    // The same download split across several streams (each on its own queue where the
    // device has them), the parts copied at once: whether one copy's rate, rather than the
    // link, bounds downloads into pinned memory.
    for parts in [2usize, 4] {
        let streams: Vec<_> = (0..parts)
            .map(|_| ctx.create_stream())
            .collect::<Result<_, _>>()
            .map_err(e)?;
        let part = (bytes as usize).div_ceil(parts).next_multiple_of(4096);
        let mut times = Vec::new();
        for rep in 0..=reps {
            let t = Instant::now();
            std::thread::scope(|scope| -> Result<(), String> {
                let handles: Vec<_> = back
                    .chunks_mut(part)
                    .zip(&streams)
                    .enumerate()
                    .map(|(i, (chunk, s))| {
                        let (buf, pin) = (&buf, &pin_down);
                        scope.spawn(move || -> Result<(), String> {
                            let view = buf
                                .slice((i * part) as u64, chunk.len() as u64)
                                .map_err(e)?;
                            s.download_buffer_pinned(&view, chunk, pin).map_err(e)
                        })
                    })
                    .collect();
                for h in handles {
                    h.join()
                        .map_err(|_| "download thread panicked".to_string())??;
                }
                Ok(())
            })?;
            if rep > 0 {
                times.push(t.elapsed().as_secs_f64());
            }
            if back != data {
                return Err(format!(
                    "split pinned download of {bytes} bytes corrupted the data"
                ));
            }
            back.fill(0);
        }
        println!(
            "transfer download {} pinned, {parts} streams at once: cajeta {:.2} GB/s (median of {reps})",
            size_name(bytes),
            bytes as f64 / median(&mut times) / 1e9
        );
    }
    Ok(Some((up, down, pin_ms)))
}

/// GPU nanoseconds of `reps` raw copies each way between a filled pinned host-visible buffer
/// and a device-local one.
fn bus(
    base: &Baseline,
    bytes: u64,
    reps: usize,
    data: &[u8],
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    let dev = base.buffer(
        bytes,
        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
        vk::MemoryPropertyFlags::DEVICE_LOCAL,
    )?;
    let pinned = base.buffer(
        bytes,
        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
        host,
    )?;
    // SAFETY: the mapping covers `bytes` bytes and the GPU is idle.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), pinned.mapped, data.len()) };
    let region = [vk::BufferCopy {
        src_offset: 0,
        dst_offset: 0,
        size: bytes,
    }];
    let (mut up, mut down) = (Vec::new(), Vec::new());
    let timed = |src: vk::Buffer, dst: vk::Buffer| -> Result<f64, String> {
        base.begin()?;
        base.timestamp(0);
        // SAFETY: recording state; both buffers alive and idle.
        unsafe { base.device.cmd_copy_buffer(base.cmd, src, dst, &region) };
        base.timestamp(1);
        base.submit_wait()?;
        base.gpu_ns()
    };
    for rep in 0..=reps {
        let u = timed(pinned.buffer, dev.buffer)?;
        let d = timed(dev.buffer, pinned.buffer)?;
        if rep > 0 {
            up.push(u);
            down.push(d);
        }
    }
    base.free(dev);
    base.free(pinned);
    Ok((up, down))
}

/// A zeroed vector of `len` bytes whose pages the kernel is asked to back with transparent
/// huge pages (`MADV_HUGEPAGE` on the 2 MiB-aligned interior before the first write).
fn huge_page_vec(len: usize) -> Vec<u8> {
    let mut v: Vec<u8> = Vec::with_capacity(len);
    let start = (v.as_ptr() as usize).div_ceil(2 << 20) * (2 << 20);
    let end = (v.as_ptr() as usize + len) / (2 << 20) * (2 << 20);
    if end > start {
        // SAFETY: the range lies inside the vector's allocation; the advice changes how its
        // pages are backed, not their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
    v.resize(len, 0);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_named_in_binary_units() {
        assert_eq!(size_name(4096), "4 KiB");
        assert_eq!(size_name(1 << 20), "1 MiB");
        assert_eq!(size_name(256 << 20), "256 MiB");
        assert_eq!(size_name(1 << 30), "1 GiB");
        assert!(plan(false).iter().any(|&(b, _)| b == 1 << 30));
    }
}
