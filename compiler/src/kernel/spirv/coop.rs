//! Cooperative matrices (`SPV_KHR_cooperative_matrix`): `CoopMatrix.load*`, `zeroAcc`,
//! `mulAdd`, the element-wise accumulator operations and `store`, of the sizes their types
//! spell, at subgroup scope, row- or column-major in buffers and shared arrays.
//!
//! The matrix type records the `CooperativeMatrixKHR` capability, the SPIR-V extension and the
//! `cooperativeMatrix` Vulkan feature (see `types.rs`), so a kernel whose cooperative-matrix
//! code was removed as a dead branch declares none of them.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::bounds::Guard;
use super::bounds_access::Tile;
use super::function::FnCx;
use super::module::ResourceKind;
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Constant, CoopOp, Expr, ExprKind, ScalarType, Type};

/// How a tile's pointer is formed where the access runs.
#[derive(Debug, Clone, Copy)]
enum TilePtr {
    /// Formed already (unchecked).
    Ready(Word),
    /// `OpAccessChain` into a shared array (`var`, stored element type, index).
    Shared(Word, Word, Word),
    /// An element pointer into a buffer (`var`, kind, index, index type).
    Buffer(Word, ResourceKind, Word, ScalarType),
    /// An element pointer into a buffer of a buffer array (the selected buffer's block
    /// pointer, stored element type and non-uniformity; the index).
    Selected((Word, Word, bool), Word),
}

/// `CooperativeMatrixLayout::RowMajorKHR`; `ColumnMajorKHR` is 1, as `CoopLayout`'s constants.
const ROW_MAJOR: u32 = 0;

