//! Intrinsic operations. Each is declared once in `stdlib/` as a Cajeta method carrying
//! `@Intrinsic("name")`; the name maps to one variant here, and each backend has one
//! lowering function per variant.

use super::device::{CoopOp, DeviceQuery};
use super::int_precision::IntPrecisionFn;
use super::math_fns::{BitCast, BitsFn, MathFn};

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
    /// `Barrier.wave()`: subgroup control barrier plus workgroup-memory acquire-release
    /// (`OpControlBarrier Subgroup Subgroup AcquireRelease|WorkgroupMemory`).
    Wave,
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
    /// `Wave.inclusivePrefixSum(v)`: inclusive scan (this lane's value included).
    InclusivePrefixSum,
    /// `Wave.id()`: the wave's index in its workgroup (`SubgroupId`).
    Id,
    /// `Wave.count()`: the number of waves in the workgroup (`NumSubgroups`).
    Count,
    /// `Wave.broadcastFirst(v)`.
    BroadcastFirst,
    /// `Quad.broadcast(v, lane)`: a constant lane 0..3 is `OpGroupNonUniformQuadBroadcast`; a
    /// variable one (taken modulo 4) a shuffle to `(laneId & ~3) | (lane & 3)`.
    QuadBroadcast,
    /// `Quad.any(p)`: `p` is true in some lane of the quad.
    QuadAny,
    /// `Quad.all(p)`: `p` is true in every lane of the quad.
    QuadAll,
    /// `Wave.rotate(v, delta)`: lane i gets `v` of lane `(i + delta) % width`.
    Rotate,
    /// `Wave.prefixProduct(v)`: exclusive product scan (lane 0 gets 1).
    PrefixProduct,
    /// `Quad.swapHorizontal(v)`.
    QuadSwapHorizontal,
    /// `Quad.swapVertical(v)`.
    QuadSwapVertical,
    /// `Quad.swapDiagonal(v)`.
    QuadSwapDiagonal,
    /// `Group.reduceSegmented(segment, op, v)`: args `[segment, op, v]`; each aligned span
    /// of `segment` lanes (a power of two) combines `v` with the `GroupOp` `op` (a constant)
    /// and every lane of the span gets the span's result.
    ReduceSegmented,
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
    /// `i.reflect(n)` (also `Math.reflect(i, n)`): `i - (2 * n.dot(i)) * n`, GLSL.std.450
    /// `Reflect` (float vectors).
    Reflect,
    /// `i.refract(n, eta)` (also `Math.refract(i, n, eta)`): GLSL.std.450 `Refract`, `eta` a
    /// scalar of the lane type; the zero vector on total internal reflection.
    Refract,
    /// `m.determinant()` of a square float matrix (GLSL.std.450 `Determinant`).
    Determinant,
    /// `m.inverse()` of a square float matrix (GLSL.std.450 `MatrixInverse`).
    Inverse,
    /// `a.hadamard(b)` of two matrices of one type: the element-wise product.
    Hadamard,
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

/// The combining operation of `Workgroup.reduce(op, v)` and `Group.reduce…`: a `GroupOp`
/// constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupOp {
    /// `GroupOp.Add`
    Add,
    /// `GroupOp.Min`
    Min,
    /// `GroupOp.Max`
    Max,
    /// `GroupOp.And`
    And,
    /// `GroupOp.Or`
    Or,
    /// `GroupOp.Xor`
    Xor,
}

