//! Generator of well-typed random Cajeta programs for differential testing.
//!
//! A program is one class with 1–3 `@Kernel`s over `KernelBuffer` inputs and one output buffer
//! each, and a host `run()` that uploads the inputs, launches every kernel, downloads the
//! results and recomputes each output in host code from the *same statement text*, counting
//! (and printing) the elements where device and host differ. `run()` returns that count, so
//! a correct compiler gives 0.
//!
//! What is generated is chosen so that both sides must agree bit for bit (docs/fuzzing.md):
//! - integer division and remainder divide by `(e | 1)`, never by zero (division by zero is
//!   0 in kernels but a runtime error in host code);
//! - floats are integer-valued (literals and inputs are whole numbers, ±0, ±inf, NaN) and only
//!   `+ - *`, comparisons, conversions and `?:` touch them: every finite intermediate is then a
//!   whole number, so no denormal can arise (a device may flush them), and float `/` and `%`
//!   (a few ulp of latitude on the device) are left out;
//! - every operator node has a variable among its operands: a literal-only subexpression would
//!   depend on literal typing from context, a known defect being fixed on main;
//! - loops have constant trip counts of at most 4, so the host side stays fast.

use super::rng::Rng;
use super::ty::{float_literal, int_literal, int_value, INTS};
pub use super::ty::{Ty, NUMERIC};
use std::fmt::Write;

/// Size limits of one generated program.
#[derive(Clone, Copy, Debug)]
pub struct GenConfig {
    /// Maximum expression depth.
    pub max_depth: usize,
    /// Maximum statements per block (before the outputs).
    pub max_stmts: usize,
    /// Maximum kernels per program (at least 1).
    pub max_kernels: usize,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 4,
            max_stmts: 6,
            max_kernels: 3,
        }
    }
}

/// A generated program and what it contains.
#[derive(Clone, Debug)]
pub struct Program {
    /// The Cajeta source.
    pub source: String,
    /// Number of kernels in it.
    pub kernels: usize,
    /// Number of compared output elements (the most `run()` can return).
    pub outputs: usize,
}

/// A local in scope: name, type, and whether statements may assign it (loop counters and
/// kernel inputs may not: the loop bounds would no longer hold, and the host loads its inputs
/// from different arrays).
pub(super) struct Var {
    name: String,
    ty: Ty,
    assignable: bool,
}

pub(super) struct Gen<'r> {
    pub(super) rng: &'r mut Rng,
    pub(super) cfg: GenConfig,
    pub(super) scopes: Vec<Vec<Var>>,
    next_id: usize,
    /// Whether statements may be `switch`es and labeled loops (`gen_control.rs`): set only
    /// for the control kernel `kx`, so the other kernels draw what they drew before.
    pub(super) control: bool,
    /// The `@Host @Device` helpers the control kernel's statements may call: name and
    /// parameter types (`gen_helpers.rs`).
    pub(super) helpers: Vec<(String, Vec<Ty>)>,
}

