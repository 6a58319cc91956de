//! Intrinsic operations. Each is declared once in `stdlib/` as a Cajeta method carrying
//! `@Intrinsic("name")`; the name maps to one variant here, and each backend has one
//! lowering function per variant.

use super::types::{ImageFormat, ScalarType, TextureDim};

/// A grid axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// x
    X,
    /// y
    Y,
    /// z
    Z,
}

impl Axis {
    /// 0, 1 or 2.
    pub fn index(self) -> u32 {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

/// `Math.*` functions. Operands and result share one numeric type unless noted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// Square root (floats).
    Sqrt,
    /// Round toward negative infinity (floats).
    Floor,
    /// Absolute value (signed integers wrap at min, floats clear the sign).
    Abs,
    /// Minimum of two values.
    Min,
    /// Maximum of two values.
    Max,
}

/// Methods of `Vector<T, N>` (declared in `stdlib/cajeta/vector.cajeta`). The receiver is
/// `args[0]`. They work in host code too, with the same results (the float ones that take a
/// square root within the bound stated in docs/language.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VecFn {
    /// `mask.all()`: every lane of a boolean vector is true.
    All,
    /// `mask.any()`: some lane of a boolean vector is true.
    Any,
    /// `mask.select(a, b)`: lane i is `a[i]` where `mask[i]`, else `b[i]`.
    Select,
    /// `a.dot(b)`: `((a0*b0 + a1*b1) + a2*b2) + a3*b3`, rounded at each step (floats).
    Dot,
    /// `v.length()`: `sqrt(v.dot(v))`.
    Length,
    /// `v.normalize()`: `v / v.length()`, lane by lane.
    Normalize,
    /// `a.cross(b)` of 3-lane float vectors.
    Cross,
    /// `a.distance(b)`: `(a - b).length()`.
    Distance,
    /// `a.min(b)`: lane-wise `Math.min` (b may be a scalar, broadcast).
    Min,
    /// `a.max(b)`: lane-wise `Math.max`.
    Max,
    /// `v.clamp(lo, hi)`: lane-wise `min(max(v, lo), hi)`.
    Clamp,
    /// `a.lerp(b, t)`: `a + (b - a) * t`, rounded at each step (floats; t may be a scalar).
    Lerp,
}

/// Device-side intrinsics (usable in kernels and `@Device` helpers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// `KernelThread.x()`..: `LocalInvocationId`.
    LocalId(Axis),
    /// `KernelThread.globalIdX()`..: `GlobalInvocationId`.
    GlobalId(Axis),
    /// `KernelThread.globalSizeX()`..: `NumWorkgroups * WorkgroupSize`.
    GlobalSize(Axis),
    /// `Workgroup.x()`..: `WorkgroupId`.
    WorkgroupId(Axis),
    /// `Workgroup.dimX()`..: the block size (`WorkgroupSize`).
    WorkgroupSize(Axis),
    /// `Workgroup.countX()`..: `NumWorkgroups`.
    WorkgroupCount(Axis),
    /// `img.store(x, y, v)`: one `OpImageWrite`.
    ImageStore,
    /// `img.load(x, y)`: one `OpImageRead`, lane 0.
    ImageLoad,
    /// `img.imageWidth()`.
    ImageWidth,
    /// `img.imageHeight()`.
    ImageHeight,
    /// `buf.length()`: the runtime array length.
    BufferLength,
    /// `tex.sample(s, coords…)`: filtered, normalized coordinates, explicit LOD 0.
    TextureSample,
    /// `tex.sampleLod(s, coords…, lod)`.
    TextureSampleLod,
    /// `tex.fetch(coords…)`: one texel of level 0 (`OpImageFetch`).
    TextureFetch,
    /// `tex.fetchLod(coords…, lod)`.
    TextureFetchLod,
    /// `tex.textureWidth()` (`OpImageQuerySizeLod` at level 0, lane 0).
    TextureWidth,
    /// `tex.textureHeight()` (lane 1).
    TextureHeight,
    /// `tex.textureDepth()` / `textureLayers()` (lane 2).
    TextureDepth,
    /// A `Math.*` function.
    Math(MathFn),
    /// A `Vector<T, N>` method.
    Vector(VecFn),
}

