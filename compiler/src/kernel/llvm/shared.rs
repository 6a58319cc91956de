//! Shared arrays: what a function knows of one ([`SharedArray`]), those of dynamic length,
//! and `t.length()`.
//!
//! As with rspirv, a kernel's one `shared T[m]` of a length that is not a constant is a
//! workgroup array whose length is the launch's byte size (`SpecId 3`, default one
//! element) divided by the element's std430 size (a 3-lane vector counts four lanes), an
//! `OpSpecConstantOp`: LLVM IR has no array of a specialization-constant length, so the
//! array is declared with a marker length ([`DYNAMIC_LENGTH`]) that the post-pass
//! ([`fix_dynamic_length`]) replaces. Its `length()` is that byte size divided by the
//! element size in the code (the byte size through a spec-constant placeholder, see
//! [`super::spec`]).
//!
//! A `@Device` helper taking a `Shared<T>` is specialized per array passed (as per
//! resource, [`super::Handle::Shared`]): it indexes the array's global directly.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op};

use super::lower::{FnLower, Val};
use super::refuse;
use super::spec::SpecConstant;
use super::types;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Place, ScalarType};
use crate::layout::SHARED_SPEC_ID;

type Res<T> = Result<T, Diagnostic>;

/// The length a dynamic shared array is declared with in LLVM IR (a prime no fixed-size
/// array of the kernel is expected to have; the post-pass refuses a module where one does).
pub(crate) const DYNAMIC_LENGTH: u32 = 1_048_573;

/// A shared array as the functions indexing it see it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SharedArray {
    /// The `addrspace(3)` global.
    pub(crate) global: String,
    /// The element's lane type.
    pub(crate) elem: ScalarType,
    /// The element's LLVM type as stored (`i32` bits for a float array atomics work on).
    pub(crate) ty: &'static str,
    /// The length, or [`DYNAMIC_LENGTH`].
    pub(crate) n: u32,
    /// Bytes per element (std430 size; what the dynamic length divides by).
    pub(crate) elem_bytes: u32,
    /// Where it starts in the workgroup's shared memory on the CPU target (0 for SPIR-V,
    /// where the global is the array's own variable).
    pub(crate) offset: u64,
}

impl SharedArray {
    /// Whether this is a float array's `i32` bit view.
    pub(crate) fn is_bit_view(&self) -> bool {
        self.elem.is_float() && self.ty == "i32"
    }
}

