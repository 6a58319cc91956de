//! Native host code (feature `native-host`) against the interpreter: every program of
//! `compiler/tests/native_host/` and a seeded random arithmetic corpus run through both, and
//! their output, result and runtime errors must be identical. Also the fallback rules of
//! `--host` and `cajetac build --emit llvm`.

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
fn differential(name: &str, src: &str) -> Run {
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

/// A tiny deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const INT_TYPES: [(&str, u32); 8] = [
    ("int8", 8),
    ("int16", 16),
    ("int32", 32),
    ("int64", 64),
    ("uint8", 8),
    ("uint16", 16),
    ("uint32", 32),
    ("uint64", 64),
];

/// A random expression over `vars` (all of one type); `/` and `%` divide by a variable of
/// `nonzero` only, so that every statement runs.
fn gen_expr(rng: &mut Rng, vars: &[String], nonzero: &[String], depth: u32, float: bool) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return vars[rng.below(vars.len())].clone();
    }
    let ops: &[&str] = if float {
        &["+", "-", "*", "/", "%"]
    } else {
        &["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", ">>>"]
    };
    let op = ops[rng.below(ops.len())];
    let a = gen_expr(rng, vars, nonzero, depth - 1, float);
    match op {
        "/" | "%" => format!("({a} {op} {})", nonzero[rng.below(nonzero.len())]),
        _ => {
            let b = gen_expr(rng, vars, nonzero, depth - 1, float);
            if rng.below(5) == 0 {
                let cmp = ["<", "<=", ">", ">=", "==", "!="][rng.below(6)];
                format!("(({a} {cmp} {b}) ? {a} : ({b} {op} {a}))")
            } else {
                format!("({a} {op} {b})")
            }
        }
    }
}

/// A program printing many random expressions at every integer width and both float
/// widths, with edge values (MIN, MAX, -1, 0, NaN, infinities) among the operands, plus
/// conversions between all the types.
fn random_program(seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut body = String::new();
    let mut all_vars: Vec<(String, &str)> = Vec::new();
    for (t, bits) in INT_TYPES {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let edges = [0u64, 1, mask, mask >> 1, (mask >> 1) + 1, 2, 7];
        let (mut vars, mut nonzero) = (Vec::new(), Vec::new());
        for i in 0..5 {
            let v = if rng.below(2) == 0 {
                edges[rng.below(edges.len())]
            } else {
                rng.next() & mask
            };
            let name = format!("{t}_{i}");
            body.push_str(&format!("        {t} {name} = 0x{v:X};\n"));
            if v != 0 {
                nonzero.push(name.clone());
            }
            all_vars.push((name.clone(), t));
            vars.push(name);
        }
        if nonzero.is_empty() {
            body.push_str(&format!("        {t} {t}_nz = 3;\n"));
            nonzero.push(format!("{t}_nz"));
        }
        for _ in 0..40 {
            let e = gen_expr(&mut rng, &vars, &nonzero, 3, false);
            body.push_str(&format!("        System.out.println({e});\n"));
        }
    }
    for t in ["float32", "float64"] {
        let suffix = if t == "float32" { "f" } else { "" };
        let values = [
            "0.0", "-0.0", "1.5", "-2.75", "1.0e-3", "3.0e9", "0.1", "7.0",
        ];
        let mut vars = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let name = format!("{t}_{i}");
            body.push_str(&format!("        {t} {name} = {v}{suffix};\n"));
            vars.push(name.clone());
            all_vars.push((name, t));
        }
        body.push_str(&format!(
            "        {t} {t}_nan = {t}_0 / {t}_0;\n        {t} {t}_inf = {t}_2 / {t}_0;\n"
        ));
        vars.push(format!("{t}_nan"));
        vars.push(format!("{t}_inf"));
        all_vars.push((format!("{t}_nan"), t));
        all_vars.push((format!("{t}_inf"), t));
        let nonzero = vars.clone();
        for _ in 0..40 {
            let e = gen_expr(&mut rng, &vars, &nonzero, 3, true);
            body.push_str(&format!("        System.out.println({e});\n"));
        }
    }
    // Conversions between every pair of types, from random variables.
    let types = [
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
        "float64",
    ];
    for _ in 0..120 {
        let (v, _) = &all_vars[rng.below(all_vars.len())];
        let to = types[rng.below(types.len())];
        body.push_str(&format!("        System.out.println(({to}) {v});\n"));
    }
    format!("public class R {{\n    public static void main() {{\n{body}    }}\n}}\n")
}

