//! The structured-control-flow rules of SPIR-V (spec §2.11, as spirv-val checks them),
//! checked on the finished module of LLVM's SPIR-V target. LLVM 23.1's target leaves
//! selections that branch into a construct past its header, exit one other than through
//! its merge, or have no merge at all, for some kernels with `break`/`continue` in nested
//! loops (the `llvm-unstructured-selection` class of docs/fuzzing.md). Such a module must
//! not reach a driver or a user: the caller re-emits the kernel with its next pipeline and
//! refuses it (E0045) when none gives a structured module.
//!
//! The rules follow SPIRV-Tools' `validate_cfg.cpp` (constructs from structural dominance,
//! structured exits, entries only through headers, back edges only to loop headers, merge
//! blocks inside their enclosing construct, case constructs, and "Selection must be
//! structured"), so that what passes here passes spirv-val. The CFG computations are in
//! `structure_cfg.rs`.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Module;

use super::structure_cfg::{Cfg, Dominance, MergeKind};

/// What a construct is (spec §2.11).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Selection,
    Loop,
    Continue,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Selection => "selection",
            Kind::Loop => "loop",
            Kind::Continue => "continue",
        }
    }
}

/// A construct: its entry block, its exit block (the merge block; for a continue
/// construct the back-edge block), and the loop header it belongs to.
struct Construct {
    kind: Kind,
    entry: usize,
    exit: usize,
    header: usize,
}

/// Whether the SPIR-V module `words` has structured control flow as SPIR-V's rules define
/// it (the check every module of this backend passes before it is returned; `Err` says
/// what is wrong). Public for the tests, which hold it to spirv-val on other modules.
pub fn check_structured_control_flow(words: &[u32]) -> Result<(), String> {
    let m = rspirv::dr::load_words(words).map_err(|e| format!("{e:?}"))?;
    check(&m)
}

/// `Ok` when every function of `m` has structured control flow; else what is wrong,
/// naming blocks by their ids.
pub(crate) fn check(m: &Module) -> Result<(), String> {
    for f in &m.functions {
        if f.blocks.is_empty() {
            continue;
        }
        let cfg = Cfg::new(f)?;
        Checker::new(&cfg).run()?;
    }
    Ok(())
}

struct Checker<'a> {
    cfg: &'a Cfg,
    dom: Dominance,
    /// The back edges (depth-first, with each loop header's continue target counted as
    /// its successor), as (from, to).
    back_edges: HashSet<(usize, usize)>,
}

impl<'a> Checker<'a> {
    fn new(cfg: &'a Cfg) -> Self {
        Checker {
            cfg,
            dom: Dominance::new(cfg),
            back_edges: cfg.back_edges().into_iter().collect(),
        }
    }

    fn id(&self, b: usize) -> u32 {
        self.cfg.ids[b]
    }

    fn run(&self) -> Result<(), String> {
        let cfg = self.cfg;
        let latches = self.back_edges()?;
        let mut merge_of = HashMap::new();
        for (h, m) in cfg.merges() {
            if let Some(other) = merge_of.insert(m.merge, h) {
                return Err(format!(
                    "block {} is the merge block of both {} and {}",
                    self.id(m.merge),
                    self.id(other),
                    self.id(h)
                ));
            }
            if m.merge == h || m.kind == MergeKind::Loop && m.continue_target == Some(m.merge) {
                return Err(format!(
                    "header {} declares a merge block that is itself or its continue target",
                    self.id(h)
                ));
            }
        }
        self.block_order()?;
        for c in self.constructs(&latches) {
            self.check_construct(&c)?;
        }
        self.selections_structured()
    }

