//! The embedding API: compile Cajeta source (or load `.spv` + reflection JSON) and run the
//! kernels from Rust, with arguments checked against the reflection.
//!
//! ```no_run
//! use cajetac::embed::{args, Device, Program};
//!
//! # fn main() -> Result<(), cajetac::embed::Error> {
//! let program = Program::compile("saxpy.cajeta", r#"
//!     package demo;
//!     import cajeta.xpu.*;
//!     public final class Demo {
//!         @Kernel
//!         public static void saxpy(KernelBuffer<float32> x, KernelBuffer<float32> y,
//!                                  float32 a, uint32 n) {
//!             uint32 i = KernelThread.globalIdX();
//!             if (i < n) { y[i] = a * x[i] + y[i]; }
//!         }
//!     }"#)?;
//! let device = Device::for_program(&program)?;
//! let saxpy = device.kernel(&program, "saxpy")?;
//! let x = device.buffer_from(&[1.0f32, 2.0, 3.0])?;
//! let y = device.buffer_from(&[10.0f32, 20.0, 30.0])?;
//! let stream = device.stream();
//! saxpy.launch(&stream, [1, 1, 1], [64, 1, 1], args![&x, &y, 2.0f32, 3u32])?;
//! assert_eq!(y.download(&stream)?, vec![12.0, 24.0, 36.0]);
//! # Ok(()) }
//! ```
//!
//! Everything the runtime offers stays reachable through [`rt`] (`cajeta_runtime`): images,
//! textures, samplers, events, profiling, the barrier log.

mod buffer;

use std::fmt;
use std::path::Path;

pub use cajeta_runtime as rt;
/// The runtime types an embedding names most: a launch's result, a raw argument (a POD's
/// bytes), a stream.
pub use cajeta_runtime::{CommandId, KernelArg, Stream};
use cajeta_runtime::{
    Context, ContextOptions, DescriptorType, LaunchConfig, ParameterSlot, Reflection, RuntimeError,
    ScalarValue,
};

use crate::diagnostics::{render_human, SourceMap};
use crate::kernel::spirv::{AddressVariant, CompiledKernel, SpirvOptions};

pub use buffer::{DeviceBuffer, Element};

/// What can go wrong when embedding: compile errors (rendered like the CLI renders them),
/// files that cannot be read, unknown kernels, and runtime errors (launch checks included).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The source did not compile; the rendered diagnostics.
    #[error("compile errors:\n{0}")]
    Compile(String),
    /// A `.spv` or reflection file could not be read or parsed.
    #[error("{0}")]
    Io(String),
    /// The program has no kernel of that name.
    #[error("no kernel named `{name}` (the program has: {available})")]
    NoKernel {
        /// The name asked for.
        name: String,
        /// The program's kernels, comma-separated.
        available: String,
    },
    /// The runtime refused or failed.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// Result alias of the embedding API.
pub type Result<T> = std::result::Result<T, Error>;

/// Compiled kernels: SPIR-V modules with their reflection documents.
#[derive(Debug, Clone)]
pub struct Program {
    kernels: Vec<CompiledKernel>,
}

impl Program {
    /// Compiles one source file (named `name` in diagnostics) for Vulkan 1.1; in checked mode
    /// (bounds-checked accesses, see [`SpirvOptions::checked`]) when `CAJETA_CHECKED=1`.
    pub fn compile(name: &str, source: &str) -> Result<Program> {
        let options = SpirvOptions {
            checked: ContextOptions::from_env().checked,
            ..SpirvOptions::default()
        };
        Program::compile_files(&[(name.to_string(), source.to_string())], &options)
    }

