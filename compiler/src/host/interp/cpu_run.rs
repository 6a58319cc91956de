//! Host code on the CPU device (docs/cpu-device.md, "Running programs"): buffers are host
//! memory of `cajeta_runtime::cpu`, kernels the CPU target's native code, compiled before
//! the run (`CpuRun`). A launch, upload or download has finished when it returns, so the
//! streams of the program order nothing: `sync()` has nothing to wait for, an asynchronous
//! download lands at once, and an event records the host's clock (so `Event.elapsedMs`
//! measures the host time between two records). What only a Vulkan device has
//! (acceleration structures, pinned host memory, several devices, ranks) is a runtime error
//! naming it.

use std::collections::HashMap;

use cajeta_runtime::cpu::{
    CpuArg, CpuBuffer, CpuDevice, CpuImage, CpuKernel, CpuSampler, CpuTexture,
};
use cajeta_runtime::{LaunchConfig, Sampler, Texture, TextureDesc};

use super::device::DevBuffer;
use super::eval::{err, internal, Fail, Interp};
use crate::diagnostics::Span;
use crate::ir::FunctionId;

/// The CPU device of a run and every kernel of the program compiled for it.
pub struct CpuRun {
    /// The device the kernels run on.
    pub device: CpuDevice,
    /// Each kernel's native code.
    pub kernels: HashMap<FunctionId, CpuKernel>,
}

/// The error of an operation the CPU device does not offer.
pub(super) fn unsupported<T>(span: Span, what: &str) -> Result<T, Fail> {
    err(
        span,
        format!("{what} is not available on the cpu device; run the program on a Vulkan device (`--device N`)"),
    )
}

/// A kernel argument for the CPU device, owning what it names for the launch.
pub(super) enum CpuOwned {
    /// A buffer parameter.
    Buffer(CpuBuffer),
    /// An `Image2D` parameter.
    Image(CpuImage),
    /// A texture parameter (or an image read as one).
    Texture(CpuTexture),
    /// A `Sampler` parameter.
    Sampler(CpuSampler),
    /// A scalar.
    Scalar(cajeta_runtime::ScalarValue),
    /// A vector, matrix or POD push constant (std430 bytes).
    Bytes(Vec<u8>),
}

impl CpuOwned {
    fn as_arg(&self) -> CpuArg<'_> {
        match self {
            CpuOwned::Buffer(b) => CpuArg::Buffer(b),
            CpuOwned::Image(i) => CpuArg::Image(i),
            CpuOwned::Texture(t) => CpuArg::Texture(t),
            CpuOwned::Sampler(s) => CpuArg::Sampler(s),
            CpuOwned::Scalar(s) => CpuArg::Scalar(*s),
            CpuOwned::Bytes(b) => CpuArg::Bytes(b),
        }
    }
}

/// A texture on the device the run uses.
pub enum DevTexture {
    /// On a Vulkan device.
    Vulkan(Texture),
    /// On the CPU device.
    Cpu(CpuTexture),
}

impl DevTexture {
    /// Its description.
    pub fn desc(&self) -> &TextureDesc {
        match self {
            DevTexture::Vulkan(t) => t.desc(),
            DevTexture::Cpu(t) => t.desc(),
        }
    }
}

/// A sampler on the device the run uses.
pub enum DevSampler {
    /// On a Vulkan device.
    Vulkan(Sampler),
    /// On the CPU device.
    Cpu(CpuSampler),
}

/// The host memory of a buffer on the CPU device.
pub(super) fn cpu_buffer(b: &DevBuffer, span: Span) -> Result<&CpuBuffer, Fail> {
    match b {
        DevBuffer::Cpu(b) => Ok(b),
        DevBuffer::Vulkan(_) => internal(span, "a Vulkan buffer in a run on the cpu device"),
    }
}

/// Copies `bytes` into the first bytes of `buf` (a transfer's image may be shorter than
/// the buffer: the rounding of packed lanes to whole words).
pub(super) fn upload(cpu: &CpuRun, buf: &CpuBuffer, bytes: &[u8], span: Span) -> Result<(), Fail> {
    if bytes.is_empty() {
        return Ok(());
    }
    buf.slice(0, bytes.len() as u64)
        .and_then(|part| cpu.device.upload(&part, bytes))
        .or_else(|e| err(span, e.to_string()))
}

/// Fills `out` from the first bytes of `buf`.
pub(super) fn download(
    cpu: &CpuRun,
    buf: &CpuBuffer,
    out: &mut [u8],
    span: Span,
) -> Result<(), Fail> {
    if out.is_empty() {
        return Ok(());
    }
    buf.slice(0, out.len() as u64)
        .and_then(|part| cpu.device.download(&part, out))
        .or_else(|e| err(span, e.to_string()))
}

impl Interp<'_> {
    /// Launches kernel `id` (named `name`) on the CPU device: it has finished on return.
    pub(super) fn cpu_launch(
        &self,
        cpu: &CpuRun,
        (id, name): (FunctionId, &str),
        config: &LaunchConfig,
        args: &[CpuOwned],
        span: Span,
    ) -> Result<(), Fail> {
        let Some(kernel) = cpu.kernels.get(&id) else {
            return err(
                span,
                format!("kernel `{name}` was not compiled for the cpu device"),
            );
        };
        let args: Vec<CpuArg<'_>> = args.iter().map(CpuOwned::as_arg).collect();
        // Cajeta's `Device.setCpuWorkerCap(n)` applies to the launches after it.
        cpu.device.set_worker_cap(self.cpu_worker_cap);
        cpu.device
            .launch(kernel, config, &args)
            .or_else(|e| err(span, e.to_string()))
    }
}
