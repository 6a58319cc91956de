//! Tests of the driver's helpers that need a checked module.

use super::*;

fn module(body: &str) -> ir::Module {
    let text = format!(
        "package t;\nimport cajeta.xpu.*;\npublic final class T {{\n    public static int32 main(String[] args) {{\n{body}\n        return 0;\n    }}\n}}\n"
    );
    let mut sources = SourceMap::new();
    frontend(&mut sources, &[("t.cajeta".to_string(), text)]).expect("checks")
}

/// The run's context keeps every device feature exactly when the program calls Blas.gemm.
#[test]
fn a_blas_gemm_call_is_found_in_host_code() {
    let buffers = "        KernelBuffer<int8> a = heap KernelBuffer<int8>(4);\n        KernelBuffer<int32> c = heap KernelBuffer<int32>(4);";
    let with = module(&format!(
        "{buffers}\n        if (args.length > 3) {{ Blas.gemm(a, a, c, 2, 2, 2); }}"
    ));
    assert!(calls_library_gemm(&with));
    let without = module(buffers);
    assert!(!calls_library_gemm(&without));
}
