//! Types of the typed IR.

use super::{ImageFormat, TextureDim};
use std::fmt;

/// A scalar type; every width explicit (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `boolean`
    Bool,
    /// `int8`
    I8,
    /// `int16`
    I16,
    /// `int32`
    I32,
    /// `int64`
    I64,
    /// `uint8`
    U8,
    /// `uint16`
    U16,
    /// `uint32`
    U32,
    /// `uint64`
    U64,
    /// `float16`
    F16,
    /// `bfloat16` (computed in float32, stored as 16 bits)
    BF16,
    /// `float32`
    F32,
    /// `float64`
    F64,
    /// Native `bfloat16` (`SPV_KHR_bfloat16`, `OpTypeFloat 16 BFloat16KHR`). Not nameable in
    /// source: only [`crate::specialize`] produces it, for `sfp`/`lfp` in the bf16s variant.
    BF16Native,
    /// `sfp`: precision-polymorphic float storage (SPEC §8, a buffer element). Like every
    /// precision type it only exists between sema and [`crate::specialize`].
    Sfp,
    /// `afp`: precision-polymorphic float arithmetic (`float32`, or `float16` with fp16a).
    Afp,
    /// `lfp`: precision-polymorphic float in shared (local) memory.
    Lfp,
    /// `sint8`: int8 storage (packed four per word, or native int8).
    Sint8,
    /// `aint8`: int8 arithmetic (`int32`, or `int8` with int8a).
    Aint8,
    /// `sint16`: int16 storage (packed two per word, or native int16).
    Sint16,
    /// `aint16`: int16 arithmetic (`int16` where the device has `shaderInt16`, else `int32`).
    Aint16,
    /// `lint16`: int16 in shared memory.
    Lint16,
}

impl ScalarType {
    /// Every scalar type, in the order they are listed in SPEC §2.
    pub const ALL: [ScalarType; 21] = [
        ScalarType::Bool,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::BF16,
        ScalarType::Sfp,
        ScalarType::Afp,
        ScalarType::Lfp,
        ScalarType::Sint8,
        ScalarType::Aint8,
        ScalarType::Sint16,
        ScalarType::Aint16,
        ScalarType::Lint16,
    ];

    /// The precision-polymorphic types of SPEC §8, in source order.
    pub const PRECISION: [ScalarType; 8] = [
        ScalarType::Sfp,
        ScalarType::Afp,
        ScalarType::Lfp,
        ScalarType::Sint8,
        ScalarType::Aint8,
        ScalarType::Sint16,
        ScalarType::Aint16,
        ScalarType::Lint16,
    ];

