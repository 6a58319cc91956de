//! Native host code (feature `native-host`) against the interpreter: every program of
//! `compiler/tests/native_host/` run through both, and their output, result and runtime
//! errors must be identical. The seeded random programs are in `native_host_random.rs`,
//! whole programs through `cajetac run` and the fallback rules of `--host` in
//! `native_host_programs.rs`; this module holds the runner both use.

use std::path::PathBuf;
use std::process::Command;

use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver::{self, HostMode, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::SpirvOptions;

pub(crate) fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/native_host")
}

/// Output and how the run ended, in words.
#[derive(Debug, PartialEq)]
pub(crate) struct Run {
    pub(crate) out: String,
    pub(crate) end: String,
}

fn run(name: &str, src: &str, mode: HostMode, args: &[String]) -> Run {
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: None,
    };
    let files = [(name.to_string(), src.to_string())];
    let options = SpirvOptions::default();
    let result =
        driver::run_program_mode(&mut sources, &files, &options, args, &mut io, None, mode);
    let end = match result {
        Ok(HostOutcome::Returned(v)) => format!("returned {v}"),
        Ok(HostOutcome::Void) => "void".to_string(),
        Err(RunError::Runtime(e)) => format!("runtime error: {}", e.render(&sources)),
        Err(RunError::NotNative(m)) => format!("not native: {m}"),
        Err(RunError::NoEntryPoint) => "no entry point".to_string(),
        Err(RunError::Compile(d)) => panic!("{name}:\n{}", render_human(&sources, &d)),
    };
    Run {
        out: String::from_utf8_lossy(&out).into_owned(),
        end,
    }
}

/// Runs `src` both ways, checks that it really ran natively and that both agree; returns
/// the (common) run.
pub(crate) fn differential(name: &str, src: &str) -> Run {
    differential_with(name, src, &[])
}

/// [`differential`] with command-line arguments.
pub(crate) fn differential_with(name: &str, src: &str, args: &[String]) -> Run {
    let interp = run(name, src, HostMode::Interp, args);
    let native = run(name, src, HostMode::Native, args);
    assert!(
        !native.end.starts_with("not native"),
        "{name} should lower: {}",
        native.end
    );
    if interp != native {
        let (i, n) = (interp.out.lines(), native.out.lines());
        let first = i
            .zip(n)
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(k, (a, b))| format!("line {}: interpreter `{a}`, native `{b}`", k + 1));
        panic!(
            "{name}: native differs from the interpreter\n{}\ninterpreter end: {}\nnative end: {}",
            first.unwrap_or_else(|| "(outputs differ in length)".into()),
            interp.end,
            native.end
        );
    }
    native
}

fn corpus(file: &str) -> Run {
    let path = corpus_dir().join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    differential(file, &src)
}

#[test]
fn integers_agree_with_the_interpreter() {
    let r = corpus("ints.cajeta");
    // Independent spot checks: MIN / -1, MIN % -1, shifts modulo the width, u64 printing.
    assert!(r.out.starts_with("-2147483648\n0\n"), "{}", r.out);
    assert!(r.out.contains("\n18446744073709551615\n"), "{}", r.out);
    assert!(r.out.contains("\n8589934592\n"), "1L << 33: {}", r.out);
    assert_eq!(r.end, "returned -1712993020");
}

#[test]
fn literal_suffixes_agree_with_the_interpreter() {
    let r = corpus("literal_suffixes.cajeta");
    assert_eq!(
        r.out,
        "5 4294967295 18446744073709551615 12 170 15 18446744073709551615\n\
         1333333333 true\n42 4294967296\n"
    );
    assert_eq!(r.end, "returned 63");
}

