//! `kernel.launch(stream, grid: [...], block: [...])(args...)` in host code: the arguments
//! evaluated and kept alive for the launch, the shape and options, and the runtime call.

use std::rc::Rc;

use cajeta_runtime::{Buffer, KernelArg, LaunchConfig, ScalarValue};

use super::acceleration::AccelObj;
use super::cpu_run::{CpuOwned, DevSampler, DevTexture};
use super::device::{DevBuffer, ImageObj};
use super::eval::{err, internal, Fail, Frame, Interp};
use super::operands::{stream_of, u32_of};
use super::ops::{bf16_to_bits, f16_to_bits};
use super::textures::{SamplerObj, TextureObj};
use super::value::{Scalar, Value};

use crate::diagnostics::Span;
use crate::ir::{Expr, Launch, Type};
use crate::kernel::spirv::AddressVariant;

/// A kernel argument with the resources it names kept alive for the launch.
pub(super) enum OwnedArg {
    Buffer(DevBuffer),
    Buffers(Vec<Buffer>),
    Image(Rc<ImageObj>),
    /// An image passed for a `Texture2D` parameter.
    ImageTexture(Rc<ImageObj>),
    Texture(Rc<TextureObj>),
    Sampler(Rc<SamplerObj>),
    AccelStruct(Rc<AccelObj>),
    Scalar(ScalarValue),
    Bytes(Vec<u8>),
}

impl OwnedArg {
    /// The argument of a Vulkan launch.
    fn as_arg(&self, span: Span) -> Result<KernelArg<'_>, Fail> {
        Ok(match self {
            OwnedArg::Buffer(b) => KernelArg::Buffer(b.vulkan(span, "a Vulkan buffer")?),
            OwnedArg::Buffers(b) => KernelArg::Buffers(b),
            OwnedArg::Image(i) | OwnedArg::ImageTexture(i) => {
                KernelArg::Image(i.vulkan(span, "a Vulkan image")?)
            }
            OwnedArg::Texture(t) => match &t.texture {
                DevTexture::Vulkan(t) => KernelArg::Texture(t),
                DevTexture::Cpu(_) => return internal(span, "a cpu texture on a Vulkan device"),
            },
            OwnedArg::Sampler(s) => match &s.sampler {
                DevSampler::Vulkan(s) => KernelArg::Sampler(s),
                DevSampler::Cpu(_) => return internal(span, "a cpu sampler on a Vulkan device"),
            },
            OwnedArg::AccelStruct(a) => KernelArg::AccelStruct(&a.tlas),
            OwnedArg::Scalar(s) => KernelArg::Scalar(*s),
            OwnedArg::Bytes(b) => KernelArg::Bytes(b),
        })
    }

    /// The argument of a CPU device launch: buffers, scalars and push-constant bytes (the
    /// CPU target refuses kernels with other parameters before the run).
    fn into_cpu(self, span: Span) -> Result<CpuOwned, Fail> {
        Ok(match self {
            OwnedArg::Buffer(b) => CpuOwned::Buffer(super::cpu_run::cpu_buffer(&b, span)?.clone()),
            OwnedArg::Scalar(s) => CpuOwned::Scalar(s),
            OwnedArg::Bytes(b) => CpuOwned::Bytes(b),
            OwnedArg::Buffers(_) => {
                return super::cpu_run::unsupported(span, "a buffer array argument")
            }
            OwnedArg::Image(i) => match i.cpu() {
                Some(img) => CpuOwned::Image(img.clone()),
                None => return internal(span, "a Vulkan image in a run on the cpu device"),
            },
            OwnedArg::ImageTexture(i) => match i.cpu() {
                Some(img) => CpuOwned::Texture(img.as_texture()),
                None => return internal(span, "a Vulkan image in a run on the cpu device"),
            },
            OwnedArg::Texture(t) => match &t.texture {
                DevTexture::Cpu(t) => CpuOwned::Texture(t.clone()),
                DevTexture::Vulkan(_) => {
                    return internal(span, "a Vulkan texture on the cpu device")
                }
            },
            OwnedArg::Sampler(s) => match &s.sampler {
                DevSampler::Cpu(s) => CpuOwned::Sampler(s.clone()),
                DevSampler::Vulkan(_) => {
                    return internal(span, "a Vulkan sampler on the cpu device")
                }
            },
            OwnedArg::AccelStruct(_) => {
                return super::cpu_run::unsupported(span, "an acceleration structure argument")
            }
        })
    }
}

