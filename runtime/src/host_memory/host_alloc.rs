//! Host memory the driver allocates: `cudaHostAlloc`'s counterpart. A [`HostAlloc`] is
//! host-visible, host-cached, coherent device memory, mapped into this process and bound to
//! a transfer buffer: the host reads and writes it as ordinary memory, and uploads from it
//! and downloads into it are one device copy at the bus's rate. On the H200 a download into
//! imported user pages (`HostPin` over `Vec` memory) ran at 32–39 GB/s while the same copy
//! into memory the driver allocated ran at 52 GB/s, so large host arrays are better
//! allocated here than pinned afterwards.
//!
//! [`HostMemoryAllocator`] is a global allocator a program may install (`cajetac` does):
//! once a context is [`provide`]d, allocations of at least a threshold (16 MiB) come from
//! that context's device, so large host arrays are driver memory from the start; smaller
//! ones, and everything while no context is provided, go to the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use ash::vk;

use crate::device::DeviceShared;
use crate::{lock, Context};

/// Host memory allocated by the driver, mapped, and bound to a buffer the device copies
/// from and to (see the module documentation). Freed when dropped.
pub struct HostAlloc {
    shared: Arc<DeviceShared>,
    pub(crate) buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory of this process; the Vulkan handles are only
// destroyed once, on drop.
unsafe impl Send for HostAlloc {}
// SAFETY: as above; nothing is mutated through `&HostAlloc`.
unsafe impl Sync for HostAlloc {}

impl std::fmt::Debug for HostAlloc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostAlloc")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

/// Every live [`HostAlloc`], by start address: what a transfer looks its memory up in.
static LIVE: Mutex<BTreeMap<usize, (usize, Weak<HostAlloc>)>> = Mutex::new(BTreeMap::new());

impl HostAlloc {
    /// The first byte.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty (never: an allocation of nothing is refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for HostAlloc {
    fn drop(&mut self) {
        lock(&LIVE).remove(&(self.ptr.as_ptr() as usize));
        let device = self.shared.device();
        // SAFETY: every transfer through the buffer waited for its copy (they all do), so
        // nothing uses buffer, memory or mapping any more.
        unsafe {
            device.unmap_memory(self.memory);
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }
}

/// The live allocation of `shared`'s device holding `len` bytes at `ptr`, and their offset
/// in its buffer.
pub(crate) fn find(
    shared: &Arc<DeviceShared>,
    ptr: *const u8,
    len: usize,
) -> Option<(Arc<HostAlloc>, u64)> {
    let at = ptr as usize;
    let end = at.checked_add(len)?;
    let (start, weak) = {
        let live = lock(&LIVE);
        let (&start, (size, weak)) = live.range(..=at).next_back()?;
        if end > start + size {
            return None;
        }
        (start, weak.clone())
    };
    // Upgraded outside the lock: if this turns out to be the last reference, its drop
    // takes the lock itself.
    let alloc = weak.upgrade()?;
    Arc::ptr_eq(&alloc.shared, shared).then(|| (alloc, (at - start) as u64))
}

impl Context {
    /// Allocates `len` bytes of host memory through the driver (`cudaHostAlloc`'s
    /// counterpart): mapped, host-cached and coherent, zero-filled. Transfers between it
    /// and buffers of this context are one device copy ([`crate::Stream::upload_buffer`] and
    /// [`crate::Stream::download_buffer`] notice it, as does [`Context::pin_host`]). `None`
    /// where the device has no such memory type or refuses the size.
    pub fn alloc_host(&self, len: usize) -> Option<Arc<HostAlloc>> {
        if len == 0 {
            return None;
        }
        let shared = self.inner.shared.clone();
        let device = shared.device();
        let info = vk::BufferCreateInfo::default()
            .size(len as u64)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer = unsafe { device.create_buffer(&info, None) }.ok()?;
        // SAFETY: just created.
        let req = unsafe { device.get_buffer_memory_requirements(buffer) };
        // SAFETY: valid physical device.
        let props = unsafe {
            shared
                .instance
                .instance
                .get_physical_device_memory_properties(shared.physical)
        };
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT
            | vk::MemoryPropertyFlags::HOST_CACHED;
        let memory_type = props
            .memory_types_as_slice()
            .iter()
            .enumerate()
            .find(|(i, t)| req.memory_type_bits & (1 << i) != 0 && t.property_flags.contains(want))
            .map(|(i, _)| i as u32);
        let destroy_buffer = || {
            // SAFETY: never used by the device.
            unsafe { device.destroy_buffer(buffer, None) }
        };
        let Some(memory_type) = memory_type else {
            destroy_buffer();
            return None;
        };
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(buffer);
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(memory_type)
            .push_next(&mut dedicated);
        // SAFETY: valid device and allocate info.
        let Ok(memory) = (unsafe { device.allocate_memory(&alloc, None) }) else {
            destroy_buffer();
            return None;
        };
        // SAFETY: memory made for this buffer; a host-visible type, mapped once.
        let mapped = unsafe {
            device.bind_buffer_memory(buffer, memory, 0).and_then(|()| {
                device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            })
        };
        let Some(ptr) = mapped.ok().and_then(|p| NonNull::new(p.cast::<u8>())) else {
            // SAFETY: neither is in use.
            unsafe {
                device.destroy_buffer(buffer, None);
                device.free_memory(memory, None);
            }
            return None;
        };
        // SAFETY: the mapping covers `req.size >= len` bytes; Vulkan does not promise zeros.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
        let alloc = Arc::new(HostAlloc {
            shared,
            buffer,
            memory,
            ptr,
            len,
        });
        lock(&LIVE).insert(ptr.as_ptr() as usize, (len, Arc::downgrade(&alloc)));
        Some(alloc)
    }

