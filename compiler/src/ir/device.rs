//! Device and option queries (SPEC §8) and the cooperative-matrix operations that code behind
//! them typically uses.
//!
//! Sema keeps `Device.*` / `Option.*` symbolic as [`DeviceQuery`] intrinsics; the
//! specialization stage (`specialize/device.rs`) replaces them by constants for its target, so
//! the backends never see them.

use super::types::ScalarType;

/// `Option.*`: one per precision option of SPEC §8, read from the effective variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptionFlag {
    /// `sfp` is two fp16 per uint.
    Fp16Packed,
    /// `sfp` is native float16.
    Fp16Storage,
    /// `afp` is float16.
    Fp16Arithmetic,
    /// `sfp` is two bf16 per uint.
    Bf16Packed,
    /// `sfp` is native bfloat16.
    Bf16Storage,
    /// `sint8` is packed four per int.
    Int8Packed,
    /// `sint8` is native int8.
    Int8Storage,
    /// `aint8` is int8.
    Int8Arithmetic,
    /// `sint16` is packed two per int.
    Int16Packed,
    /// `sint16` is native int16.
    Int16Storage,
    /// fp16 push constants.
    Fp16Uniform,
    /// int8 push constants.
    Int8Uniform,
    /// `lfp` shared-memory staging chosen.
    ShaderLocalMemory,
}

impl OptionFlag {
    /// Every flag with its `@Intrinsic` suffix (`option.<name>`) and source field name.
    pub const ALL: [(OptionFlag, &'static str, &'static str); 13] = [
        (OptionFlag::Fp16Packed, "fp16_packed", "fp16Packed"),
        (OptionFlag::Fp16Storage, "fp16_storage", "fp16Storage"),
        (
            OptionFlag::Fp16Arithmetic,
            "fp16_arithmetic",
            "fp16Arithmetic",
        ),
        (OptionFlag::Bf16Packed, "bf16_packed", "bf16Packed"),
        (OptionFlag::Bf16Storage, "bf16_storage", "bf16Storage"),
        (OptionFlag::Int8Packed, "int8_packed", "int8Packed"),
        (OptionFlag::Int8Storage, "int8_storage", "int8Storage"),
        (
            OptionFlag::Int8Arithmetic,
            "int8_arithmetic",
            "int8Arithmetic",
        ),
        (OptionFlag::Int16Packed, "int16_packed", "int16Packed"),
        (OptionFlag::Int16Storage, "int16_storage", "int16Storage"),
        (OptionFlag::Fp16Uniform, "fp16_uniform", "fp16Uniform"),
        (OptionFlag::Int8Uniform, "int8_uniform", "int8Uniform"),
        (
            OptionFlag::ShaderLocalMemory,
            "shader_local_memory",
            "shaderLocalMemory",
        ),
    ];
}

/// A compile-time query about the target device or the precision options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceQuery {
    /// `Device.subgroupSize` (`uint32`). Without a profile: the `SubgroupSize` built-in.
    SubgroupSize,
    /// `Device.vendorId` (`uint32`, PCI vendor id). Without a profile: 0.
    VendorId,
    /// `Device.deviceType` (`uint32`, a `DeviceType` constant). Without a profile: `Other`.
    DeviceType,
    /// `Device.hasExtension("VK_…")`: args `[Str]`.
    HasExtension,
    /// `Device.hasFeature("shaderInt64")`: args `[Str]` (a feature the runtime knows).
    HasFeature,
    /// `Device.supports(Capability.X)`: args `[Capability constant]`.
    Supports,
    /// `Device.extensionVersion("VK_…")` (`uint32`, the extension's `specVersion`, 0 when
    /// absent): args `[Str]`. Without a profile: 0.
    ExtensionVersion,
    /// `Device.limit("maxComputeWorkGroupInvocations")` (`uint32`): args `[Str]`, a name of
    /// `cajeta_runtime::COMPUTE_LIMITS`. Without a profile: the Vulkan-guaranteed minimum.
    Limit,
    /// `Device.hasCoopMatrix("16x16x16 float16 float32")` (`boolean`): whether the device
    /// lists that cooperative-matrix shape at subgroup scope, A and B of the first type, the
    /// accumulator and result of the second: args `[Str]` in [`CoopShapeQuery::parse`]'s form.
    /// Without a profile, or with one that records no shapes: false.
    HasCoopMatrix,
    /// `Option.fp16Storage`…
    Option(OptionFlag),
}

/// The argument of `Device.hasCoopMatrix`: `"MxNxK A C"`, A (M×K) × B (K×N) + C (M×N), the
/// component types by their Cajeta names (`float16`, `bfloat16`, `int8`, `int32`…).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoopShapeQuery {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Component type of A and B.
    pub ab: String,
    /// Component type of the accumulator and the result.
    pub acc: String,
}