impl Intrinsic {
    /// Maps a stdlib `@Intrinsic("…")` name to the operation.
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        use Axis::*;
        let axis = |c: &str| match c {
            "x" => Some(X),
            "y" => Some(Y),
            "z" => Some(Z),
            _ => None,
        };
        if let Some((family, a)) = name.rsplit_once('.') {
            if let Some(a) = axis(a) {
                return match family {
                    "thread.local_id" => Some(Intrinsic::LocalId(a)),
                    "thread.global_id" => Some(Intrinsic::GlobalId(a)),
                    "thread.global_size" => Some(Intrinsic::GlobalSize(a)),
                    "workgroup.id" => Some(Intrinsic::WorkgroupId(a)),
                    "workgroup.size" => Some(Intrinsic::WorkgroupSize(a)),
                    "workgroup.count" => Some(Intrinsic::WorkgroupCount(a)),
                    _ => None,
                };
            }
        }
        Some(match name {
            "image2d.store" => Intrinsic::ImageStore,
            "image2d.load" => Intrinsic::ImageLoad,
            "image2d.width" => Intrinsic::ImageWidth,
            "image2d.height" => Intrinsic::ImageHeight,
            "buffer.length" => Intrinsic::BufferLength,
            "texture.sample" => Intrinsic::TextureSample,
            "texture.sample_lod" => Intrinsic::TextureSampleLod,
            "texture.fetch" => Intrinsic::TextureFetch,
            "texture.fetch_lod" => Intrinsic::TextureFetchLod,
            "texture.width" => Intrinsic::TextureWidth,
            "texture.height" => Intrinsic::TextureHeight,
            "texture.depth" => Intrinsic::TextureDepth,
            "math.sqrt" => Intrinsic::Math(MathFn::Sqrt),
            "math.floor" => Intrinsic::Math(MathFn::Floor),
            "math.abs" => Intrinsic::Math(MathFn::Abs),
            "math.min" => Intrinsic::Math(MathFn::Min),
            "math.max" => Intrinsic::Math(MathFn::Max),
            "vec.all" => Intrinsic::Vector(VecFn::All),
            "vec.any" => Intrinsic::Vector(VecFn::Any),
            "vec.select" => Intrinsic::Vector(VecFn::Select),
            "vec.dot" => Intrinsic::Vector(VecFn::Dot),
            "vec.length" => Intrinsic::Vector(VecFn::Length),
            "vec.normalize" => Intrinsic::Vector(VecFn::Normalize),
            "vec.cross" => Intrinsic::Vector(VecFn::Cross),
            "vec.distance" => Intrinsic::Vector(VecFn::Distance),
            "vec.min" => Intrinsic::Vector(VecFn::Min),
            "vec.max" => Intrinsic::Vector(VecFn::Max),
            "vec.clamp" => Intrinsic::Vector(VecFn::Clamp),
            "vec.lerp" => Intrinsic::Vector(VecFn::Lerp),
            _ => return None,
        })
    }
}

