//! 8- and 16-bit integers in LLVM's modules: NVIDIA's 580 driver got narrow arithmetic that
//! wraps wrong (an int8/int16 multiply or left shift of a negated value that wraps to the
//! type's minimum gave its positive twin), took a narrowing conversion and the widening one
//! after it for the identity (-128 in an int8 lane read back as 128), and got further narrow
//! forms wrong in the fuzz campaign (docs/fuzzing.md, "On an NVIDIA H100"). The rspirv
//! backend does every narrow integer operation in 32 bits and narrows only values already in
//! range, and so must LLVM's modules, whatever widths LLVM's instcombine chose.
//! `device_programs_agree_through_llvm` runs the same programs and checks the values.

use super::compile_one;
use cajeta_tests::tests_dir;
use cajetac::kernel::spirv::KernelBackend;
use std::collections::HashMap;

/// The programs checked: the narrow forms NVIDIA got wrong, sign extensions to 64 bits, and
/// narrow division, remainder, comparisons and bitwise operations.
const FILES: [&str; 4] = [
    "device/narrow_wrap.cajeta",
    "device/sign_extend_64.cajeta",
    "device/narrow_forms.cajeta",
    "device/narrow_divide.cajeta",
];

/// Operations that must not be left on 8/16-bit results (a float is converted to 32 bits
/// and narrowed).
const NARROW_RESULT_OPS: [&str; 18] = [
    "OpIAdd",
    "OpISub",
    "OpIMul",
    "OpSNegate",
    "OpShiftLeftLogical",
    "OpShiftRightLogical",
    "OpShiftRightArithmetic",
    "OpBitwiseAnd",
    "OpBitwiseOr",
    "OpBitwiseXor",
    "OpNot",
    "OpSDiv",
    "OpUDiv",
    "OpSRem",
    "OpSMod",
    "OpUMod",
    "OpConvertFToS",
    "OpConvertFToU",
];

/// Operations that must not be left on 8/16-bit operands (their result is not narrow).
const NARROW_OPERAND_OPS: [&str; 10] = [
    "OpIEqual",
    "OpINotEqual",
    "OpSLessThan",
    "OpSLessThanEqual",
    "OpSGreaterThan",
    "OpSGreaterThanEqual",
    "OpULessThan",
    "OpULessThanEqual",
    "OpUGreaterThan",
    "OpUGreaterThanEqual",
];

/// A disassembled module's integer types (scalar width by type id, through vectors), each
/// id's type and each id's defining opcode.
struct Facts<'a> {
    width: HashMap<&'a str, u32>,
    type_of: HashMap<&'a str, &'a str>,
    op_of: HashMap<&'a str, &'a str>,
}

fn facts(text: &str) -> Facts<'_> {
    let mut f = Facts {
        width: HashMap::new(),
        type_of: HashMap::new(),
        op_of: HashMap::new(),
    };
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [id, "=", "OpTypeInt", w, _] => {
                f.width.insert(id, w.parse().expect("width"));
            }
            [id, "=", "OpTypeVector", c, _] => {
                if let Some(&w) = f.width.get(c) {
                    f.width.insert(id, w);
                }
            }
            [id, "=", op, ty, ..] => {
                f.op_of.insert(id, op);
                f.type_of.insert(id, ty);
            }
            _ => {}
        }
    }
    f
}

impl Facts<'_> {
    /// The integer width of the type `ty`, if it is an integer (vector) type.
    fn type_width(&self, ty: &str) -> Option<u32> {
        self.width.get(ty).copied()
    }

    /// The integer width of the value `id`.
    fn value_width(&self, id: &str) -> Option<u32> {
        self.type_of.get(id).and_then(|t| self.type_width(t))
    }
}

/// Every problem of a disassembled module under the two rules (see the module comment).
fn narrow_problems(text: &str) -> Vec<String> {
    let f = facts(text);
    let narrow = |w: Option<u32>| w.is_some_and(|w| w < 32);
    let mut problems = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [_, "=", op, ty, args @ ..] = words.as_slice() else {
            continue;
        };
        let first = args.first().copied().unwrap_or("");
        if NARROW_RESULT_OPS.contains(op) && narrow(f.type_width(ty)) {
            problems.push(format!("narrow operation left: {line}"));
        }
        if NARROW_OPERAND_OPS.contains(op) && narrow(f.value_width(first)) {
            problems.push(format!("operation on narrow operands left: {line}"));
        }
        if !matches!(*op, "OpSConvert" | "OpUConvert") {
            continue;
        }
        let (to, from) = (f.type_width(ty), f.value_width(first));
        if let (Some(to), Some(from)) = (to, from) {
            let shifted = matches!(
                f.op_of.get(first).copied(),
                Some("OpShiftRightArithmetic" | "OpShiftRightLogical")
            );
            if to < 32 && from > to && !shifted {
                problems.push(format!("narrowing of a value not brought in range: {line}"));
            }
            if *op == "OpUConvert" && from < 32 && to > from {
                problems.push(format!("zero extension of a narrow value: {line}"));
            }
        }
    }
    problems
}

