//! The reflection document that accompanies every compiled kernel module (SPEC §7).
//!
//! The compiler writes it; the runtime reads it to build descriptor set layouts, the push
//! constant range, specialization data and to check launch arguments. No layout is computed
//! twice: the runtime never re-derives offsets from the kernel signature.

use serde::{Deserialize, Serialize};

/// Everything the runtime needs to know about one kernel module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    /// Entry point name; equals the kernel's method name.
    pub entry_point: String,
    /// SPIR-V version of the module, e.g. `"1.3"`.
    pub spirv_version: String,
    /// Target environment the module was validated for, e.g. `"vulkan1.1"`.
    pub target_env: String,
    /// SpecIds feeding the `WorkgroupSize` built-in (x, y, z); always `[0, 1, 2]`.
    pub workgroup_size_spec_ids: [u32; 3],
    /// Workgroup size used when a launch gives no `block:`.
    pub default_workgroup_size: [u32; 3],
    /// Descriptor bindings in set 0, in kernel-parameter order.
    pub bindings: Vec<Binding>,
    /// The push-constant block (scalars, vectors and PODs, std430 offsets).
    pub push_constants: PushConstantBlock,
    /// Every specialization constant the module declares (workgroup size included).
    pub spec_constants: Vec<SpecConstant>,
    /// SPIR-V capabilities the module declares, by SPIR-V name (`"Shader"`, `"Int64"`…).
    pub capabilities: Vec<String>,
    /// SPIR-V extensions the module declares (`"SPV_KHR_16bit_storage"`…).
    pub extensions: Vec<String>,
    /// Vulkan device features the module needs (`"shaderInt64"`…).
    pub vulkan_features: Vec<String>,
    /// Precision variant (SPEC §8); `"fp32"` unless precision options were given.
    pub precision_variant: String,
    /// All kernel parameters in declaration order, with where each one goes.
    pub parameters: Vec<Parameter>,
    /// Bytes of workgroup memory the kernel's fixed-size `shared T[n]` arrays take together
    /// (std430 strides); a dynamic array's bytes come from the launch. Checked against
    /// `maxComputeSharedMemorySize` by device profiles and at launch.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub static_shared_bytes: u32,
    /// Present when the kernel was compiled in checked mode (`cajetac run --checked`): the
    /// runtime binds its own violation buffer there and reports the first out-of-bounds
    /// access after the submission completes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds_check: Option<BoundsCheck>,
    /// The subgroup size the kernel must run with (`@Wave(width = N)`): the pipeline is
    /// created with `VkPipelineShaderStageRequiredSubgroupSizeCreateInfo`, and a device that
    /// cannot give it refuses the kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_subgroup_size: Option<u32>,
    /// The cooperative-matrix shapes the kernel multiplies in (one per `mulAdd` type
    /// combination), which a device must list. Empty in a reflection written before shapes
    /// were recorded: a kernel with `CooperativeMatrixKHR` then needs the 16×16×16
    /// float16 × float16 + float32 shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coop_matrix_shapes: Vec<crate::CoopMatrixShape>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// Checked mode's part of the reflection: where the violation record goes and what each
/// checked access is.
///
/// The record is [`BoundsCheck::RECORD_WORDS`] `uint32` words: `[0]` set to 1 by the first
/// violation (atomic compare-exchange), `[1]` the number of violating accesses, `[2]` the
/// site index into [`BoundsCheck::sites`], `[3..]` the values the site's kind records
/// ([`CheckSite::kind`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundsCheck {
    /// Binding number (set 0) of the violation buffer; after every parameter's binding.
    pub binding: u32,
    /// Every checked access, indexed by site id.
    pub sites: Vec<CheckSite>,
}

impl BoundsCheck {
    /// Words in the violation record (3 + 8 values).
    pub const RECORD_WORDS: usize = 11;
}

/// One checked access of a kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckSite {
    /// The buffer, shared array, image or texture parameter accessed (its source name).
    pub resource: String,
    /// What the access is, which says what the record's values `v[0..8]` (words `[3..11]`)
    /// mean; an index is `v[0]` (low word) and `v[1]` (high word), a length `v[2]`, `v[3]`:
    /// - `"buffer"`, `"shared"`, `"buffer array"`: one element; index, length.
    /// - `"vload"`, `"vstore"`: `shape[0]` elements from `shape[0] * index`; the vector
    ///   index, the buffer's length in elements.
    /// - `"lane store"`: a packed `shape[0]`-bit lane; the lane index, the length in lanes.
    /// - `"coop load"`, `"coop store"`: a cooperative-matrix tile of `shape[0]` rows ×
    ///   `shape[1]` columns, `shape[2]` 0 row-major / 1 column-major, each row (column)
    ///   spanning `shape[3]` buffer elements; the offset (`v[0]`, `v[1]`), the length, the
    ///   stride `v[4]`.
    /// - `"image"`: a storage-image texel; x, y, width, height.
    /// - `"fetch"`: a texel of level 0 of a `shape[0]`-coordinate texture (`shape[1]` 1 when
    ///   the last coordinate is an array layer); the coordinates `v[0..n]`, the level's size
    ///   `v[n..2n]`.
    /// - `"fetch lod"`: a texel of any level (`fetchLod`), shaped as `"fetch"`; coordinates
    ///   `v[0..3]`, the level `v[3]`, the level's size `v[4..7]`, the number of levels `v[7]`.
    /// - `"barrier"`: a `Barrier.workgroup()` that not every invocation of a workgroup
    ///   reached (the resource is `Barrier.workgroup()`); the invocations that arrived, the
    ///   workgroup's size, the workgroup's x and y.
    pub kind: String,
    /// Whether the index is a signed integer (a negative index is reported as such).
    #[serde(default)]
    pub signed: bool,
    /// The extent of the access (see [`Self::kind`]); empty for one element.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<u32>,
    /// `file:line:col` of the access in the kernel's source, when the compiler had the
    /// sources at hand (empty otherwise).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub position: String,
    /// The compiler's file id and byte offset of the access (what `cajetac run` renders the
    /// position from).
    #[serde(default)]
    pub file: u32,
    /// Byte offset of the access in `file`.
    #[serde(default)]
    pub offset: u32,
}

