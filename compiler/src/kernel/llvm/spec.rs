//! Specialization constants of the kernel body: `Spec.geti/getf(slot, default)` (SpecId
//! 4 + slot) and `psc(p)` (SpecId 1028 + parameter index, default 0; the spec value when a
//! launch gave a non-zero one, else the push constant), with the ids, defaults and names
//! of the rspirv backend. LLVM IR has no integer or float specialization constant, so each
//! is a pure placeholder call, `@"spirv.spec.<id>.<default bits>.<type>"()`, that the
//! post-pass ([`super::spirv_ops`]) turns into the module's one `OpSpecConstant` with that
//! `SpecId` (each call a copy of it).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, Word};

use super::lower::{FnLower, Val};
use super::refuse;
use super::types::scalar;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Constant, Expr, ExprKind, FunctionKind, Place, ScalarType, Type};
use crate::layout::{PSC_SPEC_BASE, USER_SPEC_BASE};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// `Spec.geti` / `Spec.getf`.
    pub(super) fn spec_value(&mut self, float: bool, args: &[Expr], e: &Expr) -> Res<Val> {
        let (Some(ExprKind::Const(Constant::Int(slot))), Some(ExprKind::Const(default))) =
            (args.first().map(|a| &a.kind), args.get(1).map(|a| &a.kind))
        else {
            return Err(Diagnostic::error(
                Code::NotConstant,
                e.span,
                "Spec slots and defaults must be constants",
            ));
        };
        let (ty, bits) = match (float, default) {
            (false, Constant::Int(v)) => (ScalarType::I32, *v as u32),
            (true, Constant::Float(f)) => (ScalarType::F32, (*f as f32).to_bits()),
            _ => return Err(refuse(e.span, "a `Spec` default of another type")),
        };
        if self.target == super::target::Target::Cpu {
            let llvm = if float { "float" } else { "i32" };
            return Ok(self.cpu_spec(*slot as u32, bits, llvm));
        }
        self.spec_constant(USER_SPEC_BASE + *slot as u32, bits, ty, e)
    }

    /// `psc(p)`: `spec != 0 ? spec : p` (unordered for floats: a NaN spec value counts as
    /// given, as with rspirv).
    pub(super) fn psc(&mut self, args: &[Expr], e: &Expr) -> Res<Val> {
        let [arg] = args else {
            return Err(refuse(e.span, "a malformed `psc`"));
        };
        let (ExprKind::Load(Place::Local(l)), Type::Scalar(s)) = (&arg.kind, &arg.ty) else {
            return Err(refuse(
                e.span,
                "`psc` of something other than a scalar parameter",
            ));
        };
        if self.kernel.kind != FunctionKind::Kernel || l.0 >= self.kernel.param_count {
            return Err(refuse(
                e.span,
                "`psc` of something other than a kernel parameter",
            ));
        }
        if self.target == super::target::Target::Cpu {
            // A psc spec value is the launch's own (non-zero) argument, so `psc(p)` is `p`
            // where the push constant is read at every launch anyway.
            return self.expr(arg);
        }
        let spec = self.spec_constant(PSC_SPEC_BASE + l.0 as u32, 0, *s, e)?;
        let push = self.expr(arg)?;
        let given = self.tmp();
        if *s == ScalarType::F32 {
            self.emit(format!("{given} = fcmp une float {}, 0.0", spec.text));
        } else {
            self.emit(format!("{given} = icmp ne {} {}, 0", spec.ty, spec.text));
        }
        let t = self.tmp();
        self.emit(format!(
            "{t} = select i1 {given}, {0} {1}, {0} {2}",
            spec.ty, spec.text, push.text
        ));
        Ok(Val::new(t, spec.ty))
    }

    /// The value of the spec constant `id` (default `bits`, of type `s`).
    fn spec_constant(&mut self, id: u32, bits: u32, s: ScalarType, e: &Expr) -> Res<Val> {
        let ty = scalar(s, e.span)?;
        if s == ScalarType::Bool {
            return Err(refuse(e.span, "a boolean specialization constant"));
        }
        let name = spec_placeholder(id, bits, s);
        self.declare(format!(
            "declare {ty} {name}() memory(none) nounwind willreturn"
        ));
        let t = self.tmp();
        self.emit(format!("{t} = call {ty} {name}()"));
        Ok(Val::new(t, ty))
    }
}

/// The prefix of a specialization constant's placeholder.
pub(super) const SPEC_PREFIX: &str = "spirv.spec.";

/// The LLVM name of the placeholder of spec constant `id` with default bits `bits`.
pub(crate) fn spec_placeholder(id: u32, bits: u32, s: crate::ir::ScalarType) -> String {
    format!("@\"{SPEC_PREFIX}{id}.{bits}.{}\"", s.name())
}

/// A specialization constant the post-pass declared: SpecId, type name, default bits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SpecConstant {
    pub(crate) id: u32,
    pub(crate) ty: String,
    pub(crate) default: u32,
}

/// Declares one `OpSpecConstant` per spec-constant placeholder (decorated with its SpecId)
/// and turns every call of a placeholder into an `OpCopyObject` of it; returns them.
pub(super) fn declare_spec_constants(
    m: &mut Module,
    specs: &HashMap<Word, SpecConstant>,
) -> Result<Vec<SpecConstant>, String> {
    let mut by_id: HashMap<u32, (Word, SpecConstant)> = HashMap::new();
    let result_types: HashMap<Word, Word> = m
        .functions
        .iter()
        .filter_map(|f| f.def.as_ref())
        .filter_map(|d| Some((d.result_id?, d.result_type?)))
        .collect();
    let mut constant_of: HashMap<Word, Word> = HashMap::new();
    let mut sorted: Vec<_> = specs.iter().collect();
    sorted.sort_by_key(|(f, s)| (s.id, **f));
    for (function, spec) in sorted {
        if let Some((c, known)) = by_id.get(&spec.id) {
            if known != spec {
                return Err(format!(
                    "specialization constant {} used with two types or defaults",
                    spec.id
                ));
            }
            constant_of.insert(*function, *c);
            continue;
        }
        let ty = *result_types
            .get(function)
            .ok_or("a specialization constant's placeholder without a type")?;
        let c = super::post::next_id(m);
        m.types_global_values.push(Instruction::new(
            Op::SpecConstant,
            Some(ty),
            Some(c),
            vec![Operand::LiteralBit32(spec.default)],
        ));
        m.annotations.push(Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![
                Operand::IdRef(c),
                Operand::Decoration(Decoration::SpecId),
                Operand::LiteralBit32(spec.id),
            ],
        ));
        by_id.insert(spec.id, (c, spec.clone()));
        constant_of.insert(*function, c);
    }
    for inst in m
        .functions
        .iter_mut()
        .flat_map(|f| f.blocks.iter_mut())
        .flat_map(|b| b.instructions.iter_mut())
    {
        if inst.class.opcode != Op::FunctionCall {
            continue;
        }
        let Some(Operand::IdRef(callee)) = inst.operands.first() else {
            continue;
        };
        if let Some(&c) = constant_of.get(callee) {
            *inst = Instruction::new(
                Op::CopyObject,
                inst.result_type,
                inst.result_id,
                vec![Operand::IdRef(c)],
            );
        }
    }
    let mut out: Vec<SpecConstant> = by_id.into_values().map(|(_, s)| s).collect();
    out.sort();
    Ok(out)
}