    /// Whether `len` bytes at `ptr` lie in host memory this context's device allocated
    /// ([`Context::alloc_host`]): transfers from and to it need no staging and no pin.
    pub fn is_host_allocated(&self, ptr: *const u8, len: usize) -> bool {
        find(&self.inner.shared, ptr, len).is_some()
    }
}

/// The context [`HostMemoryAllocator`] allocates large blocks from, if any.
static PROVIDER: RwLock<Option<Context>> = RwLock::new(None);
/// Blocks at least this large come from the provider (`usize::MAX`: none do).
static MIN_BYTES: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Bytes the allocator holds in driver memory, and the most it may.
static HELD: AtomicUsize = AtomicUsize::new(0);
static MAX_HELD: AtomicUsize = AtomicUsize::new(0);
/// The allocations [`HostMemoryAllocator`] made, by address (it owns them).
static OWNED: Mutex<BTreeMap<usize, Arc<HostAlloc>>> = Mutex::new(BTreeMap::new());

thread_local! {
    /// Set while this thread is inside the allocator's driver path, so that what that path
    /// allocates itself goes to the system.
    static IN_DRIVER: Cell<bool> = const { Cell::new(false) };
}

/// The threshold used when [`provide`] is given none: 16 MiB, as for pinning.
pub const HOST_ALLOC_MIN_BYTES: usize = 16 << 20;

/// Makes `ctx` the device [`HostMemoryAllocator`] allocates blocks of at least `min_bytes`
/// from (at most a quarter of the machine's memory in all); replaces any earlier one.
/// `CAJETA_HOST_ALLOC=0` turns it off; `CAJETA_HOST_ALLOC_MIN_KIB` overrides the threshold.
pub fn provide(ctx: &Context, min_bytes: usize) {
    let off = std::env::var("CAJETA_HOST_ALLOC")
        .is_ok_and(|v| matches!(v.trim(), "0" | "false" | "no" | "off"));
    if off {
        return;
    }
    let min = std::env::var("CAJETA_HOST_ALLOC_MIN_KIB")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(min_bytes, |k| k.saturating_mul(1024))
        .max(4096);
    let memory = physical_memory().unwrap_or(32 << 30);
    MAX_HELD.store(memory / 4, Ordering::Relaxed);
    *PROVIDER.write().unwrap_or_else(|e| e.into_inner()) = Some(ctx.clone());
    MIN_BYTES.store(min, Ordering::Relaxed);
}

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`).
fn physical_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Stops allocating from `ctx` (when it is the provider). Blocks already allocated stay
/// valid until freed.
pub fn withdraw(ctx: &Context) {
    let mut provider = PROVIDER.write().unwrap_or_else(|e| e.into_inner());
    if provider
        .as_ref()
        .is_some_and(|p| Arc::ptr_eq(&p.inner, &ctx.inner))
    {
        MIN_BYTES.store(usize::MAX, Ordering::Relaxed);
        let gone = provider.take();
        drop(provider);
        drop(gone);
    }
}

/// A global allocator that takes large blocks from the [`provide`]d context's device
/// ([`Context::alloc_host`]) and everything else from the system allocator. Install it with
/// `#[global_allocator] static A: HostMemoryAllocator = HostMemoryAllocator;`.
pub struct HostMemoryAllocator;

impl HostMemoryAllocator {
    /// A block from the provider, or `None` (then the system's).
    #[inline]
    fn from_driver(layout: Layout) -> Option<*mut u8> {
        if layout.size() < MIN_BYTES.load(Ordering::Relaxed) || layout.align() > 4096 {
            return None;
        }
        Self::from_driver_large(layout)
    }

