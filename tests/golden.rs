//! Golden tests: every kernel under `tests/kernels/` compiles, its disassembly and
//! reflection match the checked-in goldens, and every module passes spirv-val for
//! vulkan1.1 and vulkan1.3 (and the vulkan1.3 build passes for vulkan1.3).

use cajeta_tests::{check_golden, files, frontend, spirv_val, tests_dir};
use cajetac::diagnostics::render_human;
use cajetac::driver::compile_kernels;
use cajetac::kernel::spirv::{disassemble, AddressVariant, SpirvOptions, TargetEnv};

#[test]
fn kernels_match_goldens_and_validate() {
    let sources = files("kernels", "cajeta");
    assert!(
        sources.len() >= 8,
        "expected the kernel corpus, found {}",
        sources.len()
    );
    let golden_dir = tests_dir().join("kernels").join("golden");
    std::fs::create_dir_all(&golden_dir).unwrap();
    let mut failures = Vec::new();
    let mut modules = 0;
    for path in &sources {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let (map, result) = frontend(path);
        let module = match result {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!(
                    "{stem}: does not compile:\n{}",
                    render_human(&map, &d)
                ));
                continue;
            }
        };
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            let options = SpirvOptions {
                target_env: env,
                ..SpirvOptions::default()
            };
            let kernels = match compile_kernels(&module, &options, None) {
                Ok(k) => k,
                Err(d) => {
                    failures.push(format!(
                        "{stem}: backend failed:\n{}",
                        render_human(&map, &d)
                    ));
                    continue;
                }
            };
            assert!(!kernels.is_empty(), "{stem} has no kernels");
            // Every kernel's address variant passes spirv-val too; those of the `address_*`
            // files also have goldens (`.addr` before the environment suffix).
            let mut variants = Vec::new();
            for (_, k) in &kernels {
                variants.push((k, ""));
                match &k.by_address {
                    AddressVariant::Compiled(v) => variants.push((v, ".addr")),
                    AddressVariant::Refused(why) => {
                        failures.push(format!("{stem}.{}: address variant refused: {why}", k.name))
                    }
                    AddressVariant::None => {}
                }
            }
            for (k, variant) in variants {
                modules += 1;
                let tag = format!("{stem}.{}{variant}.{}", k.name, env.name());
                let vals: &[TargetEnv] = if env == TargetEnv::Vulkan1_1 {
                    &[TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3]
                } else {
                    &[TargetEnv::Vulkan1_3]
                };
                for v in vals {
                    if let Err(e) = spirv_val(&k.words, *v, &tag) {
                        failures.push(e);
                    }
                }
                if !variant.is_empty() && !stem.starts_with("address_") {
                    continue;
                }
                let suffix = if env == TargetEnv::Vulkan1_1 {
                    String::new()
                } else {
                    ".vk13".to_string()
                };
                let asm = golden_dir.join(format!("{stem}.{}{variant}{suffix}.spvasm", k.name));
                let text = disassemble(&k.words);
                if let Err(e) = check_golden(&asm, &text) {
                    failures.push(e);
                }
                // The text is real assembly: `spirv-as` reads it back to the same module.
                if let Err(e) = cajeta_tests::reassembles_to(&text, &k.words, env, &tag) {
                    failures.push(e);
                }
                if env == TargetEnv::Vulkan1_1 {
                    let json = serde_json::to_string_pretty(&k.reflection).unwrap() + "\n";
                    if let Err(e) = check_golden(
                        &golden_dir.join(format!("{stem}.{}{variant}.json", k.name)),
                        &json,
                    ) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(modules >= 20, "only {modules} modules were checked");
}

#[test]
fn image_store_and_load_lower_to_one_instruction_each() {
    let (_, result) = frontend(&tests_dir().join("kernels").join("img_rmw.cajeta"));
    let module = result.expect("img_rmw compiles");
    let kernels = compile_kernels(&module, &SpirvOptions::default(), None).expect("backend");
    let asm = |name: &str| {
        disassemble(
            &kernels
                .iter()
                .find(|(_, k)| k.name == name)
                .expect("kernel")
                .1
                .words,
        )
    };
    let fill = asm("fill");
    let rmw = asm("rmw");
    assert_eq!(fill.matches("OpImageWrite").count(), 1, "{fill}");
    assert_eq!(fill.matches("OpImageRead").count(), 0);
    assert_eq!(rmw.matches("OpImageWrite").count(), 1, "{rmw}");
    assert_eq!(rmw.matches("OpImageRead").count(), 1);
    for text in [&fill, &rmw] {
        assert!(text.contains("R32f"), "image type must carry R32f:\n{text}");
        assert!(
            !text.contains("Unknown"),
            "no Unknown image format:\n{text}"
        );
        let caps: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("OpCapability"))
            .collect();
        assert_eq!(
            caps,
            vec!["OpCapability Shader"],
            "exactly the Shader capability"
        );
    }
}
