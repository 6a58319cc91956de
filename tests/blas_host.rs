//! `Blas.gemm` from Cajeta host code, run by both host executors (the interpreter and native
//! host code, through a typed call): every precision and layout form, with and without a
//! stream, on shapes that fit no block, each element checked by the program against its own
//! float64 product; and the mistakes: element types that match no overload (a compile-time
//! diagnostic) and buffers too small for the shape (a run-time error naming the operand).

use cajeta_tests::device_context;
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{self, HostMode, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::SpirvOptions;

/// (short name, operand type, result type, how a float32 input becomes the operand type).
const PRECISIONS: [(&str, &str, &str, &str); 4] = [
    ("f16f32", "float16", "float32", "(float16) x"),
    ("f16f16", "float16", "float16", "(float16) x"),
    ("bf16f32", "bfloat16", "float32", "(bfloat16) x"),
    ("i8i32", "int8", "int32", "(int8) (int32) x"),
];

const SHAPES: [(u32, u32, u32); 3] = [(1, 1, 1), (7, 13, 5), (17, 33, 65)];

/// The check of one precision: `check_P(m, n, k, ac, bc, s)` runs one GEMM (A column-major
/// when `ac`, B when `bc`) and returns the elements that matched, or -1 after printing the
/// first that did not.
fn check_fn((p, op, res, conv): (&str, &str, &str, &str)) -> String {
    format!(
        "
    static int32 check_{p}(uint32 m, uint32 n, uint32 k, boolean ac, boolean bc, KernelStream s) {{
        float32[] ha = heap float32[m * k];
        float32[] hb = heap float32[k * n];
        {op}[] oa = heap {op}[m * k];
        {op}[] ob = heap {op}[k * n];
        for (uint32 i = 0; i < m * k; i++) {{ float32 x = input(i, 1, {int}); ha[i] = x; oa[i] = {conv}; }}
        for (uint32 i = 0; i < k * n; i++) {{ float32 x = input(i, 2, {int}); hb[i] = x; ob[i] = {conv}; }}
        KernelBuffer<{op}> a = heap KernelBuffer<{op}>(m * k);
        KernelBuffer<{op}> b = heap KernelBuffer<{op}>(k * n);
        KernelBuffer<{res}> c = heap KernelBuffer<{res}>(m * n);
        a.upload(oa);
        b.upload(ob);
        if (!ac && !bc) {{
            Blas.gemm(a, b, c, m, n, k, s);
        }} else if (ac && !bc) {{
            Blas.gemm(a, CoopLayout.ColumnMajor, b, CoopLayout.RowMajor, c, m, n, k);
        }} else if (!ac && bc) {{
            Blas.gemm(a, CoopLayout.RowMajor, b, CoopLayout.ColumnMajor, c, m, n, k, s);
        }} else {{
            Blas.gemm(a, CoopLayout.ColumnMajor, b, CoopLayout.ColumnMajor, c, m, n, k);
        }}
        s.sync();
        {res}[] out = heap {res}[m * n];
        c.download(out);
        for (uint32 i = 0; i < m; i++) {{
            for (uint32 j = 0; j < n; j++) {{
                float64 want = 0.0;
                for (uint32 t = 0; t < k; t++) {{
                    want += (float64) ha[at(i, t, m, k, ac)] * (float64) hb[at(t, j, k, n, bc)];
                }}
                if ((float64) out[i * n + j] != want) {{
                    System.out.printf(\"{p} %dx%dx%d: C[%d][%d] = %f, want %f%n\", m, n, k, i, j, (float64) out[i * n + j], want);
                    return -1;
                }}
            }}
        }}
        return (int32) (m * n);
    }}
",
        int = if p == "i8i32" { "true" } else { "false" },
    )
}

/// The whole program: every precision × shape × layout; returns the elements checked, or -1.
fn program() -> String {
    let mut checks = String::new();
    let mut calls = String::new();
    for prec in PRECISIONS {
        checks.push_str(&check_fn(prec));
        for (m, n, k) in SHAPES {
            for (ac, bc) in [(false, false), (true, false), (false, true), (true, true)] {
                calls.push_str(&format!(
                    "        r = check_{}({m}, {n}, {k}, {ac}, {bc}, s);\n        if (r < 0) {{ return -1; }}\n        total += r;\n",
                    prec.0
                ));
            }
        }
    }
    format!(
        "package tests;
import cajeta.xpu.*;

public final class BlasApi {{
    // Input i of `seed`: a multiple of 1/2 in [-1, 1] (an integer in [-4, 4] for int8), so
    // every sum here is exact in float16 and float32.
    static float32 input(uint32 i, uint32 seed, boolean integer) {{
        uint32 h = (i * 2654435761 + seed * 40503) % 9;
        if (integer) {{ return (float32) h - 4.0f; }}
        return ((float32) (h % 5) - 2.0f) / 2.0f;
    }}

    // Where element (r, c) of a rows × cols matrix lies in its layout.
    static uint32 at(uint32 r, uint32 c, uint32 rows, uint32 cols, boolean colMajor) {{
        return colMajor ? c * rows + r : r * cols + c;
    }}
{checks}
    public static int32 main(String[] args) {{
        // The uploads and downloads are on the default stream: the GEMM goes there too.
        KernelStream s = KernelStream.current();
        int32 total = 0;
        int32 r = 0;
{calls}        return total;
    }}
}}
"
    )
}

fn run(
    ctx: &cajeta_runtime::Context,
    text: String,
    mode: HostMode,
) -> (Result<String, String>, String) {
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let result = driver::run_program_mode(
        &mut sources,
        &[("blas_api.cajeta".to_string(), text)],
        &SpirvOptions::default(),
        &[],
        &mut io,
        None,
        mode,
    );
    let printed = String::from_utf8_lossy(&out).into_owned();
    let r = match result {
        Ok(HostOutcome::Returned(v)) => Ok(v.to_string()),
        Ok(HostOutcome::Void) => Err("returned nothing".to_string()),
        Err(RunError::Compile(d)) => Err(cajetac::diagnostics::render_human(&sources, &d)),
        Err(RunError::NoEntryPoint) => Err("no entry point".into()),
        Err(RunError::NotNative(m)) => Err(m),
        Err(RunError::Runtime(e)) => Err(e.render(&sources)),
    };
    (r, printed)
}

/// The modes to run: both executors where native host code is built in.
fn modes() -> Vec<HostMode> {
    let mut m = vec![HostMode::Interp];
    if driver::native_support().is_ok() {
        m.push(HostMode::Native);
    }
    m
}

#[test]
fn blas_gemm_from_host_code_matches_in_both_executors() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let per_precision: u32 = SHAPES.iter().map(|(m, n, _)| 4 * m * n).sum();
    let want = (4 * per_precision).to_string();
    for mode in modes() {
        let (r, printed) = run(&ctx, program(), mode);
        assert_eq!(
            r.as_deref(),
            Ok(want.as_str()),
            "{mode:?}: printed {printed}"
        );
    }
}

#[test]
fn blas_gemm_on_unmatched_element_types_is_a_compile_error() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let text = "package tests;
import cajeta.xpu.*;
public final class Bad {
    public static int32 main(String[] args) {
        KernelBuffer<float16> a = heap KernelBuffer<float16>(4);
        KernelBuffer<int32> c = heap KernelBuffer<int32>(4);
        Blas.gemm(a, a, c, 2, 2, 2);
        return 0;
    }
}
";
    let (r, _) = run(&ctx, text.to_string(), HostMode::Interp);
    let e = r.expect_err("no overload takes float16 operands and an int32 result");
    assert!(e.contains("error[E0008]"), "{e}");
    assert!(e.contains("`Blas.gemm` has no precision"), "{e}");
    assert!(e.contains("int8 → int32"), "{e}");
}

