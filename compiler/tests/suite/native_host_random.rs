//! Seeded random programs (scalar arithmetic at every width, vector expressions of every
//! type, with edge values among the operands) run by native host code and by the
//! interpreter: output and result must be identical.

use super::native_host::differential;

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
