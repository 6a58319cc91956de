//! The address variant's buffers (`SpirvOptions::buffer_address`): a `KernelBuffer<T>`
//! parameter the layout placed as an [`AddressSlot`] is a `PhysicalStorageBuffer` pointer to a
//! `Block` struct `{ T[] }` converted from a `uint64` in the push-constant block, plus its `uint64` element count
//! (`SPV_KHR_physical_storage_buffer`, the `PhysicalStorageBufferAddresses` capability and the
//! `PhysicalStorageBuffer64` addressing model). Element pointers are formed with the same
//! access chains as through a descriptor; [`align_physical_accesses`] then gives every load and
//! store through such a pointer the `Aligned` memory operand SPIR-V requires.
//!
//! Unlike `OpArrayLength`, the length is the push-constant `uint64`, so bounds checks and
//! `length64()` see lengths past 2^32 elements; `length()` saturates at `0xFFFFFFFF`.

use std::collections::HashMap;

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Capability, Decoration, MemoryAccess, Op, StorageClass, Word};

use super::access::Usage;
use super::function::FnCx;
use super::module::{BufferAddress, ParamPlace, PushMember, Resource, ResourceKind};
use super::{unsupported, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::{ScalarType, Type};
use crate::layout::{access_from_usage, AddressSlot, KernelLayout};

impl Ctx<'_> {
    /// Declares an addressed buffer: its own `Block` struct (decorated like a descriptor's
    /// variable would be), the pointer and length push-constant members, and the capability.
    pub(crate) fn declare_addressed(
        &mut self,
        slot: &AddressSlot,
        layout: &KernelLayout,
        span: Span,
        usage: Usage,
    ) -> Res<ParamPlace> {
        let storage = if usage.bits_view {
            self.u32_type()
        } else {
            self.storage_ir_type(&slot.elem, span)?
        };
        self.small_buffer_storage(&slot.elem)?;
        // The shared descriptor block exists first, so that rspirv's type deduplication finds
        // it, never this one with its own member decorations.
        self.buffer_block_type(storage, slot.stride);
        let array = self.buffer_array_type(storage, slot.stride);
        let block = self.b.id();
        self.b.type_struct_id(Some(block), [array]);
        self.b.decorate(block, Decoration::Block, []);
        self.b
            .member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let access = access_from_usage(usage.reads, usage.writes);
        if !access.writes() {
            self.b
                .member_decorate(block, 0, Decoration::NonWritable, []);
        }
        if !access.reads() {
            self.b
                .member_decorate(block, 0, Decoration::NonReadable, []);
        }
        // As on a descriptor (module.rs): NVIDIA's driver needs it on read-write buffers.
        if access.reads() && access.writes() {
            self.b.member_decorate(block, 0, Decoration::Coherent, []);
        }
        self.features
            .require(Capability::PhysicalStorageBufferAddresses);
        if self.env.spirv_version() < (1, 5) {
            self.features.extension("SPV_KHR_physical_storage_buffer");
        }
        let pointer = self.pointer_type(StorageClass::PhysicalStorageBuffer, block);
        let length = self.int_type(64, false);
        let member = |cx: &mut Self, index: usize, storage: Word| {
            let m = &layout.push[index];
            cx.globals.push_members.push(PushMember {
                name: m.name.clone(),
                ty: Type::Scalar(ScalarType::U64),
                storage,
                offset: m.offset,
            });
            cx.globals.push_members.len() - 1
        };
        let pointer_member = member(self, slot.address_member, length);
        let length_member = member(self, slot.length_member, length);
        self.globals.addressed.push(Resource {
            name: slot.name.clone(),
            var: 0,
            kind: ResourceKind::Buffer {
                elem: slot.lane,
                storage,
                address: Some(BufferAddress {
                    pointer_member,
                    pointer_type: pointer,
                    length_member,
                    // Sub-word elements are read and written as 32-bit words.
                    stride: if usage.bits_view { 4 } else { slot.stride },
                }),
            },
            access,
            non_uniform: false,
        });
        Ok(ParamPlace::Address(self.globals.addressed.len() - 1))
    }
}

