//! Intrinsic operations. Each is declared once in `stdlib/` as a Cajeta method carrying
//! `@Intrinsic("name")`; the name maps to one variant here, and each backend has one
//! lowering function per variant.

use super::device::{CoopOp, DeviceQuery};
use super::int_precision::IntPrecisionFn;
use super::math_fns::{BitCast, BitsFn, MathFn};
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

/// `Barrier.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    /// `Barrier.workgroup()`: control barrier plus workgroup-memory acquire-release.
    Workgroup,
    /// `Barrier.workgroupMemory()`: memory-only fence on workgroup memory.
    WorkgroupMemory,
    /// `Barrier.deviceMemory()`: memory-only fence on buffer and image memory.
    DeviceMemory,
}

/// Atomic read-modify-write operations on `KernelBuffer<T>` / `Shared<T>` elements; each
/// returns the element's old value. Arguments: receiver, index, value(s), optional order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomicAdd`
    Add,
    /// `atomicSub`
    Sub,
    /// `atomicMin`
    Min,
    /// `atomicMax`
    Max,
    /// `atomicAnd`
    And,
    /// `atomicOr`
    Or,
    /// `atomicXor`
    Xor,
    /// `atomicExchange`
    Exchange,
    /// `atomicCompareExchange(index, expected, desired)`
    CompareExchange,
}

/// `Wave.*` (subgroup) and `Quad.*` operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaveOp {
    /// `Wave.width()`: `SubgroupSize`.
    Width,
    /// `Wave.laneId()`: `SubgroupLocalInvocationId`.
    LaneId,
    /// `Wave.isFirstLane()`: `OpGroupNonUniformElect`.
    IsFirstLane,
    /// `Wave.shuffle(v, lane)`.
    Shuffle,
    /// `Wave.ballot(p)`: bit i set when lane i's `p` is true (lanes 0..31).
    Ballot,
    /// `Wave.any(p)`: `p` is true in some active lane (`OpGroupNonUniformAny`).
    Any,
    /// `Wave.all(p)`: `p` is true in every active lane (`OpGroupNonUniformAll`).
    All,
    /// `Wave.reduceSum(v)`.
    ReduceSum,
    /// `Wave.reduceMin(v)`.
    ReduceMin,
    /// `Wave.reduceMax(v)`.
    ReduceMax,
    /// `Wave.reduceAnd(v)` (integers).
    ReduceAnd,
    /// `Wave.reduceOr(v)` (integers).
    ReduceOr,
    /// `Wave.reduceXor(v)` (integers).
    ReduceXor,
    /// `Wave.prefixSum(v)`: exclusive scan.
    PrefixSum,
    /// `Wave.broadcastFirst(v)`.
    BroadcastFirst,
    /// `Quad.broadcast(v, lane)` (lane a constant 0..3).
    QuadBroadcast,
    /// `Quad.swapHorizontal(v)`.
    QuadSwapHorizontal,
    /// `Quad.swapVertical(v)`.
    QuadSwapVertical,
    /// `Quad.swapDiagonal(v)`.
    QuadSwapDiagonal,
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
    /// `m.transpose()` of a `Matrix<T, R, C>`: a `Matrix<T, C, R>`.
    Transpose,
}