    /// Compiles several source files together with explicit backend options.
    pub fn compile_files(files: &[(String, String)], options: &SpirvOptions) -> Result<Program> {
        let mut sources = SourceMap::new();
        let module = crate::driver::frontend(&mut sources, files)
            .map_err(|d| Error::Compile(render_human(&sources, &d)))?;
        let mut kernels = crate::driver::compile_kernels(&module, options, None)
            .map_err(|d| Error::Compile(render_human(&sources, &d)))?;
        crate::driver::resolve_check_positions(&mut kernels, &sources);
        Ok(Program {
            kernels: kernels.into_iter().map(|(_, k)| k).collect(),
        })
    }

    /// Loads kernels `cajetac build` wrote: each pair is a `.spv` file and its reflection
    /// `.json`.
    pub fn load_spv<P: AsRef<Path>>(files: &[(P, P)]) -> Result<Program> {
        let mut kernels = Vec::new();
        for (spv, json) in files {
            let (spv, json) = (spv.as_ref(), json.as_ref());
            let bytes = std::fs::read(spv)
                .map_err(|e| Error::Io(format!("cannot read `{}`: {e}", spv.display())))?;
            let text = std::fs::read_to_string(json)
                .map_err(|e| Error::Io(format!("cannot read `{}`: {e}", json.display())))?;
            let origin = (spv.display().to_string(), json.display().to_string());
            kernels.push(kernel_from_bytes(&bytes, &text, &origin)?);
        }
        Ok(Program { kernels })
    }

    /// Builds a program from kernels held in memory: what the bindings `cajeta-build`
    /// generates pass here (the SPIR-V and reflection it embedded with `include_bytes!`), and
    /// what an embedder that ships its kernels inside its executable uses. Errors name each
    /// kernel by its [`EmbeddedKernel::name`].
    pub fn from_memory(kernels: &[EmbeddedKernel<'_>]) -> Result<Program> {
        let mut out = Vec::new();
        for k in kernels {
            let origin = (
                format!("{} (SPIR-V)", k.name),
                format!("{} (reflection)", k.name),
            );
            let mut kernel = kernel_from_bytes(k.spv, k.reflection_json, &origin)?;
            kernel.by_address = match &k.by_address {
                EmbeddedVariant::None => AddressVariant::None,
                EmbeddedVariant::Compiled {
                    spv,
                    reflection_json,
                } => {
                    let origin = (format!("{} (address variant)", k.name), origin.1.clone());
                    let variant = kernel_from_bytes(spv, reflection_json, &origin)?;
                    AddressVariant::Compiled(Box::new(variant))
                }
                EmbeddedVariant::Refused(why) => AddressVariant::Refused(why.to_string()),
            };
            out.push(kernel);
        }
        Ok(Program { kernels: out })
    }

    /// The kernels' names.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.kernels.iter().map(|k| k.name.as_str()).collect()
    }

    /// One compiled kernel by name.
    pub fn get(&self, name: &str) -> Result<&CompiledKernel> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| Error::NoKernel {
                name: name.to_string(),
                available: self.kernel_names().join(", "),
            })
    }

    /// The Vulkan features the program's kernels need.
    pub fn required_features(&self) -> Vec<String> {
        let refs: Vec<&Reflection> = self.kernels.iter().map(|k| &k.reflection).collect();
        cajeta_runtime::required_features(&refs)
    }
}

/// One kernel held in memory for [`Program::from_memory`]: its SPIR-V module (little-endian
/// words, as `cajetac build` writes them) and its reflection document.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedKernel<'a> {
    /// The kernel's name, for error messages.
    pub name: &'a str,
    /// The SPIR-V module's bytes (a multiple of 4).
    pub spv: &'a [u8],
    /// The reflection document (JSON).
    pub reflection_json: &'a str,
    /// The kernel's buffer-address variant (docs/runtime.md, "Buffers past the descriptor
    /// range").
    pub by_address: EmbeddedVariant<'a>,
}