impl FnLower<'_> {
    /// `t = shared T[m]` with `m` not a constant: the kernel's dynamic shared array of
    /// elements of LLVM type `ty`, `elem_bytes` each.
    pub(super) fn bind_dynamic_shared(
        &mut self,
        local: usize,
        (elem, ty, elem_bytes): (ScalarType, &'static str, u32),
        span: Span,
    ) -> Res<()> {
        if self.shared.iter().any(|(_, a)| a.n == DYNAMIC_LENGTH) {
            return Err(Diagnostic::error(
                Code::InvalidShared,
                span,
                "a kernel can have only one dynamic shared array",
            ));
        }
        let global = if self.target == super::target::Target::Cpu {
            // Where the runtime put it, after the fixed-size arrays (`cpu/hooks.rs`).
            let global = format!("%shared.{}.{local}", self.kernel_tag());
            self.allocas
                .push_str(&super::cpu::hooks::dynamic_shared_array(
                    &global, elem_bytes,
                ));
            global
        } else {
            let global = format!("@shared.{}.{local}", self.kernel_tag());
            self.globals.push(format!(
                "{global} = internal addrspace(3) global [{DYNAMIC_LENGTH} x {ty}] poison"
            ));
            global
        };
        let array = SharedArray {
            global,
            elem,
            ty,
            n: DYNAMIC_LENGTH,
            elem_bytes,
            offset: 0,
        };
        self.shared.push((local, array));
        Ok(())
    }

    /// The shared array the `Shared<T>` expression `e` denotes (a local of this function).
    pub(super) fn shared_of(&self, e: &Expr) -> Option<&SharedArray> {
        let ExprKind::Load(Place::Local(l)) = &e.kind else {
            return None;
        };
        self.shared.iter().find(|(s, _)| *s == l.0).map(|(_, a)| a)
    }

    /// A constant element index of a shared array as an `OpCopyObject` of it, which LLVM
    /// cannot fold: with a constant index the GEP becomes a constant expression, which
    /// LLVM 23.1's target lowered to element 0 (measured: `t[1] = 0` of a two-element
    /// shared array stored to `t[0]` on lavapipe).
    pub(super) fn opaque_if_constant(&mut self, i: Val) -> Val {
        // (A work-around for the SPIR-V target only.)
        if self.target == super::target::Target::Cpu {
            return i;
        }
        if i.text.parse::<i64>().is_err() {
            return i;
        }
        let op = super::spirv_ops::core_op(Op::CopyObject, None);
        let name = super::spirv_ops::placeholder(&op, "i32", &["i32"]);
        self.declare(format!(
            "declare i32 {name}(i32) memory(none) nounwind willreturn"
        ));
        let t = self.tmp();
        self.emit(format!("{t} = call i32 {name}(i32 {})", i.text));
        Val::new(t, "i32")
    }

    /// `v` through an `OpCopyObject` placeholder: a value LLVM cannot fold into the
    /// instructions around it.
    pub(super) fn opaque_copy(&mut self, v: Val) -> Val {
        if self.target == super::target::Target::Cpu {
            return v;
        }
        let op = super::spirv_ops::core_op(Op::CopyObject, None);
        let name = super::spirv_ops::placeholder(&op, v.ty, &[v.ty]);
        self.declare(format!(
            "declare {ty} {name}({ty}) memory(none) nounwind willreturn",
            ty = v.ty
        ));
        let t = self.tmp();
        self.emit(format!("{t} = call {} {name}({} {})", v.ty, v.ty, v.text));
        Val::new(t, v.ty)
    }

    /// An index into `array` on the SPIR-V target clamped to its last element
    /// (`min(i, len - 1)`, unsigned), as the rspirv backend does outside checked mode: an
    /// index past the end touches the last element, never memory outside the array (on a
    /// CPU driver such as lavapipe, the process's heap). Constants known in range and
    /// the CPU target (which guards its own accesses) are left alone.
    pub(super) fn clamp_shared_index(&mut self, i: Val, array: &SharedArray) -> Val {
        if self.target == super::target::Target::Cpu {
            return i;
        }
        if let Ok(v) = i.text.parse::<i64>() {
            if array.n != DYNAMIC_LENGTH && v >= 0 && v < i64::from(array.n) {
                return i;
            }
        }
        let (ity, idx) = match i.ty {
            "i32" | "i64" => (i.ty, i.text.clone()),
            narrow => {
                let w = self.tmp();
                self.emit(format!("{w} = zext {narrow} {} to i32", i.text));
                ("i32", w)
            }
        };
        let len = if array.n != DYNAMIC_LENGTH {
            array.n.to_string()
        } else {
            let name =
                super::spec::spec_placeholder(SHARED_SPEC_ID, array.elem_bytes, ScalarType::U32);
            self.declare(format!(
                "declare i32 {name}() memory(none) nounwind willreturn"
            ));
            let [bytes, len] = self.tmps();
            self.emit(format!("{bytes} = call i32 {name}()"));
            self.emit(format!("{len} = udiv i32 {bytes}, {}", array.elem_bytes));
            if ity == "i64" {
                let wide = self.tmp();
                self.emit(format!("{wide} = zext i32 {len} to i64"));
                wide
            } else {
                len
            }
        };
        let [last, ok, clamped] = self.tmps();
        self.emit(format!("{last} = sub {ity} {len}, 1"));
        self.emit(format!("{ok} = icmp ult {ity} {idx}, {len}"));
        self.emit(format!(
            "{clamped} = select i1 {ok}, {ity} {idx}, {ity} {last}"
        ));
        Val::new(clamped, ity)
    }

    /// `t.length()` of a shared array.
    pub(super) fn shared_length(&mut self, args: &[Expr], e: &Expr) -> Res<Val> {
        let Some(ExprKind::Load(Place::Local(l))) = args.first().map(|a| &a.kind) else {
            return Err(refuse(
                e.span,
                "`length()` of a shared array that is not a local",
            ));
        };
        let Some((n, size, global)) = self
            .shared
            .iter()
            .find(|(s, _)| *s == l.0)
            .map(|(_, a)| (a.n, a.elem_bytes, a.global.clone()))
        else {
            return Err(refuse(
                e.span,
                "`length()` of a shared array before its declaration",
            ));
        };
        if n != DYNAMIC_LENGTH {
            return Ok(Val::new(n.to_string(), "i32"));
        }
        if self.target == super::target::Target::Cpu {
            // Computed at entry from the launch's size (`cpu::hooks::dynamic_shared_array`).
            return Ok(Val::new(format!("{global}.n"), "i32"));
        }
        let name = super::spec::spec_placeholder(SHARED_SPEC_ID, size, ScalarType::U32);
        let ty = types::scalar(ScalarType::U32, e.span)?;
        self.declare(format!(
            "declare {ty} {name}() memory(none) nounwind willreturn"
        ));
        let (bytes, len) = (self.tmp(), self.tmp());
        self.emit(format!("{bytes} = call {ty} {name}()"));
        self.emit(format!("{len} = udiv i32 {bytes}, {size}"));
        Ok(Val::new(len, "i32"))
    }
}

