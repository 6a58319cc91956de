//! SIMD lanes for kernels without barriers: the invocations of a workgroup run `W` at a time
//! (a tile of `W` consecutive x ids, or of whole rows of a narrower workgroup), each one a
//! lane of LLVM vectors, with an execution mask.
//!
//! LLVM vectorizes the workgroup loop over the invocations only when the kernel body is
//! straight-line enough; a loop whose trip count depends on the data (mandelbrot's escape
//! loop) keeps it scalar, one invocation after the other. This pass takes the optimized
//! one-invocation function (`cajeta.cpu.kernel`, everything inlined into it) and writes its
//! *whole-function vector form*: every value that differs between invocations becomes a
//! `<W x T>` vector, the control flow is linearized with a mask per block (an `if`/`else`
//! runs both sides, each under its lanes' mask; a merge's phis are selects on the edge
//! masks), and a loop runs while any lane is still in it, lanes that left it masked off
//! and their values kept for after it. Memory accesses are masked gathers and scatters
//! (`simd_emit.rs`). A kernel using anything this does not handle (atomics, allocas,
//! calls other than elementwise intrinsics, `switch`, an irreducible CFG) keeps the scalar
//! workgroup loop: the pass refuses and says why (`CAJETA_DUMP_LLVM_KERNELS`).
//!
//! The lanes are not a subgroup: a kernel without barriers that uses subgroup operations
//! still gets the one-invocation results (docs/cpu-device.md), since those are plain scalar
//! code by the time this pass runs. Invocations of a workgroup with no barrier between them
//! are unordered in Vulkan, so running them in lock step is one of the allowed orders.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::simd_choice::{chosen_lanes, DEFAULT_LANES, DIVERGENT_LOOP_LANES};
pub(crate) use super::simd_choice::{lane_count, worth_lanes};
use super::simd_emit::Emit;

/// The workgroup entry running the invocations `W` at a time.
pub(crate) const SIMD_WORKGROUP: &str = "cajeta.cpu.simd.workgroup";
/// The vector form of the kernel: `W` invocations, the first `%active` of them live.
pub(crate) const SIMD_FUNCTION: &str = "cajeta.cpu.simd";

/// A natural loop of the kernel's CFG.
pub(crate) struct Loop {
    pub(crate) header: usize,
    pub(crate) blocks: HashSet<usize>,
    pub(crate) parent: Option<usize>,
}

/// The kernel's blocks, edges and loops (reducible CFGs only).
pub(crate) struct Cfg {
    pub(crate) blocks: Vec<LLVMBasicBlockRef>,
    pub(crate) index: HashMap<LLVMBasicBlockRef, usize>,
    pub(crate) succs: Vec<Vec<usize>>,
    pub(crate) preds: Vec<Vec<usize>>,
    pub(crate) loops: Vec<Loop>,
    /// The innermost loop of each block.
    pub(crate) inner: Vec<Option<usize>>,
}

/// An item of a region's order: a block, or a whole inner loop.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Item {
    Block(usize),
    Loop(usize),
}

/// The successors of terminator `term`.
///
/// # Safety
/// `term` is a live terminator instruction.
unsafe fn successors(term: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    (0..LLVMGetNumSuccessors(term))
        .map(|i| LLVMGetSuccessor(term, i))
        .collect()
}