impl CoopShapeQuery {
    /// The component types a device can report (`VkComponentTypeKHR`).
    pub const COMPONENTS: [&'static str; 12] = [
        "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64",
    ];

    /// Parses `"16x16x16 float16 float32"`; the error says what is wrong.
    pub fn parse(text: &str) -> Result<CoopShapeQuery, String> {
        let parts: Vec<&str> = text.split_whitespace().collect();
        let [dims, ab, acc] = parts.as_slice() else {
            return Err(format!(
                "`{text}` is not a cooperative-matrix shape: expected `MxNxK A C`"
            ));
        };
        let dims: Vec<Option<u32>> = dims
            .split('x')
            .map(|d| d.parse().ok().filter(|&v| v > 0))
            .collect();
        let [Some(m), Some(n), Some(k)] = dims.as_slice() else {
            return Err(format!(
                "`{text}`: the dimensions are three positive numbers, as in `16x16x16`"
            ));
        };
        for t in [ab, acc] {
            if !Self::COMPONENTS.contains(t) {
                return Err(format!(
                    "`{text}`: `{t}` is not a cooperative-matrix component type"
                ));
            }
        }
        Ok(CoopShapeQuery {
            m: *m,
            n: *n,
            k: *k,
            ab: ab.to_string(),
            acc: acc.to_string(),
        })
    }
}

impl DeviceQuery {
    /// Maps an `@Intrinsic` name (`device.*`, `option.*`) to the query.
    pub fn from_name(name: &str) -> Option<DeviceQuery> {
        if let Some(o) = name.strip_prefix("option.") {
            return OptionFlag::ALL
                .iter()
                .find(|(_, n, _)| *n == o)
                .map(|(f, _, _)| DeviceQuery::Option(*f));
        }
        Some(match name {
            "device.subgroup_size" => DeviceQuery::SubgroupSize,
            "device.vendor_id" => DeviceQuery::VendorId,
            "device.device_type" => DeviceQuery::DeviceType,
            "device.has_extension" => DeviceQuery::HasExtension,
            "device.has_feature" => DeviceQuery::HasFeature,
            "device.supports" => DeviceQuery::Supports,
            "device.extension_version" => DeviceQuery::ExtensionVersion,
            "device.limit" => DeviceQuery::Limit,
            "device.has_coop_matrix" => DeviceQuery::HasCoopMatrix,
            _ => return None,
        })
    }
}

