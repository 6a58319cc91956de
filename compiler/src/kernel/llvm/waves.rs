//! `Wave.*` (subgroup) and `Quad.*` operations: the same `OpGroupNonUniform*` instruction
//! as the rspirv backend, at `Subgroup` scope, each through a [`super::spirv_ops`]
//! placeholder declared `convergent` (LLVM keeps it at its place in the control flow and
//! moves no memory access across it); the post-pass adds the capabilities the instructions
//! need. `Wave.width()` and `Wave.laneId()` are the `SubgroupSize` and
//! `SubgroupLocalInvocationId` built-ins through the target's `__spirv_BuiltIn<Name>`
//! convention.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{GroupOperation, Op};

use super::lower::{FnLower, Val};
use super::refuse;
use super::spirv_ops;
use super::types::{scalar, scalar_of};
use crate::diagnostics::Diagnostic;
use crate::ir::{Constant, Expr, ExprKind, ScalarType, WaveOp};

type Res<T> = Result<T, Diagnostic>;

/// `Subgroup` scope.
const SCOPE_SUBGROUP: u32 = 3;

impl FnLower<'_> {
    /// Lowers a `Wave.*` / `Quad.*` call.
    pub(super) fn wave(&mut self, op: WaveOp, args: &[Expr], e: &Expr) -> Res<Val> {
        match op {
            WaveOp::Width => return self.scalar_builtin("SubgroupSize"),
            WaveOp::LaneId => return self.scalar_builtin("SubgroupLocalInvocationId"),
            WaveOp::Id => return self.scalar_builtin("SubgroupId"),
            WaveOp::Count => return self.scalar_builtin("NumSubgroups"),
            WaveOp::IsFirstLane => return self.group_op(Op::GroupNonUniformElect, None, "i1", &[]),
            WaveOp::Ballot => {
                let p = self.wave_arg(args, 0, e)?;
                let mask = self.group_op(Op::GroupNonUniformBallot, None, "<4 x i32>", &[p])?;
                let t = self.tmp();
                self.emit(format!(
                    "{t} = extractelement <4 x i32> {}, i32 0",
                    mask.text
                ));
                return Ok(Val::new(t, "i32"));
            }
            WaveOp::Any | WaveOp::All => {
                let p = self.wave_arg(args, 0, e)?;
                let opcode = if op == WaveOp::Any {
                    Op::GroupNonUniformAny
                } else {
                    Op::GroupNonUniformAll
                };
                return self.group_op(opcode, None, "i1", &[p]);
            }
            WaveOp::QuadAny | WaveOp::QuadAll => {
                let p = self.wave_arg(args, 0, e)?;
                return self.quad_vote(op == WaveOp::QuadAll, &p);
            }
            WaveOp::ReduceSegmented => return Err(refuse(
                e.span,
                "`Group.reduceSegmented` (the rspirv backend lowers it to a butterfly of shuffles)",
            )),
            _ => {}
        }
        if let crate::ir::Type::Vector(..) = e.ty {
            return Err(refuse(e.span, "subgroup operations on vectors"));
        }
        let s = scalar_of(&e.ty, e.span)?;
        let ty = scalar(s, e.span)?;
        // `bfloat16` computes in float32 registers: a subgroup sum there would not round
        // as the rspirv backend's bfloat16 one. Other widths are the instruction on the
        // type itself; the post-pass asks for `shaderSubgroupExtendedTypes`
        // ([`subgroup_extended_types`]).
        if matches!(s, ScalarType::BF16 | ScalarType::BF16Native) {
            return Err(refuse(
                e.span,
                format!("subgroup operations on `{}`", s.name()),
            ));
        }
        let (float, signed) = (s.is_float(), s.is_signed_integer());
        let v = self.wave_arg(args, 0, e)?;
        let reduce = Some(GroupOperation::Reduce);
        let scan = Some(GroupOperation::ExclusiveScan);
        let inclusive = Some(GroupOperation::InclusiveScan);
        let (opcode, operation) = match op {
            WaveOp::Shuffle => {
                let lane = self.wave_arg(args, 1, e)?;
                return self.group_op(Op::GroupNonUniformShuffle, None, ty, &[v, lane]);
            }
            WaveOp::BroadcastFirst => (Op::GroupNonUniformBroadcastFirst, None),
            WaveOp::ReduceSum if float => (Op::GroupNonUniformFAdd, reduce),
            WaveOp::ReduceSum => (Op::GroupNonUniformIAdd, reduce),
            WaveOp::PrefixSum if float => (Op::GroupNonUniformFAdd, scan),
            WaveOp::PrefixSum => (Op::GroupNonUniformIAdd, scan),
            WaveOp::InclusivePrefixSum if float => (Op::GroupNonUniformFAdd, inclusive),
            WaveOp::InclusivePrefixSum => (Op::GroupNonUniformIAdd, inclusive),
            WaveOp::ReduceMin if float => (Op::GroupNonUniformFMin, reduce),
            WaveOp::ReduceMin if signed => (Op::GroupNonUniformSMin, reduce),
            WaveOp::ReduceMin => (Op::GroupNonUniformUMin, reduce),
            WaveOp::ReduceMax if float => (Op::GroupNonUniformFMax, reduce),
            WaveOp::ReduceMax if signed => (Op::GroupNonUniformSMax, reduce),
            WaveOp::ReduceMax => (Op::GroupNonUniformUMax, reduce),
            WaveOp::ReduceAnd => (Op::GroupNonUniformBitwiseAnd, reduce),
            WaveOp::ReduceOr => (Op::GroupNonUniformBitwiseOr, reduce),
            WaveOp::ReduceXor => (Op::GroupNonUniformBitwiseXor, reduce),
            WaveOp::QuadBroadcast => {
                // Before SPIR-V 1.5 the index must be a constant: a variable lane is a
                // shuffle from `(laneId & ~3) | (lane & 3)`, as in the rspirv backend.
                let Some(ExprKind::Const(Constant::Int(l))) = args.get(1).map(|a| &a.kind) else {
                    let lane = self.wave_arg(args, 1, e)?;
                    let id = self.scalar_builtin("SubgroupLocalInvocationId")?;
                    let base = self.int_op("and", &id.text, "-4");
                    let within = self.int_op("and", &lane.text, "3");
                    let from = self.int_op("or", &base.text, &within.text);
                    return self.group_op(Op::GroupNonUniformShuffle, None, ty, &[v, from]);
                };
                let lane = Val::new((*l as u32).to_string(), "i32");
                return self.group_op(Op::GroupNonUniformQuadBroadcast, None, ty, &[v, lane]);
            }
            WaveOp::QuadSwapHorizontal | WaveOp::QuadSwapVertical | WaveOp::QuadSwapDiagonal => {
                let direction = match op {
                    WaveOp::QuadSwapHorizontal => 0,
                    WaveOp::QuadSwapVertical => 1,
                    _ => 2,
                };
                let d = Val::new(direction.to_string(), "i32");
                return self.group_op(Op::GroupNonUniformQuadSwap, None, ty, &[v, d]);
            }
            WaveOp::PrefixProduct if float => (Op::GroupNonUniformFMul, scan),
            WaveOp::PrefixProduct => (Op::GroupNonUniformIMul, scan),
            WaveOp::Rotate => {
                // A shuffle from `(laneId + delta) % width`, as in the rspirv backend.
                let delta = self.wave_arg(args, 1, e)?;
                let id = self.scalar_builtin("SubgroupLocalInvocationId")?;
                let width = self.scalar_builtin("SubgroupSize")?;
                let sum = self.int_op("add", &id.text, &delta.text);
                let from = self.int_op("urem", &sum.text, &width.text);
                return self.group_op(Op::GroupNonUniformShuffle, None, ty, &[v, from]);
            }
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
            | WaveOp::ReduceSegmented => {
                return Err(refuse(e.span, "a malformed subgroup operation"))
            }
        };
        self.group_op(opcode, operation, ty, &[v])
    }

    /// `{t} = {inst} i32 a, b`.
    fn int_op(&mut self, inst: &str, a: &str, b: &str) -> Val {
        let t = self.tmp();
        self.emit(format!("{t} = {inst} i32 {a}, {b}"));
        Val::new(t, "i32")
    }

    /// `Quad.any(p)` / `Quad.all(p)`: `p` as 0/1 combined with the horizontal and then the
    /// vertical neighbour's through `OpGroupNonUniformQuadSwap`, as in the rspirv backend.
    fn quad_vote(&mut self, all: bool, p: &Val) -> Res<Val> {
        let t = self.tmp();
        self.emit(format!("{t} = zext i1 {} to i32", p.text));
        let mut x = Val::new(t, "i32");
        for direction in ["0", "1"] {
            let d = Val::new(direction.to_string(), "i32");
            let other = self.group_op(Op::GroupNonUniformQuadSwap, None, "i32", &[x.clone(), d])?;
            x = self.int_op(if all { "and" } else { "or" }, &x.text, &other.text);
        }
        let t = self.tmp();
        self.emit(format!("{t} = icmp ne i32 {}, 0", x.text));
        Ok(Val::new(t, "i1"))
    }

    fn wave_arg(&mut self, args: &[Expr], i: usize, e: &Expr) -> Res<Val> {
        let a = args
            .get(i)
            .ok_or_else(|| refuse(e.span, "a malformed subgroup operation"))?;
        self.expr(a)
    }

    /// `opcode(Subgroup, [operation,] operands…)` through its convergent placeholder.
    fn group_op(
        &mut self,
        opcode: Op,
        operation: Option<GroupOperation>,
        ret: &'static str,
        operands: &[Val],
    ) -> Res<Val> {
        let name = spirv_ops::core_op(opcode, operation);
        let mut params = vec!["i32"];
        params.extend(operands.iter().map(|v| v.ty));
        let f = spirv_ops::placeholder(&name, ret, &params);
        self.declare(format!(
            "declare {ret} {f}({}) convergent nounwind",
            params.join(", ")
        ));
        let mut list = vec![format!("i32 {SCOPE_SUBGROUP}")];
        list.extend(operands.iter().map(|v| format!("{} {}", v.ty, v.text)));
        let t = self.tmp();
        self.emit(format!("{t} = call {ret} {f}({})", list.join(", ")));
        Ok(Val::new(t, ret))
    }

    /// A scalar `uint32` input built-in, through the target's `__spirv_BuiltIn<Name>`
    /// global convention.
    pub(super) fn scalar_builtin(&mut self, name: &str) -> Res<Val> {
        let global = format!("@__spirv_BuiltIn{name} = external addrspace(7) global i32");
        if !self.globals.contains(&global) {
            self.globals.push(global);
        }
        let t = self.tmp();
        self.emit(format!(
            "{t} = load i32, ptr addrspace(7) @__spirv_BuiltIn{name}"
        ));
        Ok(Val::new(t, "i32"))
    }
}