/// The `Precision.*` functions of SPEC §8 and the packing operations `specialize` lowers the
/// precision types to. The first group exists only between sema and `specialize` (which
/// rewrites each to ordinary loads, stores and conversions); the last three reach the backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrecisionFn {
    /// `ld1(KernelBuffer<sfp> b, i)`: `b[i]` as `afp`.
    Ld1,
    /// `ld2(KernelBuffer<Vector<sfp,2>> b, i)`.
    Ld2,
    /// `ld4(KernelBuffer<Vector<sfp,4>> b, i)`.
    Ld4,
    /// `st1(b, i, afp v)`: `b[i] = v`.
    St1,
    /// `st2(b, i, Vector<afp,2> v)`.
    St2,
    /// `st4(b, i, Vector<afp,4> v)`.
    St4,
    /// `cp1(dst, i, src, j)`: `dst[i] = src[j]` without a round trip through `afp`.
    Cp1,
    /// `cp2(dst, i, src, j)` on `Vector<sfp,2>` buffers.
    Cp2,
    /// `cp4(dst, i, src, j)` on `Vector<sfp,4>` buffers.
    Cp4,
    /// `cp1to4(KernelBuffer<Vector<sfp,4>> dst, i, KernelBuffer<sfp> src, Vector<uint32,4> j)`:
    /// `dst[i] = (src[j.x], src[j.y], src[j.z], src[j.w])`.
    Cp1to4,
    /// `cp4to1(KernelBuffer<sfp> dst, Vector<uint32,4> i, KernelBuffer<Vector<sfp,4>> src, j)`:
    /// the lanes of `src[j]` to `dst[i.x]` … `dst[i.w]`.
    Cp4to1,
    /// `sm1(Shared<lfp> t, i, KernelBuffer<sfp> b, j)`: `t[i] = b[j]` (storage to local).
    Sm1,
    /// `sm4(Shared<Vector<lfp,4>> t, i, KernelBuffer<Vector<sfp,4>> b, j)`.
    Sm4,
    /// `lfp2afp(v)`: a local value as arithmetic (scalar or vector).
    Lfp2afp,
    /// `afp2lfp(v)`: an arithmetic value as local.
    Afp2lfp,
    /// GLSL.std.450 `PackHalf2x16`: `Vector<float32,2>` → `uint32` (lane 0 in the low half).
    PackHalf2x16,
    /// GLSL.std.450 `UnpackHalf2x16`: `uint32` → `Vector<float32,2>`.
    UnpackHalf2x16,
    /// Reinterprets the bits of a 32-bit scalar or vector as the (same-width) result type
    /// (`OpBitcast`).
    Bitcast,
}

