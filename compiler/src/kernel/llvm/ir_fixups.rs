//! Rewrites of the optimized LLVM IR, made after the optimization pipeline and just before
//! LLVM's SPIR-V target emits it, of instructions that LLVM 23.1's target lowers wrongly
//! ([`fix_up`]), and before its region structurizer, of values it would lose
//! ([`pin_phi_inputs`]). Each rewrite is the same value in a form LLVM handles right; none
//! may run before the optimization pipeline, whose `instcombine` would fold it back.
//!
//! - `sitofp` of an `i1` (scalar or vector): LLVM reads the boolean as a one-bit
//!   two's-complement integer, so `true` converts to -1.0; the target materializes it as 1
//!   or 0 and converts that, giving 1.0 (fixed upstream after 23.1 by llvm/llvm-project
//!   pull request 209232). `instcombine` makes such conversions of `sitofp (sext i1 …)`, as
//!   in `f -= c ? ~0L : 0L` once the rest is proved 0 (seed 64 program 4 of the fuzz
//!   campaign, `tests/fuzz_findings/wrong_results/seed64_program_4_llvm.cajeta`). Each
//!   becomes `sitofp (sext i1 … to i32)`, which the target lowers to a select of -1 or 0
//!   and a signed conversion: no float constant appears, so no driver can fold one.
//! - `llvm.copysign`: the target cannot select it for Vulkan (`LLVM ERROR: cannot select:
//!   G_FCOPYSIGN`), and `instcombine` makes one of a plain `(float32) i * 0.0f` (the sign of
//!   the product is the converted integer's). Each becomes the bit operations it stands for:
//!   the magnitude's bits without their sign bit, or'ed with the sign bit of the sign's.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::types::{BasicType, BasicTypeEnum, IntType};
use inkwell::values::{
    AnyValue, AnyValueEnum, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue,
    IntMathValue, Operand, PhiValue, ValueKind,
};
use rspirv::spirv::Op;

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
    let copysigns: Vec<InstructionValue> = module
        .get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .flat_map(|b| b.get_instructions())
        .filter(|i| calls_copysign(*i))
        .collect();
    for &site in &copysigns {
        copysign_as_bits(&builder, site)?;
    }
    Ok(sites.len() + copysigns.len())
}

/// Whether `i` calls `llvm.copysign.*`.
fn calls_copysign(i: InstructionValue) -> bool {
    if i.get_opcode() != InstructionOpcode::Call {
        return false;
    }
    let callee = i
        .get_num_operands()
        .checked_sub(1)
        .and_then(|n| i.get_operand(n));
    matches!(
        callee,
        Some(Operand::Value(BasicValueEnum::PointerValue(f)))
            if f.get_name().to_bytes().starts_with(b"llvm.copysign.")
    )
}

/// Replaces `llvm.copysign(m, s)` (`site`, a float or a vector of floats) by
/// `bitcast((bits(m) & !SIGN) | (bits(s) & SIGN))`.
fn copysign_as_bits<'ctx>(
    builder: &Builder<'ctx>,
    site: InstructionValue<'ctx>,
) -> Result<(), String> {
    let err = |e: inkwell::builder::BuilderError| e.to_string();
    let (Some(Operand::Value(m)), Some(Operand::Value(sign))) =
        (site.get_operand(0), site.get_operand(1))
    else {
        return Err("llvm.copysign without two operands".to_string());
    };
    builder.position_before(&site);
    let ty = m.get_type();
    let (float, lanes) = match ty {
        BasicTypeEnum::FloatType(f) => (f, None),
        BasicTypeEnum::VectorType(v) => match v.get_element_type() {
            BasicTypeEnum::FloatType(f) => (f, Some(v.get_size())),
            _ => return Err("llvm.copysign of a vector of non-floats".to_string()),
        },
        _ => return Err("llvm.copysign of a non-float".to_string()),
    };
    let context = float.get_context();
    let (int, bits) = match float.print_to_string().to_string().as_str() {
        "half" | "bfloat" => (context.i16_type(), 16),
        "float" => (context.i32_type(), 32),
        "double" => (context.i64_type(), 64),
        other => return Err(format!("llvm.copysign of `{other}`")),
    };
    let sign_bit = int.const_int(1u64 << (bits - 1), false);
    let magnitude_mask = int.const_int(!(1u64 << (bits - 1)), false);
    let (int_ty, sign_mask, magnitude_mask): (BasicTypeEnum, BasicValueEnum, BasicValueEnum) =
        match lanes {
            None => (int.into(), sign_bit.into(), magnitude_mask.into()),
            Some(n) => {
                let splat = |c: inkwell::values::IntValue<'ctx>| {
                    inkwell::types::VectorType::const_vector(&vec![c; n as usize])
                };
                (
                    int.vec_type(n).into(),
                    splat(sign_bit).into(),
                    splat(magnitude_mask).into(),
                )
            }
        };
    let mb = builder.build_bit_cast(m, int_ty, "").map_err(err)?;
    let sb = builder.build_bit_cast(sign, int_ty, "").map_err(err)?;
    let joined = match (mb, sb, magnitude_mask, sign_mask) {
        (
            BasicValueEnum::IntValue(mb),
            BasicValueEnum::IntValue(sb),
            BasicValueEnum::IntValue(mm),
            BasicValueEnum::IntValue(sm),
        ) => or_masked(builder, [mb, sb], [mm, sm]).map_err(err)?,
        (
            BasicValueEnum::VectorValue(mb),
            BasicValueEnum::VectorValue(sb),
            BasicValueEnum::VectorValue(mm),
            BasicValueEnum::VectorValue(sm),
        ) => or_masked(builder, [mb, sb], [mm, sm]).map_err(err)?,
        _ => return Err("llvm.copysign operands of mixed shapes".to_string()),
    };
    let result = builder.build_bit_cast(joined, ty, "").map_err(err)?;
    match site.as_any_value_enum() {
        AnyValueEnum::FloatValue(old) => old.replace_all_uses_with(result.into_float_value()),
        AnyValueEnum::VectorValue(old) => old.replace_all_uses_with(result.into_vector_value()),
        _ => return Err("llvm.copysign with an unexpected result".to_string()),
    }
    site.erase_from_basic_block();
    Ok(())
}