/// The buffer-address variant of an [`EmbeddedKernel`].
#[derive(Debug, Clone, Copy)]
pub enum EmbeddedVariant<'a> {
    /// The kernel has none (no `KernelBuffer<T>` parameter).
    None,
    /// The variant's SPIR-V and reflection.
    Compiled {
        /// The SPIR-V module's bytes.
        spv: &'a [u8],
        /// The reflection document (JSON).
        reflection_json: &'a str,
    },
    /// The compiler refused the variant: why (a launch that needs it reports this).
    Refused(&'a str),
}

/// A kernel from its SPIR-V bytes and reflection text; `origin` names the two for errors.
fn kernel_from_bytes(
    bytes: &[u8],
    json: &str,
    origin: &(String, String),
) -> Result<CompiledKernel> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::Io(format!(
            "`{}` is not SPIR-V: its size is not a multiple of 4",
            origin.0
        )));
    }
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let reflection: Reflection = serde_json::from_str(json)
        .map_err(|e| Error::Io(format!("`{}` is not a reflection document: {e}", origin.1)))?;
    Ok(CompiledKernel {
        name: reflection.entry_point.clone(),
        words,
        reflection,
        by_address: Default::default(),
    })
}

/// A device to run kernels on: a runtime [`Context`] with conveniences.
#[derive(Debug, Clone)]
pub struct Device {
    ctx: Context,
}

impl Device {
    /// The default device (`CAJETA_DEVICE`, `CAJETA_VALIDATION`… from the environment), with
    /// every supported feature enabled.
    pub fn new() -> Result<Device> {
        Ok(Device {
            ctx: Context::new()?,
        })
    }

    /// The default device with exactly the features `program` needs enabled; fails naming a
    /// feature the device lacks.
    pub fn for_program(program: &Program) -> Result<Device> {
        let prints = program
            .kernels
            .iter()
            .any(|k| cajeta_runtime::kernel_prints(&k.words));
        let opts = ContextOptions::from_env()
            .with_features(program.required_features())
            .with_kernel_printf(cajeta_runtime::kernel_printf_from_env().unwrap_or(prints));
        Device::with_options(opts)
    }

    /// A device with explicit options.
    pub fn with_options(opts: ContextOptions) -> Result<Device> {
        Ok(Device {
            ctx: Context::with_options(opts)?,
        })
    }

    /// Every device a program that uses several sees, each with `program`'s features
    /// (as [`Device::for_program`]): the devices `CAJETA_DEVICES` lists (`0,0` gives two
    /// logical devices on one GPU), else every physical device, the default one first.
    pub fn all_for_program(program: &Program) -> Result<Vec<Device>> {
        let first = Device::for_program(program)?;
        let selectors = match cajeta_runtime::device_list_from_env() {
            Some(list) => list.into_iter().skip(1).collect(),
            None => {
                let own = first.ctx.device_info().index;
                Context::list_devices()?
                    .iter()
                    .map(|d| d.index)
                    .filter(|&i| i != own)
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
            }
        };
        let mut all = Vec::with_capacity(selectors.len() + 1);
        for sel in selectors {
            let other = first.sibling(&sel)?;
            all.push(other);
        }
        all.insert(0, first);
        Ok(all)
    }

    /// Another device made with this one's options on the device `selector` names (an index
    /// of [`Context::list_devices`] or a name substring): a second logical device even when
    /// it is the same GPU.
    pub fn sibling(&self, selector: &str) -> Result<Device> {
        Ok(Device {
            ctx: self.ctx.sibling(Some(selector.to_string()))?,
        })
    }

    /// The runtime context, for everything else (images, textures, events, profiling).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The device's default stream.
    pub fn stream(&self) -> Stream {
        self.ctx.default_stream()
    }

