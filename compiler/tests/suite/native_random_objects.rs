//! Seeded random host programs of vectors and PODs, run by the interpreter and as native code,
//! whose output, result and runtime errors must be identical byte for byte: `Vector<T, N>`
//! locals of two to four lanes (`int32`, `uint32`, `int64`, `float32`, `float64`) with
//! operators, scalar operands, swizzles, masks, `min`/`max`/`dot`, `Math` on float lanes,
//! integer `/` and `%`, lane writes by name and by index; PODs with scalar and vector
//! fields, built, read and written field by field and lane by lane, passed to and returned
//! from a function by value; arrays of vectors and of PODs, their elements, fields and lanes
//! read and written in place, in straight code and in loops. Operands include the edge
//! values (MIN, MAX, -0.0, NaN, infinities, subnormals). The CI runs a fixed slice of twelve
//! seeds (300 agreed when the generator was written).

use super::native_host::differential_with;

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

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// A lane (or scalar) type.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Lane {
    I32,
    U32,
    I64,
    F32,
    F64,
}

const LANES: [Lane; 5] = [Lane::I32, Lane::U32, Lane::I64, Lane::F32, Lane::F64];

impl Lane {
    fn name(self) -> &'static str {
        match self {
            Lane::I32 => "int32",
            Lane::U32 => "uint32",
            Lane::I64 => "int64",
            Lane::F32 => "float32",
            Lane::F64 => "float64",
        }
    }

    fn float(self) -> bool {
        matches!(self, Lane::F32 | Lane::F64)
    }

    /// Literals, edges among them.
    fn literals(self) -> &'static [&'static str] {
        match self {
            Lane::I32 => &[
                "0",
                "1",
                "-1",
                "7",
                "-3",
                "2147483647",
                "-2147483648",
                "65536",
            ],
            Lane::U32 => &["0", "1", "7", "3", "4294967295", "2147483648", "65536"],
            Lane::I64 => &[
                "0L",
                "1L",
                "-1L",
                "5L",
                "9223372036854775807L",
                "-4294967296L",
            ],
            Lane::F32 => &[
                "0.0f", "-0.0f", "1.5f", "-2.75f", "1.0e-3f", "3.0e9f", "0.1f", "1.0e-40f",
                "nan32", "inf32",
            ],
            Lane::F64 => &[
                "0.0", "-0.0", "1.5", "-2.75", "1.0e-3", "3.0e300", "0.1", "1.0e-310", "nan64",
                "inf64",
            ],
        }
    }
}

/// A type a place or expression has.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    Scalar(Lane),
    Vector(Lane, usize),
}

impl Ty {
    fn name(self) -> String {
        match self {
            Ty::Scalar(l) => l.name().to_string(),
            Ty::Vector(l, n) => format!("Vector<{}, {n}>", l.name()),
        }
    }
}

/// A generated program: the places it declared so far and its statements.
struct Gen {
    rng: Rng,
    /// Readable and writable places (locals, POD fields, array elements and their fields)
    /// with their types.
    places: Vec<(String, Ty)>,
    body: String,
}