/// Gives the array type of marker length [`DYNAMIC_LENGTH`] the length `SpecId 3 / 4` (the
/// `OpSpecConstant` of `SpecId 3` that `length()` made, or a new one); returns the spec
/// constant when this declared it. `spec` lists those the module has.
pub(crate) fn fix_dynamic_length(
    m: &mut Module,
    spec: &[SpecConstant],
) -> Result<Option<SpecConstant>, String> {
    let marker =
        m.types_global_values
            .iter()
            .find_map(|i| match (i.class.opcode, i.operands.first()) {
                (Op::Constant, Some(Operand::LiteralBit32(v))) if *v == DYNAMIC_LENGTH => {
                    Some((i.result_id?, i.result_type?))
                }
                _ => None,
            });
    let Some((marker, uint)) = marker else {
        return Ok(None);
    };
    let arrays: Vec<usize> = m
        .types_global_values
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            i.class.opcode == Op::TypeArray && i.operands.get(1) == Some(&Operand::IdRef(marker))
        })
        .map(|(at, _)| at)
        .collect();
    let [at] = arrays.as_slice() else {
        return Err("a shared array with the dynamic array's marker length".to_string());
    };
    let at = *at;
    let element_bytes = match m.types_global_values[at].operands.first() {
        Some(Operand::IdRef(t)) => std430_size(m, *t),
        _ => None,
    }
    .ok_or("the dynamic shared array's element of an unknown size")?;
    // The byte size's spec constant, moved before the array if the spec pass put it after.
    let existing = m
        .annotations
        .iter()
        .find_map(|i| match i.operands.as_slice() {
            [Operand::IdRef(t), Operand::Decoration(Decoration::SpecId), Operand::LiteralBit32(id)]
                if *id == SHARED_SPEC_ID =>
            {
                Some(*t)
            }
            _ => None,
        });
    let mut declared = None;
    let bytes = match existing {
        Some(id) => {
            let from = m
                .types_global_values
                .iter()
                .position(|i| i.result_id == Some(id))
                .ok_or("the shared byte size without its constant")?;
            let inst = m.types_global_values.remove(from);
            let to = if from < at { at - 1 } else { at };
            m.types_global_values.insert(to, inst);
            id
        }
        None => {
            let id = super::post::next_id(m);
            m.types_global_values.insert(
                at,
                Instruction::new(
                    Op::SpecConstant,
                    Some(uint),
                    Some(id),
                    vec![Operand::LiteralBit32(element_bytes)],
                ),
            );
            m.annotations.push(Instruction::new(
                Op::Decorate,
                None,
                None,
                vec![
                    Operand::IdRef(id),
                    Operand::Decoration(Decoration::SpecId),
                    Operand::LiteralBit32(SHARED_SPEC_ID),
                ],
            ));
            declared = Some(SpecConstant {
                id: SHARED_SPEC_ID,
                ty: ScalarType::U32.name().to_string(),
                default: element_bytes,
            });
            id
        }
    };
    if let Some(s) = spec.iter().find(|s| s.id == SHARED_SPEC_ID) {
        if s.default != element_bytes {
            return Err("the shared byte size with another default".to_string());
        }
    }
    let at = m
        .types_global_values
        .iter()
        .position(|i| {
            i.result_id.is_some()
                && i.class.opcode == Op::TypeArray
                && i.operands.get(1) == Some(&Operand::IdRef(marker))
        })
        .ok_or("the dynamic shared array's type went missing")?;
    let (size, length) = (super::post::next_id(m), super::post::next_id(m));
    let new: [Instruction; 2] = [
        Instruction::new(
            Op::Constant,
            Some(uint),
            Some(size),
            vec![Operand::LiteralBit32(element_bytes)],
        ),
        Instruction::new(
            Op::SpecConstantOp,
            Some(uint),
            Some(length),
            vec![
                Operand::LiteralSpecConstantOpInteger(Op::UDiv),
                Operand::IdRef(bytes),
                Operand::IdRef(size),
            ],
        ),
    ];
    for (k, inst) in new.into_iter().enumerate() {
        m.types_global_values.insert(at + k, inst);
    }
    m.types_global_values[at + 2].operands[1] = Operand::IdRef(length);
    Ok(declared)
}

/// The std430 size of SPIR-V scalar or vector type `ty` (a 3-lane vector takes four
/// lanes' room), as the rspirv backend sizes a dynamic shared array's elements.
fn std430_size(m: &Module, ty: rspirv::spirv::Word) -> Option<u32> {
    let def = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(ty))?;
    match (def.class.opcode, def.operands.as_slice()) {
        (Op::TypeInt | Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => Some(w / 8),
        (Op::TypeVector, [Operand::IdRef(lane), Operand::LiteralBit32(n)]) => {
            let lanes = if *n == 3 { 4 } else { *n };
            Some(std430_size(m, *lane)? * lanes)
        }
        _ => None,
    }
}

/// The spec-constant name the reflection gives SpecId 3.
pub(crate) const SHARED_BYTES_NAME: &str = "shared_bytes";

/// Whether some `@Device` helper of `module` runs an atomic on a `Shared<float32>`
/// receiver (float atomics run on the array's `i32` bits).
pub(crate) fn helpers_share_atomics(module: &crate::ir::Module) -> bool {
    let shared_atomic = |e: &Expr| match &e.kind {
        ExprKind::Intrinsic {
            op: crate::ir::Intrinsic::Atomic(_),
            args,
        } => args.first().is_some_and(|r| match &r.ty {
            crate::ir::Type::Shared(t) => t.as_scalar() == Some(ScalarType::F32),
            _ => false,
        }),
        _ => false,
    };
    module
        .functions
        .iter()
        .filter(|f| f.kind == crate::ir::FunctionKind::Device)
        .any(|f| crate::ir::visit::find_expr(&f.body, &shared_atomic).is_some())
}