#[test]
fn random_arithmetic_agrees_with_the_interpreter() {
    for seed in 1..=6u64 {
        let src = random_program(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let r = differential(&format!("random_{seed}.cajeta"), &src);
        assert_eq!(r.end, "void", "seed {seed}");
        assert!(r.out.lines().count() >= 520, "seed {seed}: {}", r.out);
    }
}

/// Vector types of the random vector programs: type, lane type, lanes, float.
const VECTOR_TYPES: [(&str, &str, usize, bool); 4] = [
    ("Vector<int32,4>", "int32", 4, false),
    ("Vector<uint32,3>", "uint32", 3, false),
    ("Vector<float32,4>", "float32", 4, true),
    ("Vector<float64,2>", "float64", 2, true),
];

/// A random vector expression over `vars` (all of type `ty`, `n` lanes): operators,
/// masks, swizzles, splats of a lane and methods; `/` and `%` divide by a variable of
/// `nonzero` (no zero lane) only.
fn gen_vector_expr(
    rng: &mut Rng,
    (ty, lane, n, float): (&str, &str, usize, bool),
    vars: &[String],
    nonzero: &[String],
    depth: u32,
) -> String {
    let t = (ty, lane, n, float);
    if depth == 0 || rng.below(4) == 0 {
        return vars[rng.below(vars.len())].clone();
    }
    let a = gen_vector_expr(rng, t, vars, nonzero, depth - 1);
    let b = gen_vector_expr(rng, t, vars, nonzero, depth - 1);
    let reverse = &"xyzw"[..n].chars().rev().collect::<String>();
    match rng.below(9) {
        0 => format!("({a} / {})", nonzero[rng.below(nonzero.len())]),
        1 => format!("({a} % {})", nonzero[rng.below(nonzero.len())]),
        2 => {
            let cmp = ["<", "<=", ">", ">=", "==", "!="][rng.below(6)];
            format!("({a} {cmp} {b}).select({a}, {b})")
        }
        3 => format!("({a}).{reverse}"),
        4 => format!("stack {ty}(({a}).y)"),
        5 => {
            let m = ["min", "max"][rng.below(2)];
            format!("({a}).{m}({b})")
        }
        6 if float => match rng.below(4) {
            0 => format!("({a}).lerp({b}, ({a}).x)"),
            1 => format!("Math.floor({a})"),
            2 => format!("Math.abs({a})"),
            _ => format!("stack {ty}(({a}).dot({b}))"),
        },
        6 => format!("({a}).clamp({b}, {})", vars[0]),
        7 if !float => {
            let op = ["&", "|", "^"][rng.below(3)];
            format!("({a} {op} {b})")
        }
        _ => {
            let op = ["+", "-", "*"][rng.below(3)];
            if rng.below(6) == 0 {
                format!("(-{a} {op} {b})")
            } else {
                format!("({a} {op} {b})")
            }
        }
    }
}

/// A program printing random vector expressions of every type of [`VECTOR_TYPES`], with
/// edge lanes (MIN, MAX, 0, -0.0, NaN, infinities) among the operands.
fn random_vector_program(seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut body = String::new();
    for (k, t @ (ty, lane, n, float)) in VECTOR_TYPES.into_iter().enumerate() {
        let edges: &[&str] = match lane {
            "int32" => &[
                "0",
                "1",
                "-1",
                "2147483647",
                "-2147483648",
                "7",
                "-3",
                "65536",
            ],
            "uint32" => &["0", "1", "4294967295", "2147483648", "7", "3", "65536"],
            "float32" => &[
                "0.0f", "-0.0f", "1.5f", "-2.75f", "1.0e-3f", "3.0e9f", "0.1f", "nan32", "inf32",
            ],
            _ => &[
                "0.0", "-0.0", "1.5", "-2.75", "1.0e-3", "3.0e300", "0.1", "nan64", "inf64",
            ],
        };
        let (mut vars, mut nonzero) = (Vec::new(), Vec::new());
        for i in 0..5 {
            let lanes: Vec<&str> = (0..n).map(|_| edges[rng.below(edges.len())]).collect();
            let name = format!("v{k}_{i}");
            body.push_str(&format!(
                "        {ty} {name} = stack {ty}({});\n",
                lanes.join(", ")
            ));
            if float || lanes.iter().all(|l| *l != "0") {
                nonzero.push(name.clone());
            }
            vars.push(name);
        }
        if nonzero.is_empty() {
            body.push_str(&format!("        {ty} v{k}_nz = stack {ty}(3);\n"));
            nonzero.push(format!("v{k}_nz"));
        }
        for _ in 0..30 {
            let e = gen_vector_expr(&mut rng, t, &vars, &nonzero, 3);
            body.push_str(&format!("        System.out.println({e});\n"));
        }
    }
    format!(
        "public class R {{\n    public static void main() {{\n        float32 nan32 = 0.0f / 0.0f;\n        float32 inf32 = 1.0f / 0.0f;\n        float64 nan64 = 0.0 / 0.0;\n        float64 inf64 = 1.0 / 0.0;\n{body}    }}\n}}\n"
    )
}

#[test]
fn random_vector_arithmetic_agrees_with_the_interpreter() {
    for seed in 1..=4u64 {
        let src = random_vector_program(seed.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let r = differential(&format!("random_vectors_{seed}.cajeta"), &src);
        assert_eq!(r.end, "void", "seed {seed}:\n{src}");
        assert!(r.out.lines().count() >= 120, "seed {seed}: {}", r.out);
    }
}

pub(crate) fn cajetac() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cajetac"))
}

#[test]
fn cli_host_modes_and_exit_statuses() {
    let dir = corpus_dir();
    let out = cajetac()
        .args(["run", "--host", "native"])
        .arg(dir.join("div_zero.cajeta"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "start\nstep 3\nstep 2\nstep 1\nstep 0\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.trim_end()
            .ends_with("div_zero.cajeta:5:16: runtime error: integer division by zero"),
        "{err}"
    );

    for mode in ["auto", "native", "interp"] {
        let out = cajetac()
            .args(["run", "--host", mode])
            .arg(dir.join("arrays.cajeta"))
            .args(["--", "a", "b", "c"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{mode}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\n100 3\n"), "{mode}: args.length: {text}");
    }
    let out = cajetac()
        .arg("run")
        .arg(dir.join("calls.cajeta"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("9000\n55\n"));
}

#[test]
fn build_emit_llvm_writes_the_host_module() {
    let out = std::env::temp_dir().join(format!("cajetac-emit-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let status = cajetac()
        .args(["build", "--emit", "llvm", "-o"])
        .arg(&out)
        .arg(corpus_dir().join("calls.cajeta"))
        .status()
        .unwrap();
    assert!(status.success());
    let ir = std::fs::read_to_string(out.join("calls.ll")).unwrap();
    assert!(ir.contains("i32 @cajeta.main(ptr"), "{ir}");
    assert!(ir.contains("@\"Calls.fib#"), "{ir}");
    assert!(ir.contains("@cajeta.depth"), "{ir}");
    // A loop over an array is native code: it takes the array's view once and never calls
    // into the interpreter; the allocation `heap int32[n]` is a typed call of the runtime.
    let status = cajetac()
        .args(["build", "--emit", "llvm", "-o"])
        .arg(&out)
        .arg(corpus_dir().join("array_loop.cajeta"))
        .status()
        .unwrap();
    assert!(status.success());
    let ir = std::fs::read_to_string(out.join("array_loop.ll")).unwrap();
    assert!(ir.contains("@cajeta_array_view("), "{ir}");
    for delegated in [
        "@cajeta_eval_int(",
        "@cajeta_eval_void(",
        "@cajeta_exec(",
        "@cajeta_eval_into(",
    ] {
        assert!(!ir.contains(delegated), "{delegated}: {ir}");
    }
    assert_eq!(ir.matches("call i32 @cajeta_array_new(").count(), 1, "{ir}");
    std::fs::remove_dir_all(&out).ok();
}

/// Runs every program under `dir` (those with a host entry point) through `cajetac run` with
/// the interpreter and with native code; output, errors and exit status must be identical.
/// Device programs included: launches, transfers and images are shared code, but the host
/// loops that fill and check them are native on one side and interpreted on the other.
fn both_executors_agree_on(dir: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cajeta"))
        .collect();
    files.sort();
    let mut ran = 0;
    for file in &files {
        let src = std::fs::read_to_string(file).unwrap();
        if !(src.contains(" run()") || src.contains(" main(")) {
            continue;
        }
        let run = |mode: &str| {
            // In a directory of its own: examples write their pictures to the working
            // directory.
            let stem = file.file_stem().unwrap().to_string_lossy();
            let pid = std::process::id();
            let cwd = std::env::temp_dir().join(format!("cajeta-both-{pid}-{stem}-{mode}"));
            std::fs::create_dir_all(&cwd).unwrap();
            let out = cajetac()
                .args(["run", "--host", mode])
                .arg(file)
                .current_dir(&cwd)
                .output()
                .unwrap();
            std::fs::remove_dir_all(&cwd).ok();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let interp = run("interp");
        let native = run("native");
        // Agreeing on a bug of the shared code is no agreement.
        assert!(
            !interp.2.contains("internal error"),
            "{}: {}",
            file.display(),
            interp.2
        );
        assert_eq!(interp, native, "{}: interpreter vs native", file.display());
        ran += 1;
    }
    assert!(ran > 0, "no programs under {dir}");
}

#[test]
fn examples_agree_on_both_executors() {
    both_executors_agree_on("examples");
}

#[test]
fn device_programs_agree_on_both_executors() {
    both_executors_agree_on("tests/device");
}

#[test]
fn host_io_and_checked_programs_agree_on_both_executors() {
    for dir in [
        "tests/host_io",
        "tests/checked",
        "compiler/tests/native_host",
    ] {
        both_executors_agree_on(dir);
    }
}

#[test]
fn stream_and_event_errors_match_the_interpreter() {
    let file = "stream_errors.cajeta";
    let src = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let unrecorded =
        "invalid resource: the event has not been recorded on a stream (call recordOn first)";
    let destroyed = "use of a KernelStream after destroy()";
    let cases = [
        ("0", None),
        ("1", Some(("15:13", unrecorded.to_string()))),
        ("2", Some(("18:13", unrecorded.to_string()))),
        ("3", Some(("21:32", unrecorded.to_string()))),
        ("4", Some(("24:32", unrecorded.to_string()))),
        (
            "5",
            Some((
                "28:13",
                "KernelStream destroyed with work in flight: call sync() on it (or wait for an event recorded after its last work) first".to_string(),
            )),
        ),
        (
            "6",
            Some((
                "32:13",
                "KernelStream.current() is the program's default stream and cannot be destroyed"
                    .to_string(),
            )),
        ),
        ("7", Some(("36:13", destroyed.to_string()))),
        ("8", Some(("39:22", destroyed.to_string()))),
        ("9", Some(("42:13", destroyed.to_string()))),
        (
            "10",
            Some((
                "45:41",
                "KernelBuffer `data`.slice(4, 5) is out of bounds: the buffer has 8 elements (a slice needs 1 <= count and offset + count <= length)".to_string(),
            )),
        ),
        (
            "11",
            Some((
                "51:13",
                "the array is the target of a downloadAsync that has not landed: call sync() on its stream (or waitHost() on an event recorded after it) before using the array in another transfer".to_string(),
            )),
        ),
    ];
    for (what, error) in cases {
        let r = differential_with(file, &src, &[what.to_string()]);
        match error {
            None => {
                assert_eq!(r.out, "done 1.0\n", "case {what}");
                assert_eq!(r.end, "returned 0", "case {what}");
            }
            Some((at, message)) => {
                assert_eq!(r.out, "", "case {what}");
                assert_eq!(
                    r.end,
                    format!("runtime error: {file}:{at}: runtime error: {message}"),
                    "case {what}"
                );
            }
        }
    }
}

#[test]
fn scene_building_errors_match_the_interpreter() {
    // Bad arrays are refused by the runtime before it asks the device anything, but a
    // context is still needed: without a device both executors only say so.
    let ctx = match cajeta_runtime::Context::new() {
        Ok(c) => c,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI=true but no usable Vulkan device: {e}")
        }
        Err(_) => return,
    };
    let file = "scene_errors.cajeta";
    let src = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let triangles = "AccelerationStructure.fromTriangles";
    let cases = [
        (
            "1",
            "13:41",
            format!("{triangles}: the vertex array holds 4 floats, not a multiple of 3 (x, y, z per vertex)"),
        ),
        (
            "2",
            "17:41",
            format!("{triangles}: index 4 at position 2 is out of range for 4 vertices"),
        ),
        (
            "3",
            "21:41",
            format!("{triangles}: a triangle acceleration structure needs at least one triangle (the vertex array is empty)"),
        ),
        (
            "4",
            "24:41",
            format!("{triangles}: 4 vertices without an index array do not make whole triangles (three vertices each)"),
        ),
        (
            "5",
            "28:41",
            "AccelerationStructure.fromAabbs: the box array holds 5 floats, not a non-zero multiple of 6 (minX, minY, minZ, maxX, maxY, maxZ per box)".to_string(),
        ),
        (
            "6",
            "32:41",
            "AccelerationStructure.fromAabbs: box 0 has a minimum above its maximum (or a NaN bound)".to_string(),
        ),
    ];
    for (what, at, message) in cases {
        let r = differential_with(file, &src, &[what.to_string()]);
        assert_eq!(r.out, "", "case {what}");
        assert_eq!(
            r.end,
            format!("runtime error: {file}:{at}: runtime error: {message}"),
            "case {what}"
        );
    }
    // Valid input (and the instance cases, which need scenes first): built where the device
    // can, else the error at the first scene names the extension.
    let instance_cases = [
        (
            "7",
            "42:41",
            "AccelerationStructure.instanced: the transform array holds 3 floats, not a non-zero multiple of 12 (a row-major 3x4 matrix per instance)",
        ),
        (
            "8",
            "47:41",
            "AccelerationStructure.instanced: mask 256 of instance 1 does not fit in 8 bits",
        ),
        (
            "9",
            "51:41",
            "AccelerationStructure.instanced: the part is itself an instanced scene; instance a scene made by fromTriangles or fromAabbs",
        ),
    ];
    let r = differential_with(file, &src, &[]);
    if ctx.supports_acceleration_structures() {
        assert_eq!((r.out.as_str(), r.end.as_str()), ("built\n", "returned 0"));
        for (what, at, message) in instance_cases {
            let r = differential_with(file, &src, &[what.to_string()]);
            assert_eq!(
                r.end,
                format!("runtime error: {file}:{at}: runtime error: {message}"),
                "case {what}"
            );
        }
    } else {
        let unsupported = format!(
            "runtime error: {file}:34:39: runtime error: {triangles}: building acceleration structures needs Vulkan extension `VK_KHR_acceleration_structure` (with `VK_KHR_deferred_host_operations` and the `accelerationStructure` and `bufferDeviceAddress` features), which device `{}` does not support",
            ctx.device_info().name
        );
        assert_eq!(r.end, unsupported);
        for (what, _, _) in instance_cases {
            let r = differential_with(file, &src, &[what.to_string()]);
            assert_eq!(r.end, unsupported, "case {what}");
        }
    }
}
