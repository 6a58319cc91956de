//! The device operations native host code calls most, straight to the runtime on typed
//! operands: a synchronous upload or download between a plain array and a Vulkan buffer of
//! the same scalar type, and a launch whose arguments are buffers and scalars.
//!
//! Native code reaches them through its C-ABI calls (`host/native/device_calls.rs`) with the
//! operands it holds, where the general entry points (`buffer_transfer_values`,
//! `launch_values`) take the interpreter's operand vectors: per call they allocate, clone
//! and re-check what a loop's iterations do not change. Each function here answers `None`,
//! before it has done anything, when its operands need more than the common case (the CPU
//! device, a stream given but destroyed, a precision or vector or POD buffer, an array that
//! may be pinned or is the target of a pending `downloadAsync`, an unallocated buffer, a
//! dynamic shared array, `spec:` values, a 16-bit float argument…): the caller then takes the
//! general path, which does the same work and reports the same errors.

use cajeta_runtime::{KernelArg, LaunchConfig};

use super::eval::{err, Fail, Interp};
use super::value::{Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, Launch, ScalarType, Type};
use crate::kernel::spirv::AddressVariant;

/// An argument of a launch as native code holds it: an object's value (in a frame slot) or a
/// scalar.
pub(crate) enum DirectArg<'v> {
    /// A buffer, image, array… (only buffers take the direct path).
    Object(&'v Value),
    /// A scalar held in a register.
    Scalar(Scalar),
    /// A vector, matrix or POD (never the direct path).
    Other,
}

