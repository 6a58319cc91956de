//! The `@Device` helpers a kernel calls, lowered once per tuple of resource arguments, for
//! either target (moved out of `mod.rs`, which lowers the kernel itself).

use std::fmt::Write;

use super::{cpu, lower, refuse, shared, target, types, Handle, NO_TABLES};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{self, Type};

/// The definitions of the `@Device` helpers `calls` names and those they call in turn
/// (sema refuses recursion, E0013), each once; their intrinsic declarations go to `decls`.
/// Helpers stay functions (`noinline`) for the SPIR-V target: with them inlined, LLVM
/// 23.1.1 crashed (a segmentation fault in code generation) on the noise example's kernel.
/// For the CPU target each takes the invocation context first, and its shared arrays are
/// placed from `shared_base` on.
pub(crate) fn lower_helpers(
    module: &ir::Module,
    mut pending: Vec<lower::HelperCall>,
    decls: &mut Vec<String>,
    target: target::Target,
    shared_base: u64,
) -> Result<(String, u64), Diagnostic> {
    let cpu = target == target::Target::Cpu;
    let mut done: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut shared_bytes = 0;
    while let Some((id, resources)) = pending.pop() {
        let name = lower::helper_name(id, &resources);
        if done.contains(&name) {
            continue;
        }
        done.push(name.clone());
        let Some(helper) = module.functions.get(id.0) else {
            return Err(refuse(Span::default(), "a call of an unknown function"));
        };
        crate::kernel::spirv::check_kernel_shape(helper)?;
        let ret = match &helper.return_type {
            Type::Void => "void",
            ty => types::value(ty, helper.span)?,
        };
        let mut params = Vec::new();
        let mut incoming = Vec::new();
        let mut entry = String::new();
        if cpu {
            params.push("ptr %ctx".to_string());
            entry.push_str(&cpu::hooks::prologue());
        }
        for (i, p) in helper.params().iter().enumerate() {
            if let Some(Some(h)) = resources.get(i) {
                match h {
                    Handle::Shared(a) if cpu && a.n == shared::DYNAMIC_LENGTH => {
                        entry.push_str(&cpu::hooks::dynamic_shared_array(&a.global, a.elem_bytes))
                    }
                    Handle::Shared(a) if cpu => {
                        entry.push_str(&cpu::hooks::shared_array(&a.global, a.offset))
                    }
                    _ => entry.push_str(h.create()),
                }
                continue;
            }
            let ty = types::value(&p.ty, p.span)?;
            params.push(format!("{ty} %a{i}"));
            incoming.push((i, lower::Val::new(format!("%a{i}"), ty)));
        }
        let mut f = lower::FnLower::new(helper, &resources);
        f.helpers_share_atomics = shared::helpers_share_atomics(module);
        f.target = target;
        f.shared_base = shared_base + shared_bytes;
        f.prologue(&incoming)?;
        f.lower_body()?;
        for d in f.decls.iter().chain(&f.globals) {
            if !decls.contains(d) {
                decls.push(d.clone());
            }
        }
        pending.extend(f.calls.iter().cloned());
        shared_bytes += f.shared_bytes;
        // The CPU target's prologue must precede the allocas (shared arrays use `%wg`).
        let (first, second) = if cpu {
            (entry.as_str(), f.allocas.as_str())
        } else {
            (f.allocas.as_str(), entry.as_str())
        };
        let inline = if cpu { "" } else { " noinline" };
        let _ = write!(
            text,
            "\ndefine internal {ret} {name}({}){inline} {NO_TABLES} {{\nentry:\n{first}{second}{}}}\n",
            params.join(", "),
            f.body
        );
    }
    Ok((text, shared_bytes))
}
