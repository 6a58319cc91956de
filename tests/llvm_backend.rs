//! The LLVM kernel backend (`--backend llvm`) against the rspirv one: every kernel of
//! `tests/kernels/` and `tests/device/` goes through both. A module LLVM emits must pass
//! spirv-val (vulkan1.3) and have exactly the rspirv module's interface; a kernel it refuses
//! must be refused with E0045, and the refused kernels are listed in
//! `tests/llvm_backend/refused.txt` (so the coverage is visible and only grows: a kernel that
//! starts to compile must be taken off the list). Device programs whose kernels all compile
//! run on the default device through LLVM and must return 777 like with rspirv.

use cajeta_runtime::Reflection;
use cajeta_tests::{device_context, files, run_file_on, spirv_val, tests_dir};
use cajetac::diagnostics::Code;
use cajetac::driver;
use cajetac::kernel::spirv::{CompiledKernel, KernelBackend, SpirvOptions, TargetEnv};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod bool_phis;
mod images;
mod narrow;

fn options(backend: KernelBackend) -> SpirvOptions {
    // The driver reaches the LLVM backend only once the program links it in.
    cajetac::kernel::llvm::enable();
    SpirvOptions {
        backend,
        target_env: TargetEnv::Vulkan1_3,
        ..SpirvOptions::default()
    }
}

/// The kernel files of both corpora.
fn corpus() -> Vec<PathBuf> {
    let mut all = files("kernels", "cajeta");
    all.extend(files("device", "cajeta"));
    assert!(all.len() > 40, "kernel corpora missing");
    all
}

fn tag(path: &Path) -> String {
    let dir = path
        .parent()
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{dir}/{file}")
}

/// The parts of a reflection document the layout step decides (what the runtime binds).
fn interface(r: &Reflection) -> String {
    format!(
        "entry {} ws {:?} {:?}\nbindings {:?}\npush {:?}\nparams {:?}\nspec {:?}\nshared {}",
        r.entry_point,
        r.workgroup_size_spec_ids,
        r.default_workgroup_size,
        r.bindings,
        r.push_constants,
        r.parameters,
        r.spec_constants,
        r.static_shared_bytes
    )
}

fn compile_one(
    module: &cajetac::ir::Module,
    name: &str,
    backend: KernelBackend,
) -> Result<CompiledKernel, Vec<cajetac::diagnostics::Diagnostic>> {
    let mut ks = driver::compile_kernels(module, &options(backend), Some(name))?;
    Ok(ks.remove(0).1)
}

