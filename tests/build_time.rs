//! Kernels compiled at build time by `cajeta-build` (docs/build-rs.md): the example in
//! examples/rust/build-time runs through its typed bindings (its `main.rs` is included here,
//! its kernels compiled by this crate's build.rs), and a type error in a kernel makes `cargo
//! build` of a crate that uses `cajeta-build` fail showing the compiler's diagnostic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cajeta_tests::tests_dir;

#[allow(dead_code)]
#[path = "../examples/rust/build-time/src/main.rs"]
mod example;

/// A kernel with a type error (E0008) on line 7.
const BROKEN: &str = "package demo;
import cajeta.xpu.*;

public final class Broken {
    @Kernel
    public static void fill(KernelBuffer<float32> out) {
        float32 v = true;
        out[KernelThread.globalIdX()] = v;
    }
}
";

/// The target directory this test binary was built in (`<target>/debug/deps/suite-…`):
/// the nested build shares it, so the build script's dependencies are not built again.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

/// Writes a crate whose build script compiles `BROKEN` with `cajeta-build`, with the
/// workspace's lock file and dev profile (so the shared artifacts match).
fn write_crate(dir: &Path, root: &Path) {
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"broken-kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         publish = false\n\n[workspace]\n\n[build-dependencies]\n\
         cajeta-build = {{ path = {:?} }}\n\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n\
         [profile.dev.package.\"*\"]\ndebug = false\n",
        root.join("cajeta-build").display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(
        dir.join("build.rs"),
        "fn main() {\n    cajeta_build::Builder::new().file(\"kernels/broken.cajeta\").compile(\"kernels\");\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(dir.join("kernels/broken.cajeta"), BROKEN).unwrap();
}

/// A crate whose build script only needs `cajeta-build` (not the whole example: its runtime
/// dependencies would be built again with other features while the build script fails,
/// and cargo waits for them) is built offline; the build must fail with the diagnostic's
/// code, `file:line:col` and source excerpt in cargo's output.
#[test]
fn a_type_error_in_a_kernel_fails_cargo_build_with_the_diagnostic() {
    let root = tests_dir().join("..").canonicalize().unwrap();
    let dir = std::env::temp_dir().join(format!("cajeta-build-broken-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write_crate(&dir, &root);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let started = Instant::now();
    let mut child = Command::new(cargo)
        .args(["build", "--offline"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A nested cargo that waits on a lock would hang the suite: give up after a while.
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(600) {
            let _ = child.kill();
            panic!("the nested `cargo build` did not finish in 600 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "nested cargo build took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(!out.status.success(), "the build succeeded:\n{text}");
    // The one-line cargo error, and the rendered diagnostic with its excerpt.
    assert!(
        text.contains("kernels/broken.cajeta:7:21: error[E0008]"),
        "{text}"
    );
    assert!(text.contains("float32 v = true;"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Compiles `source` (as `dir/kernels/k.cajeta`) with `cajeta-build` into `dir/out`.
fn try_build(dir: &Path, source: &str) -> Result<cajeta_build::Output, cajeta_build::Failure> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    let file = dir.join("kernels/k.cajeta");
    std::fs::write(&file, source).unwrap();
    cajeta_build::Builder::new()
        .file(&file)
        .out_dir(dir.join("out"))
        .try_compile("kernels")
}

#[test]
fn bindings_take_rust_names_and_rerun_only_when_a_source_changes() {
    let dir = std::env::temp_dir().join(format!("cajeta-build-names-{}", std::process::id()));
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class K {\n    @Kernel\n    \
                  public static void scaleAll(KernelBuffer<int32> data, int32 type, uint64 block) {\n        \
                  data[0] = type;\n    }\n}\n";
    let out = try_build(&dir, source).unwrap();
    let file = dir.join("kernels/k.cajeta").display().to_string();
    assert_eq!(
        out.cargo_lines,
        vec![format!("cargo:rerun-if-changed={file}")]
    );
    assert_eq!(out.kernels.len(), 1);
    assert_eq!(out.kernels[0].method, "scale_all");
    let names: Vec<&str> = out.kernels[0]
        .params
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    // `type` is a Rust keyword; `block` is the launch's own parameter.
    assert_eq!(names, vec!["data", "r#type", "block_"]);
    let code = std::fs::read_to_string(&out.module).unwrap();
    assert!(
        code.contains("data: &::cajetac::embed::DeviceBuffer<i32>, r#type: i32, block_: u64)"),
        "{code}"
    );
    for f in ["scaleAll.spv", "scaleAll.json", "scaleAll.by_address.spv"] {
        assert!(dir.join("out").join(f).is_file(), "{f} missing");
    }
    // A rerun with nothing changed rewrites no file.
    let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let before = modified(&out.module);
    let spv = dir.join("out/scaleAll.spv");
    let spv_before = modified(&spv);
    std::thread::sleep(Duration::from_millis(20));
    cajeta_build::Builder::new()
        .file(&file)
        .out_dir(dir.join("out"))
        .try_compile("kernels")
        .unwrap();
    assert_eq!(modified(&out.module), before);
    assert_eq!(modified(&spv), spv_before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checker_warning_becomes_a_cargo_warning_line_and_the_build_succeeds() {
    let dir = std::env::temp_dir().join(format!("cajeta-build-warning-{}", std::process::id()));
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class K {\n    @Kernel\n    \
                  public static void k(KernelBuffer<int32> data) {\n        data[0] = 1;\n    }\n    \
                  static void present(RenderGraph g) {}\n}\n";
    let out = try_build(&dir, source).unwrap();
    let file = dir.join("kernels/k.cajeta").display().to_string();
    assert_eq!(
        out.cargo_lines,
        vec![
            format!("cargo:rerun-if-changed={file}"),
            format!("cargo::warning={file}:8:25: warning[W0001]: `RenderGraph` is accepted as a type only: no value of it can be made"),
        ]
    );
    assert_eq!(out.kernels.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_parameter_without_a_typed_binding_is_refused_at_its_declaration() {
    let dir = std::env::temp_dir().join(format!("cajeta-build-refused-{}", std::process::id()));
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class K {\n    @Kernel\n    \
                  public static void k(KernelBuffer<Vector<float32,4>> v) {\n        \
                  v[0] = v[1];\n    }\n}\n";
    let failure = try_build(&dir, source).unwrap_err();
    let file = dir.join("kernels/k.cajeta").display().to_string();
    assert_eq!(failure.cargo_lines.len(), 1, "{:?}", failure.cargo_lines);
    let line = &failure.cargo_lines[0];
    assert!(
        line.starts_with(&format!("cargo::error={file}:5:")),
        "{line}"
    );
    assert!(line.contains("error[E0024]"), "{line}");
    assert!(line.contains("`KernelBuffer<Vector<float32,4>>`"), "{line}");
    assert!(
        failure.rendered.contains("error[E0024]"),
        "{}",
        failure.rendered
    );
    assert!(!dir.join("out/kernels.rs").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_compile_error_becomes_a_cargo_error_line_and_the_rendered_diagnostic() {
    let dir = std::env::temp_dir().join(format!("cajeta-build-error-{}", std::process::id()));
    let failure = try_build(&dir, BROKEN).unwrap_err();
    let file = dir.join("kernels/k.cajeta").display().to_string();
    assert_eq!(
        failure.cargo_lines,
        vec![format!(
            "cargo::error={file}:7:21: error[E0008]: expected float32, found boolean"
        )]
    );
    assert!(
        failure.rendered.contains("7 │         float32 v = true;"),
        "{}",
        failure.rendered
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_the_generated_module_would_define_twice_are_refused() {
    let dir = std::env::temp_dir().join(format!("cajeta-build-clash-{}", std::process::id()));
    let source = "package t;\nimport cajeta.xpu.*;\npublic final class Kernels {\n    float32 a;\n}\n\
                  public final class K {\n    @Kernel\n    \
                  public static void load(KernelBuffer<float32> b) {\n        b[0] = 1.0f;\n    }\n    \
                  @Kernel\n    public static void run(KernelBuffer<float32> b, Kernels p) {\n        \
                  b[0] = p.a;\n    }\n}\n";
    let failure = try_build(&dir, source).unwrap_err();
    let file = dir.join("kernels/k.cajeta").display().to_string();
    assert_eq!(failure.cargo_lines.len(), 2, "{:?}", failure.cargo_lines);
    assert!(
        failure.cargo_lines[0].starts_with(&format!("cargo::error={file}:8:24: error[E0026]")),
        "{:?}",
        failure.cargo_lines
    );
    assert!(
        failure.cargo_lines[1].starts_with(&format!(
            "cargo::error={file}:12:61: error[E0026]: a POD class named `Kernels`"
        )),
        "{:?}",
        failure.cargo_lines
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether the file holds a symbol of LLVM's C++ namespace (`llvm::…`, mangled `_ZN4llvm`).
fn has_llvm_symbols(path: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    bytes.windows(8).any(|w| w == b"_ZN4llvm")
}

/// `cajeta-build` uses the compiler without its `native-host` feature, so the build scripts
/// that use it (this crate's, which says where it is) link no LLVM, while this suite does
/// (which shows the probe finds LLVM where it is).
#[test]
fn build_scripts_link_no_llvm() {
    let script = Path::new(env!("CAJETA_TESTS_BUILD_SCRIPT"));
    assert!(!has_llvm_symbols(script), "{} links LLVM", script.display());
    assert!(has_llvm_symbols(&std::env::current_exe().unwrap()));
}
