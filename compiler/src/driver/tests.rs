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

fn class(members: &str) -> ir::Module {
    let text = format!("package t;\npublic final class T {{\n{members}\n}}\n");
    let mut sources = SourceMap::new();
    frontend(&mut sources, &[("t.cajeta".to_string(), text)]).expect("checks")
}

fn entry_name(m: &ir::Module) -> Option<(String, usize)> {
    entry_point(m).map(|id| {
        let f = m.function(id);
        (f.name.clone(), f.params().len())
    })
}

/// A helper named `run` (or `main`) with other parameters does not hide the entry point; with
/// no method of an entry point's shape the first `run`/`main` is still chosen, so running it
/// says why it cannot be one.
#[test]
fn a_run_helper_with_parameters_is_not_the_entry_point() {
    let helper = "    static int32 run(int32 x) { return x + 1; }";
    let m = class(&format!(
        "{helper}\n    public static int32 main(String[] args) {{ return run(1); }}"
    ));
    assert_eq!(entry_name(&m), Some(("main".to_string(), 1)));
    let m = class(&format!(
        "{helper}\n    public static int32 main() {{ return run(2); }}"
    ));
    assert_eq!(entry_name(&m), Some(("main".to_string(), 0)));
    let m = class(helper);
    assert_eq!(entry_name(&m), Some(("run".to_string(), 1)));
}
