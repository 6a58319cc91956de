//! Host-only operations (SPEC §9): the `@Intrinsic("host.…")` methods of the stdlib, each run
//! by the host interpreter (native host code lowers a few itself and delegates the rest).

use super::{ImageFormat, ScalarType, TextureDim};

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
    /// `e.destroy()` (Cajeta's `Event`, `Fence` and `KernelTimer`): nothing to release early,
    /// the event goes when the program no longer holds it.
    EventDestroy,
    /// Cajeta's `KernelTimer`: an event (the end marker) with a start marker of its own.
    Timer(TimerOp),
    /// Cajeta's `Rng`: the xorshift64 stream generator and weighted reservoir sampling.
    Rng(RngOp),
    /// `Device.name()` etc. in host code: a property of the run's device.
    DeviceQuery(HostDeviceQuery),
    /// `Device.force(name)`, `Device.kernelAvailable(name)`: Cajeta's device controls.
    DeviceControl(DeviceControl),
    /// `Device.count()`, `Device.set(i)`, `dst.copyFrom(src)`…: several devices in one
    /// program.
    Devices(DevicesOp),
    /// `Comm.rank()`, `Comm.allReduce(data, op)`…: the ranks of an MPI job.
    Comm(CommOp),
    /// `Blas.gemm(a, [aLayout,] b, [bLayout,] c, m, n, k [, s])`: the library GEMM, C = A·B,
    /// recorded on `s` or the default stream.
    Gemm,
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
    /// `System.nanoTime()` → int64: a monotonic host clock in nanoseconds (arbitrary origin).
    NanoTime,
    /// Cajeta's `Device.setCpuWorkerCap(n)` (args `[n]`, int32): at most `n` worker threads
    /// for the CPU device's later launches (0: no cap); no effect on Vulkan devices.
    SetCpuWorkerCap,
    /// Cajeta's `Autotune` store of tuned values, kept per device (host/autotune.rs).
    Autotune(AutotuneOp),
    /// Made by `o.get()` of an empty `Optional<T>` (sema/optional.rs): a runtime error
    /// naming the Optional's type, whose text is the one argument (a string literal).
    /// Its result type is `T`; it never produces a value.
    EmptyOptional,
    /// Made by `try`/`catch` (sema/try_catch.rs) → boolean: whether a caught exception is
    /// waiting for its `catch`: a launch in the `try` block was refused, or a wait in it
    /// found a kernel's fault.
    ExceptionWaiting,
    /// Made by `try`/`catch` → boolean: whether the waiting exception is a kernel's fault
    /// (Cajeta's `KernelError`) rather than a refused launch (`XpuLaunchException`).
    KernelFaultWaiting,
    /// Made by `try`/`catch` → String: the waiting exception's message, which this clears
    /// (the empty string when none waits).
    TakeException,
    /// Cajeta's `k.manifest()` of kernel `k` (no args) → the library's `KernelManifest` POD,
    /// whose fields are [`KERNEL_MANIFEST_FIELDS`]: read from the reflection of the kernel
    /// compiled for the run's device.
    KernelManifest(super::FunctionId),
    /// Made by `try`/`catch` around a statement of the `try` block that waits for the
    /// device (args `[wait]`, a [`HostOp::may_wait_for_device`] operation): runs the wait,
    /// and keeps a fault it reports of a checked kernel (an out-of-bounds access) for the
    /// `catch` of `KernelError` instead of ending the run.
    CatchKernelFault,
    /// `Files.readFloat32(path)` and friends: the whole file as raw little-endian elements.
    FileRead(ScalarType),
    /// `Files.writeFloat32(path, arr)` and friends: raw little-endian elements.
    FileWrite(ScalarType),
    /// `Files.readImage(path)`: PNG/JPEG decoded to float32 luminance in [0, 1], row-major.
    ReadImage,
    /// `Files.readImageRGBA(path)`: PNG/JPEG decoded to float32 RGBA in [0, 1], four values
    /// per pixel, row-major (alpha 1 where the file has none).
    ReadImageRgba,
    /// `Files.writeImage(path, lum, w, h)` (1 channel) and `Files.writeImageRGBA(path, rgba,
    /// w, h)` (4): a float32 array written as an 8-bit PNG, clamped to [0, 1].
    WriteImage(u8),
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
    /// `AccelerationStructure.fromTriangles(vertices [, indices])`: a scene of one
    /// bottom-level triangle structure under one identity instance.
    AccelFromTriangles,
    /// `AccelerationStructure.fromAabbs(boxes)`: the same with axis-aligned boxes.
    AccelFromAabbs,
    /// `AccelerationStructure.instanced(part, transforms [, customIndices, masks])`: instances
    /// of a one-instance scene's bottom-level structure.
    AccelInstanced,
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

