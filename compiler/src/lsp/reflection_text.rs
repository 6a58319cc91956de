//! A kernel's interface for its hover: the kernel compiled with the rspirv backend (default
//! options, as `cajetac build` compiles it, or for the client's device profile) and its
//! `Reflection` as Markdown tables.

use super::device_target::DeviceTarget;
use crate::driver;
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::SpirvOptions;
use cajeta_runtime::{Access, DescriptorType, ParameterSlot, Reflection};
use std::fmt::Write as _;

/// The Markdown of kernel `id`'s reflection, or why it does not compile: compiled as
/// `cajetac build` compiles it, or for the device `target` the client chose (then also what
/// the precision types become there and which optional features the kernel uses).
pub fn kernel_reflection(
    module: &ir::Module,
    id: FunctionId,
    target: Option<&DeviceTarget>,
) -> String {
    let f = module.function(id);
    let default = SpirvOptions::default();
    let options = target.map_or(&default, |t| &t.options);
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        driver::compile_kernel_modules(module, options, Some(&f.qualified_name))
    }));
    match compiled {
        Ok(Ok(kernels)) => match kernels.into_iter().find(|(k, _)| *k == id) {
            Some((_, k)) => match target {
                Some(t) => format!(
                    "{}\n\n---\n\n{}",
                    render(&k.reflection),
                    t.describe(Some(&k))
                ),
                None => render(&k.reflection),
            },
            None => "*(not compiled)*".into(),
        },
        Ok(Err(diags)) => {
            let mut s = String::from("**Does not compile for SPIR-V:**\n");
            for d in diags {
                let _ = writeln!(s, "- `{}` {}", d.code.as_str(), d.message);
            }
            s
        }
        Err(_) => "*(the SPIR-V backend panicked; see the language server's log)*".into(),
    }
}

fn access(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::Write => "write",
        Access::ReadWrite => "read/write",
    }
}

fn descriptor(d: DescriptorType) -> &'static str {
    match d {
        DescriptorType::StorageBuffer => "storage buffer",
        DescriptorType::StorageImage => "storage image",
        DescriptorType::SampledImage => "sampled image",
        DescriptorType::Sampler => "sampler",
        DescriptorType::AccelerationStructure => "acceleration structure",
    }
}

/// The reflection as Markdown: bindings, push constants, shared memory, spec constants and
/// what the module needs of the device.
pub fn render(r: &Reflection) -> String {
    let mut s = String::new();
    let [x, y, z] = r.default_workgroup_size;
    let _ = writeln!(
        s,
        "**Kernel `{}`**: SPIR-V {} for {}, default workgroup {x}×{y}×{z}\n",
        r.entry_point, r.spirv_version, r.target_env
    );
    if !r.bindings.is_empty() {
        s.push_str(
            "| binding | parameter | kind | element / format | access |\n|---|---|---|---|---|\n",
        );
        for b in &r.bindings {
            let what = match (&b.element_type, b.element_stride, &b.image_format) {
                (Some(t), Some(stride), _) => format!("{t} (stride {stride})"),
                (Some(t), None, _) => t.clone(),
                (None, _, Some(f)) => f.clone(),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "| {}.{} | `{}` | {}{} | {what} | {} |",
                b.set,
                b.binding,
                b.name,
                descriptor(b.descriptor_type),
                if b.array.is_some() { " array" } else { "" },
                access(b.access)
            );
        }
        s.push('\n');
    }
    if r.push_constants.members.is_empty() {
        s.push_str("No push constants.\n\n");
    } else {
        let _ = writeln!(
            s,
            "Push constants, {} bytes (std430):\n\n| offset | size | parameter | type |\n|---|---|---|---|",
            r.push_constants.size
        );
        for m in &r.push_constants.members {
            let _ = writeln!(s, "| {} | {} | `{}` | {} |", m.offset, m.size, m.name, m.ty);
        }
        s.push('\n');
    }
    let by_address = r
        .parameters
        .iter()
        .filter(|p| matches!(p.slot, ParameterSlot::Address { .. }))
        .count();
    if by_address > 0 {
        let _ = writeln!(s, "{by_address} buffer(s) passed by device address.\n");
    }
    let _ = writeln!(
        s,
        "Shared memory: {} bytes (fixed-size arrays).\n",
        r.static_shared_bytes
    );
    let user_specs: Vec<_> = r
        .spec_constants
        .iter()
        .filter(|c| !r.workgroup_size_spec_ids.contains(&c.id))
        .collect();
    if !user_specs.is_empty() {
        s.push_str("| spec id | name | type | default bits |\n|---|---|---|---|\n");
        for c in user_specs {
            let _ = writeln!(s, "| {} | {} | {} | {:#x} |", c.id, c.name, c.ty, c.default);
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "Workgroup size spec ids: {:?}.",
        r.workgroup_size_spec_ids
    );
    if !r.vulkan_features.is_empty() {
        let _ = writeln!(
            s,
            "\nNeeds Vulkan features: {}.",
            r.vulkan_features.join(", ")
        );
    }
    if !r.capabilities.is_empty() {
        let _ = writeln!(s, "\nCapabilities: {}.", r.capabilities.join(", "));
    }
    s
}