impl FnCx<'_, '_> {
    /// A fresh Function variable holding matrix `m`, and the pointer to its component `i`.
    fn coop_element_var(&mut self, m: &Expr, i: &Expr, e: &Expr) -> Res<(Word, Word)> {
        let matrix = self.expr(m)?;
        let index = self.expr(i)?;
        let var = self.new_var(&m.ty, "coop_elements", None)?;
        self.cx.b.store(var, matrix, None, []).ice(e.span)?;
        let component = self.cx.value_type(coop_component(&m.ty), e.span)?;
        let ptr_ty = self.cx.pointer_type(StorageClass::Function, component);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[var, index])?;
        Ok((var, ptr))
    }

    /// The pointer to component `i` of a copy of matrix `m`.
    fn coop_element_pointer(&mut self, m: &Expr, i: &Expr, e: &Expr) -> Res<Word> {
        self.coop_element_var(m, i, e).map(|(_, ptr)| ptr)
    }

    /// Lowers one cooperative-matrix operation.
    pub(crate) fn coop(&mut self, op: CoopOp, args: &[Expr], e: &Expr) -> Res<Word> {
        match (op, args) {
            (CoopOp::Load, [src, offset, stride, layout @ ..]) if layout.len() <= 1 => {
                let result_ty = self.cx.ir_value_type(&e.ty, e.span)?;
                // A float16 A or B tile from float32 memory (Cajeta's float32 operands) is
                // loaded as float32, of the same use and size, then converted.
                let widened = match (&src.ty, &e.ty) {
                    (Type::Buffer(m) | Type::Shared(m), Type::CoopMatrix(t))
                        if **m == Type::Scalar(ScalarType::F32)
                            && t.component == ScalarType::F16 =>
                    {
                        Some(Type::CoopMatrix(t.with_component(ScalarType::F32)))
                    }
                    _ => None,
                };
                let tile = widened.as_ref().unwrap_or(&e.ty);
                let ty = self.cx.ir_value_type(tile, e.span)?;
                let (layout, layout_value) = self.coop_layout(layout.first())?;
                let access = (src, offset, stride, layout_value);
                let (ptr, stride_id, guard) =
                    self.coop_pointer(access, tile, ("coop load", e.span))?;
                // The tile of an out-of-bounds load is a null (zero) matrix.
                let loaded = self.guarded(guard, Some(ty), |s| {
                    let ptr = s.tile_pointer(ptr)?;
                    s.cx.b
                        .cooperative_matrix_load_khr(
                            ty,
                            None,
                            ptr,
                            layout,
                            Some(stride_id),
                            None,
                            [],
                        )
                        .ice(e.span)
                })?;
                match widened {
                    Some(_) => self.op(Op::FConvert, result_ty, &[loaded]),
                    None => Ok(loaded),
                }
            }
            (CoopOp::Splat, [v]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let value = self.expr(v)?;
                self.op_with(Op::CompositeConstruct, ty, vec![Operand::IdRef(value)])
            }
            (CoopOp::Length, [m]) => {
                let matrix_ty = self.cx.ir_value_type(&m.ty, e.span)?;
                let uint = self.cx.ir_value_type(&e.ty, e.span)?;
                self.op(Op::CooperativeMatrixLengthKHR, uint, &[matrix_ty])
            }
            // A component by a run-time index: through a Function variable holding the
            // matrix, as SPIR-V's OpCompositeExtract/Insert take constant indices only.
            (CoopOp::Element, [m, i]) => {
                let element_ptr = self.coop_element_pointer(m, i, e)?;
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                self.cx.b.load(ty, None, element_ptr, None, []).ice(e.span)
            }
            (CoopOp::WithElement, [m, i, v]) => {
                let (var, ptr) = self.coop_element_var(m, i, e)?;
                let value = self.expr(v)?;
                self.cx.b.store(ptr, value, None, []).ice(e.span)?;
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                self.cx.b.load(ty, None, var, None, []).ice(e.span)
            }
            (CoopOp::ZeroAcc, []) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let component = coop_component(&e.ty);
                let zero = if component.is_integer() {
                    crate::ir::Constant::Int(0)
                } else {
                    crate::ir::Constant::Float(0.0)
                };
                let zero = self
                    .cx
                    .ir_constant(&zero, &Type::Scalar(component), e.span)?;
                self.op_with(Op::CompositeConstruct, ty, vec![Operand::IdRef(zero)])
            }
            (CoopOp::Convert, [m]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let value = self.expr(m)?;
                let (from, to) = (coop_component(&m.ty), coop_component(&e.ty));
                if from == to {
                    return Ok(value);
                }
                // Sema allows float ↔ float and integer ↔ float (no same-width integer pair).
                let opcode = match (from.is_float(), to.is_float()) {
                    (true, true) => Op::FConvert,
                    (false, true) if from.is_signed_integer() => Op::ConvertSToF,
                    (false, true) => Op::ConvertUToF,
                    (true, false) if to.is_signed_integer() => Op::ConvertFToS,
                    (true, false) => Op::ConvertFToU,
                    (false, false) => {
                        return Err(unsupported(
                            e.span,
                            format!("converting {} to {}", m.ty, e.ty),
                        ))
                    }
                };
                self.op(opcode, ty, &[value])
            }
            (CoopOp::MulAdd, [a, b, c]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (shape, operands) = mul_add_shape(&a.ty, &b.ty, &e.ty);
                self.cx.features.coop_shape(shape);
                let (a, b, c) = (self.expr(a)?, self.expr(b)?, self.expr(c)?);
                self.cx
                    .b
                    .cooperative_matrix_mul_add_khr(ty, None, a, b, c, operands)
                    .ice(e.span)
            }
            (CoopOp::Scale, [m, factor]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (m, mut factor_id) = (self.expr(m)?, self.expr(factor)?);
                // OpMatrixTimesScalar wants the scalar in the component type.
                let component = coop_component(&e.ty);
                if let Some(from) = factor.ty.as_scalar() {
                    factor_id = self.convert(factor_id, from, component, e.span)?;
                }
                self.op(Op::MatrixTimesScalar, ty, &[m, factor_id])
            }
            (CoopOp::Add, [x, y]) => {
                let ty = self.cx.ir_value_type(&e.ty, e.span)?;
                let (x, y) = (self.expr(x)?, self.expr(y)?);
                let opcode = if coop_component(&e.ty).is_integer() {
                    Op::IAdd
                } else {
                    Op::FAdd
                };
                self.op(opcode, ty, &[x, y])
            }
            (CoopOp::Store, [dst, offset, stride, value, layout @ ..]) if layout.len() <= 1 => {
                let (layout, layout_value) = self.coop_layout(layout.first())?;
                let access = (dst, offset, stride, layout_value);
                let (ptr, stride_id, guard) =
                    self.coop_pointer(access, &value.ty, ("coop store", e.span))?;
                let value = self.expr(value)?;
                self.guarded(guard, None, |s| {
                    let ptr = s.tile_pointer(ptr)?;
                    s.cx.b
                        .cooperative_matrix_store_khr(ptr, value, layout, Some(stride_id), None, [])
                        .ice(e.span)
                        .map(|_| 0)
                })?;
                // A void intrinsic has no result id.
                Ok(0)
            }
            _ => Err(unsupported(e.span, format!("malformed CoopMatrix {op:?}"))),
        }
    }

    /// The first element of a tile, `memory[offset]` of a buffer or a shared array: how to form
    /// its pointer where the access runs (so that an out-of-bounds pointer is never formed),
    /// the stride (evaluated after the offset, in source order) and, in checked mode, the
    /// guard that the whole tile of type `tile` is in bounds (`bounds_access.rs`). The
    /// pointer's element may be a 128-bit vector where the matrix holds float16: SPIR-V
    /// reinterprets.
    fn coop_pointer(
        &mut self,
        (memory, offset, stride, layout): (&Expr, &Expr, &Expr, u32),
        tile: &Type,
        (kind, span): (&'static str, crate::diagnostics::Span),
    ) -> Res<(TilePtr, Word, Option<Guard>)> {
        let elem = match &memory.ty {
            Type::Shared(t) | Type::Buffer(t) => (**t).clone(),
            _ => Type::Scalar(ScalarType::F32),
        };
        let (Type::CoopMatrix(t), true) = (tile, self.checked()) else {
            let (ptr, _, _) = match memory.ty {
                Type::Shared(_) => {
                    let i = self.expr(offset)?;
                    self.shared_element_clamped(memory, offset, i, false)?
                }
                _ => self.buffer_element(memory, offset)?,
            };
            let guard = self.take_guard();
            let stride = self.expr(stride)?;
            return Ok((TilePtr::Ready(ptr), stride, guard));
        };
        let lanes = match elem.lanes() {
            3 => 4,
            n => n as u32,
        };
        let element = elem.elem_scalar().unwrap_or(ScalarType::F32);
        let shape = Tile {
            rows: t.rows,
            cols: t.cols,
            layout,
            component_bytes: t.component.size_bytes(),
            element_bytes: element.size_bytes() * lanes,
        };
        let ty = super::bounds::index_type(offset)?;
        // The offset, then the stride (source order), as unchecked.
        let o = self.expr(offset)?;
        let stride = self.expr(stride)?;
        if let Type::Shared(_) = memory.ty {
            let a = self.shared_of(memory)?;
            let name = self.cx.kernel.locals.get(a.handle);
            let name = name.map(|l| l.name.clone()).unwrap_or_default();
            let site = (name.as_str(), kind);
            let (safe, guard) =
                self.check_tile((o, ty), stride, (a.len, false), shape, site, span)?;
            return Ok((TilePtr::Shared(a.var, a.storage, safe), stride, Some(guard)));
        }
        if super::buffer_array::array_element(memory).is_some() {
            // `bufs[k]`: k checked against the buffers bound, the tile against bufs[k].
            let sel = self.select_buffer(memory)?;
            let outer = self.take_guard();
            let len = self.buffer_length_at(&sel)?;
            let site = (sel.name.as_str(), kind);
            let (safe, inner) =
                self.check_tile((o, ty), stride, (len, false), shape, site, span)?;
            self.set_pending_guard(inner);
            self.merge_pending_guard(outer)?;
            let block = (sel.block_ptr, sel.storage, sel.non_uniform);
            return Ok((TilePtr::Selected(block, safe), stride, self.take_guard()));
        }
        let (var, rk) = self.resource_of(memory)?;
        let ResourceKind::Buffer { address, .. } = rk else {
            return Err(unsupported(memory.span, "a tile's memory must be a buffer"));
        };
        let (len, wide) = match address {
            Some(a) => (self.address_length(a)?, true),
            None => (self.hoisted_array_length(var)?, false),
        };
        let name = self.resource_name(memory);
        let site = (name.as_str(), kind);
        let (safe, guard) = self.check_tile((o, ty), stride, (len, wide), shape, site, span)?;
        let index_ty = if wide {
            ScalarType::U64
        } else {
            ScalarType::U32
        };
        Ok((
            TilePtr::Buffer(var, rk, safe, index_ty),
            stride,
            Some(guard),
        ))
    }

    /// Forms a tile's pointer.
    fn tile_pointer(&mut self, p: TilePtr) -> Res<Word> {
        match p {
            TilePtr::Ready(ptr) => Ok(ptr),
            TilePtr::Shared(var, storage, i) => {
                let ptr_ty = self.cx.pointer_type(StorageClass::Workgroup, storage);
                self.op(Op::AccessChain, ptr_ty, &[var, i])
            }
            TilePtr::Buffer(var, kind, i, ty) => self.buffer_element_pointer(var, kind, i, ty),
            TilePtr::Selected(block, i) => self.selected_element(block, i),
        }
    }

    /// The layout operand: a `CoopLayout` constant (sema requires one), row-major by default;
    /// with its value.
    fn coop_layout(&mut self, layout: Option<&Expr>) -> Res<(Word, u32)> {
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
        Ok((self.cx.const_u32(value), value))
    }
}