/// The operations of Cajeta's `Autotune` (host/autotune.rs): tuned `int32` values by key,
/// kept per device in a text file that outlives the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AutotuneOp {
    /// `Autotune.recall(key)` (args `[key]`) → int64: the value stored for the run's device
    /// and `key`, or [`AutotuneOp::ABSENT`] when none is (sema wraps it in an `Optional<int32>`).
    Recall,
    /// `Autotune.remember(key, value)` (args `[key, value]`): stores it and writes the file.
    Remember,
    /// `Autotune.claimOnce(key)` (args `[key]`) → boolean: true the first time in this run.
    ClaimOnce,
}

impl AutotuneOp {
    /// What [`AutotuneOp::Recall`] gives for a key with no stored value: no `int32` is it.
    pub const ABSENT: i64 = i64::MIN;
}

/// The operations on a program's several devices (docs/distributed.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DevicesOp {
    /// `Device.count()` → int32.
    Count,
    /// `Device.all()` → `int32[]` of `0 .. count()`.
    All,
    /// `Device.current()` → int32.
    Current,
    /// `Device.set(i)`: later buffers, streams and launches use device `i`.
    Set,
    /// `dst.copyFrom(src)`: args `[dst, src]`, buffers of any devices.
    CopyFrom,
}

/// The communicator operations of an MPI job (docs/distributed.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommOp {
    /// `Comm.rank()`.
    Rank,
    /// `Comm.size()`.
    Size,
    /// `Comm.localRank()`: the rank among those on the same node.
    LocalRank,
    /// `Comm.localDevice()`: `localRank() % Device.count()`.
    LocalDevice,
    /// `Comm.barrier()`.
    Barrier,
    /// `Comm.broadcast(data, root)`.
    Broadcast,
    /// `Comm.send(data, dest, tag)`.
    Send,
    /// `Comm.recv(data, source, tag)`.
    Recv,
    /// `Comm.allReduce(data, op)`, in place.
    AllReduce,
    /// `Comm.allGather(data, out)`.
    AllGather,
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
    /// `Device.activeBackend()`: the name of the backend kernels run on, `"vulkan"`.
    ActiveBackend,
    /// `Device.supports(Capability.X)` in host code: whether the run's device has what the
    /// capability needs; the index into `ir::CAPABILITIES` (sema puts the constant here).
    Supports(u32),
    /// `Device.launchFailures()`: launches that failed and let the run go on, always 0 here
    /// (a failed launch ends the run with a runtime error).
    LaunchFailures,
    /// Cajeta's `Device.cpuWorkerCap()`: the cap `setCpuWorkerCap` set, 0 for none.
    CpuWorkerCap,
    /// Cajeta's `Device.lastLaunchWorkers()`: the worker threads the CPU device's last launch
    /// ran on (1 when serial), 0 when it ran none.
    LastLaunchWorkers,
}

/// Cajeta's `KernelTimer` (host code): a timer is an `Event` (its end marker) holding a
/// start marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimerOp {
    /// `KernelTimer.create()`.
    Create,
    /// `t.begin(s)`: records the start marker on `s` and forgets the end.
    Begin,
    /// `t.end(s)`: records the end marker on `s`.
    End,
    /// `t.elapsedNanos()` → int64: the device time between the markers, -1 until both are
    /// recorded.
    ElapsedNanos,
    /// `KernelTimer.tier()` → int32: 2 (device timestamps) on Vulkan, 1 (the host clock) on
    /// the CPU device.
    Tier,
    /// `KernelTimer.tierName()` → `"device"` or `"host"`.
    TierName,
    /// `KernelTimer.clockScale()` → float64: 1.0 (Vulkan's `timestampPeriod` is applied).
    ClockScale,
    /// `KernelTimer.impliedGBps(ns, bytes)` → float64.
    ImpliedGbps,
    /// `KernelTimer.impliedOpsPerSecond(ns, ops)` → float64.
    ImpliedOpsPerSecond,
    /// `KernelTimer.withinPeak(ns, bytes, peakGBps, ops, peakOpsPerSecond)` → boolean.
    WithinPeak,
}

