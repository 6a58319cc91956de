//! Workgroup memory, barriers, atomics and specialization constants (SPEC §6, §7).
//!
//! A `Shared<T>` local becomes a module-level `Workgroup` array when its `shared T[n]`
//! declaration is lowered; a dynamic array's length is `SpecId 3` (the launch's byte size)
//! divided by the element size, an `OpSpecConstantOp`, so the runtime passes bytes and
//! checks them against `maxComputeSharedMemorySize`. Atomics are in `atomics`.

use std::collections::BTreeMap;

use cajeta_runtime::reflection::SpecConstant;
use rspirv::dr::{InsertPoint, Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::function::{FnCx, Slot};
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{BarrierKind, Constant, Expr, ExprKind, Intrinsic, Place, ScalarType, Type};

/// The Vulkan feature that allows a native float32 atomic add on buffers.
pub(crate) const BUFFER_FLOAT_ADD: &str = "shaderBufferFloat32AtomicAdd";
/// The same for workgroup memory.
pub(crate) const SHARED_FLOAT_ADD: &str = "shaderSharedFloat32AtomicAdd";
/// The Vulkan feature that allows native float32 atomic min and max on buffers.
pub(crate) const BUFFER_FLOAT_MIN_MAX: &str = "shaderBufferFloat32AtomicMinMax";
/// The same for workgroup memory.
pub(crate) const SHARED_FLOAT_MIN_MAX: &str = "shaderSharedFloat32AtomicMinMax";
pub(crate) use crate::layout::{PSC_SPEC_BASE, SHARED_SPEC_ID, USER_SPEC_BASE};

/// SPIR-V scope values.
pub(crate) const SCOPE_DEVICE: u32 = 1;
pub(crate) const SCOPE_WORKGROUP: u32 = 2;
/// Memory-semantics bits.
pub(crate) const SEM_ACQUIRE: u32 = 0x2;
pub(crate) const SEM_RELEASE: u32 = 0x4;
pub(crate) const SEM_ACQ_REL: u32 = 0x8;
pub(crate) const SEM_UNIFORM_MEMORY: u32 = 0x40;
pub(crate) const SEM_WORKGROUP_MEMORY: u32 = 0x100;
pub(crate) const SEM_IMAGE_MEMORY: u32 = 0x800;

/// A lowered `Shared<T>` array.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SharedArray {
    /// The `Workgroup` variable.
    pub(crate) var: Word,
    /// Element type.
    pub(crate) elem: ScalarType,
    /// SPIR-V type of a stored element (an unsigned integer for bit views).
    pub(crate) storage: Word,
    /// The length (a constant or spec-constant operation), `uint32`.
    pub(crate) len: Word,
    /// The length when it is a constant (`shared T[n]` with a literal `n`).
    pub(crate) fixed_len: Option<u32>,
    /// Identifies the array in helper specializations: the kernel local it was declared as.
    pub(crate) handle: usize,
}

/// Helper keys name a kernel resource parameter by its index and a shared array by this
/// base plus its handle, so one key type covers both.
pub(crate) const SHARED_HANDLE_BASE: usize = 1 << 32;

/// Module-wide state of this area.
#[derive(Debug, Default)]
pub(crate) struct MemState {
    /// Features of the target device (from [`super::SpirvOptions`]).
    pub(crate) device_features: Vec<String>,
    /// Whether the target device is known to have subgroup vote and arithmetic operations in
    /// compute (its profile's `subgroup_operations`): emulated float atomics then combine a
    /// subgroup's updates of one element into one compare-exchange loop (atomics.rs).
    pub(crate) subgroup_combining: bool,
    /// The dynamic shared array's byte-size spec constant and its default.
    dynamic_bytes: Option<(Word, u32)>,
    /// `Spec` slots: constant id, type, default bits.
    slots: BTreeMap<u32, (Word, ScalarType, u32)>,
    /// `psc(p)` spec constants by kernel parameter index: constant id, type, parameter name.
    pub(crate) psc: BTreeMap<usize, (Word, ScalarType, String)>,
    /// Scalar built-in inputs (`SubgroupSize`…).
    pub(crate) scalar_builtins: Vec<(rspirv::spirv::BuiltIn, Word)>,
    /// The kernel's shared arrays, for helpers that take them as parameters.
    pub(crate) shared_arrays: Vec<SharedArray>,
    /// Bytes of the fixed-size shared arrays together (the reflection's
    /// `static_shared_bytes`).
    pub(crate) static_shared_bytes: u32,
    /// The scratch arrays of `Workgroup.reduce`, by element type: (type, variable).
    pub(crate) reduce_scratch: Vec<(Word, Word)>,
}

