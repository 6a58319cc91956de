//! Interning of SPIR-V types, pointer types and constants.
//!
//! SPIR-V forbids two declarations of the same non-aggregate type, and decorated types
//! (`ArrayStride`, `Block`) must be decorated exactly once, so every type goes through
//! [`TypeCache`]. Constants are interned too, to keep modules small and deterministic.
//! Declaring a type of an optional width records the capability it needs (`Int64`, …).

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Decoration, StorageClass, Word};

use super::{unsupported, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::{Constant, ImageFormat, ScalarType, TextureDim, Type};

/// What identifies a type in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TyKey {
    Void,
    Bool,
    Int(u32, bool),
    Float(u32),
    Bf16Native,
    Vector(Word, u32),
    Matrix(Word, u32),
    Pointer(StorageClass, Word),
    RuntimeArray(Word),
    BufferBlock(Word),
    DescriptorArray(Word, Word),
    AccelStruct,
    RayQuery,
    Image(ImageFormat),
    Texture(TextureDim, ScalarType),
    Sampler,
    SampledImage(Word),
    CoopMatrix(crate::ir::CoopType),
}

/// Interned type and constant ids of one module. The maps hash with rustc's Fx hash, not
/// std's SipHash: their keys are small ids, looked up for nearly every instruction a kernel
/// emits, and SipHash was about 5% of a many-kernel build. (Nothing iterates them, so the
/// order of the emitted module does not depend on the hash.)
#[derive(Debug, Default)]
pub(crate) struct TypeCache {
    types: HashMap<TyKey, Word>,
    /// (type id, bit pattern) → constant id; booleans use patterns 0 and 1.
    constants: HashMap<(Word, u64), Word>,
    /// (vector type id, lane constant ids) → `OpConstantComposite` id.
    composites: HashMap<(Word, Vec<Word>), Word>,
    /// POD class name → its explicitly laid out struct type (push constants, buffers).
    pub(crate) pods: HashMap<String, Word>,
    /// POD class name → the same struct without layout decorations, the type of POD values
    /// and locals (Vulkan forbids explicit layouts in `Function` storage from SPIR-V 1.4).
    pub(crate) pod_values: HashMap<String, Word>,
}

impl TypeCache {
    /// An empty cache with room for a typical kernel's types and constants, so that its maps
    /// are not grown (every entry rehashed) several times per kernel.
    pub(crate) fn for_kernel() -> TypeCache {
        TypeCache {
            types: HashMap::with_capacity_and_hasher(32, Default::default()),
            constants: HashMap::with_capacity_and_hasher(32, Default::default()),
            ..TypeCache::default()
        }
    }
}

