//! The device loop: upload a small buffer, launch a tiny kernel on it, download it and check
//! every value, `N` times. The Cajeta program (`cajetac run`, native host code) against the
//! same loop written with the Rust embedding API (`cajetac::embed`) in this process, on the
//! same device (the first Vulkan device both pick).
//!
//! What is compared is the cost of one iteration, which is what host code adds around the
//! device: each side runs the loop at two counts and the difference of their times is divided
//! by the difference of the counts, so device creation, kernel compilation, pipeline creation
//! and (for cajetac) the process and the JIT cancel out. For cajetac the times are its host
//! code's own run time (`CAJETA_HOST_TIMING`); for Rust, the loop's wall time in process
//! (the device and kernel made once before, as an embedder does). The two counts take turns
//! inside every repetition; medians of the repetitions.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use cajetac::embed::{args, Device, Error, Program};

/// Elements of the buffer (one workgroup of this many threads).
const LEN: usize = 64;

/// The kernel and the host loop; ` COUNT;` is replaced by the iteration count.
const SOURCE: &str = "import cajeta.xpu.*;

public class P {
    @Kernel
    public static void addK(KernelBuffer<int32> x, int32 k) {
        uint32 i = KernelThread.globalIdX();
        x[i] = x[i] + k;
    }

    public static int64 run() {
        int32 n = COUNT;
        KernelStream s = KernelStream.current();
        KernelBuffer<int32> buf = heap KernelBuffer<int32>(64);
        int32[] host = heap int32[64];
        int32[] back = heap int32[64];
        int64 bad = 0L;
        int64 sum = 0L;
        for (int32 it = 0; it < n; it++) {
            for (int32 i = 0; i < 64; i++) {
                host[i] = it * 7 + i;
            }
            buf.upload(host);
            addK.launch(s, grid: [1], block: [64])(buf, it & 15);
            buf.download(back);
            for (int32 i = 0; i < 64; i++) {
                if (back[i] != it * 7 + i + (it & 15)) {
                    bad++;
                }
            }
            sum = sum + (int64) back[63];
        }
        return bad * 1000000000L + sum;
    }
}
";

/// The same loop through the embedding API: the value the Cajeta program returns.
fn rust_loop(device: &Device, kernel: &cajetac::embed::Kernel, n: i32) -> Result<i64, Error> {
    let stream = device.stream();
    let buf = device.buffer::<i32>(LEN)?;
    let mut host = vec![0i32; LEN];
    let (mut bad, mut sum) = (0i64, 0i64);
    for it in 0..n {
        for (i, h) in host.iter_mut().enumerate() {
            *h = it * 7 + i as i32;
        }
        buf.upload(&stream, &host)?;
        kernel.launch(&stream, [1, 1, 1], [LEN as u32, 1, 1], args![&buf, it & 15])?;
        let back = buf.download(&stream)?;
        for (i, v) in back.iter().enumerate() {
            if *v != it * 7 + i as i32 + (it & 15) {
                bad += 1;
            }
        }
        sum += i64::from(back[LEN - 1]);
    }
    Ok(bad * 1_000_000_000 + sum)
}

/// The Cajeta program of the loop for `n` iterations.
pub fn source(n: i32) -> String {
    SOURCE.replace(" COUNT;", &format!(" {n};"))
}

/// The Rust side alone, `n` iterations after one to warm up: prints its time per
/// iteration (a process to profile without `cajetac` beside it).
pub fn rust_alone(n: i32) {
    let program = Program::compile("device_loop.cajeta", &source(1)).expect("compile");
    let device = Device::for_program(&program).expect("device");
    let kernel = device.kernel(&program, "addK").expect("kernel");
    rust_loop(&device, &kernel, 1).expect("device loop (Rust)");
    let t = Instant::now();
    let result = rust_loop(&device, &kernel, n).expect("device loop (Rust)");
    let per = t.elapsed().as_secs_f64() / f64::from(n.max(1));
    assert_eq!(
        result % 1_000_000_000,
        expected_sum(n),
        "device loop: wrong values"
    );
    println!(
        "{result}\nRust embedding API: {:.2} us per iteration",
        per * 1e6
    );
}

/// Runs the comparison (`counts`: the two iteration counts) and prints its table row; `dir`
/// is where the Cajeta source is written.
pub fn compare(cajetac: &Path, dir: &Path, runs: usize, counts: [i32; 2]) {
    let program = Program::compile("device_loop.cajeta", &SOURCE.replace(" COUNT;", " 1;"))
        .expect("compile the device loop");
    // The device with the features the program needs, as `cajetac run` makes it.
    let device = match Device::for_program(&program) {
        Ok(d) => d,
        Err(e) => {
            println!("\ndevice loop: no device ({e}); skipped");
            return;
        }
    };
    let kernel = device.kernel(&program, "addK").expect("kernel");
    // One iteration first: the pipeline and the staging memory exist before timing.
    rust_loop(&device, &kernel, 1).expect("device loop (Rust)");
    let mut cajeta: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut rust: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (k, &n) in counts.iter().enumerate() {
            let src = dir.join(format!("device_loop_{n}.cajeta"));
            std::fs::write(&src, source(n)).expect("write");
            let out = Command::new(cajetac)
                .args(["run", "--host", "native"])
                .arg(&src)
                .env("CAJETA_HOST_TIMING", "1")
                .output()
                .expect("run cajetac");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "device loop (cajetac): {stderr}");
            let (_, run, handoffs) = super::host_timing(&stderr);
            let t = Instant::now();
            let expect = rust_loop(&device, &kernel, n).expect("device loop (Rust)");
            rust[k].push(t.elapsed().as_secs_f64());
            let printed = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                printed.trim(),
                expect.to_string(),
                "device loop: cajetac and the Rust API differ"
            );
            assert_eq!(
                expect % 1_000_000_000,
                expected_sum(n),
                "device loop: wrong values"
            );
            assert_eq!(handoffs, 0, "device loop: hand-offs to the interpreter");
            cajeta[k].push(run);
        }
    }
    // Per run: the time of the extra iterations over their number; then the median and
    // the best run (on a loaded machine the thread hand-offs to the driver's queue make
    // single runs swing; the best run shows the floor).
    let per_iter = |t: &[Vec<f64>; 2]| {
        let mut v: Vec<f64> = t[0]
            .iter()
            .zip(&t[1])
            .map(|(a, b)| (b - a) / f64::from(counts[1] - counts[0]))
            .collect();
        let best = v.iter().copied().fold(f64::INFINITY, f64::min);
        (super::median_of(&mut v), best)
    };
    let ((c, cb), (r, rb)) = (per_iter(&cajeta), per_iter(&rust));
    println!(
        "\ndevice loop on {} (upload 64 int32, launch, download, check; per iteration from {} and {} iterations, {runs} runs):",
        device.context().device_info().name,
        counts[0],
        counts[1]
    );
    println!("| program | cajetac, host code | Rust embedding API | ratio | best runs | ratio |");
    println!("|---|---:|---:|---:|---:|---:|");
    println!(
        "| device loop | {:.1} us | {:.1} us | {:.2}x | {:.1} us / {:.1} us | {:.2}x |",
        c * 1e6,
        r * 1e6,
        c / r,
        cb * 1e6,
        rb * 1e6,
        cb / rb
    );
}

/// The sum of the last elements the loop downloads, computed on the host alone.
fn expected_sum(n: i32) -> i64 {
    (0..n)
        .map(|it| i64::from(it * 7 + LEN as i32 - 1 + (it & 15)))
        .sum()
}