impl MemState {
    /// The reflection entries of the spec constants beyond the workgroup size.
    pub(crate) fn spec_constants(&self) -> Vec<SpecConstant> {
        let mut out = Vec::new();
        if let Some((_, default)) = self.dynamic_bytes {
            out.push(SpecConstant {
                id: SHARED_SPEC_ID,
                name: "shared_bytes".to_string(),
                ty: "uint32".to_string(),
                default,
            });
        }
        for (slot, (_, ty, default)) in &self.slots {
            out.push(SpecConstant {
                id: USER_SPEC_BASE + slot,
                name: format!("spec_slot_{slot}"),
                ty: ty.name().to_string(),
                default: *default,
            });
        }
        for (param, (_, ty, name)) in &self.psc {
            out.push(SpecConstant {
                id: PSC_SPEC_BASE + *param as u32,
                name: format!("psc_{name}"),
                ty: ty.name().to_string(),
                default: 0,
            });
        }
        out
    }

    fn has(&self, feature: &str) -> bool {
        self.device_features.iter().any(|f| f == feature)
    }

    /// Counts `bytes` more of fixed-size workgroup memory (saturating).
    pub(crate) fn add_static_shared_bytes(&mut self, bytes: u64) {
        let total = u64::from(self.static_shared_bytes) + bytes;
        self.static_shared_bytes = u32::try_from(total).unwrap_or(u32::MAX);
    }

    /// Whether the target device is known to have a feature (or a property listed as one).
    pub(crate) fn has_feature(&self, feature: &str) -> bool {
        self.has(feature)
    }
}

/// The memory-semantics order bits of a `MemoryOrder` argument (SeqCst is AcqRel: Vulkan
/// has no sequentially consistent ordering).
pub(crate) fn order_bits(order: Option<&Expr>) -> Res<u32> {
    let Some(e) = order else {
        return Ok(0);
    };
    match &e.kind {
        ExprKind::Const(Constant::Int(v)) => Ok(match v {
            0 => 0,
            1 => SEM_ACQUIRE,
            2 => SEM_RELEASE,
            _ => SEM_ACQ_REL,
        }),
        _ => Err(Diagnostic::error(
            Code::NotConstant,
            e.span,
            "a MemoryOrder argument must be a constant",
        )),
    }
}

