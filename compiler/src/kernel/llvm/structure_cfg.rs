//! A SPIR-V function's control-flow graph for the structure check (`structure.rs`): its
//! blocks' successors, merge declarations and reachability, depth-first orders and back
//! edges, and dominance in the *structural* graph (the branches plus an edge from each
//! header to its merge block and continue target, as SPIR-V's rules define constructs).

use std::collections::HashMap;

use rspirv::dr::{Function, Operand};
use rspirv::spirv::Op;

/// Whether a header declares a selection or a loop.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum MergeKind {
    Selection,
    Loop,
}

/// A header's merge instruction, by block index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Merge {
    pub(crate) kind: MergeKind,
    pub(crate) merge: usize,
    /// A loop's continue target.
    pub(crate) continue_target: Option<usize>,
}

/// The blocks of one function, by their position in it.
pub(crate) struct Cfg {
    /// Each block's label id.
    pub(crate) ids: Vec<u32>,
    /// The branch targets, in the terminator's order (duplicates kept).
    pub(crate) succ: Vec<Vec<usize>>,
    pub(crate) pred: Vec<Vec<usize>>,
    pub(crate) merge: Vec<Option<Merge>>,
    /// Whether the block ends in an `OpSwitch`.
    pub(crate) switch: Vec<bool>,
    /// Whether the block ends in an `OpBranchConditional`.
    pub(crate) conditional: Vec<bool>,
    /// Reachable from the entry block through branches.
    pub(crate) reachable: Vec<bool>,
}

impl Cfg {
    pub(crate) fn new(f: &Function) -> Result<Cfg, String> {
        let ids: Vec<u32> = f
            .blocks
            .iter()
            .map(|b| b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0))
            .collect();
        let index: HashMap<u32, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let block = |op: Option<&Operand>| match op {
            Some(Operand::IdRef(id)) => index
                .get(id)
                .copied()
                .ok_or_else(|| format!("a branch to {id}, which is not a block of the function")),
            _ => Err("a branch without its target".to_string()),
        };
        let n = ids.len();
        let mut cfg = Cfg {
            ids: ids.clone(),
            succ: vec![Vec::new(); n],
            pred: vec![Vec::new(); n],
            merge: vec![None; n],
            switch: vec![false; n],
            conditional: vec![false; n],
            reachable: vec![false; n],
        };
        for (b, blk) in f.blocks.iter().enumerate() {
            let inst = &blk.instructions;
            let Some(term) = inst.last() else {
                return Err(format!("block {} has no terminator", ids[b]));
            };
            let ops = &term.operands;
            cfg.succ[b] = match term.class.opcode {
                Op::Branch => vec![block(ops.first())?],
                Op::BranchConditional => {
                    cfg.conditional[b] = true;
                    vec![block(ops.get(1))?, block(ops.get(2))?]
                }
                Op::Switch => {
                    cfg.switch[b] = true;
                    let mut targets = vec![block(ops.get(1))?];
                    for pair in ops.get(2..).unwrap_or_default().chunks(2) {
                        targets.push(block(pair.get(1))?);
                    }
                    targets
                }
                _ => Vec::new(),
            };
            let declared = inst.len().checked_sub(2).map(|at| &inst[at]);
            cfg.merge[b] = match declared.map(|i| (i.class.opcode, &i.operands)) {
                Some((Op::SelectionMerge, ops)) => Some(Merge {
                    kind: MergeKind::Selection,
                    merge: block(ops.first())?,
                    continue_target: None,
                }),
                Some((Op::LoopMerge, ops)) => Some(Merge {
                    kind: MergeKind::Loop,
                    merge: block(ops.first())?,
                    continue_target: Some(block(ops.get(1))?),
                }),
                _ => None,
            };
        }
        for b in 0..n {
            for s in cfg.succ[b].clone() {
                cfg.pred[s].push(b);
            }
        }
        for b in post_order(n, 0, |b| cfg.succ[b].clone()) {
            cfg.reachable[b] = true;
        }
        Ok(cfg)
    }

    /// Each header with its merge declaration, in block order.
    pub(crate) fn merges(&self) -> impl Iterator<Item = (usize, Merge)> + '_ {
        self.merge
            .iter()
            .enumerate()
            .filter_map(|(b, m)| m.map(|m| (b, m)))
    }

    /// The successors of `b` in the structural graph: its merge block and continue target
    /// if it is a header, then its branch targets.
    pub(crate) fn structural_successors(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(m) = self.merge[b] {
            out.push(m.merge);
            out.extend(m.continue_target);
        }
        out.extend(self.succ[b].iter().copied());
        out
    }

    /// The blocks reachable through branches, in reverse post-order.
    pub(crate) fn reverse_post_order(&self) -> Vec<usize> {
        let mut order = post_order(self.ids.len(), 0, |b| self.succ[b].clone());
        order.reverse();
        order
    }

    /// The back edges of a depth-first walk from the entry through branches, with each
    /// loop header's continue target taken as one more successor (as spirv-val walks).
    pub(crate) fn back_edges(&self) -> Vec<(usize, usize)> {
        let succ = |b: usize| {
            let mut s = self.succ[b].clone();
            if let Some(ct) = self.merge[b].and_then(|m| m.continue_target) {
                if ct != b {
                    s.push(ct);
                }
            }
            s
        };
        let n = self.ids.len();
        // 0: not visited, 1: on the walk's stack, 2: finished.
        let mut state = vec![0u8; n];
        let mut edges = Vec::new();
        if n == 0 {
            return edges;
        }
        let mut stack = vec![(0usize, succ(0), 0usize)];
        state[0] = 1;
        while let Some((b, next, i)) = stack.last_mut() {
            if let Some(&s) = next.get(*i) {
                *i += 1;
                let from = *b;
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, succ(s), 0));
                    }
                    1 => edges.push((from, s)),
                    _ => {}
                }
            } else {
                state[*b] = 2;
                stack.pop();
            }
        }
        edges
    }
}