    /// Loads kernel `name` of `program`, with its address variant (taken by launches as
    /// [`cajeta_runtime::BufferAddressing`] says: docs/runtime.md, "Buffers past the
    /// descriptor range").
    pub fn kernel(&self, program: &Program, name: &str) -> Result<Kernel> {
        let k = program.get(name)?;
        let by_address = match &k.by_address {
            AddressVariant::None => None,
            // A variant the device cannot load is reported when a launch needs it.
            AddressVariant::Compiled(v) => Some(
                self.ctx
                    .load_kernel(&v.words, &v.reflection)
                    .map_err(|e| e.to_string()),
            ),
            AddressVariant::Refused(why) => Some(Err(why.clone())),
        };
        Ok(Kernel {
            kernel: self.ctx.load_kernel(&k.words, &k.reflection)?,
            by_address,
            ctx: self.ctx.clone(),
        })
    }

    /// A buffer of `len` elements of `T` (contents undefined).
    pub fn buffer<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::new(&self.ctx, len)
    }

    /// A buffer holding `data` (uploaded on the default stream).
    pub fn buffer_from<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let b = DeviceBuffer::new(&self.ctx, data.len())?;
        b.upload(&self.stream(), data)?;
        Ok(b)
    }
}

/// One kernel argument, typed: buffers carry their element type so the launch can check it
/// against the reflection. Build them with `From` (`(&buffer).into()`, `2.0f32.into()`) or
/// the [`args!`](crate::args) macro.
///
/// A vector or POD parameter travels in the push-constant block as its std430 bytes: pass
/// [`KernelArg::Bytes`] (`args![&data, KernelArg::Bytes(&params), 0.25f32]`); the launch checks
/// that their length is the parameter's size. The typed bindings `cajeta-build` generates
/// (docs/build-rs.md) pack PODs from generated Rust structs instead.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// A typed buffer: the runtime buffer and the element type name (`"float32"`…).
    Buffer(&'a cajeta_runtime::Buffer, &'static str),
    /// Any runtime argument, passed through unchecked here (the runtime still checks it).
    Raw(KernelArg<'a>),
}

macro_rules! scalar_arg {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Arg<'_> {
            fn from(v: $t) -> Self {
                Arg::Raw(KernelArg::Scalar(ScalarValue::$v(v)))
            }
        }
    )*};
}
scalar_arg!(bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16,
    u32 => U32, u64 => U64, f32 => F32, f64 => F64);

impl<'a, T: Element> From<&'a DeviceBuffer<T>> for Arg<'a> {
    fn from(b: &'a DeviceBuffer<T>) -> Self {
        Arg::Buffer(b.raw(), T::TYPE_NAME)
    }
}

impl<'a> From<&'a cajeta_runtime::Image2D> for Arg<'a> {
    fn from(i: &'a cajeta_runtime::Image2D) -> Self {
        Arg::Raw(KernelArg::Image(i))
    }
}

impl<'a> From<&'a cajeta_runtime::Texture> for Arg<'a> {
    fn from(t: &'a cajeta_runtime::Texture) -> Self {
        Arg::Raw(KernelArg::Texture(t))
    }
}

impl<'a> From<&'a cajeta_runtime::Sampler> for Arg<'a> {
    fn from(s: &'a cajeta_runtime::Sampler) -> Self {
        Arg::Raw(KernelArg::Sampler(s))
    }
}

/// Any runtime argument as is: how a vector or POD parameter's std430 bytes are passed
/// (`args![KernelArg::Bytes(&bytes)]`).
impl<'a> From<KernelArg<'a>> for Arg<'a> {
    fn from(a: KernelArg<'a>) -> Self {
        Arg::Raw(a)
    }
}

/// An `AccelerationStructure` argument: a top-level structure (`Context::build_tlas`).
impl<'a> From<&'a cajeta_runtime::AccelStruct> for Arg<'a> {
    fn from(a: &'a cajeta_runtime::AccelStruct) -> Self {
        Arg::Raw(KernelArg::AccelStruct(a))
    }
}

