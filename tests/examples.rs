//! The Cajeta examples under `examples/`: each runs at its small size on the default device
//! and must succeed (`main` returns 0, `run()` 777) (each example checks its own output against values its host code
//! computes), every kernel passes spirv-val, and each PNG an example announces in a
//! `// writes: NAME.png WxH` header line is written and decodes to that size (the small run's).
//!
//! Convention: `public static int32 main(String[] args)` with `args[0]` the output folder
//! and `args[1]` either `small` (CI) or `full` (the pictures in docs/gallery/); `args[2]`, when
//! given, is the folder of `examples/data` (default: `examples/data`, from the repository root).

use cajeta_tests::{device_context, spirv_val, tests_dir};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver::{self, RunError};
use cajetac::host::interp::{HostIo, HostOutcome};
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

fn examples() -> Vec<std::path::PathBuf> {
    let dir = tests_dir().join("../examples");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cajeta"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("main(String[] args)")))
        .collect();
    v.sort();
    v
}

/// `// writes: a.png 64x64` lines: file name and expected size.
fn announced_pngs(text: &str) -> Vec<(String, u32, u32)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("// writes: "))
        .filter_map(|rest| {
            let mut it = rest.split_whitespace();
            let name = it.next()?.to_string();
            let (w, h) = it.next()?.split_once('x')?;
            Some((name, w.parse().ok()?, h.parse().ok()?))
        })
        .collect()
}

#[test]
fn examples_run_small_and_write_their_pictures() {
    let list = examples();
    if list.is_empty() {
        return;
    }
    let Some(ctx) = device_context(false) else {
        return;
    };
    let mut failures = Vec::new();
    for path in &list {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let out_dir =
            std::env::temp_dir().join(format!("cajeta-example-{}-{}", std::process::id(), name));
        std::fs::create_dir_all(&out_dir).unwrap();
        let files = vec![(name.clone(), text.clone())];
        let mut sources = SourceMap::new();
        match driver::frontend(&mut sources, &files) {
            Ok(module) => match driver::compile_kernels(&module, &SpirvOptions::default(), None) {
                Ok(kernels) => {
                    for (_, k) in kernels {
                        if let Err(e) = spirv_val(
                            &k.words,
                            TargetEnv::Vulkan1_1,
                            &format!("example_{}", k.name),
                        ) {
                            failures.push(e);
                        }
                    }
                }
                Err(d) => {
                    failures.push(format!("{name}: backend:\n{}", render_human(&sources, &d)))
                }
            },
            Err(d) => {
                failures.push(format!(
                    "{name}: does not compile:\n{}",
                    render_human(&sources, &d)
                ));
                continue;
            }
        }
        let success = if text.contains(" main(") { "0" } else { "777" };
        let mut stdout = Vec::new();
        let mut io = HostIo {
            stdout: &mut stdout,
            context: Some(ctx.clone()),
        };
        let mut sources = SourceMap::new();
        // args[2]: the folder of the examples' input data, since the test runs from tests/.
        let data = tests_dir().join("../examples/data");
        let args = [
            out_dir.display().to_string(),
            "small".to_string(),
            data.display().to_string(),
        ];
        let printed = |s: &Vec<u8>| String::from_utf8_lossy(s).into_owned();
        match driver::run_program(
            &mut sources,
            &files,
            &SpirvOptions::default(),
            &args,
            &mut io,
        ) {
            // `main` returns 0 (its exit status) when every check passes, `run()` 777.
            Ok(HostOutcome::Returned(v)) if format!("{v}") == success => {}
            Ok(other) => failures.push(format!(
                "{name}: returned {other:?}; printed:\n{}",
                printed(&stdout)
            )),
            Err(RunError::Runtime(e)) => failures.push(format!(
                "{name}: {}\nprinted:\n{}",
                e.render(&sources),
                printed(&stdout)
            )),
            Err(RunError::Compile(d)) => {
                failures.push(format!("{name}:\n{}", render_human(&sources, &d)))
            }
            Err(RunError::NoEntryPoint | RunError::NotNative(_)) => {
                failures.push(format!("{name}: no entry point"))
            }
        }
        for (png, w, h) in announced_pngs(&text) {
            match image::image_dimensions(out_dir.join(&png)) {
                Ok(dims) if dims == (w, h) => {}
                Ok(dims) => failures.push(format!("{name}: {png} is {dims:?}, announced {w}x{h}")),
                Err(e) => failures.push(format!("{name}: {png} not written or not a picture: {e}")),
            }
        }
        let _ = std::fs::remove_dir_all(&out_dir);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