/// Whether a subgroup instruction of `m` works on an 8-, 16- or 64-bit integer or float,
/// which Vulkan allows with `shaderSubgroupExtendedTypes` (the rspirv backend declares it
/// likewise).
pub(crate) fn subgroup_extended_types(m: &Module) -> bool {
    let narrow_or_wide: std::collections::HashSet<rspirv::spirv::Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            matches!(i.class.opcode, Op::TypeInt | Op::TypeFloat)
                && !matches!(i.operands.first(), Some(Operand::LiteralBit32(32)))
        })
        .filter_map(|i| i.result_id)
        .collect();
    m.all_inst_iter().any(|i| {
        let group = matches!(
            i.class.opcode,
            Op::GroupNonUniformBroadcastFirst
                | Op::GroupNonUniformShuffle
                | Op::GroupNonUniformQuadBroadcast
                | Op::GroupNonUniformQuadSwap
                | Op::GroupNonUniformIAdd
                | Op::GroupNonUniformFAdd
                | Op::GroupNonUniformSMin
                | Op::GroupNonUniformUMin
                | Op::GroupNonUniformFMin
                | Op::GroupNonUniformSMax
                | Op::GroupNonUniformUMax
                | Op::GroupNonUniformFMax
                | Op::GroupNonUniformBitwiseAnd
                | Op::GroupNonUniformBitwiseOr
                | Op::GroupNonUniformBitwiseXor
                | Op::GroupNonUniformIMul
                | Op::GroupNonUniformFMul
        );
        group && i.result_type.is_some_and(|t| narrow_or_wide.contains(&t))
    })
}