    /// The back edges (depth-first, a loop header's continue target counted as its
    /// successor): each must go to a loop header, and each reachable loop header must have
    /// exactly one back-edge block. Returns that block per loop header.
    fn back_edges(&self) -> Result<HashMap<usize, usize>, String> {
        let cfg = self.cfg;
        let mut latches: HashMap<usize, HashSet<usize>> = HashMap::new();
        let mut edges: Vec<_> = self.back_edges.iter().copied().collect();
        edges.sort_unstable();
        for (from, to) in edges {
            if cfg.merge[to].is_none_or(|m| m.kind != MergeKind::Loop) {
                return Err(format!(
                    "back edge from {} to {}, which is not a loop header",
                    self.id(from),
                    self.id(to)
                ));
            }
            latches.entry(to).or_default().insert(from);
        }
        let mut single = HashMap::new();
        for (h, m) in cfg.merges() {
            if m.kind != MergeKind::Loop || !cfg.reachable[h] {
                continue;
            }
            let set = latches.remove(&h).unwrap_or_default();
            if set.len() != 1 {
                return Err(format!(
                    "loop header {} has {} back-edge blocks, not one",
                    self.id(h),
                    set.len()
                ));
            }
            single.insert(h, set.into_iter().next().unwrap_or(h));
        }
        Ok(single)
    }

    /// Every reachable block comes after its dominator in the function.
    fn block_order(&self) -> Result<(), String> {
        for b in 0..self.cfg.ids.len() {
            if let Some(d) = self.dom.idom[b].filter(|&d| d != b) {
                if d > b {
                    return Err(format!(
                        "block {} comes before its dominator {}",
                        self.id(b),
                        self.id(d)
                    ));
                }
            }
        }
        Ok(())
    }

    fn constructs(&self, latches: &HashMap<usize, usize>) -> Vec<Construct> {
        let mut out = Vec::new();
        for (h, m) in self.cfg.merges() {
            if !self.cfg.reachable[h] {
                continue;
            }
            match m.kind {
                MergeKind::Selection => out.push(Construct {
                    kind: Kind::Selection,
                    entry: h,
                    exit: m.merge,
                    header: h,
                }),
                MergeKind::Loop => {
                    out.push(Construct {
                        kind: Kind::Loop,
                        entry: h,
                        exit: m.merge,
                        header: h,
                    });
                    if let (Some(c), Some(&latch)) = (m.continue_target, latches.get(&h)) {
                        out.push(Construct {
                            kind: Kind::Continue,
                            entry: c,
                            exit: latch,
                            header: h,
                        });
                    }
                }
            }
        }
        out
    }

    /// The blocks of construct `c` (SPIRV-Tools' `Construct::blocks`): those reached from
    /// its entry through structural successors that its entry structurally dominates and
    /// its exit does not (a continue construct: or that its back-edge block
    /// post-dominates), a loop construct without its continue construct.
    fn blocks(&self, c: &Construct) -> HashSet<usize> {
        let d = &self.dom;
        let cont = self.cfg.merge[c.header].and_then(|m| m.continue_target);
        let mut set = HashSet::new();
        let mut stack = vec![c.entry];
        while let Some(b) = stack.pop() {
            if !d.sdom(c.entry, b) {
                continue;
            }
            let include = if c.kind == Kind::Continue && d.spdom(c.exit, b) {
                true
            } else if !d.sdom(c.exit, b) {
                !(c.kind == Kind::Loop && cont.is_some_and(|ct| d.sdom(ct, b)))
            } else {
                false
            };
            if include && set.insert(b) {
                stack.extend(self.cfg.structural_successors(b));
            }
        }
        set
    }