impl Ctx<'_> {
    fn cached(&mut self, key: TyKey, make: impl FnOnce(&mut Self) -> Word) -> Word {
        if let Some(&id) = self.types.types.get(&key) {
            return id;
        }
        let id = make(self);
        self.types.types.insert(key, id);
        id
    }

    /// `OpTypeVoid`.
    pub(crate) fn void_type(&mut self) -> Word {
        self.cached(TyKey::Void, |cx| cx.b.type_void())
    }

    /// `OpTypeBool`.
    pub(crate) fn bool_type(&mut self) -> Word {
        self.cached(TyKey::Bool, |cx| cx.b.type_bool())
    }

    /// `OpTypeInt`; widths other than 32 record their capability.
    pub(crate) fn int_type(&mut self, bits: u32, signed: bool) -> Word {
        match bits {
            8 => self.features.require(Capability::Int8),
            16 => self.features.require(Capability::Int16),
            64 => self.features.require(Capability::Int64),
            _ => {}
        }
        self.cached(TyKey::Int(bits, signed), |cx| {
            cx.b.type_int(bits, u32::from(signed))
        })
    }

    /// `OpTypeFloat`; widths other than 32 record their capability.
    pub(crate) fn float_type(&mut self, bits: u32) -> Word {
        match bits {
            16 => self.features.require(Capability::Float16),
            64 => self.features.require(Capability::Float64),
            _ => {}
        }
        self.cached(TyKey::Float(bits), |cx| cx.b.type_float(bits, None))
    }

    /// Native `bfloat16` (`OpTypeFloat 16 BFloat16KHR`, SPV_KHR_bfloat16): only the bf16s
    /// precision variant produces it (SPEC §8).
    pub(crate) fn bf16_native_type(&mut self) -> Word {
        self.features.require(Capability::BFloat16TypeKHR);
        self.features.extension("SPV_KHR_bfloat16");
        self.cached(TyKey::Bf16Native, |cx| {
            cx.b.type_float(16, Some(rspirv::spirv::FPEncoding::BFloat16KHR))
        })
    }

    /// `uint32`, the type of ids, lengths and indices.
    pub(crate) fn u32_type(&mut self) -> Word {
        self.int_type(32, false)
    }

    /// `OpTypeVector`.
    pub(crate) fn vector_type(&mut self, elem: Word, n: u32) -> Word {
        self.cached(TyKey::Vector(elem, n), |cx| cx.b.type_vector(elem, n))
    }

    /// `OpTypeMatrix` of `cols` columns of type `column` (a float vector).
    pub(crate) fn matrix_type(&mut self, column: Word, cols: u32) -> Word {
        self.cached(TyKey::Matrix(column, cols), |cx| {
            cx.b.type_matrix(column, cols)
        })
    }

    /// `OpTypeCooperativeMatrixKHR` of a use, component type and size (subgroup scope).
    /// Records the capability, extension and Vulkan feature.
    pub(crate) fn coop_matrix_type(&mut self, t: crate::ir::CoopType) -> Word {
        self.features.require(Capability::CooperativeMatrixKHR);
        self.features.extension("SPV_KHR_cooperative_matrix");
        self.features.vulkan_feature("cooperativeMatrix");
        // Cooperative matrices need the Vulkan memory model (validated with the Shader
        // capability); it is core from SPIR-V 1.5.
        self.features.require(Capability::VulkanMemoryModel);
        self.features.vulkan_feature("vulkanMemoryModel");
        if self.env.spirv_version() < (1, 5) {
            self.features.extension("SPV_KHR_vulkan_memory_model");
        }
        let component = match t.component {
            crate::ir::ScalarType::BF16 => {
                self.features
                    .require(Capability::BFloat16CooperativeMatrixKHR);
                self.bf16_native_type()
            }
            s if s.is_integer() => self.int_type(s.bits(), s.is_signed_integer()),
            s => self.float_type(s.bits()),
        };
        let scope = self.const_u32(rspirv::spirv::Scope::Subgroup as u32);
        let rows = self.const_u32(t.rows);
        let cols = self.const_u32(t.cols);
        let usage = self.const_u32(t.usage.spirv_use());
        self.cached(TyKey::CoopMatrix(t), |cx| {
            cx.b.type_cooperative_matrix_khr(component, scope, rows, cols, usage)
        })
    }

    /// `OpTypePointer`. Every pointer type of a module is made here, so the cache is the
    /// deduplication: rspirv is given the new id, which skips its own search for an
    /// identical type (a comparison with every type and constant declared so far: 0.8M
    /// instructions of a 200-kernel build).
    pub(crate) fn pointer_type(&mut self, class: StorageClass, pointee: Word) -> Word {
        self.cached(TyKey::Pointer(class, pointee), |cx| {
            let id = cx.b.id();
            cx.b.type_pointer(Some(id), class, pointee)
        })
    }

    /// `OpTypeFunction` (rspirv deduplicates identical function types).
    pub(crate) fn function_type(&mut self, ret: Word, params: &[Word]) -> Word {
        self.b.type_function(ret, params.iter().copied())
    }

    /// The `Block` struct `{ T[] }` of a storage buffer whose elements are stored as `elem`
    /// with the given byte stride. Keyed by the stored type so that, e.g., `boolean` and
    /// `uint32` buffers share one decorated declaration.
    pub(crate) fn buffer_block_type(&mut self, elem: Word, stride: u32) -> Word {
        let array = self.buffer_array_type(elem, stride);
        self.cached(TyKey::BufferBlock(array), |cx| {
            let id = cx.b.type_struct([array]);
            cx.b.decorate(id, Decoration::Block, []);
            cx.b.member_decorate(id, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
            id
        })
    }

    /// The runtime array `T[]` of a buffer's elements stored as `elem`, `stride` bytes apart.
    pub(crate) fn buffer_array_type(&mut self, elem: Word, stride: u32) -> Word {
        self.cached(TyKey::RuntimeArray(elem), |cx| {
            let id = cx.b.type_runtime_array(elem);
            cx.b.decorate(id, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
            id
        })
    }

    /// `OpTypeArray` of `length` buffer blocks: the type of a buffer-array binding. Unlike an
    /// array inside a block it takes no `ArrayStride` (descriptors have no layout).
    pub(crate) fn descriptor_array_type(&mut self, block: Word, length: Word) -> Word {
        self.cached(TyKey::DescriptorArray(block, length), |cx| {
            cx.b.type_array(block, length)
        })
    }

    /// The storage-image type of a format: 2D, not depth, not arrayed, single-sampled,
    /// sampled = 2 (storage), with the real texel format (never `Unknown`, which would need
    /// `StorageImageWriteWithoutFormat`). The sampled type is the format's channel type.
    pub(crate) fn image_type(&mut self, format: ImageFormat) -> Word {
        use rspirv::spirv::ImageFormat as F;
        self.cached(TyKey::Image(format), |cx| {
            let spirv_format = match format {
                ImageFormat::R32f => F::R32f,
                ImageFormat::Rgba32f => F::Rgba32f,
                ImageFormat::Rgba16f => F::Rgba16f,
                ImageFormat::R16f => F::R16f,
                ImageFormat::Rgba8 => F::Rgba8,
                ImageFormat::R8 => F::R8,
                ImageFormat::R32ui => F::R32ui,
                ImageFormat::R32i => F::R32i,
                ImageFormat::Rgba32ui => F::Rgba32ui,
                ImageFormat::Rgba32i => F::Rgba32i,
            };
            if format.needs_extended_formats() {
                cx.features.require(Capability::StorageImageExtendedFormats);
            }
            let sampled = cx.channel_type(format.channel_type());
            cx.b.type_image(
                sampled,
                rspirv::spirv::Dim::Dim2D,
                0,
                0,
                0,
                2,
                spirv_format,
                None,
            )
        })
    }

    /// The 32-bit SPIR-V scalar of an image channel (float32, int32 or uint32).
    pub(crate) fn channel_type(&mut self, s: ScalarType) -> Word {
        match s {
            ScalarType::I32 => self.int_type(32, true),
            ScalarType::U32 => self.u32_type(),
            _ => self.float_type(32),
        }
    }

    /// The sampled-image type of a texture: sampled = 1, format `Unknown` (a sampled image
    /// reads any format of its class through the sampler; only storage images need the real
    /// format). `Texture1D` needs the `Sampled1D` capability.
    pub(crate) fn texture_type(&mut self, dim: TextureDim, texel: ScalarType) -> Word {
        use rspirv::spirv::Dim;
        self.cached(TyKey::Texture(dim, texel), |cx| {
            let (d, arrayed) = match dim {
                TextureDim::D1 => (Dim::Dim1D, 0),
                TextureDim::D2 => (Dim::Dim2D, 0),
                TextureDim::D3 => (Dim::Dim3D, 0),
                TextureDim::D2Array => (Dim::Dim2D, 1),
                TextureDim::Cube => (Dim::DimCube, 0),
            };
            if dim == TextureDim::D1 {
                cx.features.require(Capability::Sampled1D);
            }
            let sampled = cx.channel_type(texel);
            cx.b.type_image(
                sampled,
                d,
                0,
                arrayed,
                0,
                1,
                rspirv::spirv::ImageFormat::Unknown,
                None,
            )
        })
    }

    /// `OpTypeAccelerationStructureKHR`.
    pub(crate) fn accel_struct_type(&mut self) -> Word {
        self.cached(TyKey::AccelStruct, |cx| {
            cx.b.type_acceleration_structure_khr()
        })
    }

    /// `OpTypeRayQueryKHR`.
    pub(crate) fn ray_query_type(&mut self) -> Word {
        self.cached(TyKey::RayQuery, |cx| cx.b.type_ray_query_khr())
    }

    /// `OpTypeSampler`.
    pub(crate) fn sampler_type(&mut self) -> Word {
        self.cached(TyKey::Sampler, |cx| cx.b.type_sampler())
    }

    /// `OpTypeSampledImage` of an image type.
    pub(crate) fn sampled_image_type(&mut self, image: Word) -> Word {
        self.cached(TyKey::SampledImage(image), |cx| {
            cx.b.type_sampled_image(image)
        })
    }

    /// The SPIR-V type of a scalar value in registers and Function variables.
    pub(crate) fn value_type(&mut self, s: ScalarType, _span: Span) -> Res<Word> {
        Ok(match s {
            ScalarType::Bool => self.bool_type(),
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64 => {
                self.int_type(s.bits(), true)
            }
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64 => {
                self.int_type(s.bits(), false)
            }
            ScalarType::F16 | ScalarType::F32 | ScalarType::F64 => self.float_type(s.bits()),
            // SPIR-V has no bfloat16 arithmetic: values live in float32 registers, rounded to
            // bfloat16 after every operation (see `round_bf16`), and are stored as 16 bits.
            ScalarType::BF16 => self.float_type(32),
            ScalarType::BF16Native => self.bf16_native_type(),
            // Precision types are replaced by `specialize` before any backend runs.
            _ => {
                return Err(unsupported(
                    _span,
                    format!("internal error: `{s}` unspecialized"),
                ))
            }
        })
    }

    /// The SPIR-V type of a scalar stored in a buffer or the push-constant block: booleans
    /// have no defined memory layout in SPIR-V, so they are stored as `uint32` (0 or 1).
    /// `bfloat16` is stored as its 16 high float32 bits in a `uint16`.
    pub(crate) fn storage_type(&mut self, s: ScalarType, span: Span) -> Res<Word> {
        match s {
            ScalarType::Bool => Ok(self.u32_type()),
            ScalarType::BF16 => Ok(self.int_type(16, false)),
            _ => self.value_type(s, span),
        }
    }

    /// The SPIR-V type of a scalar or vector stored in a buffer or the push-constant block
    /// (vectors of booleans as vectors of `uint32`).
    pub(crate) fn storage_ir_type(&mut self, ty: &Type, span: Span) -> Res<Word> {
        match ty {
            Type::Scalar(s) => self.storage_type(*s, span),
            Type::Vector(s, n) => {
                let lane = self.storage_type(*s, span)?;
                Ok(self.vector_type(lane, u32::from(*n)))
            }
            // Matrices are stored as they are held (float only); the block member carrying
            // one gets `ColMajor` and `MatrixStride` where it is declared.
            Type::Matrix(..) => self.ir_value_type(ty, span),
            Type::Struct(d) => self.pod_block_type(d, span),
            _ => Err(unsupported(span, format!("`{ty}` cannot be stored"))),
        }
    }

    /// The SPIR-V type of an IR value type (`void`, a scalar, a vector or a matrix).
    pub(crate) fn ir_value_type(&mut self, ty: &Type, span: Span) -> Res<Word> {
        match ty {
            Type::Void => Ok(self.void_type()),
            Type::Scalar(s) => self.value_type(*s, span),
            Type::Vector(s, n) => {
                let lane = self.value_type(*s, span)?;
                Ok(self.vector_type(lane, u32::from(*n)))
            }
            Type::Quaternion(s) => self.ir_value_type(&Type::Vector(*s, 4), span),
            Type::Bytes16(s) => self.ir_value_type(&crate::sema::bytes16::words_type(*s), span),
            Type::Matrix(s, r, c) => {
                let lane = self.value_type(*s, span)?;
                let column = self.vector_type(lane, u32::from(*r));
                Ok(self.matrix_type(column, u32::from(*c)))
            }
            // Held only in a `Function` variable (never loaded or stored as a whole).
            Type::RayQuery => Ok(self.ray_query_type()),
            // The struct without layout; booleans are its `uint32` fields, as in memory.
            Type::Struct(d) => self.pod_value_type(d, span),
            Type::Buffer(_)
            | Type::Image2D(_)
            | Type::Texture(..)
            | Type::Sampler
            | Type::AccelStruct
            | Type::Shared(_)
            | Type::Enum(_)
            | Type::Wide(..) => Err(unsupported(
                span,
                format!("a `{ty}` cannot be used as a value in device code"),
            )),
            Type::CoopMatrix(t) => Ok(self.coop_matrix_type(*t)),
            Type::Array(_) | Type::String | Type::Stream | Type::Event | Type::Presentation(_) => {
                Err(host_only(span, ty))
            }
        }
    }

    /// `true` / `false`.
    pub(crate) fn const_bool(&mut self, v: bool) -> Word {
        let ty = self.bool_type();
        let key = (ty, u64::from(v));
        if let Some(&id) = self.types.constants.get(&key) {
            return id;
        }
        let id = if v {
            self.b.constant_true(ty)
        } else {
            self.b.constant_false(ty)
        };
        self.types.constants.insert(key, id);
        id
    }

    /// The bit pattern of `id` when it is a scalar constant of type `ty` made by this module.
    pub(crate) fn constant_bits(&self, ty: Word, id: Word) -> Option<u64> {
        self.types
            .constants
            .iter()
            .find(|(&(t, _), &c)| t == ty && c == id)
            .map(|(&(_, bits), _)| bits)
    }

    /// A constant of scalar type `s` from its bit pattern (integers: two's complement
    /// truncated to the width; floats: the IEEE encoding of that width).
    fn const_bits(&mut self, s: ScalarType, bits: u64, span: Span) -> Res<Word> {
        let ty = self.value_type(s, span)?;
        let width = s.bits();
        let pattern = if width == 64 {
            bits
        } else {
            bits & ((1u64 << width) - 1)
        };
        if let Some(&id) = self.types.constants.get(&(ty, pattern)) {
            return Ok(id);
        }
        let id = if width == 64 {
            self.b.constant_bit64(ty, pattern)
        } else {
            // SPIR-V: narrower signed integers are sign-extended to the literal word,
            // everything else zero-extended.
            let mut word = pattern as u32;
            if s.is_signed_integer() && width < 32 && pattern & (1 << (width - 1)) != 0 {
                word |= !0u32 << width;
            }
            self.b.constant_bit32(ty, word)
        };
        self.types.constants.insert((ty, pattern), id);
        Ok(id)
    }

    /// An integer constant of type `s` with the given value (truncated to the width).
    pub(crate) fn const_int(&mut self, s: ScalarType, value: i128, span: Span) -> Res<Word> {
        self.const_bits(s, value as u64, span)
    }

    /// A `uint32` constant.
    pub(crate) fn const_u32(&mut self, value: u32) -> Word {
        // uint32 always has a value type, so this cannot fail.
        self.const_bits(ScalarType::U32, u64::from(value), Span::default())
            .unwrap_or_default()
    }

    /// A float constant of type `s` (the value is rounded to the type's precision).
    pub(crate) fn const_float(&mut self, s: ScalarType, value: f64, span: Span) -> Res<Word> {
        let bits = match s {
            ScalarType::F16 => u64::from(f64_to_f16_bits(value)),
            ScalarType::F32 => u64::from((value as f32).to_bits()),
            // The value is already bfloat16-exact; it lives in a float32 register.
            ScalarType::BF16 => {
                return self.const_bits(ScalarType::F32, u64::from((value as f32).to_bits()), span)
            }
            ScalarType::F64 => value.to_bits(),
            _ => return Err(unsupported(span, format!("`{s}` is not a float type"))),
        };
        self.const_bits(s, bits, span)
    }

    /// An `OpConstantComposite` of type `ty` from lane constants.
    pub(crate) fn const_composite(&mut self, ty: Word, lanes: Vec<Word>) -> Word {
        let key = (ty, lanes);
        if let Some(&id) = self.types.composites.get(&key) {
            return id;
        }
        let id = self.b.constant_composite(ty, key.1.iter().copied());
        self.types.composites.insert(key, id);
        id
    }

    /// The constant of an IR [`Constant`] of type `ty`.
    pub(crate) fn ir_constant(&mut self, c: &Constant, ty: &Type, span: Span) -> Res<Word> {
        let s = ty
            .as_scalar()
            .ok_or_else(|| unsupported(span, format!("a constant of type `{ty}`")))?;
        match (c, s) {
            (Constant::Bool(v), ScalarType::Bool) => Ok(self.const_bool(*v)),
            (Constant::Int(v), s) if s.is_integer() => self.const_bits(s, *v, span),
            (Constant::Float(v), s) if s.is_float() => self.const_float(s, *v, span),
            // Sema types literals; tolerate an integer literal typed as a float.
            (Constant::Int(v), s) if s.is_float() => self.const_float(s, *v as i64 as f64, span),
            _ => Err(unsupported(
                span,
                format!("constant {c:?} does not match its type `{s}`"),
            )),
        }
    }
}

/// A `HostOnlyInDevice` error for a host type met in device code.
pub(crate) fn host_only(span: Span, ty: &Type) -> crate::diagnostics::Diagnostic {
    crate::diagnostics::Diagnostic::error(
        crate::diagnostics::Code::HostOnlyInDevice,
        span,
        format!("`{ty}` exists only in host code and cannot be used in a kernel"),
    )
}

/// Encodes a float as IEEE binary16, rounding to nearest even (values are normally already
/// representable: the IR rounds constants to their type).
pub(crate) fn f64_to_f16_bits(v: f64) -> u16 {
    let sign: u16 = if v.is_sign_negative() { 0x8000 } else { 0 };
    if v.is_nan() {
        return sign | 0x7e00;
    }
    let a = v.abs();
    if a.is_infinite() || a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a == 0.0 {
        return sign;
    }
    let mut exp = a.log2().floor() as i32;
    // log2 may be off by one next to a power of two.
    while 2f64.powi(exp) > a {
        exp -= 1;
    }
    while 2f64.powi(exp + 1) <= a {
        exp += 1;
    }
    // Round `a / 2^shift` to an integer, ties to even.
    let round = |x: f64| -> u32 {
        let f = x.floor();
        let frac = x - f;
        let f = f as u32;
        if frac > 0.5 || (frac == 0.5 && f % 2 == 1) {
            f + 1
        } else {
            f
        }
    };
    if exp < -14 {
        // Subnormal: units of 2^-24.
        return sign | round(a * 2f64.powi(24)) as u16;
    }
    // Normal: 11-bit significand; a carry into the exponent is handled by the addition.
    let sig = round(a / 2f64.powi(exp - 10));
    let bits = (((exp + 15) as u32) << 10) + (sig - 1024);
    sign | bits as u16
}
