//! Differential arithmetic (SPEC §3, §4): a table of boundary inputs goes through every
//! operator and conversion on the device and in host code, in one generated Cajeta program
//! per scalar type, and the two sides are compared. Host code runs both ways: in the
//! interpreter (in process) and as native code (`cajetac run --host native`), whose host
//! results must be the interpreter's bit for bit, so the device is compared with both:
//! - integer results and every conversion bit for bit;
//! - float `+ - *` and comparisons bit for bit (NaN payloads aside), modulo flush-to-zero of
//!   denormal inputs or results (Vulkan lets a device flush them unless float controls ask
//!   for preservation; docs/language.md);
//! - float `/` within 2.5 ulp, `sqrt` within 3 ulp, `%` within the bound of its
//!   `x - y * trunc(x / y)` definition (docs/language.md lists these).

use cajeta_tests::device_context;
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver::{self, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Signed(u32),
    Unsigned(u32),
    Float(u32),
}

const TYPES: &[(&str, Kind)] = &[
    ("int8", Kind::Signed(8)),
    ("int16", Kind::Signed(16)),
    ("int32", Kind::Signed(32)),
    ("int64", Kind::Signed(64)),
    ("uint8", Kind::Unsigned(8)),
    ("uint16", Kind::Unsigned(16)),
    ("uint32", Kind::Unsigned(32)),
    ("uint64", Kind::Unsigned(64)),
    ("float16", Kind::Float(16)),
    ("float32", Kind::Float(32)),
    ("float64", Kind::Float(64)),
    ("bfloat16", Kind::Float(8)),
];

const INT_OPS: &[&str] = &[
    "x + y", "x - y", "x * y", "x / y", "x % y", "x << y", "x >> y", "x >>> y", "x & y", "x | y",
    "x ^ y", "-x", "~x",
];
const FLOAT_OPS: &[&str] = &[
    "x + y",
    "x - y",
    "x * y",
    "x / y",
    "x % y",
    "-x",
    "Math.sqrt(x)",
];
const COMPARISONS: &[&str] = &["x < y", "x <= y", "x == y", "x != y", "x > y", "x >= y"];

/// Boundary values as Cajeta expressions of type `ty` (`zero` is a local of that type).
fn values(ty: &str, kind: Kind) -> Vec<String> {
    let c = |s: &str| format!("({ty}) ({s})");
    match kind {
        Kind::Signed(bits) => {
            let max = (1i128 << (bits - 1)) - 1;
            let min = -(1i128 << (bits - 1));
            let mut v: Vec<String> = ["0", "1", "-1", "2", "7", "-7", "31", "33"]
                .iter()
                .map(|s| c(s))
                .collect();
            for x in [max, min, max - 1, min + 1] {
                v.push(if bits == 64 && x == min {
                    "(int64) (-9223372036854775807L - 1L)".to_string()
                } else {
                    c(&format!("{x}L"))
                });
            }
            v
        }
        Kind::Unsigned(bits) => {
            let max = if bits == 64 {
                u64::MAX as u128
            } else {
                (1u128 << bits) - 1
            };
            let mut v: Vec<String> = ["0", "1", "2", "7", "31", "33", "64"]
                .iter()
                .map(|s| c(s))
                .collect();
            for x in [max, max - 1, max / 2, max / 2 + 1] {
                v.push(if bits == 64 {
                    format!("(uint64) 0x{x:X}L")
                } else {
                    c(&format!("{x}L"))
                });
            }
            v
        }
        Kind::Float(bits) => {
            let (max, min_normal, denorm) = match bits {
                8 => ("3.3895314e38", "1.17549435e-38", "9.18355e-41"),
                16 => ("65504.0", "6.1035156e-5", "5.9604645e-8"),
                32 => ("3.4028235e38", "1.17549435e-38", "1.4e-45"),
                _ => (
                    "1.7976931348623157e308",
                    "2.2250738585072014e-308",
                    "4.9e-324",
                ),
            };
            let mut v: Vec<String> = [
                "0.0", "-0.0", "1.0", "-1.0", "0.5", "3.0", "-2.75", "0.1", "1.0e4",
            ]
            .iter()
            .map(|s| c(s))
            .collect();
            for s in [max, min_normal, denorm] {
                v.push(c(s));
                v.push(c(&format!("-{s}")));
            }
            v.push(format!("(({ty}) 1.0) / zero"));
            v.push(format!("(({ty}) (-1.0)) / zero"));
            v.push("zero / zero".to_string());
            v
        }
    }
}

