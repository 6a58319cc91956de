//! Post-processing of the module LLVM's SPIR-V target emits, with rspirv: what Vulkan
//! compute and this project's interface need and the target does not produce.
//!
//! - The workgroup size becomes three specialization constants (SpecId 0, 1, 2) composed
//!   into the `WorkgroupSize` built-in, as in the rspirv backend, so that a launch's
//!   `block:` specializes it (LLVM only writes a fixed `LocalSize`).
//! - The push-constant block gets its `Block` decoration and member offsets from the layout
//!   where LLVM left them out.
//! - What LLVM leaves unused goes ([`cleanup`]), with the `Int8`/`Int64` capabilities the
//!   resource-name strings and 64-bit GEP indices implied.
//! - 8- and 16-bit values in buffers and push constants get their storage-access
//!   capabilities, and `OpOrdered`/`OpUnordered` become `OpIsNan` tests
//!   ([`vulkan_fixups`]), and the kernel asks for IEEE signed zeros, infinities and NaNs
//!   where the device honours it (`SignedZeroInfNanPreserve`, as rspirv).
//! - The entry point must be the kernel's name and bindings must be the layout's.

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use super::{atomics, cleanup, shared, spirv_ops, vulkan_fixups};

use crate::kernel::spirv::FeatureSet;
use crate::layout::{KernelLayout, DEFAULT_WORKGROUP_SIZE, DESCRIPTOR_SET};

/// How the error of a module that fails the structure check (`structure.rs`) starts.
pub(crate) const UNSTRUCTURED: &str = "unstructured control flow: ";

/// The capabilities, extensions and Vulkan features of the finished module (reflection).
pub(crate) struct Features {
    /// The specialization constants of `Spec` slots and `psc`, by SpecId.
    pub(crate) spec_constants: Vec<super::spec::SpecConstant>,
    pub(crate) capabilities: Vec<String>,
    pub(crate) extensions: Vec<String>,
    pub(crate) vulkan_features: Vec<String>,
    /// The buffer-array bindings indexed non-uniformly.
    pub(crate) non_uniform_bindings: Vec<u32>,
}

/// Fixes up the module LLVM emitted (see the module comment; read from its words, or a
/// kernel's part of a batch's module, `split.rs`) and reports its features. `narrow_source`:
/// whether the LLVM IR the module was made of has 8- or 16-bit integer values
/// (`narrow_values::mentions_narrow_ints`); without, the narrow values LLVM made are carried
/// in 32 bits.
pub(crate) fn fix_up_module(
    mut m: Module,
    layout: &KernelLayout,
    (kernel, narrow_source): (&str, bool),
    device_features: &[String],
) -> Result<(Vec<u32>, Features), String> {
    check_entry_point(&m, kernel)?;
    super::printf::replace_prints(&mut m)?;
    let mut spec_constants = spirv_ops::replace_placeholders(&mut m)?;
    if let Some(bytes) = shared::fix_dynamic_length(&mut m, &spec_constants)? {
        spec_constants.push(bytes);
        spec_constants.sort();
    }
    atomics::fix_atomic_semantics(&mut m);
    let mut extra_features = atomics::int64_atomics(&mut m);
    extra_features.extend(super::clock::declare_clock(&mut m));
    if super::waves::subgroup_extended_types(&m) {
        extra_features.push("shaderSubgroupExtendedTypes");
    }
    vulkan_fixups::merges_before_branches(&mut m);
    super::undef_phis::fold_undef_phis(&mut m);
    super::bool_phis::widen_bool_phis(&mut m);
    check_structured(&m)?;
    check_bindings(&m, layout)?;
    spec_workgroup_size(&mut m)?;
    super::buffers::replace_array_length_calls(&mut m)?;
    super::buffer_arrays::specialize_array_lengths(&mut m, layout, uint_const, next_id)?;
    decorate_push_block(&mut m, layout);
    cleanup::narrow_constant_indices(&mut m, uint_const);
    cleanup::remove_unused(&mut m);
    cleanup::drop_unused_width_capabilities(&mut m);
    vulkan_fixups::ordered_tests(&mut m, next_id);
    vulkan_fixups::storage_access_capabilities(&mut m);
    super::storage_widths::layout_storage_capabilities(&mut m, layout);
    super::storage_widths::drop_storage_only_widths(&mut m);
    vulkan_fixups::std430_array_strides(&mut m);
    no_contraction(&mut m);
    vulkan_fixups::sign_extensions_to_64(&mut m);
    super::narrow_arith::arithmetic_in_32_bits(&mut m);
    // Narrow values LLVM made of 32-bit source arithmetic: no `Int8`/`Int16` for them. A
    // source's own narrow values keep their types, as the rspirv backend's do.
    if !narrow_source {
        super::narrow_values::values_in_32_bits(&mut m);
    }
    super::narrow_convert::exact_narrow_conversions(&mut m);
    extra_features.extend(vulkan_fixups::float_controls(&mut m, device_features));
    let mut features = FeatureSet::default();
    for f in extra_features {
        features.vulkan_feature(f);
    }
    for inst in &m.capabilities {
        if let Some(Operand::Capability(c)) = inst.operands.first() {
            features.require(*c);
        }
    }
    // Indexing a buffer array with a uniform index needs a feature and no capability (as
    // the rspirv backend reports it).
    let arrays = layout
        .bindings
        .iter()
        .any(|b| matches!(b.kind, crate::layout::BindingKind::BufferArray { .. }));
    if arrays {
        features.vulkan_feature("shaderStorageBufferArrayDynamicIndexing");
    }
    if features.has(rspirv::spirv::Capability::StorageBufferArrayNonUniformIndexing) {
        features.vulkan_feature("shaderStorageBufferArrayNonUniformIndexing");
    }
    let extensions: Vec<String> = m
        .extensions
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    let non_uniform_bindings = super::buffer_arrays::non_uniform_bindings(&m);
    let features = Features {
        spec_constants,
        non_uniform_bindings,
        capabilities: features
            .capabilities()
            .iter()
            .map(|c| format!("{c:?}"))
            .collect(),
        extensions,
        vulkan_features: features
            .vulkan_features()
            .iter()
            .map(|f| f.to_string())
            .collect(),
    };
    // Last: no module whose structured control flow a validator refuses leaves here (the
    // caller tries its next pipeline, then refuses the kernel).
    super::structure::check(&m).map_err(|e| format!("{UNSTRUCTURED}{e}"))?;
    Ok((m.assemble(), features))
}