impl FnCx<'_, '_> {
    /// Pointer to element `i` (of integer type `index`) of the buffer `var` of `kind` denotes.
    ///
    /// Through a descriptor it is `OpAccessChain %var 0 %i`. For an addressed buffer the
    /// element's byte offset is computed here in 64-bit integers and added to the block's
    /// address, and the block pointer formed there is indexed at element 0: NVIDIA's driver
    /// (580 on the H200) computed `OpAccessChain`'s offset into the runtime array in 32 bits, so
    /// element i + 2^30 of a 16 GiB float32 buffer was element i. Indexing the block (not a
    /// bare element pointer) keeps the block member's decorations (`Coherent`, `NonWritable`).
    pub(crate) fn buffer_element_pointer(
        &mut self,
        var: Word,
        kind: ResourceKind,
        i: Word,
        index: ScalarType,
    ) -> Res<Word> {
        let ResourceKind::Buffer {
            storage, address, ..
        } = kind
        else {
            return Err(unsupported(
                self.func.span,
                "internal error: an element pointer into something other than a buffer",
            ));
        };
        let ptr_ty = self.cx.pointer_type(kind.buffer_class(), storage);
        let zero = self.cx.const_u32(0);
        let span = self.func.span;
        let Some(a) = address else {
            // Drivers compute `OpAccessChain`'s offset in 32 bits (lavapipe truncates a
            // 64-bit index; NVIDIA's driver, above, multiplies in 32 bits), so element
            // 2^32 + 1 of a small buffer was element 1. A descriptor's range is under 4 GiB:
            // a 64-bit index past 2^32 - 1 (a negative `int64` one too) is out of bounds, and
            // saturating it at 2^32 - 1 keeps it so (element 2^32 - 1 ends past any range,
            // and its 32-bit offset, 2^32 - stride, too), where robustness drops it.
            let i = if index.bits() == 64 {
                let u64_ty = self.cx.int_type(64, false);
                let u = if index.is_signed_integer() {
                    self.op(Op::Bitcast, u64_ty, &[i])?
                } else {
                    i
                };
                let most = self
                    .cx
                    .const_int(ScalarType::U64, i128::from(u32::MAX), span)?;
                let bool_ty = self.cx.bool_type();
                let past = self.op(Op::UGreaterThan, bool_ty, &[u, most])?;
                let saturated = self.op(Op::Select, u64_ty, &[past, most, u])?;
                let u32_ty = self.cx.int_type(32, false);
                self.op(Op::UConvert, u32_ty, &[saturated])?
            } else {
                i
            };
            return self.op(Op::AccessChain, ptr_ty, &[var, zero, i]);
        };
        let u64_ty = self.cx.int_type(64, false);
        let wide = match (index.bits(), index.is_signed_integer()) {
            (64, false) => i,
            (64, true) => self.op(Op::Bitcast, u64_ty, &[i])?,
            // As the bounds check widens it (bounds.rs): signed indices sign-extend.
            (_, false) => {
                let narrow = self.convert_int(i, index, ScalarType::U32, span)?;
                self.op(Op::UConvert, u64_ty, &[narrow])?
            }
            (_, true) => {
                let i64_ty = self.cx.int_type(64, true);
                let narrow = self.convert_int(i, index, ScalarType::I32, span)?;
                let s = self.op(Op::SConvert, i64_ty, &[narrow])?;
                self.op(Op::Bitcast, u64_ty, &[s])?
            }
        };
        let stride = self
            .cx
            .const_int(ScalarType::U64, i128::from(a.stride), span)?;
        let offset = self.op(Op::IMul, u64_ty, &[wide, stride])?;
        let base = self.load_push(a.pointer_member)?;
        let at = self.op(Op::IAdd, u64_ty, &[base, offset])?;
        let block = self.op(Op::ConvertUToPtr, a.pointer_type, &[at])?;
        self.op(Op::AccessChain, ptr_ty, &[block, zero, zero])
    }

    /// The `uint64` element count of an addressed buffer.
    pub(crate) fn address_length(&mut self, address: BufferAddress) -> Res<Word> {
        self.load_push(address.length_member)
    }

    /// `length()` of an addressed buffer: its count as `uint32`, saturated at `0xFFFFFFFF`
    /// (so `i < b.length()` loops never wrap; `length64()` gives the whole count).
    pub(crate) fn address_length32(&mut self, address: BufferAddress, span: Span) -> Res<Word> {
        let len = self.address_length(address)?;
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let max = self
            .cx
            .const_int(ScalarType::U64, i128::from(u32::MAX), span)?;
        let fits = self.op(Op::ULessThanEqual, bool_ty, &[len, max])?;
        let low = self.op(Op::UConvert, uint, &[len])?;
        let all = self.cx.const_u32(u32::MAX);
        self.op(Op::Select, uint, &[fits, low, all])
    }
}