fn is_float(kind: Kind) -> bool {
    matches!(kind, Kind::Float(_))
}

/// The generated program: kernels for the operators and conversions of `ty`, and a host
/// `main` that runs them, computes the same on the host and prints
/// `<section> <index> <host> <device>` lines.
fn program(ty: &str, kind: Kind) -> (String, Vec<String>, usize) {
    let vals = values(ty, kind);
    let n = vals.len();
    let mut ops: Vec<String> = if is_float(kind) { FLOAT_OPS } else { INT_OPS }
        .iter()
        .map(|s| s.to_string())
        .collect();
    for c in COMPARISONS {
        ops.push(format!("{c} ? ({ty}) 1 : ({ty}) 0"));
    }
    let k = ops.len();
    let body: String = ops
        .iter()
        .enumerate()
        .map(|(i, op)| format!("        out[o + {i}] = {op};\n"))
        .collect();
    let conv_params: String = TYPES
        .iter()
        .map(|(u, _)| format!(", KernelBuffer<{u}> to_{u}"))
        .collect();
    let conv_body: String = TYPES
        .iter()
        .map(|(u, _)| format!("        to_{u}[i] = ({u}) x;\n"))
        .collect();
    let host_ops: String = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let guarded = if !is_float(kind) && (op == "x / y" || op == "x % y") {
                // Host division by zero is an error; the device gives 0.
                format!("y == ({ty}) 0 ? ({ty}) 0 : {op}")
            } else {
                op.clone()
            };
            format!("                System.out.println(\"op {i} \" + p + \" \" + ({guarded}) + \" \" + dev[p * {k} + {i}]);\n")
        })
        .collect();
    let conv_alloc: String = TYPES
        .iter()
        .map(|(u, _)| format!("        KernelBuffer<{u}> d_{u} = heap KernelBuffer<{u}>(n);\n"))
        .collect();
    let conv_args: String = TYPES.iter().map(|(u, _)| format!(", d_{u}")).collect();
    let conv_check: String = TYPES
        .iter()
        .map(|(u, _)| {
            format!(
                "        {u}[] h_{u} = heap {u}[n];\n        d_{u}.download(h_{u});\n        for (uint32 i = 0; i < n; i++) {{\n            System.out.println(\"conv_{u} \" + i + \" \" + (({u}) xs[i]) + \" \" + h_{u}[i]);\n        }}\n"
            )
        })
        .collect();
    let list = vals.join(", ");
    let src = format!(
        r#"package diff;
import cajeta.xpu.*;
import cajeta.lang.Math;

public final class Diff {{
    @Kernel
    public static void ops(KernelBuffer<{ty}> a, KernelBuffer<{ty}> b, KernelBuffer<{ty}> out, uint32 count) {{
        uint32 i = KernelThread.globalIdX();
        if (i >= count) {{
            return;
        }}
        {ty} x = a[i];
        {ty} y = b[i];
        uint32 o = i * {k};
{body}    }}

    @Kernel
    public static void conv(KernelBuffer<{ty}> a{conv_params}, uint32 count) {{
        uint32 i = KernelThread.globalIdX();
        if (i >= count) {{
            return;
        }}
        {ty} x = a[i];
{conv_body}    }}

    public static void main() {{
        {ty} zero = ({ty}) 0;
        {ty}[] xs = [{list}];
        uint32 n = {n};
        uint32 pairs = n * n;
        {ty}[] pa = heap {ty}[pairs];
        {ty}[] pb = heap {ty}[pairs];
        for (uint32 i = 0; i < n; i++) {{
            for (uint32 j = 0; j < n; j++) {{
                pa[i * n + j] = xs[i];
                pb[i * n + j] = xs[j];
            }}
        }}
        KernelBuffer<{ty}> da = heap KernelBuffer<{ty}>(pairs);
        KernelBuffer<{ty}> db = heap KernelBuffer<{ty}>(pairs);
        KernelBuffer<{ty}> dout = heap KernelBuffer<{ty}>(pairs * {k});
        da.upload(pa);
        db.upload(pb);
        KernelStream s = KernelStream.current();
        ops.launch(s, grid: [(pairs + 63) / 64], block: [64])(da, db, dout, pairs);
        KernelBuffer<{ty}> dx = heap KernelBuffer<{ty}>(n);
        dx.upload(xs);
{conv_alloc}        conv.launch(s, grid: [1], block: [64])(dx{conv_args}, n);
        s.sync();
        {ty}[] dev = heap {ty}[pairs * {k}];
        dout.download(dev);
        for (uint32 p = 0; p < pairs; p++) {{
            {ty} x = pa[p];
            {ty} y = pb[p];
            System.out.println("in " + p + " " + x + " " + y);
{host_ops}        }}
{conv_check}    }}
}}
"#
    );
    (src, ops, k)
}

