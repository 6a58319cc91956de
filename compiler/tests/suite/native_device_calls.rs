//! Device work, files and array allocation in native host code: typed calls into the
//! runtime (`host/native/device_calls.rs`) that run the interpreter's own implementation of
//! each operation on values native code computed. Each program runs through both executors
//! (output, result and runtime errors identical) and natively without a hand-off to the
//! interpreter, counted by `CAJETA_HOST_HANDOFFS=1`.

use std::path::Path;

use super::native_host::{cajetac, corpus_dir, differential_with};

/// The hand-offs of `cajetac run --host native FILE -- ARGS` by kind, as
/// `CAJETA_HOST_HANDOFFS=1` lists them (`(count, kind)`), and the total it reports.
fn handoffs_by_kind(file: &Path, args: &[&str]) -> (u64, Vec<(u64, String)>) {
    let out = cajetac()
        .args(["run", "--host", "native"])
        .arg(file)
        .arg("--")
        .args(args)
        .env("CAJETA_HOST_HANDOFFS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let mut lines = err
        .lines()
        .skip_while(|l| !l.contains("native host code: "));
    let head = lines
        .next()
        .unwrap_or_else(|| panic!("no hand-off report: {err}"));
    let total = head
        .split("native host code: ")
        .nth(1)
        .and_then(|t| t.strip_suffix(" hand-offs to the interpreter"))
        .unwrap_or_else(|| panic!("no total: {head}"))
        .parse()
        .unwrap();
    let kinds = lines
        .filter_map(|l| {
            let (n, kind) = l.trim_start().split_once("  ")?;
            Some((n.parse().ok()?, kind.to_string()))
        })
        .collect();
    (total, kinds)
}

fn device_calls(what: u32) -> super::native_host::Run {
    let src = std::fs::read_to_string(corpus_dir().join("device_calls.cajeta")).unwrap();
    differential_with("device_calls.cajeta", &src, &[what.to_string()])
}

/// Allocation, buffers, transfers (plain, on a stream, asynchronous, of vectors and PODs),
/// launches with every kind of argument and `spec:`, slices, `free`, `length`, images,
/// streams, events and `nanoTime`: the
/// same output on both executors, and none of it handed to the interpreter (`args[0]`,
/// an element of a `String[]`, included).
#[test]
fn device_operations_agree_and_run_as_typed_calls() {
    let r = device_calls(0);
    assert_eq!(
        r.out,
        "axpy 1.0 10.0 203.5\n\
         vectors 4.0 6.25 14.75\n\
         bodies {(0.0, 5.25, 0.0), 1.0, 1} {(3.0, 5.25, 0.0), 1.0, 7}\n\
         spec -1 20\n\
         async 2.25 true true\n\
         time true\n\
         slice 2.0 8 37\n\
         image 3x2 0.0\n\
         3 0 0.0 false 0\n",
        "{}",
        r.end
    );
    assert_eq!(r.end, "returned 203");
    let (total, kinds) = handoffs_by_kind(&corpus_dir().join("device_calls.cajeta"), &["0"]);
    assert_eq!(kinds, [], "{kinds:?}");
    assert_eq!(total, 0);
}

/// Host arrays of vectors and PODs upload to and download from buffers of the same element
/// type (three-lane vectors padded as std430 pads them, integer vectors, a POD, async
/// forms): the same values on both executors, nothing handed over, and a length mismatch
/// counted in elements.
#[test]
fn arrays_of_vectors_and_pods_transfer_to_buffers_of_their_type() {
    let src = std::fs::read_to_string(corpus_dir().join("element_buffers.cajeta")).unwrap();
    let r = differential_with("element_buffers.cajeta", &src, &[]);
    assert_eq!(
        r.out,
        "(0.0, 2.0, -1.0, 0.5) (14.0, 2.0, -1.0, 0.5)\n\
         (1.0, -0.75, 2.125) (4.0, -0.75, 2.125)\n\
         (6, -6) (21, -21)\n\
         {(1.0, 2.0, 3.0), 1.5} {(4.0, 5.0, 6.0), 10.5}\n\
         14.0 0.5\n",
        "{}",
        r.end
    );
    assert_eq!(r.end, "returned 21");
    let (total, _) = handoffs_by_kind(&corpus_dir().join("element_buffers.cajeta"), &[]);
    assert_eq!(total, 0);
    let r = differential_with("element_buffers.cajeta", &src, &["1".to_string()]);
    assert!(
        r.end.ends_with("64:13: runtime error: upload length mismatch: the KernelBuffer<Vector<float32,4>> has 8 elements but the host array has 7"),
        "{}",
        r.end
    );
}

/// The runtime errors of the moved operations: message and position are the
/// interpreter's on native code too.
#[test]
fn device_operation_errors_match_the_interpreter() {
    let cases = [
        (1, "129:13: runtime error: upload length mismatch: the KernelBuffer<float32> has 37 elements but the host array has 38"),
        (2, "133:13: runtime error: use of KernelBuffer `bx` after free()"),
        (3, "136:29: runtime error: array length 4294967293 exceeds the maximum of 2147483647"),
        (4, "139:69: runtime error: buffer length must not be negative, got -1"),
        (5, "142:25: runtime error: use of a KernelStream after destroy()"),
        (6, "146:13: runtime error: download length mismatch: the KernelBuffer<int32> has 4 elements but the host array has 3"),
        (7, "149:42: runtime error: KernelBuffer `by`.slice(30, 8) is out of bounds: the buffer has 37 elements (a slice needs 1 <= count and offset + count <= length)"),
        (8, "152:13: runtime error: KernelBuffer `spare` freed twice"),
        // Launches and transfers the direct paths (`Interp::direct_launch`,
        // `direct_transfer`) leave to the general one, which reports the error…
        (9, "runtime error: use of KernelBuffer `bx` after free()"),
        (10, "runtime error: the array is the target of a downloadAsync that has not landed"),
        (12, "runtime error: use of a KernelStream after destroy()"),
        // …and a launch the runtime refuses on the direct path (an `int32` grid size of -1
        // is the `uint32` 4294967295).
        (11, "runtime error: launch of `axpy`: grid [4294967295,1,1] exceeds maxComputeWorkGroupCount[0]"),
    ];
    for (what, want) in cases {
        let r = device_calls(what);
        assert!(r.end.contains(want), "case {what}: {}", r.end);
    }
}

/// A fresh directory for a file test (removed by the caller).
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cajeta-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Raw arrays and images written, read back and measured: the same values, files and
/// errors on both executors, and natively without a hand-off (`args` included).
#[test]
fn file_operations_agree_and_run_as_typed_calls() {
    let dir = scratch("file-calls");
    let d = dir.to_string_lossy().into_owned();
    let src = std::fs::read_to_string(corpus_dir().join("file_calls.cajeta")).unwrap();
    let r = differential_with("file_calls.cajeta", &src, &[d.clone(), "0".into()]);
    assert_eq!(
        r.out, "6 1.25 -3000 564026163\n3x2\n6 1.0 24 0.5019608\n",
        "{}",
        r.end
    );
    assert_eq!(r.end, "returned -5000");
    let cases = [
        (1, "38:30: runtime error: cannot read `"),
        (2, "41:13: runtime error: Files.writeImage: 4 x 2 pixels of 1 channel(s) need 8 values, the array has 6"),
        (3, "44:25: runtime error: cannot decode `"),
    ];
    for (what, want) in cases {
        let r = differential_with("file_calls.cajeta", &src, &[d.clone(), what.to_string()]);
        assert!(r.end.contains(want), "case {what}: {}", r.end);
    }
    let file = corpus_dir().join("file_calls.cajeta");
    let (total, kinds) = handoffs_by_kind(&file, &[&d, "0"]);
    assert_eq!(kinds, [], "{kinds:?}");
    assert_eq!(total, 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// Textures of every shape created, uploaded (whole and by level), measured and sampled
/// through a sampler: the same output and errors on both executors, and natively without
/// a hand-off (`args[0]` included, an element of a `String[]`).
#[test]
fn texture_operations_agree_and_run_as_typed_calls() {
    let src = std::fs::read_to_string(corpus_dir().join("textures.cajeta")).unwrap();
    let run = |what: &str| differential_with("textures.cajeta", &src, &[what.to_string()]);
    let r = run("0");
    // Nearest texel (0, 0) channel x, texel (1, 1) channel y; 3-D texel (1, 2, 3) channel w
    // is value ((3 * 3 + 2) * 2 + 1) * 4 + 3 = 95, times 3.
    assert_eq!(r.out, "2x2 5 4 3 3\n0.0 6.5 285.0\n", "{}", r.end);
    assert_eq!(r.end, "returned 285");
    let cases = [
        (1, "43:27: runtime error: Sampler address mode must be 0 (clamp to edge), 1 (repeat) or 2 (mirrored repeat), got 7"),
        (2, "47:13: runtime error: upload length mismatch: level 0 of the"),
        (3, "50:13: runtime error: mip level 2 does not exist: the texture has 2 level(s)"),
        (4, "53:48: runtime error: texture size must not be negative, got -1"),
    ];
    for (what, want) in cases {
        let r = run(&what.to_string());
        assert!(r.end.contains(want), "case {what}: {}", r.end);
    }
    // `args[0]` past the end: the interpreter's message and position natively too.
    let r = differential_with("textures.cajeta", &src, &[]);
    assert!(
        r.end
            .contains("16:39: runtime error: array index 0 out of bounds for length 0"),
        "{}",
        r.end
    );
    let file = corpus_dir().join("textures.cajeta");
    let (total, kinds) = handoffs_by_kind(&file, &["0"]);
    assert_eq!(kinds, [], "{kinds:?}");
    assert_eq!(total, 0);
}

/// Intrinsics without a native lowering (`Bits.insert`, precision-integer packing,
/// `determinant`, `inverse`, `hadamard`, `reflect`, `Math` on `bfloat16`) are one typed call
/// each on operands native code computed: the same output and error on both executors, and
/// no hand-off.
#[test]
fn intrinsics_by_values_agree_and_are_not_handed_off() {
    let src = std::fs::read_to_string(corpus_dir().join("intrinsic_calls.cajeta")).unwrap();
    let r = differential_with("intrinsic_calls.cajeta", &src, &["0".to_string()]);
    let lines: Vec<&str> = r.out.lines().collect();
    // det = 2 * (12 - 0) - 1 * (2 - 0) + 0.25 * (-0.5 - 0) = 21.875; sqrt(2) in bfloat16.
    assert!(lines[1].starts_with("21.875 ("), "{}", r.out);
    assert!(
        lines[3].starts_with("(1.0, 1.0, 0.5) 1.4140625 "),
        "{}",
        r.out
    );
    let r = differential_with("intrinsic_calls.cajeta", &src, &["1".to_string()]);
    assert!(
        r.end.contains("25:25: runtime error: Bits.extract on"),
        "{}",
        r.end
    );
    let file = corpus_dir().join("intrinsic_calls.cajeta");
    let (total, kinds) = handoffs_by_kind(&file, &["0"]);
    assert_eq!(kinds, [], "{kinds:?}");
    assert_eq!(total, 0);
}

/// Device queries (`Device.name()`, `waveSize()`, `memoryBytes()`…) are typed calls: the
/// same answers on both executors, and no hand-off.
#[test]
fn device_queries_agree_and_are_typed_calls() {
    let src = std::fs::read_to_string(corpus_dir().join("device_queries.cajeta")).unwrap();
    let r = differential_with("device_queries.cajeta", &src, &[]);
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(lines[0].ends_with(" vulkan"), "{}", r.out);
    assert!(lines[1].contains(" true "), "{}", r.out);
    let wave = lines[1].split(' ').next().unwrap();
    assert_eq!(r.end, format!("returned {wave}"));
    let file = corpus_dir().join("device_queries.cajeta");
    let (total, kinds) = handoffs_by_kind(&file, &[]);
    assert_eq!(kinds, [], "{kinds:?}");
    assert_eq!(total, 0);
}

/// `Blas.gemm` is a typed call (`cajeta_gemm`) in every form, with and without layouts and a
/// stream: the library examples run natively without a hand-off (the product itself is
/// checked element by element on both executors by `tests/blas_host.rs`).
#[test]
fn library_gemm_is_a_typed_call() {
    let examples = crate::cli::repo().join("examples");
    for file in ["gemm.cajeta", "gemm_int8.cajeta"] {
        crate::cli::assert_no_handoffs(&examples.join(file), &[]);
    }
}