/// Host-only operations (SPEC §9), run by the host interpreter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostOp {
    /// `heap T[n]`: args `[n]`; result type `T[]`.
    NewArray,
    /// `[a, b, c]`: args are the elements; result type `T[]`.
    ArrayLiteral,
    /// `arr.length` / `args.length`.
    ArrayLength,
    /// `heap KernelBuffer<T>(n)`: args `[n]`.
    NewBuffer,
    /// `heap Image2D(w, h)`: args `[w, h]`.
    NewImage2D,
    /// `buf.upload(arr)`.
    BufferUpload,
    /// `buf.download(arr)`.
    BufferDownload,
    /// `buf.length()` on the host.
    BufferLength,
    /// `buf.free()`.
    BufferFree,
    /// `img.download(arr)`.
    ImageDownload,
    /// `img.imageWidth()` on the host.
    ImageWidth,
    /// `img.imageHeight()` on the host.
    ImageHeight,
    /// `KernelStream.current()`.
    StreamCurrent,
    /// `s.sync()`.
    StreamSync,
    /// `System.out.println(x)`; args `[]` or `[x]`.
    Println,
    /// `System.out.print(x)`.
    Print,
    /// `a + b` where either side is a `String`: args are the two sides, any type.
    Concat,
    /// `String.valueOf(x)` / implicit string conversion.
    ToString,
    /// `System.out.printf(fmt, args…)`: args `[fmt, args…]` (any number, any types).
    Printf,
    /// `Integer.parseInt(s)` → int32.
    ParseInt,
    /// `Float.parseFloat(s)` → float32.
    ParseFloat,
    /// `Files.readFloat32(path)` and friends: the whole file as raw little-endian elements.
    FileRead(ScalarType),
    /// `Files.writeFloat32(path, arr)` and friends: raw little-endian elements.
    FileWrite(ScalarType),
    /// `Files.readImage(path)`: PNG/JPEG decoded to float32 luminance in [0, 1], row-major.
    ReadImage,
    /// `Files.imageWidth(path)`.
    ImageFileWidth,
    /// `Files.imageHeight(path)`.
    ImageFileHeight,
    /// `img.save(path)`: PNG (8-bit, clamped to [0, 1]) or PFM (exact floats).
    ImageSave,
    /// `heap Texture2D(w, h [, TextureFormat.F [, levels]])` and the other shapes: args are
    /// the sizes of the shape, then the mip level count.
    NewTexture(TextureDim, ImageFormat),
    /// `heap Sampler(filter, address)`.
    NewSampler,
    /// `tex.upload(arr)`: every layer of level 0.
    TextureUpload,
    /// `tex.uploadLevel(level, arr)`.
    TextureUploadLevel,
    /// `tex.textureWidth()` on the host.
    TextureWidth,
    /// `tex.textureHeight()` on the host.
    TextureHeight,
    /// `tex.textureDepth()` / `textureLayers()` on the host.
    TextureDepth,
}

impl HostOp {
    /// Maps a stdlib `@Intrinsic("…")` name of a host method to the operation.
    pub fn from_name(name: &str) -> Option<HostOp> {
        Some(match name {
            "host.buffer.upload" => HostOp::BufferUpload,
            "host.buffer.download" => HostOp::BufferDownload,
            "host.buffer.length" => HostOp::BufferLength,
            "host.buffer.free" => HostOp::BufferFree,
            "host.image2d.download" => HostOp::ImageDownload,
            "host.image2d.width" => HostOp::ImageWidth,
            "host.image2d.height" => HostOp::ImageHeight,
            "host.stream.current" => HostOp::StreamCurrent,
            "host.stream.sync" => HostOp::StreamSync,
            "host.println" => HostOp::Println,
            "host.print" => HostOp::Print,
            "host.printf" => HostOp::Printf,
            "host.integer.parse" => HostOp::ParseInt,
            "host.float.parse" => HostOp::ParseFloat,
            "host.files.read_float32" => HostOp::FileRead(ScalarType::F32),
            "host.files.read_int32" => HostOp::FileRead(ScalarType::I32),
            "host.files.read_uint32" => HostOp::FileRead(ScalarType::U32),
            "host.files.write_float32" => HostOp::FileWrite(ScalarType::F32),
            "host.files.write_int32" => HostOp::FileWrite(ScalarType::I32),
            "host.files.write_uint32" => HostOp::FileWrite(ScalarType::U32),
            "host.files.read_image" => HostOp::ReadImage,
            "host.files.image_width" => HostOp::ImageFileWidth,
            "host.files.image_height" => HostOp::ImageFileHeight,
            "host.image2d.save" => HostOp::ImageSave,
            "host.texture.upload" => HostOp::TextureUpload,
            "host.texture.upload_level" => HostOp::TextureUploadLevel,
            "host.texture.width" => HostOp::TextureWidth,
            "host.texture.height" => HostOp::TextureHeight,
            "host.texture.depth" => HostOp::TextureDepth,
            _ => return None,
        })
    }
}