impl PrecisionFn {
    /// Every function with its `@Intrinsic` name suffix (`precision.<name>`).
    pub const ALL: [(PrecisionFn, &'static str); 18] = [
        (PrecisionFn::Ld1, "ld1"),
        (PrecisionFn::Ld2, "ld2"),
        (PrecisionFn::Ld4, "ld4"),
        (PrecisionFn::St1, "st1"),
        (PrecisionFn::St2, "st2"),
        (PrecisionFn::St4, "st4"),
        (PrecisionFn::Cp1, "cp1"),
        (PrecisionFn::Cp2, "cp2"),
        (PrecisionFn::Cp4, "cp4"),
        (PrecisionFn::Cp1to4, "cp1to4"),
        (PrecisionFn::Cp4to1, "cp4to1"),
        (PrecisionFn::Sm1, "sm1"),
        (PrecisionFn::Sm4, "sm4"),
        (PrecisionFn::Lfp2afp, "lfp2afp"),
        (PrecisionFn::Afp2lfp, "afp2lfp"),
        (PrecisionFn::PackHalf2x16, "pack_half2x16"),
        (PrecisionFn::UnpackHalf2x16, "unpack_half2x16"),
        (PrecisionFn::Bitcast, "bitcast"),
    ];
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
    /// A `Bits.*` function.
    Bits(BitsFn),
    /// A bit cast between a float and the integer of its width.
    BitCast(BitCast),
    /// `IntegerDot.*`: the dot product of four 8-bit lanes (a `Vector<int8|uint8, 4>`, or
    /// packed in an `int32`/`uint32`, lane 0 in the low byte) accumulated in 32 bits; the
    /// signedness of each operand comes from its type. With `acc_sat` a third operand is
    /// added with saturation.
    IntDot {
        /// Adds the third operand, saturating at the result type's range.
        acc_sat: bool,
    },
    /// `Workgroup.reduce(op, v)`: the `GroupOp` (a constant: 0 add, 1 min, 2 max, 3 and,
    /// 4 or, 5 xor) of `v` over the whole workgroup, returned to every invocation. Args
    /// `[op, v]`.
    WorkgroupReduce,
    /// `KernelThread.clock()` / `deviceClock()`: a 64-bit counter (`SPV_KHR_shader_clock`);
    /// `true` for the device-scope clock.
    Clock {
        /// Device scope (comparable across workgroups) rather than subgroup scope.
        device: bool,
    },
    /// A `RayQuery` method (`SPV_KHR_ray_query`); args `[query, …]` (the query is a read of
    /// a `RayQuery` local, lowered to its variable).
    RayQuery(RayQueryOp),
    /// A `Barrier.*` call; args `[]` or `[order]` (a `MemoryOrder` constant).
    Barrier(BarrierKind),
    /// An atomic on a buffer or shared element.
    Atomic(AtomicOp),
    /// A subgroup or quad operation.
    Wave(WaveOp),
    /// `Spec.geti(slot, default)`: args are two constants; an `int32` spec constant.
    SpecInt,
    /// `Spec.getf(slot, default)`: a `float32` spec constant.
    SpecFloat,
    /// `shared T[n]`: args `[n]`, a constant or a kernel parameter (dynamic size); result
    /// type `Shared<T>`.
    SharedNew,
    /// `t.length()` of a `Shared<T>`.
    SharedLength,
    /// `buf.vload<N>(i)` on a scalar buffer: elements `N*i .. N*i+N-1` as a `Vector<T,N>`
    /// (N is the result type's lane count). Args `[buf, i]`.
    BufferVload,
    /// `buf.vstore(i, v)` on a scalar buffer: the lanes of `v` (a `Vector<T,N>`) to elements
    /// `N*i .. N*i+N-1`. Args `[buf, i, v]`.
    BufferVstore,
    /// An integer precision function of SPEC §8 (`Precision.packInt4x8`…), or the packed
    /// lane store the specialize stage emits.
    IntPrecision(IntPrecisionFn),
    /// A `Device.*` / `Option.*` query (SPEC §8); replaced by a constant before the backends.
    Device(DeviceQuery),
    /// A `CoopMatrix.*` cooperative-matrix operation (SPV_KHR_cooperative_matrix).
    Coop(CoopOp),
    /// A `Precision.*` function or a packing operation (SPEC §8).
    Precision(PrecisionFn),
    /// `psc(p)` (SPEC §8): args `[p]`, a read of a scalar kernel parameter; the parameter's
    /// spec constant when the launch specialized it (non-zero), else its push-constant value.
    Psc,
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
            "buffer.vload" => Intrinsic::BufferVload,
            "buffer.vstore" => Intrinsic::BufferVstore,
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
            "mat.transpose" => Intrinsic::Vector(VecFn::Transpose),
            "barrier.workgroup" => Intrinsic::Barrier(BarrierKind::Workgroup),
            "barrier.workgroup_memory" => Intrinsic::Barrier(BarrierKind::WorkgroupMemory),
            "barrier.device_memory" => Intrinsic::Barrier(BarrierKind::DeviceMemory),
            "atomic.add" => Intrinsic::Atomic(AtomicOp::Add),
            "atomic.sub" => Intrinsic::Atomic(AtomicOp::Sub),
            "atomic.min" => Intrinsic::Atomic(AtomicOp::Min),
            "atomic.max" => Intrinsic::Atomic(AtomicOp::Max),
            "atomic.and" => Intrinsic::Atomic(AtomicOp::And),
            "atomic.or" => Intrinsic::Atomic(AtomicOp::Or),
            "atomic.xor" => Intrinsic::Atomic(AtomicOp::Xor),
            "atomic.exchange" => Intrinsic::Atomic(AtomicOp::Exchange),
            "atomic.compare_exchange" => Intrinsic::Atomic(AtomicOp::CompareExchange),
            "wave.width" => Intrinsic::Wave(WaveOp::Width),
            "wave.lane_id" => Intrinsic::Wave(WaveOp::LaneId),
            "wave.is_first_lane" => Intrinsic::Wave(WaveOp::IsFirstLane),
            "wave.shuffle" => Intrinsic::Wave(WaveOp::Shuffle),
            "wave.ballot" => Intrinsic::Wave(WaveOp::Ballot),
            "wave.any" => Intrinsic::Wave(WaveOp::Any),
            "wave.all" => Intrinsic::Wave(WaveOp::All),
            "wave.reduce_sum" => Intrinsic::Wave(WaveOp::ReduceSum),
            "wave.reduce_min" => Intrinsic::Wave(WaveOp::ReduceMin),
            "wave.reduce_max" => Intrinsic::Wave(WaveOp::ReduceMax),
            "wave.reduce_and" => Intrinsic::Wave(WaveOp::ReduceAnd),
            "wave.reduce_or" => Intrinsic::Wave(WaveOp::ReduceOr),
            "wave.reduce_xor" => Intrinsic::Wave(WaveOp::ReduceXor),
            "wave.prefix_sum" => Intrinsic::Wave(WaveOp::PrefixSum),
            "wave.broadcast_first" => Intrinsic::Wave(WaveOp::BroadcastFirst),
            "quad.broadcast" => Intrinsic::Wave(WaveOp::QuadBroadcast),
            "quad.swap_horizontal" => Intrinsic::Wave(WaveOp::QuadSwapHorizontal),
            "quad.swap_vertical" => Intrinsic::Wave(WaveOp::QuadSwapVertical),
            "quad.swap_diagonal" => Intrinsic::Wave(WaveOp::QuadSwapDiagonal),
            "idot.dot" => Intrinsic::IntDot { acc_sat: false },
            "idot.dot_acc_sat" => Intrinsic::IntDot { acc_sat: true },
            "workgroup.reduce" => Intrinsic::WorkgroupReduce,
            "rayquery.create" => Intrinsic::RayQuery(RayQueryOp::Create),
            "rayquery.initialize" => Intrinsic::RayQuery(RayQueryOp::Initialize),
            "rayquery.proceed" => Intrinsic::RayQuery(RayQueryOp::Proceed),
            "rayquery.terminate" => Intrinsic::RayQuery(RayQueryOp::Terminate),
            "rayquery.confirm_intersection" => Intrinsic::RayQuery(RayQueryOp::ConfirmIntersection),
            "rayquery.candidate_type" => Intrinsic::RayQuery(RayQueryOp::Type { committed: false }),
            "rayquery.committed_type" => Intrinsic::RayQuery(RayQueryOp::Type { committed: true }),
            "rayquery.candidate_t" => Intrinsic::RayQuery(RayQueryOp::T { committed: false }),
            "rayquery.committed_t" => Intrinsic::RayQuery(RayQueryOp::T { committed: true }),
            "rayquery.committed_primitive_index" => Intrinsic::RayQuery(RayQueryOp::PrimitiveIndex),
            "rayquery.committed_instance_id" => Intrinsic::RayQuery(RayQueryOp::InstanceId),
            "rayquery.committed_barycentrics" => Intrinsic::RayQuery(RayQueryOp::Barycentrics),
            "thread.clock" => Intrinsic::Clock { device: false },
            "thread.device_clock" => Intrinsic::Clock { device: true },
            "spec.geti" => Intrinsic::SpecInt,
            "spec.getf" => Intrinsic::SpecFloat,
            "shared.new" => Intrinsic::SharedNew,
            "shared.length" => Intrinsic::SharedLength,
            _ => {
                if let Some(m) = name.strip_prefix("math.") {
                    return MathFn::ALL
                        .iter()
                        .find(|(_, n)| *n == m)
                        .map(|(f, _)| Intrinsic::Math(*f));
                }
                if let Some(p) = name.strip_prefix("int_precision.") {
                    return IntPrecisionFn::from_name(p).map(Intrinsic::IntPrecision);
                }
                if let Some(q) = DeviceQuery::from_name(name) {
                    return Some(Intrinsic::Device(q));
                }
                if let Some(c) = CoopOp::from_name(name) {
                    return Some(Intrinsic::Coop(c));
                }
                if let Some(p) = name.strip_prefix("precision.") {
                    return PrecisionFn::ALL
                        .iter()
                        .find(|(_, n)| *n == p)
                        .map(|(f, _)| Intrinsic::Precision(*f));
                }
                if let Some(c) = name.strip_prefix("bitcast.") {
                    return BitCast::from_name(c).map(Intrinsic::BitCast);
                }
                if let Some(b) = name.strip_prefix("bits.") {
                    return BitsFn::ALL
                        .iter()
                        .find(|(_, n)| *n == b)
                        .map(|(f, _)| Intrinsic::Bits(*f));
                }
                return None;
            }
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
    /// The legacy `heap Buffer<T>(device, n)`: args `[device, n]` (int64). The buffer has
    /// no device memory until [`HostOp::BufferAllocate`]; `device` must be 0.
    NewLegacyBuffer,
    /// `buf.allocate()`: device memory for a buffer that has none (legacy form, or freed).
    BufferAllocate,
    /// `heap Image2D(w, h)`: args `[w, h]`.
    NewImage2D,
    /// `buf.upload(arr)`.
    BufferUpload,
    /// `buf.download(arr)`.
    BufferDownload,
    /// `buf.uploadAsync(arr, s)`: the upload, submitted at once.
    BufferUploadAsync,
    /// `buf.downloadAsync(arr, s)`: submitted at once; lands at the next synchronization.
    BufferDownloadAsync,
    /// `buf.length()` on the host.
    BufferLength,
    /// `buf.slice(offset, count)`: a view of `count` elements from `offset`; the result has
    /// the receiver's type.
    BufferSlice,
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
    /// `KernelStream.create()`: a new stream of the run's context.
    StreamCreate,
    /// `s.destroy()`: fails while the stream has unfinished work.
    StreamDestroy,
    /// `s.waitFor(e)`: later work on `s` is ordered after `e`'s marker.
    StreamWaitEvent,
    /// `Event.create()`.
    EventCreate,
    /// `e.recordOn(s)`.
    EventRecord,
    /// `e.waitHost()`.
    EventWaitHost,
    /// `e.query()` → boolean.
    EventQuery,
    /// `Event.elapsedMs(a, b)` → float64 milliseconds.
    EventElapsed,
    /// `Device.name()` etc. in host code: a property of the run's device.
    DeviceQuery(HostDeviceQuery),
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
    /// `Long.parseLong(s)` → int64.
    ParseLong,
    /// `Double.parseDouble(s)` → float64.
    ParseDouble,
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
    /// A method of a `String` value: args `[receiver, args…]`.
    StringMethod(StringOp),
}

/// The methods of `String` (Java's, indexed by UTF-16 code units as Java's are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StringOp {
    /// `s.length()` → int32.
    Length,
    /// `s.charAt(i)` → int32 (the UTF-16 code unit).
    CharAt,
    /// `s.substring(begin)` / `s.substring(begin, end)`.
    Substring,
    /// `s.equals(t)`.
    Equals,
    /// `s.isEmpty()`.
    IsEmpty,
    /// `s.contains(t)`.
    Contains,
    /// `s.startsWith(t)`.
    StartsWith,
    /// `s.endsWith(t)`.
    EndsWith,
    /// `s.indexOf(t)` → int32, -1 when absent.
    IndexOf,
    /// `s.compareTo(t)` → int32, as Java's.
    CompareTo,
    /// `s.trim()`.
    Trim,
    /// `s.toUpperCase()`.
    ToUpperCase,
    /// `s.toLowerCase()`.
    ToLowerCase,
}