    /// [`Self::from_driver`] past the size check, which every small block stops at (kept
    /// out of line so that the check inlines into every allocation).
    #[cold]
    fn from_driver_large(layout: Layout) -> Option<*mut u8> {
        let entered = IN_DRIVER.try_with(|d| !d.replace(true)).unwrap_or(false);
        if !entered {
            return None;
        }
        let block = (|| {
            let held = HELD.load(Ordering::Relaxed);
            if held.saturating_add(layout.size()) > MAX_HELD.load(Ordering::Relaxed) {
                return None;
            }
            let ctx = PROVIDER.read().ok()?.clone()?;
            let alloc = ctx.alloc_host(layout.size())?;
            let ptr = alloc.as_ptr();
            HELD.fetch_add(alloc.len(), Ordering::Relaxed);
            lock(&OWNED).insert(ptr as usize, alloc);
            Some(ptr)
        })();
        let _ = IN_DRIVER.try_with(|d| d.set(false));
        block
    }

    /// Takes back a block the driver path made; false when `ptr` is not one.
    #[inline]
    fn to_driver(ptr: *mut u8, layout: Layout) -> bool {
        // Driver blocks are at least a page; while none is held, nothing is looked up.
        if layout.size() < 4096 || HELD.load(Ordering::Relaxed) == 0 {
            return false;
        }
        Self::to_driver_held(ptr)
    }

    /// [`Self::to_driver`] while driver blocks are held (out of line, as `from_driver_large`).
    #[cold]
    fn to_driver_held(ptr: *mut u8) -> bool {
        let Some(alloc) = lock(&OWNED).remove(&(ptr as usize)) else {
            return false;
        };
        HELD.fetch_sub(alloc.len(), Ordering::Relaxed);
        // Freed here, outside the lock (a pin may still hold it: then when the pin goes).
        let _ = IN_DRIVER.try_with(|d| d.set(true));
        drop(alloc);
        let _ = IN_DRIVER.try_with(|d| d.set(false));
        true
    }
}

// SAFETY: blocks come from the system allocator or from driver memory that stays mapped
// until `dealloc` takes it back; each is freed by the path that made it.
unsafe impl GlobalAlloc for HostMemoryAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match Self::from_driver(layout) {
            Some(p) => p,
            // SAFETY: the caller's layout contract.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match Self::from_driver(layout) {
            // `alloc_host` zero-fills.
            Some(p) => p,
            // SAFETY: the caller's layout contract.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !Self::to_driver(ptr, layout) {
            // SAFETY: a block the system allocator made with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let driver_old = layout.size() >= 4096
            && HELD.load(Ordering::Relaxed) != 0
            && lock(&OWNED).contains_key(&(ptr as usize));
        let driver_new = new_size >= MIN_BYTES.load(Ordering::Relaxed);
        if !driver_old && !driver_new {
            // SAFETY: a system block; the caller's contract.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller guarantees a valid non-zero size for `layout.align()`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as in `alloc`.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are live and distinct, each at least the copied length.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}
