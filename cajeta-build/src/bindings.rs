//! The typed bindings: what each kernel parameter becomes in Rust (from the reflection, and
//! from the checked program for POD classes, whose fields the reflection does not list), and
//! the generated module's text.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use cajetac::diagnostics::{Code, Diagnostic, SourceMap};
use cajetac::embed::rt::{DescriptorType, ParameterSlot};
use cajetac::ir::{self, FunctionId, Type};
use cajetac::kernel::spirv::{AddressVariant, CompiledKernel};

use crate::names;

/// One kernel as the generated module exposes it.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelInfo {
    /// The kernel's name in Cajeta (its entry point).
    pub name: String,
    /// The launch method's name (`snake_case`).
    pub method: String,
    /// `file:line:col` of the kernel's declaration.
    pub position: String,
    /// The parameters, in order.
    pub params: Vec<ParamInfo>,
}

/// One kernel parameter of a launch method.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamInfo {
    /// The Rust parameter name.
    pub name: String,
    /// The Rust parameter type (`&::cajetac::embed::DeviceBuffer<f32>`, `u32`, `&Params`…).
    pub rust_type: String,
    /// The expression turning it into an `Arg`.
    arg: String,
    /// The POD class the parameter holds, if it is one.
    pod: Option<ir::StructDef>,
}

/// Names the generated module defines itself, which no kernel may take.
const RESERVED: &[&str] = &["program", "device", "load"];

/// Describes every compiled kernel's launch method; a parameter without a typed binding yet,
/// or two kernels whose methods would clash, is a diagnostic at its declaration.
pub fn describe(
    module: &ir::Module,
    compiled: &[(FunctionId, CompiledKernel)],
    sources: &SourceMap,
) -> Result<Vec<KernelInfo>, Vec<Diagnostic>> {
    let mut kernels: Vec<KernelInfo> = Vec::new();
    let mut diags = Vec::new();
    for (_, k) in compiled {
        let Some(f) = module
            .kernels()
            .map(|id| module.function(id))
            .find(|f| f.name == k.name)
        else {
            continue;
        };
        let method = names::snake_case(&k.name);
        let clash = kernels.iter().any(|o| {
            o.method == method
                || format!("{}_with", o.method) == method
                || o.method == format!("{method}_with")
        }) || RESERVED.contains(&method.as_str());
        if clash {
            diags.push(Diagnostic::error(
                Code::DuplicateFunction,
                f.span,
                format!(
                    "kernel `{}` would be launched by a generated method `{method}` that \
                     another name already takes (another kernel, or one of {})",
                    k.name,
                    RESERVED.join(", ")
                ),
            ));
            continue;
        }
        let mut params = Vec::new();
        for (i, p) in k.reflection.parameters.iter().enumerate() {
            let Some(local) = f.params().get(i) else {
                continue;
            };
            match param(k, p, &local.ty) {
                Ok(info) if pod_clash(&kernels, &params, &info).is_some() => {
                    let why = pod_clash(&kernels, &params, &info).unwrap_or_default();
                    diags.push(Diagnostic::error(Code::DuplicateFunction, local.span, why));
                }
                Ok(mut info) => {
                    info.name = unique_name(&params, &local.name);
                    info.arg = info.arg.replace("{}", &info.name);
                    params.push(info);
                }
                Err(why) => diags.push(Diagnostic::error(
                    Code::UnsupportedFeature,
                    local.span,
                    format!(
                        "cajeta-build cannot generate a typed launch for kernel `{}`: \
                         parameter `{}` is {why}",
                        k.name, local.name
                    ),
                )),
            }
        }
        kernels.push(KernelInfo {
            name: k.name.clone(),
            method,
            position: sources.position(f.span),
            params,
        });
    }
    if diags.is_empty() {
        Ok(kernels)
    } else {
        Err(diags)
    }
}