fn check_entry_point(m: &Module, kernel: &str) -> Result<(), String> {
    match m.entry_points.as_slice() {
        [ep] if matches!(ep.operands.get(2), Some(Operand::LiteralString(s)) if s == kernel) => {
            Ok(())
        }
        _ => Err(format!("expected one entry point named `{kernel}`")),
    }
}

/// Decorates every float add, subtract, multiply, divide and remainder `NoContraction`, as
/// the rspirv backend does outside `@FastMath` (SPEC §4: each operation rounds once): LLVM
/// sets no contraction flag, but the driver's own compiler may fuse a multiply and an add
/// (measured: lavapipe changed the noise example's last bits without it).
fn no_contraction(m: &mut Module) {
    let mut ids = Vec::new();
    for i in m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        if matches!(
            i.class.opcode,
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem
        ) {
            ids.extend(i.result_id);
        }
    }
    for id in ids {
        decorate(m, id, Decoration::NoContraction, []);
    }
}

/// Every `OpSwitch` must follow an `OpSelectionMerge` (structured control flow), and no
/// pointer may be bit-cast or chosen by a phi or select (logical addressing without variable
/// pointers); LLVM does not always manage these (seen:
/// a labeled `continue` out of nested loops; a push-constant pointer cast to `float*` in
/// the tiled SGEMM after O2).
fn check_structured(m: &Module) -> Result<(), String> {
    let pointer_types: std::collections::HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .filter_map(|i| i.result_id)
        .collect();
    for f in &m.functions {
        for b in &f.blocks {
            if b.instructions.iter().any(|i| {
                i.class.opcode == Op::Bitcast
                    && i.result_type.is_some_and(|t| pointer_types.contains(&t))
            }) {
                return Err("a pointer bit cast (not allowed with logical addressing)".to_string());
            }
            // `c ? a[i] : a[j]` with both loads sunk into one: a pointer chosen at run time
            // needs the VariablePointers capabilities, which Vulkan does not promise.
            if b.instructions.iter().any(|i| {
                matches!(i.class.opcode, Op::Phi | Op::Select)
                    && i.result_type.is_some_and(|t| pointer_types.contains(&t))
            }) {
                return Err(
                    "a pointer chosen by a phi or select (needs VariablePointers)".to_string(),
                );
            }
            let n = b.instructions.len();
            let merge_at = b
                .instructions
                .iter()
                .position(|i| matches!(i.class.opcode, Op::SelectionMerge | Op::LoopMerge));
            if merge_at.is_some_and(|at| at + 2 != n) {
                return Err("a merge instruction not just before its branch".to_string());
            }
            // A selection merge heads a conditional branch or a switch (LLVM's structurizer
            // left one before a plain `OpBranch` after O2 threaded labeled jumps).
            let selection = merge_at.is_some_and(|at| {
                b.instructions[at].class.opcode == Op::SelectionMerge
                    && !matches!(
                        b.instructions.get(at + 1).map(|i| i.class.opcode),
                        Some(Op::BranchConditional | Op::Switch)
                    )
            });
            if selection {
                return Err("a selection merge without a conditional branch".to_string());
            }
            let switch = n > 0 && b.instructions[n - 1].class.opcode == Op::Switch;
            let merged = n > 1 && b.instructions[n - 2].class.opcode == Op::SelectionMerge;
            if switch && !merged {
                return Err("unstructured control flow (an OpSwitch without a merge)".to_string());
            }
        }
    }
    Ok(())
}