impl Interp<'_> {
    /// `buf.upload(arr)` (`upload`) or `buf.download(arr)` with an optional `stream`
    /// operand; `args` are the operation's operand expressions. `None`: take the general
    /// path.
    pub(crate) fn direct_transfer(
        &mut self,
        upload: bool,
        (buf, arr, stream): (&Value, &Value, Option<&Value>),
        args: &[Expr],
        span: Span,
    ) -> Option<Result<(), Fail>> {
        if self.device.cpu.is_some() || args.len() != 2 + usize::from(stream.is_some()) {
            return None;
        }
        let (Value::Buffer(obj), Value::Array(array)) = (buf, arr) else {
            return None;
        };
        let plain_elem = obj.pod.is_none()
            && obj.lanes == 1
            && obj.elem != ScalarType::Sfp
            && super::int_transfer::native_lane(obj.elem).is_none();
        if !plain_elem {
            return None;
        }
        obj.with_vulkan_live(|_| ())?;
        let bytes_len = {
            let a = array.borrow();
            if a.elem_scalar() != Some(obj.elem) || a.len() as u64 != obj.len {
                return None;
            }
            super::buffer_transfer::plain_bytes(&a)?.len()
        };
        if self.device.pins.may_pin(bytes_len)
            || self
                .device
                .streams()
                .any(|s| !s.downloads.borrow().is_empty())
        {
            return None;
        }
        let stream = match stream {
            Some(Value::Stream(s)) if !s.destroyed.get() => s.clone(),
            Some(_) => return None,
            None => self.device.stream(span).ok()?,
        };
        let vk = stream.vulkan()?;
        if bytes_len == 0 {
            return Some(Ok(()));
        }
        if upload {
            let a = array.borrow();
            let bytes = super::buffer_transfer::plain_bytes(&a)?;
            // The buffer borrowed, not cloned: with no other handle to it and no work of the
            // device on it, the runtime writes the bytes straight into its mapping instead of
            // recording a staged copy (the Rust API's upload does the same).
            let r = obj.with_vulkan_live(|buffer| vk.upload_buffer(buffer, bytes))?;
            return Some(r.map(drop).or_else(|x| err(span, x.to_string())));
        }
        let r = {
            let mut a = array.borrow_mut();
            let bytes = super::buffer_transfer::plain_bytes_mut(&mut a)?;
            obj.with_vulkan_live(|buffer| vk.download_buffer(buffer, bytes))?
        };
        Some(self.device.waited(span, r))
    }

    /// Launch `l` with its operands as native code holds them: the stream's value, the grid's
    /// sizes then the block's, the arguments. `None`: take the general path.
    pub(crate) fn direct_launch(
        &mut self,
        l: &Launch,
        (stream, dims, args): (&Value, &[Scalar], &[DirectArg<'_>]),
        span: Span,
    ) -> Option<Result<(), Fail>> {
        if self.device.cpu.is_some() || l.shared_bytes.is_some() || !l.spec.is_empty() {
            return None;
        }
        let module = self.module;
        let kernel_fn = module.functions.get(l.kernel.0)?;
        if self.dynamic_shared(l.kernel, kernel_fn).is_some() {
            return None;
        }
        let Value::Stream(stream) = stream else {
            return None;
        };
        if stream.destroyed.get() {
            return None;
        }
        let vk = stream.vulkan()?;
        let (grid, block) = (
            shape(&l.grid, dims)?,
            shape(&l.block, dims.get(l.grid.len()..)?)?,
        );
        let params = kernel_fn.params();
        if params.len() != args.len() {
            return None;
        }
        // The buffers' handles first, so that the runtime's arguments can borrow them.
        let mut buffers = Vec::new();
        for (p, a) in params.iter().zip(args) {
            match (&p.ty, a) {
                (Type::Buffer(_), DirectArg::Object(Value::Buffer(b))) => {
                    buffers.push(b.vulkan_live()?)
                }
                (Type::Scalar(_), DirectArg::Scalar(_)) => {}
                _ => return None,
            }
        }
        let mut bufs = buffers.iter();
        let mut kernel_args = Vec::with_capacity(args.len());
        // A 16-bit float scalar travels as bytes: the general path builds them.
        for a in args {
            kernel_args.push(match a {
                DirectArg::Scalar(s) => match super::launch::scalar_arg(*s) {
                    super::launch::OwnedArg::Scalar(v) => KernelArg::Scalar(v),
                    _ => return None,
                },
                _ => KernelArg::Buffer(bufs.next()?),
            });
        }
        let by_address = match self.device.compiled(l.kernel).map(|k| &k.by_address) {
            Some(AddressVariant::Compiled(v)) => Some(v.reflection.push_constants.size),
            Some(AddressVariant::Refused(_)) => Some(0),
            Some(AddressVariant::None) | None => None,
        };
        let by_address = match by_address {
            Some(push_bytes) => {
                let ctx = self.device.context(span).ok()?;
                let mode = ctx.buffer_addressing().ok()?;
                ctx.wants_address_variant(mode, push_bytes, buffers.iter())
            }
            None => false,
        };
        let kernel = match self
            .device
            .kernel(l.kernel, &kernel_fn.name, span, by_address)
        {
            Ok(k) => k,
            Err(e) => return Some(Err(e)),
        };
        let config = LaunchConfig {
            grid,
            block,
            spec: Vec::new(),
            shared_bytes: None,
            psc: l.psc,
        };
        let checked = kernel.reflection().bounds_check.is_some();
        let id = match vk.launch(kernel, &config, &kernel_args) {
            Ok(id) => id,
            Err(x) => return Some(super::devices::foreign_note(err(span, x.to_string()), &x)),
        };
        if checked {
            self.device.checked_launches.insert(id, span);
        }
        Some(Ok(()))
    }
}

/// A grid's or block's 1 to 3 sizes from the first values of `dims` (`es`: their
/// expressions); `None` for a value the general path reports (negative, past `uint32`).
fn shape(es: &[Expr], dims: &[Scalar]) -> Option<[u32; 3]> {
    if es.is_empty() || es.len() > 3 || dims.len() < es.len() {
        return None;
    }
    let mut out = [1u32; 3];
    for (d, v) in out.iter_mut().zip(&dims[..es.len()]) {
        *d = u32::try_from(v.as_int()?).ok()?;
    }
    Some(out)
}
