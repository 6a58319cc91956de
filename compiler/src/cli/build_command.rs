//! `cajetac build`: the program's kernels compiled and written out, one `.spv` (and `.spvasm`,
//! `.json`, `.ll` as `--emit` asks) a kernel, and `--emit llvm`'s host code.

use super::*;

/// `cajetac build` (SPEC §10): compiles `files` and writes each kernel's outputs into `out`.
pub(super) fn build(
    files: &[PathBuf],
    out: &Path,
    emit: &[String],
    (env, backend): (&str, KernelBackend),
    kernel: Option<&str>,
    report: Report,
    (device_profile, precision, checked): (Option<&str>, &PrecisionFlags, bool),
) -> ExitCode {
    small_blocks::enable();
    driver::leave_syntax_trees_to_exit();
    let profile = match device_profile.map(load_profile).transpose() {
        Ok(p) => p,
        Err((kind, e)) => return report.fail(kind, e),
    };
    for e in emit {
        if !matches!(
            e.as_str(),
            "spirv" | "spvasm" | "reflect" | "llvm" | "kernel-llvm"
        ) {
            return report.usage(format!(
                "unknown --emit kind `{e}` (expected spirv, spvasm, reflect, llvm, kernel-llvm)"
            ));
        }
    }
    let env = match target_env(env, report) {
        Ok(e) => e,
        Err(c) => return c,
    };
    let inputs = match read_files(files, report) {
        Ok(i) => i,
        Err(c) => return c,
    };
    backend_choice::prestart_llvm_helpers(&inputs, backend, kernel);
    driver::compile_trace::event(|| "build: sources read, helpers started".into());
    let mut sources = SourceMap::new();
    let module = match driver::frontend(&mut sources, &inputs) {
        Ok(m) => m,
        Err(d) => return report.compile(&sources, &d),
    };
    driver::compile_trace::event(|| "build: front end done".into());
    report.warnings(&sources, &module.warnings);
    // A device profile's optional features are used where they help (a native float atomic
    // add, …); without one the code runs on any Vulkan 1.1 device.
    let options = SpirvOptions {
        backend,
        target_env: env,
        device_features: profile
            .as_ref()
            .map(|p| p.features.clone())
            .unwrap_or_default(),
        target: cajetac::specialize::Target {
            precision: precision.resolve(
                profile
                    .as_ref()
                    .map(|p| p.features.as_slice())
                    .unwrap_or_default(),
                report,
            ),
            profile: profile.clone(),
        },
        checked,
        buffer_address: false,
    };
    let kernels = match driver::compile_kernel_modules(&module, &options, kernel) {
        Ok(k) => k,
        Err(d) => return report.compile(&sources, &d),
    };
    driver::compile_trace::event(|| format!("build: {} kernels compiled", kernels.len()));
    // The helpers end while the outputs are written; `c_main` waits for them.
    if let Some(parts) = llvm() {
        (parts.end_helpers)(false);
    }
    let names: Vec<&str> = module
        .kernels()
        .map(|id| module.function(id).name.as_str())
        .collect();
    if let Some(name) = kernel {
        if kernels.is_empty() {
            return report.usage(if names.is_empty() {
                format!("no kernel named `{name}`: the program has no kernels")
            } else {
                format!(
                    "no kernel named `{name}`; the program's kernels: {}",
                    names.join(", ")
                )
            });
        }
    }
    if names.is_empty() && !emit.iter().any(|e| e == "llvm") {
        // Nothing to write: say so instead of succeeding silently with an empty directory.
        report.say(
            Kind::Compile,
            Level::Note,
            format!(
                "the program has no kernels (`@Kernel` methods); nothing written{}",
                if driver::entry_point(&module).is_some() {
                    " (its host code runs with `cajetac run`)"
                } else {
                    ""
                }
            ),
        );
    }
    if let Some(p) = &profile {
        if let Err(d) = driver::check_profile(&module, &kernels, p) {
            return report.compile(&sources, &d);
        }
    }
    // A folder this build makes holds nothing yet: its files are created without first
    // looking for old ones (400 failed `open`s fewer for 200 kernels). A folder that was
    // there, or made with its parents, is treated as holding files.
    let fresh_folder = std::fs::create_dir(out).is_ok();
    if !fresh_folder {
        if let Err(e) = std::fs::create_dir_all(out) {
            return report.io(format!("cannot create `{}`: {e}", out.display()));
        }
    }
    if emit.iter().any(|e| e == "llvm") {
        if let Err(c) = emit_llvm(&module, files, out, report) {
            return c;
        }
    }
    // Kernels of the same name in different classes would write over each other's files:
    // those are named by the class too (`A.k.spv`, `B.k.spv`), the others by their own name.
    let mut name_count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (_, k) in &kernels {
        *name_count.entry(k.name.as_str()).or_default() += 1;
    }
    for (id, k) in &kernels {
        let stem = match name_count[k.name.as_str()] {
            1 => k.name.clone(),
            _ => module.function(*id).qualified_name.clone(),
        };
        let mut writes: Vec<(PathBuf, std::borrow::Cow<[u8]>)> = Vec::new();
        if emit.iter().any(|e| e == "kernel-llvm") {
            match kernel_llvm_ir(&module, *id) {
                Ok(text) => writes.push((out.join(format!("{stem}.ll")), text.into_bytes().into())),
                Err(Some(d)) => return report.compile(&sources, &[d]),
                Err(None) => {
                    return report.fail(
                        Kind::Compile,
                        "--emit kernel-llvm: this cajetac was built without LLVM".to_string(),
                    )
                }
            }
        }
        if emit.iter().any(|e| e == "spirv") {
            writes.push((out.join(format!("{stem}.spv")), spirv_bytes(&k.words)));
        }
        if emit.iter().any(|e| e == "spvasm") {
            writes.push((
                out.join(format!("{stem}.spvasm")),
                disassemble(&k.words).into_bytes().into(),
            ));
        }
        if emit.iter().any(|e| e == "reflect") {
            writes.push((
                out.join(format!("{stem}.json")),
                reflection_json::reflection_json(&k.reflection).into(),
            ));
        }
        for (path, bytes) in writes {
            let written = if fresh_folder {
                outputs::write_new_output(&path, &bytes)
            } else {
                outputs::write_output(&path, &bytes)
            };
            if let Err(e) = written {
                return report.io(format!("cannot write `{}`: {e}", path.display()));
            }
        }
    }
    driver::compile_trace::event(|| "build: outputs written".into());
    left_to_exit((module, kernels, sources, inputs));
    ExitCode::SUCCESS
}

