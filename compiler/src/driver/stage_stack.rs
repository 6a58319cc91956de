//! The stack the recursive stages run on ([`with_stage_stack`]).
//!
//! The stages recurse over trees up to `MAX_NESTING` deep, which needs more stack than a test
//! thread (2 MiB) or even the main thread may have left. They run on a stack of
//! [`STAGE_STACK`] bytes, mapped for the purpose unless the calling thread is already on one
//! with [`STAGE_RED_ZONE`] to spare.
//!
//! This was `stacker::maybe_grow`, which asks the system for the calling thread's stack
//! bounds the first time a thread uses it; for the main thread glibc answers by reading and
//! parsing `/proc/self/maps` (about 110K instructions and three system calls, 7% of a small
//! `build`). Every caller on a thread whose bounds are not known here grew a fresh stack
//! anyway (the main thread's 8 MiB is under the red zone plus what is in use), so the bounds
//! were asked for only to be told no: here a thread's stack is "known" only when this module
//! mapped it or the thread was started with a known size ([`on_thread_of_stack_size`]), and
//! an unknown one always gets a fresh stack.

use std::cell::Cell;

/// Stack the recursive stages need below the caller's frame before they run on the caller's
/// stack. The parser keeps trees at most `MAX_NESTING` levels deep, and the deepest stage
/// then takes about 3 MiB in an unoptimized build (a test thread has 2 MiB): below this much
/// room, the stage runs on a fresh stack instead.
pub(super) const STAGE_RED_ZONE: usize = 8 << 20;

/// The size of that fresh stack (reserved address space: only the pages used are touched).
pub(super) const STAGE_STACK: usize = 64 << 20;

/// Room left for what a thread's start-up put on its stack before the closure it was given
/// runs ([`on_thread_of_stack_size`]): a few frames of std's and glibc's.
const THREAD_START_SLACK: usize = 256 << 10;

thread_local! {
    /// The lowest usable address of the stack this thread now runs on, when known (0: not).
    static STACK_LOW: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` with at least [`STAGE_RED_ZONE`] of stack, on a fresh stack if need be, so that
/// deep (but accepted) programs never overflow the caller's thread, whatever its stack size.
pub fn with_stage_stack<T>(f: impl FnOnce() -> T) -> T {
    let low = STACK_LOW.with(Cell::get);
    if low != 0 && (psm::stack_pointer() as usize).saturating_sub(low) >= STAGE_RED_ZONE {
        return f();
    }
    on_fresh_stack(f)
}

/// Runs `f`, the body of a thread started with a stack of `size` bytes, telling
/// [`with_stage_stack`] how much of it there is (less a margin for the thread's start-up).
pub(super) fn on_thread_of_stack_size<T>(size: usize, f: impl FnOnce() -> T) -> T {
    let sp = psm::stack_pointer() as usize;
    let low = sp.saturating_sub(size.saturating_sub(THREAD_START_SLACK));
    let old = STACK_LOW.with(|l| l.replace(low));
    let result = f();
    STACK_LOW.with(|l| l.set(old));
    result
}

/// The bytes at the top of a fresh stage stack mapped at once (see [`on_fresh_stack`]): what
/// the front end of a small program reaches.
#[cfg(target_os = "linux")]
const PREFAULTED_TOP: usize = 64 << 10;

/// Runs `f` on a freshly mapped stack of [`STAGE_STACK`] bytes above a guard page.
#[cfg(target_os = "linux")]
fn on_fresh_stack<T>(f: impl FnOnce() -> T) -> T {
    /// Unmaps the stack and restores the thread's stack bound, even when `f` panics.
    struct Mapping {
        base: *mut libc::c_void,
        len: usize,
        old_low: usize,
    }
    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: the mapping was made by `mmap` below with this length, and nothing runs
            // on it any more.
            unsafe { libc::munmap(self.base, self.len) };
            STACK_LOW.with(|l| l.set(self.old_low));
        }
    }
    // SAFETY: `sysconf` has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let len = STAGE_STACK + page;
    // SAFETY: a fresh anonymous mapping; the guard page below the stack is made inaccessible,
    // so an overflow faults instead of writing into whatever lies below.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
            -1,
            0,
        )
    };
    assert_ne!(
        base,
        libc::MAP_FAILED,
        "cannot map a stack for the compile: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: the first page of the mapping just made.
    let guarded = unsafe { libc::mprotect(base, page, libc::PROT_NONE) };
    assert_eq!(
        guarded,
        0,
        "cannot protect the compile stack's guard page: {}",
        std::io::Error::last_os_error()
    );
    // A compile's first frames fault the stack's top pages in one at a time (14 page faults
    // for `check` of a small kernel, each an entry into the kernel); one system call maps
    // them instead. Small pages only: where transparent huge pages are on for every mapping
    // and the kernel does not exempt stacks (before Linux 6.7), the top would otherwise be
    // one huge page, 2 MiB zeroed for the few KiB a compile uses. Hints: a kernel without
    // `MADV_POPULATE_WRITE` (before Linux 5.14) faults the pages in as used.
    // SAFETY: advice on the writable mapping just made.
    unsafe {
        libc::madvise(base, len, libc::MADV_NOHUGEPAGE);
        libc::madvise(
            (base as usize + len - PREFAULTED_TOP) as *mut libc::c_void,
            PREFAULTED_TOP,
            libc::MADV_POPULATE_WRITE,
        )
    };
    let stack = (base as usize + page) as *mut u8;
    let mapping = Mapping {
        base,
        len,
        old_low: STACK_LOW.with(|l| l.replace(stack as usize)),
    };
    // A panic must not unwind through the stack switch: it is caught on the new stack and
    // resumed on the caller's, as `stacker` does.
    // SAFETY: `stack` is the start of `STAGE_STACK` writable bytes that stay mapped until
    // `on_stack` returns (`mapping` is dropped after it).
    let outcome = unsafe {
        psm::on_stack(stack, STAGE_STACK, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        })
    };
    drop(mapping);
    match outcome {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Elsewhere `stacker` finds the thread's bounds and maps the stack (it knows each
/// system's way).
#[cfg(not(target_os = "linux"))]
fn on_fresh_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(STAGE_RED_ZONE, STAGE_STACK, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recursion far deeper than a test thread's 2 MiB stack allows runs on the stage stack,
    /// nested calls stay on it, and a panic inside comes back out as a panic.
    #[test]
    fn deep_recursion_runs_on_the_stage_stack() {
        fn depth(n: u32) -> u32 {
            // Zeros the optimizer cannot see through, alive across the call: a real frame.
            let pad = std::hint::black_box([0u8; 512]);
            if n == 0 {
                0
            } else {
                depth(n - 1) + 1 + u32::from(pad[n as usize % 512])
            }
        }
        // 16K frames of more than 512 bytes: more than 8 MiB.
        let outer = psm::stack_pointer() as usize;
        let got = with_stage_stack(|| {
            let inner = psm::stack_pointer() as usize;
            assert!(
                inner.abs_diff(outer) > STAGE_RED_ZONE,
                "not on a fresh stack"
            );
            let nested = with_stage_stack(|| psm::stack_pointer() as usize);
            assert!(
                nested.abs_diff(inner) < 1 << 20,
                "a nested call mapped another stack"
            );
            depth(16_000)
        });
        assert_eq!(got, 16_000);
        let caught = std::panic::catch_unwind(|| with_stage_stack(|| panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(
            STACK_LOW.with(Cell::get),
            0,
            "the thread's bound was not restored"
        );
    }
}