/// What a `Capability.X` constant (its value is the index here) needs from a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapabilityNeed {
    /// A Vulkan feature (profile `features`).
    Feature(&'static str),
    /// A subgroup operation in compute (profile `subgroup_operations`).
    Subgroup(&'static str),
    /// A device extension and a feature it brings.
    Extension(&'static str, &'static str),
    /// A device extension alone: its feature is one the runtime turns on whenever the device
    /// offers it and a profile does not record (`rayQuery`).
    ExtensionAlone(&'static str),
    /// Two extensions, each with a feature it brings (a bfloat16 cooperative-matrix path
    /// needs the matrices and the type).
    TwoExtensions((&'static str, &'static str), (&'static str, &'static str)),
    /// Nothing a Vulkan device offers (Cajeta's CUDA-only RT-core pipelines): always false.
    Never,
}

/// `Capability.*` constants in value order: the SPIR-V capability name (or, after
/// `VulkanMemoryModel`, Cajeta's name for one) and what it needs.
/// `stdlib/cajeta/device.cajeta` declares the same names with these indices (a test checks).
pub const CAPABILITIES: &[(&str, CapabilityNeed)] = &[
    ("Float16", CapabilityNeed::Feature("shaderFloat16")),
    ("Float64", CapabilityNeed::Feature("shaderFloat64")),
    ("Int8", CapabilityNeed::Feature("shaderInt8")),
    ("Int16", CapabilityNeed::Feature("shaderInt16")),
    ("Int64", CapabilityNeed::Feature("shaderInt64")),
    (
        "Int64Atomics",
        CapabilityNeed::Feature("shaderBufferInt64Atomics"),
    ),
    (
        "StorageBuffer16BitAccess",
        CapabilityNeed::Feature("storageBuffer16BitAccess"),
    ),
    (
        "StorageBuffer8BitAccess",
        CapabilityNeed::Feature("storageBuffer8BitAccess"),
    ),
    (
        "StoragePushConstant16",
        CapabilityNeed::Feature("storagePushConstant16"),
    ),
    (
        "StoragePushConstant8",
        CapabilityNeed::Feature("storagePushConstant8"),
    ),
    ("GroupNonUniform", CapabilityNeed::Subgroup("basic")),
    ("GroupNonUniformVote", CapabilityNeed::Subgroup("vote")),
    (
        "GroupNonUniformArithmetic",
        CapabilityNeed::Subgroup("arithmetic"),
    ),
    ("GroupNonUniformBallot", CapabilityNeed::Subgroup("ballot")),
    (
        "GroupNonUniformShuffle",
        CapabilityNeed::Subgroup("shuffle"),
    ),
    (
        "GroupNonUniformShuffleRelative",
        CapabilityNeed::Subgroup("shuffle_relative"),
    ),
    (
        "GroupNonUniformClustered",
        CapabilityNeed::Subgroup("clustered"),
    ),
    ("GroupNonUniformQuad", CapabilityNeed::Subgroup("quad")),
    (
        "AtomicFloat32AddEXT",
        CapabilityNeed::Feature("shaderBufferFloat32AtomicAdd"),
    ),
    (
        "DotProduct",
        CapabilityNeed::Feature("shaderIntegerDotProduct"),
    ),
    (
        "CooperativeMatrixKHR",
        CapabilityNeed::Extension("VK_KHR_cooperative_matrix", "cooperativeMatrix"),
    ),
    (
        "BFloat16TypeKHR",
        CapabilityNeed::Extension("VK_KHR_shader_bfloat16", "shaderBFloat16Type"),
    ),
    (
        "VulkanMemoryModel",
        CapabilityNeed::Feature("vulkanMemoryModel"),
    ),
    // Cajeta's names: two aliases and ray queries, which have no SPIR-V-named constant.
    (
        "AtomicInt64",
        CapabilityNeed::Feature("shaderBufferInt64Atomics"),
    ),
    (
        "CoopBf16",
        CapabilityNeed::Extension("VK_KHR_shader_bfloat16", "shaderBFloat16Type"),
    ),
    (
        "RayQuery",
        CapabilityNeed::ExtensionAlone("VK_KHR_ray_query"),
    ),
    // Cajeta's own enum: inline ray queries, RT-core (OptiX) ray queries, a launchable
    // bfloat16 × bfloat16 → float32 cooperative-matrix path.
    (
        "RayQueryNative",
        CapabilityNeed::ExtensionAlone("VK_KHR_ray_query"),
    ),
    ("RayQueryRtCore", CapabilityNeed::Never),
    (
        "CoopMatrixBf16F32Acc",
        CapabilityNeed::TwoExtensions(
            ("VK_KHR_cooperative_matrix", "cooperativeMatrix"),
            ("VK_KHR_shader_bfloat16", "shaderBFloat16Type"),
        ),
    ),
];

/// The role of a cooperative matrix (`SPV_KHR_cooperative_matrix` `MatrixUse`) at subgroup
/// scope: A is M×K, B K×N, the accumulator M×N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoopUse {
    /// Left operand (`MatrixAKHR`), M×K.
    A,
    /// Right operand (`MatrixBKHR`), K×N.
    B,
    /// Accumulator and result (`MatrixAccumulatorKHR`), M×N.
    Acc,
}

impl CoopUse {
    /// The source class name (`CoopMatrixA`…).
    pub fn class_name(self) -> &'static str {
        match self {
            CoopUse::A => "CoopMatrixA",
            CoopUse::B => "CoopMatrixB",
            CoopUse::Acc => "CoopMatrixAcc",
        }
    }

    /// The `MatrixUse` operand value of SPV_KHR_cooperative_matrix.
    pub fn spirv_use(self) -> u32 {
        match self {
            CoopUse::A => 0,
            CoopUse::B => 1,
            CoopUse::Acc => 2,
        }
    }

    /// The names of the two size arguments of the class (`M, K` for A…), for messages.
    pub fn dims_names(self) -> &'static str {
        match self {
            CoopUse::A => "M, K",
            CoopUse::B => "K, N",
            CoopUse::Acc => "M, N",
        }
    }

    /// Rows = columns of a matrix spelled without sizes (`CoopMatrixA`, `CoopMatrixAcc<float16>`).
    pub const DIM: u32 = 16;

    /// The largest row or column count a matrix type may spell (devices list 8 to 32 today).
    pub const MAX_DIM: u32 = 256;
}