/// What a host-side `Device` query asks about the run's device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostDeviceQuery {
    /// `Device.name()`: `deviceName`.
    Name,
    /// `Device.memoryBytes()`: the size of the largest device-local heap.
    MemoryBytes,
    /// `Device.waveSize()`: `subgroupSize`.
    WaveSize,
    /// `Device.sharedBytesPerBlock()`: `maxComputeSharedMemorySize`.
    SharedBytesPerBlock,
    /// `Device.maxBlockSize()`: `maxComputeWorkGroupInvocations`.
    MaxBlockSize,
    /// `Device.isIntegrated()`: the device shares memory with the host (an integrated GPU or
    /// a CPU implementation).
    IsIntegrated,
}

impl HostOp {
    /// Maps a stdlib `@Intrinsic("…")` name of a host method to the operation.
    pub fn from_name(name: &str) -> Option<HostOp> {
        Some(match name {
            "host.buffer.upload" => HostOp::BufferUpload,
            "host.buffer.download" => HostOp::BufferDownload,
            "host.buffer.upload_async" => HostOp::BufferUploadAsync,
            "host.buffer.download_async" => HostOp::BufferDownloadAsync,
            "host.buffer.length" => HostOp::BufferLength,
            "host.buffer.slice" => HostOp::BufferSlice,
            "host.buffer.free" => HostOp::BufferFree,
            "host.buffer.allocate" => HostOp::BufferAllocate,
            "host.image2d.download" => HostOp::ImageDownload,
            "host.image2d.width" => HostOp::ImageWidth,
            "host.image2d.height" => HostOp::ImageHeight,
            "host.stream.current" => HostOp::StreamCurrent,
            "host.stream.sync" => HostOp::StreamSync,
            "host.stream.create" => HostOp::StreamCreate,
            "host.stream.destroy" => HostOp::StreamDestroy,
            "host.stream.wait_event" => HostOp::StreamWaitEvent,
            "host.event.create" => HostOp::EventCreate,
            "host.event.record" => HostOp::EventRecord,
            "host.event.wait_host" => HostOp::EventWaitHost,
            "host.event.query" => HostOp::EventQuery,
            "host.event.elapsed" => HostOp::EventElapsed,
            "host.device.name" => HostOp::DeviceQuery(HostDeviceQuery::Name),
            "host.device.memory_bytes" => HostOp::DeviceQuery(HostDeviceQuery::MemoryBytes),
            "host.device.wave_size" => HostOp::DeviceQuery(HostDeviceQuery::WaveSize),
            "host.device.shared_bytes_per_block" => {
                HostOp::DeviceQuery(HostDeviceQuery::SharedBytesPerBlock)
            }
            "host.device.max_block_size" => HostOp::DeviceQuery(HostDeviceQuery::MaxBlockSize),
            "host.device.is_integrated" => HostOp::DeviceQuery(HostDeviceQuery::IsIntegrated),
            "host.println" => HostOp::Println,
            "host.print" => HostOp::Print,
            "host.printf" => HostOp::Printf,
            "host.integer.parse" => HostOp::ParseInt,
            "host.float.parse" => HostOp::ParseFloat,
            "host.long.parse" => HostOp::ParseLong,
            "host.double.parse" => HostOp::ParseDouble,
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
            "host.string.length" => HostOp::StringMethod(StringOp::Length),
            "host.string.char_at" => HostOp::StringMethod(StringOp::CharAt),
            "host.string.substring" => HostOp::StringMethod(StringOp::Substring),
            "host.string.equals" => HostOp::StringMethod(StringOp::Equals),
            "host.string.is_empty" => HostOp::StringMethod(StringOp::IsEmpty),
            "host.string.contains" => HostOp::StringMethod(StringOp::Contains),
            "host.string.starts_with" => HostOp::StringMethod(StringOp::StartsWith),
            "host.string.ends_with" => HostOp::StringMethod(StringOp::EndsWith),
            "host.string.index_of" => HostOp::StringMethod(StringOp::IndexOf),
            "host.string.compare_to" => HostOp::StringMethod(StringOp::CompareTo),
            "host.string.trim" => HostOp::StringMethod(StringOp::Trim),
            "host.string.to_upper_case" => HostOp::StringMethod(StringOp::ToUpperCase),
            "host.string.to_lower_case" => HostOp::StringMethod(StringOp::ToLowerCase),
            _ => return None,
        })
    }
}

/// A `RayQuery` operation (`OpRayQuery*KHR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RayQueryOp {
    /// `RayQuery.create()`: a fresh query, the initializer of a `RayQuery` local.
    Create,
    /// `q.initialize(scene, flags, cullMask, origin, tMin, direction, tMax)`.
    Initialize,
    /// `q.proceed()`: `true` while there is a candidate intersection to look at.
    Proceed,
    /// `q.terminate()`.
    Terminate,
    /// `q.confirmIntersection()`: commits the current candidate triangle.
    ConfirmIntersection,
    /// `q.candidateType()` / `q.committedType()` (`RayHit.*` values).
    Type {
        /// The committed intersection rather than the candidate.
        committed: bool,
    },
    /// `q.candidateT()` / `q.committedT()`.
    T {
        /// The committed intersection rather than the candidate.
        committed: bool,
    },
    /// `q.committedPrimitiveIndex()`.
    PrimitiveIndex,
    /// `q.committedInstanceId()`.
    InstanceId,
    /// `q.committedBarycentrics()`.
    Barycentrics,
}