/// A buffer-array argument (`KernelBuffer<T>[]` parameter): the buffers in index order.
impl<'a> From<&'a [cajeta_runtime::Buffer]> for Arg<'a> {
    fn from(b: &'a [cajeta_runtime::Buffer]) -> Self {
        Arg::Raw(KernelArg::Buffers(b))
    }
}

/// Builds a `&[Arg]` from values: `args![&x, &y, 2.0f32, n]`.
#[macro_export]
macro_rules! args {
    ($($a:expr),* $(,)?) => {
        &[$($crate::embed::Arg::from($a)),*][..]
    };
}
pub use crate::args;

/// A loaded kernel.
#[derive(Debug, Clone)]
pub struct Kernel {
    kernel: cajeta_runtime::Kernel,
    /// The address variant, or why it is not available.
    by_address: Option<std::result::Result<cajeta_runtime::Kernel, String>>,
    ctx: Context,
}

impl Kernel {
    /// The runtime kernel.
    pub fn raw(&self) -> &cajeta_runtime::Kernel {
        &self.kernel
    }

    /// Records a launch of `grid` workgroups of `block` threads on `stream`. Checks the
    /// argument count, every buffer's element type against the parameter's, and (in the
    /// runtime) every other argument's kind, scalar type and size; `Err` names the parameter.
    ///
    /// Recording does not wait: the launch runs when the stream is submitted (a download, an
    /// event, `stream.sync()`). The [`CommandId`] returned is the launch's sequence number in
    /// the context, the one the barrier log and the profile report name it by; ignoring it is
    /// fine.
    pub fn launch(
        &self,
        stream: &Stream,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg<'_>],
    ) -> Result<cajeta_runtime::CommandId> {
        self.launch_with(stream, &LaunchConfig::new(grid, block), args)
    }

    /// [`Kernel::launch`] with a full launch configuration (spec values, shared size).
    pub fn launch_with(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &[Arg<'_>],
    ) -> Result<cajeta_runtime::CommandId> {
        let r = self.kernel.reflection();
        let launch_err = |message: String| {
            Error::Runtime(RuntimeError::Launch {
                kernel: r.entry_point.clone(),
                message,
            })
        };
        for (param, arg) in r.parameters.iter().zip(args) {
            let Arg::Buffer(_, elem) = arg else { continue };
            let binding = match param.slot {
                ParameterSlot::Binding(i) => r.bindings.get(i),
                ParameterSlot::PushConstant(_) | ParameterSlot::Address { .. } => None,
            };
            let Some(b) = binding.filter(|b| b.descriptor_type == DescriptorType::StorageBuffer)
            else {
                continue; // the runtime names the kind mismatch
            };
            if let Some(want) = b.element_type.as_deref() {
                if want != *elem {
                    return Err(launch_err(format!(
                        "parameter `{}` expects KernelBuffer<{want}>, got a buffer of {elem}",
                        param.name
                    )));
                }
            }
        }
        let raw: Vec<KernelArg<'_>> = args
            .iter()
            .map(|a| match *a {
                Arg::Buffer(b, _) => KernelArg::Buffer(b),
                Arg::Raw(k) => k,
            })
            .collect();
        let kernel = match &self.by_address {
            Some(variant) => {
                let mode = self.ctx.buffer_addressing().map_err(launch_err)?;
                let push = match variant {
                    Ok(k) => k.reflection().push_constants.size,
                    Err(_) => 0,
                };
                let buffers = raw.iter().filter_map(|a| match a {
                    KernelArg::Buffer(b) => Some(*b),
                    _ => None,
                });
                if self.ctx.wants_address_variant(mode, push, buffers) {
                    variant.as_ref().map_err(|why| {
                        launch_err(format!(
                            "the launch needs the kernel's buffer-address variant, which is not available: {why}"
                        ))
                    })?
                } else {
                    &self.kernel
                }
            }
            None => &self.kernel,
        };
        Ok(stream.launch(kernel, config, &raw)?)
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kernel.name())
    }
}
