//! `System.out.printf` in device code: `OpExtInst %void %DebugPrintf 1 %format args…`
//! (`NonSemantic.DebugPrintf`, as glslang emits for GLSL's `debugPrintfEXT`). The format is
//! an `OpString`; each argument is converted to what the validation layer's printf reads
//! for its conversion: 32-bit integers (booleans as 0/1, narrower integers extended by
//! their signedness), 64-bit integers for `%l…`, and float32 for the float conversions.

use rspirv::dr::{InsertPoint, Instruction, Operand};
use rspirv::spirv::{Op, Word};

use super::function::FnCx;
use super::{unsupported, BuildExt, Res};
use crate::ir::debug_printf::{self, Spec};
use crate::ir::{Expr, ExprKind, ScalarType, Type};

/// `DebugPrintf` is instruction 1 of the `NonSemantic.DebugPrintf` set.
const DEBUG_PRINTF: u32 = 1;

impl FnCx<'_, '_> {
    /// Lowers a kernel `printf`: `args[0]` is the (checked) format literal.
    pub(crate) fn debug_printf(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let Some((
            Expr {
                kind: ExprKind::Str(format),
                ..
            },
            values,
        )) = args.split_first()
        else {
            return Err(unsupported(
                e.span,
                "internal error: a kernel printf without a literal format",
            ));
        };
        let specs = debug_printf::parse(format)
            .map_err(|m| unsupported(e.span, format!("internal error: kernel format: {m}")))?;
        if specs.len() != values.len() {
            return Err(unsupported(
                e.span,
                "internal error: kernel printf arguments do not match the format",
            ));
        }
        let mut operands = Vec::with_capacity(values.len() + 1);
        for (spec, v) in specs.iter().zip(values) {
            operands.push(self.printf_operand(spec, v)?);
        }
        let set = self.cx.debug_printf_set();
        let text = self.cx.b.string(format.as_str());
        let void = self.cx.void_type();
        let id = self.cx.b.id();
        let mut all = vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(DEBUG_PRINTF),
            Operand::IdRef(text),
        ];
        all.extend(operands.into_iter().map(Operand::IdRef));
        let inst = Instruction::new(Op::ExtInst, Some(void), Some(id), all);
        self.cx
            .b
            .insert_into_block(InsertPoint::End, inst)
            .ice(e.span)?;
        Ok(id)
    }

    /// One argument, converted lane by lane to what its conversion prints.
    fn printf_operand(&mut self, spec: &Spec, v: &Expr) -> Res<Word> {
        let (elem, lanes) = match &v.ty {
            Type::Scalar(s) => (*s, None),
            Type::Vector(s, n) => (*s, Some(u32::from(*n))),
            other => {
                return Err(unsupported(
                    v.span,
                    format!("internal error: printing a value of type {other}"),
                ))
            }
        };
        let to = spec.printed_type(elem);
        let value = self.expr(v)?;
        // bfloat16 lives in float32 registers already.
        if elem == to || (elem == ScalarType::BF16 && to == ScalarType::F32) {
            return Ok(value);
        }
        let Some(n) = lanes else {
            return self.printf_lane(value, elem, to, v);
        };
        let from_ty = self.cx.value_type(elem, v.span)?;
        let mut parts = Vec::with_capacity(n as usize);
        for lane in 0..n {
            let id = self.cx.b.id();
            let inst = Instruction::new(
                Op::CompositeExtract,
                Some(from_ty),
                Some(id),
                vec![Operand::IdRef(value), Operand::LiteralBit32(lane)],
            );
            self.cx
                .b
                .insert_into_block(InsertPoint::End, inst)
                .ice(v.span)?;
            parts.push(self.printf_lane(id, elem, to, v)?);
        }
        let lane_ty = self.cx.value_type(to, v.span)?;
        let vec_ty = self.cx.vector_type(lane_ty, n);
        self.op(Op::CompositeConstruct, vec_ty, &parts)
    }

    /// One scalar converted for printing (a boolean becomes 1 or 0).
    fn printf_lane(
        &mut self,
        value: Word,
        from: ScalarType,
        to: ScalarType,
        v: &Expr,
    ) -> Res<Word> {
        if from == ScalarType::Bool {
            let uint = self.cx.u32_type();
            let (one, zero) = (self.cx.const_u32(1), self.cx.const_u32(0));
            let bit = self.op(Op::Select, uint, &[value, one, zero])?;
            return self.convert(bit, ScalarType::U32, to, v.span);
        }
        self.convert(value, from, to, v.span)
    }
}