/// Every `Binding` decoration must be one of the layout's, in descriptor set 0.
fn check_bindings(m: &Module, layout: &KernelLayout) -> Result<(), String> {
    for inst in &m.annotations {
        if inst.class.opcode != Op::Decorate {
            continue;
        }
        match inst.operands.get(1..3) {
            Some([Operand::Decoration(Decoration::Binding), Operand::LiteralBit32(b)])
                if *b >= layout.bindings.len() as u32 =>
            {
                return Err(format!("binding {b} is not in the layout"))
            }
            Some([Operand::Decoration(Decoration::DescriptorSet), Operand::LiteralBit32(s)])
                if *s != DESCRIPTOR_SET =>
            {
                return Err(format!("descriptor set {s} is not the layout's"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The type of every id that has one: constants and globals, function parameters and
/// instruction results.
pub(super) fn value_types(m: &Module) -> std::collections::HashMap<Word, Word> {
    m.types_global_values
        .iter()
        .chain(m.functions.iter().flat_map(|f| &f.parameters))
        .chain(
            m.functions
                .iter()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.instructions),
        )
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect()
}

pub(super) fn next_id(m: &mut Module) -> Word {
    let header = m
        .header
        .get_or_insert_with(|| rspirv::dr::ModuleHeader::new(1));
    let id = header.bound;
    header.bound += 1;
    id
}

/// The id of the type `op operands`, declared if missing (SPIR-V forbids duplicates).
pub(super) fn type_id(m: &mut Module, op: Op, operands: Vec<Operand>) -> Word {
    let found = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == op && i.operands == operands);
    if let Some(id) = found.and_then(|i| i.result_id) {
        return id;
    }
    let id = next_id(m);
    m.types_global_values
        .push(Instruction::new(op, None, Some(id), operands));
    id
}

/// The id of the 64-bit integer constant `value` of type `t64`, declared if missing.
pub(super) fn u64_const(m: &mut Module, t64: Word, value: u64) -> Word {
    let operands = vec![Operand::LiteralBit64(value)];
    let found = m.types_global_values.iter().find(|i| {
        i.class.opcode == Op::Constant && i.result_type == Some(t64) && i.operands == operands
    });
    if let Some(id) = found.and_then(|i| i.result_id) {
        return id;
    }
    let id = next_id(m);
    m.types_global_values.push(Instruction::new(
        Op::Constant,
        Some(t64),
        Some(id),
        operands,
    ));
    id
}

/// The id of `OpTypeInt 32 0`.
fn uint_type(m: &mut Module) -> Word {
    type_id(
        m,
        Op::TypeInt,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    )
}

/// The id of the `uint32` constant `value`, declared if missing.
pub(super) fn uint_const(m: &mut Module, value: u32) -> Word {
    let uint = uint_type(m);
    let found = m.types_global_values.iter().find(|i| {
        i.class.opcode == Op::Constant
            && i.result_type == Some(uint)
            && i.operands == [Operand::LiteralBit32(value)]
    });
    if let Some(id) = found.and_then(|i| i.result_id) {
        return id;
    }
    let id = next_id(m);
    m.types_global_values.push(Instruction::new(
        Op::Constant,
        Some(uint),
        Some(id),
        vec![Operand::LiteralBit32(value)],
    ));
    id
}

/// Declares the three spec constants composed into the `WorkgroupSize` built-in, and makes
/// every load of the `WorkgroupSize` input variable LLVM declared for `__spirv_BuiltIn…`
/// (Vulkan allows that built-in only on a constant) read the composite instead.
fn spec_workgroup_size(m: &mut Module) -> Result<(), String> {
    let llvm_vars: Vec<Word> = m
        .annotations
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Decorate
                && i.operands.get(1) == Some(&Operand::Decoration(Decoration::BuiltIn))
                && i.operands.get(2) == Some(&Operand::BuiltIn(BuiltIn::WorkgroupSize))
        })
        .filter_map(|i| match i.operands.first() {
            Some(Operand::IdRef(id)) => Some(*id),
            _ => None,
        })
        .collect();
    let uint = uint_type(m);
    let mut ids = [0; 3];
    for (axis, default) in DEFAULT_WORKGROUP_SIZE.into_iter().enumerate() {
        let id = next_id(m);
        m.types_global_values.push(Instruction::new(
            Op::SpecConstant,
            Some(uint),
            Some(id),
            vec![Operand::LiteralBit32(default)],
        ));
        decorate(
            m,
            id,
            Decoration::SpecId,
            [Operand::LiteralBit32(axis as u32)],
        );
        ids[axis] = id;
    }
    let v3 = type_id(
        m,
        Op::TypeVector,
        vec![Operand::IdRef(uint), Operand::LiteralBit32(3)],
    );
    let composite = next_id(m);
    m.types_global_values.push(Instruction::new(
        Op::SpecConstantComposite,
        Some(v3),
        Some(composite),
        ids.iter().map(|&i| Operand::IdRef(i)).collect(),
    ));
    decorate(
        m,
        composite,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
    );
    if !llvm_vars.is_empty() {
        read_composite_instead(m, &llvm_vars, composite);
    }
    Ok(())
}

/// Replaces every load of one of `vars` by `composite` and removes the variables.
fn read_composite_instead(m: &mut Module, vars: &[Word], composite: Word) {
    let mut loaded = std::collections::HashMap::new();
    for f in &mut m.functions {
        for b in &mut f.blocks {
            b.instructions.retain(|i| {
                let load_of_var = i.class.opcode == Op::Load
                    && matches!(i.operands.first(), Some(Operand::IdRef(p)) if vars.contains(p));
                if let (true, Some(id)) = (load_of_var, i.result_id) {
                    loaded.insert(id, composite);
                }
                !load_of_var
            });
        }
    }
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                for op in &mut i.operands {
                    if let Operand::IdRef(id) = op {
                        if let Some(&c) = loaded.get(id) {
                            *op = Operand::IdRef(c);
                        }
                    }
                }
            }
        }
    }
    let is_var = |op: Option<&Operand>| matches!(op, Some(Operand::IdRef(id)) if vars.contains(id));
    m.types_global_values
        .retain(|i| !i.result_id.is_some_and(|id| vars.contains(&id)));
    m.annotations.retain(|i| !is_var(i.operands.first()));
    m.debug_names.retain(|i| !is_var(i.operands.first()));
    for ep in &mut m.entry_points {
        ep.operands
            .retain(|op| !matches!(op, Operand::IdRef(id) if vars.contains(id)));
    }
}

