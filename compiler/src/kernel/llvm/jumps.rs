//! `break` and `continue`, including those of an outer loop from inside nested ones.
//!
//! LLVM 23.1's SPIR-V target cannot structure an edge that leaves two loops at once (it
//! emitted an `OpSwitch` without a merge for a labeled `break`/`continue` of an outer
//! loop). Such a jump therefore leaves one loop at a time, as structured code does: it
//! records where it goes in a local (`%jump`: 0 for none, else 2 × (loop depth + 1) + 1
//! for a `continue`, + 0 for a `break`) and breaks out of its innermost loop; at the exit
//! of each loop it left, a `break` of the enclosing loop or a jump further out breaks out
//! of the enclosing loop too, and a `continue` of it skips the rest of its body (see
//! [`FnLower::dispatch_escapes`]).

use super::lower::FnLower;
use super::refuse;
use crate::diagnostics::Diagnostic;
use crate::ir::LoopId;

type Res<T> = Result<T, Diagnostic>;

/// The declaration of the jump local, present in a kernel's text exactly when it has a
/// jump out of nested loops (`compile` then adds the region structurizer).
pub(crate) const JUMP_LOCAL: &str = "%jump = alloca i32";

impl FnLower<'_> {
    /// `break`/`continue` of loop `id`.
    pub(super) fn jump(&mut self, id: LoopId, is_continue: bool) -> Res<()> {
        let Some(t) = self.loops.iter().rposition(|(l, _, _)| *l == id) else {
            return Err(refuse(self.kernel.span, "a `break` outside its loop"));
        };
        let innermost = self.loops.len() - 1;
        if t == innermost {
            let (_, cont, exit) = &self.loops[t];
            let line = format!("br label %{}", if is_continue { cont } else { exit });
            self.terminate(line);
            return Ok(());
        }
        self.declare_jump_local();
        let code = jump_code(t, is_continue);
        self.emit(format!("store i32 {code}, ptr %jump"));
        for e in &mut self.escapes[t + 1..] {
            *e = true;
        }
        let exit = self.loops[innermost].2.clone();
        self.terminate(format!("br label %{exit}"));
        Ok(())
    }

    /// At the exit of a loop a jump of an outer loop left: a `break` of the enclosing loop
    /// (the innermost of `loops` now; the local is cleared) or a jump of a loop further out
    /// leaves the enclosing loop too; a `continue` of it skips the rest of its body (the
    /// statements after this point are guarded by `%jump == 0`, and its continue block
    /// clears the local). Exits and continues stay single-level edges LLVM's target can
    /// structure.
    pub(super) fn dispatch_escapes(&mut self) {
        let Some(k) = self.loops.len().checked_sub(1) else {
            return;
        };
        let exit = self.loops[k].2.clone();
        let [f, is_break, set, further, leave, kept] = self.tmps();
        let (leaving, after) = (self.label("jump_leave"), self.label("jump_stay"));
        let brk = jump_code(k, false);
        self.emit(format!("{f} = load i32, ptr %jump"));
        self.emit(format!("{is_break} = icmp eq i32 {f}, {brk}"));
        self.emit(format!("{set} = icmp ne i32 {f}, 0"));
        // Jumps of loops further out have smaller codes.
        self.emit(format!("{further} = icmp ult i32 {f}, {brk}"));
        self.emit(format!("{leave} = select i1 {set}, i1 {further}, i1 false"));
        let either = self.tmp();
        self.emit(format!("{either} = or i1 {leave}, {is_break}"));
        self.emit(format!("br i1 {either}, label %{leaving}, label %{after}"));
        self.start_block(&leaving);
        self.emit(format!("{kept} = select i1 {is_break}, i32 0, i32 {f}"));
        self.emit(format!("store i32 {kept}, ptr %jump"));
        self.emit(format!("br label %{exit}"));
        self.start_block(&after);
        self.continue_pending = true;
    }

    /// Lowers `rest` (the statements after one that may leave a `continue` of the enclosing
    /// loop pending) only while no jump is pending.
    pub(super) fn guarded_rest(&mut self, rest: &[crate::ir::Stmt]) -> Res<()> {
        let (f, none) = (self.tmp(), self.tmp());
        let (run, skip) = (self.label("unjumped"), self.label("jumped"));
        self.emit(format!("{f} = load i32, ptr %jump"));
        self.emit(format!("{none} = icmp eq i32 {f}, 0"));
        self.emit(format!("br i1 {none}, label %{run}, label %{skip}"));
        self.start_block(&run);
        self.continue_pending = false;
        let r = self.block(rest);
        self.continue_pending = true;
        r?;
        self.emit(format!("br label %{skip}"));
        self.start_block(&skip);
        Ok(())
    }

    /// At a loop's continue block: no jump is pending any more (one of an outer loop never
    /// gets here; a `continue` of this loop has arrived).
    pub(super) fn clear_jump(&mut self) {
        if self.allocas.contains(JUMP_LOCAL) {
            self.emit("store i32 0, ptr %jump");
        }
    }

    /// `%jump`, zero at entry.
    fn declare_jump_local(&mut self) {
        if !self.allocas.contains(JUMP_LOCAL) {
            self.allocas
                .push_str(&format!("  {JUMP_LOCAL}\n  store i32 0, ptr %jump\n"));
        }
    }
}

/// The recorded value of a `break` (or `continue`) of the loop at depth `depth`.
fn jump_code(depth: usize, is_continue: bool) -> i64 {
    2 * (depth as i64 + 1) + i64::from(is_continue)
}