/// A cooperative matrix type: its use, component type and size, at subgroup scope.
/// `CoopMatrixA` / `CoopMatrixB` are float16 (`<bfloat16>`: native bfloat16,
/// `SPV_KHR_bfloat16`; `<int8>` / `<uint8>`: 8-bit integers), `CoopMatrixAcc` float32
/// (`<float16>`, `<int32>`, `<uint32>`); without size arguments 16×16.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopType {
    /// A, B or accumulator.
    pub usage: CoopUse,
    /// The component type.
    pub component: ScalarType,
    /// Rows (M for A and the accumulator, K for B).
    pub rows: u32,
    /// Columns (K for A, N for B and the accumulator).
    pub cols: u32,
}

impl CoopType {
    /// The type a bare class name (`CoopMatrixAcc`) denotes.
    pub fn default_of(usage: CoopUse) -> CoopType {
        let component = match usage {
            CoopUse::A | CoopUse::B => ScalarType::F16,
            CoopUse::Acc => ScalarType::F32,
        };
        CoopType {
            usage,
            component,
            rows: CoopUse::DIM,
            cols: CoopUse::DIM,
        }
    }

    /// The component types a matrix of `usage` may have.
    pub fn allowed_components(usage: CoopUse) -> &'static [ScalarType] {
        match usage {
            CoopUse::A | CoopUse::B => &[
                ScalarType::F16,
                ScalarType::BF16,
                ScalarType::I8,
                ScalarType::U8,
            ],
            CoopUse::Acc => &[
                ScalarType::F32,
                ScalarType::F16,
                ScalarType::I32,
                ScalarType::U32,
            ],
        }
    }

    /// The same type with another component type (a conversion's result).
    pub fn with_component(self, component: ScalarType) -> CoopType {
        CoopType { component, ..self }
    }

    /// Whether the size is the 16×16 of a type spelled without sizes.
    pub fn is_default_size(&self) -> bool {
        self.rows == CoopUse::DIM && self.cols == CoopUse::DIM
    }
}

impl std::fmt::Display for CoopType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.usage.class_name();
        if !self.is_default_size() {
            write!(
                f,
                "{name}<{}, {}, {}>",
                self.component, self.rows, self.cols
            )
        } else if *self == CoopType::default_of(self.usage) {
            f.write_str(name)
        } else {
            write!(f, "{name}<{}>", self.component)
        }
    }
}

/// `CoopMatrix.*` operations (subgroup scope; every invocation of the subgroup must take part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoopOp {
    /// `loadA(src, offset, stride[, layout])` / `loadB` / `loadAcc`: the tile starting
    /// at element `offset` of a buffer or shared array, rows (columns when column-major)
    /// `stride` elements apart; the result type says which use.
    Load,
    /// `CoopMatrix.zeroAcc()`: an accumulator of zeros.
    ZeroAcc,
    /// `mulAdd(a, b, c)`: `a × b + c`.
    MulAdd,
    /// `scale(m, s)`: every element of the accumulator times the scalar.
    Scale,
    /// `add(x, y)`: the element-wise sum of two accumulators.
    Add,
    /// `store(dst, offset, stride, acc[, layout])`: writes the accumulator to a buffer or a
    /// shared array, row-major unless a layout says otherwise.
    Store,
    /// `convert(acc)`: the accumulator with each element converted to the result's component
    /// type (float16 ↔ float32, integer ↔ float); the size is kept.
    Convert,
    /// `splat(v)` (Cajeta's `m.splat(v)`): a matrix of the expected type with every element
    /// `v`, converted to the component type.
    Splat,
    /// `length(m)` (Cajeta's `m.elements()`): how many of the matrix's elements this
    /// invocation holds (`OpCooperativeMatrixLengthKHR`), a `uint32`.
    Length,
    /// `element(m, i)` (Cajeta's `m.get(i)`): the invocation's element `i` of them, of the
    /// component type. Which element of the matrix that is, is the device's choice.
    Element,
    /// `withElement(m, i, v)` (Cajeta's `m.set(i, v)`): `m` with the invocation's element `i`
    /// replaced by `v`, converted to the component type.
    WithElement,
}

impl CoopOp {
    /// Maps an `@Intrinsic` name (`coop.*`) to the operation.
    pub fn from_name(name: &str) -> Option<CoopOp> {
        Some(match name {
            "coop.load" => CoopOp::Load,
            "coop.zero_acc" => CoopOp::ZeroAcc,
            "coop.mul_add" => CoopOp::MulAdd,
            "coop.scale" => CoopOp::Scale,
            "coop.add" => CoopOp::Add,
            "coop.store" => CoopOp::Store,
            "coop.convert" => CoopOp::Convert,
            "coop.splat" => CoopOp::Splat,
            "coop.length" => CoopOp::Length,
            "coop.element" => CoopOp::Element,
            "coop.with_element" => CoopOp::WithElement,
            _ => return None,
        })
    }
}