/// Parses a printed value of a float type. Narrower floats print as the shortest decimal of
/// their float32 value, so they are parsed as f32 and widened: parsing that text as f64 would
/// give a different number.
fn parse_f(bits: u32, s: &str) -> f64 {
    match s {
        "NaN" => f64::NAN,
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ if bits == 64 => s
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("unparsable float {s:?}")),
        _ => s
            .parse::<f32>()
            .unwrap_or_else(|_| panic!("unparsable float {s:?}")) as f64,
    }
}

/// Float kinds are keyed by significand-relevant width: 8 stands for bfloat16.
fn min_normal(bits: u32) -> f64 {
    match bits {
        8 => f32::MIN_POSITIVE as f64,
        16 => 6.103515625e-5,
        32 => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    }
}

fn ulp(bits: u32, v: f64) -> f64 {
    let p = match bits {
        8 => 8,
        16 => 11,
        32 => 24,
        _ => 53,
    };
    let e = v.abs().max(min_normal(bits)).log2().floor() as i32;
    2f64.powi(e - (p - 1))
}

/// Division is bounded by Vulkan for |y| in [1 / limit, limit].
fn div_limit(bits: u32) -> f64 {
    2f64.powi(match bits {
        16 => 14,
        8 | 32 => 126,
        _ => 1022,
    })
}

/// Beyond this quotient magnitude `trunc(x / y)` has no fractional information left in the
/// type (or overflows it), so OpFRem's inherited definition says nothing useful.
fn quotient_limit(bits: u32) -> f64 {
    2f64.powi(if bits == 16 { 10 } else { 20 })
}

fn same_float(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
}

fn ftz(bits: u32, v: f64) -> f64 {
    if v != 0.0 && v.abs() < min_normal(bits) {
        0.0f64.copysign(v)
    } else {
        v
    }
}

/// The op evaluated in f64 and rounded once to the type (exact for + - * and comparisons,
/// since f64 holds every product and sum of two narrower floats, and correctly rounded for
/// f64 itself). `None` for ops without a single rounding (`%`).
fn eval_float(bits: u32, op: &str, x: f64, y: f64) -> Option<f64> {
    let r = match op.split(" ?").next().unwrap_or(op) {
        "x + y" => x + y,
        "x - y" => x - y,
        "x * y" => x * y,
        "x / y" => x / y,
        "-x" => -x,
        "Math.sqrt(x)" => x.sqrt(),
        "x < y" => f64::from(u8::from(x < y)),
        "x <= y" => f64::from(u8::from(x <= y)),
        "x == y" => f64::from(u8::from(x == y)),
        "x != y" => f64::from(u8::from(x != y)),
        "x > y" => f64::from(u8::from(x > y)),
        "x >= y" => f64::from(u8::from(x >= y)),
        _ => return None,
    };
    Some(match bits {
        8 => cajetac::sema::round_to_float(cajetac::ir::ScalarType::BF16, r),
        16 => cajetac::sema::round_to_float(cajetac::ir::ScalarType::F16, r),
        32 => r as f32 as f64,
        _ => r,
    })
}

