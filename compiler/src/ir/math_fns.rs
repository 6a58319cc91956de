//! The `Math.*` and `Bits.*` function families: pure per-lane functions on scalars and
//! vectors, with the same meaning in kernels and host code; and the float bit casts.

use super::types::ScalarType;

/// `Math.*` functions. Operands and result share one numeric type unless noted; on a vector
/// type they apply per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// Square root (floats).
    Sqrt,
    /// `1 / sqrt(x)` (floats).
    Rsqrt,
    /// Round toward negative infinity (floats).
    Floor,
    /// Round toward positive infinity (floats).
    Ceil,
    /// Round toward zero (floats).
    Trunc,
    /// Round to nearest, ties to even (floats).
    Round,
    /// `x - floor(x)` (floats).
    Fract,
    /// Absolute value (signed integers wrap at min, floats clear the sign).
    Abs,
    /// -1, 0 or 1 (signed integers and floats; floats keep the sign of zero).
    Sign,
    /// Minimum of two values.
    Min,
    /// Maximum of two values.
    Max,
    /// `min(max(x, lo), hi)`.
    Clamp,
    /// `a * (1 - t) + b * t` (floats).
    Mix,
    /// `x < edge ? 0 : 1`, arguments `(edge, x)` (floats).
    Step,
    /// Hermite interpolation, arguments `(e0, e1, x)` (floats).
    Smoothstep,
    /// `a * b + c` (floats; the device may or may not fuse).
    Fma,
    /// Sine (floats, radians).
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Arc sine.
    Asin,
    /// Arc cosine.
    Acos,
    /// Arc tangent.
    Atan,
    /// Arc tangent of `y / x`, arguments `(y, x)`.
    Atan2,
    /// Hyperbolic sine.
    Sinh,
    /// Hyperbolic cosine.
    Cosh,
    /// Hyperbolic tangent.
    Tanh,
    /// `e^x`.
    Exp,
    /// `2^x`.
    Exp2,
    /// Natural logarithm.
    Log,
    /// Base-2 logarithm.
    Log2,
    /// Base-10 logarithm (host: correctly rounded as Java's `Math.log10`; device:
    /// `log2(x) * log10(2)`, see docs/language.md).
    Log10,
    /// `x^y`.
    Pow,
    /// Whether a float is NaN; result `boolean`.
    IsNan,
    /// Whether a float is infinite; result `boolean`.
    IsInf,
}

impl MathFn {
    /// Every function with its `@Intrinsic` name suffix (`math.<name>`).
    pub const ALL: [(MathFn, &'static str); 34] = [
        (MathFn::Sqrt, "sqrt"),
        (MathFn::Rsqrt, "rsqrt"),
        (MathFn::Floor, "floor"),
        (MathFn::Ceil, "ceil"),
        (MathFn::Trunc, "trunc"),
        (MathFn::Round, "round"),
        (MathFn::Fract, "fract"),
        (MathFn::Abs, "abs"),
        (MathFn::Sign, "sign"),
        (MathFn::Min, "min"),
        (MathFn::Max, "max"),
        (MathFn::Clamp, "clamp"),
        (MathFn::Mix, "mix"),
        (MathFn::Step, "step"),
        (MathFn::Smoothstep, "smoothstep"),
        (MathFn::Fma, "fma"),
        (MathFn::Sin, "sin"),
        (MathFn::Cos, "cos"),
        (MathFn::Tan, "tan"),
        (MathFn::Asin, "asin"),
        (MathFn::Acos, "acos"),
        (MathFn::Atan, "atan"),
        (MathFn::Atan2, "atan2"),
        (MathFn::Sinh, "sinh"),
        (MathFn::Cosh, "cosh"),
        (MathFn::Tanh, "tanh"),
        (MathFn::Exp, "exp"),
        (MathFn::Exp2, "exp2"),
        (MathFn::Log, "log"),
        (MathFn::Log2, "log2"),
        (MathFn::Log10, "log10"),
        (MathFn::Pow, "pow"),
        (MathFn::IsNan, "isnan"),
        (MathFn::IsInf, "isinf"),
    ];

    /// The source name (`sqrt`, `atan2`…).
    pub fn name(self) -> &'static str {
        MathFn::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .unwrap_or("?")
    }