/// Why `info`'s POD cannot have its own Rust struct: an earlier parameter's different POD
/// has its name, or it is named like the generated `Kernels` struct.
fn pod_clash(kernels: &[KernelInfo], params: &[ParamInfo], info: &ParamInfo) -> Option<String> {
    let def = info.pod.as_ref()?;
    if def.name == "Kernels" {
        return Some(
            "a POD class named `Kernels` would clash with the generated `Kernels` struct"
                .to_string(),
        );
    }
    kernels
        .iter()
        .flat_map(|k| &k.params)
        .chain(params)
        .filter_map(|p| p.pod.as_ref())
        .any(|d| d.name == def.name && d != def)
        .then(|| {
            format!(
                "two different POD classes named `{}`: the generated module defines one Rust \
                 struct per name",
                def.name
            )
        })
}

/// The Rust name of a parameter: snake case, distinct from the launch's own parameters and
/// from the earlier ones.
fn unique_name(earlier: &[ParamInfo], name: &str) -> String {
    let mut n = names::snake_case(name);
    while ["stream", "grid", "block", "config"].contains(&n.as_str())
        || earlier.iter().any(|p| p.name == n)
    {
        n.push('_');
    }
    n
}

/// The Rust type and argument expression (`{}` standing for the name) of one parameter, or
/// what it is when it has no typed binding.
fn param(
    k: &CompiledKernel,
    p: &cajetac::embed::rt::Parameter,
    ty: &Type,
) -> Result<ParamInfo, String> {
    let r = &k.reflection;
    let info = |rust_type: String, arg: &str| ParamInfo {
        name: String::new(),
        rust_type,
        arg: arg.to_string(),
        pod: None,
    };
    let embed = "::cajetac::embed";
    match p.slot {
        ParameterSlot::Binding(b) => {
            let binding = &r.bindings[b];
            Ok(match binding.descriptor_type {
                DescriptorType::StorageBuffer if binding.array.is_some() => info(
                    format!("&[{embed}::rt::Buffer]"),
                    &format!("{embed}::Arg::from({{}})"),
                ),
                DescriptorType::StorageBuffer => {
                    let elem = binding.element_type.as_deref().unwrap_or("?");
                    match names::scalar(elem).filter(|(r, _)| *r != "bool") {
                        Some((rust, _)) => info(
                            format!("&{embed}::DeviceBuffer<{rust}>"),
                            &format!("{embed}::Arg::from({{}})"),
                        ),
                        None => {
                            return Err(format!(
                                "a `KernelBuffer<{elem}>`, and typed device buffers hold \
                                 scalar elements only (float32, int32, uint64…); launch this \
                                 kernel through `Kernel::launch` with `args!` instead"
                            ))
                        }
                    }
                }
                DescriptorType::StorageImage => info(
                    format!("&{embed}::rt::Image2D"),
                    &format!("{embed}::Arg::from({{}})"),
                ),
                DescriptorType::SampledImage => info(
                    format!("&{embed}::rt::Texture"),
                    &format!("{embed}::Arg::from({{}})"),
                ),
                DescriptorType::Sampler => info(
                    format!("&{embed}::rt::Sampler"),
                    &format!("{embed}::Arg::from({{}})"),
                ),
                DescriptorType::AccelerationStructure => info(
                    format!("&{embed}::rt::AccelStruct"),
                    &format!("{embed}::Arg::from({{}})"),
                ),
            })
        }
        ParameterSlot::PushConstant(m) => {
            let member = &r.push_constants.members[m];
            if let Some((rust, _)) = names::scalar(&member.ty) {
                return Ok(info(rust.to_string(), &format!("{embed}::Arg::from({{}})")));
            }
            if let Some((rust, _, n)) = names::vector(&member.ty) {
                return Ok(info(
                    format!("[{rust}; {n}]"),
                    &format!(
                        "{embed}::Arg::from({embed}::KernelArg::Bytes(&{{}}.iter()\
                         .flat_map(|v| v.to_le_bytes()).collect::<::std::vec::Vec<u8>>()))"
                    ),
                ));
            }
            if let Type::Struct(def) = ty {
                pod_fields(def)?;
                let mut i = info(
                    format!("&{}", def.name),
                    &format!("{embed}::Arg::from({embed}::KernelArg::Bytes(&{{}}.to_std430()))"),
                );
                i.pod = Some((**def).clone());
                return Ok(i);
            }
            Err(format!(
                "a `{}`, which has no Rust type here yet (scalars but float16/bfloat16, \
                 vectors and POD classes do)",
                member.ty
            ))
        }
        ParameterSlot::Address { .. } => Err("addressed by its device address".to_string()),
    }
}

