//! The interface between the runtime and a kernel compiled for the CPU device: what one
//! invocation is handed. The compiler's CPU target (`compiler/src/kernel/llvm/cpu`) declares
//! the same layout as an LLVM struct; the field order and types here must match it.

use std::ffi::c_void;

/// One binding as a CPU kernel sees it: the buffer's first byte and its size in bytes (what
/// `buf.length()` divides by the element size); for a storage image its texels' first byte
/// and size, and its width and height (0 for buffers).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct BindingSlot {
    /// The buffer's bytes.
    pub data: *mut u8,
    /// Their number.
    pub bytes: u64,
    /// An image's width in texels.
    pub width: u32,
    /// An image's height in texels.
    pub height: u32,
}

/// The function a kernel calls at a workgroup barrier, with the invocation's context.
pub type BarrierFn = extern "C" fn(*mut InvocationContext);

/// Everything one invocation reads besides its buffers: the bindings in binding order, the
/// push-constant block (the same std430 bytes a Vulkan launch pushes), the workgroup's shared
/// memory, the barrier, and the built-in ids.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InvocationContext {
    /// Indexed by binding number.
    pub bindings: *const BindingSlot,
    /// The push-constant block.
    pub push: *const u8,
    /// The workgroup's shared memory (`Reflection::static_shared_bytes` bytes, then the
    /// dynamic shared array's from the next 16-byte boundary).
    pub shared: *mut u8,
    /// Called at a workgroup barrier.
    pub barrier: BarrierFn,
    /// What `barrier` needs to find the workgroup's rendezvous.
    pub barrier_state: *const c_void,
    /// [`SCRATCH_BYTES`] bytes an access past the end of a buffer or shared array is sent to
    /// instead (Vulkan's robust buffer access: the write is lost, the read gives what is
    /// there), so that a bad index never touches memory outside the kernel's own.
    pub scratch: *mut u8,
    /// `GlobalInvocationId`.
    pub global_id: [u32; 3],
    /// `LocalInvocationId`.
    pub local_id: [u32; 3],
    /// `WorkgroupId`.
    pub workgroup_id: [u32; 3],
    /// `WorkgroupSize`.
    pub workgroup_size: [u32; 3],
    /// `NumWorkgroups`.
    pub num_workgroups: [u32; 3],
    /// The launch's `Spec` slot values (`LaunchConfig::spec`), slot 0 first.
    pub spec: *const u32,
    /// How many there are: a slot past them reads its default.
    pub spec_count: u32,
    /// The kernel's dynamic shared array (`shared T[n]` with `n` not a constant): the
    /// launch's `shared_bytes` past the fixed-size arrays in the workgroup's shared memory.
    pub dynamic_shared: *mut u8,
    /// Its size in bytes (what its `length()` divides by the element size); 0 without one.
    pub dynamic_shared_bytes: u32,
    /// A kernel split at its barriers keeps the values one invocation carries across a
    /// barrier here: [`super::KernelEntries::private_bytes`] per invocation of the
    /// workgroup, 16-byte aligned (null for other kernels).
    pub private: *mut u8,
}

/// Bytes of an invocation's scratch area: the widest element the CPU target accepts (a POD
/// element of a buffer; the widest other one is a 4-lane `float64` vector, 32 bytes).
pub const SCRATCH_BYTES: usize = 256;

/// A compiled kernel's entry: runs one invocation.
pub type KernelEntry = unsafe extern "C" fn(*mut InvocationContext);

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiler's LLVM struct `{ ptr × 6, [3 x i32] × 5, ptr, i32, ptr, i32, ptr }` puts the
    /// id arrays at these offsets; a change here must change it there.
    #[test]
    fn context_layout_matches_the_compiler() {
        assert_eq!(std::mem::offset_of!(InvocationContext, bindings), 0);
        assert_eq!(std::mem::offset_of!(InvocationContext, barrier_state), 32);
        assert_eq!(std::mem::offset_of!(InvocationContext, global_id), 48);
        assert_eq!(std::mem::offset_of!(InvocationContext, num_workgroups), 96);
        assert_eq!(std::mem::offset_of!(InvocationContext, spec), 112);
        assert_eq!(std::mem::offset_of!(InvocationContext, spec_count), 120);
        assert_eq!(std::mem::offset_of!(InvocationContext, dynamic_shared), 128);
        assert_eq!(
            std::mem::offset_of!(InvocationContext, dynamic_shared_bytes),
            136
        );
        assert_eq!(std::mem::offset_of!(InvocationContext, private), 144);
        // `CONTEXT_BYTES` of the compiler's `cpu/hooks.rs`.
        assert_eq!(std::mem::size_of::<InvocationContext>(), 152);
        assert_eq!(std::mem::size_of::<BindingSlot>(), 24);
        assert_eq!(std::mem::offset_of!(BindingSlot, width), 16);
    }
}