/// The shape `a × b + c` multiplies in (M×N×K from A's rows, B's columns and A's columns) as
/// the reflection records it, and the `Matrix*SignedComponents` operands that say which of
/// the integer operands are signed (none for float matrices).
fn mul_add_shape(
    a: &Type,
    b: &Type,
    c: &Type,
) -> (
    cajeta_runtime::CoopMatrixShape,
    Option<rspirv::spirv::CooperativeMatrixOperands>,
) {
    use rspirv::spirv::CooperativeMatrixOperands as Ops;
    let dims = |t: &Type| match t {
        Type::CoopMatrix(t) => (t.rows, t.cols),
        _ => (0, 0),
    };
    let ((m, k), (_, n)) = (dims(a), dims(b));
    let (ca, cb, cc) = (coop_component(a), coop_component(b), coop_component(c));
    let shape = cajeta_runtime::CoopMatrixShape::subgroup(
        [m, n, k],
        &ca.to_string(),
        &cb.to_string(),
        &cc.to_string(),
    );
    let mut operands = Ops::NONE_KHR;
    for (s, flag) in [
        (ca, Ops::MATRIX_A_SIGNED_COMPONENTS_KHR),
        (cb, Ops::MATRIX_B_SIGNED_COMPONENTS_KHR),
        (
            cc,
            Ops::MATRIX_C_SIGNED_COMPONENTS_KHR | Ops::MATRIX_RESULT_SIGNED_COMPONENTS_KHR,
        ),
    ] {
        if s.is_signed_integer() {
            operands |= flag;
        }
    }
    (shape, (!operands.is_empty()).then_some(operands))
}

