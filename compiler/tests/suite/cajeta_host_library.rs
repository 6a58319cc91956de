//! Cajeta's host library spellings (docs/porting-from-cajeta.md, "Host library"): the
//! allocation factory, `GpuStream`, `Device.force` / `kernelAvailable` / `launchFailures`,
//! `KernelTimer`, `Fence` and `Rng`, run through both host executors (which must print the
//! same lines) on lavapipe and, where it matters, on the CPU device.

use std::path::PathBuf;
use std::process::Command;

/// Runs `src` with `cajetac-llvm run --host mode` and `extra` arguments (the CPU device needs
/// LLVM, so even `--host interp` runs through the LLVM executable): whether it succeeded,
/// stdout and stderr.
fn run(tag: &str, mode: &str, extra: &[&str], src: &str) -> (bool, String, String) {
    // One directory for both modes (run one after the other), so that their messages name
    // the same file.
    let dir = std::env::temp_dir().join(format!("cajetac-hostlib-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("p.cajeta");
    std::fs::write(&file, src).unwrap();
    let (before, after): (Vec<&str>, Vec<&str>) = match extra.iter().position(|a| *a == "--") {
        Some(i) => (extra[..i].to_vec(), extra[i..].to_vec()),
        None => (extra.to_vec(), Vec::new()),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_cajetac-llvm"))
        .args(["run", "--host", mode])
        .args(before)
        .arg(&file)
        .args(after)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines both executors print for `src` run with `extra` (they must agree and succeed).
fn both(tag: &str, extra: &[&str], src: &str) -> Vec<String> {
    let (ok_i, interp, err_i) = run(tag, "interp", extra, src);
    assert!(ok_i, "{tag} --host interp: {interp}{err_i}");
    let (ok_n, native, err_n) = run(tag, "native", extra, src);
    assert!(ok_n, "{tag} --host native: {native}{err_n}");
    assert_eq!(interp, native, "{tag}: the executors disagree");
    interp.lines().map(str::to_string).collect()
}

/// The runtime error both executors stop with for `src` run with `extra`.
fn both_fail(tag: &str, extra: &[&str], src: &str) -> String {
    let (ok_i, out_i, err_i) = run(tag, "interp", extra, src);
    assert!(!ok_i, "{tag} --host interp succeeded: {out_i}");
    let (ok_n, out_n, err_n) = run(tag, "native", extra, src);
    assert!(!ok_n, "{tag} --host native succeeded: {out_n}");
    assert_eq!(err_i, err_n, "{tag}: the executors report differently");
    err_i
}

#[test]
fn the_allocation_factory_is_a_construction_on_both_executors() {
    // `KernelBuffer<T>.alloc(n)` holds n zeroed elements like `heap KernelBuffer<T>(n)`;
    // `GpuStream` is KernelStream.
    let src = "public final class A {
    @Kernel
    public static void twice(KernelBuffer<int32> b) {
        uint32 i = GpuThread.globalIdX();
        b[i] = b[i] * 2 + (int32) i;
    }

    public static int32 main(String[] args) {
        KernelBuffer<int32> b = KernelBuffer<int32>.alloc(4);
        KernelBuffer<float32> z = KernelBuffer<float32>.alloc(3);
        int32[] h = [5, 6, 7, 8];
        b.upload(h);
        GpuStream s = GpuStream.current();
        twice.launch(s, grid: [1], block: [4])(b);
        s.sync();
        b.download(h);
        float32[] zs = [1.0f, 1.0f, 1.0f];
        z.download(zs);
        System.out.println(b.length() + \" \" + h[0] + \" \" + h[1] + \" \" + h[2] + \" \" + h[3]);
        System.out.println(z.length() + \" \" + zs[0] + \" \" + zs[2]);
        return 0;
    }
}
";
    // 5*2+0, 6*2+1, 7*2+2, 8*2+3.
    assert_eq!(both("alloc", &[], src), ["4 10 13 16 19", "3 0.0 0.0"]);
}

#[test]
fn a_static_call_on_a_library_generic_type_other_than_alloc_is_e0004() {
    let src = "public final class A {
    public static int32 main(String[] args) {
        KernelBuffer<int32> b = KernelBuffer<int32>.make(4);
        return 0;
    }
}
";
    let (ok, _, err) = run("make", "interp", &[], src);
    assert!(!ok);
    assert!(err.contains("E0004"), "{err}");
    assert!(err.contains("has no static method `make`"), "{err}");
    assert!(err.contains("KernelBuffer<…>.alloc(n)"), "{err}");
}

/// Forces `args[0]`, reports the device, uses it, then forces `args[1]`.
const FORCE: &str = "public final class F {
    @Kernel
    public static void k(KernelBuffer<uint32> d) {
        d[KernelThread.globalIdX()] = KernelThread.globalIdX() * 3u;
    }

    public static int32 main(String[] args) {
        Device.force(args[0]);
        System.out.println(Device.activeBackend());
        KernelBuffer<uint32> d = heap KernelBuffer<uint32>(4);
        k.launch(KernelStream.current(), grid: [1], block: [4])(d);
        uint32[] h = heap uint32[4];
        d.download(h);
        System.out.println(h[3]);
        Device.force(args[1]);
        System.out.println(\"forced again\");
        return 0;
    }
}
";

#[test]
fn device_force_chooses_the_device_before_its_first_use() {
    assert_eq!(
        both("force-cpu", &["--", "cpu", "cpu"], FORCE),
        ["cpu", "9", "forced again"]
    );
    assert_eq!(
        both("force-vulkan", &["--", "vulkan", "vulkan"], FORCE),
        ["vulkan", "9", "forced again"]
    );
    // A run started on the CPU device moves to Vulkan.
    assert_eq!(
        both(
            "force-back",
            &["--device", "cpu", "--", "vulkan", "vulkan"],
            FORCE
        ),
        ["vulkan", "9", "forced again"]
    );
}

#[test]
fn device_force_after_the_first_use_or_of_an_unknown_backend_is_a_runtime_error() {
    let err = both_fail("force-late", &["--", "cpu", "vulkan"], FORCE);
    assert!(err.contains("p.cajeta:15:9"), "{err}");
    assert!(err.contains("already used its device"), "{err}");
    // A device query other than activeBackend() uses the device too, on either device.
    let asked = "public final class Q {
    public static int32 main(String[] args) {
        System.out.println(Device.waveSize() > 0);
        Device.force(args[0]);
        return 0;
    }
}
";
    let err = both_fail("force-asked", &["--", "cpu"], asked);
    assert!(err.contains("p.cajeta:4:9"), "{err}");
    assert!(err.contains("already used its device"), "{err}");
    let err = both_fail(
        "force-asked-cpu",
        &["--device", "cpu", "--", "vulkan"],
        asked,
    );
    assert!(err.contains("already used its device"), "{err}");
    let err = both_fail("force-metal", &["--", "metal", "cpu"], FORCE);
    assert!(err.contains("p.cajeta:8:9"), "{err}");
    assert!(err.contains("unknown backend \"metal\""), "{err}");
}

#[test]
fn kernel_available_names_the_programs_kernels_and_launches_do_not_fail_silently() {
    let src = "public final class K {
    @Kernel
    public static void fill(KernelBuffer<uint32> d) {
        d[KernelThread.globalIdX()] = 1u;
    }

    static void helper() {
    }

    public static int32 main(String[] args) {
        int64 before = Device.launchFailures();
        KernelBuffer<uint32> d = heap KernelBuffer<uint32>(2);
        fill.launch(KernelStream.current(), grid: [1], block: [2])(d);
        KernelStream.current().sync();
        System.out.println(Device.kernelAvailable(\"fill\") + \" \" + Device.kernelAvailable(\"K.fill\"));
        System.out.println(Device.kernelAvailable(\"helper\") + \" \" + Device.kernelAvailable(\"missing\"));
        System.out.println(Device.launchFailures() - before);
        return 0;
    }
}
";
    for device in [&[][..], &["--device", "cpu"][..]] {
        assert_eq!(
            both("available", device, src),
            ["true true", "false false", "0"],
            "{device:?}"
        );
    }
}

#[test]
fn wave_size_and_shared_bytes_have_cajetas_types() {
    // Cajeta's `int32 waveSize()` and `int64 sharedBytesPerBlock()`, and `Device.subgroupSize`
    // (a kernel constant) in host code; Vulkan guarantees at least 16 KiB of shared memory,
    // the CPU device offers 32 KiB and a wave of one.
    let src = "public final class W {
    public static int32 main(String[] args) {
        int32 w = Device.waveSize();
        int64 s = Device.sharedBytesPerBlock();
        int32 t = Device.maxThreadsPerBlock();
        uint32 sg = Device.subgroupSize;
        System.out.println((w >= 1) + \" \" + (s >= 16384L) + \" \" + (t == (int32) Device.maxBlockSize()) + \" \" + (sg == (uint32) w));
        System.out.println(Device.activeBackend() + \" \" + w + \" \" + s);
        return 0;
    }
}
";
    let out = both("types", &[], src);
    assert_eq!(out[0], "true true true true");
    let out = both("types-cpu", &["--device", "cpu"], src);
    assert_eq!(out, ["true true true true", "cpu 1 32768"]);
}

#[test]
fn kernel_timer_and_fence_time_and_signal_device_work() {
    let src = "public final class T {
    @Kernel
    public static void k(KernelBuffer<float32> d) {
        uint32 i = KernelThread.globalIdX();
        float32 x = (float32) i;
        for (int32 j = 0; j < 200; j++) { x = x * 1.0001f + 0.5f; }
        d[i] = x;
    }

    public static int32 main(String[] args) {
        KernelBuffer<float32> d = heap KernelBuffer<float32>(4096);
        KernelStream s = KernelStream.current();
        KernelTimer t = KernelTimer.create();
        System.out.println(t.elapsedNanos());
        t.begin(s);
        k.launch(s, grid: [64], block: [64])(d);
        t.end(s);
        System.out.println(t.elapsedNanos() > 0L);
        t.begin(s);
        System.out.println(t.elapsedNanos());
        t.destroy();
        System.out.println(KernelTimer.tierName() + \" \" + (KernelTimer.tier() == KernelTimer.TIER_HOST) + \" \" + KernelTimer.clockScale());
        System.out.println(KernelTimer.impliedGBps(10L, 100L) + \" \" + KernelTimer.impliedOpsPerSecond(4L, 8.0) + \" \" + KernelTimer.impliedGBps(0L, 100L));
        System.out.println(KernelTimer.withinPeak(10L, 100L, 20.0, 0.0, 0.0) + \" \" + KernelTimer.withinPeak(10L, 100L, 5.0, 0.0, 0.0) + \" \" + KernelTimer.withinPeak(10L, 100L, 0.0, 0.0, 0.0));
        Fence f = Fence.create();
        k.launch(s, grid: [64], block: [64])(d);
        f.signal(s);
        f.waitHost();
        System.out.println(f.query());
        f.destroy();
        return 0;
    }
}
";
    let rest = ["10.0 2.0E9 0.0", "true false false", "true"];
    let out = both("timer", &[], src);
    assert_eq!(out[..3], ["-1", "true", "-1"]);
    assert_eq!(out[3], "device false 1.0");
    assert_eq!(out[4..], rest);
    let out = both("timer-cpu", &["--device", "cpu"], src);
    assert_eq!(out[..3], ["-1", "true", "-1"]);
    assert_eq!(out[3], "host true 1.0");
    assert_eq!(out[4..], rest);
}

#[test]
fn a_kernel_timer_method_on_a_plain_event_is_a_runtime_error() {
    let src = "public final class E {
    public static int32 main(String[] args) {
        Event e = Event.create();
        e.begin(KernelStream.current());
        return 0;
    }
}
";
    let err = both_fail("plain-event", &[], src);
    assert!(err.contains("p.cajeta:4:9"), "{err}");
    assert!(err.contains("not made by KernelTimer.create()"), "{err}");
}

#[test]
fn rng_replays_cajetas_xorshift_stream() {
    // next(1): 1 ^ 1<<13 = 0x2001, ^ 0x2001>>7 = 0x2041, ^ 0x2041<<17 = 0x40822041. The seed
    // state of 42 is xorshift64(42 + 0x9E3779B97F4A7C15) and its unit float its top 24 bits
    // over 2^24 (worked out with Python's integers). Weights 0, 1, 3, 0 are drawn about 1:3
    // over 400 seeds and never the zero-weight indices.
    let src = "public final class R {
    public static int32 main(String[] args) {
        int64 s = Rng.seedState(42L);
        System.out.println(Rng.next(1L) + \" \" + s + \" \" + (Rng.output(s) == s) + \" \" + Rng.toUnitFloat(s));
        float32[] w = [0.0f, 1.0f, 3.0f, 0.0f];
        int32[] hits = heap int32[4];
        for (int64 seed = 0L; seed < 400L; seed++) {
            hits[Rng.weightedReservoirChoice(w, 4, seed)] += 1;
        }
        System.out.println(hits[0] + \" \" + (hits[1] > 70) + \" \" + (hits[2] > 250) + \" \" + hits[3]);
        System.out.println(Rng.weightedReservoirChoice(w, 0, 1L) + \" \" + Rng.weightedReservoirChoice(w, 1, 1L));
        return 0;
    }
}
";
    assert_eq!(
        both("rng", &[], src),
        [
            "1082269761 -2586342012074457337 true 0.8597941",
            "0 true true 0",
            "-1 -1",
        ]
    );
    let err = both_fail(
        "rng-count",
        &[],
        &src.replace(
            "weightedReservoirChoice(w, 0, 1L)",
            "weightedReservoirChoice(w, 5, 1L)",
        ),
    );
    assert!(err.contains("count 5 is past the 4 weights"), "{err}");
}

#[test]
fn pinned_and_unified_buffers_move_data_with_host_store_and_load() {
    // Cajeta's residency idiom: a buffer without memory, `allocate(MemoryKind.X)`, then the
    // zero-copy `hostStore` / `hostLoad` (upload and download here, direct on host-visible
    // memory). The kernel adds 1 to each element.
    let src = "public final class P {
    @Kernel
    public static void inc(KernelBuffer<float32> b) {
        b[KernelThread.globalIdX()] += 1.0f;
    }

    static float32 roundTrip(KernelBuffer<float32> b) {
        float32[] h = [1.0f, 2.0f, 3.0f, 4.0f];
        b.hostStore(h);
        inc.launch(KernelStream.current(), grid: [1], block: [4])(b);
        KernelStream.current().sync();
        b.hostLoad(h);
        return h[0] + h[1] * 10.0f + h[2] * 100.0f + h[3] * 1000.0f;
    }

    public static int32 main(String[] args) {
        KernelBuffer<float32> p = heap KernelBuffer<float32>(0, 4);
        p.allocate(MemoryKind.Pinned);
        KernelBuffer<float32> u = heap KernelBuffer<float32>(0, 4);
        u.allocate(MemoryKind.Unified);
        KernelBuffer<float32> d = KernelBuffer<float32>.alloc(4);
        System.out.println(roundTrip(p) + \" \" + roundTrip(u) + \" \" + roundTrip(d));
        return 0;
    }
}
";
    // 2 + 30 + 400 + 5000.
    for device in [&[][..], &["--device", "cpu"][..]] {
        assert_eq!(
            both("pinned", device, src),
            ["5432.0 5432.0 5432.0"],
            "{device:?}"
        );
    }
}

#[test]
fn the_cpu_worker_cap_bounds_the_cpu_devices_launches() {
    // Cajeta's Device.setCpuWorkerCap / cpuWorkerCap / lastLaunchWorkers: on the CPU device a
    // cap of 1 runs the next launch on one thread, and one workgroup never takes more; on
    // a Vulkan device the cap is kept but no CPU launch runs (0 workers).
    let src = "package t;
import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void fill(KernelBuffer<int32> out) {
        out[KernelThread.globalIdX()] = 1;
    }
    public static int32 run() {
        KernelBuffer<int32> out = heap KernelBuffer<int32>(256);
        System.out.println(Device.cpuWorkerCap() + \" \" + Device.lastLaunchWorkers());
        Device.setCpuWorkerCap(1);
        fill.launch(KernelStream.current(), grid: [4], block: [64])(out);
        System.out.println(Device.cpuWorkerCap() + \" \" + Device.lastLaunchWorkers());
        Device.setCpuWorkerCap(0);
        fill.launch(KernelStream.current(), grid: [1], block: [64])(out);
        System.out.println(Device.cpuWorkerCap() + \" \" + Device.lastLaunchWorkers());
        return 0;
    }
}
";
    assert_eq!(
        both("workers", &["--device", "cpu"], src),
        ["0 0", "1 1", "0 1", "0"]
    );
    assert_eq!(both("workers-vk", &[], src), ["0 0", "1 0", "0 0", "0"]);
    let negative = src.replace("setCpuWorkerCap(1)", "setCpuWorkerCap(-2)");
    let err = both_fail("workers-negative", &[], &negative);
    assert!(err.contains("setCpuWorkerCap: a cap of -2"), "{err}");
}

#[test]
fn cajetas_capability_enum_answers_from_the_running_device() {
    // Cajeta's own Capability constants: RayQueryNative is the same question as RayQuery,
    // RayQueryRtCore (CUDA's OptiX pipelines) is never offered, CoopMatrixBf16F32Acc needs
    // cooperative matrices and bfloat16, which neither lavapipe nor the CPU device has.
    let src = "package t;
import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void k(KernelBuffer<int32> out) {
        out[0] = (Device.supports(Capability.RayQueryNative) == Device.supports(Capability.RayQuery) ? 1 : 0)
            + (Device.supports(Capability.RayQueryRtCore) ? 10 : 0);
    }
    public static int32 run() {
        KernelBuffer<int32> out = heap KernelBuffer<int32>(1);
        k.launch(KernelStream.current(), grid: [1], block: [1])(out);
        int32[] h = heap int32[1];
        out.download(h);
        System.out.println((Device.supports(Capability.RayQueryNative) == Device.supports(Capability.RayQuery)) + \" \"
            + Device.supports(Capability.RayQueryRtCore) + \" \" + Device.supports(Capability.CoopMatrixBf16F32Acc) + \" \" + h[0]);
        return 0;
    }
}
";
    for device in [&[][..], &["--device", "cpu"][..]] {
        assert_eq!(
            both("capabilities", device, src),
            ["true false false 1", "0"],
            "{device:?}"
        );
    }
}