impl Gen {
    fn places_of(&self, ty: Ty) -> Vec<String> {
        self.places
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// The vector places whose lanes are of type `l` (any lane count).
    fn vectors_of(&self, l: Lane) -> Vec<(String, usize)> {
        self.places
            .iter()
            .filter_map(|(p, t)| match t {
                Ty::Vector(x, n) if *x == l => Some((p.clone(), *n)),
                _ => None,
            })
            .collect()
    }

    fn scalar(&mut self, l: Lane, depth: u32) -> String {
        let lanes = self.vectors_of(l);
        let scalars = self.places_of(Ty::Scalar(l));
        match self.rng.below(7) {
            0 | 1 if !lanes.is_empty() => {
                let (p, n) = self.rng.pick(&lanes).clone();
                let k = self.rng.below(n);
                if self.rng.below(3) == 0 {
                    format!("{p}[{k}]")
                } else {
                    format!("{p}.{}", &"xyzw"[k..][..1])
                }
            }
            2 if !scalars.is_empty() => self.rng.pick(&scalars).clone(),
            3 if depth > 0 && l.float() && !lanes.is_empty() => {
                let (p, n) = self.rng.pick(&lanes).clone();
                let q = self.vector(l, n, depth - 1);
                format!("{p}.dot({q})")
            }
            4 | 5 if depth > 0 => {
                let ops: &[&str] = if l.float() {
                    &["+", "-", "*", "/"]
                } else {
                    &["+", "-", "*", "&", "|", "^"]
                };
                let op = *self.rng.pick(ops);
                let (a, b) = (self.scalar(l, depth - 1), self.scalar(l, depth - 1));
                format!("({a} {op} {b})")
            }
            _ => self.literal(l),
        }
    }

    /// A literal of type `l`; an integer one cast to its type, so that arithmetic on
    /// literals alone is typed arithmetic (wrapping), not a constant that must fit.
    fn literal(&mut self, l: Lane) -> String {
        let x = *self.rng.pick(l.literals());
        if l.float() {
            x.to_string()
        } else {
            format!("(({}) {x})", l.name())
        }
    }

    fn vector(&mut self, l: Lane, n: usize, depth: u32) -> String {
        let ty = Ty::Vector(l, n);
        let vt = ty.name();
        let same = self.places_of(ty);
        let sources = self.vectors_of(l);
        let roll = if depth == 0 { 0 } else { self.rng.below(12) };
        match roll {
            0 | 1 if !same.is_empty() => self.rng.pick(&same).clone(),
            2 if !sources.is_empty() => {
                // A swizzle of any vector of these lanes, lanes repeated or reordered.
                let (p, m) = self.rng.pick(&sources).clone();
                let sw: String = (0..n)
                    .map(|_| "xyzw".as_bytes()[self.rng.below(m)] as char)
                    .collect();
                format!("{p}.{sw}")
            }
            3 => {
                let s = self.scalar(l, depth.saturating_sub(1));
                format!("stack {vt}({s})")
            }
            4 => {
                let parts: Vec<String> = (0..n)
                    .map(|_| self.scalar(l, depth.saturating_sub(1)))
                    .collect();
                format!("stack {vt}({})", parts.join(", "))
            }
            5 => {
                let (a, s) = (self.vector(l, n, depth - 1), self.scalar(l, depth - 1));
                let op = *self.rng.pick(&["+", "-", "*"]);
                format!("({a} {op} {s})")
            }
            6 => {
                let (a, b) = (self.vector(l, n, depth - 1), self.vector(l, n, depth - 1));
                let cmp = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                format!("({a} {cmp} {b}).select({a}, {b})")
            }
            7 => {
                let (a, b) = (self.vector(l, n, depth - 1), self.vector(l, n, depth - 1));
                let m = *self.rng.pick(&["min", "max"]);
                format!("({a}).{m}({b})")
            }
            8 if l != Lane::U32 => format!("(-{})", self.vector(l, n, depth - 1)),
            9 if l.float() => {
                let f = *self.rng.pick(&["abs", "floor", "sqrt", "ceil"]);
                format!("Math.{f}({})", self.vector(l, n, depth - 1))
            }
            9 => {
                let a = self.vector(l, n, depth - 1);
                let op = *self.rng.pick(&["/", "%"]);
                let d = *self.rng.pick(&["3", "7", "65536"]);
                format!("({a} {op} stack {vt}((({}) {d})))", l.name())
            }
            _ if depth > 0 => {
                let ops: &[&str] = if l.float() {
                    &["+", "-", "*", "/"]
                } else {
                    &["+", "-", "*", "&", "|", "^"]
                };
                let op = *self.rng.pick(ops);
                let (a, b) = (self.vector(l, n, depth - 1), self.vector(l, n, depth - 1));
                format!("({a} {op} {b})")
            }
            _ => {
                let s = self.literal(l);
                format!("stack {vt}({s})")
            }
        }
    }

    fn value(&mut self, ty: Ty, depth: u32) -> String {
        match ty {
            Ty::Scalar(l) => self.scalar(l, depth),
            Ty::Vector(l, n) => self.vector(l, n, depth),
        }
    }

    /// One statement writing a random place (`at`: the index variable of the enclosing
    /// loop, if any, which replaces literal indices of element places).
    fn store(&mut self, indent: &str, at: Option<&str>) {
        let (place, ty) = self.rng.pick(&self.places).clone();
        let place = match at {
            Some(i) => rewrite_index(&place, i),
            None => place,
        };
        let line = match ty {
            Ty::Vector(l, n) if self.rng.below(3) == 0 => {
                let k = self.rng.below(n);
                let s = self.scalar(l, 2);
                if self.rng.below(3) == 0 {
                    format!("{place}[{k}] = {s};")
                } else {
                    format!("{place}.{} = {s};", &"xyzw"[k..][..1])
                }
            }
            _ => {
                let v = self.value(ty, 3);
                format!("{place} = {v};")
            }
        };
        self.body.push_str(&format!("{indent}{line}\n"));
    }

    fn print(&mut self, indent: &str) {
        let (place, ty) = self.rng.pick(&self.places).clone();
        let e = match self.rng.below(2) {
            0 => place,
            _ => self.value(ty, 2),
        };
        self.body
            .push_str(&format!("{indent}System.out.println({e});\n"));
    }
}

/// `place` with its first literal array index (`[2]`) replaced by `[i]`.
fn rewrite_index(place: &str, i: &str) -> String {
    match (place.find('['), place.find(']')) {
        (Some(a), Some(b)) if a < b => format!("{}[{i}]{}", &place[..a], &place[b + 1..]),
        _ => place.to_string(),
    }
}

/// A random type: a scalar one time in four, else a vector of two to four lanes.
fn random_ty(rng: &mut Rng) -> Ty {
    let l = *rng.pick(&LANES);
    if rng.below(4) == 0 {
        Ty::Scalar(l)
    } else {
        Ty::Vector(l, 2 + rng.below(3))
    }
}

/// Program `seed`: two POD classes of random scalar and vector fields, locals of each, an
/// array of each POD and of a vector type, random stores and prints, a loop over the arrays,
/// and every place printed at the end.
pub(crate) fn random_object_program(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed),
        places: Vec::new(),
        body: String::new(),
    };
    let mut classes = String::new();
    let mut pods = Vec::new();
    for k in 0..2 {
        let fields: Vec<Ty> = (0..2 + g.rng.below(3))
            .map(|_| random_ty(&mut g.rng))
            .collect();
        classes.push_str(&format!("public final class Pod{k} {{\n"));
        for (f, t) in fields.iter().enumerate() {
            classes.push_str(&format!("    {} f{f};\n", t.name()));
        }
        classes.push_str("}\n\n");
        pods.push(fields);
    }
    let ind = "        ";
    for k in 0..4 {
        let ty = match random_ty(&mut g.rng) {
            Ty::Scalar(l) => Ty::Vector(l, 3),
            v => v,
        };
        let v = g.value(ty, 2);
        g.body
            .push_str(&format!("{ind}{} v{k} = {v};\n", ty.name()));
        g.places.push((format!("v{k}"), ty));
    }
    for (k, fields) in pods.iter().enumerate() {
        let parts: Vec<String> = fields.iter().map(|t| g.value(*t, 1)).collect();
        g.body.push_str(&format!(
            "{ind}Pod{k} p{k} = stack Pod{k}({});\n",
            parts.join(", ")
        ));
        g.body
            .push_str(&format!("{ind}Pod{k}[] ps{k} = heap Pod{k}[3];\n"));
        for (f, t) in fields.iter().enumerate() {
            g.places.push((format!("p{k}.f{f}"), *t));
            for i in 0..3 {
                g.places.push((format!("ps{k}[{i}].f{f}"), *t));
            }
        }
    }
    let vt = match random_ty(&mut g.rng) {
        Ty::Scalar(l) => Ty::Vector(l, 4),
        v => v,
    };
    g.body.push_str(&format!(
        "{ind}{}[] va = heap {}[3];\n",
        vt.name(),
        vt.name()
    ));
    for i in 0..3 {
        g.places.push((format!("va[{i}]"), vt));
    }
    for _ in 0..30 {
        if g.rng.below(4) == 0 {
            g.print(ind);
        } else {
            g.store(ind, None);
        }
    }
    g.body
        .push_str(&format!("{ind}for (int32 i = 0; i < 3; i++) {{\n"));
    let inner = "            ";
    for _ in 0..6 {
        g.store(inner, Some("i"));
    }
    g.body.push_str(&format!("{ind}}}\n"));
    // PODs pass by value: the helper's change to its parameter is its own.
    let mut helpers = String::new();
    for (k, fields) in pods.iter().enumerate() {
        let t = fields[0].name();
        helpers.push_str(&format!(
            "    static Pod{k} bump{k}(Pod{k} p, {t} x) {{\n        p.f0 = x;\n        return p;\n    }}\n\n"
        ));
        let x = g.value(fields[0], 2);
        g.body.push_str(&format!(
            "{ind}Pod{k} q{k} = bump{k}(p{k}, {x});\n{ind}System.out.println(p{k} + \" \" + q{k});\n"
        ));
    }
    for (p, _) in g.places.clone() {
        g.body.push_str(&format!("{ind}System.out.println({p});\n"));
    }
    for k in 0..2 {
        g.body.push_str(&format!(
            "{ind}System.out.println(p{k} + \" \" + ps{k}[0] + \" \" + ps{k}[2]);\n"
        ));
    }
    format!(
        "{classes}public class R {{\n{helpers}    public static void main() {{\n        \
         float32 nan32 = 0.0f / 0.0f;\n        float32 inf32 = 1.0f / 0.0f;\n        \
         float64 nan64 = 0.0 / 0.0;\n        float64 inf64 = 1.0 / 0.0;\n{}    }}\n}}\n",
        g.body
    )
}

#[test]
fn random_vector_and_pod_programs_agree_with_the_interpreter() {
    for seed in 1..=12u64 {
        let src = random_object_program(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let r = differential_with(&format!("random_objects_{seed}.cajeta"), &src, &[]);
        assert_eq!(r.end, "void", "seed {seed}:\n{src}");
        assert!(r.out.lines().count() >= 20, "seed {seed}: {}", r.out);
    }
}
