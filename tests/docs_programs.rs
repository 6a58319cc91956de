//! The complete programs of the user documentation (`docs/*.md`): every ```` ```cajeta ````
//! block that is a whole file (it declares its `package`) compiles, each of its kernels
//! passes spirv-val, and one with an entry point runs through `cajetac run` on the default
//! device with both host executors, which must succeed (`main` returns 0, `run()` 0 or 777:
//! the block's own checks decide) and print the same. A reader who copies such a block
//! into a file gets a program that works.
//!
//! Blocks holding `…` are sketches of a form, not programs, and are left out; so are
//! fragments without a `package` line.

use cajeta_tests::{cajetac_program, device_context, spirv_val, tests_dir};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver;
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

/// One complete program of the documentation: where it is (`file.md:line`) and its text.
struct DocProgram {
    at: String,
    text: String,
}

/// The complete ```` ```cajeta ```` programs of every `docs/*.md`, in file and line order.
fn doc_programs() -> Vec<DocProgram> {
    let dir = tests_dir().join("../docs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let mut programs = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let mut lines = text.lines().enumerate();
        while let Some((n, line)) = lines.next() {
            if line.trim_end() != "```cajeta" {
                continue;
            }
            let body: Vec<&str> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| !l.starts_with("```"))
                .collect();
            let body = body.join("\n") + "\n";
            let whole = body.lines().any(|l| l.starts_with("package "));
            if whole && !body.contains('…') {
                programs.push(DocProgram {
                    at: format!("{name}:{}", n + 1),
                    text: body,
                });
            }
        }
    }
    programs
}

#[test]
fn documented_programs_compile_validate_and_run() {
    let programs = doc_programs();
    // The tutorial alone has five; fewer means the blocks are no longer found.
    assert!(
        programs.len() >= 5,
        "only {} complete programs found in docs/",
        programs.len()
    );
    let mut failures = Vec::new();
    for p in &programs {
        let mut sources = SourceMap::new();
        let files = [(p.at.replace(':', "_") + ".cajeta", p.text.clone())];
        let module = match driver::frontend(&mut sources, &files) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{}: {}", p.at, render_human(&sources, &d)));
                continue;
            }
        };
        match driver::compile_kernels(&module, &SpirvOptions::default(), None) {
            Ok(kernels) => {
                for (_, k) in kernels {
                    let tag = format!("docs_{}", k.name);
                    if let Err(e) = spirv_val(&k.words, TargetEnv::Vulkan1_1, &tag) {
                        failures.push(format!("{}: kernel {}: {e}", p.at, k.name));
                    }
                }
            }
            Err(d) => failures.push(format!("{}: {}", p.at, render_human(&sources, &d))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    let runnable: Vec<_> = programs
        .iter()
        .filter(|p| p.text.contains(" main(") || p.text.contains(" run()"))
        .collect();
    if device_context(false).is_none() {
        return;
    }
    let Some(cajetac) = cajetac_program() else {
        return;
    };
    for p in runnable {
        // In a folder of its own: a program may write files (a picture) where it runs.
        let dir = std::env::temp_dir().join(format!(
            "cajeta-docs-{}-{}",
            std::process::id(),
            p.at.replace([':', '.'], "_")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("program.cajeta"), &p.text).unwrap();
        let run = |host: &str| {
            let out = std::process::Command::new(&cajetac)
                .args(["run", "--host", host, "program.cajeta"])
                .current_dir(&dir)
                .output()
                .unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let interp = run("interp");
        let native = run("native");
        std::fs::remove_dir_all(&dir).ok();
        // `cajetac run` exits with `main`'s value; `run()` prints its value and exits 0.
        // The documentation's programs return 0 (or 777) when their own checks pass.
        let returned = interp.1.lines().last().unwrap_or("").trim().to_string();
        let passed = if p.text.contains(" run()") {
            returned == "0" || returned == "777"
        } else {
            true
        };
        if interp.0 != Some(0) || !passed {
            failures.push(format!(
                "{}: exit status {:?}\nprinted:\n{}{}",
                p.at, interp.0, interp.1, interp.2
            ));
        } else if interp != native {
            failures.push(format!(
                "{}: the host executors differ\ninterpreter: {interp:?}\nnative: {native:?}",
                p.at
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
