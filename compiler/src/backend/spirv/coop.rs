//! Cooperative matrices (`SPV_KHR_cooperative_matrix`): `CoopMatrix.load*`, `zeroAcc`,
//! `mulAdd` and `store`, all 16×16 at subgroup scope, row-major in buffers.
//!
//! The matrix type records the `CooperativeMatrixKHR` capability, the SPIR-V extension and the
//! `cooperativeMatrix` Vulkan feature (see `types.rs`), so a kernel whose cooperative-matrix
//! code was removed as a dead branch declares none of them.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Decoration, Op, Word};

use super::function::FnCx;
use super::{unsupported, BuildExt, Res};
use crate::ir::{CoopOp, Expr, ScalarType};

/// `CooperativeMatrixLayout::RowMajorKHR`.
const ROW_MAJOR: u32 = 0;

impl FnCx<'_, '_> {
    /// Lowers one cooperative-matrix operation.
    pub(crate) fn coop(&mut self, op: CoopOp, args: &[Expr], e: &Expr) -> Res<Word> {
        match (op, args) {
            (CoopOp::Load, [buf, offset, stride]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (ptr, _, _) = self.buffer_element(buf, offset)?;
                let layout = self.cx.const_u32(ROW_MAJOR);
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
            (CoopOp::Store, [buf, offset, stride, value]) => {
                let (ptr, _, _) = self.buffer_element(buf, offset)?;
                let value = self.expr(value)?;
                let layout = self.cx.const_u32(ROW_MAJOR);
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
        !(i.class.opcode == Op::Decorate
            && matches!(
                i.operands.get(1),
                Some(Operand::Decoration(Decoration::Coherent))
            ))
    });
}
