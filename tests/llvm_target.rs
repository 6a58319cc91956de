//! Defects of LLVM 23.1's SPIR-V target that the LLVM kernel backend works around
//! (`compiler/src/kernel/llvm/ir_fixups.rs`), checked on the words of the modules it emits.
//! The values are checked on the device by `fuzz_campaign`, which runs each finding's
//! reduction with LLVM's kernels.

use cajeta_tests::tests_dir;
use std::collections::HashMap;

/// The disassembly of kernel `name` of `file` (under tests/) as LLVM's SPIR-V target emits it
/// after `pipeline` (before the backend's post-pass, which leaves these instructions alone).
fn llvm_disassembly(file: &str, name: &str, pipeline: &str) -> String {
    let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
    let module = module.expect("checks");
    let id = module
        .kernels()
        .find(|&id| module.function(id).name == name)
        .expect("the kernel");
    let text = cajetac::kernel::llvm::kernel_ir(&module, id).expect("LLVM IR");
    let words = cajetac::kernel::llvm::emit_with_pipeline(&text, pipeline).expect("LLVM emits");
    cajetac::kernel::spirv::disassemble(&words)
}

/// The integer constants of a disassembly, by id, as their literal text (splat composites as
/// their first constituent).
fn integer_constants(text: &str) -> HashMap<String, String> {
    let mut constants = HashMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [id, "=", "OpConstant", _, value] => {
                constants.insert(id.to_string(), value.to_string());
            }
            [id, "=", "OpConstantComposite", _, first, ..] => {
                if let Some(v) = constants.get(*first).cloned() {
                    constants.insert(id.to_string(), v);
                }
            }
            _ => {}
        }
    }
    constants
}

#[test]
fn a_true_boolean_converts_to_minus_one() {
    // LLVM's `sitofp i1` gives -1.0 for true; LLVM 23.1's SPIR-V target selected 1 or 0 and
    // converted that as signed, 1.0 (seed 64 program 4 of the fuzz campaign, where instcombine
    // made `v37 -= c ? ~0L : 0L` into `fsub v37, sitofp i1 c`). The backend emits the
    // conversion through a sign extension: the select feeding `OpConvertSToF` is of -1 and 0.
    // The pattern comes from O2's instcombine on this kernel, so the kernel goes through O2
    // here: the backend's lean first pipeline (`emit::PIPELINES`) does not make it, and O2
    // stays its fallback.
    let file = "fuzz_findings/wrong_results/seed64_program_4_llvm.cajeta";
    let text = llvm_disassembly(file, "k1", "default<O2>");
    let constants = integer_constants(&text);
    let selects: HashMap<&str, (&str, &str)> = text
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [id, "=", "OpSelect", _, _, t, f] => Some((*id, (*t, *f))),
                _ => None,
            }
        })
        .collect();
    let mut bool_conversions = 0;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [_, "=", "OpConvertSToF", _, operand] = words.as_slice() else {
            continue;
        };
        let Some((t, f)) = selects.get(operand) else {
            continue;
        };
        let value = |id: &str| constants.get(id).cloned().unwrap_or_default();
        if value(f) == "0" {
            bool_conversions += 1;
            assert_eq!(
                value(t),
                "4294967295",
                "{line}: true converts to 1.0\n{text}"
            );
        }
    }
    assert_eq!(bool_conversions, 1, "{text}");
}
