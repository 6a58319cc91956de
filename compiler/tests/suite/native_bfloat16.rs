//! `bfloat16` scalars in native code (`host/native/bfloat16.rs`): a `float` rounded after
//! every operation, the same values as the interpreter's, bit for bit.

use super::native_host::{corpus_dir, differential_with};
use crate::cli::assert_no_handoffs;

/// Arithmetic, conversions from and to every type, ties, subnormals, overflow, NaN, bit
/// casts and printing: the same output on both executors, spot-checked against values
/// worked out by hand, and nothing handed to the interpreter.
#[test]
fn bfloat16_scalars_agree_with_the_interpreter_and_run_natively() {
    let path = corpus_dir().join("bfloat16.cajeta");
    let src = std::fs::read_to_string(&path).unwrap();
    let r = differential_with("bfloat16.cajeta", &src, &[]);
    let lines: Vec<&str> = r.out.lines().collect();
    // 1.1f rounds to 1.1015625 (0x3f8d); 1.1015625 * 3 = 3.3046875 rounds to 3.3125.
    assert!(lines[0].starts_with("1.1015625 3.0 3.3125 "), "{}", r.out);
    // Ties to even: 0x3f80|8000 keeps 0x3f80 (16256), 0x3f81|8000 goes to 0x3f82 (16258).
    assert_eq!(lines[3], "16256 16258", "{}", r.out);
    // One rounding from float64 (up), two through float32 (a tie, to even: down).
    assert_eq!(lines[4], "1.0078125 1.0", "{}", r.out);
    // Canonical NaN bits 0x7fc0, -0.0 is 0x8000 (-32768).
    assert!(lines[7].ends_with(" 32704 -32768"), "{}", r.out);
    // A NaN payload survives the raw bit cast (0x7fc1) and not the canonical one.
    assert!(lines[8].starts_with("3.140625 32705 32704 "), "{}", r.out);
    assert_no_handoffs(&path, &[]);
}
