//! The collective kernel of generated programs (`kc`): what one invocation cannot compute
//! alone. Each invocation of a 64-wide workgroup computes a random expression of its inputs
//! into a `Shared` array; one to three rounds then read two other invocations' elements
//! (`Barrier.workgroup()` between writing and reading, all in uniform control flow: no early
//! `return`, the last workgroup's idle invocations compute a fixed value); and the round's
//! results are combined per workgroup into slots of a `red` buffer by operations whose
//! result does not depend on order: buffer atomics (`atomicAdd Min Max And Or Xor`), shared
//! atomics on a `Shared` counter copied out by invocation 0, and wave reductions
//! (`Wave.reduceSum` …) whose per-wave results the first lane of each wave combines with the
//! same atomic, so the slot is the same whatever the device's wave width.
//!
//! Host code recomputes the same statement text over arrays (one element per invocation of
//! every workgroup) and compares every element and every slot.

use std::fmt::Write;

use super::gen::Gen;
use super::ty::Ty;

/// An order-independent combination: its name in `Wave.reduce*` and `atomic*`, the host
/// statement folding `z` into `r`, and its identity (the slot's initial value).
struct Combine {
    name: &'static str,
    fold: &'static str,
    init_i32: &'static str,
    init_u32: &'static str,
}

const COMBINES: [Combine; 6] = [
    Combine {
        name: "Sum",
        fold: "r += z;",
        init_i32: "0",
        init_u32: "0",
    },
    Combine {
        name: "Min",
        fold: "if (z < r) { r = z; }",
        init_i32: "((int32) 0x7FFFFFFF)",
        init_u32: "((uint32) 0xFFFFFFFF)",
    },
    Combine {
        name: "Max",
        fold: "if (z > r) { r = z; }",
        init_i32: "((int32) 0x80000000)",
        init_u32: "((uint32) 0)",
    },
    Combine {
        name: "And",
        fold: "r &= z;",
        init_i32: "((int32) 0xFFFFFFFF)",
        init_u32: "((uint32) 0xFFFFFFFF)",
    },
    Combine {
        name: "Or",
        fold: "r |= z;",
        init_i32: "0",
        init_u32: "0",
    },
    Combine {
        name: "Xor",
        fold: "r ^= z;",
        init_i32: "0",
        init_u32: "0",
    },
];

/// Where a slot's value comes from.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    /// Every invocation's `atomic*` on the `red` buffer.
    Buffer,
    /// Every invocation's `atomic*` on a `Shared` counter, copied to `red` by invocation 0.
    Shared,
    /// `Wave.reduce*`, then the first lane's `atomic*` on `red`.
    Wave,
}

/// The text the collective kernel adds to a program.
pub(super) struct Collective {
    /// The kernel's declaration.
    pub(super) kernel: String,
    /// Host statements before the launches (slot initial values, buffers).
    pub(super) setup: String,
    /// The launch statement.
    pub(super) launch: String,
    /// Host statements after `s.sync()` that count mismatches in `bad`.
    pub(super) check: String,
    /// Elements compared: `n` outputs and the slots of every workgroup.
    pub(super) outputs: usize,
}

