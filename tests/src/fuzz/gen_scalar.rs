//! The per-invocation scalar kernels of generated programs (`k0` … and the control-flow
//! kernel `kx`): inputs loaded at `globalIdX()`, random statements (`gen.rs`), one to three
//! outputs per invocation and the checksum `acc`, and the host's recomputation of the same
//! statement text for every element.

use std::fmt::Write;

use super::gen::Gen;
use super::ty::Ty;

/// The text one scalar kernel adds to a program.
pub(super) struct ScalarKernel {
    /// The kernel's declaration.
    pub(super) kernel: String,
    /// Host statements that allocate its outputs and launch it.
    pub(super) launch: String,
    /// Host statements after `s.sync()` that count mismatches in `bad`.
    pub(super) check: String,
    /// Elements compared (outputs and checksums).
    pub(super) outputs: usize,
}

impl Gen<'_> {
    /// The scalar kernel `k{k}` over `inputs` (`in0` … of those element types), `n`
    /// invocations.
    pub(super) fn scalar_kernel(&mut self, k: &str, inputs: &[Ty], n: usize) -> ScalarKernel {
        let params: String = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| format!("KernelBuffer<{}> in{i}, ", t.name()))
            .collect();
        let mut kernel = String::new();
        let mut launch = String::new();
        let mut check = String::new();
        let out_ty = self.numeric();
        let m = self.rng.range(1, 3);
        let mut outputs = m * n;
        self.scopes = vec![Vec::new()];
        self.declare("gid", Ty::U32, false);
        for (i, t) in inputs.iter().enumerate() {
            self.declare(&format!("a{i}"), *t, false);
        }
        self.declare("acc", Ty::U64, false);
        let mut body = vec!["uint64 acc = (uint64) gid;".to_string()];
        // Top-level locals first: later statements and the outputs can use them.
        for _ in 0..self.rng.range(1, 3) {
            self.statement_decl(&mut body);
        }
        // The control kernel calls each of its helpers at least once (none elsewhere).
        for h in 0..self.helpers.len() {
            self.call_helper(&mut body, h);
        }
        self.block(&mut body, 0, 0);
        let results: Vec<String> = (0..m)
            .map(|_| self.expr(out_ty, self.cfg.max_depth, true).0)
            .collect();
        let o = out_ty.name();
        let loads = |prefix: &str| -> String {
            inputs
                .iter()
                .enumerate()
                .map(|(i, t)| format!("        {} a{i} = {prefix}{i}[gid];\n", t.name()))
                .collect()
        };
        let indent = |pad: &str| -> String { body.iter().map(|l| format!("{pad}{l}\n")).collect() };
        let _ = write!(
            kernel,
            "    @Kernel\n    public static void k{k}({params}KernelBuffer<{o}> out, KernelBuffer<uint64> sums, uint32 n) {{\n        uint32 gid = KernelThread.globalIdX();\n        if (gid >= n) {{\n            return;\n        }}\n{}{}",
            loads("in"),
            indent("        ")
        );
        for (j, r) in results.iter().enumerate() {
            let _ = writeln!(kernel, "        out[gid * {m} + {j}] = {r};");
        }
        kernel.push_str("        sums[gid] = acc;\n    }\n\n");
        let args: String = (0..inputs.len()).map(|i| format!("d_in{i}, ")).collect();
        let _ = writeln!(
            launch,
            "        KernelBuffer<{o}> d_out{k} = heap KernelBuffer<{o}>(n * {m});\n        KernelBuffer<uint64> d_sums{k} = heap KernelBuffer<uint64>(n);\n        k{k}.launch(s, grid: [(n + 63) / 64], block: [64])({args}d_out{k}, d_sums{k}, n);"
        );
        let _ = write!(
            check,
            "        {o}[] got{k} = heap {o}[n * {m}];\n        d_out{k}.download(got{k});\n        uint64[] sums{k} = heap uint64[n];\n        d_sums{k}.download(sums{k});\n        for (uint32 gid = 0; gid < n; gid++) {{\n{}{}",
            loads("h_in").replace("        ", "            "),
            indent("            ")
        );
        for (j, r) in results.iter().enumerate() {
            let (z, one) = match out_ty {
                Ty::F32 => ("0.0f", "1.0f"),
                _ => ("0.0", "1.0"),
            };
            let same = if out_ty.is_float() {
                format!("(dev{j} == want{j} && (dev{j} != {z} || {one} / dev{j} == {one} / want{j})) || (dev{j} != dev{j} && want{j} != want{j})")
            } else {
                format!("dev{j} == want{j}")
            };
            let _ = write!(
                check,
                "            {o} want{j} = {r};\n            {o} dev{j} = got{k}[gid * {m} + {j}];\n            if (!({same})) {{\n                System.out.println(\"k{k}[\" + gid + \"][{j}]: device \" + dev{j} + \", host \" + want{j});\n                bad++;\n            }}\n"
            );
        }
        let _ = write!(
            check,
            "            if (sums{k}[gid] != acc) {{\n                System.out.println(\"k{k}[\" + gid + \"] checksum: device \" + sums{k}[gid] + \", host \" + acc);\n                bad++;\n            }}\n        }}\n"
        );
        outputs += n;
        ScalarKernel {
            kernel,
            launch,
            check,
            outputs,
        }
    }
}