/// `(a & a_mask) | (b & b_mask)` for integers or integer vectors.
fn or_masked<'ctx, T: IntMathValue<'ctx> + BasicValue<'ctx>>(
    builder: &Builder<'ctx>,
    [a, b]: [T; 2],
    [a_mask, b_mask]: [T; 2],
) -> Result<BasicValueEnum<'ctx>, inkwell::builder::BuilderError> {
    let a = builder.build_and(a, a_mask, "")?;
    let b = builder.build_and(b, b_mask, "")?;
    Ok(builder.build_or(a, b, "")?.as_basic_value_enum())
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

/// Passes every value a phi takes from the block that computes it through an
/// `OpCopyObject` placeholder call at the end of that block (one per value and block, so
/// phis that took the same value still do), before LLVM's region structurizer runs.
///
/// Why: LLVM 23.1's `structurizecfg` hoists "zero-cost" instructions (casts such as
/// `trunc i32 … to i16` and `sext i8 … to i16`) that an else block computes for a phi up to
/// the nearest common dominator of the two arms, and then fills the phis of the flow blocks
/// it creates with the hoisted value where the else arm was not taken, but not on every
/// such edge: a path reached the phi through a flow block whose incoming value stayed
/// `poison` (fuzz seed 70 program 101: a comparison read `OpUndef` on one path,
/// `tests/fuzz_findings/wrong_results/seed70_program_101_llvm.cajeta`). A call is not
/// zero-cost, so nothing is hoisted; the post-pass turns each call back into an
/// `OpCopyObject`, which drivers fold away. Pointers are left alone (a copied pointer is
/// still a pointer, but nothing here needs one).
pub(crate) fn pin_phi_inputs(module: &Module) -> Result<usize, String> {
    let context = module.get_context();
    let builder = context.create_builder();
    let name = super::spirv_ops::core_op(Op::CopyObject, None);
    let mut copies: HashMap<(InstructionValue, BasicBlock), BasicValueEnum> = HashMap::new();
    let phis: Vec<InstructionValue> = module
        .get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .flat_map(|b| b.get_instructions())
        .filter(|i| i.get_opcode() == InstructionOpcode::Phi)
        .collect();
    for phi in phis {
        for index in 0..phi.get_num_operands() {
            let Some(Operand::Value(value)) = phi.get_operand(index) else {
                continue;
            };
            let Some(def) = value.as_instruction_value() else {
                continue;
            };
            let Some(from) = def.get_parent() else {
                continue;
            };
            if value.is_pointer_value()
                || matches!(
                    def.get_opcode(),
                    InstructionOpcode::Phi | InstructionOpcode::Call
                )
                || incoming_block(phi, index) != Some(from)
            {
                continue;
            }
            let copy = match copies.get(&(def, from)) {
                Some(&copy) => copy,
                None => {
                    let copy = copy_at_end(module, &builder, &name, value, from)?;
                    copies.insert((def, from), copy);
                    copy
                }
            };
            phi.set_operand(index, copy);
        }
    }
    Ok(copies.len())
}

/// The block phi `phi`'s incoming value `index` comes from.
fn incoming_block<'ctx>(phi: InstructionValue<'ctx>, index: u32) -> Option<BasicBlock<'ctx>> {
    PhiValue::try_from(phi)
        .ok()?
        .get_incoming(index)
        .map(|(_, b)| b)
}

/// A call of the `OpCopyObject` placeholder `op` on `value`, placed before `block`'s
/// terminator; the placeholder of the value's type is declared if missing.
fn copy_at_end<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    op: &str,
    value: BasicValueEnum<'ctx>,
    block: BasicBlock<'ctx>,
) -> Result<BasicValueEnum<'ctx>, String> {
    let ty = value.get_type();
    let ty_name = ty.print_to_string().to_string();
    let quoted = super::spirv_ops::placeholder(op, &ty_name, &[&ty_name]);
    let name = quoted.trim_start_matches("@\"").trim_end_matches('"');
    let function = module
        .get_function(name)
        .unwrap_or_else(|| module.add_function(name, ty.fn_type(&[ty.into()], false), None));
    let end = block
        .get_terminator()
        .ok_or("a block without a terminator")?;
    builder.position_before(&end);
    let call = builder
        .build_call(function, &[value.into()], "")
        .map_err(|e| e.to_string())?;
    match call.try_as_basic_value() {
        ValueKind::Basic(copy) => Ok(copy),
        ValueKind::Instruction(_) => Err("a copy call without a value".to_string()),
    }
}
