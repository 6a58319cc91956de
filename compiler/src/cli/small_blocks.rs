//! The command line's global allocator: blocks of up to 4 MiB ("small" here) from per-thread
//! free lists while a compile runs, everything else from [`HostMemoryAllocator`] (the
//! system's allocator, or the GPU driver's for large host arrays during `run`).
//!
//! A compile makes and frees millions of small blocks (tokens, AST and IR nodes, rspirv
//! instructions and operands, vectors growing by doubling); glibc's `malloc`, `free` and
//! `realloc` were about a quarter of a 200-kernel `build`'s instructions and a fifth of a
//! small one's (docs/performance-history.md, "Compile speed, 2026-12-06, second round"). Here a
//! small block is a pointer popped from, or pushed onto, the calling thread's list for its
//! size class, or else carved from the thread's current chunk: a handful of instructions and
//! no locks. Rust hands `dealloc` and `realloc` the block's layout, so a block needs no
//! header: its class comes from its size, and whether it is one of ours from its address
//! (every chunk lies in one region reserved at [`enable`]).
//!
//! Freed blocks are kept for reuse in their class, never returned to the system, and a block
//! freed on another thread joins that thread's list. That suits a compile, which ends with
//! the process, but not a long-running program (the interpreter's `run`, the language
//! server) whose threads might hand blocks on forever: so the small-block path is switched on
//! only by `build` and `check` ([`enable`]); until then, and in every other command, blocks
//! are the system's. Blocks made either way stay valid whichever way is on when they are
//! freed.

use cajeta_runtime::HostMemoryAllocator;
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The largest block served from the free lists; larger ones go to the inner allocator.
/// (Up to a few MiB: glibc maps blocks of 128 KiB and more on their own and unmaps them
/// when freed, a fresh fault for each of their pages every time, like the token and AST
/// vectors of a large file.)
const MAX_SMALL: usize = 4 << 20;
/// The blocks up to 1 KiB come in steps of 16 bytes (64 classes); above that in powers of
/// two up to [`MAX_SMALL`] (12 classes).
const FINE_LIMIT: usize = 1024;
const CLASSES: usize = FINE_LIMIT / 16 + 12;
/// Every block is aligned to this (class sizes are multiples of it, chunks start on pages).
const BLOCK_ALIGN: usize = 16;
/// What a thread takes from the region at a time. Only the pages it touches are faulted in.
/// Blocks of this size and more are taken from the region on their own.
const CHUNK: usize = 256 * 1024;
/// The address space reserved for all small blocks (`MAP_NORESERVE`: not memory, until
/// used). When it runs out, blocks come from the inner allocator again. (16 GiB: valgrind
/// refuses a reservation of 64.)
const REGION: usize = 16 << 30;
/// The region starts on a huge-page boundary; past its first huge page the kernel may back
/// it with huge pages (`MADV_HUGEPAGE`): one page fault for 2 MiB instead of 512 for a
/// compile large enough to use them, while a small one stays within the first 2 MiB, where
/// faulting in and zeroing a huge page would cost more than the pages it touches.
const HUGE_PAGE: usize = 2 << 20;

/// Before [`enable`] reserves the region: a range at the top of the address space, where no
/// user-space block can lie, so that no block is taken for a small one.
const NO_REGION: usize = usize::MAX - REGION + 1;
/// The region's first address ([`NO_REGION`] until [`enable`] reserved it).
static BASE: AtomicUsize = AtomicUsize::new(NO_REGION);
/// The offset into the region of the next chunk to hand out.
static NEXT_CHUNK: AtomicUsize = AtomicUsize::new(0);
/// Whether new small blocks come from the free lists.
static ON: AtomicBool = AtomicBool::new(false);

/// The first class of blocks of [`CHUNK`] bytes or more: such a block is taken from the
/// region on its own, so it is made of whole chunks.
const FIRST_CHUNK_CLASS: usize = FINE_LIMIT / 16 + CHUNK.trailing_zeros() as usize - 11;

/// One thread's free lists (each block's first word links to the next), current chunk, and
/// chunks cut from a freed large block (linked alike) not yet used.
struct Local {
    free: [Cell<*mut u8>; CLASSES],
    cursor: Cell<usize>,
    end: Cell<usize>,
    spare: Cell<*mut u8>,
}

thread_local! {
    // Constant-initialized and without `Drop`, so using it allocates nothing and it stays
    // usable while a thread ends (an allocator may be called then).
    static LOCAL: Local = const {
        Local {
            free: [const { Cell::new(null_mut()) }; CLASSES],
            cursor: Cell::new(0),
            end: Cell::new(0),
            spare: Cell::new(null_mut()),
        }
    };
}

