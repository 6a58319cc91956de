//! `Group.reduceSegmented(segment, op, v)`: a reduction within each aligned span of
//! `segment` lanes of a subgroup, as a butterfly of `OpGroupNonUniformShuffleXor`s.
//!
//! Step `k` (1, 2, 4, …) combines each lane's partial result with that of lane `laneId ^ k`,
//! so after the steps below `segment` every lane holds its span's result, and both lanes
//! of a pair combine the same two values (the operations are commutative), so the lanes of
//! a span agree bit for bit. A step is kept only where `k < SubgroupSize` (a span wider than
//! the subgroup is the whole subgroup: groups never mix), and for a segment that is not a
//! constant, where `k < segment`; the unused steps' shuffles read a lane outside the
//! subgroup, whose undefined value the `OpSelect` discards. `OpGroupNonUniform*` with a
//! `ClusteredReduce` would need the clustered capability (and a constant cluster size no
//! larger than the subgroup); the shuffles need only `GroupNonUniformShuffle`.

use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, Op, Word};

use super::function::FnCx;
use super::wave::SCOPE_SUBGROUP;
use super::{unsupported, Res};
use crate::ir::{Constant, Expr, ExprKind, GroupOp};

/// Vulkan's largest subgroup (`maxSubgroupSize` is at most 128): a variable segment takes
/// the steps 1 .. 64.
const MAX_STEP: u64 = 64;

impl FnCx<'_, '_> {
    /// Lowers `Group.reduceSegmented(segment, op, v)`; args `[segment, op, v]` (sema checked
    /// the operation, the constant segment and the scalar type).
    pub(crate) fn reduce_segmented(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [segment, op_arg, value] = args else {
            return Err(unsupported(e.span, "internal error: reduceSegmented arity"));
        };
        let op = GroupOp::of_operand(op_arg)?;
        let s =
            e.ty.as_scalar()
                .ok_or_else(|| unsupported(e.span, "internal error: reduceSegmented type"))?;
        let ty = self.cx.value_type(s, e.span)?;
        self.cx.features.require(Capability::GroupNonUniformShuffle);
        let constant = match &segment.kind {
            ExprKind::Const(Constant::Int(k)) => Some(*k),
            _ => None,
        };
        let seg = self.expr(segment)?;
        let mut v = self.expr(value)?;
        let width = self.scalar_builtin(BuiltIn::SubgroupSize)?;
        let boolean = self.cx.bool_type();
        let scope = self.cx.const_u32(SCOPE_SUBGROUP);
        let last = constant.map_or(MAX_STEP, |k| k / 2);
        let mut step = 1u64;
        while step <= last {
            let k = self.cx.const_u32(step as u32);
            let partner = self.emit(
                Op::GroupNonUniformShuffleXor,
                Some(ty),
                vec![Operand::IdRef(scope), Operand::IdRef(v), Operand::IdRef(k)],
            )?;
            let combined = self.combine(op, s, ty, v, partner)?;
            let mut keep = self.op(Op::ULessThan, boolean, &[k, width])?;
            if constant.is_none() {
                let in_span = self.op(Op::ULessThan, boolean, &[k, seg])?;
                keep = self.op(Op::LogicalAnd, boolean, &[keep, in_span])?;
            }
            v = self.op(Op::Select, ty, &[keep, combined, v])?;
            step *= 2;
        }
        Ok(v)
    }
}
