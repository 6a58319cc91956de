//! Writing the vector form of a kernel (`simd.rs`): uniformity, masks, and each
//! instruction as its `<W x T>` form.
//!
//! A value is *uniform* when it is the same in every lane: constants, the context's fields
//! but the x ids, loads marked `!invariant.load` (push constants, the binding table) from a
//! uniform address, and what is computed from uniform values only. Uniform instructions are
//! copied as they are (scalar); the others (*varying*) get a vector each, `%name.v`. Phis
//! are varying, so a uniform value never changes from one loop iteration to the next.
//!
//! Masks are `<W x i1>`; an edge's mask is its block's mask `select`ed with the branch
//! condition (a `select`, not an `and`, so that poison in an idle lane cannot leak into a
//! mask). A loop's state (its phis, its mask, the masks of the edges leaving it, the
//! values used after it) lives in stack slots the optimizer turns back into registers.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::simd::{Cfg, Item};
use super::simd_classify::{instructions, name_of, print_type, print_value};

/// The writer of one kernel's vector form.
pub(crate) struct Emit<'a> {
    pub(super) module: LLVMModuleRef,
    pub(super) kernel: LLVMValueRef,
    pub(super) cfg: &'a Cfg,
    pub(super) lanes: usize,
    /// Declarations the vector form adds to the module.
    pub(crate) decls: Vec<String>,
    pub(super) out: String,
    pub(super) allocas: String,
    pub(super) tmp: usize,
    pub(super) loop_count: usize,
    pub(super) uniform: HashSet<LLVMValueRef>,
    /// Varying values read after a loop they are defined in: their `%name.acc` slot holds
    /// each lane's last value.
    pub(super) acc: HashSet<LLVMValueRef>,
    /// The block of each instruction.
    pub(super) block_of: HashMap<LLVMValueRef, usize>,
    /// Edge masks of the current iteration, by (from, to).
    pub(super) edge: HashMap<(usize, usize), String>,
    /// Edges that leave a loop: their mask is a slot, `%exit.P.S`.
    pub(super) exits: HashSet<(usize, usize)>,
    pub(super) invariant_kind: u32,
}