/// A kernel parameter and the place the launch puts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// Source name of the parameter.
    pub name: String,
    /// Where the argument travels.
    pub slot: ParameterSlot,
    /// For a scalar the kernel reads through `psc(p)` (SPEC §8): the SpecId that a launch
    /// asking for specialization sets to the argument's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psc_spec_id: Option<u32>,
}

/// Where one kernel argument goes at launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterSlot {
    /// Index into [`Reflection::bindings`].
    Binding(usize),
    /// Index into [`PushConstantBlock::members`].
    PushConstant(usize),
    /// A buffer the kernel addresses through its buffer device address (a kernel variant
    /// compiled for buffers past `maxStorageBufferRange`, or forced): the launch writes the
    /// buffer's 64-bit device address and its 64-bit element count into two push-constant
    /// members instead of binding a descriptor.
    Address {
        /// Index into [`PushConstantBlock::members`] of the 8-byte address.
        address_member: usize,
        /// Index into [`PushConstantBlock::members`] of the `uint64` element count.
        length_member: usize,
        /// std430 array stride of an element in bytes.
        element_stride: u32,
        /// How the kernel touches the buffer (for hazard tracking).
        access: Access,
    },
}

/// One descriptor binding in set 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    /// Source name of the kernel parameter.
    pub name: String,
    /// Descriptor set; always 0.
    pub set: u32,
    /// Binding number; parameter order among resource parameters.
    pub binding: u32,
    /// Kind of descriptor.
    pub descriptor_type: DescriptorType,
    /// For buffers: the element type name (`"float32"`, `"Vector<float32,4>"`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_type: Option<String>,
    /// For buffers: byte stride of one element in the runtime array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_stride: Option<u32>,
    /// For images and textures: the texel format (`"r32f"`, `"rgba8"`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_format: Option<String>,
    /// How the kernel uses the resource; drives hazard tracking.
    pub access: Access,
    /// Present for a buffer-array parameter (`KernelBuffer<T>[] bufs`): the binding is a
    /// runtime-sized array of storage buffers, bound from a host array of buffers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<DescriptorArray>,
}

/// SpecId of the capacity of the buffer array at binding `b`: `BUFFER_ARRAY_SPEC_BASE + b`
/// (after the workgroup size, the shared size, the user slots and the `psc` parameters).
pub const BUFFER_ARRAY_SPEC_BASE: u32 = 4096;

/// A descriptor array binding (buffer arrays). The kernel declares an array whose length is a
/// specialization constant; the runtime gives the binding a fixed capacity
/// ([`crate::BUFFER_ARRAY_CAPACITY`] or less where the device allows fewer storage buffers),
/// specializes the length to it, writes the launch's buffers at elements `0..count` and repeats
/// the first one in the rest, and pushes `count` where the kernel reads it: the kernel bounds
/// its array index by that count, so no element past the launch's buffers is ever accessed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescriptorArray {
    /// SpecId of the array's length (the capacity), [`BUFFER_ARRAY_SPEC_BASE`] + binding.
    pub capacity_spec_id: u32,
    /// Index into [`PushConstantBlock::members`] of the `uint32` the runtime sets to the number
    /// of buffers bound (`bufs.length` in the kernel).
    pub count_member: usize,
    /// Whether the kernel indexes the array with an index it cannot prove dynamically uniform
    /// (decorated `NonUniform`; needs `shaderStorageBufferArrayNonUniformIndexing`).
    #[serde(default)]
    pub non_uniform: bool,
}

/// Descriptor kinds a kernel can bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DescriptorType {
    /// `KernelBuffer<T>`: `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    StorageBuffer,
    /// `Image2D`: `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`.
    StorageImage,
    /// `Texture*`: `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`.
    SampledImage,
    /// `Sampler`: `VK_DESCRIPTOR_TYPE_SAMPLER`.
    Sampler,
    /// `AccelerationStructure`: `VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR`.
    AccelerationStructure,
}

/// How a kernel touches a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Only reads.
    Read,
    /// Only writes.
    Write,
    /// Reads and writes.
    ReadWrite,
}

impl Access {
    /// Whether the kernel may read the resource.
    pub fn reads(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite)
    }
    /// Whether the kernel may write the resource.
    pub fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }
}

/// The push-constant block of a kernel.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PushConstantBlock {
    /// Total size in bytes (std430, rounded up to 4).
    pub size: u32,
    /// Members in parameter order.
    pub members: Vec<PushConstantMember>,
}

/// One member of the push-constant block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PushConstantMember {
    /// Source name of the kernel parameter.
    pub name: String,
    /// Byte offset (std430).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Scalar type name: `"int32"`, `"uint32"`, `"float32"`, `"boolean"` (4 bytes, 0 or 1)…
    #[serde(rename = "type")]
    pub ty: String,
}

/// A specialization constant declared by the module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecConstant {
    /// SpecId.
    pub id: u32,
    /// Descriptive name (`"workgroup_size_x"`, `"spec_slot_0"`…).
    pub name: String,
    /// Scalar type name (`"uint32"`, `"int32"`, `"float32"`).
    #[serde(rename = "type")]
    pub ty: String,
    /// Default value as raw 32-bit pattern.
    pub default: u32,
}