impl GroupOp {
    /// The operation a `Workgroup.reduce` operand names; an error (E-code `NotConstant`) when
    /// it is not a constant.
    pub fn of_operand(arg: &super::Expr) -> Result<GroupOp, crate::diagnostics::Diagnostic> {
        match &arg.kind {
            super::ExprKind::Const(super::Constant::Int(k)) => Ok(match k {
                0 => GroupOp::Add,
                1 => GroupOp::Min,
                2 => GroupOp::Max,
                3 => GroupOp::And,
                4 => GroupOp::Or,
                _ => GroupOp::Xor,
            }),
            _ => Err(crate::diagnostics::Diagnostic::error(
                crate::diagnostics::Code::NotConstant,
                arg.span,
                "a GroupOp argument must be a constant (GroupOp.Add, Min, Max, And, Or, Xor)",
            )),
        }
    }
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
    /// `buf.length64()`: the length as `uint64` (past 2^32 elements on addressed buffers).
    BufferLength64,
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
            "buffer.length64" => Intrinsic::BufferLength64,
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
            "mat.determinant" => Intrinsic::Vector(VecFn::Determinant),
            "mat.inverse" => Intrinsic::Vector(VecFn::Inverse),
            "mat.hadamard" => Intrinsic::Vector(VecFn::Hadamard),
            "vec.reflect" => Intrinsic::Vector(VecFn::Reflect),
            "vec.refract" => Intrinsic::Vector(VecFn::Refract),
            "barrier.workgroup" => Intrinsic::Barrier(BarrierKind::Workgroup),
            "barrier.workgroup_memory" => Intrinsic::Barrier(BarrierKind::WorkgroupMemory),
            "barrier.device_memory" => Intrinsic::Barrier(BarrierKind::DeviceMemory),
            "barrier.wave" => Intrinsic::Barrier(BarrierKind::Wave),
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
            "wave.inclusive_prefix_sum" => Intrinsic::Wave(WaveOp::InclusivePrefixSum),
            "wave.id" => Intrinsic::Wave(WaveOp::Id),
            "wave.count" => Intrinsic::Wave(WaveOp::Count),
            "wave.broadcast_first" => Intrinsic::Wave(WaveOp::BroadcastFirst),
            "quad.broadcast" => Intrinsic::Wave(WaveOp::QuadBroadcast),
            "quad.any" => Intrinsic::Wave(WaveOp::QuadAny),
            "quad.all" => Intrinsic::Wave(WaveOp::QuadAll),
            "wave.rotate" => Intrinsic::Wave(WaveOp::Rotate),
            "wave.prefix_product" => Intrinsic::Wave(WaveOp::PrefixProduct),
            "group.reduce_segmented" => Intrinsic::Wave(WaveOp::ReduceSegmented),
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
            "rayquery.committed_primitive_index" => {
                Intrinsic::RayQuery(RayQueryOp::PrimitiveIndex { committed: true })
            }
            "rayquery.candidate_primitive_index" => {
                Intrinsic::RayQuery(RayQueryOp::PrimitiveIndex { committed: false })
            }
            "rayquery.committed_instance_id" => Intrinsic::RayQuery(RayQueryOp::InstanceId),
            "rayquery.committed_barycentrics" => Intrinsic::RayQuery(RayQueryOp::Barycentrics {
                committed: true,
                lane: None,
            }),
            "rayquery.candidate_barycentric_u" | "rayquery.candidate_barycentric_v" => {
                Intrinsic::RayQuery(RayQueryOp::Barycentrics {
                    committed: false,
                    lane: Some(u32::from(name.ends_with("_v"))),
                })
            }
            "rayquery.committed_barycentric_u" | "rayquery.committed_barycentric_v" => {
                Intrinsic::RayQuery(RayQueryOp::Barycentrics {
                    committed: true,
                    lane: Some(u32::from(name.ends_with("_v"))),
                })
            }
            "rayquery.candidate_front_face" => {
                Intrinsic::RayQuery(RayQueryOp::FrontFace { committed: false })
            }
            "rayquery.committed_front_face" => {
                Intrinsic::RayQuery(RayQueryOp::FrontFace { committed: true })
            }
            "rayquery.generate_intersection" => {
                Intrinsic::RayQuery(RayQueryOp::GenerateIntersection)
            }
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
    /// `q.committedPrimitiveIndex()` / Cajeta's `q.candidatePrimitiveIndex()`.
    PrimitiveIndex {
        /// The committed intersection rather than the candidate.
        committed: bool,
    },
    /// `q.committedInstanceId()`.
    InstanceId,
    /// `q.committedBarycentrics()`, or one lane of them: Cajeta's
    /// `q.candidateBarycentricU()` (lane 0), `…V()` (lane 1) and the committed ones.
    Barycentrics {
        /// The committed intersection rather than the candidate.
        committed: bool,
        /// One lane (0 or 1) rather than the `Vector<float32, 2>`.
        lane: Option<u32>,
    },
    /// Cajeta's `q.candidateFrontFace()` / `q.committedFrontFace()`.
    FrontFace {
        /// The committed intersection rather than the candidate.
        committed: bool,
    },
    /// Cajeta's `q.generateIntersection(t)`: commits the current AABB candidate at `t`.
    GenerateIntersection,
}
