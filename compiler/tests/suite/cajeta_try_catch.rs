//! Cajeta's catchable errors in host code, `try { … } catch (XpuLaunchException e)` and
//! `catch (KernelError e)` (docs/language.md, "Catching a refused launch or a kernel's
//! fault"): a launch the device refuses, or a checked kernel's fault found at a wait,
//! written in the `try` block, skips the rest of the block and runs the handler with its
//! message; both host executors must print the same lines, on lavapipe and (refused
//! launches) on the CPU device, which has no checked mode.

use std::path::PathBuf;
use std::process::Command;

/// Runs `src` with `cajetac-llvm run --host mode` and `extra` arguments: whether it
/// succeeded, stdout and stderr.
fn run(tag: &str, mode: &str, extra: &[&str], src: &str) -> (bool, String, String) {
    let dir = std::env::temp_dir().join(format!("cajetac-try-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("p.cajeta");
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cajetac-llvm"))
        .args(["run", "--host", mode])
        .args(extra)
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What both executors print (and whether they succeeded, which they must agree on).
fn both(tag: &str, extra: &[&str], src: &str) -> (bool, Vec<String>, String) {
    let (ok_i, interp, err_i) = run(tag, "interp", extra, src);
    let (ok_n, native, err_n) = run(tag, "native", extra, src);
    assert_eq!(
        (ok_i, &interp, &err_i),
        (ok_n, &native, &err_n),
        "{tag} {extra:?}: the executors disagree"
    );
    (ok_i, interp.lines().map(str::to_string).collect(), err_i)
}

const KERNEL: &str = "package t;
import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void fill(KernelBuffer<int32> out, int32 v) {
        uint32 i = KernelThread.globalIdX();
        out[i] = v;
    }
";

#[test]
fn a_refused_launch_in_a_try_block_runs_the_handler_and_skips_the_rest() {
    let src = format!(
        "{KERNEL}
    public static int32 run() {{
        KernelBuffer<int32> out = heap KernelBuffer<int32>(64);
        KernelStream s = KernelStream.current();
        int32 steps = 0;
        int64 f0 = Device.launchFailures();
        try {{
            fill.launch(s, grid: [1], block: [64])(out, 1);
            steps = 1;
            fill.launch(s, grid: [0], block: [64])(out, 2);
            steps = 2;
        }} catch (XpuLaunchException e) {{
            System.out.println(e.getMessage());
            System.out.println(e.message.contains(\"zero\"));
        }}
        System.out.println(\"steps \" + steps + \" refused \" + (Device.launchFailures() - f0));
        // In a loop, a refusal leaves the loop; the next try starts afresh.
        for (int32 k = 0; k < 3; k++) {{
            try {{
                for (int32 j = 0; j < 4; j++) {{
                    fill.launch(s, grid: [1], block: [j == k ? 100000 : 64])(out, 10 * k + j);
                    steps++;
                }}
                System.out.println(\"not reached\");
            }} catch (Exception e) {{
                System.out.println(\"k \" + k + \" steps \" + steps);
            }}
        }}
        // A try block whose launches all run skips the handler.
        try {{
            fill.launch(s, grid: [1], block: [64])(out, 5);
        }} catch (XpuLaunchException e) {{
            System.out.println(\"not reached\");
        }}
        s.sync();
        int32[] h = heap int32[64];
        out.download(h);
        System.out.println(h[63] + \" refused \" + (Device.launchFailures() - f0));
        return 777;
    }}
}}
"
    );
    for device in [&[][..], &["--device", "cpu"][..]] {
        let (ok, lines, err) = both("caught", device, &src);
        assert!(ok, "{device:?}: {lines:?} {err}");
        assert_eq!(
            lines,
            [
                "launch of `fill`: grid [0,1,1] has a zero dimension",
                "true",
                "steps 1 refused 1",
                "k 0 steps 1",
                "k 1 steps 2",
                "k 2 steps 4",
                "5 refused 4",
                "777"
            ],
            "{device:?}"
        );
    }
}

/// A grid size computed as a negative `int32` (-1 reads as 4294967295) is past every
/// device's workgroup count and refused, on the CPU device too, whose limit was `u32::MAX`
/// (such a launch ran four billion workgroups: a hang).
#[test]
fn a_negative_grid_is_refused_on_every_device() {
    let src = format!(
        "{KERNEL}
    public static int32 run() {{
        KernelBuffer<int32> out = heap KernelBuffer<int32>(64);
        int32 g = -1;
        try {{
            fill.launch(KernelStream.current(), grid: [g], block: [64])(out, 1);
            System.out.println(\"not reached\");
        }} catch (XpuLaunchException e) {{
            System.out.println(e.message.contains(\"grid [4294967295,1,1] exceeds maxComputeWorkGroupCount[0]\"));
        }}
        return 777;
    }}
}}
"
    );
    for device in [&[][..], &["--device", "cpu"][..]] {
        let (ok, lines, err) = both("negative_grid", device, &src);
        assert!(ok, "{device:?}: {lines:?} {err}");
        assert_eq!(lines, ["true", "777"], "{device:?}");
    }
}

#[test]
fn a_refusal_outside_a_try_block_or_in_a_called_method_still_ends_the_run() {
    // Only launches written in the try block are caught: one in a method called from it
    // ends the run, as one outside any try does.
    let src = format!(
        "{KERNEL}
    static void refused(KernelBuffer<int32> out) {{
        fill.launch(KernelStream.current(), grid: [0], block: [64])(out, 1);
    }}
    public static int32 run() {{
        KernelBuffer<int32> out = heap KernelBuffer<int32>(64);
        try {{
            refused(out);
        }} catch (XpuLaunchException e) {{
            System.out.println(\"caught\");
        }}
        return 777;
    }}
}}
"
    );
    let (ok, lines, err) = both("uncaught", &[], &src);
    assert!(!ok, "{lines:?}");
    assert!(lines.is_empty(), "{lines:?}");
    assert!(err.contains("grid [0,1,1] has a zero dimension"), "{err}");
}

/// A kernel whose launch of `grid: [2], block: [64]` on a 64-element buffer stores past its
/// end: a fault checked mode reports at the next wait.
const FAULTY: &str = "package t;
import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void store(KernelBuffer<int32> out, int32 v) {
        out[KernelThread.globalIdX()] = v;
    }
";

#[test]
fn a_checked_kernels_fault_at_a_wait_in_a_try_block_runs_the_kernel_error_handler() {
    let src = format!(
        "{FAULTY}
    public static int32 run() {{
        KernelBuffer<int32> out = heap KernelBuffer<int32>(64);
        KernelStream s = KernelStream.current();
        int32 steps = 0;
        int64 f0 = Device.launchFailures();
        try {{
            store.launch(s, grid: [2], block: [64])(out, 1);
            steps = 1;
            s.sync();
            steps = 2;
        }} catch (KernelError e) {{
            System.out.println(e.getMessage());
        }}
        System.out.println(\"steps \" + steps);
        // The clause of each kind runs: a refusal, then a fault found by a download.
        int32[] h = heap int32[64];
        for (int32 k = 0; k < 2; k++) {{
            try {{
                store.launch(s, grid: [k == 0 ? 0 : 2], block: [64])(out, 3);
                out.download(h);
                System.out.println(\"not reached\");
            }} catch (XpuLaunchException e) {{
                System.out.println(\"refused: \" + e.message);
            }} catch (XpuKernelError e) {{
                System.out.println(\"fault: \" + e.message);
            }}
        }}
        // `Exception` catches a fault too; a try block without one skips the handler.
        try {{
            store.launch(s, grid: [2], block: [64])(out, 4);
            s.sync();
        }} catch (Exception e) {{
            System.out.println(\"exception: \" + e.getMessage().contains(\"out of bounds\"));
        }}
        try {{
            store.launch(s, grid: [1], block: [64])(out, 5);
            s.sync();
        }} catch (KernelError e) {{
            System.out.println(\"not reached\");
        }}
        out.download(h);
        System.out.println(h[63] + \" refused \" + (Device.launchFailures() - f0));
        return 777;
    }}
}}
"
    );
    let fault = "kernel `store`: index 64 out of bounds for `out` of length 64";
    let (ok, lines, err) = both("fault", &["--checked"], &src);
    assert!(ok, "{lines:?} {err}");
    assert_eq!(
        lines,
        [
            fault,
            "steps 1",
            "refused: launch of `store`: grid [0,1,1] has a zero dimension",
            &format!("fault: {fault}"),
            "exception: true",
            "5 refused 1",
            "777"
        ]
    );
    // Without checked mode a kernel reports no fault: nothing is caught, nothing skipped.
    let (ok, lines, err) = both("unchecked", &[], &src);
    assert!(ok, "{lines:?} {err}");
    assert_eq!(lines[0], "steps 2", "{lines:?}");
}

#[test]
fn a_kernel_fault_not_caught_by_the_clauses_still_ends_the_run() {
    // Only `KernelError` and its supertypes catch a fault: a `try` catching refused launches
    // leaves it to end the run at the sync, as a fault outside any `try` does.
    for clause in ["XpuLaunchException", "RecoverableException"] {
        let src = format!(
            "{FAULTY}
    public static int32 run() {{
        KernelBuffer<int32> out = heap KernelBuffer<int32>(64);
        KernelStream s = KernelStream.current();
        try {{
            store.launch(s, grid: [2], block: [64])(out, 1);
            s.sync();
            System.out.println(\"not reached\");
        }} catch ({clause} e) {{
            System.out.println(\"caught\");
        }}
        return 777;
    }}
}}
"
        );
        let (ok, lines, err) = both("fault-uncaught", &["--checked"], &src);
        assert!(!ok, "{clause}: {lines:?}");
        assert!(lines.is_empty(), "{clause}: {lines:?}");
        assert!(
            err.contains("index 64 out of bounds for `out`"),
            "{clause}: {err}"
        );
    }
    // And `KernelError` does not catch a refused launch.
    let src = format!(
        "{FAULTY}
    public static int32 run() {{
        KernelBuffer<int32> out = heap KernelBuffer<int32>(64);
        try {{
            store.launch(KernelStream.current(), grid: [0], block: [64])(out, 1);
        }} catch (KernelError e) {{
            System.out.println(\"caught\");
        }}
        return 777;
    }}
}}
"
    );
    let (ok, lines, err) = both("refusal-uncaught", &["--checked"], &src);
    assert!(!ok, "{lines:?}");
    assert!(lines.is_empty(), "{lines:?}");
    assert!(err.contains("grid [0,1,1] has a zero dimension"), "{err}");
}