/// Cajeta's `Rng` (host code): xorshift64 with the (13, 7, 17) shifts, its state threaded
/// through the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RngOp {
    /// `Rng.next(state)` → the next state, which is also the next 64 random bits.
    Next,
    /// `Rng.seedState(seed)` → the first state of `seed`'s stream.
    SeedState,
    /// `Rng.output(state)` → the state's 64 bits.
    Output,
    /// `Rng.toUnitFloat(bits)` → float32 in [0, 1) from the top 24 bits.
    ToUnitFloat,
    /// `Rng.weightedReservoirChoice(weights, count, seed)` → int32: an index drawn with
    /// probability proportional to its weight, -1 when none was.
    WeightedReservoirChoice,
}

/// Cajeta's `Device` controls that take a name (host code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceControl {
    /// `Device.force("vulkan" | "cpu" | …)`: chooses the device before the first device use.
    Force,
    /// `Device.kernelAvailable("k")`: whether the program has a kernel of that name that the
    /// run's device can launch.
    KernelAvailable,
}

/// The fields of the library's `KernelManifest` (`stdlib/cajeta/source/kernel_manifest.cajeta`),
/// in declaration order, that [`HostOp::KernelManifest`] fills: the default workgroup size
/// x, y, z, the descriptor bindings, the push-constant bytes, the static shared bytes, and
/// the registers and spills (0: Vulkan does not report them).
pub const KERNEL_MANIFEST_FIELDS: &[(&str, ScalarType)] = &[
    ("workgroupSizeX", ScalarType::I32),
    ("workgroupSizeY", ScalarType::I32),
    ("workgroupSizeZ", ScalarType::I32),
    ("bindings", ScalarType::I32),
    ("pushConstantBytes", ScalarType::I32),
    ("sharedBytes", ScalarType::I64),
    ("registers", ScalarType::I32),
    ("spills", ScalarType::I32),
];