    /// Number of operands.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Min | MathFn::Max | MathFn::Step | MathFn::Atan2 | MathFn::Pow => 2,
            MathFn::Clamp | MathFn::Mix | MathFn::Smoothstep | MathFn::Fma => 3,
            _ => 1,
        }
    }

    /// Whether GLSL.std.450 (and so a kernel) has the function for 16- and 32-bit floats
    /// only: the trigonometric, hyperbolic, exponential and logarithmic ones.
    pub fn glsl_32bit_only(self) -> bool {
        matches!(
            self,
            MathFn::Sin
                | MathFn::Cos
                | MathFn::Tan
                | MathFn::Asin
                | MathFn::Acos
                | MathFn::Atan
                | MathFn::Atan2
                | MathFn::Sinh
                | MathFn::Cosh
                | MathFn::Tanh
                | MathFn::Exp
                | MathFn::Exp2
                | MathFn::Log
                | MathFn::Log2
                | MathFn::Log10
                | MathFn::Pow
        )
    }

    /// Whether only float operands are allowed (`abs min max clamp sign` also take integers).
    pub fn float_only(self) -> bool {
        !matches!(
            self,
            MathFn::Abs | MathFn::Min | MathFn::Max | MathFn::Clamp | MathFn::Sign
        )
    }
}

/// `Bits.*` functions on 32-bit integers (per lane on vectors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitsFn {
    /// Number of set bits; result `int32`.
    Count,
    /// Bit order reversed.
    Reverse,
    /// Index of the lowest set bit, -1 for 0; result `int32`.
    FindLsb,
    /// Index of the highest set bit (for negative signed values: the highest clear bit), -1
    /// for 0 and -1; result `int32`.
    FindMsb,
    /// Rotation left by `n` modulo the width.
    RotateLeft,
    /// Rotation right by `n` modulo the width.
    RotateRight,
    /// `extract(x, offset, count)`: the field, sign-extended for signed types.
    Extract,
    /// `insert(base, bits, offset, count)`: `base` with the field replaced.
    Insert,
}

impl BitsFn {
    /// Every function with its `@Intrinsic` name suffix (`bits.<name>`).
    pub const ALL: [(BitsFn, &'static str); 8] = [
        (BitsFn::Count, "count"),
        (BitsFn::Reverse, "reverse"),
        (BitsFn::FindLsb, "findLsb"),
        (BitsFn::FindMsb, "findMsb"),
        (BitsFn::RotateLeft, "rotateLeft"),
        (BitsFn::RotateRight, "rotateRight"),
        (BitsFn::Extract, "extract"),
        (BitsFn::Insert, "insert"),
    ];

    /// The source name.
    pub fn name(self) -> &'static str {
        BitsFn::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .unwrap_or("?")
    }
}

/// Bit casts between a float and the integer of its width (`Float.floatToRawIntBits`,
/// `Float.intBitsToFloat` and their `Double`, `Float16`, `BFloat16` forms). The operand and
/// result types are the declaring method's: `float32`↔`int32`, `float64`↔`int64`,
/// `float16`↔`int16`, `bfloat16`↔`int16` (its IEEE-style encoding, the 16 high bits of a
/// float32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitCast {
    /// A float's encoding as the signed integer of its width; a NaN's bits are whatever the
    /// executing hardware holds (as Java's `floatToRawIntBits`).
    ToBits,
    /// The same with every NaN as the canonical quiet NaN (Java's `floatToIntBits`):
    /// `0x7fc00000`, `0x7ff8000000000000`, `0x7e00` (float16), `0x7fc0` (bfloat16).
    ToBitsCanonical,
    /// An integer's bits as a float of this type.
    ToFloat(ScalarType),
}

impl BitCast {
    /// The operation of an `@Intrinsic("bitcast.…")` name.
    pub fn from_name(name: &str) -> Option<BitCast> {
        Some(match name {
            "to_bits" => BitCast::ToBits,
            "to_bits_canonical" => BitCast::ToBitsCanonical,
            "to_float16" => BitCast::ToFloat(ScalarType::F16),
            "to_bfloat16" => BitCast::ToFloat(ScalarType::BF16),
            "to_float32" => BitCast::ToFloat(ScalarType::F32),
            "to_float64" => BitCast::ToFloat(ScalarType::F64),
            _ => return None,
        })
    }

    /// The canonical quiet NaN's encoding for float type `s`.
    pub fn canonical_nan(s: ScalarType) -> u64 {
        match s {
            ScalarType::F16 => 0x7e00,
            ScalarType::BF16 => 0x7fc0,
            ScalarType::F64 => 0x7ff8_0000_0000_0000,
            _ => 0x7fc0_0000,
        }
    }
}
