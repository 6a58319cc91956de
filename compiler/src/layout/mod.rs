//! The kernel resource interface, decided once from the IR for every kernel backend.
//!
//! A kernel's parameters become descriptor bindings (buffers, images, textures, samplers:
//! set 0, bindings in parameter order) or members of one push-constant block (scalars,
//! vectors, matrices and POD structs, std430 offsets in parameter order); the workgroup
//! size, the dynamic shared-memory size, `Spec` slots and `psc` parameters are
//! specialization constants with fixed ids. Like Slang's layout pass, this is computed from
//! the checked program rather than while a backend declares its globals, so the rspirv and
//! the LLVM backends (and their reflection documents) cannot disagree about it.
//!
//! A buffer array (`KernelBuffer<T>[]`) takes one binding holding an array of storage-buffer
//! descriptors whose length is the spec constant [`BUFFER_ARRAY_SPEC_BASE`] + binding (the
//! runtime sets it to the binding's capacity), plus a hidden `uint32` push-constant member
//! `name.length` (the number of buffers bound) placed after every parameter's member. An
//! `AccelerationStructure` parameter takes one binding of an acceleration structure.
//!
//! The *address variant* of a kernel ([`kernel_layout_for`] with `by_address`) takes no
//! descriptor for its `KernelBuffer<T>` parameters: each becomes two 8-byte push-constant
//! members in parameter order, `b.address` (its buffer device address, a
//! `PhysicalStorageBuffer` pointer in SPIR-V) and `b.length` (its `uint64` element count), so
//! the kernel can address buffers past `maxStorageBufferRange` (docs/runtime.md, "Buffers
//! past the descriptor range"). Buffer arrays stay descriptors.

mod interface;

pub use interface::{access_from_usage, reflect_interface, ReflectedInterface};

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Function, ImageFormat, ScalarType, TextureDim, Type};

/// Workgroup size used when a launch gives no `block:` (SPEC §7).
pub const DEFAULT_WORKGROUP_SIZE: [u32; 3] = [64, 1, 1];
/// Specialization-constant ids of the workgroup size's x, y and z.
pub const WORKGROUP_SIZE_SPEC_IDS: [u32; 3] = [0, 1, 2];
/// Specialization-constant id of the dynamic shared array's byte size.
pub const SHARED_SPEC_ID: u32 = 3;
/// Specialization-constant id of `Spec` slot 0 (slot `n` has `USER_SPEC_BASE + n`).
pub const USER_SPEC_BASE: u32 = 4;
/// Specialization-constant id of a `psc(p)` parameter with index 0 (parameter `i` has
/// `PSC_SPEC_BASE + i`).
pub const PSC_SPEC_BASE: u32 = USER_SPEC_BASE + 1024;
/// The one descriptor set every binding lives in.
pub const DESCRIPTOR_SET: u32 = 0;
/// Specialization-constant id of the capacity of the buffer array at binding 0 (binding `b`
/// has `BUFFER_ARRAY_SPEC_BASE + b`).
pub use cajeta_runtime::reflection::BUFFER_ARRAY_SPEC_BASE;

/// What a descriptor-bound parameter is bound as.
#[derive(Debug, Clone, PartialEq)]
pub enum BindingKind {
    /// A storage buffer of `elem` (a scalar or vector type), `stride` bytes apart.
    Buffer {
        /// Element type.
        elem: Type,
        /// Lane scalar type of the element (`uint32` for a POD element, whose fields are
        /// reached through `elem`).
        lane: ScalarType,
        /// 1 for scalar and POD elements, N for `Vector<lane, N>` elements.
        lanes: u8,
        /// std430 array stride in bytes.
        stride: u32,
    },
    /// An array of storage buffers of `elem` (`KernelBuffer<T>[]`), each laid out like
    /// [`BindingKind::Buffer`]'s; its length is the spec constant `capacity_spec_id`.
    BufferArray {
        /// Element type.
        elem: Type,
        /// Lane scalar type of the element.
        lane: ScalarType,
        /// 1 for scalar elements, N for `Vector<lane, N>` elements.
        lanes: u8,
        /// std430 array stride in bytes.
        stride: u32,
        /// Specialization-constant id of the array's length ([`BUFFER_ARRAY_SPEC_BASE`] +
        /// binding).
        capacity_spec_id: u32,
        /// Index into [`KernelLayout::push`] of the hidden `uint32` number of buffers bound.
        count_member: usize,
    },
    /// A storage image of the given texel format.
    StorageImage(ImageFormat),
    /// A sampled texture of the given shape whose texels read as the given scalar type.
    Texture(TextureDim, ScalarType),
    /// A separate sampler.
    Sampler,
    /// A top-level acceleration structure (`AccelerationStructure`, ray queries).
    AccelStruct,
}

