//! Control-flow statements of the control kernel `kx` (docs/fuzzing.md, "The control
//! kernel"): `switch` statements with colon arms (fall-through, `break`, `continue` of the
//! enclosing loop) and with arrow arms, `switch` expressions (arrow arms, blocks ending in
//! `yield`), and labeled loops left by `break L` and `continue L` from an inner loop. The
//! scalar generator (`gen.rs`) draws them only while [`Gen::control`] is set and at most two
//! blocks deep (programs stay a few hundred lines longer, not thousands), so the other
//! kernels of a program are what they were before these statements existed.
//!
//! Selectors are random integer expressions of every width, masked to a few values half the
//! time so that most arms are taken; case labels are typed literals (`((uint16) 7)`), one of
//! them a boundary value of the type now and then.

use super::gen::{zero_free_float, Gen};
use super::ty::{int_literal, int_value, Ty, INTS};

impl Gen<'_> {
    /// One control-flow statement or helper call; `kind` picks which (0 to 3).
    pub(super) fn statement_control(
        &mut self,
        out: &mut Vec<String>,
        depth: usize,
        loops: usize,
        kind: usize,
    ) {
        match kind {
            0 => self.switch_statement(out, depth, loops, false),
            1 if self.rng.chance(50) => self.switch_statement(out, depth, loops, true),
            1 => self.switch_expression(out, depth),
            3 => self.helper_call(out),
            _ if loops == 0 => self.labeled_loops(out, depth),
            _ => self.switch_statement(out, depth, loops, false),
        }
    }

    /// A selector of a random integer type and distinct labels for its arms.
    fn selector(&mut self, arms: usize) -> (Ty, String, Vec<Vec<String>>) {
        let ty = *self.rng.pick(&INTS);
        let (e, _) = self.expr(ty, 2, true);
        let masked = self.rng.chance(50);
        let sel = if masked {
            format!("({e} & {})", int_literal(ty, 7))
        } else {
            e
        };
        let mut used: Vec<i128> = Vec::new();
        let mut labels = Vec::new();
        for _ in 0..arms {
            let mut arm = Vec::new();
            for _ in 0..self.rng.range(1, 2) {
                let v = if masked || self.rng.chance(60) {
                    self.rng.below(8) as i128
                } else {
                    int_value(self.rng, ty)
                };
                if !used.contains(&v) {
                    used.push(v);
                    arm.push(int_literal(ty, v));
                }
            }
            if !arm.is_empty() {
                labels.push(arm);
            }
        }
        (ty, sel, labels)
    }

    /// A block of statements in a scope of its own, as lines indented by four.
    fn arm_block(&mut self, depth: usize, loops: usize) -> Vec<String> {
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        self.block(&mut body, depth + 1, loops);
        self.scopes.pop();
        body.into_iter().map(|l| format!("    {l}")).collect()
    }

    /// `switch (sel) { case …: { … } [break;|continue;] … }` or, with `arrows`, `case … ->
    /// { … }`. A colon arm without `break` falls through into the next.
    fn switch_statement(
        &mut self,
        out: &mut Vec<String>,
        depth: usize,
        loops: usize,
        arrows: bool,
    ) {
        let arms = self.rng.range(1, 4);
        let (_, sel, labels) = self.selector(arms);
        let default_at = self
            .rng
            .chance(60)
            .then(|| self.rng.below(labels.len() + 1));
        out.push(format!("switch ({sel}) {{"));
        // `continue` only in a switch without `default`: with one, arms that all continue
        // or fall into a `continue` would leave nothing after the switch reachable (E0027).
        let jumps = if default_at.is_none() { loops } else { 0 };
        for i in 0..=labels.len() {
            if default_at == Some(i) {
                self.switch_arm(out, "default".to_string(), depth, loops, jumps, arrows);
            }
            if let Some(arm) = labels.get(i) {
                let head = format!("case {}", arm.join(", "));
                self.switch_arm(out, head, depth, loops, jumps, arrows);
            }
        }
        out.push("}".to_string());
    }

    fn switch_arm(
        &mut self,
        out: &mut Vec<String>,
        head: String,
        depth: usize,
        loops: usize,
        continue_loops: usize,
        arrows: bool,
    ) {
        let sep = if arrows { " ->" } else { ":" };
        out.push(format!("    {head}{sep} {{"));
        let body = self.arm_block(depth, loops);
        out.extend(body.into_iter().map(|l| format!("    {l}")));
        out.push("    }".to_string());
        if !arrows {
            match self.rng.below(10) {
                0..=5 => out.push("    break;".to_string()),
                6 if continue_loops > 0 => out.push("    continue;".to_string()),
                _ => {} // falls through
            }
        }
    }

    /// `T v = switch (sel) { case … -> e; case … -> { …; yield e; } default -> e; };`, then
    /// `v` folded into the checksum. The arms' blocks get no `break`/`continue` of an
    /// enclosing loop (they cannot leave a switch expression).
    fn switch_expression(&mut self, out: &mut Vec<String>, depth: usize) {
        let ty = if self.rng.chance(20) {
            *self.rng.pick(&[Ty::F32, Ty::F64])
        } else {
            *self.rng.pick(&INTS)
        };
        let arms = self.rng.range(1, 4);
        let (_, sel, labels) = self.selector(arms);
        let name = self.fresh("v");
        out.push(format!("{} {name} = switch ({sel}) {{", ty.name()));
        let heads: Vec<String> = labels
            .iter()
            .map(|arm| format!("case {}", arm.join(", ")))
            .chain(std::iter::once("default".to_string()))
            .collect();
        for head in heads {
            let (e, _) = self.expr(ty, 3, true);
            let e = zero_free_float(e, ty);
            if self.rng.chance(40) {
                out.push(format!("    {head} -> {{"));
                let body = self.arm_block(depth, 0);
                out.extend(body.into_iter().map(|l| format!("    {l}")));
                out.push(format!("        yield {e};"));
                out.push("    }".to_string());
            } else {
                out.push(format!("    {head} -> {e};"));
            }
        }
        out.push("};".to_string());
        self.declare(&name, ty, true);
        let fold = if ty.is_float() {
            format!("((uint64) (int64) {name})")
        } else {
            format!("((uint64) {name})")
        };
        out.push(format!("acc = acc * ((uint64) 31) + {fold};"));
    }

    /// An outer loop with a label and an inner loop that leaves it with `continue L` and
    /// `break L` under conditions, statements before and after each jump.
    fn labeled_loops(&mut self, out: &mut Vec<String>, depth: usize) {
        let label = self.fresh("L");
        let i = self.fresh("i");
        let j = self.fresh("j");
        let (ti, tj) = (self.rng.range(1, 4), self.rng.range(1, 4));
        self.scopes.push(Vec::new());
        self.declare(&i, Ty::I32, false);
        out.push(format!(
            "{label}: for (int32 {i} = 0; {i} < {ti}; {i}++) {{"
        ));
        let before = self.arm_block(depth, 1);
        out.extend(before);
        self.scopes.push(Vec::new());
        self.declare(&j, Ty::I32, false);
        out.push(format!("    for (int32 {j} = 0; {j} < {tj}; {j}++) {{"));
        let mut inner = self.arm_block(depth + 1, 2);
        let jumps = if self.rng.chance(50) {
            ["continue", "break"]
        } else {
            ["break", "continue"]
        };
        for jump in jumps {
            let (c, _) = self.expr(Ty::Bool, 2, true);
            inner.push(format!("    if ({c}) {{ {jump} {label}; }}"));
            inner.extend(self.arm_block(depth + 1, 2));
        }
        out.extend(inner.into_iter().map(|l| format!("    {l}")));
        out.push("    }".to_string());
        self.scopes.pop();
        out.extend(self.arm_block(depth, 1));
        self.scopes.pop();
        out.push("}".to_string());
    }
}