/// The push-constant form of a scalar argument. The runtime has no 16-bit float scalar,
/// so `float16`/`bfloat16` travel as their 2 raw bytes.
pub(super) fn scalar_arg(s: Scalar) -> OwnedArg {
    OwnedArg::Scalar(match s {
        Scalar::Bool(x) => ScalarValue::Bool(x),
        Scalar::I8(x) => ScalarValue::I8(x),
        Scalar::I16(x) => ScalarValue::I16(x),
        Scalar::I32(x) => ScalarValue::I32(x),
        Scalar::I64(x) => ScalarValue::I64(x),
        Scalar::U8(x) => ScalarValue::U8(x),
        Scalar::U16(x) => ScalarValue::U16(x),
        Scalar::U32(x) => ScalarValue::U32(x),
        Scalar::U64(x) => ScalarValue::U64(x),
        Scalar::F32(x) => ScalarValue::F32(x),
        Scalar::F64(x) => ScalarValue::F64(x),
        Scalar::F16(x) => return OwnedArg::Bytes(f16_to_bits(x).to_le_bytes().to_vec()),
        Scalar::BF16(x) => return OwnedArg::Bytes(bf16_to_bits(x).to_le_bytes().to_vec()),
    })
}

/// An exception of a `try` block waiting for its `catch` ([`Interp::caught`],
/// [`Interp::caught_fault`]).
pub(crate) struct Caught {
    /// `e.getMessage()`: the runtime error's text.
    pub(crate) message: String,
    /// A checked kernel's fault found at a wait (Cajeta's `KernelError`), not a refused
    /// launch (`XpuLaunchException`).
    pub(crate) kernel_fault: bool,
}

/// The values of a launch's operands, in source order: what `launch_values` runs.
pub(crate) struct LaunchOperands {
    /// The stream.
    pub stream: Value,
    /// The grid's sizes, then the block's.
    pub dims: Vec<Scalar>,
    /// The kernel's arguments.
    pub args: Vec<Value>,
    /// `sharedBytes:`, when given.
    pub shared_bytes: Option<Scalar>,
    /// `spec:`, in order.
    pub spec: Vec<Scalar>,
}

/// Workgroup counts or sizes from the values of the 1 to 3 expressions `es`.
fn dims(values: &[Scalar], es: &[Expr], what: &str, span: Span) -> Result<[u32; 3], Fail> {
    if es.is_empty() || es.len() > 3 || values.len() < es.len() {
        return internal(span, format!("{what} with {} dimensions", es.len()));
    }
    let mut dims = [1u32; 3];
    for ((d, v), e) in dims.iter_mut().zip(values).zip(es) {
        *d = u32_of(*v, e, what)?;
    }
    Ok(dims)
}

