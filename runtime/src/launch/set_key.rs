//! Descriptor-set identity: a launch that binds exactly what an earlier launch of the batch
//! bound reuses that set.

use super::*;

/// What a descriptor set binds: the kernel (its layout) and, per binding, the Vulkan handle and
/// image layout. Handles stay valid (and unique) while the batch keeps their owners alive.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SetKey {
    kernel: usize,
    bindings: Vec<(u32, u64, i32)>,
}

impl SetKey {
    /// The key of binding `bindings` for `kernel`.
    pub(crate) fn of(kernel: &Kernel, bindings: &[(u32, vk::DescriptorType, Bound)]) -> SetKey {
        SetKey {
            kernel: Arc::as_ptr(&kernel.inner) as usize,
            bindings: bindings
                .iter()
                .map(|(binding, _, b)| {
                    let (handle, layout) = bound_handle(b);
                    (*binding, handle, layout)
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
                    let (handle, layout) = bound_handle(b);
                    k == (*binding, handle, layout)
                })
    }
}

/// The Vulkan handle and image layout (0 for none) a bound resource is keyed by.
fn bound_handle(b: &Bound) -> (u64, i32) {
    match b {
        Bound::Buffer(buf) => (buf.inner.raw.buffer.as_raw(), 0),
        // The element number stands in the layout's place: a binding's elements differ by it.
        Bound::ArrayElement(buf, e) => (buf.inner.raw.buffer.as_raw(), *e as i32),
        Bound::Image(img, l) => (img.inner.view.as_raw(), l.as_raw()),
        Bound::Texture(tex, l) => (tex.inner.view.as_raw(), l.as_raw()),
        Bound::Sampler(smp) => (smp.inner.sampler.as_raw(), 0),
    }
}
