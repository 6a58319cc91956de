//! `Math.*` and `Bits.*`: `GLSL.std.450` extended instructions and core bit instructions.
//! Every instruction used is defined per component, so a vector operand lowers the same way
//! with a vector result type.

use rspirv::spirv::{GlslStd450Op as G, Op, Word};

use super::function::FnCx;
use super::{unsupported, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{BitsFn, Expr, MathFn, ScalarType, Type};

/// The lane type and lane count of a scalar or vector operand.
fn lanes_of(e: &Expr) -> Res<(ScalarType, u32)> {
    match &e.ty {
        Type::Scalar(s) => Ok((*s, 1)),
        Type::Vector(s, n) => Ok((*s, u32::from(*n))),
        other => Err(unsupported(
            e.span,
            format!("expected a scalar or vector, found `{other}`"),
        )),
    }
}

impl FnCx<'_, '_> {
    /// `Math.*`.
    pub(crate) fn math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Word> {
        if args.len() != f.arity() {
            return Err(arity(e, f.arity()));
        }
        let (s, n) = lanes_of(&args[0])?;
        for a in args {
            if lanes_of(a)? != (s, n) {
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
        if s == ScalarType::F64 && f.glsl_32bit_only() {
            return Err(Diagnostic::error(
                Code::UnsupportedFeature,
                e.span,
                format!("Math.{} is not available on `float64` in kernels", f.name()),
            )
            .with_note(
                "GLSL.std.450 defines its trigonometric, exponential and logarithmic functions for 16- and 32-bit floats only",
            )
            .with_note("help: compute it in float32 (`(float32) x`), or on the host"));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        if let MathFn::IsNan | MathFn::IsInf = f {
            let lane = self.cx.bool_type();
            let b = self.lanes_type(lane, n);
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
            MathFn::Log10 => return self.log10(s, n, vals[0], e),
            MathFn::Pow => G::Pow,
            _ => return Err(bad()),
        };
        let ty = self.cx.ir_value_type(&args[0].ty, e.span)?;
        self.glsl_inst(ty, inst, &vals, e)
    }

    /// `Math.log10(x)` as `Log2(x) * log10(2)`: GLSL.std.450 has no base-10 logarithm. The
    /// product is one more rounding on top of `Log2`'s precision (docs/language.md).
    fn log10(&mut self, s: ScalarType, n: u32, x: Word, e: &Expr) -> Res<Word> {
        let lane = self.cx.value_type(s, e.span)?;
        let ty = self.lanes_type(lane, n);
        let l2 = self.glsl_inst(ty, G::Log2, &[x], e)?;
        let c = self.cx.const_float(s, std::f64::consts::LOG10_2, e.span)?;
        let c = if n == 1 {
            c
        } else {
            self.cx.const_composite(ty, vec![c; n as usize])
        };
        let r = self.op(Op::FMul, ty, &[l2, c])?;
        if !self.func.fast_math {
            self.cx
                .b
                .decorate(r, rspirv::spirv::Decoration::NoContraction, []);
        }
        Ok(r)
    }

    /// `lane` itself, or a vector of `n` of them.
    fn lanes_type(&mut self, lane: Word, n: u32) -> Word {
        if n == 1 {
            lane
        } else {
            self.cx.vector_type(lane, n)
        }
    }

    /// A 32-bit integer constant, splat to `n` lanes.
    fn int_lanes(&mut self, v: i128, n: u32, e: &Expr) -> Res<Word> {
        let c = self.cx.const_int(ScalarType::I32, v, e.span)?;
        if n == 1 {
            return Ok(c);
        }
        let int = self.cx.int_type(32, true);
        let ty = self.cx.vector_type(int, n);
        Ok(self.cx.const_composite(ty, vec![c; n as usize]))
    }

    fn glsl_inst(&mut self, ty: Word, inst: G, vals: &[Word], e: &Expr) -> Res<Word> {
        self.glsl_op(inst, ty, vals, e.span)
    }

    /// `Bits.*` on 32-bit integers.
    pub(crate) fn bits(&mut self, f: BitsFn, args: &[Expr], e: &Expr) -> Res<Word> {
        let Some(first) = args.first() else {
            return Err(arity(e, 1));
        };
        let (s, n) = lanes_of(first)?;
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
        let ty = self.cx.ir_value_type(&first.ty, e.span)?;
        let int_lane = self.cx.int_type(32, true);
        let int = self.lanes_type(int_lane, n);
        let x = vals[0];
        match f {
            // The count has the argument's type (Cajeta's `Bits.count(uint32)` is `uint32`).
            BitsFn::Count => self.op(Op::BitCount, ty, &[x]),
            BitsFn::Reverse => self.op(Op::BitReverse, ty, &[x]),
            BitsFn::FindLsb => self.glsl_inst(int, G::FindILsb, &[x], e),
            BitsFn::FindMsb if s.is_signed_integer() => self.glsl_inst(int, G::FindSMsb, &[x], e),
            BitsFn::FindMsb => self.glsl_inst(int, G::FindUMsb, &[x], e),
            BitsFn::RotateLeft | BitsFn::RotateRight => {
                // Both shift counts are masked to 0..31, so a count of 0 or 32 is defined.
                // A scalar count applies to every lane: SPIR-V shifts need as many lanes.
                let c31 = self.int_lanes(31, n, e)?;
                let c32 = self.int_lanes(32, n, e)?;
                let count = if n == 1 {
                    vals[1]
                } else {
                    let parts = vec![vals[1]; n as usize];
                    self.op(Op::CompositeConstruct, int, &parts)?
                };
                let k = self.op(Op::BitwiseAnd, int, &[count, c31])?;
                let rest = self.op(Op::ISub, int, &[c32, k])?;
                let rest = self.op(Op::BitwiseAnd, int, &[rest, c31])?;
                let (l, r) = if f == BitsFn::RotateLeft {
                    (k, rest)
                } else {
                    (rest, k)
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