impl Cfg {
    /// The CFG of `function`, or why it is not one this pass handles.
    ///
    /// # Safety
    /// `function` is a live function definition.
    pub(crate) unsafe fn new(function: LLVMValueRef) -> Result<Cfg, String> {
        let mut blocks = Vec::new();
        let mut b = LLVMGetFirstBasicBlock(function);
        while !b.is_null() {
            blocks.push(b);
            b = LLVMGetNextBasicBlock(b);
        }
        let index: HashMap<_, _> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let n = blocks.len();
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        for (i, b) in blocks.iter().enumerate() {
            let term = LLVMGetBasicBlockTerminator(*b);
            if term.is_null() {
                return Err("a block without a terminator".into());
            }
            match LLVMGetInstructionOpcode(term) {
                LLVMOpcode::LLVMUncondBr
                | LLVMOpcode::LLVMCondBr
                | LLVMOpcode::LLVMRet
                | LLVMOpcode::LLVMUnreachable => {}
                other => return Err(format!("a `{other:?}` terminator")),
            }
            for s in successors(term) {
                let s = index[&s];
                if !succs[i].contains(&s) {
                    succs[i].push(s);
                    preds[s].push(i);
                }
            }
        }
        let mut cfg = Cfg {
            blocks,
            index,
            succs,
            preds,
            loops: Vec::new(),
            inner: vec![None; n],
        };
        cfg.find_loops()?;
        Ok(cfg)
    }

    /// Finds the natural loops (back edges of a depth-first walk), checks that every loop
    /// is entered through its header only and that loops nest, and sets `inner`.
    fn find_loops(&mut self) -> Result<(), String> {
        let n = self.blocks.len();
        // 0 unseen, 1 on the stack, 2 done.
        let mut state = vec![0u8; n];
        let mut back: Vec<(usize, usize)> = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        state[0] = 1;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succs[b].get(*next) {
                *next += 1;
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => back.push((b, s)),
                    _ => {}
                }
            } else {
                state[b] = 2;
                stack.pop();
            }
        }
        if state.iter().any(|s| *s != 2) {
            return Err("an unreachable block".into());
        }
        let mut by_header: HashMap<usize, HashSet<usize>> = HashMap::new();
        for (latch, header) in back {
            let body = by_header
                .entry(header)
                .or_insert_with(|| HashSet::from([header]));
            let mut work = vec![latch];
            while let Some(b) = work.pop() {
                if body.insert(b) {
                    work.extend(self.preds[b].iter().copied());
                }
            }
        }
        let mut loops: Vec<Loop> = by_header
            .into_iter()
            .map(|(header, blocks)| Loop {
                header,
                blocks,
                parent: None,
            })
            .collect();
        // Outermost first, so a loop's parent is the last larger loop containing it.
        loops.sort_by_key(|l| (std::cmp::Reverse(l.blocks.len()), l.header));
        for i in 0..loops.len() {
            for b in &loops[i].blocks {
                if *b != loops[i].header
                    && self.preds[*b].iter().any(|p| !loops[i].blocks.contains(p))
                {
                    return Err("a loop entered other than through its header".into());
                }
            }
            for j in 0..i {
                let (outer, inner) = (&loops[j].blocks, &loops[i].blocks);
                if inner.is_subset(outer) {
                    loops[i].parent = Some(j);
                } else if !inner.is_disjoint(outer) {
                    return Err("loops that overlap without nesting".into());
                }
            }
        }
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                // Later loops are smaller (inner) ones.
                self.inner[*b] = Some(i);
            }
        }
        self.loops = loops;
        Ok(())
    }

    /// The loops containing block `b`, innermost first.
    pub(crate) fn loops_of(&self, b: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut l = self.inner[b];
        while let Some(i) = l {
            chain.push(i);
            l = self.loops[i].parent;
        }
        chain
    }

    /// Whether every loop containing `def` also contains both `p` and `b` (a value defined
    /// in `def` is then read in the same iteration at an edge `p` → `b`; `p == b` for a use
    /// inside `b`).
    pub(crate) fn same_iteration(&self, def: usize, p: usize, b: usize) -> bool {
        self.loops_of(def)
            .iter()
            .all(|l| self.loops[*l].blocks.contains(&p) && self.loops[*l].blocks.contains(&b))
    }

    /// The outermost loop that edge `p` → `s` leaves, if it leaves one.
    pub(crate) fn left_loop(&self, p: usize, s: usize) -> Option<usize> {
        self.loops_of(p)
            .into_iter()
            .rev()
            .find(|l| !self.loops[*l].blocks.contains(&s))
    }

    /// The item block `b` is at the level of loop `level` (the top level for `None`), or
    /// `None` when `b` is outside it.
    fn item_at(&self, b: usize, level: Option<usize>) -> Option<Item> {
        if let Some(l) = level {
            if !self.loops[l].blocks.contains(&b) {
                return None;
            }
        }
        let mut item = Item::Block(b);
        let mut l = self.inner[b];
        while l != level {
            let i = l?;
            item = Item::Loop(i);
            l = self.loops[i].parent;
        }
        Some(item)
    }

    /// The items of a level (the function's top level, or one loop's body, header first) in
    /// an order where every edge but the loop's back edges goes forward.
    pub(crate) fn order(&self, level: Option<usize>) -> Result<Vec<Item>, String> {
        let mut items: Vec<Item> = Vec::new();
        for b in 0..self.blocks.len() {
            if let Some(it) = self.item_at(b, level) {
                if !items.contains(&it) {
                    items.push(it);
                }
            }
        }
        let pos: HashMap<Item, usize> = items.iter().enumerate().map(|(i, it)| (*it, i)).collect();
        let mut edges = vec![Vec::new(); items.len()];
        let mut indegree = vec![0usize; items.len()];
        let header = level.map(|l| self.loops[l].header);
        for b in 0..self.blocks.len() {
            let Some(from) = self.item_at(b, level) else {
                continue;
            };
            for &s in &self.succs[b] {
                if Some(s) == header {
                    continue;
                }
                let Some(to) = self.item_at(s, level) else {
                    continue;
                };
                if to != from && !edges[pos[&from]].contains(&pos[&to]) {
                    edges[pos[&from]].push(pos[&to]);
                    indegree[pos[&to]] += 1;
                }
            }
        }
        let mut ready: Vec<usize> = (0..items.len()).filter(|i| indegree[*i] == 0).collect();
        ready.reverse();
        let mut order = Vec::new();
        while let Some(i) = ready.pop() {
            order.push(items[i]);
            for &j in &edges[i] {
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    ready.push(j);
                }
            }
        }
        if order.len() != items.len() {
            return Err("a cycle that is not a natural loop".into());
        }
        if let Some(h) = header {
            if order.first() != Some(&Item::Block(h)) {
                return Err("a loop whose header is not its first block".into());
            }
        }
        Ok(order)
    }
}