impl Gen<'_> {
    /// The collective kernel over `inputs` (`in0` … of those element types), for `n` elements.
    pub(super) fn collective(&mut self, inputs: &[Ty], n: usize) -> Collective {
        let ty = *self.rng.pick(&[Ty::I32, Ty::U32]);
        let t = ty.name();
        let mut scope = vec![("gid".to_string(), Ty::U32)];
        scope.extend(
            inputs
                .iter()
                .enumerate()
                .map(|(i, it)| (format!("a{i}"), *it)),
        );
        self.fixed_scope(&scope);
        let (first, _) = self.expr(ty, 3, true);
        let idle = self.small_literal(ty);
        let loads = |arr: &str| -> String {
            inputs
                .iter()
                .enumerate()
                .map(|(i, it)| format!("{} a{i} = {arr}{i}[(gid < n) ? gid : 0]; ", it.name()))
                .collect()
        };
        let first_stmt = format!("(gid < n) ? (({t}) {first}) : {idle}");
        // Rounds: each reads two elements of the previous round by a permutation of `l`.
        let rounds: Vec<(String, String, &str)> = (0..self.rng.range(1, 3))
            .map(|_| {
                let op = *self.rng.pick(&["+", "-", "*", "^", "&", "|"]);
                (self.permutation(), self.permutation(), op)
            })
            .collect();
        let slots: Vec<(Via, usize)> = (0..self.rng.range(1, 4))
            .map(|_| {
                let via = *self.rng.pick(&[Via::Buffer, Via::Shared, Via::Wave]);
                (via, self.rng.below(COMBINES.len()))
            })
            .collect();
        let s = slots.len();
        let init = |c: &Combine| {
            if ty == Ty::I32 {
                c.init_i32
            } else {
                c.init_u32
            }
        };

        // The kernel.
        let params: String = inputs
            .iter()
            .enumerate()
            .map(|(i, it)| format!("KernelBuffer<{}> in{i}, ", it.name()))
            .collect();
        let mut k = format!(
            "    @Kernel\n    public static void kc({params}KernelBuffer<{t}> out, KernelBuffer<{t}> red, uint32 n) {{\n        uint32 gid = KernelThread.globalIdX();\n        uint32 l = KernelThread.x();\n        uint32 wg = gid / 64;\n        Shared<{t}> t = shared {t}[64];\n        Shared<{t}> c = shared {t}[{s}];\n        {}\n        {t} z = {first_stmt};\n",
            loads("in")
        );
        for (j, (via, ci)) in slots.iter().enumerate() {
            if *via == Via::Shared {
                let _ = writeln!(
                    k,
                    "        if (l == 0) {{ c[{j}] = {}; }}",
                    init(&COMBINES[*ci])
                );
            }
        }
        for (p, q, op) in &rounds {
            let _ = write!(
                k,
                "        t[l] = z;\n        Barrier.workgroup();\n        z = t[{p}] {op} t[{q}];\n        Barrier.workgroup();\n"
            );
        }
        for (j, (via, ci)) in slots.iter().enumerate() {
            let name = COMBINES[*ci].name;
            let atomic = if name == "Sum" { "Add" } else { name };
            let _ = match via {
                Via::Buffer => writeln!(k, "        red.atomic{atomic}(wg * {s} + {j}, z);"),
                Via::Shared => writeln!(k, "        c.atomic{atomic}({j}, z);"),
                Via::Wave => writeln!(
                    k,
                    "        {t} w{j} = Wave.reduce{name}(z);\n        if (Wave.isFirstLane()) {{ red.atomic{atomic}(wg * {s} + {j}, w{j}); }}"
                ),
            };
        }
        k.push_str("        Barrier.workgroup();\n");
        for (j, (via, _)) in slots.iter().enumerate() {
            if *via == Via::Shared {
                let _ = writeln!(k, "        if (l == 0) {{ red[wg * {s} + {j}] = c[{j}]; }}");
            }
        }
        k.push_str("        if (gid < n) {\n            out[gid] = z;\n        }\n    }\n\n");

        // Host: the slots' initial values and the buffers.
        let inits: Vec<String> = slots
            .iter()
            .map(|(via, ci)| match via {
                // Copied over by invocation 0: start from something else, so a missing copy
                // shows.
                Via::Shared => format!("(({t}) 12345)"),
                _ => init(&COMBINES[*ci]).to_string(),
            })
            .collect();
        let setup = format!(
            "        uint32 gc = (n + 63) / 64;\n        {t}[] h_red = heap {t}[gc * {s}];\n        {t}[] red_init = [{}];\n        for (uint32 i = 0; i < gc * {s}; i++) {{ h_red[i] = red_init[i % {s}]; }}\n        KernelBuffer<{t}> d_red = heap KernelBuffer<{t}>(gc * {s});\n        d_red.upload(h_red);\n        KernelBuffer<{t}> d_outc = heap KernelBuffer<{t}>(n);\n",
            inits.join(", ")
        );
        let args: String = (0..inputs.len()).map(|i| format!("d_in{i}, ")).collect();
        let launch =
            format!("        kc.launch(s, grid: [gc], block: [64])({args}d_outc, d_red, n);\n");

        // Host: the same statements over arrays of every invocation.
        let mut check = format!(
            "        {t}[] gotc = heap {t}[n];\n        d_outc.download(gotc);\n        {t}[] gred = heap {t}[gc * {s}];\n        d_red.download(gred);\n        {t}[] hz = heap {t}[gc * 64];\n        for (uint32 gid = 0; gid < gc * 64; gid++) {{\n            {}\n            hz[gid] = {first_stmt};\n        }}\n",
            loads("h_in")
        );
        for (p, q, op) in &rounds {
            let _ = write!(
                check,
                "        {{\n            {t}[] hp = heap {t}[gc * 64];\n            for (uint32 gid = 0; gid < gc * 64; gid++) {{ hp[gid] = hz[gid]; }}\n            for (uint32 gid = 0; gid < gc * 64; gid++) {{\n                uint32 l = gid % 64;\n                uint32 b = gid - l;\n                hz[gid] = hp[b + ({p})] {op} hp[b + ({q})];\n            }}\n        }}\n",
            );
        }
        let _ = write!(
            check,
            "        for (uint32 gid = 0; gid < n; gid++) {{\n            if (gotc[gid] != hz[gid]) {{\n                System.out.println(\"kc[\" + gid + \"]: device \" + gotc[gid] + \", host \" + hz[gid]);\n                bad++;\n            }}\n        }}\n        for (uint32 wg = 0; wg < gc; wg++) {{\n"
        );
        for (j, (_, ci)) in slots.iter().enumerate() {
            let c = &COMBINES[*ci];
            let _ = write!(
                check,
                "            {t} r{j} = {};\n            for (uint32 l = 0; l < 64; l++) {{\n                {t} z = hz[wg * 64 + l];\n                {}\n            }}\n            if (gred[wg * {s} + {j}] != r{j}) {{\n                System.out.println(\"kc wg \" + wg + \" slot {j} ({}): device \" + gred[wg * {s} + {j}] + \", host \" + r{j});\n                bad++;\n            }}\n",
                init(c),
                c.fold.replace('r', &format!("r{j}")),
                c.name,
            );
        }
        check.push_str("        }\n");
        self.fixed_scope(&[]);
        Collective {
            kernel: k,
            setup,
            launch,
            check,
            outputs: n + n.div_ceil(64) * s,
        }
    }

    /// A permutation of the local index `l` (0..64) as an index expression.
    fn permutation(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("(l + {}) % 64", self.rng.range(1, 63)),
            1 => "63 - l".to_string(),
            2 => format!("l ^ {}", self.rng.range(1, 63)),
            _ => format!("(l * {}) % 64", 2 * self.rng.range(0, 31) + 1),
        }
    }

    /// A small literal of `ty` for the idle invocations of the last workgroup.
    fn small_literal(&mut self, ty: Ty) -> String {
        format!("(({}) {})", ty.name(), self.rng.range(1, 99))
    }
}
