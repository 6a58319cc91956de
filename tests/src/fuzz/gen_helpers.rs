//! `@Host @Device` helpers of the control kernel `kx` (docs/fuzzing.md, "The control
//! kernel"): one or two static methods of random parameter types whose bodies are generated
//! statements (switches and labeled loops included), with the parameters assignable (they
//! are copies: the caller's locals must not change) and `return`s from inside a loop as well
//! as at the end. Kernels call them on the device, `run()` in host code, so every executor
//! compiles the same helper: inlined or called by the two kernel backends and the CPU device,
//! interpreted and compiled natively on the host.

use super::gen::Gen;
use super::ty::{Ty, NUMERIC};

/// A generated helper: its name, parameter types and declaration.
pub(super) struct Helper {
    pub(super) name: String,
    pub(super) params: Vec<Ty>,
    pub(super) text: String,
}

impl Gen<'_> {
    /// One helper `hN(p0, …)` returning a `uint64` checksum of what its body computed.
    pub(super) fn helper(&mut self) -> Helper {
        let name = self.fresh("h");
        let params: Vec<Ty> = (0..self.rng.range(1, 3))
            .map(|_| *self.rng.pick(&NUMERIC))
            .collect();
        self.scopes = vec![Vec::new()];
        for (i, t) in params.iter().enumerate() {
            self.declare(&format!("p{i}"), *t, true);
        }
        self.declare("acc", Ty::U64, false);
        let mut body = vec![format!(
            "uint64 acc = (uint64) {};",
            self.rng.range(1, 1000)
        )];
        for (i, t) in params.iter().enumerate() {
            let fold = if t.is_float() {
                format!("((uint64) (int64) p{i})")
            } else {
                format!("((uint64) p{i})")
            };
            body.push(format!("acc = acc * ((uint64) 31) + {fold};"));
        }
        self.block(&mut body, 0, 0);
        if self.rng.chance(60) {
            // A return from inside a loop, statements around it.
            let i = self.fresh("i");
            let trips = self.rng.range(1, 4);
            self.scopes.push(Vec::new());
            self.declare(&i, Ty::I32, false);
            body.push(format!("for (int32 {i} = 0; {i} < {trips}; {i}++) {{"));
            let mut inner = Vec::new();
            self.block(&mut inner, 1, 1);
            let (c, _) = self.expr(Ty::Bool, 2, true);
            inner.push(format!("if ({c}) {{ return acc ^ ((uint64) {trips}); }}"));
            self.block(&mut inner, 1, 1);
            self.scopes.pop();
            body.extend(inner.into_iter().map(|l| format!("    {l}")));
            body.push("}".to_string());
        }
        self.block(&mut body, 0, 0);
        let (e, _) = self.expr(Ty::U64, 3, true);
        body.push(format!("return acc * ((uint64) 31) + {e};"));
        let list: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{} p{i}", t.name()))
            .collect();
        let mut text = format!(
            "    @Host @Device\n    static uint64 {name}({}) {{\n",
            list.join(", ")
        );
        for l in body {
            text.push_str("        ");
            text.push_str(&l);
            text.push('\n');
        }
        text.push_str("    }\n\n");
        Helper { name, params, text }
    }

    /// `acc = acc * 31 + hN(args);`, the arguments expressions of the parameters' types
    /// (often a bare local, which later statements read again: a helper assigning its
    /// parameter must not change it). Without helpers, an assignment instead.
    pub(super) fn helper_call(&mut self, out: &mut Vec<String>) {
        if self.helpers.is_empty() {
            return self.assignment(out);
        }
        let h = self.rng.below(self.helpers.len());
        self.call_helper(out, h);
    }

    /// `acc = acc * 31 + hN(args);` for helper `h` of [`Gen::helpers`].
    pub(super) fn call_helper(&mut self, out: &mut Vec<String>, h: usize) {
        let (name, params) = self.helpers[h].clone();
        let args: Vec<String> = params.iter().map(|t| self.expr(*t, 2, true).0).collect();
        out.push(format!(
            "acc = acc * ((uint64) 31) + {name}({});",
            args.join(", ")
        ));
    }
}