impl FnCx<'_, '_> {
    /// Emits an instruction with arbitrary operands into the current block.
    pub(crate) fn emit(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Res<Word> {
        let id = self.cx.b.id();
        self.emit_as(id, op, ty, operands)?;
        Ok(id)
    }

    /// Emits an instruction with a pre-allocated result id (a value used before its
    /// definition, by an `OpPhi`).
    pub(crate) fn emit_as(
        &mut self,
        id: Word,
        op: Op,
        ty: Option<Word>,
        operands: Vec<Operand>,
    ) -> Res<Word> {
        let inst = Instruction::new(op, ty, ty.map(|_| id), operands);
        self.cx
            .b
            .insert_into_block(InsertPoint::End, inst)
            .ice(self.func.span)?;
        Ok(id)
    }

    /// Lowers `t = shared T[n]` for the `Shared<T>` local `local`: declares the array.
    pub(crate) fn bind_shared(
        &mut self,
        local: usize,
        current: Option<SharedArray>,
        value: &Expr,
        span: Span,
    ) -> Res<()> {
        let (
            ExprKind::Intrinsic {
                op: Intrinsic::SharedNew,
                args,
            },
            Type::Shared(elem),
        ) = (&value.kind, &value.ty)
        else {
            return Err(unsupported(
                span,
                "a Shared<T> local must be initialized with `shared T[n]`",
            ));
        };
        if current.is_some() {
            return Err(Diagnostic::error(
                Code::InvalidShared,
                span,
                "a Shared<T> local cannot be assigned twice",
            ));
        }
        let elem_ty = (**elem).clone();
        let Some(elem) = elem_ty.elem_scalar() else {
            return Err(unsupported(span, format!("a shared array of `{elem_ty}`")));
        };
        // A bfloat16 element is stored as its 16 bits, as in a buffer (`storage.rs` widens
        // and narrows it): its float32 register form would double the array and mismatch
        // the loads and stores, and a cooperative-matrix load reads the array as bfloat16.
        let bits = elem_ty.as_scalar().is_some()
            && (elem == ScalarType::BF16 || self.shared_needs_bits(local, elem));
        let storage = if bits {
            self.cx.int_type(elem.bits(), false)
        } else {
            self.cx.ir_value_type(&elem_ty, span)?
        };
        // Bytes per element for the dynamic length: the std430 stride (a vec3 counts 16).
        let size = elem_ty
            .std430_stride()
            .ok_or_else(|| unsupported(span, format!("a shared array of `{elem_ty}`")))?;
        let fixed_len = match args.first().map(|a| &a.kind) {
            Some(ExprKind::Const(Constant::Int(n))) => Some(*n as u32),
            _ => None,
        };
        let len = match args.first().map(|a| &a.kind) {
            Some(ExprKind::Const(Constant::Int(n))) => {
                let bytes = u64::from(*n as u32) * u64::from(size);
                self.cx.mem.add_static_shared_bytes(bytes);
                self.cx.const_u32(*n as u32)
            }
            Some(_) => self.dynamic_length(size, span)?,
            None => {
                return Err(unsupported(
                    span,
                    "internal error: shared array without a length",
                ))
            }
        };
        let array = self.cx.b.type_array(storage, len);
        let name = self
            .func
            .locals
            .get(local)
            .map(|l| l.name.clone())
            .unwrap_or_default();
        let var = self
            .cx
            .global_variable(array, StorageClass::Workgroup, &name);
        let array = SharedArray {
            var,
            elem,
            storage,
            len,
            fixed_len,
            handle: local,
        };
        self.cx.mem.shared_arrays.push(array);
        self.slots[local] = Slot::Shared(Some(array));
        Ok(())
    }

    /// Whether a float shared array needs a bit view: an atomic in the kernel on it, or in
    /// any @Device helper on a `Shared<T>` parameter (helpers may be passed any array).
    fn shared_needs_bits(&self, local: usize, elem: ScalarType) -> bool {
        if !elem.is_float() {
            return false;
        }
        let native = super::atomics::NativeFloatAtomics {
            add: self.cx.mem.has(SHARED_FLOAT_ADD),
            min_max: self.cx.mem.has(SHARED_FLOAT_MIN_MAX),
        };
        let needs = |e: &Expr, on_local: Option<usize>| match &e.kind {
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(a),
                args,
            } => {
                let receiver = args.first();
                let here = match (receiver.map(|r| &r.kind), on_local) {
                    (Some(ExprKind::Load(Place::Local(l))), Some(local)) => l.0 == local,
                    (_, None) => receiver.is_some_and(|r| matches!(r.ty, Type::Shared(_))),
                    _ => false,
                };
                here && receiver
                    .is_some_and(|r| super::atomics::atomic_needs_bits(*a, &r.ty, native))
            }
            _ => false,
        };
        crate::ir::visit::find_expr(&self.func.body, &|e| needs(e, Some(local))).is_some()
            || self
                .cx
                .ir
                .functions
                .iter()
                .filter(|f| f.kind == crate::ir::FunctionKind::Device)
                .any(|f| crate::ir::visit::find_expr(&f.body, &|e| needs(e, None)).is_some())
    }

