//! Cajeta's wave shuffles and ballot in the spellings its kernels use (docs/language.md,
//! "Waves"), each one `Wave.shuffle` from a lane computed here:
//!
//! | Cajeta | here |
//! |---|---|
//! | `Wave.shuffleSync(v, lane)`, `shuffleSyncF32`, `shuffleSyncI32` | `Wave.shuffle(v, lane)` |
//! | `Wave.shuffleXorSync(v, mask)` | `Wave.shuffle(v, laneId ^ mask < width ? laneId ^ mask : laneId)` |
//! | `Wave.shuffleUpSync(v, d)` | `Wave.shuffle(v, laneId >= d ? laneId - d : laneId)` |
//! | `Wave.shuffleDownSync(v, d)` | `Wave.shuffle(v, laneId + d < width ? laneId + d : laneId)` |
//! | `Wave.ballotSync(p)` | `Wave.ballot(p)` (lanes 0..31, as `uint32`) |
//!
//! A lane past the wave keeps its own value, as CUDA's `__shfl_up_sync`/`__shfl_down_sync`
//! do (SPIR-V's `OpGroupNonUniformShuffleUp/Down` leave it undefined). The three-argument
//! `shuffleSync(mask, v, lane)` and `ballotSync(mask, p)` are stdlib intrinsics.

use super::body::{FnCtx, R};
use super::bytes16::sequence;
use super::range_loop::static_call;
use crate::diagnostics::Span;
use crate::ir::{self, BinaryOp, ExprKind, Intrinsic, ScalarType, Type, WaveOp};
use crate::syntax::ast;

impl FnCtx<'_, '_> {
    /// `Wave.<name>(args)` when it is one of the forms above; `None` otherwise.
    pub(super) fn wave_cajeta_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if !self.names_library_class(recv, "Wave") {
            return None;
        }
        let values: Vec<ast::Expr> = args.iter().map(|a| a.value.clone()).collect();
        let form = match (name.name.as_str(), values.len()) {
            ("shuffleSync" | "shuffleSyncF32" | "shuffleSyncI32" | "shuffleSyncU32", 2) => {
                return Some(self.expr(&static_call("Wave", "shuffle", values, span), None))
            }
            ("ballotSync", 1) => {
                return Some(self.expr(&static_call("Wave", "ballot", values, span), None))
            }
            ("shuffleXorSync", 2) => BinaryOp::BitXor,
            ("shuffleUpSync", 2) => BinaryOp::Sub,
            ("shuffleDownSync", 2) => BinaryOp::Add,
            _ => return None,
        };
        // Checked as `Wave.shuffle(v, d)` (the value's type, `d` converted to `uint32`),
        // then the lane is computed from `d`; `v` and `d` are evaluated once, in order.
        let call = match self.expr(&static_call("Wave", "shuffle", values, span), None) {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        let ir::Expr {
            kind:
                ExprKind::Intrinsic {
                    op: op @ Intrinsic::Wave(WaveOp::Shuffle),
                    args: mut operands,
                },
            ty,
            ..
        } = call
        else {
            return Some(Ok(call));
        };
        let mut stmts = Vec::new();
        let d = operands.pop().expect("a lane");
        let v = operands.pop().expect("a value");
        let v = self.bind_value(&mut stmts, v);
        let d = self.bind_value(&mut stmts, d);
        let u32t = Type::Scalar(ScalarType::U32);
        let wave = |w: WaveOp| ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Wave(w),
                args: Vec::new(),
            },
            ty: u32t.clone(),
            span,
        };
        let bin = |op: BinaryOp, a: ir::Expr, b: ir::Expr, ty: &Type| ir::Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty: ty.clone(),
            span,
        };
        let boolean = Type::Scalar(ScalarType::Bool);
        let lane_id = wave(WaveOp::LaneId);
        let lane = match form {
            BinaryOp::Sub => ir::Expr {
                kind: ExprKind::Select {
                    cond: Box::new(bin(BinaryOp::Ge, lane_id.clone(), d.clone(), &boolean)),
                    then: Box::new(bin(BinaryOp::Sub, lane_id.clone(), d, &u32t)),
                    otherwise: Box::new(lane_id),
                },
                ty: u32t.clone(),
                span,
            },
            _ => {
                let target = bin(form, lane_id.clone(), d, &u32t);
                let target = self.bind_value(&mut stmts, target);
                ir::Expr {
                    kind: ExprKind::Select {
                        cond: Box::new(bin(
                            BinaryOp::Lt,
                            target.clone(),
                            wave(WaveOp::Width),
                            &boolean,
                        )),
                        then: Box::new(target),
                        otherwise: Box::new(lane_id),
                    },
                    ty: u32t.clone(),
                    span,
                }
            }
        };
        let shuffle = ir::Expr {
            kind: ExprKind::Intrinsic {
                op,
                args: vec![v, lane],
            },
            ty,
            span,
        };
        Some(Ok(sequence(stmts, shuffle)))
    }
}