    /// The Cajeta source spelling (`uint32`, `float32`…), also used in reflection JSON.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "boolean",
            ScalarType::I8 => "int8",
            ScalarType::I16 => "int16",
            ScalarType::I32 => "int32",
            ScalarType::I64 => "int64",
            ScalarType::U8 => "uint8",
            ScalarType::U16 => "uint16",
            ScalarType::U32 => "uint32",
            ScalarType::U64 => "uint64",
            ScalarType::F16 => "float16",
            ScalarType::BF16 => "bfloat16",
            ScalarType::F32 => "float32",
            ScalarType::F64 => "float64",
            ScalarType::BF16Native => "bfloat16_t",
            ScalarType::Sfp => "sfp",
            ScalarType::Afp => "afp",
            ScalarType::Lfp => "lfp",
            ScalarType::Sint8 => "sint8",
            ScalarType::Aint8 => "aint8",
            ScalarType::Sint16 => "sint16",
            ScalarType::Aint16 => "aint16",
            ScalarType::Lint16 => "lint16",
        }
    }

    /// Parses a source spelling.
    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// Width in bits (boolean counts as 32: its storage size in push constants and buffers).
    /// A precision type counts as its widest form (32), which only matters to sema's
    /// operand rules: its real width is decided by [`crate::specialize`].
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I8 | ScalarType::U8 => 8,
            ScalarType::I16
            | ScalarType::U16
            | ScalarType::F16
            | ScalarType::BF16
            | ScalarType::BF16Native => 16,
            ScalarType::Bool | ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
            ScalarType::Sfp
            | ScalarType::Afp
            | ScalarType::Lfp
            | ScalarType::Sint8
            | ScalarType::Aint8
            | ScalarType::Sint16
            | ScalarType::Aint16
            | ScalarType::Lint16 => 32,
        }
    }

    /// True for the precision-polymorphic types of SPEC §8 (`sfp` … `lint16`).
    pub fn is_precision(self) -> bool {
        Self::PRECISION.contains(&self)
    }

    /// True for the float precision family (`sfp`, `afp`, `lfp`).
    pub fn is_float_precision(self) -> bool {
        matches!(self, ScalarType::Sfp | ScalarType::Afp | ScalarType::Lfp)
    }

    /// True for the integer precision families (`sint8`, `aint8`, `sint16`, `aint16`,
    /// `lint16`).
    pub fn is_int_precision(self) -> bool {
        matches!(
            self,
            ScalarType::Sint8
                | ScalarType::Aint8
                | ScalarType::Sint16
                | ScalarType::Aint16
                | ScalarType::Lint16
        )
    }

    /// True for the precision types that describe memory (`sfp lfp sint8 sint16 lint16`):
    /// reading one yields its arithmetic type ([`ScalarType::precision_arithmetic`]).
    pub fn is_precision_storage(self) -> bool {
        matches!(
            self,
            ScalarType::Sfp
                | ScalarType::Lfp
                | ScalarType::Sint8
                | ScalarType::Sint16
                | ScalarType::Lint16
        )
    }

    /// The arithmetic type of a precision family (`sfp`/`afp`/`lfp` → `afp`, `sint8`/`aint8`
    /// → `aint8`, `sint16`/`aint16`/`lint16` → `aint16`); `None` for ordinary scalars.
    pub fn precision_arithmetic(self) -> Option<ScalarType> {
        match self {
            ScalarType::Sfp | ScalarType::Afp | ScalarType::Lfp => Some(ScalarType::Afp),
            ScalarType::Sint8 | ScalarType::Aint8 => Some(ScalarType::Aint8),
            ScalarType::Sint16 | ScalarType::Aint16 | ScalarType::Lint16 => {
                Some(ScalarType::Aint16)
            }
            _ => None,
        }
    }

    /// Size in bytes when stored in a buffer or push-constant block.
    pub fn size_bytes(self) -> u32 {
        self.bits() / 8
    }

    /// True for the signed and unsigned integer types.
    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    /// True for `int8`..`int64` (and the integer precision families, which are signed).
    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I8
                | ScalarType::I16
                | ScalarType::I32
                | ScalarType::I64
                | ScalarType::Sint8
                | ScalarType::Aint8
                | ScalarType::Sint16
                | ScalarType::Aint16
                | ScalarType::Lint16
        )
    }

    /// The type a value of this type is computed in: `float32` for `bfloat16` (which lives
    /// in float32 registers, rounded after every operation), itself otherwise.
    pub fn register_type(self) -> ScalarType {
        if self == ScalarType::BF16 {
            ScalarType::F32
        } else {
            self
        }
    }

    /// True for `uint8`..`uint64`.
    pub fn is_unsigned_integer(self) -> bool {
        matches!(
            self,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
        )
    }

    /// True for the floating-point types (bfloat16 and `sfp`/`afp`/`lfp` included).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16
                | ScalarType::BF16
                | ScalarType::BF16Native
                | ScalarType::F32
                | ScalarType::F64
                | ScalarType::Sfp
                | ScalarType::Afp
                | ScalarType::Lfp
        )
    }

    /// True for every type that takes part in arithmetic (all but boolean).
    pub fn is_numeric(self) -> bool {
        self != ScalarType::Bool
    }

    /// Significand precision in bits, including the implicit bit (floats only; 0 otherwise).
    /// `sfp`/`afp`/`lfp` count as their narrowest form (bfloat16's 8 bits for storage,
    /// float16's 11 for arithmetic).
    pub fn mantissa_bits(self) -> u32 {
        match self {
            ScalarType::F16 | ScalarType::Afp => 11,
            ScalarType::BF16 | ScalarType::BF16Native | ScalarType::Sfp | ScalarType::Lfp => 8,
            ScalarType::F32 => 24,
            ScalarType::F64 => 53,
            _ => 0,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A type in the typed IR.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// No value (`void` methods).
    Void,
    /// A scalar.
    Scalar(ScalarType),
    /// `Vector<T, N>`: N (2..=4) lanes of a scalar type.
    Vector(ScalarType, u8),
    /// `Matrix<T, R, C>`: R rows by C columns (2..=4 each) of a float type, stored
    /// column-major (SPIR-V `OpTypeMatrix` of C column vectors of R lanes).
    Matrix(ScalarType, u8, u8),
    /// Cajeta's `Quaternion<T>` (float T): `w + x·i + y·j + z·k`, held as four lanes
    /// `(w, x, y, z)`. Only the checker sees it: before the backends, every quaternion
    /// type is rewritten to `Vector<T, 4>` (`sema::value_lowering`), its
    /// operations having been spelled out in vector operations already.
    Quaternion(ScalarType),
    /// Cajeta's 16-lane byte vector `Vector<int8, 16>` / `Vector<uint8, 16>`, which Vulkan
    /// shaders cannot hold as such: the checker spells its operations out on four 32-bit
    /// words (lane 0 in the low byte of word 0) and rewrites the type to `Vector<int32, 4>`
    /// (`uint32` for `uint8` lanes) before the backends (`sema::value_lowering`).
    Bytes16(ScalarType),
    /// Cajeta's wide vector `Vector<T, 8>` / `Vector<T, 16>` (T a 16-, 32- or 64-bit number):
    /// Vulkan shaders have no 8- or 16-component vectors, so the checker holds one as 2 or 4
    /// `Vector<T, 4>` parts, each in a local of its own, and spells out its operations on
    /// the parts (`sema::wide_vector`). No expression of this type reaches the backends;
    /// the name a wide local is declared under is rewritten to `Vector<T, 4>` there, unused
    /// (`sema::value_lowering`).
    Wide(ScalarType, u8),
    /// `KernelBuffer<T>`: a storage buffer of scalar or vector elements.
    Buffer(Box<Type>),
    /// `Image2D`: a storage image.
    Image2D(ImageFormat),
    /// `Texture1D<T>`…: a sampled image whose texels read as `T` (float32, int32, uint32).
    Texture(TextureDim, ScalarType),
    /// `Sampler`: a separate sampler.
    Sampler,
    /// `AccelerationStructure`: a top-level acceleration structure a kernel traces rays
    /// against with `RayQuery` (kernel parameters only).
    AccelStruct,
    /// `RayQuery`: the state of one ray query (`SPV_KHR_ray_query`; device locals only).
    RayQuery,
    /// Host array `T[]`.
    Array(Box<Type>),
    /// Host `String`.
    String,
    /// Host `KernelStream`.
    Stream,
    /// Host `Event`: a marker in a stream (SPEC §9).
    Event,
    /// Cajeta's presentation types (`RenderGraph`, `Swapchain`) in host code: declared,
    /// passed and assigned, but always null, as cajetac runs compute headless and no
    /// value of them can be made (every construction or method call is E0024).
    Presentation(PresentationType),
    /// `Shared<T>`: a workgroup-memory array of numeric scalars or vectors (kernels only).
    Shared(Box<Type>),
    /// A value of a stdlib enum-like class (`MemoryOrder`): only its constants exist, each
    /// an [`crate::ir::Constant::Int`] of this type.
    Enum(String),
    /// A POD class: scalar and vector fields, std430 layout (kernel parameters, host values).
    Struct(std::sync::Arc<super::pod::StructDef>),
    /// `CoopMatrixA` / `CoopMatrixB` / `CoopMatrixAcc[<float16>]`: a 16×16 cooperative matrix
    /// held by a subgroup (kernel locals only).
    CoopMatrix(super::device::CoopType),
}

impl Type {
    /// Shorthand for a scalar type.
    pub const fn scalar(s: ScalarType) -> Type {
        Type::Scalar(s)
    }

    /// The scalar type, if this is a scalar.
    pub fn as_scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// A vector type.
    pub const fn vector(s: ScalarType, n: u8) -> Type {
        Type::Vector(s, n)
    }

    /// `KernelBuffer<elem>`.
    pub fn buffer(elem: Type) -> Type {
        Type::Buffer(Box::new(elem))
    }

    /// The lane type of a scalar, vector or matrix.
    pub fn elem_scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) | Type::Quaternion(s) => {
                Some(*s)
            }
            _ => None,
        }
    }

    /// `(lane type, lanes)` of a scalar (one lane) or vector; `None` for other types.
    pub fn vector_shape(&self) -> Option<(ScalarType, u8)> {
        match self {
            Type::Scalar(s) => Some((*s, 1)),
            Type::Vector(s, n) => Some((*s, *n)),
            _ => None,
        }
    }

    /// Whether the lanes of this type, or of the elements of a buffer, shared array or array
    /// of it, are of a scalar type `family` accepts.
    pub fn mentions_scalar(&self, family: fn(ScalarType) -> bool) -> bool {
        match self {
            Type::Scalar(s)
            | Type::Vector(s, _)
            | Type::Matrix(s, _, _)
            | Type::Quaternion(s)
            | Type::Bytes16(s)
            | Type::Wide(s, _) => family(*s),
            Type::Buffer(e) | Type::Shared(e) | Type::Array(e) => e.mentions_scalar(family),
            _ => false,
        }
    }

    /// Number of lanes: 1 for scalars, N for vectors, R*C for matrices, 0 otherwise.
    pub fn lanes(&self) -> usize {
        match self {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => *n as usize,
            Type::Matrix(_, r, c) => (*r as usize) * (*c as usize),
            Type::Quaternion(_) => 4,
            Type::Bytes16(_) => 16,
            Type::Wide(_, n) => *n as usize,
            _ => 0,
        }
    }

    /// True for plain data passed by value: scalars, vectors, matrices and quaternions.
    pub fn is_value_data(&self) -> bool {
        matches!(
            self,
            Type::Scalar(_)
                | Type::Vector(..)
                | Type::Matrix(..)
                | Type::Quaternion(_)
                | Type::Bytes16(_)
        )
    }

    /// std430 `(size, alignment)` in bytes of a scalar or vector (booleans are 4 bytes):
    /// a 2-lane vector aligns to twice its lane size, 3 and 4 lanes to four times it; a
    /// matrix is an array of column vectors.
    pub fn std430_layout(&self) -> Option<(u32, u32)> {
        match self {
            Type::Scalar(s) => Some((s.size_bytes(), s.size_bytes())),
            Type::Vector(s, n) => {
                let lane = s.size_bytes();
                let align = if *n == 2 { 2 * lane } else { 4 * lane };
                Some((lane * u32::from(*n), align))
            }
            Type::Matrix(s, r, c) => {
                let (_, col_align) = Type::Vector(*s, *r).std430_layout()?;
                Some((col_align * u32::from(*c), col_align))
            }
            Type::Quaternion(s) => Type::Vector(*s, 4).std430_layout(),
            Type::Bytes16(_) => Type::Vector(ScalarType::U32, 4).std430_layout(),
            Type::Struct(d) => Some(d.layout()),
            _ => None,
        }
    }

    /// The std430 array stride of this element type (size rounded up to the alignment:
    /// `Vector<float32,3>` → 16).
    pub fn std430_stride(&self) -> Option<u32> {
        let (size, align) = self.std430_layout()?;
        Some(size.div_ceil(align) * align)
    }

    /// True for descriptor-bound kernel resources (buffers and images).
    pub fn is_resource(&self) -> bool {
        matches!(
            self,
            Type::Buffer(_)
                | Type::Image2D(_)
                | Type::Texture(..)
                | Type::Sampler
                | Type::AccelStruct
        )
    }

    /// The buffer type of a buffer array `KernelBuffer<T>[]` (a kernel parameter bound to an
    /// array of storage-buffer descriptors, or the host array of buffers bound to one).
    pub fn buffer_array_elem(&self) -> Option<&Type> {
        match self {
            Type::Array(e) if matches!(**e, Type::Buffer(_)) => Some(e),
            _ => None,
        }
    }

    /// True for `KernelBuffer<T>[]`.
    pub fn is_buffer_array(&self) -> bool {
        self.buffer_array_elem().is_some()
    }

    /// True for types that exist only in host code (a buffer array is also a kernel parameter).
    pub fn is_host_only(&self) -> bool {
        match self {
            Type::Array(e) => !matches!(**e, Type::Buffer(_)),
            Type::String | Type::Stream | Type::Event | Type::Presentation(_) => true,
            Type::Void
            | Type::Scalar(_)
            | Type::Vector(..)
            | Type::Matrix(..)
            | Type::Quaternion(_)
            | Type::Bytes16(_)
            | Type::Wide(..)
            | Type::Buffer(_)
            | Type::Image2D(_)
            | Type::Texture(..)
            | Type::Sampler
            | Type::AccelStruct
            | Type::RayQuery
            | Type::Shared(_)
            | Type::Enum(_)
            | Type::Struct(_)
            | Type::CoopMatrix(_) => false,
        }
    }
}

