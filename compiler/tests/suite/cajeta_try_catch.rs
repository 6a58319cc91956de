//! Cajeta's catchable launch error in host code, `try { … } catch (XpuLaunchException e)`
//! (docs/language.md, "Catching a refused launch"): a launch the device refuses, written in
//! the `try` block, skips the rest of the block and runs the handler with its message; both
//! host executors must print the same lines, on lavapipe and on the CPU device.

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
