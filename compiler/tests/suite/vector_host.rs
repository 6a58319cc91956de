//! Vectors in host code through `cajetac run`: lane-wise results, integer division by zero in
//! a lane is a runtime error, and a vector buffer transfer with the wrong flat length names
//! both lengths; and how byte and wide vectors print (both host executors).

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(tag: &str, body: &str) -> Output {
    let dir = std::env::temp_dir().join(format!("cajetac-vec-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("p.cajeta");
    let src = format!(
        "package t;\nimport cajeta.xpu.*;\npublic final class P {{\n    public static int32 run() {{\n{body}\n    }}\n}}\n"
    );
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cajetac"))
        .arg("run")
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn host_vectors_compute_lane_by_lane() {
    let out = run(
        "ok",
        "Vector<int32,3> a = stack Vector<int32,3>(7, -8, 9);
         Vector<int32,3> b = a / 2 + a % 4 * 10;
         Vector<float32,4> v = stack Vector<float32,4>(3.0f, 4.0f, 0.0f, 0.0f);
         System.out.println(b + \" \" + v.length() + \" \" + (a > 0).select(a, -a).zyx + \" \" + a.xy.yx);
         return 777;",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("(33, -4, 14) 5.0 (9, 8, 7) (-8, 7)"),
        "{stdout}"
    );
}

#[test]
fn host_vector_division_by_zero_is_an_error() {
    let out = run(
        "div0",
        "Vector<int32,2> a = stack Vector<int32,2>(1, 2);
         Vector<int32,2> z = stack Vector<int32,2>(1, 0);
         Vector<int32,2> q = a / z;
         return q.x;",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("integer division by zero"), "{stderr}");
}

#[test]
fn vector_buffer_transfer_length_mismatch_names_both_lengths() {
    let out = run(
        "len",
        "KernelBuffer<Vector<float32,3>> b = heap KernelBuffer<Vector<float32,3>>(4);
         float32[] h = heap float32[4];
         b.upload(h);
         return 777;",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Without a Vulkan device (and outside CI, which must have one) there is nothing to test.
    let no_device = stderr.contains("no Vulkan device") || stdout.contains("no Vulkan device");
    if no_device && std::env::var("CI").as_deref() != Ok("true") {
        return;
    }
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stderr.contains("has 4 elements (12 float32 values) but the host array has 4"),
        "{stderr}"
    );
}

/// A 16-lane byte vector prints as its sixteen lanes, each with its type's sign, through
/// `println`, string `+` and `+=`, on both executors (it printed its four 32-bit words); a
/// wide vector appended with `+=` prints its lanes too (it was refused).
#[cfg(feature = "native-host")]
#[test]
fn byte_and_wide_vectors_print_their_lanes() {
    let src = r#"
package t;
public final class B {
    public static int32 run() {
        Vector<int8,16> v = stack Vector<int8,16>((int8) 1, (int8) -2, (int8) 3, (int8) -128, (int8) 5, (int8) 6, (int8) 7, (int8) 8, (int8) 9, (int8) 10, (int8) 11, (int8) 12, (int8) 13, (int8) 14, (int8) 15, (int8) 127);
        Vector<uint8,16> u = stack Vector<uint8,16>((uint8) 200);
        System.out.println(v);
        System.out.println("u = " + u);
        String s = "s";
        s += v;
        System.out.println(s);
        Vector<int32,8> w = stack Vector<int32,8>(1, 2, 3, 4, 5, 6, 7, 8);
        String t = "w";
        t += w;
        System.out.println(t);
        return 0;
    }
}
"#;
    let r = super::native_host::differential("bytes16_print.cajeta", src);
    let v = "(1, -2, 3, -128, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 127)";
    let u = format!("({})", vec!["200"; 16].join(", "));
    assert_eq!(
        r.out,
        format!("{v}\nu = {u}\ns{v}\nw(1, 2, 3, 4, 5, 6, 7, 8)\n")
    );
    assert_eq!(r.end, "returned 0");
}
