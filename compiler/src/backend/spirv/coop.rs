//! Cooperative matrices (`SPV_KHR_cooperative_matrix`): `CoopMatrix.load*`, `zeroAcc`,
//! `mulAdd` and `store`, all 16×16 at subgroup scope, row- or column-major in buffers and
//! shared arrays.
//!
//! The matrix type records the `CooperativeMatrixKHR` capability, the SPIR-V extension and the
//! `cooperativeMatrix` Vulkan feature (see `types.rs`), so a kernel whose cooperative-matrix
//! code was removed as a dead branch declares none of them.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Decoration, Op, Word};

use super::function::FnCx;
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Constant, CoopOp, Expr, ExprKind, ScalarType, Type};

/// `CooperativeMatrixLayout::RowMajorKHR`; `ColumnMajorKHR` is 1, as `CoopLayout`'s constants.
const ROW_MAJOR: u32 = 0;

impl FnCx<'_, '_> {
    /// Lowers one cooperative-matrix operation.
    pub(crate) fn coop(&mut self, op: CoopOp, args: &[Expr], e: &Expr) -> Res<Word> {
        match (op, args) {
            (CoopOp::Load, [src, offset, stride, layout @ ..]) if layout.len() <= 1 => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let ptr = self.coop_pointer(src, offset)?;
                let layout = self.coop_layout(layout.first())?;
                let stride = self.expr(stride)?;
                self.cx
                    .b
                    .cooperative_matrix_load_khr(ty, None, ptr, layout, Some(stride), None, [])
                    .ice(e.span)
            }
            (CoopOp::ZeroAcc, []) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let zero = self.cx.ir_constant(
                    &crate::ir::Constant::Float(0.0),
                    &crate::ir::Type::Scalar(ScalarType::F32),
                    e.span,
                )?;
                self.op_with(Op::CompositeConstruct, ty, vec![Operand::IdRef(zero)])
            }
            (CoopOp::MulAdd, [a, b, c]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (a, b, c) = (self.expr(a)?, self.expr(b)?, self.expr(c)?);
                self.cx
                    .b
                    .cooperative_matrix_mul_add_khr(ty, None, a, b, c, None)
                    .ice(e.span)
            }
            (CoopOp::Scale, [m, factor]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (m, factor) = (self.expr(m)?, self.expr(factor)?);
                self.op(Op::MatrixTimesScalar, ty, &[m, factor])
            }
            (CoopOp::Add, [x, y]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (x, y) = (self.expr(x)?, self.expr(y)?);
                self.op(Op::FAdd, ty, &[x, y])
            }
            (CoopOp::Store, [dst, offset, stride, value, layout @ ..]) if layout.len() <= 1 => {
                let ptr = self.coop_pointer(dst, offset)?;
                let value = self.expr(value)?;
                let layout = self.coop_layout(layout.first())?;
                let stride = self.expr(stride)?;
                self.cx
                    .b
                    .cooperative_matrix_store_khr(ptr, value, layout, Some(stride), None, [])
                    .ice(e.span)?;
                // A void intrinsic has no result id.
                Ok(0)
            }
            _ => Err(unsupported(e.span, format!("malformed CoopMatrix {op:?}"))),
        }
    }

    /// Pointer to the first element of a tile: `memory[offset]` of a buffer or a shared array
    /// (bounds-checked like an index when the kernel is compiled checked). The pointer's
    /// element may be a 128-bit vector where the matrix holds float16: SPIR-V reinterprets.
    fn coop_pointer(&mut self, memory: &Expr, offset: &Expr) -> Res<Word> {
        let (ptr, _, _) = match memory.ty {
            Type::Shared(_) => self.shared_element(memory, offset)?,
            _ => self.buffer_element(memory, offset)?,
        };
        Ok(ptr)
    }

    /// The layout operand: a `CoopLayout` constant (sema requires one), row-major by default.
    fn coop_layout(&mut self, layout: Option<&Expr>) -> Res<Word> {
        let value = match layout.map(|l| &l.kind) {
            None => ROW_MAJOR,
            Some(ExprKind::Const(Constant::Int(v))) => *v as u32,
            Some(_) => {
                let span = layout.map_or(self.func.span, |l| l.span);
                return Err(Diagnostic::error(
                    Code::NotConstant,
                    span,
                    "a CoopLayout argument must be a constant",
                ));
            }
        };
        Ok(self.cx.const_u32(value))
    }
}

/// Whether a barrier or atomic of the module uses `Device` scope, which under the Vulkan memory
/// model (that cooperative matrices bring) needs `VulkanMemoryModelDeviceScope`.
pub(crate) fn uses_device_scope(module: &Module) -> bool {
    let device: Vec<Word> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Constant
                && matches!(i.operands.first(), Some(Operand::LiteralBit32(1)))
        })
        .filter_map(|i| i.result_id)
        .collect();
    let is_device = |o: Option<&Operand>| {
        o.and_then(|o| o.id_ref_any())
            .is_some_and(|id| device.contains(&id))
    };
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .any(|i| match i.class.opcode {
            Op::ControlBarrier => is_device(i.operands.first()) || is_device(i.operands.get(1)),
            Op::MemoryBarrier => is_device(i.operands.first()),
            op if format!("{op:?}").starts_with("Atomic") => is_device(i.operands.get(1)),
            _ => false,
        })
}

/// Removes `Coherent` decorations, which the Vulkan memory model bans (module.rs adds them to
/// read-write buffers as a driver workaround). Under that model, coherence across invocations
/// comes from atomics and barriers; plain accesses of other workgroups' writes are not made
/// visible.
pub(crate) fn drop_coherent(module: &mut Module) {
    module.annotations.retain(|i| {
        // `OpMemberDecorate` (an addressed buffer's block) has the decoration one later.
        let at = match i.class.opcode {
            Op::Decorate => 1,
            Op::MemberDecorate => 2,
            _ => return true,
        };
        !matches!(
            i.operands.get(at),
            Some(Operand::Decoration(Decoration::Coherent))
        )
    });
}