    /// `SpecId 3` (bytes, default one element) divided by the element size.
    fn dynamic_length(&mut self, size: u32, span: Span) -> Res<Word> {
        if self.cx.mem.dynamic_bytes.is_some() {
            return Err(Diagnostic::error(
                Code::InvalidShared,
                span,
                "a kernel can have only one dynamic shared array",
            ));
        }
        let uint = self.cx.u32_type();
        let bytes = self.cx.b.spec_constant_bit32(uint, size);
        self.cx.b.decorate(
            bytes,
            Decoration::SpecId,
            [Operand::LiteralBit32(SHARED_SPEC_ID)],
        );
        self.cx.b.name(bytes, "shared_bytes");
        self.cx.mem.dynamic_bytes = Some((bytes, size));
        let size_c = self.cx.const_u32(size);
        let id = self.cx.b.id();
        self.cx
            .b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::SpecConstantOp,
                Some(uint),
                Some(id),
                vec![
                    Operand::LiteralSpecConstantOpInteger(Op::UDiv),
                    Operand::IdRef(bytes),
                    Operand::IdRef(size_c),
                ],
            ));
        Ok(id)
    }

    /// The array a `Shared<T>` expression denotes.
    pub(crate) fn shared_of(&self, e: &Expr) -> Res<SharedArray> {
        match &e.kind {
            ExprKind::Load(Place::Local(l)) => match self.slots.get(l.0) {
                Some(Slot::Shared(Some(a))) => Ok(*a),
                _ => Err(unsupported(
                    e.span,
                    "a shared array used before its declaration",
                )),
            },
            _ => Err(unsupported(e.span, "a Shared<T> here must be a local")),
        }
    }

    /// Pointer to `t[index]`, with the element type and its stored SPIR-V type.
    pub(crate) fn shared_element(
        &mut self,
        base: &Expr,
        index: &Expr,
    ) -> Res<(Word, ScalarType, Word)> {
        let i = self.expr(index)?;
        self.shared_element_at(base, index, i)
    }

    /// [`Self::shared_element`] with `index` already computed as `i`.
    pub(crate) fn shared_element_at(
        &mut self,
        base: &Expr,
        index: &Expr,
        i: Word,
    ) -> Res<(Word, ScalarType, Word)> {
        self.shared_element_clamped(base, index, i, true)
    }

    /// [`Self::shared_element_at`]; with `clamp` false an unchecked index is used as it is
    /// (a read, or a cooperative-matrix tile's offset, whose tile would run past the array
    /// anyway).
    pub(crate) fn shared_element_clamped(
        &mut self,
        base: &Expr,
        index: &Expr,
        i: Word,
        clamp: bool,
    ) -> Res<(Word, ScalarType, Word)> {
        let a = self.shared_of(base)?;
        let mut i = i;
        // An index whose form keeps it below the constant length needs no check.
        let folded = a
            .fixed_len
            .is_some_and(|n| super::index_range::always_below(index, n));
        if self.checked() {
            if folded {
                return self.shared_pointer(&a, i);
            }
            // The kernel's name for the array, also inside a helper it was passed to.
            let name = self.cx.kernel.locals.get(a.handle);
            let name = name.map(|l| l.name.clone()).unwrap_or_default();
            let ty = super::bounds::index_type(index)?;
            let at = base.span.to(index.span);
            i = self.check_index(i, ty, a.len, &name, "shared", at)?;
            if let Some(mut g) = self.take_guard() {
                g.readable = true;
                self.set_pending_guard(g);
            }
        } else if clamp && !in_range(index, a.fixed_len) {
            i = self.clamp_shared_index(i, index, a.len, a.fixed_len)?;
        }
        self.shared_pointer(&a, i)
    }

    /// The pointer to element `i` of the shared array `a`, with its lane and stored types.
    fn shared_pointer(&mut self, a: &SharedArray, i: Word) -> Res<(Word, ScalarType, Word)> {
        let ptr_ty = self.cx.pointer_type(StorageClass::Workgroup, a.storage);
        let ptr = self.op(Op::AccessChain, ptr_ty, &[a.var, i])?;
        Ok((ptr, a.elem, a.storage))
    }

    /// An unchecked shared-array index clamped to the last element (`min(i, len - 1)`,
    /// unsigned, so a negative index clamps too), as naga's `Restrict` policy does for
    /// workgroup arrays: an index past the end reads or writes the last element instead of
    /// memory outside the array, which on a CPU driver (lavapipe) is the process's heap.
    /// In-range indices are unchanged.
    fn clamp_shared_index(
        &mut self,
        i: Word,
        index: &Expr,
        len: Word,
        fixed_len: Option<u32>,
    ) -> Res<Word> {
        let ty = super::bounds::index_type(index)?;
        let uint = self.cx.u32_type();
        let (ok, lo, _) = self.index_below(i, ty, len, index.span)?;
        let last = match fixed_len {
            Some(n) => self.cx.const_u32(n.saturating_sub(1)),
            None => {
                let one = self.cx.const_u32(1);
                self.op(Op::ISub, uint, &[len, one])?
            }
        };
        self.op(Op::Select, uint, &[ok, lo, last])
    }

    /// `t.length()`.
    pub(crate) fn shared_length(&mut self, args: &[Expr]) -> Res<Word> {
        let recv = args
            .first()
            .ok_or_else(|| unsupported(self.func.span, "internal error"))?;
        Ok(self.shared_of(recv)?.len)
    }

    /// `Barrier.*`: `OpControlBarrier` / `OpMemoryBarrier`.
    pub(crate) fn barrier(&mut self, kind: BarrierKind, args: &[Expr], e: &Expr) -> Res<Word> {
        let order = match args.first() {
            Some(_) => Some(order_bits(args.first())?),
            None => None,
        };
        let span = e.span;
        match kind {
            BarrierKind::Workgroup => {
                let sem = match order {
                    Some(0) => 0,
                    Some(o) => o | SEM_WORKGROUP_MEMORY,
                    None => SEM_ACQ_REL | SEM_WORKGROUP_MEMORY,
                };
                if self.checked() && !self.barriers_statically_uniform() {
                    self.checked_workgroup_barrier(sem, span)?;
                } else {
                    self.workgroup_control_barrier(sem, span)?;
                }
            }
            BarrierKind::Wave => {
                // Execution and memory scope Subgroup (allowed in Vulkan compute since 1.1).
                let scope = self.cx.const_u32(super::wave::SCOPE_SUBGROUP);
                let sem = self.cx.const_u32(SEM_ACQ_REL | SEM_WORKGROUP_MEMORY);
                self.cx.b.control_barrier(scope, scope, sem).ice(span)?;
            }
            BarrierKind::WorkgroupMemory | BarrierKind::DeviceMemory => {
                let o = order.unwrap_or(SEM_ACQ_REL);
                if o == 0 {
                    // A relaxed fence orders nothing (C++'s `atomic_thread_fence(relaxed)`,
                    // Cajeta's spelling), and Vulkan forbids an `OpMemoryBarrier` without an
                    // order: it emits no instruction.
                    return Ok(0);
                }
                let (scope, storage) = if kind == BarrierKind::WorkgroupMemory {
                    (SCOPE_WORKGROUP, SEM_WORKGROUP_MEMORY)
                } else {
                    (SCOPE_DEVICE, SEM_UNIFORM_MEMORY | SEM_IMAGE_MEMORY)
                };
                let (scope, sem) = (self.cx.const_u32(scope), self.cx.const_u32(o | storage));
                self.cx.b.memory_barrier(scope, sem).ice(span)?;
            }
        }
        Ok(0)
    }

    /// `OpControlBarrier` with workgroup execution and memory scope and semantics `sem`.
    pub(crate) fn workgroup_control_barrier(&mut self, sem: u32, span: Span) -> Res<()> {
        let (scope, sem) = (self.cx.const_u32(SCOPE_WORKGROUP), self.cx.const_u32(sem));
        self.cx.b.control_barrier(scope, scope, sem).ice(span)
    }

    /// `Spec.geti` / `Spec.getf`: the slot's `OpSpecConstant` (SpecId 4 + slot).
    pub(crate) fn spec_value(&mut self, float: bool, args: &[Expr], e: &Expr) -> Res<Word> {
        let (Some(ExprKind::Const(Constant::Int(slot))), Some(ExprKind::Const(default))) =
            (args.first().map(|a| &a.kind), args.get(1).map(|a| &a.kind))
        else {
            return Err(Diagnostic::error(
                Code::NotConstant,
                e.span,
                "Spec slots and defaults must be constants",
            ));
        };
        let slot = *slot as u32;
        let (ty, bits) = match (float, default) {
            (false, Constant::Int(v)) => (ScalarType::I32, *v as u32),
            (true, Constant::Float(f)) => (ScalarType::F32, (*f as f32).to_bits()),
            _ => return Err(unsupported(e.span, "internal error: Spec default type")),
        };
        if let Some(&(id, t, d)) = self.cx.mem.slots.get(&slot) {
            if t != ty || d != bits {
                return Err(Diagnostic::error(
                    Code::TypeMismatch,
                    e.span,
                    format!("Spec slot {slot} is used twice with a different type or default"),
                ));
            }
            return Ok(id);
        }
        let vt = self.cx.value_type(ty, e.span)?;
        let id = self.cx.b.spec_constant_bit32(vt, bits);
        self.cx.b.decorate(
            id,
            Decoration::SpecId,
            [Operand::LiteralBit32(USER_SPEC_BASE + slot)],
        );
        self.cx.b.name(id, format!("spec_slot_{slot}"));
        self.cx.mem.slots.insert(slot, (id, ty, bits));
        Ok(id)
    }
}

