//! Types of the typed IR.

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
}

impl ScalarType {
    /// Every scalar type, in the order they are listed in SPEC §2.
    pub const ALL: [ScalarType; 13] = [
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
        }
    }

    /// Parses a source spelling.
    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// Width in bits (boolean counts as 32: its storage size in push constants and buffers).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I8 | ScalarType::U8 => 8,
            ScalarType::I16 | ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => 16,
            ScalarType::Bool | ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
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

    /// True for `int8`..`int64`.
    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        )
    }

    /// True for `uint8`..`uint64`.
    pub fn is_unsigned_integer(self) -> bool {
        matches!(
            self,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
        )
    }

    /// True for the floating-point types (bfloat16 included).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64
        )
    }

    /// True for every type that takes part in arithmetic (all but boolean).
    pub fn is_numeric(self) -> bool {
        self != ScalarType::Bool
    }

    /// Significand precision in bits, including the implicit bit (floats only; 0 otherwise).
    pub fn mantissa_bits(self) -> u32 {
        match self {
            ScalarType::F16 => 11,
            ScalarType::BF16 => 8,
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

/// Texel format of a storage image (SPEC §6). `R32f` is Cajeta's `Image2D` default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// One float32 channel: `VK_FORMAT_R32_SFLOAT`, SPIR-V `R32f`.
    R32f,
}

impl ImageFormat {
    /// The name used in reflection JSON and by the runtime.
    pub fn reflection_name(self) -> &'static str {
        match self {
            ImageFormat::R32f => "r32f",
        }
    }

    /// The scalar a texel channel reads as in a kernel.
    pub fn channel_type(self) -> ScalarType {
        match self {
            ImageFormat::R32f => ScalarType::F32,
        }
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
    /// `KernelBuffer<T>`: a storage buffer of scalar or vector elements.
    Buffer(Box<Type>),
    /// `Image2D`: a storage image.
    Image2D(ImageFormat),
    /// Host array `T[]`.
    Array(Box<Type>),
    /// Host `String`.
    String,
    /// Host `KernelStream`.
    Stream,
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
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) => Some(*s),
            _ => None,
        }
    }

    /// Number of lanes: 1 for scalars, N for vectors, R*C for matrices, 0 otherwise.
    pub fn lanes(&self) -> usize {
        match self {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => *n as usize,
            Type::Matrix(_, r, c) => (*r as usize) * (*c as usize),
            _ => 0,
        }
    }

    /// True for plain data passed by value: scalars, vectors and matrices.
    pub fn is_value_data(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..))
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
        matches!(self, Type::Buffer(_) | Type::Image2D(_))
    }

    /// True for types that exist only in host code.
    pub fn is_host_only(&self) -> bool {
        match self {
            Type::Array(_) | Type::String | Type::Stream => true,
            Type::Void
            | Type::Scalar(_)
            | Type::Vector(..)
            | Type::Matrix(..)
            | Type::Buffer(_)
            | Type::Image2D(_) => false,
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
            Type::Buffer(s) => write!(f, "KernelBuffer<{s}>"),
            Type::Image2D(_) => f.write_str("Image2D"),
            Type::Array(t) => write!(f, "{t}[]"),
            Type::String => f.write_str("String"),
            Type::Stream => f.write_str("KernelStream"),
        }
    }
}
