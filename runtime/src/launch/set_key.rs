//! Descriptor-set identity: a launch that binds exactly what an earlier launch of the batch
//! bound reuses that set.

use super::*;

/// What a descriptor set binds: the kernel (its layout) and, per binding, the Vulkan handle and
/// image layout. Handles stay valid (and unique) while the batch keeps their owners alive.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SetKey {
    kernel: usize,
    bindings: Vec<(u32, u64, i64, u64)>,
}

impl SetKey {
    /// The key of binding `bindings` for `kernel`.
    pub(crate) fn of(kernel: &Kernel, bindings: &[(u32, vk::DescriptorType, Bound)]) -> SetKey {
        SetKey {
            kernel: Arc::as_ptr(&kernel.inner) as usize,
            bindings: bindings
                .iter()
                .map(|(binding, _, b)| {
                    let (handle, at, range) = bound_handle(b);
                    (*binding, handle, at, range)
                })
                .collect(),
        }
    }

    /// Whether this is the key of binding `bindings` for `kernel` (without building one).
    pub(crate) fn matches(
        &self,
        kernel: &Kernel,
        bindings: &[(u32, vk::DescriptorType, Bound)],
    ) -> bool {
        self.kernel == Arc::as_ptr(&kernel.inner) as usize
            && self.bindings.len() == bindings.len()
            && self
                .bindings
                .iter()
                .zip(bindings)
                .all(|(&k, (binding, _, b))| {
                    let (handle, at, range) = bound_handle(b);
                    k == (*binding, handle, at, range)
                })
    }
}

/// What a bound resource is keyed by: its Vulkan handle, then a buffer's byte offset and
/// size (a slice binds a range) or an image's layout.
fn bound_handle(b: &Bound) -> (u64, i64, u64) {
    match b {
        Bound::Buffer(buf) => (
            buf.inner.raw.buffer.as_raw(),
            buf.offset() as i64,
            buf.size(),
        ),
        // An element of a buffer array: its place in the binding is its place in the list.
        Bound::ArrayElement(buf, _) => (
            buf.inner.raw.buffer.as_raw(),
            buf.offset() as i64,
            buf.size(),
        ),
        Bound::Image(img, l) => (img.inner.view.as_raw(), i64::from(l.as_raw()), 0),
        Bound::Texture(tex, l) => (tex.inner.view.as_raw(), i64::from(l.as_raw()), 0),
        Bound::Sampler(smp) => (smp.inner.sampler.as_raw(), 0, 0),
        Bound::AccelStruct(a) => (a.inner.handle.as_raw(), 0, 0),
    }
}
