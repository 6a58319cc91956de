//! `System.out.printf`/`println` in kernels and helpers: `OpExtInst %void
//! %NonSemantic.DebugPrintf 1 %format args…`, as the rspirv backend emits it (the format an
//! `OpString`, with `SPV_KHR_non_semantic_info`).
//!
//! LLVM 23.1's SPIR-V target has no way to ask for a non-semantic instruction from LLVM IR,
//! so a print is the call of a placeholder function (declared only, free to touch memory,
//! so the optimizer neither drops nor reorders prints) whose name carries the format,
//! hex-encoded: `spirv.printf.<hex>.<signature>`. The post-pass ([`replace_prints`])
//! turns each call into the instruction and the format into its `OpString`. Arguments are
//! converted as with rspirv: booleans to 0/1, integers to 32 bits (64 for `%l…`) by their
//! signedness, floats to float32.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Decoration, Op, Word};

use super::lower::{FnLower, Val};
use super::refuse;
use crate::diagnostics::Diagnostic;
use crate::ir::debug_printf::{self, Spec};
use crate::ir::{Expr, ExprKind, ScalarType, Type};

type Res<T> = Result<T, Diagnostic>;

/// The name prefix of a print's placeholder.
const PREFIX: &str = "spirv.printf.";
/// `DebugPrintf` is instruction 1 of the `NonSemantic.DebugPrintf` set.
const DEBUG_PRINTF: u32 = 1;