/// One of Cajeta's presentation types ([`Type::Presentation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PresentationType {
    /// `RenderGraph` (`cajeta.xpu`): passes drawn into a window's frames.
    RenderGraph,
    /// `Swapchain` (`cajeta.gfx`): the images a window presents.
    Swapchain,
}

impl PresentationType {
    /// The type named `name`, if it is one of these.
    pub fn from_class_name(name: &str) -> Option<PresentationType> {
        match name {
            "RenderGraph" => Some(PresentationType::RenderGraph),
            "Swapchain" => Some(PresentationType::Swapchain),
            _ => None,
        }
    }

    /// The class name, as written.
    pub fn class_name(self) -> &'static str {
        match self {
            PresentationType::RenderGraph => "RenderGraph",
            PresentationType::Swapchain => "Swapchain",
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Vector(s, n) => write!(f, "Vector<{s},{n}>"),
            Type::Matrix(s, r, c) => write!(f, "Matrix<{s},{r},{c}>"),
            Type::Quaternion(s) => write!(f, "Quaternion<{s}>"),
            Type::Bytes16(s) => write!(f, "Vector<{s},16>"),
            Type::Wide(s, n) => write!(f, "Vector<{s},{n}>"),
            Type::Buffer(s) => write!(f, "KernelBuffer<{s}>"),
            Type::Image2D(ImageFormat::R32f) => f.write_str("Image2D"),
            Type::Image2D(format) => write!(f, "Image2D<{}>", format.source_name()),
            Type::Texture(dim, s) => write!(f, "{}<{s}>", dim.class_name()),
            Type::Sampler => f.write_str("Sampler"),
            Type::AccelStruct => f.write_str("AccelerationStructure"),
            Type::RayQuery => f.write_str("RayQuery"),
            Type::Array(t) => write!(f, "{t}[]"),
            Type::String => f.write_str("String"),
            Type::Stream => f.write_str("KernelStream"),
            Type::Event => f.write_str("Event"),
            Type::Presentation(p) => f.write_str(p.class_name()),
            Type::Shared(s) => write!(f, "Shared<{s}>"),
            Type::Struct(d) => f.write_str(&d.name),
            Type::Enum(name) => f.write_str(name),
            Type::CoopMatrix(t) => write!(f, "{t}"),
        }
    }
}