impl HostOp {
    /// Whether the operation may wait for the device to finish work: after it, the lines
    /// kernels printed in the finished launches are written out (host/interp).
    pub fn may_wait_for_device(self) -> bool {
        matches!(
            self,
            HostOp::BufferUpload
                | HostOp::BufferDownload
                | HostOp::BufferUploadAsync
                | HostOp::BufferDownloadAsync
                | HostOp::BufferFree
                | HostOp::ImageDownload
                | HostOp::TextureUpload
                | HostOp::TextureUploadLevel
                | HostOp::StreamSync
                | HostOp::StreamDestroy
                | HostOp::EventWaitHost
                | HostOp::EventQuery
                | HostOp::EventElapsed
                | HostOp::Timer(TimerOp::ElapsedNanos)
                | HostOp::Devices(DevicesOp::CopyFrom)
                | HostOp::Comm(_)
        )
    }

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
            "host.event.destroy" => HostOp::EventDestroy,
            "host.autotune.recall" => HostOp::Autotune(AutotuneOp::Recall),
            "host.autotune.remember" => HostOp::Autotune(AutotuneOp::Remember),
            "host.autotune.claim_once" => HostOp::Autotune(AutotuneOp::ClaimOnce),
            "host.rng.next" => HostOp::Rng(RngOp::Next),
            "host.rng.seed_state" => HostOp::Rng(RngOp::SeedState),
            "host.rng.output" => HostOp::Rng(RngOp::Output),
            "host.rng.to_unit_float" => HostOp::Rng(RngOp::ToUnitFloat),
            "host.rng.weighted_reservoir_choice" => HostOp::Rng(RngOp::WeightedReservoirChoice),
            "host.timer.create" => HostOp::Timer(TimerOp::Create),
            "host.timer.begin" => HostOp::Timer(TimerOp::Begin),
            "host.timer.end" => HostOp::Timer(TimerOp::End),
            "host.timer.elapsed_nanos" => HostOp::Timer(TimerOp::ElapsedNanos),
            "host.timer.tier" => HostOp::Timer(TimerOp::Tier),
            "host.timer.tier_name" => HostOp::Timer(TimerOp::TierName),
            "host.timer.clock_scale" => HostOp::Timer(TimerOp::ClockScale),
            "host.timer.implied_gbps" => HostOp::Timer(TimerOp::ImpliedGbps),
            "host.timer.implied_ops" => HostOp::Timer(TimerOp::ImpliedOpsPerSecond),
            "host.timer.within_peak" => HostOp::Timer(TimerOp::WithinPeak),
            "host.device.name" => HostOp::DeviceQuery(HostDeviceQuery::Name),
            "host.device.active_backend" => HostOp::DeviceQuery(HostDeviceQuery::ActiveBackend),
            "host.device.memory_bytes" => HostOp::DeviceQuery(HostDeviceQuery::MemoryBytes),
            "host.device.wave_size" => HostOp::DeviceQuery(HostDeviceQuery::WaveSize),
            "host.device.shared_bytes_per_block" => {
                HostOp::DeviceQuery(HostDeviceQuery::SharedBytesPerBlock)
            }
            "host.device.max_block_size" => HostOp::DeviceQuery(HostDeviceQuery::MaxBlockSize),
            "host.device.is_integrated" => HostOp::DeviceQuery(HostDeviceQuery::IsIntegrated),
            "host.device.supports" => HostOp::DeviceQuery(HostDeviceQuery::Supports(0)),
            "host.device.launch_failures" => HostOp::DeviceQuery(HostDeviceQuery::LaunchFailures),
            "host.device.cpu_worker_cap" => HostOp::DeviceQuery(HostDeviceQuery::CpuWorkerCap),
            "host.device.last_launch_workers" => {
                HostOp::DeviceQuery(HostDeviceQuery::LastLaunchWorkers)
            }
            "host.device.set_cpu_worker_cap" => HostOp::SetCpuWorkerCap,
            "host.device.force" => HostOp::DeviceControl(DeviceControl::Force),
            "host.device.kernel_available" => HostOp::DeviceControl(DeviceControl::KernelAvailable),
            "host.device.count" => HostOp::Devices(DevicesOp::Count),
            "host.device.all" => HostOp::Devices(DevicesOp::All),
            "host.device.current" => HostOp::Devices(DevicesOp::Current),
            "host.device.set" => HostOp::Devices(DevicesOp::Set),
            "host.buffer.copy_from" => HostOp::Devices(DevicesOp::CopyFrom),
            "host.blas.gemm" => HostOp::Gemm,
            "host.comm.rank" => HostOp::Comm(CommOp::Rank),
            "host.comm.size" => HostOp::Comm(CommOp::Size),
            "host.comm.local_rank" => HostOp::Comm(CommOp::LocalRank),
            "host.comm.local_device" => HostOp::Comm(CommOp::LocalDevice),
            "host.comm.barrier" => HostOp::Comm(CommOp::Barrier),
            "host.comm.broadcast" => HostOp::Comm(CommOp::Broadcast),
            "host.comm.send" => HostOp::Comm(CommOp::Send),
            "host.comm.recv" => HostOp::Comm(CommOp::Recv),
            "host.comm.all_reduce" => HostOp::Comm(CommOp::AllReduce),
            "host.comm.all_gather" => HostOp::Comm(CommOp::AllGather),
            "host.println" => HostOp::Println,
            "host.print" => HostOp::Print,
            "host.printf" => HostOp::Printf,
            "host.integer.parse" => HostOp::ParseInt,
            "host.float.parse" => HostOp::ParseFloat,
            "host.long.parse" => HostOp::ParseLong,
            "host.double.parse" => HostOp::ParseDouble,
            "host.system.nano_time" => HostOp::NanoTime,
            "host.files.read_float32" => HostOp::FileRead(ScalarType::F32),
            "host.files.read_int32" => HostOp::FileRead(ScalarType::I32),
            "host.files.read_uint32" => HostOp::FileRead(ScalarType::U32),
            "host.files.write_float32" => HostOp::FileWrite(ScalarType::F32),
            "host.files.write_int32" => HostOp::FileWrite(ScalarType::I32),
            "host.files.write_uint32" => HostOp::FileWrite(ScalarType::U32),
            "host.files.read_image" => HostOp::ReadImage,
            "host.files.read_image_rgba" => HostOp::ReadImageRgba,
            "host.files.write_image" => HostOp::WriteImage(1),
            "host.files.write_image_rgba" => HostOp::WriteImage(4),
            "host.files.image_width" => HostOp::ImageFileWidth,
            "host.files.image_height" => HostOp::ImageFileHeight,
            "host.image2d.save" => HostOp::ImageSave,
            "host.texture.upload" => HostOp::TextureUpload,
            "host.texture.upload_level" => HostOp::TextureUploadLevel,
            "host.texture.width" => HostOp::TextureWidth,
            "host.texture.height" => HostOp::TextureHeight,
            "host.texture.depth" => HostOp::TextureDepth,
            "host.accel.from_triangles" => HostOp::AccelFromTriangles,
            "host.accel.from_aabbs" => HostOp::AccelFromAabbs,
            "host.accel.instanced" => HostOp::AccelInstanced,
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