/// The names of a vector form's two functions.
pub(crate) struct Names<'a> {
    /// The vector form of the one-invocation function ([`SIMD_FUNCTION`] for a kernel).
    pub(crate) function: &'a str,
    /// Its loop over the workgroup's tiles ([`SIMD_WORKGROUP`] for a kernel).
    pub(crate) workgroup: &'a str,
}

/// The names of a kernel's vector form.
pub(crate) const KERNEL_NAMES: Names<'static> = Names {
    function: SIMD_FUNCTION,
    workgroup: SIMD_WORKGROUP,
};

/// The vector form of the optimized one-invocation function `kernel` (`cajeta.cpu.kernel`,
/// or a region of a split kernel) in `module`: its `names` as LLVM IR text to append to
/// the module's (declarations first, one per line) and its lanes per vector (`lanes`, or
/// [`super::simd_choice`]'s wider width where that applies and `CAJETA_CPU_SIMD_WIDTH` is not set),
/// or why the function keeps the scalar loop. Renames the function's values (their names
/// are free) so that its instructions can be copied by name.
///
/// # Safety
/// `module` is a live module and `kernel` a function defined in it.
pub(crate) unsafe fn vectorize(
    module: LLVMModuleRef,
    kernel: LLVMValueRef,
    names: &Names,
    lanes: usize,
) -> Result<(String, usize), String> {
    let cfg = Cfg::new(kernel)?;
    let mut emit = Emit::new(module, kernel, &cfg, lanes)?;
    if chosen_lanes().is_none() && lanes == DEFAULT_LANES && emit.has_divergent_loop() {
        // The classification does not depend on the width.
        emit.lanes = DIVERGENT_LOOP_LANES;
    }
    let lanes = emit.lanes;
    let body = emit.function(names.function)?;
    let mut text = String::new();
    for d in &emit.decls {
        text.push_str(d);
        text.push('\n');
    }
    text.push_str(&body);
    text.push_str(&workgroup(names, lanes));
    Ok((text, lanes))
}