/// `Block` on the push-constant struct where missing, and every member's `Offset` from the
/// layout (std430): LLVM's own offsets follow its data layout (a `<3 x float>` takes 16
/// bytes there, 12 in std430), and the members are only ever reached by index, so the
/// layout's offsets are the ones that hold.
fn decorate_push_block(m: &mut Module, layout: &KernelLayout) {
    let pointer = m.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::Variable
            && i.operands.first() == Some(&Operand::StorageClass(StorageClass::PushConstant)))
        .then_some(i.result_type)
        .flatten()
    });
    let Some(pointer) = pointer else {
        return;
    };
    let block = m.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::TypePointer && i.result_id == Some(pointer))
            .then(|| match i.operands.get(1) {
                Some(Operand::IdRef(s)) => Some(*s),
                _ => None,
            })
            .flatten()
    });
    let Some(block) = block else {
        return;
    };
    let has_block = m.annotations.iter().any(|i| {
        i.class.opcode == Op::Decorate
            && i.operands.first() == Some(&Operand::IdRef(block))
            && i.operands.get(1) == Some(&Operand::Decoration(Decoration::Block))
    });
    if !has_block {
        decorate(m, block, Decoration::Block, []);
    }
    m.annotations.retain(|i| {
        !(i.class.opcode == Op::MemberDecorate
            && i.operands.first() == Some(&Operand::IdRef(block))
            && i.operands.get(2) == Some(&Operand::Decoration(Decoration::Offset)))
    });
    for (n, offset) in super::push::member_offsets(layout).into_iter().enumerate() {
        m.annotations.push(Instruction::new(
            Op::MemberDecorate,
            None,
            None,
            vec![
                Operand::IdRef(block),
                Operand::LiteralBit32(n as u32),
                Operand::Decoration(Decoration::Offset),
                Operand::LiteralBit32(offset),
            ],
        ));
    }
}

/// Adds `OpDecorate id decoration extra…`.
fn decorate(
    m: &mut Module,
    id: Word,
    decoration: Decoration,
    extra: impl IntoIterator<Item = Operand>,
) {
    let mut operands = vec![Operand::IdRef(id), Operand::Decoration(decoration)];
    operands.extend(extra);
    m.annotations
        .push(Instruction::new(Op::Decorate, None, None, operands));
}
