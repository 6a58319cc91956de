//! `OpSwitch` for the `if`-chains sema makes of a `switch` whose arms do not fall through
//! (docs/architecture.md, "Switch lowering"): `if ($t == 1 | $t == 2) {…} else if ($t == 3)
//! {…} else {default}` on one of sema's temporaries becomes one `OpSelectionMerge` +
//! `OpSwitch`, as a GLSL compiler would emit it. Other chains stay `if`s.

use rspirv::dr::Operand;
use rspirv::spirv::{SelectionControl, Word};

use super::function::FnCx;
use super::{BuildExt, Res};
use crate::ir::{self, BinaryOp, Block, Constant, Expr, ExprKind, LocalId, Place, Stmt, Type};

/// A recognized chain.
pub(crate) struct SwitchChain<'m> {
    /// The read of the selector temporary.
    selector: &'m Expr,
    /// Each arm's label values (bit patterns) and statements, in order.
    arms: Vec<(Vec<u64>, &'m Block)>,
    /// What runs when no label matches (may be empty).
    default: &'m Block,
}

/// The chain `if (cond) then else otherwise` starts, if it is one of at least two arms on a
/// 32- or 64-bit integer temporary (narrower selectors keep the `if`s: their `OpSwitch`
/// literals would need sign-extension rules of their own).
pub(crate) fn chain<'m>(
    func: &ir::Function,
    cond: &'m Expr,
    then: &'m Block,
    otherwise: &'m Block,
) -> Option<SwitchChain<'m>> {
    let mut sel: Option<(LocalId, &'m Expr)> = None;
    let mut arms = Vec::new();
    let (mut cond, mut then, mut otherwise) = (cond, then, otherwise);
    loop {
        let mut labels = Vec::new();
        if !labels_of(cond, &mut sel, &mut labels) {
            return None;
        }
        arms.push((labels, then));
        match otherwise.as_slice() {
            [Stmt::If {
                cond: c,
                then: t,
                otherwise: o,
            }] if labels_of(c, &mut sel.clone(), &mut Vec::new()) => {
                cond = c;
                then = t;
                otherwise = o;
            }
            _ => break,
        }
    }
    let (id, selector) = sel?;
    let temp = func
        .locals
        .get(id.0)
        .is_some_and(|l| l.name.starts_with('$'));
    let wide =
        matches!(selector.ty, Type::Scalar(s) if s.is_integer() && matches!(s.bits(), 32 | 64));
    (temp && wide && arms.len() >= 2).then_some(SwitchChain {
        selector,
        arms,
        default: otherwise,
    })
}

/// Collects the labels of `t == a | t == b | …`, all on one local (`sel`, set by the first).
fn labels_of<'m>(e: &'m Expr, sel: &mut Option<(LocalId, &'m Expr)>, out: &mut Vec<u64>) -> bool {
    match &e.kind {
        ExprKind::Binary(BinaryOp::BitOr, a, b) => labels_of(a, sel, out) && labels_of(b, sel, out),
        ExprKind::Binary(BinaryOp::Eq, l, c) => {
            let (ExprKind::Load(Place::Local(id)), ExprKind::Const(Constant::Int(v))) =
                (&l.kind, &c.kind)
            else {
                return false;
            };
            match sel {
                Some((s, _)) if s != id => return false,
                Some(_) => {}
                None => *sel = Some((*id, l)),
            }
            out.push(*v);
            true
        }
        _ => false,
    }
}

impl FnCx<'_, '_> {
    /// `OpSelectionMerge` + `OpSwitch`, then each arm, the default, and the merge.
    pub(crate) fn lower_switch(&mut self, ch: SwitchChain) -> Res<()> {
        let span = self.func.span;
        let sel = self.expr(ch.selector)?;
        let wide = matches!(ch.selector.ty, Type::Scalar(s) if s.bits() == 64);
        let merge = self.cx.b.id();
        let default = if ch.default.is_empty() {
            merge
        } else {
            self.cx.b.id()
        };
        let labels: Vec<Word> = ch.arms.iter().map(|_| self.cx.b.id()).collect();
        let mut targets = Vec::new();
        for ((values, _), label) in ch.arms.iter().zip(&labels) {
            for v in values {
                let lit = if wide {
                    Operand::LiteralBit64(*v)
                } else {
                    Operand::LiteralBit32(*v as u32)
                };
                targets.push((lit, *label));
            }
        }
        self.cx
            .b
            .selection_merge(merge, SelectionControl::NONE)
            .ice(span)?;
        self.cx.b.switch(sel, default, targets).ice(span)?;
        let mut merge_reached = ch.default.is_empty();
        let arms = ch.arms.iter().map(|(_, b)| *b);
        let bodies = arms
            .zip(labels)
            .chain((!ch.default.is_empty()).then_some((ch.default, default)));
        for (block, label) in bodies {
            self.begin(label)?;
            self.block(block)?;
            if !self.terminated() {
                self.branch(merge)?;
                merge_reached = true;
            }
        }
        self.begin(merge)?;
        if !merge_reached {
            // Every arm left (return/break/continue): what follows is dead.
            self.cx.b.unreachable().ice(span)?;
        }
        Ok(())
    }
}