impl Gen<'_> {
    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn vars(&self, pred: impl Fn(&Var) -> bool) -> Vec<(String, Ty)> {
        self.scopes
            .iter()
            .flatten()
            .filter(|v| pred(v))
            .map(|v| (v.name.clone(), v.ty))
            .collect()
    }

    pub(super) fn declare(&mut self, name: &str, ty: Ty, assignable: bool) {
        self.scopes.last_mut().unwrap().push(Var {
            name: name.to_string(),
            ty,
            assignable,
        });
    }

    /// Makes `vars` (read-only) the only locals in scope; empty: none.
    pub(super) fn fixed_scope(&mut self, vars: &[(String, Ty)]) {
        self.scopes = vec![Vec::new()];
        for (name, ty) in vars {
            self.declare(name, *ty, false);
        }
    }

    pub(super) fn numeric(&mut self) -> Ty {
        *self.rng.pick(&NUMERIC)
    }

    /// A literal of `ty`.
    fn literal(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Bool => if self.rng.chance(50) { "true" } else { "false" }.to_string(),
            _ if ty.is_float() => float_literal(self.rng, ty),
            _ => {
                let v = int_value(self.rng, ty);
                int_literal(ty, v)
            }
        }
    }

    /// A leaf of type `ty`: a variable (cast from another type when none has `ty`), or a
    /// literal when `need_var` is false. Returns the text and whether it names a variable.
    fn leaf(&mut self, ty: Ty, need_var: bool) -> (String, bool) {
        if !need_var && self.rng.chance(30) {
            return (self.literal(ty), false);
        }
        let same = self.vars(|v| v.ty == ty);
        if !same.is_empty() && self.rng.chance(75) {
            return (self.rng.pick(&same).0.clone(), true);
        }
        let nums = self.vars(|v| v.ty != Ty::Bool);
        let (name, vty) = self.rng.pick(&nums).clone();
        if ty == Ty::Bool {
            let lit = self.literal(vty);
            let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
            (format!("({name} {op} {lit})"), true)
        } else {
            (format!("(({}) {name})", ty.name()), true)
        }
    }

    /// An expression of type `ty`, at most `depth` deep, with a variable in it when
    /// `need_var`. Returns the text and whether a variable occurs in it.
    pub(super) fn expr(&mut self, ty: Ty, depth: usize, need_var: bool) -> (String, bool) {
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(ty, need_var);
        }
        let d = depth - 1;
        if ty == Ty::Bool {
            return self.bool_expr(d, need_var);
        }
        let t = ty.name();
        match self.rng.below(10) {
            0 => {
                let op = if ty.is_int() && self.rng.chance(50) {
                    "~"
                } else {
                    "-"
                };
                let (e, _) = self.expr(ty, d, true);
                (format!("({op}{e})"), true)
            }
            1 | 2 => {
                let ops: &[&str] = if ty.is_int() {
                    &["+", "-", "*", "&", "|", "^"]
                } else {
                    &["+", "-", "*"]
                };
                let op = *self.rng.pick(ops);
                self.binary(ty, ty, ty, op, d)
            }
            3 if ty.is_int() => {
                // Division and remainder by an operand that cannot be zero.
                let op = if self.rng.chance(50) { "/" } else { "%" };
                let (a, va) = self.expr(ty, d, false);
                let rty = if self.rng.chance(30) {
                    *self.rng.pick(&INTS)
                } else {
                    ty
                };
                let (b, _) = self.expr(rty, d, !va);
                let divisor = format!("({b} | {})", int_literal(rty, 1));
                if rty == ty {
                    (format!("({a} {op} {divisor})"), true)
                } else {
                    (format!("(({t}) ({a} {op} {divisor}))"), true)
                }
            }
            4 if ty.is_int() => {
                let op = *self.rng.pick(&["<<", ">>", ">>>"]);
                let count = *self.rng.pick(&INTS);
                self.binary(ty, ty, count, op, d)
            }
            5 => {
                // Mixed operand types: the implicit conversions of docs/language.md's tables,
                // then an explicit cast to `ty`.
                let (l, r) = (self.numeric(), self.numeric());
                let ops: &[&str] = if l.is_int() && r.is_int() {
                    &["+", "-", "*", "&", "|", "^"]
                } else {
                    &["+", "-", "*"]
                };
                let op = *self.rng.pick(ops);
                let (e, _) = self.binary(ty, l, r, op, d);
                (format!("(({t}) {e})"), true)
            }
            6 => {
                let from = self.numeric();
                let (e, _) = self.expr(from, d, true);
                (format!("(({t}) {e})"), true)
            }
            7 => {
                let (c, vc) = self.expr(Ty::Bool, d, false);
                let (a, va) = self.expr(ty, d, false);
                let (b, vb) = self.expr(ty, d, !(vc || va));
                (format!("({c} ? {a} : {b})"), vc || va || vb)
            }
            _ => self.leaf(ty, need_var),
        }
    }

    /// `(a op b)` with `a: l`, `b: r`; `ty` is only for the caller's cast.
    fn binary(&mut self, _ty: Ty, l: Ty, r: Ty, op: &str, d: usize) -> (String, bool) {
        let (a, va) = self.expr(l, d, false);
        let (b, _) = self.expr(r, d, !va);
        let (a, b) = if ["+", "-", "*"].contains(&op) && (l.is_float() || r.is_float()) {
            (no_zero_operand(a, l), no_zero_operand(b, r))
        } else {
            (a, b)
        };
        (format!("({a} {op} {b})"), true)
    }

    fn bool_expr(&mut self, d: usize, need_var: bool) -> (String, bool) {
        match self.rng.below(6) {
            0 | 1 => {
                let l = self.numeric();
                // Mostly one type; sometimes mixed (the comparison table of docs/language.md).
                let r = if self.rng.chance(70) {
                    l
                } else {
                    self.numeric()
                };
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                self.binary(Ty::Bool, l, r, op, d)
            }
            2 => {
                let (e, _) = self.expr(Ty::Bool, d, true);
                (format!("(!{e})"), true)
            }
            3 | 4 => {
                let op = *self.rng.pick(&["&&", "||", "==", "!="]);
                self.binary(Ty::Bool, Ty::Bool, Ty::Bool, op, d)
            }
            _ => self.leaf(Ty::Bool, need_var),
        }
    }

    /// Statements of one block (indented by the caller). `loops` is the loop nesting depth.
    pub(super) fn block(&mut self, out: &mut Vec<String>, depth: usize, loops: usize) {
        let n = self.rng.range(1, self.cfg.max_stmts);
        for _ in 0..n {
            self.statement(out, depth, loops);
        }
    }

    fn nested(&mut self, out: &mut Vec<String>, header: String, depth: usize, loops: usize) {
        out.push(format!("{header} {{"));
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        self.block(&mut body, depth + 1, loops);
        if loops > 0 && self.rng.chance(30) {
            let (c, _) = self.expr(Ty::Bool, 2, true);
            let jump = if self.rng.chance(50) {
                "break"
            } else {
                "continue"
            };
            body.push(format!("if ({c}) {{ {jump}; }}"));
            // More statements after the jump, so `continue` skips something.
            self.block(&mut body, depth + 1, loops);
        }
        self.scopes.pop();
        out.extend(body.into_iter().map(|l| format!("    {l}")));
    }

    pub(super) fn statement_decl(&mut self, out: &mut Vec<String>) {
        let ty = if self.rng.chance(15) {
            Ty::Bool
        } else {
            self.numeric()
        };
        let (e, _) = self.expr(ty, self.cfg.max_depth, false);
        let e = zero_free_float(e, ty);
        let name = self.fresh("v");
        out.push(format!("{} {name} = {e};", ty.name()));
        self.declare(&name, ty, true);
        self.observe(out, &name, ty);
    }

    fn statement(&mut self, out: &mut Vec<String>, depth: usize, loops: usize) {
        let ed = self.cfg.max_depth;
        let deep = depth >= 3;
        let kinds = if deep { 6 } else { 11 };
        let control = if self.control && depth < 2 { 4 } else { 0 };
        match self.rng.below(kinds + control) {
            k if k >= kinds => self.statement_control(out, depth, loops, k - kinds),
            0..=2 => self.statement_decl(out),
            10 => self.statement_vector(out),
            3..=5 => self.assignment(out),
            6 => {
                let (c, _) = self.expr(Ty::Bool, ed, true);
                self.nested(out, format!("if ({c})"), depth, loops);
                if self.rng.chance(50) {
                    self.nested(out, "} else".to_string(), depth, loops);
                }
                out.push("}".to_string());
            }
            7 if loops < 2 => {
                let i = self.fresh("i");
                let trips = self.rng.range(0, 4);
                self.scopes.push(Vec::new());
                self.declare(&i, Ty::I32, false);
                self.nested(
                    out,
                    format!("for (int32 {i} = 0; {i} < {trips}; {i}++)"),
                    depth,
                    loops + 1,
                );
                self.scopes.pop();
                out.push("}".to_string());
            }
            8 if loops < 2 => {
                // The counter is bumped first, so a generated `continue` cannot skip it.
                let w = self.fresh("w");
                let trips = self.rng.range(0, 4);
                out.push(format!("int32 {w} = 0;"));
                self.declare(&w, Ty::I32, false);
                let do_while = self.rng.chance(40);
                let header = if do_while {
                    "do".to_string()
                } else {
                    format!("while ({w} < {trips})")
                };
                let mut body = Vec::new();
                self.nested(&mut body, header, depth, loops + 1);
                body.insert(1, format!("    {w}++;"));
                out.extend(body);
                out.push(if do_while {
                    format!("}} while ({w} < {trips});")
                } else {
                    "}".to_string()
                });
            }
            _ => self.assignment(out),
        }
    }

    /// Folds a local into the kernel's checksum `acc` (written to its own output), so values
    /// computed in nested blocks are compared too, not only the final expressions.
    fn observe(&mut self, out: &mut Vec<String>, name: &str, ty: Ty) {
        if !self.rng.chance(60) {
            return;
        }
        let v = match ty {
            Ty::Bool => format!("({name} ? 1 : 2)"),
            _ if ty.is_float() => format!("((uint64) (int64) {name})"),
            _ => format!("((uint64) {name})"),
        };
        out.push(format!("acc = acc * ((uint64) 31) + {v};"));
    }

    pub(super) fn assignment(&mut self, out: &mut Vec<String>) {
        let targets = self.vars(|v| v.assignable);
        if targets.is_empty() {
            return;
        }
        let (name, ty) = self.rng.pick(&targets).clone();
        self.assign_to(out, &name, ty);
        self.observe(out, &name, ty);
    }

    fn assign_to(&mut self, out: &mut Vec<String>, name: &str, ty: Ty) {
        let ed = self.cfg.max_depth;
        if ty == Ty::Bool {
            let (e, _) = self.expr(Ty::Bool, ed, false);
            out.push(format!("{name} = {e};"));
            return;
        }
        match self.rng.below(5) {
            0 => {
                let (e, _) = self.expr(ty, ed, false);
                let e = zero_free_float(e, ty);
                out.push(format!("{name} = {e};"));
            }
            1 if ty.is_int() => {
                let op = *self.rng.pick(&["++", "--"]);
                out.push(format!("{name}{op};"));
            }
            2 if ty.is_int() => {
                // Compound division: `a /= b` is `a = (T) (a / b)`; b is never zero.
                let op = *self.rng.pick(&["/=", "%="]);
                let rty = *self.rng.pick(&INTS);
                let (e, _) = self.expr(rty, ed - 1, false);
                out.push(format!("{name} {op} ({e} | {});", int_literal(rty, 1)));
            }
            _ => {
                let ops: &[&str] = if ty.is_int() {
                    &["+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", ">>>="]
                } else {
                    &["+=", "-=", "*="]
                };
                let op = *self.rng.pick(ops);
                let rty = if op.len() > 2 || op.starts_with(['&', '|', '^']) || ty.is_float() {
                    // Shift counts and bitwise operands: integers; floats take any number.
                    if ty.is_float() {
                        self.numeric()
                    } else {
                        *self.rng.pick(&INTS)
                    }
                } else {
                    self.numeric_for(ty)
                };
                let (e, _) = self.expr(rty, ed - 1, false);
                let e = if ty.is_float() {
                    no_zero_operand(e, rty)
                } else {
                    e
                };
                out.push(format!("{name} {op} {e};"));
            }
        }
    }

    /// The type of the right operand of `int op= x`: an integer (an integer meeting a float
    /// would make a float, which `int op=` narrows back: allowed, but saturating conversions
    /// of huge products are already covered by casts).
    fn numeric_for(&mut self, ty: Ty) -> Ty {
        if ty.is_int() {
            *self.rng.pick(&INTS)
        } else {
            self.numeric()
        }
    }
}

