//! `?:` between objects in native code (`Codegen::select_into`): the condition is native,
//! only the chosen arm runs, and its value lands in the slot of whatever uses it.

use super::native_host::{corpus_dir, differential_with};
use crate::cli::assert_no_handoffs;

/// Strings, arrays, buffers and events chosen by `?:` in stores, call and typed-operation
/// arguments, prints and `printf`: the same output on both executors, only the chosen arm
/// evaluated (the calls that print say so), and nothing handed to the interpreter.
#[test]
fn object_selects_agree_with_the_interpreter_and_run_natively() {
    let path = corpus_dir().join("object_selects.cajeta");
    let src = std::fs::read_to_string(&path).unwrap();
    let r = differential_with("object_selects.cajeta", &src, &[]);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines[0], "even 0.5 0.0 even", "{}", r.out);
    assert_eq!(lines[1], "ran small", "{}", r.out);
    assert_eq!(lines[2], "small!", "{}", r.out);
    assert_eq!(lines[3], "other 0", "{}", r.out);
    assert_eq!(lines[12], "three-3 300.5 0.5 even", "{}", r.out);
    assert_eq!(lines[15], "other 3", "{}", r.out);
    assert_eq!(r.out.matches("ran ").count(), 4, "{}", r.out);
    assert_eq!(lines[16], "buffers 300.5 4", "{}", r.out);
    assert_eq!(lines[17], "event true", "{}", r.out);
    assert_eq!(r.end, "returned 501");
    assert_no_handoffs(&path, &[]);
}