/// Per file and kernel: whether LLVM refused it; failures of the checks collected.
fn through_both(failures: &mut Vec<String>) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut refused, mut compiled) = (BTreeSet::new(), BTreeSet::new());
    for path in corpus() {
        let file = tag(&path);
        let (_, module) = cajeta_tests::frontend(&path);
        let Ok(module) = module else {
            failures.push(format!("{file}: does not check"));
            continue;
        };
        for id in module.kernels() {
            let name = module.function(id).name.clone();
            let key = format!("{file}:{name}");
            let reference = match compile_one(&module, &name, KernelBackend::Rspirv) {
                Ok(k) => k,
                // Kernels the device corpus compiles only for some devices (cooperative
                // matrices, …) are not for vulkan1.3 without a profile: nothing to compare.
                Err(_) => continue,
            };
            // The structure check that guards LLVM's modules accepts every rspirv module
            // (all of which spirv-val accepts): it refuses no valid control flow here.
            if let Err(e) = cajetac::kernel::llvm::check_structured_control_flow(&reference.words) {
                failures.push(format!(
                    "{key}: the structure check refuses rspirv's module: {e}"
                ));
            }
            match compile_one(&module, &name, KernelBackend::Llvm) {
                Ok(k) => {
                    compiled.insert(key.clone());
                    let scratch = format!("llvm-{}", key.replace(['/', ':', '.'], "-"));
                    // No exceptions: a module that spirv-val refuses is never the backend's
                    // output (the structure check re-emits or refuses the kernel).
                    if let Err(e) = spirv_val(&k.words, TargetEnv::Vulkan1_3, &scratch) {
                        failures.push(e);
                    }
                    let (a, b) = (interface(&reference.reflection), interface(&k.reflection));
                    if a != b {
                        failures.push(format!(
                            "{key}: interfaces differ\nrspirv: {a}\nllvm:   {b}"
                        ));
                    }
                    // `Int8` and `Int16` (which need the device's shaderInt8 and
                    // shaderInt16) only where the rspirv module has such code too, not for
                    // LLVM's resource-name strings nor for the narrow arithmetic LLVM's
                    // optimizer makes of 32-bit source (`(x & 0xFF) / 3`,
                    // device/masked_narrow_values.cajeta).
                    for cap in ["Int8", "Int16"] {
                        let has = |r: &Reflection| r.capabilities.iter().any(|c| c == cap);
                        if has(&k.reflection) && !has(&reference.reflection) {
                            failures.push(format!("{key}: declares {cap} without such code"));
                        }
                    }
                    // The storage-access capabilities of 8- and 16-bit buffer elements and
                    // push constants (which spirv-val does not insist on, but devices do:
                    // the runtime checks their features) are declared as with rspirv. The
                    // arithmetic widths may differ: LLVM folds some narrow operations away.
                    for c in &reference.reflection.capabilities {
                        let needed = [
                            "StorageBuffer8BitAccess",
                            "StorageBuffer16BitAccess",
                            "StoragePushConstant8",
                            "StoragePushConstant16",
                        ];
                        if needed.contains(&c.as_str()) && !k.reflection.capabilities.contains(c) {
                            failures.push(format!("{key}: rspirv declares {c}, LLVM does not"));
                        }
                    }
                }
                Err(diags) => {
                    refused.insert(key.clone());
                    if diags.iter().any(|d| d.code != Code::LlvmBackendUnsupported) {
                        failures.push(format!("{key}: refused without E0045: {diags:?}"));
                    }
                }
            }
        }
    }
    (refused, compiled)
}