/// Lowering dispatch for this area's intrinsics.
impl FnCx<'_, '_> {
    /// Lowers barrier, atomic, shared and spec intrinsics; `None` for other operations.
    pub(crate) fn memory_intrinsic(
        &mut self,
        op: Intrinsic,
        args: &[Expr],
        e: &Expr,
    ) -> Option<Res<Word>> {
        Some(match op {
            Intrinsic::Barrier(k) => self.barrier(k, args, e),
            Intrinsic::Atomic(a) => self.atomic(a, args, e),
            Intrinsic::SpecInt => self.spec_value(false, args, e),
            Intrinsic::SpecFloat => self.spec_value(true, args, e),
            Intrinsic::SharedLength => self.shared_length(args),
            Intrinsic::SharedNew => Err(unsupported(
                e.span,
                "`shared T[n]` can only initialize a Shared<T> local",
            )),
            _ => return None,
        })
    }
}

/// Whether `index` is a constant known to be below the array's constant length, so that it
/// needs no clamp.
fn in_range(index: &Expr, fixed_len: Option<u32>) -> bool {
    match (&index.kind, fixed_len, index.ty.as_scalar()) {
        (ExprKind::Const(Constant::Int(v)), Some(n), Some(ty)) => {
            let negative = ty.is_signed_integer() && (*v >> (ty.bits() - 1)) & 1 == 1;
            !negative && *v < u64::from(n)
        }
        _ => false,
    }
}
