//! Subgroup operations SPIR-V 1.3 has no single instruction for, built from the ones it has:
//! `Quad.any/all` (quad swaps), `Quad.broadcast` with a variable lane and `Wave.rotate`
//! (both `OpGroupNonUniformShuffle` to a computed lane).

use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, Op, Word};

use super::function::FnCx;
use super::wave::SCOPE_SUBGROUP;
use super::{unsupported, Res};
use crate::ir::Expr;

impl FnCx<'_, '_> {
    /// `OpGroupNonUniformShuffle` of `v` (type `ty`) from lane `lane`.
    fn shuffle_from(&mut self, v: Word, ty: Word, lane: Word) -> Res<Word> {
        self.cx.features.require(Capability::GroupNonUniformShuffle);
        let scope = self.cx.const_u32(SCOPE_SUBGROUP);
        self.emit(
            Op::GroupNonUniformShuffle,
            Some(ty),
            vec![
                Operand::IdRef(scope),
                Operand::IdRef(v),
                Operand::IdRef(lane),
            ],
        )
    }

    /// The uint32 operand `i` of a call.
    fn lane_arg(&mut self, args: &[Expr], i: usize) -> Res<Word> {
        let a = args
            .get(i)
            .ok_or_else(|| unsupported(self.func.span, "internal error: missing argument"))?;
        self.expr(a)
    }

    /// `Quad.broadcast(v, lane)` with a variable lane: `OpGroupNonUniformQuadBroadcast` needs
    /// a constant index before SPIR-V 1.5, so shuffle from `(laneId & ~3) | (lane & 3)`.
    pub(crate) fn quad_shuffle(&mut self, v: Word, ty: Word, args: &[Expr]) -> Res<Word> {
        let lane = self.lane_arg(args, 1)?;
        let uint = self.cx.u32_type();
        let id = self.scalar_builtin(BuiltIn::SubgroupLocalInvocationId)?;
        let (three, not_three) = (self.cx.const_u32(3), self.cx.const_u32(!3));
        let base = self.op(Op::BitwiseAnd, uint, &[id, not_three])?;
        let within = self.op(Op::BitwiseAnd, uint, &[lane, three])?;
        let from = self.op(Op::BitwiseOr, uint, &[base, within])?;
        self.shuffle_from(v, ty, from)
    }

    /// `Wave.rotate(v, delta)`: a shuffle from `(laneId + delta) % width`. (SPIR-V's
    /// `OpGroupNonUniformRotateKHR` needs `SPV_KHR_subgroup_rotate`, which not every Vulkan
    /// device has; the shuffle gives the same values everywhere.)
    pub(crate) fn wave_rotate(&mut self, v: Word, ty: Word, args: &[Expr]) -> Res<Word> {
        let delta = self.lane_arg(args, 1)?;
        let uint = self.cx.u32_type();
        let id = self.scalar_builtin(BuiltIn::SubgroupLocalInvocationId)?;
        let width = self.scalar_builtin(BuiltIn::SubgroupSize)?;
        let sum = self.op(Op::IAdd, uint, &[id, delta])?;
        let from = self.op(Op::UMod, uint, &[sum, width])?;
        self.shuffle_from(v, ty, from)
    }

    /// `Quad.any(p)` / `Quad.all(p)`: `p` as 0/1, combined with the horizontal and then the
    /// vertical neighbour's (`OpGroupNonUniformQuadSwap`), so every lane sees all four.
    pub(crate) fn quad_vote(&mut self, all: bool, p: Word) -> Res<Word> {
        self.cx.features.require(Capability::GroupNonUniformQuad);
        let uint = self.cx.u32_type();
        let (zero, one) = (self.cx.const_u32(0), self.cx.const_u32(1));
        let scope = self.cx.const_u32(SCOPE_SUBGROUP);
        let combine = if all { Op::BitwiseAnd } else { Op::BitwiseOr };
        let mut x = self.op(Op::Select, uint, &[p, one, zero])?;
        for direction in [0, 1] {
            let d = self.cx.const_u32(direction);
            let other = self.emit(
                Op::GroupNonUniformQuadSwap,
                Some(uint),
                vec![Operand::IdRef(scope), Operand::IdRef(x), Operand::IdRef(d)],
            )?;
            x = self.op(combine, uint, &[x, other])?;
        }
        let b = self.cx.bool_type();
        self.op(Op::INotEqual, b, &[x, zero])
    }
}