fn listed_refusals() -> BTreeSet<String> {
    let list = std::fs::read_to_string(tests_dir().join("llvm_backend/refused.txt"))
        .expect("tests/llvm_backend/refused.txt");
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_kernel_goes_through_both_backends() {
    let mut failures = Vec::new();
    let (refused, compiled) = through_both(&mut failures);
    assert!(
        compiled.len() >= 10,
        "the LLVM backend compiled only {compiled:?}"
    );
    let listed = listed_refusals();
    if std::env::var("CAJETA_BLESS").is_ok_and(|v| v == "1") {
        let text: String = refused.iter().map(|k| format!("{k}\n")).collect();
        let header = "# Kernels the LLVM backend refuses with E0045 (tests/llvm_backend.rs).\n";
        std::fs::write(
            tests_dir().join("llvm_backend/refused.txt"),
            format!("{header}{text}"),
        )
        .expect("write refused.txt");
    } else {
        for k in refused.difference(&listed) {
            failures.push(format!(
                "{k}: refused by LLVM but not in refused.txt (a regression)"
            ));
        }
        for k in listed.difference(&refused) {
            failures.push(format!(
                "{k}: listed in refused.txt but no longer refused: take it off the list"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn llvm_modules_are_the_same_on_every_compile() {
    // The post-pass once made the narrowed index constants, and the capabilities of some
    // ops, in the order of a `HashMap`, which std seeds afresh for every map: the same
    // kernel came out with its constants in another order from one compile to the next.
    // Kernels with constant indices into vectors, matrices and push constants show it.
    let mut paths = vec![tests_dir().join("../examples/mandelbrot.cajeta")];
    for name in [
        "vectors",
        "matrices",
        "pod_params",
        "swizzle_writes",
        "waves_spec",
    ] {
        paths.push(tests_dir().join(format!("kernels/{name}.cajeta")));
    }
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("read");
        let mut sources = cajetac::diagnostics::SourceMap::new();
        let module = driver::frontend(&mut sources, &[(tag(&path), text)]).expect("checks");
        let options = options(KernelBackend::Llvm);
        let first = driver::compile_kernel_modules(&module, &options, None).expect("compiles");
        for _ in 0..5 {
            let again = driver::compile_kernel_modules(&module, &options, None).expect("compiles");
            assert_eq!(first.len(), again.len(), "{}", tag(&path));
            for ((_, a), (_, b)) in first.iter().zip(&again) {
                assert!(
                    a.words == b.words,
                    "{}: `{}` differs between compiles",
                    tag(&path),
                    a.name
                );
                assert_eq!(a.reflection, b.reflection, "{}: `{}`", tag(&path), a.name);
            }
        }
    }
}

#[test]
fn llvm_images_lower_to_one_image_instruction_each() {
    let path = tests_dir().join("kernels/img_rmw.cajeta");
    let (_, module) = cajeta_tests::frontend(&path);
    let module = module.expect("checks");
    let k = compile_one(&module, "rmw", KernelBackend::Llvm).expect("LLVM compiles rmw");
    let text = cajetac::kernel::spirv::disassemble(&k.words);
    assert_eq!(text.matches("OpImageRead").count(), 1, "{text}");
    assert_eq!(text.matches("OpImageWrite").count(), 1, "{text}");
    assert!(text.contains("R32f"), "{text}");
    assert!(!text.contains("OpCapability Int8"), "{text}");
}

#[test]
fn device_programs_agree_through_llvm() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let listed = listed_refusals();
    let mut ran = Vec::new();
    let mut failures = Vec::new();
    for path in files("device", "cajeta") {
        let file = tag(&path);
        if listed.iter().any(|k| k.starts_with(&format!("{file}:"))) {
            continue;
        }
        let (printed, value) = run_file_on(&ctx, &path, &options(KernelBackend::Llvm));
        match value {
            Ok(v) if v == "777" => ran.push(file),
            Ok(v) => failures.push(format!("{file}: returned {v}\nprinted:\n{printed}")),
            Err(e) => failures.push(format!("{file}: {e}\nprinted:\n{printed}")),
        }
    }
    eprintln!("device programs through LLVM: {ran:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(!ran.is_empty(), "no device program runs through LLVM");
}

#[test]
fn refusals_name_the_construct_and_the_backend_at_a_span() {
    let path = tests_dir().join("kernels/ray_query.cajeta");
    let (_, module) = cajeta_tests::frontend(&path);
    let module = module.expect("checks");
    let name = module
        .kernels()
        .map(|id| module.function(id).name.clone())
        .next()
        .expect("a kernel");
    let diags = compile_one(&module, &name, KernelBackend::Llvm).expect_err("refused");
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d.code, Code::LlvmBackendUnsupported);
    assert!(d.message.contains("ray queries"), "{}", d.message);
    assert!(d.message.contains("--backend llvm"), "{}", d.message);
    assert_ne!(d.primary, cajetac::diagnostics::Span::default(), "no span");
    // The default backend takes the same kernel.
    assert!(compile_one(&module, &name, KernelBackend::Rspirv).is_ok());
}

#[test]
fn one_channel_integer_images_keep_their_signedness() {
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class T {\n    @Kernel\n    public static void ints(Image2D<R32UI> a, Image2D<R32I> b, uint32 n) {\n        uint32 x = KernelThread.globalIdX();\n        if (x < n) {\n            a.store(x, 0, a.load(x, 0) + 1);\n            b.store(x, 0, b.load(x, 0) - 1);\n        }\n    }\n}\n";
    let mut sources = cajetac::diagnostics::SourceMap::new();
    let module = driver::frontend(
        &mut sources,
        &[("t.cajeta".to_string(), source.to_string())],
    )
    .expect("checks");
    let reference = compile_one(&module, "ints", KernelBackend::Rspirv).expect("rspirv");
    let k = compile_one(&module, "ints", KernelBackend::Llvm).expect("LLVM compiles ints");
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "llvm-int-images").expect("valid");
    assert_eq!(interface(&reference.reflection), interface(&k.reflection));
    let text = cajetac::kernel::spirv::disassemble(&k.words);
    assert!(text.contains("R32ui") && text.contains("R32i"), "{text}");
    // LLVM 23 keeps an unsigned sampled type for `spirv.SignedImage` and marks the read
    // `SignExtend` instead (spirv-val accepts both forms).
    assert!(
        text.contains("OpTypeInt 32 1") || text.contains("SignExtend"),
        "the R32i read must be signed:\n{text}"
    );
    assert_eq!(text.matches("OpImageRead").count(), 2, "{text}");
    assert_eq!(text.matches("OpImageWrite").count(), 2, "{text}");
}

/// The examples whose kernels all go through LLVM: each runs with its small input on the
/// default device and must pass its own checks (`main` returns 0, `run()` 777), as it does
/// through rspirv in `examples.rs`.
const LLVM_EXAMPLES: [&str; 5] = [
    "blur.cajeta",
    "img_rmw.cajeta",
    "mandelbrot.cajeta",
    "noise.cajeta",
    "reduction.cajeta",
];

#[test]
fn examples_agree_through_llvm() {
    use cajetac::host::interp::{HostIo, HostOutcome};
    let Some(ctx) = device_context(false) else {
        return;
    };
    let out_dir = std::env::temp_dir().join(format!("cajeta-llvm-examples-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("scratch dir");
    let mut failures = Vec::new();
    for name in LLVM_EXAMPLES {
        let path = tests_dir().join("../examples").join(name);
        let text = std::fs::read_to_string(&path).expect("example");
        let success = if text.contains(" main(") { "0" } else { "777" };
        let mut sources = cajetac::diagnostics::SourceMap::new();
        let mut stdout = Vec::new();
        let mut io = HostIo {
            stdout: &mut stdout,
            context: Some(ctx.clone()),
        };
        let data = tests_dir().join("../examples/data");
        let args = [
            out_dir.display().to_string(),
            "small".to_string(),
            data.display().to_string(),
        ];
        let result = driver::run_program(
            &mut sources,
            &[(name.to_string(), text)],
            &options(KernelBackend::Llvm),
            &args,
            &mut io,
        );
        match result {
            Ok(HostOutcome::Returned(v)) if format!("{v}") == success => {}
            Ok(other) => failures.push(format!(
                "{name}: returned {other:?}; printed:\n{}",
                String::from_utf8_lossy(&stdout)
            )),
            Err(driver::RunError::Compile(d)) => failures.push(format!(
                "{name}: the LLVM backend refused it:\n{}",
                cajetac::diagnostics::render_human(&sources, &d)
            )),
            Err(driver::RunError::Runtime(e)) => {
                failures.push(format!("{name}: {}", e.render(&sources)))
            }
            Err(_) => failures.push(format!("{name}: no entry point")),
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn kernel_printf_lowers_to_the_same_debug_printf_instructions() {
    let path = tests_dir().join("kernels/kernel_printf.cajeta");
    let (_, module) = cajeta_tests::frontend(&path);
    let module = module.expect("checks");
    let llvm = compile_one(&module, "show", KernelBackend::Llvm).expect("lowers");
    let rspirv = compile_one(&module, "show", KernelBackend::Rspirv).expect("lowers");
    // Each print is one `OpExtInst … DebugPrintf 1 %format args…` whose format is the
    // same `OpString` as with rspirv (the helper's print included): (format's first line,
    // argument count) per print.
    let prints = |words: &[u32]| {
        let text = cajetac::kernel::spirv::disassemble(words);
        let id_of = |line: &str| line.split(" = ").next().unwrap_or("").trim().to_string();
        let set = text
            .lines()
            .find(|l| l.contains("OpExtInstImport \"NonSemantic.DebugPrintf\""))
            .map(id_of)
            .expect("the DebugPrintf import");
        let strings: std::collections::HashMap<String, String> = text
            .lines()
            .filter_map(|l| {
                let (id, rest) = l.split_once(" = OpString \"")?;
                Some((id.trim().to_string(), rest.to_string()))
            })
            .collect();
        let mut found: Vec<(String, usize)> = text
            .lines()
            .filter(|l| l.contains("OpExtInst "))
            .filter_map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                let at = words.iter().position(|w| *w == "OpExtInst")?;
                let (s, inst, fmt) = (words.get(at + 2)?, words.get(at + 3)?, words.get(at + 4)?);
                if *s != set || *inst != "1" {
                    return None;
                }
                Some((strings.get(*fmt)?.clone(), words.len() - at - 5))
            })
            .collect();
        found.sort();
        (
            found,
            text.contains("OpExtension \"SPV_KHR_non_semantic_info\""),
        )
    };
    let (a, b) = (prints(&rspirv.words), prints(&llvm.words));
    assert_eq!(a.0.len(), 6, "{a:?}");
    assert_eq!(a, b);
    assert!(b.1, "SPV_KHR_non_semantic_info missing");
}

/// Compiles `source` (one kernel `k`) through both backends; the LLVM result.
fn compile_source(source: &str) -> Result<CompiledKernel, Vec<cajetac::diagnostics::Diagnostic>> {
    let mut sources = cajetac::diagnostics::SourceMap::new();
    let module = driver::frontend(
        &mut sources,
        &[("t.cajeta".to_string(), source.to_string())],
    )
    .expect("checks");
    assert!(compile_one(&module, "k", KernelBackend::Rspirv).is_ok());
    compile_one(&module, "k", KernelBackend::Llvm)
}

#[test]
fn a_length_without_a_buffer_variable_is_refused_by_name() {
    // The length of a buffer nothing else touches: LLVM declares no variable for it, so
    // there is nothing for OpArrayLength to take.
    let length_only = "package t;\nimport cajeta.xpu.*;\npublic final class T {\n    @Kernel\n    public static void k(KernelBuffer<float32> a, KernelBuffer<uint32> out) {\n        out[KernelThread.globalIdX()] = a.length();\n    }\n}\n";
    let diags = compile_source(length_only).expect_err("refused");
    assert_eq!(diags[0].code, Code::LlvmBackendUnsupported, "{diags:?}");
    assert!(
        diags[0].message.contains("never accesses"),
        "{}",
        diags[0].message
    );
}

#[test]
fn float64_transcendentals_are_refused_rather_than_emitted_invalid() {
    // GLSL.std.450 `Exp` takes 16- and 32-bit floats only.
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class T {\n    @Kernel\n    public static void k(KernelBuffer<float64> a) {\n        uint32 i = KernelThread.globalIdX();\n        a[i] = Math.exp(a[i]) + Math.sqrt(a[i]);\n    }\n}\n";
    let mut sources = cajetac::diagnostics::SourceMap::new();
    let module = driver::frontend(
        &mut sources,
        &[("t.cajeta".to_string(), source.to_string())],
    )
    .expect("checks");
    let diags = compile_one(&module, "k", KernelBackend::Llvm).expect_err("refused");
    assert_eq!(diags[0].code, Code::LlvmBackendUnsupported, "{diags:?}");
    assert!(diags[0].message.contains("float64"), "{}", diags[0].message);
    // `Math.sqrt` alone is defined for float64.
    let sqrt_only = source.replace("Math.exp(a[i]) + ", "");
    let module =
        driver::frontend(&mut sources, &[("t.cajeta".to_string(), sqrt_only)]).expect("checks");
    let k = compile_one(&module, "k", KernelBackend::Llvm).expect("LLVM compiles sqrt");
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "llvm-f64-sqrt").expect("valid");
}

#[test]
fn vectors_and_pods_in_push_constants_keep_the_std430_offsets() {
    // A 3-lane vector, a scalar packed right after it (offset 28 in std430, 32 in LLVM's
    // own layout) and a POD with a vec3 field: the module's Offsets must be the layout's.
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class P {\n    float32 a;\n    Vector<float32,3> v;\n    uint32 c;\n}\npublic final class T {\n    @Kernel\n    public static void k(KernelBuffer<Vector<float32,4>> out, Vector<float32,3> s, float32 t, P p) {\n        uint32 i = KernelThread.globalIdX();\n        out[i] = stack Vector<float32,4>(s * t + p.v * p.a, (float32) p.c);\n    }\n}\n";
    let k = compile_source(source).expect("LLVM compiles k");
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "llvm-push-offsets").expect("valid");
    let text = cajetac::kernel::spirv::disassemble(&k.words);
    let offsets: Vec<u32> = k
        .reflection
        .push_constants
        .members
        .iter()
        .map(|m| m.offset)
        .collect();
    // s at 0 (three scalar members 0, 4, 8), t at 12, p at 16: a 16, v 32..40, c 44.
    assert_eq!(offsets, [0, 12, 16], "{text}");
    let block = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("OpName ")?
                .strip_suffix(" \"PushConstants\"")
        })
        .expect("the push-constant block is named");
    for (member, offset) in [
        (0, 0),
        (1, 4),
        (2, 8),
        (3, 12),
        (4, 16),
        (5, 32),
        (6, 36),
        (7, 40),
        (8, 44),
    ] {
        let line = format!("OpMemberDecorate {block} {member} Offset {offset}");
        assert!(text.contains(&line), "missing `{line}`:\n{text}");
    }
}

#[test]
fn shared_arrays_of_other_widths_count_their_bytes_as_rspirv() {
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class T {\n    @Kernel\n    public static void k(KernelBuffer<int16> a) {\n        uint32 l = KernelThread.x();\n        Shared<int16> t = shared int16[64];\n        Shared<float64> d = shared float64[8];\n        t[l] = a[l];\n        d[l % 8] = 1.0;\n        Barrier.workgroup();\n        a[l] = t[63 - l] + (int16) d[0];\n    }\n}\n";
    let mut sources = cajetac::diagnostics::SourceMap::new();
    let module = driver::frontend(
        &mut sources,
        &[("t.cajeta".to_string(), source.to_string())],
    )
    .expect("checks");
    let reference = compile_one(&module, "k", KernelBackend::Rspirv).expect("rspirv");
    let k = compile_one(&module, "k", KernelBackend::Llvm).expect("LLVM compiles k");
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "llvm-shared-widths").expect("valid");
    assert_eq!(k.reflection.static_shared_bytes, 64 * 2 + 8 * 8);
    assert_eq!(interface(&reference.reflection), interface(&k.reflection));
}

/// `(float32) i * 0.0f`: `instcombine` makes it an `llvm.copysign`, which LLVM's SPIR-V target
/// cannot select for Vulkan (`cannot select: G_FCOPYSIGN`, refused as E0045); the fix-up
/// writes it as bit operations, scalar and vector, 32- and 64-bit.
#[test]
fn a_product_with_zero_of_a_converted_integer_compiles() {
    for (ty, zero) in [("float32", "0.0f"), ("float64", "0.0")] {
        let source = format!("package t;\nimport cajeta.xpu.*;\npublic final class T {{\n    @Kernel\n    public static void k(KernelBuffer<int32> a, KernelBuffer<{ty}> o, KernelBuffer<Vector<{ty},4>> v) {{\n        uint32 i = KernelThread.globalIdX();\n        o[i] = ({ty}) a[i] * {zero};\n        v[i] = stack Vector<{ty},4>(({ty}) a[i], ({ty}) -a[i], 3, -3) * {zero};\n    }}\n}}\n");
        let k = compile_source(&source).unwrap_or_else(|d| panic!("{ty}: {d:?}"));
        spirv_val(&k.words, TargetEnv::Vulkan1_3, "llvm-copysign").expect("valid");
    }
}
