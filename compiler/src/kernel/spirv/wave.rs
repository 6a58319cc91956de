//! `Wave.*` (subgroup) and `Quad.*` operations: `OpGroupNonUniform*` with `Subgroup` scope,
//! recording exactly the `GroupNonUniform*` capabilities used (core in SPIR-V 1.3; the
//! runtime checks them against the device's `subgroupSupportedOperations`).

use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, Decoration, GroupOperation, Op, StorageClass, Word};

use super::expr::scalar_of;
use super::function::FnCx;
use super::{unsupported, BuildExt, Res};
use crate::ir::{Constant, Expr, ExprKind, Type, WaveOp};

/// SPIR-V `Subgroup` scope.
/// `Subgroup` scope.
pub(crate) const SCOPE_SUBGROUP: u32 = 3;

impl FnCx<'_, '_> {
    /// A scalar `uint` built-in input (`SubgroupSize`, `SubgroupLocalInvocationId`).
    pub(crate) fn scalar_builtin(&mut self, builtin: BuiltIn) -> Res<Word> {
        let var = match self
            .cx
            .mem
            .scalar_builtins
            .iter()
            .find(|(b, _)| *b == builtin)
        {
            Some(&(_, v)) => v,
            None => {
                let uint = self.cx.u32_type();
                let v = self
                    .cx
                    .global_variable(uint, StorageClass::Input, &format!("{builtin:?}"));
                self.cx
                    .b
                    .decorate(v, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
                self.cx.mem.scalar_builtins.push((builtin, v));
                v
            }
        };
        let uint = self.cx.u32_type();
        self.op(Op::Load, uint, &[var])
    }

    /// Lowers a `Wave.*` / `Quad.*` call.
    pub(crate) fn wave(&mut self, op: WaveOp, args: &[Expr], e: &Expr) -> Res<Word> {
        self.cx.features.require(Capability::GroupNonUniform);
        let scope = self.cx.const_u32(SCOPE_SUBGROUP);
        let id = Operand::IdRef;
        match op {
            WaveOp::Width => return self.scalar_builtin(BuiltIn::SubgroupSize),
            WaveOp::LaneId => return self.scalar_builtin(BuiltIn::SubgroupLocalInvocationId),
            WaveOp::Id => return self.scalar_builtin(BuiltIn::SubgroupId),
            WaveOp::Count => return self.scalar_builtin(BuiltIn::NumSubgroups),
            WaveOp::IsFirstLane => {
                let b = self.cx.bool_type();
                return self.emit(Op::GroupNonUniformElect, Some(b), vec![id(scope)]);
            }
            WaveOp::Ballot => {
                self.cx.features.require(Capability::GroupNonUniformBallot);
                let p = self.arg(args, 0)?;
                let uint = self.cx.u32_type();
                let v4 = self.cx.vector_type(uint, 4);
                let mask =
                    self.emit(Op::GroupNonUniformBallot, Some(v4), vec![id(scope), id(p)])?;
                return self
                    .cx
                    .b
                    .composite_extract(uint, None, mask, [0])
                    .ice(e.span);
            }
            WaveOp::Any | WaveOp::All => {
                self.cx.features.require(Capability::GroupNonUniformVote);
                let p = self.arg(args, 0)?;
                let b = self.cx.bool_type();
                let opcode = if op == WaveOp::Any {
                    Op::GroupNonUniformAny
                } else {
                    Op::GroupNonUniformAll
                };
                return self.emit(opcode, Some(b), vec![id(scope), id(p)]);
            }
            WaveOp::QuadAny | WaveOp::QuadAll => {
                let p = self.arg(args, 0)?;
                return self.quad_vote(op == WaveOp::QuadAll, p);
            }
            WaveOp::ReduceSegmented => return self.reduce_segmented(args, e),
            _ => {}
        }
        // A vector operates lane by lane: the same instruction on the vector type.
        let s = match e.ty {
            Type::Vector(s, _) => s,
            _ => scalar_of(e)?,
        };
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        if s.bits() != 32 {
            // Subgroup operations on 8/16/64-bit types (SPIR-V 1.3 allows them; Vulkan needs
            // the feature).
            self.cx
                .features
                .vulkan_feature("shaderSubgroupExtendedTypes");
        }
        let v = self.arg(args, 0)?;
        let (float, signed) = (s.is_float(), s.is_signed_integer());
        let group = |f: &mut Self, opcode: Op, operation: GroupOperation| {
            f.cx.features.require(Capability::GroupNonUniformArithmetic);
            f.emit(
                opcode,
                Some(ty),
                vec![id(scope), Operand::GroupOperation(operation), id(v)],
            )
        };
        let reduce = GroupOperation::Reduce;
        match op {
            WaveOp::Shuffle => {
                self.cx.features.require(Capability::GroupNonUniformShuffle);
                let lane = self.arg(args, 1)?;
                self.emit(
                    Op::GroupNonUniformShuffle,
                    Some(ty),
                    vec![id(scope), id(v), id(lane)],
                )
            }
            WaveOp::BroadcastFirst => {
                self.cx.features.require(Capability::GroupNonUniformBallot);
                self.emit(
                    Op::GroupNonUniformBroadcastFirst,
                    Some(ty),
                    vec![id(scope), id(v)],
                )
            }
            WaveOp::ReduceSum if float => group(self, Op::GroupNonUniformFAdd, reduce),
            WaveOp::ReduceSum => group(self, Op::GroupNonUniformIAdd, reduce),
            WaveOp::PrefixSum if float => {
                group(self, Op::GroupNonUniformFAdd, GroupOperation::ExclusiveScan)
            }
            WaveOp::PrefixSum => {
                group(self, Op::GroupNonUniformIAdd, GroupOperation::ExclusiveScan)
            }
            WaveOp::InclusivePrefixSum if float => {
                group(self, Op::GroupNonUniformFAdd, GroupOperation::InclusiveScan)
            }
            WaveOp::InclusivePrefixSum => {
                group(self, Op::GroupNonUniformIAdd, GroupOperation::InclusiveScan)
            }
            WaveOp::ReduceMin if float => group(self, Op::GroupNonUniformFMin, reduce),
            WaveOp::ReduceMin if signed => group(self, Op::GroupNonUniformSMin, reduce),
            WaveOp::ReduceMin => group(self, Op::GroupNonUniformUMin, reduce),
            WaveOp::ReduceMax if float => group(self, Op::GroupNonUniformFMax, reduce),
            WaveOp::ReduceMax if signed => group(self, Op::GroupNonUniformSMax, reduce),
            WaveOp::ReduceMax => group(self, Op::GroupNonUniformUMax, reduce),
            WaveOp::ReduceAnd => group(self, Op::GroupNonUniformBitwiseAnd, reduce),
            WaveOp::ReduceOr => group(self, Op::GroupNonUniformBitwiseOr, reduce),
            WaveOp::ReduceXor => group(self, Op::GroupNonUniformBitwiseXor, reduce),
            WaveOp::QuadBroadcast => {
                // Before SPIR-V 1.5 the index must be a constant: a variable lane is a
                // shuffle within the quad instead.
                let lane = match args.get(1).map(|a| &a.kind) {
                    Some(ExprKind::Const(Constant::Int(l))) => self.cx.const_u32(*l as u32),
                    _ => return self.quad_shuffle(v, ty, args),
                };
                self.cx.features.require(Capability::GroupNonUniformQuad);
                self.emit(
                    Op::GroupNonUniformQuadBroadcast,
                    Some(ty),
                    vec![id(scope), id(v), id(lane)],
                )
            }
            WaveOp::QuadSwapHorizontal | WaveOp::QuadSwapVertical | WaveOp::QuadSwapDiagonal => {
                self.cx.features.require(Capability::GroupNonUniformQuad);
                let direction = match op {
                    WaveOp::QuadSwapHorizontal => 0,
                    WaveOp::QuadSwapVertical => 1,
                    _ => 2,
                };
                let d = self.cx.const_u32(direction);
                self.emit(
                    Op::GroupNonUniformQuadSwap,
                    Some(ty),
                    vec![id(scope), id(v), id(d)],
                )
            }
            WaveOp::PrefixProduct if float => {
                group(self, Op::GroupNonUniformFMul, GroupOperation::ExclusiveScan)
            }
            WaveOp::PrefixProduct => {
                group(self, Op::GroupNonUniformIMul, GroupOperation::ExclusiveScan)
            }
            WaveOp::Rotate => self.wave_rotate(v, ty, args),
            WaveOp::Width
            | WaveOp::LaneId
            | WaveOp::Id
            | WaveOp::Count
            | WaveOp::IsFirstLane
            | WaveOp::Ballot
            | WaveOp::Any
            | WaveOp::All
            | WaveOp::QuadAny
            | WaveOp::QuadAll
            | WaveOp::ReduceSegmented => Err(unsupported(e.span, "internal error: wave dispatch")),
        }
    }

    /// Lowers argument `i`.
    fn arg(&mut self, args: &[Expr], i: usize) -> Res<Word> {
        let a = args
            .get(i)
            .ok_or_else(|| unsupported(self.func.span, "internal error: missing argument"))?;
        self.expr(a)
    }
}