impl Interp<'_> {
    /// The device memory of every buffer in the host array bound to buffer-array parameter
    /// `param` (`e` is the argument): a null or unallocated element is an error naming it.
    fn array_buffers(
        &self,
        a: &super::value::ArrayRef,
        e: &Expr,
        param: &str,
    ) -> Result<Vec<Buffer>, Fail> {
        let a = a.borrow();
        let mut out = Vec::with_capacity(a.len());
        for k in 0..a.len() {
            match a.get(k) {
                Some(Value::Buffer(b)) => {
                    let live = self.live_buffer(&b, e, e.span).map_err(|mut f| {
                        f.message = format!(
                            "element {k} of the buffer array for `{param}`: {}",
                            f.message
                        );
                        f
                    })?;
                    out.push(live.vulkan(e.span, "a buffer array")?.clone());
                }
                Some(Value::Void) => {
                    return err(
                        e.span,
                        format!("element {k} of the buffer array for `{param}` is null"),
                    )
                }
                _ => return internal(e.span, format!("element {k} of a buffer array")),
            }
        }
        Ok(out)
    }

    /// `kernel.launch(stream, grid: [...], block: [...])(args...)`: its operands evaluated
    /// in source order, then [`Self::launch_values`].
    pub fn launch(&mut self, f: &mut Frame, l: &Launch, span: Span) -> Result<Value, Fail> {
        let stream = self.eval(f, &l.stream)?;
        let mut dims = Vec::with_capacity(l.grid.len() + l.block.len());
        for e in l.grid.iter().chain(&l.block) {
            dims.push(self.eval_scalar(f, e)?);
        }
        let args = self.eval_all(f, &l.args)?;
        let shared_bytes = match &l.shared_bytes {
            Some(e) => Some(self.eval_scalar(f, e)?),
            None => None,
        };
        let mut spec = Vec::with_capacity(l.spec.len());
        for e in &l.spec {
            spec.push(self.eval_scalar(f, e)?);
        }
        let operands = LaunchOperands {
            stream,
            dims,
            args,
            shared_bytes,
            spec,
        };
        let r = self.launch_values(l, operands, span).map(drop);
        self.caught(l, r).map(|()| Value::Void)
    }

    /// A wait inside a `try` block (`HostOp::CatchKernelFault`): `r` is its result. A fault of
    /// a checked kernel that it reports (a runtime error naming the launch) is kept for the
    /// `catch` of `KernelError` instead of ending the run; any other failure still ends it.
    pub(crate) fn caught_fault(&mut self, r: Result<Value, Fail>) -> Result<Value, Fail> {
        match r {
            Err(fail) if fail.launch.is_some() => {
                self.waiting = Some(Caught {
                    message: fail.message.clone(),
                    kernel_fault: true,
                });
                Ok(Value::Void)
            }
            r => r,
        }
    }

    /// The result of launch `l`: a refusal of a launch written in a `try` block is kept for
    /// its `catch` (and counted by `Device.launchFailures()`) instead of ending the run. Both
    /// executors pass every launch's result through here.
    pub(crate) fn caught(&mut self, l: &Launch, r: Result<(), Fail>) -> Result<(), Fail> {
        match r {
            Err(fail) if l.catches && !fail.message.starts_with("internal error") => {
                self.launch_failures += 1;
                self.waiting = Some(Caught {
                    message: fail.message.clone(),
                    kernel_fault: false,
                });
                Ok(())
            }
            r => r,
        }
    }

    /// A launch on its operands' values: both host executors run this (native code through
    /// `cajeta_launch`).
    pub(crate) fn launch_values(
        &mut self,
        l: &Launch,
        operands: LaunchOperands,
        span: Span,
    ) -> Result<Value, Fail> {
        let module = self.module;
        let Some(kernel_fn) = module.functions.get(l.kernel.0) else {
            return internal(span, format!("launch of unknown function #{}", l.kernel.0));
        };
        let stream = stream_of(operands.stream, &l.stream)?;
        let at = l.grid.len().min(operands.dims.len());
        let (grid_dims, block_dims) = operands.dims.split_at(at);
        let grid = dims(grid_dims, &l.grid, "grid", span)?;
        let block = dims(block_dims, &l.block, "block", span)?;
        let values = operands.args;
        let params = kernel_fn.params();
        if values.len() != params.len() {
            return internal(
                span,
                format!(
                    "`{}` launched with {} arguments",
                    kernel_fn.name,
                    values.len()
                ),
            );
        }
        let arg_scalars: Vec<Option<Scalar>> = values.iter().map(Value::as_scalar).collect();
        let mut owned = Vec::with_capacity(values.len());
        for ((v, p), e) in values.into_iter().zip(params).zip(&l.args) {
            owned.push(match (&p.ty, v) {
                (Type::Buffer(_), Value::Buffer(b)) => {
                    OwnedArg::Buffer(self.live_buffer(&b, e, e.span)?)
                }
                (ty, Value::Array(a)) if ty.is_buffer_array() => {
                    OwnedArg::Buffers(self.array_buffers(&a, e, &p.name)?)
                }
                // An image also feeds a `Texture2D` parameter (checked by sema); the
                // runtime binds it as a sampled image in the read-only layout.
                (Type::Image2D(_), Value::Image(i)) => OwnedArg::Image(i),
                (Type::Texture(..), Value::Image(i)) => OwnedArg::ImageTexture(i),
                (Type::Texture(..), Value::Texture(t)) => OwnedArg::Texture(t),
                (Type::Sampler, Value::Sampler(s)) => OwnedArg::Sampler(s),
                (Type::AccelStruct, Value::AccelStruct(a)) => OwnedArg::AccelStruct(a),
                (Type::Scalar(_), Value::Scalar(s)) => scalar_arg(s),
                (ty @ (Type::Vector(..) | Type::Matrix(..)), Value::Vector(lanes)) => {
                    OwnedArg::Bytes(super::lanes::push_bytes(ty, &lanes))
                }
                (Type::Struct(d), Value::Struct(fields)) => {
                    OwnedArg::Bytes(super::lanes::pod_bytes(d, &fields))
                }
                (_, Value::Void) => {
                    return err(e.span, format!("null argument for parameter `{}`", p.name))
                }
                (ty, v) => {
                    return internal(
                        e.span,
                        format!("argument {v:?} for parameter `{}` of type {ty}", p.name),
                    )
                }
            });
        }
        let shared_bytes = match (&l.shared_bytes, operands.shared_bytes) {
            (Some(e), Some(v)) => Some(u32_of(v, e, "sharedBytes")?),
            _ => None,
        };
        let spec_values: Vec<(Scalar, Span)> = operands
            .spec
            .into_iter()
            .zip(&l.spec)
            .map(|(v, e)| (v, e.span))
            .collect();
        if let Some(cpu) = self.device.cpu {
            let reflection = match cpu.kernels.get(&l.kernel) {
                Some(k) => k.reflection(),
                None => {
                    return err(
                        span,
                        format!(
                            "kernel `{}` was not compiled for the cpu device",
                            kernel_fn.name
                        ),
                    )
                }
            };
            let config = LaunchConfig {
                grid,
                block,
                spec: super::launch_opts::spec_bits(reflection, &spec_values)?,
                shared_bytes: super::launch_opts::shared_size(
                    kernel_fn,
                    self.dynamic_shared(l.kernel, kernel_fn),
                    &arg_scalars,
                    shared_bytes,
                    span,
                )?,
                psc: l.psc,
            };
            let args = owned
                .into_iter()
                .map(|a| a.into_cpu(span))
                .collect::<Result<Vec<_>, Fail>>()?;
            return self
                .cpu_launch(cpu, (l.kernel, &kernel_fn.name), &config, &args, span)
                .map(|()| Value::Void);
        }
        let args = owned
            .iter()
            .map(|a| a.as_arg(span))
            .collect::<Result<Vec<KernelArg<'_>>, Fail>>()?;
        let dynamic = self.dynamic_shared(l.kernel, kernel_fn).clone();
        let by_address = self.by_address(l, &owned, span)?;
        let kernel = self
            .device
            .kernel(l.kernel, &kernel_fn.name, span, by_address)?;
        let spec = super::launch_opts::spec_bits(kernel.reflection(), &spec_values)?;
        let shared_bytes =
            super::launch_opts::shared_size(kernel_fn, &dynamic, &arg_scalars, shared_bytes, span)?;
        let config = LaunchConfig {
            grid,
            block,
            spec,
            shared_bytes,
            psc: l.psc,
        };
        let checked = kernel.reflection().bounds_check.is_some();
        let id = stream
            .vk(span, "a Vulkan stream")?
            .launch(kernel, &config, &args)
            .or_else(|x| super::devices::foreign_note(err(span, x.to_string()), &x))?;
        if checked {
            self.device.checked_launches.insert(id, span);
        }
        Ok(Value::Void)
    }

    /// Whether this launch takes the kernel's address variant: when it has one and
    /// `CAJETA_BUFFER_ADDRESS` (auto: a buffer argument past `maxStorageBufferRange`) says so.
    fn by_address(&mut self, l: &Launch, args: &[OwnedArg], span: Span) -> Result<bool, Fail> {
        let push_bytes = match self.device.compiled(l.kernel).map(|k| &k.by_address) {
            Some(AddressVariant::Compiled(v)) => v.reflection.push_constants.size,
            // A refused variant is reported when the launch needs it.
            Some(AddressVariant::Refused(_)) => 0,
            Some(AddressVariant::None) | None => return Ok(false),
        };
        let ctx = self.device.context(span)?;
        let mode = ctx.buffer_addressing().or_else(|e| err(span, e))?;
        let buffers = args.iter().filter_map(|a| match a {
            OwnedArg::Buffer(DevBuffer::Vulkan(b)) => Some(b),
            _ => None,
        });
        Ok(ctx.wants_address_variant(mode, push_bytes, buffers))
    }
}
