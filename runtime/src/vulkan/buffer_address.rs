//! When a launch addresses its buffers through buffer device addresses rather than
//! descriptors: a compiler makes each kernel with a `KernelBuffer<T>` parameter twice (the
//! descriptor module and its *address variant*, whose reflection places such parameters as
//! [`crate::ParameterSlot::Address`]), and the launching code picks one per launch with
//! [`Context::wants_address_variant`].

use crate::{Buffer, Context};

/// Which kernel variant launches take (`CAJETA_BUFFER_ADDRESS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BufferAddressing {
    /// The address variant only when a buffer argument exceeds `maxStorageBufferRange`
    /// (which a descriptor cannot cover); the descriptor module otherwise.
    #[default]
    Auto,
    /// The address variant whenever the kernel has one (to test that path on small buffers).
    Always,
    /// Never: a buffer past `maxStorageBufferRange` is a launch error.
    Never,
}

impl BufferAddressing {
    /// The environment variable that chooses it: `auto`, `always` or `never`.
    pub const ENV: &'static str = "CAJETA_BUFFER_ADDRESS";

    /// Parses `auto`, `always` or `never`.
    pub fn from_name(name: &str) -> Option<BufferAddressing> {
        match name {
            "auto" => Some(BufferAddressing::Auto),
            "always" => Some(BufferAddressing::Always),
            "never" => Some(BufferAddressing::Never),
            _ => None,
        }
    }

    /// [`Self::ENV`]'s value ([`BufferAddressing::Auto`] when unset or empty); any other
    /// spelling is an error naming the accepted ones.
    pub fn from_env() -> Result<BufferAddressing, String> {
        match std::env::var(Self::ENV) {
            Ok(v) if !v.is_empty() => Self::from_name(&v)
                .ok_or_else(|| format!("{}={v} is not one of auto, always, never", Self::ENV)),
            _ => Ok(BufferAddressing::Auto),
        }
    }
}

impl Context {
    /// The variant choice of this context: [`crate::ContextOptions::buffer_addressing`], or
    /// [`BufferAddressing::from_env`] as it was when the context was made, when that is
    /// `None`.
    pub fn buffer_addressing(&self) -> Result<BufferAddressing, String> {
        self.inner.buffer_addressing.clone()
    }

    /// Whether a launch whose buffer arguments are `buffers` takes the kernel's address
    /// variant (whose push-constant block takes `variant_push_bytes`) under `mode`. `Always`
    /// keeps the descriptor module for a variant whose block exceeds the device's
    /// `maxPushConstantsSize` (16 bytes per buffer can overflow 128); `Auto` takes it anyway,
    /// so the launch fails naming that limit rather than the descriptor range.
    pub fn wants_address_variant<'b>(
        &self,
        mode: BufferAddressing,
        variant_push_bytes: u32,
        mut buffers: impl Iterator<Item = &'b Buffer>,
    ) -> bool {
        let fits = variant_push_bytes <= self.device_info().limits.max_push_constants_size;
        match mode {
            BufferAddressing::Always => fits,
            BufferAddressing::Never => false,
            BufferAddressing::Auto => {
                let range = u64::from(self.device_info().limits.max_storage_buffer_range);
                buffers.any(|b| b.size() > range)
            }
        }
    }
}