#[test]
fn switches_agree_with_the_interpreter() {
    let r = corpus("switch.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    // Fall-through from `default` into `case 5`, and from `case 1` into `case 2`.
    assert_eq!(lines[0], "0: 4999 0 zero");
    assert_eq!(lines[1], "1: 11 10 one");
    assert_eq!(lines[2], "2: 10 20 many");
    assert_eq!(lines[5], "5: 5000 0 many");
    // `continue` of the loop from a switch; `break` in a switch leaves only the switch.
    assert_eq!(lines[7], "total 3308");
    assert_eq!(lines[8], "11 12 100 206 -7");
    assert_eq!(r.end, "returned 321081");
}

#[test]
fn nano_time_is_monotonic_on_both_executors() {
    let r = corpus("nano_time.cajeta");
    assert_eq!(
        r.out,
        "monotonic: true\ntime passed: true\nunder a minute: true\nwork: true\n"
    );
    assert_eq!(r.end, "returned 0");
}

#[test]
fn floats_agree_with_the_interpreter() {
    let r = corpus("floats.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(&lines[..4], ["NaN", "Infinity", "-Infinity", "-0.0"]);
    // a * b + c rounded twice (a fused multiply-add gives -1.0E-16).
    assert!(lines.contains(&"-2.220446049250313E-16"), "{}", r.out);
    // (int32) NaN, (int32) ±Infinity.
    assert!(
        r.out.contains("\n0\n0\n0\n2147483647\n-2147483648\n"),
        "{}",
        r.out
    );
    assert_eq!(r.end, "returned 7485");
}

#[test]
fn statements_and_short_circuits_agree_with_the_interpreter() {
    let r = corpus("control.cajeta");
    assert!(r.out.contains("a c e f g \n"), "{}", r.out);
    assert!(r.out.contains("5 4 3 2 1 liftoff\n"), "{}", r.out);
    assert_eq!(r.end, "returned 203");
}

#[test]
fn outlined_loops_agree_with_the_interpreter() {
    let r = corpus("outlined_loops.cajeta");
    let expected =
        "first over 10: 6, over 99: -1\n0,1,2,3,4!\nreport stops at 7\nreport ran through\n\
                    total 410 wide 107018 f 429.48681640625 seen true\nacc length 5 sum 406\nk 56\n\
                    leaving at 312\nwrite 0\nwrite 1\nwrite 2\nwrite 3\n";
    assert_eq!(r.out, expected);
    assert!(
        r.end
            .ends_with("118:13: runtime error: array index 3 out of bounds for length 3"),
        "{}",
        r.end
    );
}

#[test]
fn calls_recursion_and_strings_agree_with_the_interpreter() {
    let r = corpus("calls.cajeta");
    assert!(r.out.starts_with("75025\n9\nfalse true\n"), "{}", r.out);
    assert!(r.out.contains("hi bob0;hi bob1;hi bob2;\n"), "{}", r.out);
    assert_eq!(r.end, "returned 55");
}

#[test]
fn runtime_errors_match_the_interpreter_position_and_message() {
    let cases = [
        ("div_zero.cajeta", "5:16: runtime error: integer division by zero"),
        ("rem_zero.cajeta", "6:16: runtime error: integer remainder by zero"),
        (
            "deep_recursion.cajeta",
            "7:16: runtime error: recursion too deep: more than 10000 nested host calls (in `down`)",
        ),
        (
            "parse_wide.cajeta",
            "7:16: runtime error: Long.parseLong: \"9223372036854775808\" is out of the int64 range",
        ),
        (
            "string_index.cajeta",
            "6:16: runtime error: charAt: index 3 out of bounds for length 3",
        ),
        (
            "printf_error.cajeta",
            "7:9: runtime error: printf: `%d` needs an integer, found a non-scalar value",
        ),
    ];
    for (file, message) in cases {
        let r = corpus(file);
        assert!(
            r.end.starts_with("runtime error: ") && r.end.ends_with(message),
            "{file}: {}",
            r.end
        );
    }
    let r = corpus("div_zero.cajeta");
    assert_eq!(r.out, "start\nstep 3\nstep 2\nstep 1\nstep 0\n");
    let r = corpus("parse_wide.cajeta");
    assert_eq!(r.out, "-9223372036854775808 0.1 1.0E308 42\n");
    assert_eq!(corpus("printf_error.cajeta").out, "3 items\n");
}

/// One function's checks share one failure path in native code: each failing check must
/// still report its own position and values.
#[test]
fn checks_sharing_one_failure_path_keep_their_positions_and_values() {
    let file = "failure_sites.cajeta";
    let src = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let cases = [
        ("0", None),
        (
            "1",
            Some("10:22: runtime error: array index 4 out of bounds for length 4"),
        ),
        (
            "2",
            Some("14:26: runtime error: array index -1 out of bounds for length 4"),
        ),
        ("3", Some("17:18: runtime error: integer division by zero")),
        ("4", Some("20:18: runtime error: integer remainder by zero")),
        (
            "5",
            Some("23:18: runtime error: array index 201 out of bounds for length 4"),
        ),
        (
            "6",
            Some("27:26: runtime error: array index 4294967295 out of bounds for length 4"),
        ),
    ];
    for (what, error) in cases {
        let r = differential_with(file, &src, &[what.to_string()]);
        assert!(
            r.out.starts_with(&format!("picked {what}\n")),
            "{what}: {}",
            r.out
        );
        match error {
            None => {
                assert_eq!(r.out, "picked 0\nsum 202\n", "{what}");
                assert_eq!(r.end, "returned 0", "{what}");
            }
            Some(message) => {
                assert_eq!(r.out, format!("picked {what}\n"), "{what}");
                assert!(
                    r.end.starts_with("runtime error: ") && r.end.ends_with(message),
                    "{what}: {}",
                    r.end
                );
            }
        }
    }
}

#[test]
fn arrays_agree_with_the_interpreter() {
    let r = corpus("arrays.cajeta");
    assert!(
        r.out
            .starts_with("before\n22.5 3.0\n10 332833500\n[1, 2, 3, 4]\n100 0\n"),
        "{}",
        r.out
    );
    assert!(
        r.out
            .contains("\n4 -128 18446744073709551615 0.30000000000000004\n102 2\n7\n"),
        "{}",
        r.out
    );
    assert!(
        r.end.ends_with(
            "arrays.cajeta:65:16: runtime error: array index 4 out of bounds for length 4"
        ),
        "{}",
        r.end
    );
    assert_eq!(
        corpus("array_loop.cajeta").end,
        "returned -8012104933169552640"
    );
}

#[test]
fn final_locals_run() {
    // `final int32 y;` assigned once later, and `final` in a for-initializer.
    assert_eq!(corpus("finals.cajeta").end, "returned 100");
}

#[test]
fn strings_agree_with_the_interpreter() {
    let r = corpus("strings.cajeta");
    assert_eq!(
        r.out,
        "x#0 0.0 false;x#1 0.1 true;x#2 0.2 false;\ntrue false y#-7\ntrue\n\
         18446744073709551615h=0.099975586 d=0.3333333333333333 f=0.33333334 u8=200 i64=-3 \
         i16=-32768 nan=NaNtrue-Infinity\ntrue\n"
    );
    assert_eq!(r.end, "returned 200");
}

#[test]
fn in_place_append_leaves_other_holders_unchanged() {
    let r = corpus("string_append.cajeta");
    assert_eq!(
        r.out,
        "a a12.5\na12.5a12.5\na12.5a12.5 a12.5a12.5x\na12.5a12.5x a12.5a12.5x!\n\
         <0123456789 01234\n"
    );
    assert_eq!(r.end, "returned 1");
}

#[test]
fn string_methods_behave_as_java() {
    let r = corpus("string_methods.cajeta");
    assert_eq!(
        r.out,
        "Hello, World 12 16\n72 World|Hello\ntrue false true\ntrue true false\n7 -1 2\n\
         -1 -1 0\nHELLO, WORLD hello, world 5\n"
    );
    assert_eq!(r.end, "returned 1096");
}

#[test]
fn string_forms_agree_with_the_interpreter() {
    let r = corpus("string_forms.cajeta");
    assert_eq!(
        r.out,
        "<ab3<ab\nn=3.5 true true true\n(1.0, -0.5, 2.0)|0.30000000000000004|250|-9|true|1.0E10\n\
         12 101 Wörld Hello\ntrue false true true false\n7 -4 HELLO, WÖRLD hello, wörld\n\
         -42 9000000000 125.0 -0.0\n  -42|Hell  |0.667|ff|xyxy|true\n\
         item-0:0;item-100:300;item-200:600;\nitem-0item-030\n"
    );
    assert_eq!(r.end, "returned 65");
}

/// Strings are native: building, comparing, the methods, parsing, printing and `printf`
/// make no hand-off to the interpreter.
#[test]
fn strings_run_without_the_interpreter() {
    for file in [
        "string_forms.cajeta",
        "strings.cajeta",
        "string_append.cajeta",
        "string_methods.cajeta",
        "parse_wide.cajeta",
        "printf_error.cajeta",
    ] {
        assert_eq!(handoffs(file), 0, "{file}");
    }
}

/// Every float `Math` function of stdlib on float32 and float64, 2,000 inputs each: the
/// bits of native code's results are the interpreter's (the corpus prints a hash of them
/// per function), and no call is handed to the interpreter. Before, float `min`, `max` and
/// `clamp` gave an operand's NaN (sign and payload) where the interpreter gives the
/// canonical one.
#[test]
fn math_functions_agree_bit_for_bit() {
    let r = corpus("math_all.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines.len(), 71, "{}", r.out);
    assert_eq!(
        lines[0].split(' ').take(2).collect::<Vec<_>>(),
        ["f64", "sqrt"]
    );
    assert_eq!(
        lines[68],
        "0.479425538604203 1.4142135 -3.141592653589793 3.0"
    );
    // min/max/clamp lanes: NaN is 0x7fc00000 (2143289344) whatever the operand's sign.
    assert_eq!(lines[69], "2143289344 2143289344 -2147483648 2143289344");
    assert_eq!(
        lines[70],
        "2143289344 2143289344 2143289344 2143289344 2143289344"
    );
    assert_eq!(handoffs("math_all.cajeta"), 0);
}

#[test]
fn math_edges_agree_with_the_interpreter() {
    let r = corpus("math_edges.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    // Java's Math.min/max: NaN wins, -0.0 is below +0.0; ties round to even; abs(MIN) wraps.
    assert_eq!(lines[0], "NaN NaN -0.0 0.0", "{}", r.out);
    assert_eq!(lines[2], "2.0 -2.0 4.0 -1.0 -0.0 -1.0", "{}", r.out);
    assert!(lines[3].starts_with("0.0 -2147483648 5 "), "{}", r.out);
    assert_eq!(lines[4], "3 4294967295 -3 -5", "{}", r.out);
    assert_eq!(r.end, "returned 915319267");
}

#[test]
fn delegated_operations_agree_with_the_interpreter() {
    let r = corpus("bridge.cajeta");
    assert_eq!(
        r.out,
        "3.0 (3.0, 6.0, 6.0) 6.0\n10.5\n2.15625\n42 8.125 ok\n45 2.0 1\n"
    );
    assert_eq!(r.end, "returned 45");
}

#[test]
fn vectors_and_matrices_agree_with_the_interpreter() {
    let r = corpus("vectors.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    // Independent spot checks: no FMA (`f * f + f` rounds twice), NaN and -0.0 through
    // `Math.min`/`max` lane by lane, MIN / -1 and integer wrap per lane, saturating lanes.
    assert_eq!(lines[7], "(0.11, 0.44444448) 0.12111112", "{}", r.out);
    assert!(
        lines[10].starts_with("(NaN, -0.0, -0.0, NaN) (NaN, 0.0, 0.0, NaN) "),
        "{}",
        r.out
    );
    assert!(
        lines[12].starts_with("(3, -2, 2147483647, -2147483648) (1, -1, 0, 0) (14, -14, -2, 0) "),
        "{}",
        r.out
    );
    assert_eq!(lines[16], "2147483647 -2147483648 0 -2", "{}", r.out);
    assert!(
        r.end
            .ends_with("vectors.cajeta:113:28: runtime error: integer division by zero"),
        "{}",
        r.end
    );
}

#[test]
fn pods_agree_with_the_interpreter() {
    let r = corpus("pods.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    // A copy and a by-value parameter leave the original alone; int32 lanes of a field wrap.
    assert_eq!(
        lines[0], "{(0.0, 10.0, 0.0), (1.0, 0.0, -0.5), 2.0, 0, true}",
        "{}",
        r.out
    );
    assert_eq!(
        lines[3], "6.0 2.0 (NaN, 0.0327, -0.5) false true",
        "{}",
        r.out
    );
    assert_eq!(
        lines[4], "{0.25, (2147483645, -8)} 2147483645 0.25",
        "{}",
        r.out
    );
    assert!(
        r.end
            .ends_with("pods.cajeta:65:20: runtime error: integer division by zero"),
        "{}",
        r.end
    );
}

#[test]
fn arrays_of_vectors_and_pods_agree_with_the_interpreter() {
    let r = corpus("element_arrays.cajeta");
    let lines: Vec<&str> = r.out.lines().collect();
    // New elements are zero; a copy out of an array leaves it alone; the callee shares the
    // array; the index of a field store is taken before its value changes it.
    assert_eq!(
        lines[0],
        "(0.0, 0.0, 0.0, 0.0) {(0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0, false} 8 4"
    );
    assert!(
        lines[1].starts_with("(7.0, 14.0, -14.0, 3.0) {(3.0, 3.0, 3.75), (0.0, -4.905, 1.5), 2.5, false} (-2147483648, 6) "),
        "{}",
        r.out
    );
    assert_eq!(lines[3], "2.0 2.0 2", "{}", r.out);
    assert!(
        r.end.ends_with(
            "element_arrays.cajeta:54:9: runtime error: array index 4 out of bounds for length 4"
        ),
        "{}",
        r.end
    );
}

/// How many hand-offs to the interpreter `cajetac run --host native` reports for `file`.
fn handoffs(file: &str) -> u64 {
    let out = cajetac()
        .args(["run", "--host", "native"])
        .arg(corpus_dir().join(file))
        .env("CAJETA_HOST_TIMING", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("native host code: "))
        .unwrap_or_else(|| panic!("no timing line: {err}"));
    let count = line
        .rsplit(", ")
        .next()
        .and_then(|t| t.strip_suffix(" hand-offs to the interpreter"))
        .unwrap_or_else(|| panic!("no hand-off count: {line}"));
    count.parse().unwrap()
}

#[test]
fn vector_loops_run_without_the_interpreter() {
    let r = corpus("vector_loops.cajeta");
    assert!(r.end.starts_with("returned "), "{}", r.end);
    assert_eq!(handoffs("vector_loops.cajeta"), 0);
    // The POD corpus, printing included, is native throughout, so the differential test
    // above compares native code; the vector corpus hands over only what involves its
    // `bfloat16` POD, an object (6 statements and expressions: its construction, the
    // reads of its fields in a print that is otherwise native, a lane store into it).
    assert_eq!(handoffs("pods.cajeta"), 0);
    // Elements of arrays of vectors and PODs are read and written natively, and
    // `heap T[n]` and array literals (of vectors and PODs here, of `float64` in the
    // constructor corpus) are typed calls: nothing is handed over.
    assert_eq!(handoffs("element_arrays.cajeta"), 0);
    assert_eq!(handoffs("vectors.cajeta"), 6);
    assert_eq!(handoffs("constructors.cajeta"), 0);
}

#[test]
fn constructors_agree_with_the_interpreter() {
    let r = corpus("constructors.cajeta");
    assert_eq!(
        r.out,
        "{0.5, 0.5, 0.5} {1.0, 0.5019608, 0.0} {0.25, 1.0, 0.0} {0.0, 0.0, 1.0}\n\
         {3.5, 8.5, 4, (1, 3), false}\n\
         {0.0, 0.0, 0, (0, 0), true}\n\
         {1.5, 1.5, 3, (0, 0), false}\n\
         {3, 4, (0.0, 1.0, 0.75)} 1.0\n\
         {7, 2.5} 749000\n"
    );
    assert_eq!(r.end, "returned 749011");
}

#[test]
fn pod_arrays_agree_with_the_interpreter() {
    let r = corpus("pod_arrays.cajeta");
    assert_eq!(
        r.out,
        "{(0.0, 0.0), 0, false} 3\n\
         {(0.0, 0.0), 0, false} {(0.0, 1.5), 42, true} {(0.0, 3.0), 4, false} {(0.0, 1.5), 0, true}\n\
         {(1.0, 2.0), 7, true} {(-1.0, 3.0), 4, false} {(0.0, 3.0), 4, false}\n"
    );
    assert!(
        r.end.contains(
            "pod_arrays.cajeta:35:9: runtime error: array index 46 out of bounds for length 3"
        ),
        "{}",
        r.end
    );
}

#[test]
fn legacy_buffer_errors_match_the_interpreter() {
    let file = "legacy_buffer_errors.cajeta";
    let src = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let no_memory = "has no device memory: `heap Buffer<T>(0, n)` makes none; call `data.allocate()` before using it";
    let cases = [
        ("0", None),
        ("1", Some(("17:13", format!("KernelBuffer `data` {no_memory}")))),
        ("2", Some(("20:13", format!("KernelBuffer `data` {no_memory}")))),
        ("3", Some(("23:69", format!("KernelBuffer `data` {no_memory}")))),
        (
            "4",
            Some((
                "26:13",
                "KernelBuffer `data` cannot be freed: it was never allocated (`heap Buffer<T>(0, n)` makes no memory until allocate())".to_string(),
            )),
        ),
        (
            "5",
            Some((
                "29:54",
                "there is no device 2: buffers live on device 0, the one host code runs on".to_string(),
            )),
        ),
        (
            "6",
            Some((
                "32:13",
                "KernelBuffer `data` is already allocated: allocate() makes memory for a buffer that has none (made by `heap Buffer<T>(0, n)`, or freed); free() it first to replace its memory".to_string(),
            )),
        ),
        (
            "7",
            Some((
                "36:13",
                "KernelBuffer `fresh` is already allocated: allocate() makes memory for a buffer that has none (made by `heap Buffer<T>(0, n)`, or freed); free() it first to replace its memory".to_string(),
            )),
        ),
    ];
    for (what, error) in cases {
        let r = differential_with(file, &src, &[what.to_string()]);
        match error {
            None => {
                assert_eq!(r.out, "made 8\ndone\n", "case {what}");
                assert_eq!(r.end, "returned 0", "case {what}");
            }
            Some((at, message)) => {
                assert_eq!(r.out, "made 8\n", "case {what}");
                assert_eq!(
                    r.end,
                    format!("runtime error: {file}:{at}: runtime error: {message}"),
                    "case {what}"
                );
            }
        }
    }
}

pub(crate) fn cajetac() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cajetac"))
}