impl<'a> Emit<'a> {
    /// Renames `kernel`'s values, checks every instruction is one this pass writes, and
    /// sorts them into uniform and varying.
    ///
    /// # Safety
    /// `module` is live and defines `kernel`.
    pub(crate) unsafe fn new(
        module: LLVMModuleRef,
        kernel: LLVMValueRef,
        cfg: &'a Cfg,
        lanes: usize,
    ) -> Result<Emit<'a>, String> {
        let key = "invariant.load";
        let mut e = Emit {
            module,
            kernel,
            cfg,
            lanes,
            decls: Vec::new(),
            out: String::new(),
            allocas: String::new(),
            tmp: 0,
            loop_count: 0,
            uniform: HashSet::new(),
            acc: HashSet::new(),
            block_of: HashMap::new(),
            edge: HashMap::new(),
            exits: HashSet::new(),
            invariant_kind: LLVMGetMDKindIDInContext(
                LLVMGetModuleContext(module),
                key.as_ptr().cast(),
                key.len() as u32,
            ),
        };
        if LLVMCountParams(kernel) != 1 {
            return Err("a kernel function without one context parameter".into());
        }
        let ctx = LLVMGetParam(kernel, 0);
        LLVMSetValueName2(ctx, c"ctx".as_ptr(), 3);
        let mut n = 0;
        for (b, block) in cfg.blocks.iter().enumerate() {
            for inst in instructions(*block) {
                e.block_of.insert(inst, b);
                e.check(inst)?;
                if print_type(LLVMTypeOf(inst)) != "void" {
                    let name = format!("i{n}");
                    n += 1;
                    LLVMSetValueName2(inst, name.as_ptr().cast(), name.len());
                }
            }
        }
        e.classify();
        e.find_accumulators();
        for p in 0..cfg.blocks.len() {
            for &s in &cfg.succs[p] {
                if cfg.left_loop(p, s).is_some() {
                    e.exits.insert((p, s));
                }
            }
        }
        Ok(e)
    }

    pub(super) fn tmp(&mut self) -> String {
        self.tmp += 1;
        format!("%s{}", self.tmp)
    }

    pub(super) fn line(&mut self, s: impl AsRef<str>) {
        self.out.push_str("  ");
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    /// Declares `name` with `signature` (`ret (args)`) unless the module has it.
    pub(super) unsafe fn declare(&mut self, name: &str, ret: &str, args: &str) {
        let c = std::ffi::CString::new(name).unwrap_or_default();
        let decl = format!("declare {ret} @\"{name}\"({args})");
        if LLVMGetNamedFunction(self.module, c.as_ptr()).is_null() && !self.decls.contains(&decl) {
            self.decls.push(decl);
        }
    }

    pub(super) fn vec(&self, ty: &str) -> String {
        format!("<{} x {ty}>", self.lanes)
    }

    /// `v`'s scalar type.
    pub(super) unsafe fn ty(v: LLVMValueRef) -> String {
        print_type(LLVMTypeOf(v))
    }

    /// A uniform operand as scalar text (no type).
    pub(super) unsafe fn scalar(&self, v: LLVMValueRef) -> String {
        if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
            return format!("%{}", name_of(v));
        }
        let ty = Self::ty(v);
        let text = print_value(v);
        text.strip_prefix(&format!("{ty} "))
            .unwrap_or(&text)
            .to_string()
    }

    /// Whether `v` is the same in every lane.
    pub(super) fn is_uniform(&self, v: LLVMValueRef) -> bool {
        // SAFETY: `v` is a live value of the kernel.
        unsafe { LLVMIsAInstruction(v).is_null() || self.uniform.contains(&v) }
    }

    /// `v` as a `<W x T>` vector, read at an edge `p` → `b` (`p == b` inside `b`).
    pub(super) unsafe fn vector(&mut self, v: LLVMValueRef, p: usize, b: usize) -> String {
        let ty = Self::ty(v);
        if self.is_uniform(v) {
            if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
                return self.splat(&ty, &format!("%{}", name_of(v)));
            }
            let s = self.scalar(v);
            return match s.as_str() {
                "poison" | "undef" | "zeroinitializer" | "null" => {
                    if s == "null" {
                        "zeroinitializer".into()
                    } else {
                        s
                    }
                }
                _ => format!("splat ({ty} {s})"),
            };
        }
        let name = name_of(v);
        let def = self.block_of[&v];
        if self.acc.contains(&v) && !self.cfg.same_iteration(def, p, b) {
            let t = self.tmp();
            let vty = self.vec(&ty);
            self.line(format!("{t} = load {vty}, ptr %{name}.acc"));
            return t;
        }
        format!("%{name}.v")
    }

    /// A vector of `lanes` copies of the scalar SSA value `s` of type `ty`.
    pub(super) fn splat(&mut self, ty: &str, s: &str) -> String {
        let (a, b) = (self.tmp(), self.tmp());
        let vty = self.vec(ty);
        self.line(format!("{a} = insertelement {vty} poison, {ty} {s}, i64 0"));
        self.line(format!(
            "{b} = shufflevector {vty} {a}, {vty} poison, <{} x i32> zeroinitializer",
            self.lanes
        ));
        b
    }

    /// `<0, 1, …, W - 1>`.
    pub(super) fn lane_indices(&self) -> String {
        let v: Vec<String> = (0..self.lanes).map(|i| format!("i32 {i}")).collect();
        format!("<{}>", v.join(", "))
    }

    /// The whole vector function, named `name`.
    pub(crate) unsafe fn function(&mut self, name: &str) -> Result<String, String> {
        let w = self.lanes;
        // Lane i is invocation (x + i % sx, y + i / sx) of the tile; it runs when that is
        // inside the tile's `nx` columns and `ny` rows.
        let lanes = self.lane_indices();
        for (name, v) in [("sx", "%sx"), ("nx", "%nx"), ("ny", "%ny")] {
            let s = self.splat("i32", v);
            self.line(format!("%{name}.s = or <{w} x i32> {s}, zeroinitializer"));
        }
        self.line(format!("%lx = urem <{w} x i32> {lanes}, %sx.s"));
        self.line(format!("%ly = udiv <{w} x i32> {lanes}, %sx.s"));
        self.line(format!("%inx = icmp ult <{w} x i32> %lx, %nx.s"));
        self.line(format!("%iny = icmp ult <{w} x i32> %ly, %ny.s"));
        self.line(format!("%mask = and <{w} x i1> %inx, %iny"));
        for (p, s) in self.exits.clone() {
            self.allocas
                .push_str(&format!("  %exit.{p}.{s} = alloca <{w} x i1>\n"));
        }
        for v in self.acc.clone() {
            let vty = self.vec(&Self::ty(v));
            self.allocas
                .push_str(&format!("  %{}.acc = alloca {vty}\n", name_of(v)));
        }
        self.region(None)?;
        self.line("ret void");
        self.declare(
            &format!("llvm.vector.reduce.or.v{w}i1"),
            "i1",
            &format!("<{w} x i1>"),
        );
        self.declare("llvm.umin.i32", "i32", "i32, i32");
        self.declare("llvm.memcpy.p0.p0.i64", "void", "ptr, ptr, i64, i1");
        Ok(format!(
            "\ndefine void @\"{name}\"(ptr %ctx, i32 %sx, i32 %nx, i32 %ny) {{\nentry:\n{}{}}}\n",
            self.allocas, self.out
        ))
    }

    /// The items of one level in order.
    unsafe fn region(&mut self, level: Option<usize>) -> Result<(), String> {
        let order = self.cfg.order(level)?;
        for (i, item) in order.into_iter().enumerate() {
            match item {
                Item::Block(b) if i == 0 && level.is_some() => {
                    let _ = b; // the header: `lower_loop` wrote its mask and phis
                }
                Item::Block(b) => {
                    let mask = if b == 0 {
                        "%mask".to_string()
                    } else {
                        self.block_mask(b)?
                    };
                    self.block(b, &mask)?;
                }
                Item::Loop(l) => self.lower_loop(l)?,
            }
        }
        Ok(())
    }

    /// The mask of edge `p` → `s`.
    fn edge_mask(&mut self, p: usize, s: usize) -> Result<String, String> {
        if self.exits.contains(&(p, s)) {
            let t = self.tmp();
            self.line(format!(
                "{t} = load <{} x i1>, ptr %exit.{p}.{s}",
                self.lanes
            ));
            return Ok(t);
        }
        self.edge
            .get(&(p, s))
            .cloned()
            .ok_or_else(|| format!("internal: edge {p} -> {s} used before its block"))
    }

    /// The OR of `masks` (all false when empty).
    fn or_all(&mut self, masks: Vec<String>) -> String {
        let mut it = masks.into_iter();
        let Some(mut m) = it.next() else {
            return "zeroinitializer".into();
        };
        for n in it {
            let t = self.tmp();
            self.line(format!("{t} = or <{} x i1> {m}, {n}", self.lanes));
            m = t;
        }
        m
    }

    /// The mask of a block that is not a loop header: the OR of its incoming edges'.
    fn block_mask(&mut self, b: usize) -> Result<String, String> {
        let masks = self.cfg.preds[b]
            .clone()
            .into_iter()
            .map(|p| self.edge_mask(p, b))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.or_all(masks))
    }

    /// `select mask, v, old` into `v`'s slot, when `v` has one.
    unsafe fn update_acc(&mut self, v: LLVMValueRef, mask: &str) {
        if !self.acc.contains(&v) {
            return;
        }
        let (name, vty) = (name_of(v), self.vec(&Self::ty(v)));
        let (old, new) = (self.tmp(), self.tmp());
        self.line(format!("{old} = load {vty}, ptr %{name}.acc"));
        self.line(format!(
            "{new} = select <{} x i1> {mask}, {vty} %{name}.v, {vty} {old}",
            self.lanes
        ));
        self.line(format!("store {vty} {new}, ptr %{name}.acc"));
    }

    /// The scalar text of the one incoming value of uniform `phi` from a block `from`
    /// accepts, and that block.
    unsafe fn incoming_from(
        &self,
        phi: LLVMValueRef,
        from: impl Fn(usize) -> bool,
    ) -> Result<(String, usize), String> {
        (0..LLVMCountIncoming(phi))
            .map(|i| {
                (
                    LLVMGetIncomingValue(phi, i),
                    self.cfg.index[&LLVMGetIncomingBlock(phi, i)],
                )
            })
            .find(|(_, p)| from(*p))
            .map(|(v, p)| (self.scalar(v), p))
            .ok_or_else(|| "internal: a uniform phi without its edge".to_string())
    }

    /// A phi's value chosen by the masks of its incoming edges (`first`: the value lanes on
    /// none of them get), of those edges whose source `from` accepts.
    unsafe fn select_incoming(
        &mut self,
        phi: LLVMValueRef,
        b: usize,
        first: String,
        from: impl Fn(usize) -> bool,
    ) -> Result<String, String> {
        let vty = self.vec(&Self::ty(phi));
        let mut r = first;
        for i in 0..LLVMCountIncoming(phi) {
            let p = self.cfg.index[&LLVMGetIncomingBlock(phi, i)];
            if !from(p) {
                continue;
            }
            let m = self.edge_mask(p, b)?;
            let v = self.vector(LLVMGetIncomingValue(phi, i), p, b);
            let t = self.tmp();
            self.line(format!(
                "{t} = select <{} x i1> {m}, {vty} {v}, {vty} {r}",
                self.lanes
            ));
            r = t;
        }
        Ok(r)
    }

    /// Loop `l`: its state set from the entering lanes, then its body repeated while any
    /// lane takes a back edge.
    unsafe fn lower_loop(&mut self, l: usize) -> Result<(), String> {
        let w = self.lanes;
        let cfg = self.cfg;
        let h = cfg.loops[l].header;
        let inside = |p: usize| cfg.loops[l].blocks.contains(&p);
        let phis: Vec<LLVMValueRef> = instructions(cfg.blocks[h])
            .into_iter()
            .filter(|i| !LLVMIsAPHINode(*i).is_null())
            .collect();
        self.loop_count += 1;
        let n = self.loop_count;
        for &phi in &phis {
            let name = name_of(phi);
            if self.uniform.contains(&phi) {
                // One entering edge and one back edge (`classify`): a scalar slot.
                let ty = Self::ty(phi);
                self.allocas
                    .push_str(&format!("  %{name}.slot = alloca {ty}\n"));
                let (v, _) = self.incoming_from(phi, |p| !inside(p))?;
                self.line(format!("store {ty} {v}, ptr %{name}.slot"));
                continue;
            }
            let vty = self.vec(&Self::ty(phi));
            self.allocas
                .push_str(&format!("  %{name}.slot = alloca {vty}\n"));
            let init = self.select_incoming(phi, h, "poison".into(), |p| !inside(p))?;
            self.line(format!("store {vty} {init}, ptr %{name}.slot"));
        }
        self.allocas
            .push_str(&format!("  %loop{n}.mask = alloca <{w} x i1>\n"));
        let entering: Vec<usize> = cfg.preds[h]
            .iter()
            .copied()
            .filter(|p| !inside(*p))
            .collect();
        let masks = entering
            .iter()
            .map(|p| self.edge_mask(*p, h))
            .collect::<Result<Vec<_>, _>>()?;
        let m = self.or_all(masks);
        self.line(format!("store <{w} x i1> {m}, ptr %loop{n}.mask"));
        let mut exits: Vec<_> = self
            .exits
            .iter()
            .copied()
            .filter(|(p, s)| cfg.left_loop(*p, *s) == Some(l))
            .collect();
        exits.sort();
        for (p, s) in exits {
            self.line(format!(
                "store <{w} x i1> zeroinitializer, ptr %exit.{p}.{s}"
            ));
        }
        self.line(format!("br label %loop{n}.head"));
        self.out.push_str(&format!("loop{n}.head:\n"));
        let mask = self.tmp();
        self.line(format!("{mask} = load <{w} x i1>, ptr %loop{n}.mask"));
        for &phi in &phis {
            let name = name_of(phi);
            if self.uniform.contains(&phi) {
                let ty = Self::ty(phi);
                self.line(format!("%{name} = load {ty}, ptr %{name}.slot"));
                continue;
            }
            let vty = self.vec(&Self::ty(phi));
            self.line(format!("%{name}.v = load {vty}, ptr %{name}.slot"));
            self.update_acc(phi, &mask);
        }
        self.block(h, &mask)?;
        self.region(Some(l))?;
        // The back edges: the lanes staying, and the phis' values for them.
        let latches: Vec<usize> = cfg.preds[h]
            .iter()
            .copied()
            .filter(|p| inside(*p))
            .collect();
        let mut news = Vec::new();
        for &phi in &phis {
            let name = name_of(phi);
            if self.uniform.contains(&phi) {
                let (v, _) = self.incoming_from(phi, inside)?;
                news.push((name, Self::ty(phi), v));
                continue;
            }
            let r = self.select_incoming(phi, h, format!("%{name}.v"), inside)?;
            news.push((name, self.vec(&Self::ty(phi)), r));
        }
        for (name, vty, r) in news {
            self.line(format!("store {vty} {r}, ptr %{name}.slot"));
        }
        let masks = latches
            .iter()
            .map(|p| self.edge_mask(*p, h))
            .collect::<Result<Vec<_>, _>>()?;
        let next = self.or_all(masks);
        self.line(format!("store <{w} x i1> {next}, ptr %loop{n}.mask"));
        let any = self.tmp();
        self.line(format!(
            "{any} = call i1 @llvm.vector.reduce.or.v{w}i1(<{w} x i1> {next})"
        ));
        self.line(format!(
            "br i1 {any}, label %loop{n}.head, label %loop{n}.exit"
        ));
        self.out.push_str(&format!("loop{n}.exit:\n"));
        Ok(())
    }

    /// Block `b` under `mask`: its phis (a header's are already loaded), instructions and
    /// the masks of its outgoing edges.
    unsafe fn block(&mut self, b: usize, mask: &str) -> Result<(), String> {
        let header = self.cfg.inner[b].is_some_and(|l| self.cfg.loops[l].header == b);
        let w = self.lanes;
        for inst in instructions(self.cfg.blocks[b]) {
            let op = LLVMGetInstructionOpcode(inst);
            if op == LLVMOpcode::LLVMPHI {
                if !header {
                    let r = self.select_incoming(inst, b, "poison".into(), |_| true)?;
                    let vty = self.vec(&Self::ty(inst));
                    // `freeze` of a select is not needed; a copy names the value.
                    self.line(format!(
                        "%{}.v = select i1 true, {vty} {r}, {vty} poison",
                        name_of(inst)
                    ));
                    self.update_acc(inst, mask);
                }
                continue;
            }
            match op {
                LLVMOpcode::LLVMUncondBr | LLVMOpcode::LLVMCondBr => {
                    let succ: Vec<usize> = (0..LLVMGetNumSuccessors(inst))
                        .map(|i| self.cfg.index[&LLVMGetSuccessor(inst, i)])
                        .collect();
                    let edges: Vec<(usize, String)> = if op == LLVMOpcode::LLVMCondBr
                        && succ[0] != succ[1]
                    {
                        let c = self.vector(LLVMGetCondition(inst), b, b);
                        let (t, nc, f) = (self.tmp(), self.tmp(), self.tmp());
                        self.line(format!("{t} = select <{w} x i1> {mask}, <{w} x i1> {c}, <{w} x i1> zeroinitializer"));
                        self.line(format!("{nc} = xor <{w} x i1> {c}, splat (i1 true)"));
                        self.line(format!("{f} = select <{w} x i1> {mask}, <{w} x i1> {nc}, <{w} x i1> zeroinitializer"));
                        vec![(succ[0], t), (succ[1], f)]
                    } else {
                        vec![(succ[0], mask.to_string())]
                    };
                    for (s, m) in edges {
                        if self.exits.contains(&(b, s)) {
                            let (old, new) = (self.tmp(), self.tmp());
                            self.line(format!("{old} = load <{w} x i1>, ptr %exit.{b}.{s}"));
                            self.line(format!("{new} = or <{w} x i1> {old}, {m}"));
                            self.line(format!("store <{w} x i1> {new}, ptr %exit.{b}.{s}"));
                        } else {
                            self.edge.insert((b, s), m);
                        }
                    }
                }
                LLVMOpcode::LLVMRet | LLVMOpcode::LLVMUnreachable => {}
                _ => {
                    self.instruction(inst, b, mask)?;
                    self.update_acc(inst, mask);
                }
            }
        }
        Ok(())
    }
}
