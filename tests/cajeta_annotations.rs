//! Cajeta's kernel and parameter annotations (docs/porting-from-cajeta.md): `@Backend`,
//! `@Occupancy`, `@KernelArg` and `@PushConstant` are accepted where they are meaningful and
//! change nothing in the module; misplaced or non-Vulkan ones are E0025.

use cajeta_tests::spirv_val;
use cajetac::diagnostics::{Code, Diagnostic, SourceMap};
use cajetac::driver;
use cajetac::kernel::spirv::{disassemble, KernelBackend, SpirvOptions, TargetEnv};

/// The disassembly of each kernel of a class whose body is `body`.
fn compile(body: &str, backend: KernelBackend) -> Result<Vec<String>, Vec<Diagnostic>> {
    if backend == KernelBackend::Llvm {
        cajetac::kernel::llvm::enable();
    }
    let source = format!("package t;\nimport cajeta.xpu.*;\npublic final class T {{\n{body}\n}}\n");
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("t.cajeta".to_string(), source)])?;
    let options = SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        backend,
        ..SpirvOptions::default()
    };
    let ks = driver::compile_kernels(&module, &options, None)?;
    Ok(ks
        .iter()
        .map(|(_, k)| {
            spirv_val(&k.words, TargetEnv::Vulkan1_3, "cajeta-annotations").expect("valid");
            disassemble(&k.words)
        })
        .collect())
}

/// A kernel with `annotations` before it and `p` / `q` before its buffer and scalar parameters.
fn kernel(annotations: &str, p: &str, q: &str) -> String {
    format!(
        "    @Kernel {annotations}\n    public static void k({p} KernelBuffer<uint32> d, {q} uint32 n) {{\n        uint32 i = KernelThread.globalIdX();\n        if (i < n) {{ d[i] = i * 3u; }}\n    }}"
    )
}

#[test]
fn accepted_annotations_leave_the_module_unchanged() {
    for backend in [KernelBackend::Rspirv, KernelBackend::Llvm] {
        let plain = compile(&kernel("", "", ""), backend).expect("plain");
        for (annotations, p, q) in [
            ("@Backend(\"vulkan\")", "", ""),
            (
                "@Backend(\"SPIRV\") @Occupancy(4)",
                "@KernelArg",
                "@KernelArg",
            ),
            ("@Occupancy(2, 256)", "", "@PushConstant"),
            ("", "@KernelArg", "@KernelArg @PushConstant"),
        ] {
            let annotated = compile(&kernel(annotations, p, q), backend)
                .unwrap_or_else(|d| panic!("{annotations} {p} {q}: {d:?}"));
            assert_eq!(annotated, plain, "{annotations} {p} {q}");
        }
    }
}

#[test]
fn misplaced_or_foreign_annotations_are_e0025_with_what_to_write() {
    let helper = |ann: &str, param: &str| {
        format!("    {ann}\n    static uint32 h({param} uint32 x) {{ return x; }}")
    };
    let cases = [
        (kernel("@Backend(\"cuda\")", "", ""), "Vulkan only"),
        (kernel("@Backend(2)", "", ""), "one string"),
        (kernel("@Occupancy(blocks)", "", ""), "integer literals"),
        (kernel("@Occupancy", "", ""), "integer literals"),
        (kernel("", "@PushConstant", ""), "descriptor"),
        (kernel("", "", "@Uniform"), "unknown parameter annotation"),
        (kernel("", "", "@KernelArg(1)"), "no arguments"),
        (helper("@Device @Occupancy(2)", ""), "kernels only"),
        (helper("@Device", "@PushConstant"), "kernel parameters only"),
        (helper("", "@KernelArg"), "kernel parameters only"),
    ];
    for (body, word) in cases {
        let d = compile(&body, KernelBackend::Rspirv).expect_err(&body);
        assert_eq!(d[0].code, Code::InvalidAnnotation, "{body}: {d:?}");
        assert!(d[0].message.contains(word), "{body}: {d:?}");
    }
}