/// One descriptor binding.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingSlot {
    /// Parameter name.
    pub name: String,
    /// Index of the kernel parameter.
    pub param: usize,
    /// Binding number in [`DESCRIPTOR_SET`].
    pub binding: u32,
    /// What it is bound as.
    pub kind: BindingKind,
}

/// One member of the push-constant block.
#[derive(Debug, Clone, PartialEq)]
pub struct PushSlot {
    /// Parameter name (`bufs.length` for a buffer array's hidden count).
    pub name: String,
    /// Index of the kernel parameter (for a hidden count, the buffer array's).
    pub param: usize,
    /// Whether this is a buffer array's hidden count or an addressed buffer's address or
    /// length rather than a parameter's value.
    pub hidden: bool,
    /// IR type (scalar, vector, matrix or POD struct).
    pub ty: Type,
    /// std430 byte offset in the block.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// A buffer parameter addressed through its buffer device address (address variant).
#[derive(Debug, Clone, PartialEq)]
pub struct AddressSlot {
    /// Parameter name.
    pub name: String,
    /// Index of the kernel parameter.
    pub param: usize,
    /// Element type.
    pub elem: Type,
    /// Lane scalar type of the element (`uint32` for a POD element).
    pub lane: ScalarType,
    /// 1 for scalar elements, N for `Vector<lane, N>` elements.
    pub lanes: u8,
    /// std430 array stride in bytes.
    pub stride: u32,
    /// Index into [`KernelLayout::push`] of the 8-byte device address.
    pub address_member: usize,
    /// Index into [`KernelLayout::push`] of the `uint64` element count.
    pub length_member: usize,
}

/// Where one kernel parameter lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamSlot {
    /// Index into [`KernelLayout::bindings`] (equal to the binding number).
    Binding(usize),
    /// Index into [`KernelLayout::push`].
    Push(usize),
    /// Index into [`KernelLayout::addressed`].
    Address(usize),
}

/// The resource interface of one kernel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelLayout {
    /// Descriptor bindings in parameter (= binding) order.
    pub bindings: Vec<BindingSlot>,
    /// Push-constant members in parameter order, then the buffer arrays' hidden counts in
    /// binding order.
    pub push: Vec<PushSlot>,
    /// Size of the push-constant block: the end of the last member rounded up to 4.
    pub push_size: u32,
    /// Per kernel parameter, where it lives.
    pub params: Vec<ParamSlot>,
    /// The buffer parameters addressed through device addresses (address variant only), in
    /// parameter order.
    pub addressed: Vec<AddressSlot>,
}

impl KernelLayout {
    /// The binding of checked mode's violation report: the one after the parameters'.
    pub fn bounds_binding(&self) -> u32 {
        self.bindings.len() as u32
    }
}

/// Computes the interface of `kernel`; a parameter type no kernel can take is a diagnostic.
pub fn kernel_layout(kernel: &Function) -> Result<KernelLayout, Diagnostic> {
    kernel_layout_for(kernel, false)
}

/// Whether `kernel` has a parameter its address variant addresses (a `KernelBuffer<T>`).
pub fn has_addressable_buffer(kernel: &Function) -> bool {
    kernel
        .params()
        .iter()
        .any(|p| matches!(p.ty, Type::Buffer(_)))
}