/// Adds the `Aligned` memory operand (the pointee's std430 alignment) to every `OpLoad`,
/// `OpStore` and cooperative-matrix load and store through a `PhysicalStorageBuffer`
/// pointer, which SPIR-V requires of them.
pub(crate) fn align_physical_accesses(module: &mut Module) {
    // Most modules have no such pointer: tell before building the alignment maps (a few
    // thousand instructions a kernel).
    let physical_pointer = |i: &rspirv::dr::Instruction| {
        i.class.opcode == Op::TypePointer
            && matches!(
                i.operands.first(),
                Some(Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
            )
    };
    if !module.types_global_values.iter().any(physical_pointer) {
        return;
    }
    let mut align: HashMap<Word, u32> = HashMap::new();
    let mut pointer_align: HashMap<Word, u32> = HashMap::new();
    let literal = |o: Option<&Operand>| match o {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    };
    for i in &module.types_global_values {
        let Some(id) = i.result_id else { continue };
        match i.class.opcode {
            Op::TypeInt | Op::TypeFloat => {
                if let Some(bits) = literal(i.operands.first()) {
                    align.insert(id, (bits / 8).max(1));
                }
            }
            Op::TypeVector => {
                let comp = match i.operands.first() {
                    Some(Operand::IdRef(c)) => align.get(c).copied(),
                    _ => None,
                };
                if let (Some(c), Some(n)) = (comp, literal(i.operands.get(1))) {
                    // std430: a 3-lane vector aligns like a 4-lane one.
                    align.insert(id, c * if n == 3 { 4 } else { n });
                }
            }
            // A POD element (`KernelBuffer<Particle>`): its largest member's alignment.
            Op::TypeStruct => {
                let members = i.operands.iter().map(|o| match o {
                    Operand::IdRef(m) => align.get(m).copied(),
                    _ => None,
                });
                if let Some(a) = members.collect::<Option<Vec<u32>>>() {
                    align.insert(id, a.into_iter().max().unwrap_or(4));
                }
            }
            Op::TypePointer => {
                let physical = matches!(
                    i.operands.first(),
                    Some(Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
                );
                if let (true, Some(Operand::IdRef(pointee))) = (physical, i.operands.get(1)) {
                    if let Some(&a) = align.get(pointee) {
                        pointer_align.insert(id, a);
                    }
                }
            }
            _ => {}
        }
    }
    if pointer_align.is_empty() {
        return;
    }
    for f in &mut module.functions {
        let types: HashMap<Word, Word> = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter_map(|i| Some((i.result_id?, i.result_type?)))
            .collect();
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            // Where the memory operand goes: after the pointer (and the object, the layout
            // and the stride for the cooperative-matrix forms, whose stride is always given).
            let first_memory_operand = match i.class.opcode {
                Op::Load => 1,
                Op::Store => 2,
                Op::CooperativeMatrixLoadKHR if i.operands.len() >= 3 => 3,
                Op::CooperativeMatrixStoreKHR if i.operands.len() >= 4 => 4,
                _ => continue,
            };
            let Some(Operand::IdRef(pointer)) = i.operands.first() else {
                continue;
            };
            let Some(&a) = types.get(pointer).and_then(|t| pointer_align.get(t)) else {
                continue;
            };
            match i.operands.get_mut(first_memory_operand) {
                Some(Operand::MemoryAccess(mask)) if mask.contains(MemoryAccess::ALIGNED) => {}
                Some(Operand::MemoryAccess(mask)) => {
                    // Aligned's literal comes first: Volatile (the only lower bit) has none.
                    *mask |= MemoryAccess::ALIGNED;
                    i.operands
                        .insert(first_memory_operand + 1, Operand::LiteralBit32(a));
                }
                _ => {
                    i.operands.truncate(first_memory_operand);
                    i.operands
                        .push(Operand::MemoryAccess(MemoryAccess::ALIGNED));
                    i.operands.push(Operand::LiteralBit32(a));
                }
            }
        }
    }
}