/// Switches the small-block path on for the rest of the process (see the module comment).
/// Does nothing when the region cannot be reserved (strict overcommit, a small address-space
/// limit): the inner allocator then serves everything, as before.
pub(crate) fn enable() {
    if BASE.load(Ordering::Acquire) == NO_REGION {
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing.
        let p = unsafe {
            libc::mmap(
                null_mut(),
                REGION + HUGE_PAGE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return;
        }
        let base = (p as usize).next_multiple_of(HUGE_PAGE);
        // Hints: huge pages past the first 2 MiB, and none in it. Where transparent huge
        // pages are on for every mapping (`enabled` = `always`, the default of some
        // distributions), the first chunk's `MADV_POPULATE_WRITE` would otherwise fault in
        // and zero a whole huge page: 220–310 µs against 45–60 µs for the chunk's 64 small
        // pages on the 2-core container, a fifth of a small `check`. Without transparent
        // huge pages both change nothing.
        // SAFETY: advice on ranges of the mapping just made.
        unsafe {
            libc::madvise(
                (base + HUGE_PAGE) as *mut libc::c_void,
                REGION - HUGE_PAGE,
                libc::MADV_HUGEPAGE,
            );
            libc::madvise(base as *mut libc::c_void, HUGE_PAGE, libc::MADV_NOHUGEPAGE);
        };
        // One region for the process: were two threads to enable at once (the unit tests
        // do), a second base stored over the first would leave the first region's blocks
        // unrecognized, and `dealloc` would hand them to the system's `free` ("free():
        // invalid pointer", seen once in CI). The thread that loses gives its mapping back.
        if BASE
            .compare_exchange(NO_REGION, base, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: the mapping made above, which no block was taken from.
            unsafe { libc::munmap(p, REGION + HUGE_PAGE) };
        }
    }
    ON.store(true, Ordering::Release);
}

/// The class of a block of `size` bytes, when it is small.
#[inline]
fn class_of(size: usize) -> Option<usize> {
    if size <= FINE_LIMIT {
        Some(size.max(1).div_ceil(16) - 1)
    } else if size <= MAX_SMALL {
        // 1025..=2048 → 64, 2049..=4096 → 65, …, 2M+1..=4M → 75.
        Some(FINE_LIMIT / 16 + (usize::BITS - (size - 1).leading_zeros()) as usize - 11)
    } else {
        None
    }
}

/// The bytes of a block of class `class`.
#[inline]
fn class_size(class: usize) -> usize {
    if class < FINE_LIMIT / 16 {
        (class + 1) * 16
    } else {
        2048 << (class - FINE_LIMIT / 16)
    }
}

/// Whether `ptr` is a block of the region.
#[inline]
fn is_small_block(ptr: *mut u8) -> bool {
    (ptr as usize).wrapping_sub(BASE.load(Ordering::Relaxed)) < REGION
}

/// A small block of class `class`, or null when the region is used up.
#[inline]
fn take(class: usize) -> *mut u8 {
    // The common cases (a freed block of the class, or room left in the chunk) in a closure
    // small enough to be inlined into `alloc`: with the refill in it too, the thread-local
    // access stayed a call of its own, a third of the instructions of every allocation.
    let size = class_size(class);
    let p = LOCAL.with(|l| {
        let head = l.free[class].get();
        if !head.is_null() {
            // SAFETY: a free block of ours; its first word is the next free block.
            l.free[class].set(unsafe { *(head as *mut *mut u8) });
            return head;
        }
        let cursor = l.cursor.get();
        if size < CHUNK && l.end.get() - cursor >= size {
            l.cursor.set(cursor + size);
            return cursor as *mut u8;
        }
        null_mut()
    });
    if p.is_null() {
        take_new(size)
    } else {
        p
    }
}

/// A block of `size` bytes (a class's) when this thread's list for it is empty and its
/// chunk has no room: from a new chunk, or from the region on its own when it is a chunk or
/// more. Null when the region is used up.
#[cold]
#[inline(never)]
fn take_new(size: usize) -> *mut u8 {
    if size >= CHUNK {
        return carve(size);
    }
    let chunk = match spare_chunk() {
        Some(c) => c,
        None => {
            let c = carve(CHUNK);
            if c.is_null() {
                return c;
            }
            populate_small_pages(c);
            c
        }
    };
    LOCAL.with(|l| {
        l.cursor.set(chunk as usize + size);
        l.end.set(chunk as usize + CHUNK);
    });
    chunk
}

/// A chunk of memory this thread has freed: one left from a large block cut up before, else
/// a freed block of a chunk or more (of the smallest such class), cut into chunks. A large
/// block on its class's list is only used again by a block of that class, which may never
/// come: the token vectors of a 200-kernel file (3 MiB, freed once parsed) lay unused while
/// the parser and checker took 3 MiB more of the region, every page of it zeroed by the
/// kernel on first touch (a fifth of that build's time went to clearing pages).
fn spare_chunk() -> Option<*mut u8> {
    LOCAL.with(|l| {
        let head = l.spare.get();
        if !head.is_null() {
            // SAFETY: a spare chunk of ours; its first word is the next one.
            l.spare.set(unsafe { *(head as *mut *mut u8) });
            return Some(head);
        }
        for class in FIRST_CHUNK_CLASS..CLASSES {
            let block = l.free[class].get();
            if block.is_null() {
                continue;
            }
            // SAFETY: as above, a free block of ours.
            l.free[class].set(unsafe { *(block as *mut *mut u8) });
            // The block's chunks past its first go on the spare list, last first.
            let first = block as usize;
            let mut at = first + class_size(class);
            while at - CHUNK > first {
                at -= CHUNK;
                // SAFETY: the start of a chunk of the freed block, no longer used by anyone.
                unsafe { *(at as *mut *mut u8) = l.spare.get() };
                l.spare.set(at as *mut u8);
            }
            return Some(block);
        }
        None
    })
}

/// `size` bytes (a multiple of [`CHUNK`]) from the region, or null when it is used up.
fn carve(size: usize) -> *mut u8 {
    let offset = NEXT_CHUNK.fetch_add(size, Ordering::Relaxed);
    if offset.saturating_add(size) > REGION {
        return null_mut();
    }
    (BASE.load(Ordering::Relaxed) + offset) as *mut u8
}

/// Faults in a chunk's pages in one system call when they are small pages (the region's
/// first huge page, see [`HUGE_PAGE`]): a chunk there is mostly used, and one
/// `MADV_POPULATE_WRITE` costs less than the page faults it replaces, each of which enters
/// the kernel on its own (64 a chunk). Past the first huge page one fault maps 2 MiB anyway.
/// Only a hint: a kernel without it (before Linux 5.14) faults the pages in as they are used.
fn populate_small_pages(chunk: *mut u8) {
    if (chunk as usize) - BASE.load(Ordering::Relaxed) >= HUGE_PAGE {
        return;
    }
    // SAFETY: advice on a chunk of the region's mapping, which is readable and writable.
    unsafe { libc::madvise(chunk as *mut libc::c_void, CHUNK, libc::MADV_POPULATE_WRITE) };
}

/// Puts a small block of class `class` on this thread's list.
#[inline]
fn give_back(ptr: *mut u8, class: usize) {
    LOCAL.with(|l| {
        // SAFETY: a block of ours of at least 16 bytes, no longer used by anyone.
        unsafe { *(ptr as *mut *mut u8) = l.free[class].get() };
        l.free[class].set(ptr);
    });
}

/// The command line's global allocator (see the module comment).
pub struct SmallBlocks;

impl SmallBlocks {
    /// A small block for `layout` when the path is on and the layout is small.
    #[inline]
    fn small(layout: Layout) -> Option<*mut u8> {
        // Acquire: a thread that sees the path on also sees the region's base (a plain load
        // on x86-64).
        if layout.align() > BLOCK_ALIGN || !ON.load(Ordering::Acquire) {
            return None;
        }
        let p = take(class_of(layout.size())?);
        (!p.is_null()).then_some(p)
    }
}

// SAFETY: a small block is handed out by one thread's list at a time and comes back through
// `dealloc`/`realloc` with the layout it was made for (so its class); every other block is
// the inner allocator's, made and freed by it alone.
unsafe impl GlobalAlloc for SmallBlocks {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match Self::small(layout) {
            Some(p) => p,
            // SAFETY: the caller's layout contract.
            None => unsafe { HostMemoryAllocator.alloc(layout) },
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match Self::small(layout) {
            Some(p) => {
                // SAFETY: a block of at least `layout.size()` bytes.
                unsafe { p.write_bytes(0, layout.size()) };
                p
            }
            // SAFETY: the caller's layout contract.
            None => unsafe { HostMemoryAllocator.alloc_zeroed(layout) },
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_small_block(ptr) {
            if let Some(class) = class_of(layout.size()) {
                give_back(ptr, class);
            }
        } else {
            // SAFETY: the inner allocator's block with this layout.
            unsafe { HostMemoryAllocator.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let small = is_small_block(ptr);
        if !small && (new_size > MAX_SMALL || !ON.load(Ordering::Acquire)) {
            // SAFETY: the inner allocator's block; the caller's contract.
            return unsafe { HostMemoryAllocator.realloc(ptr, layout, new_size) };
        }
        if small && class_of(layout.size()) == class_of(new_size) {
            return ptr;
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

#[cfg(test)]
mod tests {
    use super::{
        class_of, class_size, enable, is_small_block, CHUNK, CLASSES, FINE_LIMIT,
        FIRST_CHUNK_CLASS, MAX_SMALL,
    };

    /// A vector of `len` bytes, each naming its index and `seed`.
    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect()
    }

    // The test binary's global allocator is this one (`cli/mod.rs`), so ordinary vectors
    // exercise it: blocks of every class and beyond, grown and shrunk through `realloc`,
    // freed on the thread that made them and on others, their bytes checked throughout.
    #[test]
    fn blocks_keep_their_bytes_through_growth_and_frees_on_other_threads() {
        enable();
        let mut sizes: Vec<usize> = (0..196).map(|i| 1 + i * 173 % 40_000).collect();
        // Blocks taken from the region on their own, and one past the largest class.
        sizes.extend([300_000, 1_500_000, 4 << 20, (4 << 20) + 1]);
        let blocks: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| pattern(n, i as u8))
            .collect();
        assert!(blocks.iter().any(|b| is_small_block(b.as_ptr() as *mut u8)));
        let handles: Vec<_> = blocks
            .chunks(50)
            .enumerate()
            .map(|(c, chunk)| {
                let mut chunk = chunk.to_vec();
                std::thread::spawn(move || {
                    for (k, b) in chunk.iter_mut().enumerate() {
                        let i = c * 50 + k;
                        assert_eq!(*b, pattern(b.len(), i as u8));
                        // Grow across classes, then shrink, keeping the prefix.
                        let n = b.len();
                        b.extend(std::iter::repeat_n(7u8, n + 100));
                        assert_eq!(b[..n], pattern(n, i as u8)[..]);
                        b.truncate(n / 2);
                        b.shrink_to_fit();
                        assert_eq!(b[..], pattern(n, i as u8)[..n / 2]);
                        // Blocks made and freed here, reused by the next round.
                        let tmp: Vec<Box<[u64]>> =
                            (1..20).map(|m| vec![i as u64; m * 3].into()).collect();
                        assert!(tmp.iter().all(|t| t.iter().all(|&x| x == i as u64)));
                    }
                    chunk
                })
            })
            .collect();
        for (c, h) in handles.into_iter().enumerate() {
            let chunk = h.join().expect("worker");
            for (k, b) in chunk.iter().enumerate() {
                let i = c * 50 + k;
                assert_eq!(b[..], pattern(sizes[i], i as u8)[..sizes[i] / 2]);
            }
            // Freed here, on another thread than the one that last grew them.
            drop(chunk);
        }
        // Over-aligned blocks are the inner allocator's.
        #[repr(align(64))]
        struct Wide([u8; 64]);
        let w = Box::new(Wide([3; 64]));
        assert!(!is_small_block(&*w as *const Wide as *mut u8));
        assert_eq!(w.0[63], 3);
    }

    // On a thread of its own, so that the freed block is on its lists alone.
    #[test]
    fn a_freed_large_block_serves_small_blocks() {
        enable();
        std::thread::spawn(|| {
            let big: Vec<u8> = Vec::with_capacity(600_000);
            let (start, end) = (big.as_ptr() as usize, big.as_ptr() as usize + (1 << 20));
            assert!(is_small_block(big.as_ptr() as *mut u8));
            drop(big);
            // More small blocks than one chunk holds: the next chunks are the freed block's.
            let small: Vec<Box<[u8; 1024]>> =
                (0..1200).map(|i| Box::new([i as u8; 1024])).collect();
            let inside = small
                .iter()
                .filter(|b| (start..end).contains(&(b.as_ptr() as usize)))
                .count();
            assert!(
                inside >= 900,
                "{inside} of 1200 small blocks in the freed block"
            );
            assert!(small
                .iter()
                .enumerate()
                .all(|(i, b)| b.iter().all(|&x| x == i as u8)));
        })
        .join()
        .expect("worker");
    }

    #[test]
    fn every_small_size_fits_its_class_and_not_the_one_below() {
        for size in 1..=MAX_SMALL {
            let c = class_of(size).expect("small");
            assert!(c < CLASSES, "size {size}: class {c}");
            assert!(class_size(c) >= size, "size {size}: class {c} too small");
            assert_eq!(class_size(c) % 16, 0);
            if c > 0 {
                assert!(class_size(c - 1) < size, "size {size}: class {c} too large");
            }
        }
        assert_eq!(class_of(MAX_SMALL + 1), None);
        assert_eq!(class_size(class_of(FINE_LIMIT).unwrap()), FINE_LIMIT);
        assert_eq!(class_size(CLASSES - 1), MAX_SMALL);
        assert_eq!(class_size(FIRST_CHUNK_CLASS), CHUNK);
    }
}