/// [`kernel_layout`], or with `by_address` the address variant's: every `KernelBuffer<T>`
/// parameter becomes an [`AddressSlot`] (two 8-byte push-constant members) instead of a
/// binding.
pub fn kernel_layout_for(kernel: &Function, by_address: bool) -> Result<KernelLayout, Diagnostic> {
    let mut layout = KernelLayout::default();
    let mut offset = 0u32;
    for (i, param) in kernel.params().iter().enumerate() {
        let kind = match &param.ty {
            ty @ (Type::Scalar(_)
            | Type::Vector(..)
            | Type::Matrix(..)
            | Type::Quaternion(_)
            | Type::Bytes16(_)
            | Type::Struct(_)) => {
                let (size, align) = ty
                    .std430_layout()
                    .ok_or_else(|| unsupported(param.span, "internal error: no layout"))?;
                offset = offset.div_ceil(align) * align;
                layout.push.push(PushSlot {
                    name: param.name.clone(),
                    param: i,
                    ty: ty.clone(),
                    offset,
                    size,
                    hidden: false,
                });
                offset += size;
                layout.params.push(ParamSlot::Push(layout.push.len() - 1));
                continue;
            }
            Type::Buffer(elem) => {
                let stride = elem.std430_stride().ok_or_else(|| {
                    unsupported(param.span, format!("KernelBuffer<{elem}> has no layout"))
                })?;
                let (Some(lane), lanes) = (buffer_lane(elem), elem.lanes() as u8) else {
                    return Err(unsupported(param.span, format!("KernelBuffer<{elem}>")));
                };
                if by_address {
                    let mut member = |suffix: &str| {
                        offset = offset.div_ceil(8) * 8;
                        layout.push.push(PushSlot {
                            name: format!("{}.{suffix}", param.name),
                            param: i,
                            ty: Type::Scalar(ScalarType::U64),
                            offset,
                            size: 8,
                            hidden: true,
                        });
                        offset += 8;
                        layout.push.len() - 1
                    };
                    let address_member = member("address");
                    let length_member = member("length");
                    layout
                        .params
                        .push(ParamSlot::Address(layout.addressed.len()));
                    layout.addressed.push(AddressSlot {
                        name: param.name.clone(),
                        param: i,
                        elem: (**elem).clone(),
                        lane,
                        lanes,
                        stride,
                        address_member,
                        length_member,
                    });
                    continue;
                }
                BindingKind::Buffer {
                    elem: (**elem).clone(),
                    lane,
                    lanes,
                    stride,
                }
            }
            ty @ Type::Array(_) if ty.is_buffer_array() => {
                let Some(Type::Buffer(elem)) = ty.buffer_array_elem() else {
                    return Err(unsupported(
                        param.span,
                        "internal error: not a buffer array",
                    ));
                };
                let stride = elem.std430_stride().ok_or_else(|| {
                    unsupported(param.span, format!("KernelBuffer<{elem}> has no layout"))
                })?;
                let (Some(lane), lanes) = (elem.elem_scalar(), elem.lanes() as u8) else {
                    return Err(unsupported(
                        param.span,
                        format!("`KernelBuffer<{elem}>[]`: buffer arrays hold buffers of scalars and vectors"),
                    ));
                };
                BindingKind::BufferArray {
                    elem: (**elem).clone(),
                    lane,
                    lanes,
                    stride,
                    capacity_spec_id: BUFFER_ARRAY_SPEC_BASE + layout.bindings.len() as u32,
                    // Set by `buffer_array_counts` once every parameter has its member.
                    count_member: usize::MAX,
                }
            }
            Type::Image2D(format) => BindingKind::StorageImage(*format),
            Type::Texture(dim, texel) => BindingKind::Texture(*dim, *texel),
            Type::Sampler => BindingKind::Sampler,
            Type::AccelStruct => BindingKind::AccelStruct,
            Type::Void => {
                return Err(Diagnostic::error(
                    Code::KernelSignature,
                    param.span,
                    "a kernel parameter cannot be void",
                ))
            }
            ty @ (Type::Array(_)
            | Type::String
            | Type::Stream
            | Type::Event
            | Type::Presentation(_)) => {
                return Err(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    param.span,
                    format!("`{ty}` exists only in host code and cannot be used in a kernel"),
                ))
            }
            ty @ (Type::Shared(_)
            | Type::Enum(_)
            | Type::CoopMatrix(_)
            | Type::RayQuery
            | Type::Wide(..)) => {
                return Err(unsupported(
                    param.span,
                    format!("a kernel parameter of type `{ty}`"),
                ))
            }
        };
        layout
            .params
            .push(ParamSlot::Binding(layout.bindings.len()));
        layout.bindings.push(BindingSlot {
            name: param.name.clone(),
            param: i,
            binding: layout.bindings.len() as u32,
            kind,
        });
    }
    buffer_array_counts(&mut layout, &mut offset);
    layout.push_size = offset.div_ceil(4) * 4;
    Ok(layout)
}

/// Appends the hidden `uint32` count member of every buffer array after the parameters'
/// members, advancing the block's end `offset`.
fn buffer_array_counts(layout: &mut KernelLayout, offset: &mut u32) {
    for slot in &mut layout.bindings {
        let BindingKind::BufferArray { count_member, .. } = &mut slot.kind else {
            continue;
        };
        *offset = offset.div_ceil(4) * 4;
        *count_member = layout.push.len();
        layout.push.push(PushSlot {
            name: format!("{}.length", slot.name),
            param: slot.param,
            ty: Type::Scalar(ScalarType::U32),
            offset: *offset,
            size: 4,
            hidden: true,
        });
        *offset += 4;
    }
}

fn unsupported(span: crate::diagnostics::Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Code::UnsupportedFeature, span, message)
}

/// The lane type a buffer binding records for its element `elem`: its scalar, or `uint32`
/// for a POD element (a structured buffer, read field by field).
fn buffer_lane(elem: &Type) -> Option<ScalarType> {
    match elem {
        Type::Struct(_) => Some(ScalarType::U32),
        other => other.elem_scalar(),
    }
}