#[test]
fn llvm_modules_compute_narrow_integers_in_32_bits() {
    for file in FILES {
        let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
        let module = module.expect("checks");
        for id in module.kernels() {
            let name = module.function(id).name.clone();
            let k = compile_one(&module, &name, KernelBackend::Llvm).expect("LLVM compiles");
            let text = cajetac::kernel::spirv::disassemble(&k.words);
            let f = facts(&text);
            assert!(
                f.width.values().any(|&w| w < 32),
                "{file}:{name}: no 8/16-bit type\n{text}"
            );
            let problems = narrow_problems(&text);
            assert!(
                problems.is_empty(),
                "{file}:{name}:\n{}\n{text}",
                problems.join("\n")
            );
        }
    }
}

#[test]
fn the_narrow_check_sees_each_kind_of_problem() {
    // A hand-written module with one of each: the check above would pass vacuously if it
    // recognised none.
    let text = "\
%1 = OpTypeInt 8 0
%2 = OpTypeInt 32 0
%3 = OpTypeBool
%4 = OpTypeVector %1 4
%10 = OpFunctionParameter %2
%11 = OpUConvert %1 %10
%12 = OpBitwiseXor %4 %20 %20
%13 = OpSLessThan %3 %11 %11
%14 = OpUConvert %2 %11
%15 = OpShiftLeftLogical %2 %10 %10
%16 = OpShiftRightArithmetic %2 %15 %10
%17 = OpUConvert %1 %16
";
    let problems = narrow_problems(text);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    for (p, want) in problems.iter().zip([
        "narrowing of a value not brought in range: %11",
        "narrow operation left: %12",
        "operation on narrow operands left: %13",
        "zero extension of a narrow value: %14",
    ]) {
        assert!(p.starts_with(want), "{p} is not {want}");
    }
}

/// Each kernel of the test program `file` compiled by the LLVM backend, disassembled.
fn llvm_disassemblies(file: &str) -> Vec<(String, String)> {
    let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
    let module = module.expect("checks");
    let mut out = Vec::new();
    for id in module.kernels() {
        let name = module.function(id).name.clone();
        let k = compile_one(&module, &name, KernelBackend::Llvm).expect("LLVM compiles");
        out.push((name, cajetac::kernel::spirv::disassemble(&k.words)));
    }
    out
}

#[test]
fn llvm_modules_convert_floats_to_64_bits_in_halves() {
    // As the rspirv backend (`device::rspirv_converts_floats_to_64_bits_in_halves`).
    let file = "device/wide_conversions.cajeta";
    for (name, text) in llvm_disassemblies(file) {
        let found = cajeta_tests::float_to_64_in_one_step(&text);
        assert!(found.is_empty(), "{file}:{name}: {found:?}\n{text}");
        assert!(
            text.contains("OpConvertFToU"),
            "{file}:{name}: no conversion"
        );
    }
}

#[test]
fn llvm_modules_round_to_float16_before_narrowing() {
    // As the rspirv backend (`device::rspirv_rounds_to_float16_before_narrowing_in_registers`):
    // every narrowing takes a value rounded on its bits, and the rounding's subnormal edge
    // (2^-14's bits) is compared against in every kernel.
    let file = "device/half_rounding.cajeta";
    for (name, text) in llvm_disassemblies(file) {
        assert!(text.contains("OpFConvert"), "{file}:{name}: no conversion");
        let found = cajeta_tests::unrounded_half_narrowings(&text);
        assert!(found.is_empty(), "{file}:{name}: {found:?}");
        assert!(
            text.contains(" 947912704"),
            "{file}:{name}: no rounding to float16 before the narrowing\n{text}"
        );
    }
}

#[test]
fn llvm_ir_divides_narrow_signed_integers_in_32_bits_without_the_min_guard() {
    // A signed 8- or 16-bit `/` or `%` is a 32-bit `sdiv` of sign-extended operands, where
    // `MIN / -1` cannot overflow: no `x == MIN && y == -1` guard, whose compare of the
    // dividend LLVM's instcombine rewrote (`-x == MIN` as `x == MIN`) into a form NVIDIA's
    // 580 driver then computed the negation of unwrapped (program 0 of fuzz seed 0xC47E7A,
    // docs/fuzzing.md). `device_programs_agree_through_llvm` checks the values on the device.
    let file = "device/narrow_divide.cajeta";
    let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
    let module = module.expect("checks");
    for id in module.kernels() {
        let ir = cajetac::kernel::llvm::kernel_ir(&module, id).expect("lowers");
        assert!(ir.contains("sdiv i32"), "{file}: no 32-bit division\n{ir}");
        for narrow in ["i8", "i16"] {
            assert!(
                !ir.contains(&format!("sdiv {narrow} ")),
                "{file}: a {narrow} division\n{ir}"
            );
            let guard = ir
                .lines()
                .find(|l| l.contains(&format!("icmp eq {narrow} ")) && l.ends_with(", -1"));
            assert!(
                guard.is_none(),
                "{file}: the MIN / -1 guard {guard:?}\n{ir}"
            );
        }
    }
}