/// The nodes reachable from `entry` through `succ`, in post-order.
fn post_order(n: usize, entry: usize, succ: impl Fn(usize) -> Vec<usize>) -> Vec<usize> {
    let mut out = Vec::new();
    if entry >= n {
        return out;
    }
    let mut seen = vec![false; n];
    seen[entry] = true;
    let mut stack = vec![(entry, succ(entry), 0usize)];
    while let Some((b, next, i)) = stack.last_mut() {
        if let Some(&s) = next.get(*i) {
            *i += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, succ(s), 0));
            }
        } else {
            out.push(*b);
            stack.pop();
        }
    }
    out
}

/// The immediate dominators of the nodes reachable from `entry` (the entry's is itself;
/// `None`: not reachable), by Cooper, Harvey and Kennedy's iteration.
fn dominators(n: usize, entry: usize, succ: impl Fn(usize) -> Vec<usize>) -> Vec<Option<usize>> {
    let order = post_order(n, entry, &succ);
    let mut number = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        number[b] = i;
    }
    let mut preds = vec![Vec::new(); n];
    for &b in &order {
        for s in succ(b) {
            preds[s].push(b);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if entry < n {
        idom[entry] = Some(entry);
    }
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while number[a] < number[b] {
                a = idom[a].unwrap_or(entry);
            }
            while number[b] < number[a] {
                b = idom[b].unwrap_or(entry);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().rev() {
            if b == entry {
                continue;
            }
            let mut new = None;
            for &p in &preds[b] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, x, p),
                    });
                }
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Dominance of one function: through branches, and structural (see the module comment),
/// forwards and backwards.
pub(crate) struct Dominance {
    /// Immediate dominators through branches.
    pub(crate) idom: Vec<Option<usize>>,
    /// Immediate structural dominators.
    pub(crate) sidom: Vec<Option<usize>>,
    /// Immediate structural post-dominators; index `n` is a virtual exit that every block
    /// without a structural successor leads to.
    spidom: Vec<Option<usize>>,
}

impl Dominance {
    pub(crate) fn new(cfg: &Cfg) -> Dominance {
        let n = cfg.ids.len();
        let idom = dominators(n, 0, |b| cfg.succ[b].clone());
        let sidom = dominators(n, 0, |b| cfg.structural_successors(b));
        let mut spred = vec![Vec::new(); n];
        let mut sinks = Vec::new();
        for b in 0..n {
            let s = cfg.structural_successors(b);
            if s.is_empty() {
                sinks.push(b);
            }
            for t in s {
                spred[t].push(b);
            }
        }
        let exit = n;
        let spidom = dominators(n + 1, exit, |b| match b == exit {
            true => sinks.clone(),
            false => spred[b].clone(),
        });
        Dominance {
            idom,
            sidom,
            spidom,
        }
    }

    /// Whether `b` is reachable in the structural graph.
    pub(crate) fn sreachable(&self, b: usize) -> bool {
        self.sidom[b].is_some()
    }

    /// Whether `a` structurally dominates `b` (every block dominates itself).
    pub(crate) fn sdom(&self, a: usize, b: usize) -> bool {
        chain_holds(&self.sidom, a, b)
    }

    /// Whether `a` structurally post-dominates `b`.
    pub(crate) fn spdom(&self, a: usize, b: usize) -> bool {
        chain_holds(&self.spidom, a, b)
    }
}

/// Whether `a` is on `b`'s chain of immediate dominators in `tree` (`b` included).
fn chain_holds(tree: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match tree.get(b).copied().flatten() {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}
