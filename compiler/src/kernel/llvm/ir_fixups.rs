//! Rewrites of the optimized LLVM IR, made after the optimization pipeline and just before
//! LLVM's SPIR-V target emits it, of instructions that LLVM 23.1's target lowers wrongly.
//! Each rewrite is the same value in a form the target lowers right; none may run before
//! the pipeline, whose `instcombine` would fold it back.
//!
//! - `sitofp` of an `i1` (scalar or vector): LLVM reads the boolean as a one-bit
//!   two's-complement integer, so `true` converts to -1.0; the target materializes it as 1
//!   or 0 and converts that, giving 1.0 (fixed upstream after 23.1 by llvm/llvm-project
//!   pull request 209232). `instcombine` makes such conversions of `sitofp (sext i1 …)`, as
//!   in `f -= c ? ~0L : 0L` once the rest is proved 0 (seed 64 program 4 of the fuzz
//!   campaign, `tests/fuzz_findings/wrong_results/seed64_program_4_llvm.cajeta`). Each
//!   becomes `sitofp (sext i1 … to i32)`, which the target lowers to a select of -1 or 0
//!   and a signed conversion: no float constant appears, so no driver can fold one.

use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{
    AnyValue, AnyValueEnum, BasicValueEnum, InstructionOpcode, InstructionValue, Operand,
};

/// Applies every rewrite of the module comment to `module`; returns how many instructions
/// were rewritten.
pub(crate) fn fix_up(module: &Module) -> Result<usize, String> {
    let sites: Vec<InstructionValue> = module
        .get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .flat_map(|b| b.get_instructions())
        .filter(|i| i.get_opcode() == InstructionOpcode::SIToFP && converts_a_bool(*i))
        .collect();
    let context = module.get_context();
    let builder = context.create_builder();
    for &site in &sites {
        bool_to_float_through_i32(&builder, context.i32_type(), site)?;
    }
    Ok(sites.len())
}

/// Whether the conversion `i`'s operand is an `i1` or a vector of them.
fn converts_a_bool(i: InstructionValue) -> bool {
    match i.get_operand(0) {
        Some(Operand::Value(BasicValueEnum::IntValue(v))) => v.get_type().get_bit_width() == 1,
        Some(Operand::Value(BasicValueEnum::VectorValue(v))) => matches!(
            v.get_type().get_element_type(),
            BasicTypeEnum::IntType(t) if t.get_bit_width() == 1
        ),
        _ => false,
    }
}

/// Replaces `sitofp i1 %c` (`site`) by `sitofp (sext i1 %c to i32)`, lane by lane for
/// vectors.
fn bool_to_float_through_i32<'ctx>(
    builder: &Builder<'ctx>,
    i32_type: IntType<'ctx>,
    site: InstructionValue<'ctx>,
) -> Result<(), String> {
    let err = |e: inkwell::builder::BuilderError| e.to_string();
    builder.position_before(&site);
    match (site.get_operand(0), site.as_any_value_enum()) {
        (Some(Operand::Value(BasicValueEnum::IntValue(c))), AnyValueEnum::FloatValue(old)) => {
            let wide = builder.build_int_s_extend(c, i32_type, "").map_err(err)?;
            let new = builder
                .build_signed_int_to_float(wide, old.get_type(), "")
                .map_err(err)?;
            old.replace_all_uses_with(new);
        }
        (Some(Operand::Value(BasicValueEnum::VectorValue(c))), AnyValueEnum::VectorValue(old)) => {
            let lanes = i32_type.vec_type(c.get_type().get_size());
            let wide = builder.build_int_s_extend(c, lanes, "").map_err(err)?;
            let new = builder
                .build_signed_int_to_float(wide, old.get_type(), "")
                .map_err(err)?;
            old.replace_all_uses_with(new);
        }
        _ => return Err("sitofp of a boolean with an unexpected type".to_string()),
    }
    site.erase_from_basic_block();
    Ok(())
}