    fn check_construct(&self, c: &Construct) -> Result<(), String> {
        let (cfg, d) = (self.cfg, &self.dom);
        let what = c.kind.name();
        let (entry, exit) = (self.id(c.entry), self.id(c.exit));
        if cfg.reachable[c.exit] {
            if !d.sdom(c.entry, c.exit) {
                return Err(format!(
                    "the {what} construct's entry {entry} does not structurally dominate its exit {exit}"
                ));
            }
            if c.kind != Kind::Continue && c.entry == c.exit {
                return Err(format!("the {what} header {entry} is its own merge block"));
            }
        }
        if c.kind == Kind::Continue && !d.spdom(c.exit, c.entry) {
            return Err(format!(
                "the continue construct of {entry} is not structurally post-dominated by its back-edge block {exit}"
            ));
        }
        let blocks = self.blocks(c);
        for &b in &blocks {
            for &s in &cfg.succ[b] {
                if !blocks.contains(&s) && !self.is_structured_exit(c, s) {
                    return Err(format!(
                        "block {} exits the {what} construct headed by {entry}, but not via a structured exit (to {})",
                        self.id(b),
                        self.id(s)
                    ));
                }
            }
            if b == c.entry {
                continue;
            }
            for &p in &cfg.pred[b] {
                if cfg.reachable[p] && !blocks.contains(&p) {
                    return Err(format!(
                        "block {} branches to the {what} construct headed by {entry}, but not to its header (to {})",
                        self.id(p),
                        self.id(b)
                    ));
                }
            }
            if let Some(m) = cfg.merge[b] {
                if cfg.reachable[m.merge] && !blocks.contains(&m.merge) {
                    return Err(format!(
                        "header {} is in the {what} construct headed by {entry}, but its merge block {} is not",
                        self.id(b),
                        self.id(m.merge)
                    ));
                }
            }
        }
        if c.kind == Kind::Loop {
            let cont = cfg.merge[c.entry].and_then(|m| m.continue_target);
            if let Some(ct) = cont.filter(|&ct| ct != c.entry) {
                for &p in &cfg.pred[ct] {
                    let back_edge = self.back_edges.contains(&(p, ct));
                    if cfg.reachable[p] && !back_edge && !blocks.contains(&p) {
                        return Err(format!(
                            "block {} branches to the continue target {} from outside the loop construct headed by {entry}",
                            self.id(p),
                            self.id(ct)
                        ));
                    }
                }
            }
        }
        if c.kind == Kind::Selection && cfg.switch[c.entry] {
            self.check_switch(c)?;
        }
        Ok(())
    }

    /// Whether a branch from inside construct `c` to `dest` leaves it in a structured way
    /// (SPIRV-Tools' `Construct::IsStructuredExit`): a loop to its merge or continue
    /// target, a continue construct to its loop's header or merge, a selection to its merge
    /// or to the merge or continue target of the innermost enclosing loop (or the merge of
    /// an enclosing switch).
    fn is_structured_exit(&self, c: &Construct, dest: usize) -> bool {
        let (cfg, d) = (self.cfg, &self.dom);
        match c.kind {
            Kind::Loop => {
                let m = cfg.merge[c.entry];
                m.is_some_and(|m| dest == m.merge || m.continue_target == Some(dest))
            }
            Kind::Continue => {
                dest == c.header || cfg.merge[c.header].is_some_and(|m| m.merge == dest)
            }
            Kind::Selection => {
                if dest == c.exit {
                    return true;
                }
                let header_is_switch = cfg.switch[c.entry];
                let mut seen_switch = false;
                let mut block = self.next_enclosing(c.entry);
                while let Some(b) = block {
                    if let Some(m) = cfg.merge[b] {
                        let counts = m.kind == MergeKind::Loop
                            || (!header_is_switch
                                && m.kind == MergeKind::Selection
                                && cfg.switch[b]);
                        if counts {
                            if d.sdom(m.merge, c.entry) {
                                block = self.next_enclosing(b);
                                continue;
                            }
                            if (!seen_switch || m.kind == MergeKind::Loop) && dest == m.merge {
                                return true;
                            }
                            if m.kind == MergeKind::Loop && m.continue_target == Some(dest) {
                                return true;
                            }
                            if cfg.switch[b] {
                                seen_switch = true;
                            }
                            if m.kind == MergeKind::Loop {
                                return false;
                            }
                        }
                    }
                    block = self.next_enclosing(b);
                }
                false
            }
        }
    }