/// One input array: element type and the host-side literals of its elements.
fn input_values(rng: &mut Rng, ty: Ty, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            if ty.is_float() {
                let z = if ty == Ty::F32 { "zf32" } else { "zf64" };
                match rng.below(12) {
                    0 => format!("(1.0 / {z})"),
                    1 => format!("(-1.0 / {z})"),
                    2 => format!("({z} / {z})"),
                    3 => format!("(-{z})"),
                    _ => float_literal(rng, ty),
                }
            } else {
                int_literal(ty, int_value(rng, ty))
            }
        })
        .collect()
}

/// Generates one program from `rng`.
pub fn program(rng: &mut Rng, cfg: GenConfig) -> Program {
    let n = rng.range(1, 80);
    let inputs: Vec<Ty> = (0..rng.range(1, 3)).map(|_| *rng.pick(&NUMERIC)).collect();
    let kernels = rng.range(1, cfg.max_kernels.max(1));
    let mut g = Gen {
        rng,
        cfg,
        scopes: Vec::new(),
        next_id: 0,
        control: false,
        helpers: Vec::new(),
    };
    let mut src =
        String::from("package fuzz;\nimport cajeta.xpu.*;\n\npublic final class Fuzz {\n");
    let mut host_checks = String::new();
    let mut outputs = 0;
    let mut launches = String::new();
    for k in 0..kernels {
        let sk = g.scalar_kernel(&k.to_string(), &inputs, n);
        src.push_str(&sk.kernel);
        launches.push_str(&sk.launch);
        host_checks.push_str(&sk.check);
        outputs += sk.outputs;
    }
    let mut host = format!(
        "    public static int32 run() {{\n        uint32 n = {n};\n        float32 zf32 = 0.0f;\n        float64 zf64 = 0.0;\n"
    );
    for (i, t) in inputs.iter().enumerate() {
        let t_name = t.name();
        let vals = input_values(g.rng, *t, n).join(", ");
        let _ = write!(
            host,
            "        {t_name}[] h_in{i} = [{vals}];\n        KernelBuffer<{t_name}> d_in{i} = heap KernelBuffer<{t_name}>(n);\n        d_in{i}.upload(h_in{i});\n"
        );
    }
    // One program in three also gets the collective kernel (`gen_collective.rs`), drawn last
    // so that the rest of each program is what it was before it existed.
    let coll = g.rng.chance(35).then(|| g.collective(&inputs, n));
    // And one in three the value kernel (`gen_values.rs`: a POD parameter, matrices).
    let vals = g.rng.chance(35).then(|| g.value_kernel(&inputs, n));
    let mut kernels = kernels;
    // And one in three the control kernel `kx` (`gen_control.rs`: switches, labeled loops),
    // a scalar kernel whose statements may also be those.
    if g.rng.chance(35) {
        g.control = true;
        // With none, one or two `@Host @Device` helpers it calls (`gen_helpers.rs`).
        let helpers: Vec<_> = (0..g.rng.range(0, 2)).map(|_| g.helper()).collect();
        g.helpers = helpers
            .iter()
            .map(|h| (h.name.clone(), h.params.clone()))
            .collect();
        let kx = g.scalar_kernel("x", &inputs, n);
        g.control = false;
        g.helpers.clear();
        for h in &helpers {
            src.push_str(&h.text);
        }
        src.push_str(&kx.kernel);
        launches.push_str(&kx.launch);
        host_checks.push_str(&kx.check);
        outputs += kx.outputs;
        kernels += 1;
    }
    if let Some(c) = &coll {
        src.push_str(&c.kernel);
        host.push_str(&c.setup);
        kernels += 1;
        outputs += c.outputs;
    }
    if let Some(v) = &vals {
        src.push_str(&v.kernel);
        host.push_str(&v.setup);
        kernels += 1;
        outputs += v.outputs;
    }
    host.push_str("        KernelStream s = KernelStream.current();\n");
    host.push_str(&launches);
    if let Some(c) = &coll {
        host.push_str(&c.launch);
    }
    if let Some(v) = &vals {
        host.push_str(&v.launch);
    }
    host.push_str("        s.sync();\n        int32 bad = 0;\n");
    host.push_str(&host_checks);
    if let Some(c) = &coll {
        host.push_str(&c.check);
    }
    if let Some(v) = &vals {
        host.push_str(&v.check);
    }
    host.push_str("        return bad;\n    }\n}\n");
    src.push_str(&host);
    if let Some(v) = &vals {
        src.push_str(&v.class);
    }
    Program {
        source: src,
        kernels,
        outputs,
    }
}

