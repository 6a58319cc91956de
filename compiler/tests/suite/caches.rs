//! The compile cache through the `cajetac` command: an entry damaged on disk is recompiled
//! and replaced, not handed to the driver.

use super::cli::{cajetac, temp_dir};

const PROGRAM: &str = "package t;
import cajeta.xpu.*;

public final class Fill {
    @Kernel
    public static void fill(KernelBuffer<int32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            out[i] = (int32) (i * 3 + 1);
        }
    }

    public static int32 run() {
        uint32 n = 64;
        KernelStream s = KernelStream.current();
        KernelBuffer<int32> b = heap KernelBuffer<int32>(n);
        fill.launch(s, grid: [1], block: [64])(b, n);
        int32[] r = heap int32[n];
        b.download(r);
        int32 sum = 0;
        for (uint32 i = 0; i < n; i++) {
            sum += r[i];
        }
        return sum;
    }
}
";

const NOTICE: &str = "did not verify; recompiled";

#[test]
fn a_damaged_compile_cache_entry_is_recompiled_and_repaired() {
    let dir = temp_dir("ccache-damage");
    let cache = dir.join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let file = dir.join("fill.cajeta");
    std::fs::write(&file, PROGRAM).unwrap();
    let expected = format!("{}\n", (0..64).map(|i| 3 * i + 1).sum::<i32>());
    let run = |round: &str| {
        let out = cajetac()
            .arg("run")
            .arg(&file)
            .env("CAJETA_CACHE_DIR", &cache)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{round}: {err}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{round}");
        err
    };
    let err = run("first run");
    assert!(!err.contains(NOTICE), "{err}");
    let entries: Vec<_> = std::fs::read_dir(cache.join("kernels"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    let good = std::fs::read(entry).unwrap();
    // Flip bits of a few words inside the module: the JSON still parses.
    let mut json: serde_json::Value = serde_json::from_slice(&good).unwrap();
    let words = json["kernels"][0]["words"].as_array_mut().unwrap();
    assert!(words.len() > 20);
    for w in &mut words[5..9] {
        *w = (w.as_u64().unwrap() ^ 0xffff).into();
    }
    std::fs::write(entry, serde_json::to_vec(&json).unwrap()).unwrap();
    let err = run("the run after the damage");
    assert!(
        err.contains("note: compile cache entry")
            && err.contains(&entry.display().to_string())
            && err.contains(NOTICE),
        "{err}"
    );
    assert_eq!(
        err.lines().filter(|l| l.contains(NOTICE)).count(),
        1,
        "one line: {err}"
    );
    assert_eq!(std::fs::read(entry).unwrap(), good, "the entry is repaired");
    let err = run("the run after the repair");
    assert!(!err.contains(NOTICE), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