impl FnLower<'_> {
    /// A kernel print: `args[0]` is the (checked) format literal.
    pub(super) fn debug_printf(&mut self, args: &[Expr], e: &Expr) -> Res<()> {
        let Some((
            Expr {
                kind: ExprKind::Str(format),
                ..
            },
            values,
        )) = args.split_first()
        else {
            return Err(refuse(e.span, "a kernel print without a literal format"));
        };
        let specs = debug_printf::parse(format)
            .map_err(|m| refuse(e.span, format!("the kernel format ({m})")))?;
        if specs.len() != values.len() {
            return Err(refuse(
                e.span,
                "a kernel print whose arguments do not match its format",
            ));
        }
        let mut operands = Vec::with_capacity(values.len());
        for (spec, v) in specs.iter().zip(values) {
            operands.push(self.printf_operand(spec, v)?);
        }
        let hex: String = format.bytes().map(|b| format!("{b:02x}")).collect();
        let params: Vec<&str> = operands.iter().map(|v| v.ty).collect();
        let signature: String = params
            .iter()
            .map(|p| {
                p.chars()
                    .filter(|c| c.is_ascii_alphanumeric())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("_");
        let name = format!("@\"{PREFIX}{hex}.{signature}\"");
        self.declare(format!(
            "declare void {name}({}) nounwind",
            params.join(", ")
        ));
        let list: Vec<String> = operands
            .iter()
            .map(|v| format!("{} {}", v.ty, v.text))
            .collect();
        self.emit(format!("call void {name}({})", list.join(", ")));
        Ok(())
    }

    /// One argument, converted lane by lane to what its conversion prints.
    fn printf_operand(&mut self, spec: &Spec, v: &Expr) -> Res<Val> {
        let (elem, lanes) = match &v.ty {
            Type::Scalar(s) => (*s, None),
            Type::Vector(s, n) => (*s, Some(*n)),
            other => {
                return Err(refuse(
                    v.span,
                    format!("printing a value of type `{other}`"),
                ))
            }
        };
        let to = spec.printed_type(elem);
        let value = self.expr(v)?;
        match lanes {
            None => self.printf_lane(value, elem, to, v),
            Some(n) => self.per_lane((elem, n), to, &[value], v.span, |f, l| {
                f.printf_lane(l[0].clone(), elem, to, v)
            }),
        }
    }

    /// One scalar converted for printing (a boolean becomes 1 or 0).
    fn printf_lane(&mut self, value: Val, from: ScalarType, to: ScalarType, v: &Expr) -> Res<Val> {
        if from == ScalarType::Bool {
            let t = self.tmp();
            self.emit(format!("{t} = select i1 {}, i32 1, i32 0", value.text));
            return self.convert_value(Val::new(t, "i32"), ScalarType::U32, to, v.span);
        }
        self.convert_value(value, from, to, v.span)
    }
}

/// Replaces the calls of print placeholders by `DebugPrintf` instructions (with the
/// import, the extension and one `OpString` per format) and removes the placeholders.
/// Runs before [`super::spirv_ops::replace_placeholders`], which drops `Linkage` once no
/// imported function is left.
pub(crate) fn replace_prints(m: &mut Module) -> Result<(), String> {
    let mut formats: HashMap<Word, String> = HashMap::new();
    for i in &m.annotations {
        let (
            Some(Operand::IdRef(target)),
            Some(Operand::Decoration(Decoration::LinkageAttributes)),
            Some(Operand::LiteralString(name)),
        ) = (i.operands.first(), i.operands.get(1), i.operands.get(2))
        else {
            continue;
        };
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let hex = rest.split('.').next().unwrap_or_default();
        let bytes: Option<Vec<u8>> = (0..hex.len())
            .step_by(2)
            .map(|k| {
                hex.get(k..k + 2)
                    .and_then(|b| u8::from_str_radix(b, 16).ok())
            })
            .collect();
        let text = bytes
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| format!("malformed print placeholder `{name}`"))?;
        formats.insert(*target, text);
    }
    if formats.is_empty() {
        return Ok(());
    }
    let set = super::post::next_id(m);
    m.ext_inst_imports.push(Instruction::new(
        Op::ExtInstImport,
        None,
        Some(set),
        vec![Operand::LiteralString(
            "NonSemantic.DebugPrintf".to_string(),
        )],
    ));
    m.extensions.push(Instruction::new(
        Op::Extension,
        None,
        None,
        vec![Operand::LiteralString(
            "SPV_KHR_non_semantic_info".to_string(),
        )],
    ));
    let mut strings: HashMap<String, Word> = HashMap::new();
    let mut calls = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.instructions.iter().enumerate() {
                if inst.class.opcode != Op::FunctionCall {
                    continue;
                }
                if let Some(Operand::IdRef(callee)) = inst.operands.first() {
                    if let Some(text) = formats.get(callee) {
                        calls.push((fi, bi, ii, text.clone()));
                    }
                }
            }
        }
    }
    for (fi, bi, ii, text) in calls {
        let string = match strings.get(&text) {
            Some(&id) => id,
            None => {
                let id = super::post::next_id(m);
                m.debug_string_source.push(Instruction::new(
                    Op::String,
                    None,
                    Some(id),
                    vec![Operand::LiteralString(text.clone())],
                ));
                strings.insert(text, id);
                id
            }
        };
        let inst = &mut m.functions[fi].blocks[bi].instructions[ii];
        let mut operands = vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(DEBUG_PRINTF),
            Operand::IdRef(string),
        ];
        operands.extend(inst.operands[1..].iter().cloned());
        *inst = Instruction::new(Op::ExtInst, inst.result_type, inst.result_id, operands);
    }
    let gone = |id: Option<Word>| id.is_some_and(|id| formats.contains_key(&id));
    let mut params = Vec::new();
    m.functions.retain(|f| {
        if gone(f.def.as_ref().and_then(|d| d.result_id)) {
            params.extend(f.parameters.iter().filter_map(|p| p.result_id));
            false
        } else {
            true
        }
    });
    let targets_gone = |i: &Instruction| match i.operands.first() {
        Some(Operand::IdRef(t)) => formats.contains_key(t) || params.contains(t),
        _ => false,
    };
    m.annotations.retain(|i| !targets_gone(i));
    m.debug_names.retain(|i| !targets_gone(i));
    let still_linked = m
        .annotations
        .iter()
        .any(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::LinkageAttributes)));
    if !still_linked {
        m.capabilities
            .retain(|i| i.operands.first() != Some(&Operand::Capability(Capability::Linkage)));
    }
    Ok(())
}