/// Whether the device's float result is acceptable for op `op` on inputs `x`, `y`.
fn float_ok(bits: u32, op: &str, x: f64, y: f64, host: f64, dev: f64) -> bool {
    if same_float(host, dev) {
        return true;
    }
    let denormal_involved = [x, y, host]
        .iter()
        .any(|v| *v != 0.0 && v.abs() < min_normal(bits));
    if denormal_involved {
        // Flush-to-zero: the device may flush denormal inputs and results (sign of a flushed
        // zero unspecified). Accept the result of the same op on flushed inputs, flushed.
        let flushed = |v: f64| ftz(bits, v);
        for r in [Some(host), eval_float(bits, op, flushed(x), flushed(y))]
            .into_iter()
            .flatten()
        {
            let (r, d) = (flushed(r), flushed(dev));
            if same_float(r, d) || (r == 0.0 && d == 0.0) {
                return true;
            }
            if op == "x / y" && r.is_finite() && (r - d).abs() <= 2.5 * ulp(bits, r) {
                return true;
            }
        }
    }
    if op == "x % y"
        && (!x.is_finite()
            || !y.is_finite()
            || ftz(bits, y) == 0.0
            || (x / y).abs() >= quotient_limit(bits))
    {
        return true;
    }
    if op == "x / y" && (y.abs() > div_limit(bits) || y.abs() < 1.0 / div_limit(bits)) {
        // Vulkan bounds division only for |y| in [2^-126, 2^126] (scaled to the type); a
        // device may compute x * (1 / y), which flushes or overflows outside that range.
        return true;
    }
    if host.is_nan() || dev.is_nan() || host.is_infinite() || dev.is_infinite() {
        return false;
    }
    let err = (host - dev).abs() / ulp(bits, host);
    match op {
        "x / y" => err <= 2.5,
        "Math.sqrt(x)" => err <= 3.0,
        "x % y" => {
            // OpFRem is "inherited from x - y * trunc(x / y)" in Vulkan: a quotient one ulp off
            // an integer moves the result by |y|, and infinite or huge quotients are undefined.
            let q = x / y;
            !x.is_finite()
                || !y.is_finite()
                || y == 0.0
                || q.abs() >= quotient_limit(bits)
                || (host - dev).abs() <= y.abs() + 2.0 * ulp(bits, x)
        }
        _ => false,
    }
}

/// The output of `src` run by `cajetac run --host native` (`None` without a cajetac
/// executable outside CI).
fn native_output(ty: &str, src: &str) -> Option<String> {
    let cajetac = cajeta_tests::cajetac_program()?;
    let dir = std::env::temp_dir().join(format!("cajeta-diff-{}-{ty}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join(format!("diff_{ty}.cajeta"));
    std::fs::write(&file, src).ok()?;
    let out = std::process::Command::new(cajetac)
        .args(["run", "--host", "native"])
        .arg(&file)
        .output()
        .ok()?;
    std::fs::remove_dir_all(&dir).ok();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn check_type(ctx: &cajeta_runtime::Context, ty: &str, kind: Kind) -> Vec<String> {
    let (src, ops, _) = program(ty, kind);
    // Every module the test runs also passes spirv-val.
    let mut val_sources = SourceMap::new();
    if let Ok(module) = driver::frontend(
        &mut val_sources,
        &[(format!("diff_{ty}.cajeta"), src.clone())],
    ) {
        match driver::compile_kernels(&module, &SpirvOptions::default(), None) {
            Ok(kernels) => {
                for (_, k) in kernels {
                    if let Err(e) = cajeta_tests::spirv_val(
                        &k.words,
                        TargetEnv::Vulkan1_1,
                        &format!("diff_{ty}_{}", k.name),
                    ) {
                        return vec![e];
                    }
                }
            }
            Err(d) => {
                return vec![format!(
                    "{ty}: backend failed:\n{}",
                    render_human(&val_sources, &d)
                )]
            }
        }
    }
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let result = driver::run_program(
        &mut sources,
        &[(format!("diff_{ty}.cajeta"), src.clone())],
        &SpirvOptions::default(),
        &[],
        &mut io,
    );
    match result {
        Ok(HostOutcome::Void) => {}
        Ok(other) => return vec![format!("{ty}: unexpected outcome {other:?}")],
        Err(RunError::Compile(d)) => {
            return vec![format!(
                "{ty}: does not compile:\n{}\n{src}",
                render_human(&sources, &d)
            )]
        }
        Err(RunError::Runtime(e)) => {
            return vec![format!("{ty}: runtime error {}", e.render(&sources))]
        }
        Err(RunError::NoEntryPoint | RunError::NotNative(_)) => {
            return vec![format!("{ty}: no entry point")]
        }
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    if let Some(native) = native_output(ty, &src) {
        // The device column may differ: the CLI compiles the kernel for the device's
        // profile (float controls), this test with default options.
        let host_part = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| match l.split(' ').collect::<Vec<_>>().as_slice() {
                    ["op", i, p, host, _dev] => format!("op {i} {p} {host}"),
                    _ => l.to_string(),
                })
                .collect()
        };
        let (n, i) = (host_part(&native), host_part(&text));
        if n != i {
            let first = n
                .iter()
                .zip(&i)
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("native `{a}`, interpreter `{b}`"))
                .unwrap_or_else(|| format!("{} lines native, {} interpreted", n.len(), i.len()));
            return vec![format!("{ty}: native host code differs: {first}")];
        }
    }
    let mut failures = Vec::new();
    let mut inputs: Vec<(String, String)> = Vec::new();
    let mut checked = 0;
    for line in text.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        match parts.as_slice() {
            ["in", _, x, y] => inputs.push((x.to_string(), y.to_string())),
            ["op", i, p, host, dev] => {
                checked += 1;
                let op = &ops[i.parse::<usize>().unwrap()];
                let (x, y) = &inputs[p.parse::<usize>().unwrap()];
                let ok = match kind {
                    Kind::Float(bits) => float_ok(
                        bits,
                        op,
                        parse_f(bits, x),
                        parse_f(bits, y),
                        parse_f(bits, host),
                        parse_f(bits, dev),
                    ),
                    _ => host == dev,
                };
                if !ok {
                    failures.push(format!(
                        "{ty}: {op} with x={x} y={y}: host {host}, device {dev}"
                    ));
                }
            }
            [conv, i, host, dev] if conv.starts_with("conv_") => {
                checked += 1;
                let target = &conv[5..];
                let target_float = target.starts_with("float") || target == "bfloat16";
                let ok = if target_float {
                    let bits: u32 = if target == "bfloat16" {
                        8
                    } else {
                        target[5..].parse().unwrap()
                    };
                    let (h, d) = (parse_f(bits, host), parse_f(bits, dev));
                    // A denormal source (in its own type) or result may be flushed to zero.
                    let src_denormal = match kind {
                        Kind::Float(src_bits) => h != 0.0 && ftz(src_bits, h) == 0.0,
                        _ => false,
                    };
                    same_float(h, d)
                        || (d == 0.0 && (src_denormal || (h != 0.0 && h.abs() < min_normal(bits))))
                } else {
                    host == dev
                };
                if !ok {
                    failures.push(format!(
                        "{ty} → {target} of input {i}: host {host}, device {dev}"
                    ));
                }
            }
            _ => failures.push(format!("{ty}: unexpected output line {line:?}")),
        }
    }
    let n = values(ty, kind).len();
    let expected = n * n * ops.len() + n * TYPES.len();
    if checked != expected {
        failures.push(format!(
            "{ty}: compared {checked} results, expected {expected}"
        ));
    }
    failures
}