#[test]
fn blas_gemm_on_a_buffer_too_small_names_it_in_both_executors() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let text = "package tests;
import cajeta.xpu.*;
public final class Small {
    public static int32 main(String[] args) {
        KernelBuffer<int8> a = heap KernelBuffer<int8>(6);
        KernelBuffer<int8> b = heap KernelBuffer<int8>(12);
        KernelBuffer<int32> c = heap KernelBuffer<int32>(8);
        Blas.gemm(a, b, c, 2, 4, 3);
        Blas.gemm(a, b, c, 3, 4, 3);
        return 0;
    }
}
";
    for mode in modes() {
        let (r, _) = run(&ctx, text.to_string(), mode);
        let e = r.expect_err("a is 6 elements, m × k is 9");
        assert!(
            e.contains("Blas.gemm: a has 6 elements, fewer than m × k = 3 × 3 = 9"),
            "{mode:?}: {e}"
        );
        assert!(
            e.contains("small.cajeta") || e.contains("blas_api.cajeta"),
            "{e}"
        );
    }
}

/// C sharing memory with A or B (the same buffer, or overlapping slices of one) is a
/// run-time error in both executors: the kernels write C while other workgroups still read
/// A and B, and lavapipe gave wrong products; disjoint slices of one buffer are fine.
#[test]
fn blas_gemm_refuses_a_c_that_shares_memory_with_a_or_b() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let program = |call: &str| {
        format!(
            "package tests;
import cajeta.xpu.*;
public final class Alias {{
    public static int32 main(String[] args) {{
        KernelBuffer<float32> f = heap KernelBuffer<float32>(64);
        KernelBuffer<float16> h = heap KernelBuffer<float16>(128);
        h.upload(heap float16[128]);
        {call}
        return 777;
    }}
}}
"
        )
    };
    for mode in modes() {
        for (call, shared) in [
            // Slices start at multiples of 64 bytes (any device's offset alignment).
            ("Blas.gemm(h, h.slice(64, 16), h, 4, 4, 4);", Some("A")),
            (
                "Blas.gemm(h.slice(0, 16), h.slice(32, 16), h.slice(40, 16), 4, 4, 4);",
                Some("B"),
            ),
            (
                "Blas.gemm(h.slice(0, 16), h.slice(32, 16), h.slice(64, 16), 4, 4, 4);",
                None,
            ),
            ("Blas.gemm(h, h, f, 4, 4, 4);", None),
        ] {
            let (r, _) = run(&ctx, program(call), mode);
            match shared {
                Some(name) => {
                    let e = r.expect_err(call);
                    assert!(
                        e.contains(&format!("C shares memory with {name}")),
                        "{mode:?} {call}: {e}"
                    );
                }
                None => assert_eq!(r.as_deref(), Ok("777"), "{mode:?} {call}"),
            }
        }
    }
}

/// examples/gemm.cajeta and examples/gemm_int8.cajeta call the library at their small size
/// and report every element exact, in both executors.
#[test]
fn the_gemm_examples_check_every_element_of_the_library_product() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let root = cajeta_tests::tests_dir().join("../examples");
    for (file, line) in [
        (
            "gemm.cajeta",
            "library gemm: 4 products, all 130000 elements exact",
        ),
        (
            "gemm_int8.cajeta",
            "library gemm int8: 2 products, all 65000 elements exact",
        ),
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect("example");
        for mode in modes() {
            let (r, printed) = run(&ctx, text.clone(), mode);
            assert_eq!(r.as_deref(), Ok("0"), "{file} {mode:?}: {printed}");
            assert!(printed.contains(line), "{file} {mode:?}: {printed}");
        }
    }
}
