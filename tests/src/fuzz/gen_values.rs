//! The value kernel of generated programs (`km`): a per-invocation kernel whose statements
//! also read a POD parameter's fields (a push constant the host builds with `stack Pm(…)`)
//! and compute with `Matrix<float32, R, C>` values: products with vectors on either side,
//! `transpose()`, and matrix products, every lane folded into the checksum. The host has a
//! local `p` of the same class and runs the same statement text, so `p.f0` means the same on
//! both sides.
//!
//! Floats stay whole numbers (the scalar generator's expressions, every element involving a
//! variable, as vector lanes do): products and sums round the same way on every executor as
//! long as nothing contracts `a * b + c` into a fused multiply-add, which SPEC §4 forbids
//! (both backends declare `NoContraction`).

use std::fmt::Write;

use super::gen::Gen;
use super::ty::{float_literal, int_literal, int_value, Ty, NUMERIC};

/// The text the value kernel adds to a program.
pub(super) struct ValueKernel {
    /// The POD class, after the program's class.
    pub(super) class: String,
    /// The kernel's declaration.
    pub(super) kernel: String,
    /// Host statements before the launches: the POD and the checksum buffer.
    pub(super) setup: String,
    /// The launch statement.
    pub(super) launch: String,
    /// Host statements after `s.sync()` that count mismatches in `bad`.
    pub(super) check: String,
    /// Elements compared (one checksum per invocation).
    pub(super) outputs: usize,
}

const LANES: [&str; 4] = ["x", "y", "z", "w"];

impl Gen<'_> {
    /// The value kernel over `inputs` (`in0` … of those element types).
    pub(super) fn value_kernel(&mut self, inputs: &[Ty], n: usize) -> ValueKernel {
        // The POD: two to four scalar fields and, one time in four, a `Vector<int32, 4>`
        // (LLVM's SPIR-V target crashes on some push-constant layouts with a vector member,
        // a refusal, E0045, that skips the program's LLVM runs: kept rare).
        let fields: Vec<Ty> = (0..self.rng.range(2, 4))
            .map(|_| *self.rng.pick(&NUMERIC))
            .collect();
        let vector_field = self.rng.chance(25);
        let mut class = String::from("\nfinal class Pm {\n");
        let mut values = Vec::new();
        for (i, t) in fields.iter().enumerate() {
            let _ = writeln!(class, "    {} f{i};", t.name());
            values.push(if t.is_float() {
                float_literal(self.rng, *t)
            } else {
                int_literal(*t, int_value(self.rng, *t))
            });
        }
        if vector_field {
            class.push_str("    Vector<int32, 4> fv;\n");
            let lanes: Vec<String> = (0..4)
                .map(|_| int_literal(Ty::I32, int_value(self.rng, Ty::I32)))
                .collect();
            values.push(format!("stack Vector<int32, 4>({})", lanes.join(", ")));
        }
        class.push_str("}\n");

        let mut scope = vec![("gid".to_string(), Ty::U32)];
        scope.extend(
            inputs
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("a{i}"), *t)),
        );
        scope.extend(
            fields
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("p.f{i}"), *t)),
        );
        if vector_field {
            scope.extend(LANES.iter().map(|l| (format!("p.fv.{l}"), Ty::I32)));
        }
        self.fixed_scope(&scope);
        self.declare("acc", Ty::U64, false);
        let mut body = vec!["uint64 acc = (uint64) gid;".to_string()];
        self.block(&mut body, 0, 0);
        for _ in 0..self.rng.range(1, 2) {
            self.statement_matrix(&mut body);
        }
        self.fixed_scope(&[]);

        let loads = |arr: &str, pad: &str| -> String {
            inputs
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{pad}{} a{i} = {arr}{i}[gid];\n", t.name()))
                .collect()
        };
        let lines = |pad: &str| -> String { body.iter().map(|l| format!("{pad}{l}\n")).collect() };
        let params: String = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| format!("KernelBuffer<{}> in{i}, ", t.name()))
            .collect();
        let kernel = format!(
            "    @Kernel\n    public static void km({params}KernelBuffer<uint64> sums, Pm p, uint32 n) {{\n        uint32 gid = KernelThread.globalIdX();\n        if (gid >= n) {{\n            return;\n        }}\n{}{}        sums[gid] = acc;\n    }}\n\n",
            loads("in", "        "),
            lines("        ")
        );
        let setup = format!(
            "        Pm p = stack Pm({});\n        KernelBuffer<uint64> d_sumsm = heap KernelBuffer<uint64>(n);\n",
            values.join(", ")
        );
        let args: String = (0..inputs.len()).map(|i| format!("d_in{i}, ")).collect();
        let launch = format!(
            "        km.launch(s, grid: [(n + 63) / 64], block: [64])({args}d_sumsm, p, n);\n"
        );
        let check = format!(
            "        uint64[] sumsm = heap uint64[n];\n        d_sumsm.download(sumsm);\n        for (uint32 gid = 0; gid < n; gid++) {{\n{}{}            if (sumsm[gid] != acc) {{\n                System.out.println(\"km[\" + gid + \"] checksum: device \" + sumsm[gid] + \", host \" + acc);\n                bad++;\n            }}\n        }}\n",
            loads("h_in", "            "),
            lines("            ")
        );
        ValueKernel {
            class,
            kernel,
            setup,
            launch,
            check,
            outputs: n,
        }
    }

    /// One matrix group: an R×C matrix and vectors of whole-number float expressions, one
    /// product form, and every lane of the result folded into the checksum.
    fn statement_matrix(&mut self, out: &mut Vec<String>) {
        let (r, c) = (self.rng.range(2, 4), self.rng.range(2, 4));
        let m = self.fresh("m");
        let elems: Vec<String> = (0..r * c).map(|_| self.expr(Ty::F32, 2, true).0).collect();
        out.push(format!(
            "Matrix<float32, {r}, {c}> {m} = stack Matrix<float32, {r}, {c}>({});",
            elems.join(", ")
        ));
        let vector = |g: &mut Self, k: usize| -> String {
            let lanes: Vec<String> = (0..k).map(|_| g.expr(Ty::F32, 2, true).0).collect();
            format!("stack Vector<float32, {k}>({})", lanes.join(", "))
        };
        let t = self.fresh("t");
        let lanes = match self.rng.below(4) {
            0 => {
                let v = vector(self, c);
                out.push(format!("Vector<float32, {r}> {t} = {m} * {v};"));
                r
            }
            1 => {
                let v = vector(self, r);
                out.push(format!("Vector<float32, {c}> {t} = {v} * {m};"));
                c
            }
            2 => {
                // (C×R)(R×C) is C×C.
                let v = vector(self, c);
                out.push(format!(
                    "Vector<float32, {c}> {t} = ({m}.transpose() * {m}) * {v};"
                ));
                c
            }
            _ => {
                let v = vector(self, r);
                out.push(format!("Vector<float32, {r}> {t} = {m} * ({v} * {m});"));
                r
            }
        };
        for l in &LANES[..lanes] {
            out.push(format!(
                "acc = acc * ((uint64) 31) + ((uint64) (int64) {t}.{l});"
            ));
        }
    }
}