    /// The next block outward from `b`: the header that declares `b` its merge block and
    /// structurally dominates it, else `b`'s immediate structural dominator.
    fn next_enclosing(&self, b: usize) -> Option<usize> {
        let header = self
            .cfg
            .merges()
            .find(|&(h, m)| m.merge == b && h != b && self.dom.sdom(h, b));
        match header {
            Some((h, _)) => Some(h),
            None => self.dom.sidom[b].filter(|&p| p != b),
        }
    }

    /// The rules of the case constructs of the switch heading `c` (SPIRV-Tools'
    /// `StructuredSwitchChecks`): the header dominates each case, a case leaves only to
    /// the merge, another case or a structured exit of the switch, falls through to at
    /// most one case, that case follows it in the target list, and no case is fallen into
    /// from two.
    fn check_switch(&self, c: &Construct) -> Result<(), String> {
        let (cfg, d) = (self.cfg, &self.dom);
        let targets = &cfg.succ[c.entry];
        let cases: HashSet<usize> = targets.iter().copied().filter(|&t| t != c.exit).collect();
        let default = targets[0];
        let default_repeats = targets[1..].contains(&default);
        let mut fallen_into: HashMap<usize, u32> = HashMap::new();
        let mut fall_of: HashMap<usize, Option<usize>> = HashMap::new();
        let mut default_fall = None;
        for (i, &t) in targets.iter().enumerate() {
            if t == c.exit {
                continue;
            }
            let mut fall = match fall_of.get(&t) {
                Some(&f) => f,
                None => {
                    if d.sreachable(c.entry) && d.sreachable(t) && !d.sdom(c.entry, t) {
                        return Err(format!(
                            "switch {} does not structurally dominate its case {}",
                            self.id(c.entry),
                            self.id(t)
                        ));
                    }
                    let f = self.case_fall_through(c, t, &cases)?;
                    if let Some(f) = f {
                        *fallen_into.entry(f).or_default() += 1;
                    }
                    fall_of.insert(t, f);
                    f
                }
            };
            if fall == Some(default) && !default_repeats {
                fall = default_fall;
            }
            let Some(f) = fall else {
                continue;
            };
            if i == 0 {
                default_fall = Some(f);
                continue;
            }
            let mut j = i;
            while j + 1 < targets.len() && targets[j + 1] == t {
                j += 1;
            }
            if targets.get(j + 1) != Some(&f) {
                return Err(format!(
                    "case {} falls through to case {}, which does not follow it in the switch's targets",
                    self.id(t),
                    self.id(f)
                ));
            }
        }
        if let Some((&f, _)) = fallen_into.iter().find(|(_, &n)| n > 1) {
            return Err(format!(
                "several cases of switch {} fall through to case {}",
                self.id(c.entry),
                self.id(f)
            ));
        }
        Ok(())
    }

    /// The case that the case construct entered at `t` falls through to, if any.
    fn case_fall_through(
        &self,
        c: &Construct,
        t: usize,
        cases: &HashSet<usize>,
    ) -> Result<Option<usize>, String> {
        let (cfg, d) = (self.cfg, &self.dom);
        let mut fall = None;
        let mut seen = HashSet::new();
        let mut stack = vec![t];
        while let Some(b) = stack.pop() {
            if b == c.exit || !seen.insert(b) {
                continue;
            }
            if d.sreachable(t) && d.sreachable(b) && d.sdom(t, b) {
                stack.extend(cfg.succ[b].iter().copied());
                continue;
            }
            if !cases.contains(&b) {
                if self.is_structured_exit(c, b) {
                    continue;
                }
                return Err(format!(
                    "case construct {} has an invalid branch to block {}",
                    self.id(t),
                    self.id(b)
                ));
            }
            match fall {
                None if b != t => fall = Some(b),
                Some(f) if f != b => {
                    return Err(format!(
                        "case construct {} falls through to two cases",
                        self.id(t)
                    ))
                }
                _ => {}
            }
        }
        Ok(fall)
    }