/// The byte offset of id array `field` (`hooks::GLOBAL_ID`…) lane `axis` in the context.
pub(crate) fn id_offset(field: u32, axis: u32) -> u32 {
    48 + (field - super::hooks::GLOBAL_ID) * 12 + axis * 4
}

/// `names.workgroup`: like the scalar workgroup loop (`hooks::workgroup_loop`), but each
/// call of the vector form runs a tile of `lanes` invocations: `lanes` consecutive x ids of
/// one row when the workgroup is at least that wide, else whole rows (`lanes / size.x` of
/// them), so an 8 × 8 workgroup is 8 calls of 8 lanes, or 4 of 16. It sets the tile's first
/// invocation's ids and passes the tile's row width, its columns and its rows.
fn workgroup(names: &Names, lanes: usize) -> String {
    let (function, name) = (names.function, names.workgroup);
    use super::hooks::{CONTEXT_BYTES, GLOBAL_ID, LOCAL_ID, WORKGROUP_ID, WORKGROUP_SIZE};
    let mut s = format!(
        "define void @\"{name}\"(ptr %ctx) {{\nentry:\n  %c = alloca [{CONTEXT_BYTES} x i8], align 16\n  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %ctx, i64 {CONTEXT_BYTES}, i1 false)\n"
    );
    for axis in 0..3 {
        let (sp, gp) = (
            id_offset(WORKGROUP_SIZE, axis),
            id_offset(WORKGROUP_ID, axis),
        );
        let (lp, ip) = (id_offset(LOCAL_ID, axis), id_offset(GLOBAL_ID, axis));
        s.push_str(&format!(
            "  %sp{axis} = getelementptr i8, ptr %ctx, i64 {sp}\n  %size{axis} = load i32, ptr %sp{axis}\n  %gp{axis} = getelementptr i8, ptr %ctx, i64 {gp}\n  %group{axis} = load i32, ptr %gp{axis}\n  %base{axis} = mul i32 %group{axis}, %size{axis}\n  %lp{axis} = getelementptr i8, ptr %c, i64 {lp}\n  %ip{axis} = getelementptr i8, ptr %c, i64 {ip}\n"
        ));
    }
    // The tile: `sx` columns (all of them in a narrow workgroup), `rows` rows.
    s.push_str(&format!(
        "  %empty = icmp eq i32 %size0, 0\n  br i1 %empty, label %done, label %tile\ntile:\n  %sx = call i32 @llvm.umin.i32(i32 %size0, i32 {lanes})\n  %rows = udiv i32 {lanes}, %sx\n  br label %z.head\n"
    ));
    let names = ["z", "y", "x"];
    let steps = ["1", "%rows", "%sx"];
    for (depth, axis) in [2u32, 1, 0].into_iter().enumerate() {
        let n = names[depth];
        let outer = if depth == 0 {
            "done".to_string()
        } else {
            format!("{}.latch", names[depth - 1])
        };
        let inner = if depth == 2 {
            "body".to_string()
        } else {
            format!("{}.head", names[depth + 1])
        };
        let from = if depth == 0 {
            "tile".to_string()
        } else {
            format!("{}.set", names[depth - 1])
        };
        s.push_str(&format!(
            "{n}.head:\n  %{n} = phi i32 [ 0, %{from} ], [ %{n}.next, %{n}.latch ]\n  %{n}.in = icmp ult i32 %{n}, %size{axis}\n  br i1 %{n}.in, label %{n}.set, label %{outer}\n\
             {n}.set:\n  store i32 %{n}, ptr %lp{axis}\n  %{n}.g = add i32 %base{axis}, %{n}\n  store i32 %{n}.g, ptr %ip{axis}\n  br label %{inner}\n"
        ));
        s.push_str(&format!(
            "{n}.latch:\n  %{n}.next = add i32 %{n}, {}\n  br label %{n}.head\n",
            steps[depth]
        ));
    }
    s.push_str(&format!(
        "body:\n  %xleft = sub i32 %size0, %x\n  %nx = call i32 @llvm.umin.i32(i32 %xleft, i32 %sx)\n  %yleft = sub i32 %size1, %y\n  %ny = call i32 @llvm.umin.i32(i32 %yleft, i32 %rows)\n  call void @\"{function}\"(ptr %c, i32 %sx, i32 %nx, i32 %ny)\n  br label %x.latch\n"
    ));
    s.push_str("done:\n  ret void\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::values::AsValueRef;

    /// A one-invocation kernel of mandelbrot's shape: a loop whose trip count depends on
    /// the lane's x id, then a store of the count at x.
    const ESCAPE: &str = r#"
define void @kernel(ptr %ctx) {
entry:
  %gp = getelementptr inbounds i8, ptr %ctx, i64 48
  %x = load i32, ptr %gp
  %pp = getelementptr inbounds i8, ptr %ctx, i64 8
  %out = load ptr, ptr %pp, !invariant.load !0
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %z = phi i32 [ %x, %entry ], [ %z1, %body ]
  %big = icmp ugt i32 %z, 100
  br i1 %big, label %done, label %body
body:
  %t = mul i32 %z, 3
  %z1 = add i32 %t, 1
  %i1 = add i32 %i, 1
  br label %head
done:
  %q = udiv i32 %i, %x
  %p = getelementptr i32, ptr %out, i32 %x
  store i32 %q, ptr %p
  ret void
}
define void @workgroup(ptr %ctx) {
  ret void
}
!0 = !{}
"#;

    /// The vector form of function `kernel` of `text`, checked by LLVM's verifier.
    fn vector_form(text: &str) -> Result<String, String> {
        let ctx = Context::create();
        let parse = |t: &str| crate::kernel::llvm::emit::parse_verified(&ctx, t);
        let module = parse(text)?;
        let f = module.get_function("kernel").ok_or("no kernel")?;
        // SAFETY: `module` is live and defines `f`.
        let (extra, _) =
            unsafe { vectorize(module.as_mut_ptr(), f.as_value_ref(), &KERNEL_NAMES, 8)? };
        let both = format!("{}{extra}", module.print_to_string().to_string());
        parse(&both).map_err(|e| format!("{e}\n{both}"))?;
        Ok(extra)
    }

    #[test]
    fn a_data_dependent_loop_runs_while_any_lane_is_in_it() {
        let v = vector_form(ESCAPE).expect("vectorized");
        // The loop repeats while any lane takes its back edge.
        assert!(v.contains("loop1.head:"), "{v}");
        assert!(v.contains("@llvm.vector.reduce.or.v8i1"), "{v}");
        // x is the first lane's id plus the lane's column in the tile.
        assert!(v.contains("%lx = urem <8 x i32>"), "{v}");
        assert!(v.contains(", %lx\n"), "{v}");
        // The count is read after the loop from each lane's last iteration.
        assert!(v.contains(".acc = alloca <8 x i32>"), "{v}");
        // Idle lanes divide by 1.
        assert!(v.contains("splat (i32 1)"), "{v}");
        assert!(v.contains("llvm.masked.store.v8i32.p0"), "{v}");
        assert!(v.contains("llvm.masked.scatter.v8i32.v8p0"), "{v}");
        assert!(v.contains(&format!("@\"{SIMD_WORKGROUP}\"")), "{v}");
    }

    /// A texel read of a blur's shape: a direct load inside the texture, a call of the
    /// module's lane-by-lane helper outside it.
    const FETCH: &str = r#"
define internal fastcc { float, float, float, float } @"cajeta.cpu.lanewise.fetch2d"(ptr %tex, i32 %x) noinline {
  %r = insertvalue { float, float, float, float } zeroinitializer, float 1.0, 3
  ret { float, float, float, float } %r
}
define void @kernel(ptr %ctx) {
entry:
  %gp = getelementptr inbounds i8, ptr %ctx, i64 48
  %x = load i32, ptr %gp
  %pp = getelementptr inbounds i8, ptr %ctx, i64 8
  %out = load ptr, ptr %pp, !invariant.load !0
  %in = icmp ult i32 %x, 100
  br i1 %in, label %direct, label %call
direct:
  %p = getelementptr float, ptr %out, i32 %x
  %d = load float, ptr %p
  br label %join
call:
  %t = call fastcc { float, float, float, float } @"cajeta.cpu.lanewise.fetch2d"(ptr %out, i32 %x)
  %c = extractvalue { float, float, float, float } %t, 3
  br label %join
join:
  %v = phi float [ %d, %direct ], [ %c, %call ]
  %q = getelementptr float, ptr %out, i32 %x
  store float %v, ptr %q
  ret void
}
define void @workgroup(ptr %ctx) {
  ret void
}
!0 = !{}
"#;

    #[test]
    fn a_lanewise_call_runs_once_per_active_lane() {
        let v = vector_form(FETCH).expect("vectorized");
        // A loop over the set bits of the call block's mask, lowest lane first.
        assert!(v.contains("to i8\n"), "{v}");
        assert!(v.contains("@llvm.cttz.i8("), "{v}");
        // Each lane's own x, and the helper's calling convention kept.
        assert!(v.contains("extractelement <8 x i32> %i1.v, i64"), "{v}");
        assert!(v.contains("= call cc 8 { float, float, float, float } @\"cajeta.cpu.lanewise.fetch2d\"(ptr %i3, i32 %s"), "{v}");
        // The extracted lane, from its slot of 8.
        assert!(v.contains(".lanes.3 = alloca [8 x float]"), "{v}");
        assert!(v.contains("= load <8 x float>, ptr %i7.lanes.3"), "{v}");
    }

    #[test]
    fn a_lanewise_result_used_whole_keeps_the_scalar_loop() {
        let text = FETCH.replace(
            "  %c = extractvalue { float, float, float, float } %t, 3\n",
            "  %s = insertvalue { float, float, float, float } %t, float 0.0, 0\n  %c = extractvalue { float, float, float, float } %s, 3\n",
        );
        let why = vector_form(&text).expect_err("refused");
        assert!(why.contains("field by field"), "{why}");
    }

    #[test]
    fn atomics_keep_the_scalar_loop() {
        let text = ESCAPE.replace(
            "  store i32 %q, ptr %p\n",
            "  %old = atomicrmw add ptr %p, i32 %q seq_cst\n",
        );
        let why = vector_form(&text).expect_err("refused");
        assert!(why.contains("AtomicRMW"), "{why}");
    }

    #[test]
    fn an_irreducible_cycle_keeps_the_scalar_loop() {
        let text = r#"
define void @kernel(ptr %ctx) {
entry:
  %gp = getelementptr inbounds i8, ptr %ctx, i64 48
  %x = load i32, ptr %gp
  %c = icmp ult i32 %x, 4
  br i1 %c, label %a, label %b
a:
  %d = icmp ult i32 %x, 2
  br i1 %d, label %b, label %out
b:
  br label %a
out:
  ret void
}
define void @workgroup(ptr %ctx) {
  ret void
}
"#;
        let why = vector_form(text).expect_err("refused");
        assert!(why.contains("loop") || why.contains("cycle"), "{why}");
    }
}
