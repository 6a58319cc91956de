//! Loops and the jumps out of them: a loop's header, `OpLoopMerge`, continue target and
//! back edge, and `break`/`continue` to an enclosing loop. Structured SPIR-V cannot branch
//! from an inner loop straight to an outer loop's merge or continue target, so a labeled
//! jump stores a code in the function's flag variable, breaks the inner loop, and each loop
//! it crosses dispatches on the flag after its merge (`dispatch_escapes`).

use rspirv::spirv::{Op, Word};

use super::function::{FnCx, Jump};
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Block, Expr, LoopId, ScalarType, Type};

/// A loop being lowered.
pub(super) struct LoopCx {
    id: LoopId,
    merge: Word,
    cont: Word,
    merge_used: bool,
    cont_used: bool,
    /// Jumps to outer loops (stack index, kind) that leave through this loop's merge.
    escapes: Vec<(usize, Jump)>,
}

impl FnCx<'_, '_> {
    /// Lowers a loop as it is (`lower_loop_checked` may lower it twice).
    pub(crate) fn lower_loop(
        &mut self,
        id: LoopId,
        pre_cond: Option<&Expr>,
        body: &Block,
        continuing: &Block,
        post_cond: Option<&Expr>,
    ) -> Res<()> {
        let span = self.func.span;
        let [header, top, cont, merge] = [(); 4].map(|_| self.cx.b.id());
        self.branch(header)?;
        self.begin(header)?;
        let control = super::unroll::loop_control(pre_cond, continuing);
        self.cx.b.loop_merge(merge, cont, control, []).ice(span)?;
        self.branch(top)?;
        // The condition may itself contain control flow (`&&`), so it cannot live in the
        // header block, which must end right after OpLoopMerge.
        self.begin(top)?;
        self.loops.push(LoopCx {
            id,
            merge,
            cont,
            merge_used: false,
            cont_used: false,
            escapes: Vec::new(),
        });
        let this = self.loops.len() - 1;
        if let Some(c) = pre_cond {
            let cv = self.expr(c)?;
            let body_label = self.cx.b.id();
            // A conditional break needs no selection merge.
            self.cx
                .b
                .branch_conditional(cv, body_label, merge, [])
                .ice(span)?;
            self.loops[this].merge_used = true;
            self.begin(body_label)?;
        }
        self.block(body)?;
        if !self.terminated() {
            self.branch_to(this, Jump::Continue)?;
        }
        self.begin(cont)?;
        if self.loops[this].cont_used {
            self.block(continuing)?;
            if self.terminated() {
                return Err(unsupported(span, "a loop's update cannot leave the loop"));
            }
            match post_cond {
                Some(c) => {
                    let cv = self.expr(c)?;
                    self.cx
                        .b
                        .branch_conditional(cv, header, merge, [])
                        .ice(span)?;
                    self.loops[this].merge_used = true;
                }
                None => self.branch(header)?,
            }
        } else {
            // Nothing continues: the continue target is unreachable; keep it minimal.
            self.branch(header)?;
        }
        let lp = self
            .loops
            .pop()
            .ok_or_else(|| unsupported(span, "internal error: loop stack"))?;
        self.begin(merge)?;
        if !lp.merge_used {
            return self.cx.b.unreachable().ice(span);
        }
        self.dispatch_escapes(&lp.escapes)
    }

    /// `break`/`continue` of loop `target`.
    pub(super) fn jump(&mut self, target: LoopId, kind: Jump) -> Res<()> {
        let span = self.func.span;
        let pos = self
            .loops
            .iter()
            .rposition(|l| l.id == target)
            .ok_or_else(|| {
                Diagnostic::error(
                    Code::BreakOutsideLoop,
                    span,
                    "`break`/`continue` outside its loop",
                )
            })?;
        let inner = self.loops.len() - 1;
        if pos == inner {
            return self.branch_to(inner, kind);
        }
        // Labeled jump to an outer loop: record it in the flag and leave the inner loop.
        let flag = self.exit_flag()?;
        let code = self.cx.const_u32(exit_code(pos, kind));
        self.cx.b.store(flag, code, None, []).ice(span)?;
        if !self.loops[inner].escapes.contains(&(pos, kind)) {
            self.loops[inner].escapes.push((pos, kind));
        }
        self.branch_to(inner, Jump::Break)
    }

    fn branch_to(&mut self, index: usize, kind: Jump) -> Res<()> {
        let l = &mut self.loops[index];
        let target = match kind {
            Jump::Break => {
                l.merge_used = true;
                l.merge
            }
            Jump::Continue => {
                l.cont_used = true;
                l.cont
            }
        };
        self.branch(target)
    }

    /// After a loop that labeled jumps left: finish the jumps aimed at the now innermost
    /// loop and pass the others on by breaking it too.
    fn dispatch_escapes(&mut self, escapes: &[(usize, Jump)]) -> Res<()> {
        if escapes.is_empty() {
            return Ok(());
        }
        let span = self.func.span;
        let outer = self
            .loops
            .len()
            .checked_sub(1)
            .ok_or_else(|| unsupported(span, "internal error: jump to no loop"))?;
        let flag = self.exit_flag()?;
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let zero = self.cx.const_u32(0);
        for kind in [Jump::Break, Jump::Continue] {
            if escapes.contains(&(outer, kind)) {
                let v = self.cx.b.load(uint, None, flag, None, []).ice(span)?;
                let code = self.cx.const_u32(exit_code(outer, kind));
                let hit = self.op(Op::IEqual, bool_ty, &[v, code])?;
                self.if_then(hit, |f| {
                    f.cx.b.store(flag, zero, None, []).ice(span)?;
                    f.branch_to(outer, kind)
                })?;
            }
        }
        let further: Vec<(usize, Jump)> = escapes
            .iter()
            .copied()
            .filter(|(p, _)| *p < outer)
            .collect();
        if !further.is_empty() {
            for e in further {
                if !self.loops[outer].escapes.contains(&e) {
                    self.loops[outer].escapes.push(e);
                }
            }
            let v = self.cx.b.load(uint, None, flag, None, []).ice(span)?;
            let pending = self.op(Op::INotEqual, bool_ty, &[v, zero])?;
            self.if_then(pending, |f| f.branch_to(outer, Jump::Break))?;
        }
        Ok(())
    }

    /// `if (cond) { then }` with no else, where `then` may end in a jump.
    fn if_then(&mut self, cond: Word, then: impl FnOnce(&mut Self) -> Res<()>) -> Res<()> {
        let then_label = self.cx.b.id();
        let merge = self.cx.b.id();
        self.selection(cond, then_label, merge, merge)?;
        self.begin(then_label)?;
        then(self)?;
        if !self.terminated() {
            self.branch(merge)?;
        }
        self.begin(merge)
    }

    /// The function's labeled-jump flag (`uint`, 0 = no jump pending).
    fn exit_flag(&mut self) -> Res<Word> {
        if let Some(v) = self.exit_flag {
            return Ok(v);
        }
        let zero = self.cx.const_u32(0);
        let v = self.new_var(&Type::Scalar(ScalarType::U32), "$exit", Some(zero))?;
        self.exit_flag = Some(v);
        Ok(v)
    }
}

/// The flag value of a jump to the loop at stack index `pos` (never 0).
fn exit_code(pos: usize, kind: Jump) -> u32 {
    (pos as u32) * 2 + if kind == Jump::Break { 1 } else { 2 }
}