    /// "Selection must be structured" (SPIRV-Tools' `ValidateStructuredSelections`): in
    /// reverse post-order, a conditional branch without a selection merge needs a target
    /// already known (a merge or continue target declared earlier, or a target of an
    /// earlier branch), and an `OpSwitch` needs its merge.
    fn selections_structured(&self) -> Result<(), String> {
        let cfg = self.cfg;
        let mut seen = HashSet::new();
        for &b in cfg.reverse_post_order().iter() {
            let merge = cfg.merge[b];
            if let Some(m) = merge {
                seen.insert(m.merge);
                seen.extend(m.continue_target);
            }
            if cfg.switch[b] {
                if merge.is_none_or(|m| m.kind != MergeKind::Selection) {
                    return Err(format!("switch {} has no selection merge", self.id(b)));
                }
                seen.extend(cfg.succ[b].iter().copied());
            } else if cfg.conditional[b] {
                let (t, f) = (cfg.succ[b][0], cfg.succ[b][1]);
                let new_t = seen.insert(t);
                let new_f = seen.insert(f);
                let selection = merge.is_some_and(|m| m.kind == MergeKind::Selection);
                if !selection && new_t && new_f {
                    return Err(format!(
                        "the conditional branch of block {} is not a structured selection",
                        self.id(b)
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use rspirv::dr::{Builder, Module};
    use rspirv::spirv::{FunctionControl, SelectionControl, Word};

    /// A function whose entry block branches on a constant to `entry_to` (a selection with
    /// merge `m` when `merged`), with a nested selection `s` → `a` → `m2` → `m`.
    fn nested(entry_to: fn([Word; 4]) -> (Word, Word), merged: bool) -> Module {
        let mut b = Builder::new();
        b.set_version(1, 6);
        let void = b.type_void();
        let fn_ty = b.type_function(void, []);
        let boolean = b.type_bool();
        let c = b.constant_true(boolean);
        let [s, a, m2, m] = [b.id(), b.id(), b.id(), b.id()];
        b.begin_function(void, None, FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        if merged {
            b.selection_merge(m, SelectionControl::NONE).unwrap();
        }
        let (t, f) = entry_to([s, a, m2, m]);
        b.branch_conditional(c, t, f, []).unwrap();
        b.begin_block(Some(s)).unwrap();
        b.selection_merge(m2, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, a, m2, []).unwrap();
        b.begin_block(Some(a)).unwrap();
        b.branch(m2).unwrap();
        b.begin_block(Some(m2)).unwrap();
        b.branch(m).unwrap();
        b.begin_block(Some(m)).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.module()
    }

    #[test]
    fn nested_selections_are_structured() {
        assert_eq!(check(&nested(|[s, _, _, m]| (s, m), true)), Ok(()));
    }

    #[test]
    fn a_branch_into_a_selection_past_its_header_is_refused() {
        // The entry branches to `a`, inside the selection headed by `s`.
        let e = check(&nested(|[s, a, _, _]| (s, a), true)).unwrap_err();
        assert!(
            e.contains("structurally dominate") || e.contains("branches to"),
            "{e}"
        );
    }

    #[test]
    fn a_conditional_branch_without_a_merge_to_two_new_blocks_is_refused() {
        let e = check(&nested(|[s, _, _, m]| (s, m), false)).unwrap_err();
        assert!(e.contains("not a structured selection"), "{e}");
    }

    #[test]
    fn llvm_s_o2_module_of_an_early_return_out_of_a_loop_with_barriers_is_refused() {
        // LLVM 23.1's SPIR-V target's module for `early` of tests/device/barrier_shapes.cajeta
        // (shared memory: the pipeline `function(sroa,early-cse)`), fixed up, as the backend
        // returned it before this check; spirv-val refuses it: "block 12 branches to the
        // selection construct, but not to the selection header 9".
        let bytes = include_bytes!("testdata/barrier_shapes_early_o2.spv");
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let m = rspirv::dr::load_words(words).unwrap();
        let e = check(&m).unwrap_err();
        assert!(e.contains("but not to its header"), "{e}");
    }
}