#[test]
fn device_and_host_agree_on_every_operator_and_conversion() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let mut failures = Vec::new();
    for (ty, kind) in TYPES {
        failures.extend(check_type(&ctx, ty, *kind));
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s) on {}:\n{}",
        failures.len(),
        ctx.device_info().name,
        failures.join("\n")
    );
}

#[test]
fn comparison_rules_accept_vulkan_latitude_and_reject_wrong_results() {
    let p = |s: &str| parse_f(8, s);
    // Seen on the H200: a bfloat16 denormal input flushed before the add.
    assert!(float_ok(
        8,
        "x + y",
        p("1.1754944E-38"),
        p("-9.1835E-41"),
        p("1.1663108E-38"),
        p("1.1754944E-38")
    ));
    // Division by a huge divisor is outside Vulkan's bounded range.
    assert!(float_ok(
        8,
        "x / y",
        f64::INFINITY,
        p("3.3895314E38"),
        f64::INFINITY,
        f64::NAN
    ));
    // % by a divisor that flushes to zero is unspecified.
    assert!(float_ok(
        8,
        "x % y",
        p("9.1835E-41"),
        p("9.1835E-41"),
        0.0,
        f64::NAN
    ));
    // Seen on the H200: sqrt of a flushed negative denormal is -0, not NaN.
    assert!(float_ok(
        8,
        "Math.sqrt(x)",
        p("-9.1835E-41"),
        f64::INFINITY,
        f64::NAN,
        -0.0
    ));
    // Real errors are still errors.
    assert!(!float_ok(32, "x + y", 1.0, 2.0, 3.0, 3.0000002));
    assert!(!float_ok(32, "x * y", 3.0, 0.5, 1.5, f64::NAN));
    assert!(!float_ok(32, "x / y", 1.0, 3.0, 1.0 / 3.0, 0.34));
    assert!(float_ok(
        32,
        "x / y",
        1.0,
        3.0,
        (1.0f32 / 3.0) as f64,
        (1.0f32 / 3.0 + f32::EPSILON / 4.0) as f64
    ));
}