/// A module's words as the bytes of a `.spv` file (little-endian): the words' own memory
/// where the machine is little-endian (no copy of every module), else in one allocation.
fn spirv_bytes(words: &[u32]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        // SAFETY: the same memory, read as bytes; any byte pattern is a valid `u8`, and a
        // `u8`'s alignment is 1.
        return std::borrow::Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words))
        });
    }
    let mut bytes = vec![0; words.len() * 4];
    for (b, w) in bytes.chunks_exact_mut(4).zip(words) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    bytes.into()
}

/// `--emit llvm`: the host code's optimized LLVM IR, to `<out>/<first file's stem>.ll`.
fn emit_llvm(
    module: &cajetac::ir::Module,
    files: &[PathBuf],
    out: &Path,
    report: Report,
) -> Result<(), ExitCode> {
    let refuse = |why: String| report.fail(Kind::Compile, format!("--emit llvm: {why}"));
    let Some(entry) = driver::entry_point(module) else {
        return Err(refuse(
            "the program has no host entry point (`run()` or `main()`)".to_string(),
        ));
    };
    let Some(parts) = llvm() else {
        return Err(refuse(NO_LLVM.to_string()));
    };
    {
        let text = (parts.host_ir)(module, entry).map_err(refuse)?;
        let stem = files
            .first()
            .and_then(|f| f.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "host".to_string());
        let path = out.join(format!("{stem}.ll"));
        outputs::write_output(&path, text.as_bytes())
            .map_err(|e| report.io(format!("cannot write `{}`: {e}", path.display())))?;
    }
    Ok(())
}