/// A float local's value as a zero literal becomes 2 too: lavapipe propagates the constant
/// into the local's uses and folds `x * 0.0` there (seed 22 program 280: `float32 v =
/// ((float32) 0.0f);` then `w *= (float64) v` in an unrolled loop; exact when the zero is
/// computed at run time). Other types are left alone.
pub(super) fn zero_free_float(e: String, ty: Ty) -> String {
    if ty.is_float() {
        no_zero_operand(e, ty)
    } else {
        e
    }
}

/// A zero literal (of any type) as an operand of a float `+ - *` (or `x op= 0` on a float
/// `x`) becomes 2: a driver may fold `0.0 * x` to 0 and `x + 0.0` to `x` (lavapipe does, even
/// with `SignedZeroInfNanPreserve`; docs/language.md, "IEEE specials on the device"), where
/// host code keeps IEEE's NaN and signed zeros. Found as 7 of the 12 rspirv wrong results of
/// the 2026-12-04 campaign. Rewriting the text draws nothing from the RNG, so every other
/// choice of the program stays the same.
fn no_zero_operand(e: String, ty: Ty) -> String {
    let name = ty.name();
    let zeros = ["0", "0x0", "0x0L", "0.0", "0.0f"].map(|z| format!("(({name}) {z})"));
    if !zeros.contains(&e) {
        return e;
    }
    match ty {
        Ty::F32 => "((float32) 2.0f)".to_string(),
        Ty::F64 => "((float64) 2.0)".to_string(),
        _ => format!("(({name}) 2)"),
    }
}
