//! `Math.*` and `Bits.*`: `GLSL.std.450` extended instructions and core bit instructions.
//! Every instruction used is defined per component, so a vector operand lowers the same way
//! with a vector result type.

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as G, Op, Word};

use super::expr::scalar_of;
use super::function::FnCx;
use super::{BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{BitsFn, Expr, MathFn, ScalarType};

impl FnCx<'_, '_> {
    /// `Math.*`.
    pub(crate) fn math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Word> {
        if args.len() != f.arity() {
            return Err(arity(e, f.arity()));
        }
        let s = scalar_of(&args[0])?;
        for a in args {
            if scalar_of(a)? != s {
                return Err(Diagnostic::error(
                    Code::TypeMismatch,
                    a.span,
                    "Math operands must have one type",
                ));
            }
        }
        let (float, signed, unsigned) =
            (s.is_float(), s.is_signed_integer(), s.is_unsigned_integer());
        let bad = || {
            Diagnostic::error(
                Code::InvalidOperator,
                e.span,
                format!("Math.{} is not defined for `{s}`", f.name()),
            )
        };
        if !float && f.float_only() {
            return Err(bad());
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        if let MathFn::IsNan | MathFn::IsInf = f {
            let b = self.cx.bool_type();
            let op = if f == MathFn::IsNan {
                Op::IsNan
            } else {
                Op::IsInf
            };
            return self.op(op, b, &vals);
        }
        let inst = match f {
            MathFn::Sqrt => G::Sqrt,
            MathFn::Rsqrt => G::InverseSqrt,
            MathFn::Floor => G::Floor,
            MathFn::Ceil => G::Ceil,
            MathFn::Trunc => G::Trunc,
            MathFn::Round => G::RoundEven,
            MathFn::Fract => G::Fract,
            MathFn::Abs if float => G::FAbs,
            MathFn::Abs if signed => G::SAbs,
            // |x| of an unsigned value is x.
            MathFn::Abs => return Ok(vals[0]),
            MathFn::Sign if float => G::FSign,
            MathFn::Sign if signed => G::SSign,
            MathFn::Min if float => G::FMin,
            MathFn::Min if signed => G::SMin,
            MathFn::Min if unsigned => G::UMin,
            MathFn::Max if float => G::FMax,
            MathFn::Max if signed => G::SMax,
            MathFn::Max if unsigned => G::UMax,
            MathFn::Clamp if float => G::FClamp,
            MathFn::Clamp if signed => G::SClamp,
            MathFn::Clamp if unsigned => G::UClamp,
            MathFn::Mix => G::FMix,
            MathFn::Step => G::Step,
            MathFn::Smoothstep => G::SmoothStep,
            MathFn::Fma => G::Fma,
            MathFn::Sin => G::Sin,
            MathFn::Cos => G::Cos,
            MathFn::Tan => G::Tan,
            MathFn::Asin => G::Asin,
            MathFn::Acos => G::Acos,
            MathFn::Atan => G::Atan,
            MathFn::Atan2 => G::Atan2,
            MathFn::Sinh => G::Sinh,
            MathFn::Cosh => G::Cosh,
            MathFn::Tanh => G::Tanh,
            MathFn::Exp => G::Exp,
            MathFn::Exp2 => G::Exp2,
            MathFn::Log => G::Log,
            MathFn::Log2 => G::Log2,
            MathFn::Pow => G::Pow,
            _ => return Err(bad()),
        };
        let ty = self.cx.value_type(s, e.span)?;
        self.glsl_inst(ty, inst, &vals, e)
    }

    fn glsl_inst(&mut self, ty: Word, inst: G, vals: &[Word], e: &Expr) -> Res<Word> {
        let set = self.cx.glsl();
        let operands = vals.iter().map(|&v| Operand::IdRef(v)).collect::<Vec<_>>();
        self.cx
            .b
            .ext_inst(ty, None, set, inst as u32, operands)
            .ice(e.span)
    }

    /// `Bits.*` on 32-bit integers.
    pub(crate) fn bits(&mut self, f: BitsFn, args: &[Expr], e: &Expr) -> Res<Word> {
        let Some(first) = args.first() else {
            return Err(arity(e, 1));
        };
        let s = scalar_of(first)?;
        if !matches!(s, ScalarType::I32 | ScalarType::U32) {
            return Err(Diagnostic::error(
                Code::InvalidOperator,
                e.span,
                format!("Bits.{} takes int32 or uint32, found `{s}`", f.name()),
            ));
        }
        let want = match f {
            BitsFn::Count | BitsFn::Reverse | BitsFn::FindLsb | BitsFn::FindMsb => 1,
            BitsFn::RotateLeft | BitsFn::RotateRight => 2,
            BitsFn::Extract => 3,
            BitsFn::Insert => 4,
        };
        if args.len() != want {
            return Err(arity(e, want));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let ty = self.cx.value_type(s, e.span)?;
        let int = self.cx.int_type(32, true);
        let x = vals[0];
        match f {
            BitsFn::Count => self.op(Op::BitCount, int, &[x]),
            BitsFn::Reverse => self.op(Op::BitReverse, ty, &[x]),
            BitsFn::FindLsb => self.glsl_inst(int, G::FindILsb, &[x], e),
            BitsFn::FindMsb if s.is_signed_integer() => self.glsl_inst(int, G::FindSMsb, &[x], e),
            BitsFn::FindMsb => self.glsl_inst(int, G::FindUMsb, &[x], e),
            BitsFn::RotateLeft | BitsFn::RotateRight => {
                // Both shift counts are masked to 0..31, so a count of 0 or 32 is defined.
                let c31 = self.cx.const_int(ScalarType::I32, 31, e.span)?;
                let c32 = self.cx.const_int(ScalarType::I32, 32, e.span)?;
                let n = self.op(Op::BitwiseAnd, int, &[vals[1], c31])?;
                let rest = self.op(Op::ISub, int, &[c32, n])?;
                let rest = self.op(Op::BitwiseAnd, int, &[rest, c31])?;
                let (l, r) = if f == BitsFn::RotateLeft {
                    (n, rest)
                } else {
                    (rest, n)
                };
                let hi = self.op(Op::ShiftLeftLogical, ty, &[x, l])?;
                let lo = self.op(Op::ShiftRightLogical, ty, &[x, r])?;
                self.op(Op::BitwiseOr, ty, &[hi, lo])
            }
            BitsFn::Extract if s.is_signed_integer() => {
                self.op(Op::BitFieldSExtract, ty, &[x, vals[1], vals[2]])
            }
            BitsFn::Extract => self.op(Op::BitFieldUExtract, ty, &[x, vals[1], vals[2]]),
            BitsFn::Insert => self.op(Op::BitFieldInsert, ty, &[x, vals[1], vals[2], vals[3]]),
        }
    }
}

/// A wrong argument count (sema normally prevents it).
fn arity(e: &Expr, want: usize) -> Diagnostic {
    Diagnostic::error(
        Code::ArgumentCount,
        e.span,
        format!("intrinsic expects {want} argument(s)"),
    )
}