/// Each field of a POD: Rust name, Rust type, std430 offset, lane type and size, lanes.
type PodField = (String, String, u32, &'static str, u32, u32);

/// The fields of a POD as the generated struct holds them.
fn pod_fields(def: &ir::StructDef) -> Result<Vec<PodField>, String> {
    let mut out = Vec::new();
    for ((name, ty), offset) in def.fields.iter().zip(def.offsets()) {
        let text = ty.to_string();
        let field = names::escape(names::snake_case(name).trim_start_matches("r#").to_string());
        if let Some((rust, size)) = names::scalar(&text) {
            out.push((field, rust.to_string(), offset, rust, size, 1));
        } else if let Some((rust, size, n)) = names::vector(&text) {
            out.push((field, format!("[{rust}; {n}]"), offset, rust, size, n));
        } else {
            return Err(format!(
                "a POD `{}` whose field `{name}` is a `{text}`, which has no Rust type here yet",
                def.name
            ));
        }
    }
    Ok(out)
}

/// The generated module: the embedded kernels, the POD structs, and `Kernels` with one launch
/// method per kernel.
pub fn generate(
    out_dir: &Path,
    sources: &[String],
    kernels: &[KernelInfo],
    compiled: &[(FunctionId, CompiledKernel)],
) -> String {
    let embed = "::cajetac::embed";
    let file = |name: &str| format!("{:?}", out_dir.join(name).display().to_string());
    let mut s = String::new();
    let from = sources.join(", ");
    let _ = writeln!(
        s,
        "// Generated by cajeta-build from {from}. Do not edit.\n"
    );
    let _ = writeln!(
        s,
        "/// The kernels compiled from {from}, as embedded in this binary."
    );
    // Generated items a program does not use are not its mistake.
    let _ = writeln!(s, "#[allow(dead_code)]");
    let _ = writeln!(
        s,
        "pub const EMBEDDED: &[{embed}::EmbeddedKernel<'static>] = &["
    );
    for (_, k) in compiled {
        let variant = match &k.by_address {
            AddressVariant::None => format!("{embed}::EmbeddedVariant::None"),
            AddressVariant::Compiled(_) => format!(
                "{embed}::EmbeddedVariant::Compiled {{ spv: include_bytes!({}), \
                 reflection_json: include_str!({}) }}",
                file(&format!("{}.by_address.spv", k.name)),
                file(&format!("{}.by_address.json", k.name))
            ),
            AddressVariant::Refused(why) => format!("{embed}::EmbeddedVariant::Refused({why:?})"),
        };
        let _ = writeln!(
            s,
            "    {embed}::EmbeddedKernel {{\n        name: {:?},\n        spv: include_bytes!({}),\n        reflection_json: include_str!({}),\n        by_address: {variant},\n    }},",
            k.name,
            file(&format!("{}.spv", k.name)),
            file(&format!("{}.json", k.name)),
        );
    }
    let _ = writeln!(s, "];\n");
    let mut pods = BTreeMap::new();
    for p in kernels.iter().flat_map(|k| &k.params) {
        if let Some(def) = &p.pod {
            pods.insert(def.name.clone(), def.clone());
        }
    }
    for def in pods.values() {
        pod_struct(&mut s, def);
    }
    let _ = writeln!(
        s,
        "/// The kernels loaded on one device, with a typed launch method each.\n\
         #[allow(dead_code)]\n#[derive(Debug, Clone)]\npub struct Kernels {{"
    );
    for k in kernels {
        let _ = writeln!(s, "    {}: {embed}::Kernel,", k.method);
    }
    let _ = writeln!(s, "}}\n\n#[allow(dead_code)]\nimpl Kernels {{");
    let _ = writeln!(
        s,
        "    /// The embedded kernels as a program.\n    \
         pub fn program() -> {embed}::Result<{embed}::Program> {{\n        \
         {embed}::Program::from_memory(EMBEDDED)\n    }}\n\n    \
         /// The default device, with exactly the features these kernels need enabled.\n    \
         pub fn device() -> {embed}::Result<{embed}::Device> {{\n        \
         {embed}::Device::for_program(&Self::program()?)\n    }}\n\n    \
         /// Loads every kernel on `device`.\n    \
         #[allow(unused_variables)]\n    \
         pub fn load(device: &{embed}::Device) -> {embed}::Result<Kernels> {{\n        \
         let program = Self::program()?;\n        Ok(Kernels {{"
    );
    for k in kernels {
        let _ = writeln!(
            s,
            "            {}: device.kernel(&program, {:?})?,",
            k.method, k.name
        );
    }
    let _ = writeln!(s, "        }})\n    }}");
    for k in kernels {
        launch_methods(&mut s, k);
    }
    let _ = writeln!(s, "}}");
    s
}

/// `k`'s launch method and its `_with` form (a full `LaunchConfig`).
fn launch_methods(s: &mut String, k: &KernelInfo) {
    let embed = "::cajetac::embed";
    let params: String = k
        .params
        .iter()
        .map(|p| format!(", {}: {}", p.name, p.rust_type))
        .collect();
    let names: String = k.params.iter().map(|p| format!(", {}", p.name)).collect();
    let args: Vec<String> = k.params.iter().map(|p| p.arg.clone()).collect();
    let m = &k.method;
    let _ = writeln!(
        s,
        "\n    /// Launches `{name}` ({pos}) on `stream`: `grid` workgroups of `block` threads.\n    \
         /// Records the launch and returns its command id; the stream runs it when submitted.\n    \
         #[allow(clippy::too_many_arguments)]\n    \
         pub fn {m}(&self, stream: &{embed}::Stream, grid: [u32; 3], block: [u32; 3]{params}) \
         -> {embed}::Result<{embed}::CommandId> {{\n        \
         self.{m}_with(stream, &{embed}::rt::LaunchConfig::new(grid, block){names})\n    }}\n\n    \
         /// Launches `{name}` with a full launch configuration (spec values, shared size).\n    \
         #[allow(clippy::too_many_arguments)]\n    \
         pub fn {m}_with(&self, stream: &{embed}::Stream, config: &{embed}::rt::LaunchConfig{params}) \
         -> {embed}::Result<{embed}::CommandId> {{\n        \
         self.{m}.launch_with(stream, config, &[{args}])\n    }}",
        name = k.name,
        pos = k.position,
        args = args.join(", "),
    );
}

/// A POD class as a Rust struct with a std430 packer.
fn pod_struct(s: &mut String, def: &ir::StructDef) {
    let fields = pod_fields(def).unwrap_or_default();
    let size = def.layout().0;
    let _ = writeln!(
        s,
        "/// The POD class `{}` ({size} bytes in std430). Its fields keep Rust's layout; \
         [`{}::to_std430`] packs them the way the kernel reads them.\n\
         #[allow(dead_code)]\n#[derive(Debug, Clone, Copy, PartialEq, Default)]\npub struct {} {{",
        def.name, def.name, def.name
    );
    for ((cajeta, ty), (name, rust, offset, ..)) in def.fields.iter().zip(&fields) {
        let _ = writeln!(
            s,
            "    /// `{ty} {cajeta}`, at byte {offset}.\n    pub {name}: {rust},"
        );
    }
    let _ = writeln!(
        s,
        "}}\n\n#[allow(dead_code)]\nimpl {} {{\n    /// Size in bytes of the std430 form.\n    \
         pub const STD430_SIZE: usize = {size};\n\n    \
         /// The std430 bytes the kernel reads (a `boolean` is a 4-byte 0 or 1).\n    \
         pub fn to_std430(self) -> [u8; {size}] {{\n        let mut b = [0u8; {size}];",
        def.name
    );
    for (name, _, offset, lane, lane_size, lanes) in &fields {
        for l in 0..*lanes {
            let at = offset + l * lane_size;
            let value = match (*lanes, *lane) {
                (1, "bool") => format!("u32::from(self.{name})"),
                (1, _) => format!("self.{name}"),
                _ => format!("self.{name}[{l}]"),
            };
            let _ = writeln!(
                s,
                "        b[{at}..{}].copy_from_slice(&{value}.to_le_bytes());",
                at + if *lane == "bool" { 4 } else { *lane_size }
            );
        }
    }
    let _ = writeln!(s, "        b\n    }}\n}}\n");
}