/// The component type of a cooperative-matrix IR type (float32 for anything else).
fn coop_component(ty: &Type) -> ScalarType {
    match ty {
        Type::CoopMatrix(t) => t.component,
        _ => ScalarType::F32,
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

/// Makes every shared-memory load and store take part in inter-invocation ordering under the
/// Vulkan memory model, as glslang does for GLSL's (implicitly coherent) `shared`: a store gets
/// `MakePointerAvailable|NonPrivatePointer`, a load `MakePointerVisible|NonPrivatePointer`, at
/// workgroup scope (`workgroup_scope` is the id of the constant 2). Under that model a plain
/// access is private: a workgroup barrier orders only non-private accesses, so without this a
/// tile staged in shared memory before `Barrier.workgroup()` is not formally visible to the
/// other invocations that read it after the barrier.
pub(crate) fn make_shared_non_private(module: &mut Module, workgroup_scope: Word) {
    use rspirv::spirv::{MemoryAccess, StorageClass};
    use std::collections::HashSet;
    let shared_pointer_types: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypePointer
                && matches!(
                    i.operands.first(),
                    Some(Operand::StorageClass(StorageClass::Workgroup))
                )
        })
        .filter_map(|i| i.result_id)
        .collect();
    let is_shared = |i: &rspirv::dr::Instruction| {
        i.result_type
            .is_some_and(|t| shared_pointer_types.contains(&t))
    };
    let mut shared: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| is_shared(i))
        .filter_map(|i| i.result_id)
        .collect();
    for f in &module.functions {
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            if is_shared(i) {
                shared.extend(i.result_id);
            }
        }
    }
    for f in &mut module.functions {
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            let (make, fixed) = match i.class.opcode {
                Op::Load => (MemoryAccess::MAKE_POINTER_VISIBLE, 1),
                Op::Store => (MemoryAccess::MAKE_POINTER_AVAILABLE, 2),
                // Pointer, layout, stride (always emitted, coop.rs).
                Op::CooperativeMatrixLoadKHR => (MemoryAccess::MAKE_POINTER_VISIBLE, 3),
                // Pointer, object, layout, stride.
                Op::CooperativeMatrixStoreKHR => (MemoryAccess::MAKE_POINTER_AVAILABLE, 4),
                _ => continue,
            };
            let on_shared =
                matches!(i.operands.first(), Some(Operand::IdRef(p)) if shared.contains(p));
            if !on_shared || i.operands.len() < fixed {
                continue;
            }
            let flags = make | MemoryAccess::NON_PRIVATE_POINTER;
            match i.operands.get_mut(fixed) {
                // Operands of earlier flags (an `Aligned` literal) precede the scope.
                Some(Operand::MemoryAccess(existing)) => {
                    if existing.intersects(
                        MemoryAccess::MAKE_POINTER_AVAILABLE | MemoryAccess::MAKE_POINTER_VISIBLE,
                    ) {
                        continue;
                    }
                    *existing |= flags;
                }
                None => i.operands.push(Operand::MemoryAccess(flags)),
                Some(_) => continue,
            }
            i.operands.push(Operand::IdScope(workgroup_scope));
        }
    }
}
