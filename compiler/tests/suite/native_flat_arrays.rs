//! Arrays of vectors, matrices and PODs in flat native layout (`host::interp::flat`):
//! both executors read and write the same bytes, and native code indexes them in place
//! (no call per element).

use super::native_host::{cajetac, corpus_dir, differential_with};
use crate::cli::assert_no_handoffs;

/// Lanes of every width and alignment, written whole, by field and by lane: the same
/// output on both executors, and nothing handed to the interpreter.
#[test]
fn flat_arrays_of_every_lane_type_agree_with_the_interpreter() {
    let src = std::fs::read_to_string(corpus_dir().join("flat_arrays.cajeta")).unwrap();
    let r = differential_with("flat_arrays.cajeta", &src, &[]);
    assert_eq!(
        r.out,
        "(0.6665039, -65504.0, 0.19995117) (1.3330078, -65504.0, 0.39990234) (-56, -102, 127, -128) (9223372036854775813, 0) (18446744073709551615, 9223372036854775808)\n\
         (false, true) (true, false) (1.5, -2.25, 1.0E300, NaN) (0.0, 0.0, 0.0, 0.0)\n\
         {-2, 0.0, false, (-30000, 0, 32767), (0.0, 0.0)} {1, 0.30000000000000004, true, (-29997, 3, -32768), (0.0, 1.5)}\n\
         0.4 -119996 5 4\n"
    );
    assert_eq!(r.end, "returned -119996");
    let out = cajetac()
        .args(["run", "--host", "native"])
        .arg(corpus_dir().join("flat_arrays.cajeta"))
        .env("CAJETA_HOST_TIMING", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(", 0 hand-offs to the interpreter"), "{err}");
}

/// Element access to arrays of vectors and PODs is inline loads and stores: the host
/// module of the array corpus calls neither `cajeta_element_get` nor `_set` (before, every
/// `vs[i]` and `ps[i].vel.y = …` was one of those calls).
#[test]
fn elements_of_flat_arrays_are_loads_and_stores() {
    let out = std::env::temp_dir().join(format!("cajetac-flat-ir-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let status = cajetac()
        .args(["build", "--emit", "llvm", "-o"])
        .arg(&out)
        .arg(corpus_dir().join("element_arrays.cajeta"))
        .status()
        .unwrap();
    assert!(status.success());
    let ir = std::fs::read_to_string(out.join("element_arrays.ll")).unwrap();
    for call in ["@cajeta_element_get(", "@cajeta_element_set("] {
        assert!(!ir.contains(&format!("call i32 {call}")), "{call}: {ir}");
    }
    assert!(ir.contains("@cajeta_array_view("), "{ir}");
    std::fs::remove_dir_all(&out).ok();
}

/// Array literals of scalars of every type, vectors, matrices and PODs are one typed call
/// each, their elements computed natively in source order: the same output on both
/// executors, and none handed to the interpreter.
#[test]
fn array_literals_agree_with_the_interpreter_and_run_as_typed_calls() {
    let path = corpus_dir().join("array_literals.cajeta");
    let src = std::fs::read_to_string(&path).unwrap();
    let r = differential_with("array_literals.cajeta", &src, &[]);
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(
        lines[0].starts_with("-128 5 18446744073709551615 "),
        "{}",
        r.out
    );
    assert!(
        lines[0].ends_with(" true 0.30000000000000004 1.0E301 3"),
        "{}",
        r.out
    );
    assert_eq!(lines[2], "[1][2][3] 30", "{}", r.out);
    // sum over i < 1000 of 3 i^2 = 3 * 332833500.
    assert_eq!(lines[4], "998500500", "{}", r.out);
    assert_eq!(r.end, "returned 39");
    assert_no_handoffs(&path, &[]);
}
