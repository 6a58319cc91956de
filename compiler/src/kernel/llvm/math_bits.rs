//! The `Math.*` functions LLVM has no intrinsic for that its SPIR-V target lowers to the
//! rspirv backend's instruction (`rsqrt`, `sign`, `clamp`, `mix`, `step`, `smoothstep`,
//! `fract`, `tan`, the inverse and hyperbolic functions, `isNan`, `isInf`) and the
//! `Bits.*` functions: each is the same `GLSL.std.450` or core instruction as with rspirv,
//! through a pure [`super::spirv_ops`] placeholder (LLVM may move, merge or drop it like
//! any call without side effects).

use rspirv::spirv::GlslStd450Op as G;

use super::lower::{FnLower, Val};
use super::refuse;
use super::spirv_ops;
use super::types::{scalar, scalar_of};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{BitsFn, Expr, MathFn, ScalarType};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// `Math.f(args)` as its `GLSL.std.450` instruction (or `OpIsNan`/`OpIsInf`).
    pub(super) fn glsl_math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Val> {
        let Some(first) = args.first() else {
            return Err(refuse(e.span, "a malformed `Math` call"));
        };
        let s = scalar_of(&first.ty, first.span)?;
        let (float, signed) = (s.is_float(), s.is_signed_integer());
        let inst = match f {
            MathFn::IsNan if float => return self.pure_op(spirv_ops::IS_NAN, "i1", args),
            MathFn::IsInf if float => return self.pure_op(spirv_ops::IS_INF, "i1", args),
            MathFn::Rsqrt if float => G::InverseSqrt,
            MathFn::Fract if float => G::Fract,
            MathFn::Sign if float => G::FSign,
            MathFn::Sign if signed => G::SSign,
            MathFn::Clamp if float => G::FClamp,
            MathFn::Clamp if signed => G::SClamp,
            MathFn::Clamp => G::UClamp,
            MathFn::Mix if float => G::FMix,
            MathFn::Step if float => G::Step,
            MathFn::Smoothstep if float => G::SmoothStep,
            MathFn::Tan if float => G::Tan,
            MathFn::Asin if float => G::Asin,
            MathFn::Acos if float => G::Acos,
            MathFn::Atan if float => G::Atan,
            MathFn::Atan2 if float => G::Atan2,
            MathFn::Sinh if float => G::Sinh,
            MathFn::Cosh if float => G::Cosh,
            MathFn::Tanh if float => G::Tanh,
            _ => {
                return Err(Diagnostic::error(
                    Code::InvalidOperator,
                    e.span,
                    format!("Math.{} is not defined for `{s}`", f.name()),
                ))
            }
        };
        let ty = scalar(s, e.span)?;
        self.pure_op(&format!("{}.{}", spirv_ops::GLSL, inst as u32), ty, args)
    }

    /// `Bits.f(args)` on `int32`/`uint32`, as the rspirv backend lowers it.
    pub(super) fn bits(&mut self, f: BitsFn, args: &[Expr], e: &Expr) -> Res<Val> {
        let Some(first) = args.first() else {
            return Err(refuse(e.span, "a malformed `Bits` call"));
        };
        let s = scalar_of(&first.ty, first.span)?;
        if !matches!(s, ScalarType::I32 | ScalarType::U32) {
            return Err(Diagnostic::error(
                Code::InvalidOperator,
                e.span,
                format!("Bits.{} takes int32 or uint32, found `{s}`", f.name()),
            ));
        }
        let signed = s.is_signed_integer();
        match f {
            BitsFn::Count => self.pure_op(spirv_ops::BIT_COUNT, "i32", args),
            BitsFn::Reverse => self.pure_op(spirv_ops::BIT_REVERSE, "i32", args),
            BitsFn::FindLsb => self.pure_op(&glsl(G::FindILsb), "i32", args),
            BitsFn::FindMsb if signed => self.pure_op(&glsl(G::FindSMsb), "i32", args),
            BitsFn::FindMsb => self.pure_op(&glsl(G::FindUMsb), "i32", args),
            BitsFn::Extract if signed => self.pure_op(spirv_ops::BIT_FIELD_S_EXTRACT, "i32", args),
            BitsFn::Extract => self.pure_op(spirv_ops::BIT_FIELD_U_EXTRACT, "i32", args),
            BitsFn::Insert => self.pure_op(spirv_ops::BIT_FIELD_INSERT, "i32", args),
            BitsFn::RotateLeft | BitsFn::RotateRight => {
                let [x, n] = args else {
                    return Err(refuse(e.span, "a malformed `Bits` rotation"));
                };
                let (x, n) = (self.expr(x)?, self.expr(n)?);
                // As rspirv: k = n & 31, the other shift (32 - k) & 31, the two ORed.
                let [k, rest, rest31, hi, lo, r] = self.tmps();
                self.emit(format!("{k} = and i32 {}, 31", n.text));
                self.emit(format!("{rest} = sub i32 32, {k}"));
                self.emit(format!("{rest31} = and i32 {rest}, 31"));
                let (l, rr) = if f == BitsFn::RotateLeft {
                    (&k, &rest31)
                } else {
                    (&rest31, &k)
                };
                self.emit(format!("{hi} = shl i32 {}, {l}", x.text));
                self.emit(format!("{lo} = lshr i32 {}, {rr}", x.text));
                self.emit(format!("{r} = or i32 {hi}, {lo}"));
                Ok(Val::new(r, "i32"))
            }
        }
    }

    /// A call of the pure placeholder of instruction `op` on `args`, of result type `ret`.
    fn pure_op(&mut self, op: &str, ret: &'static str, args: &[Expr]) -> Res<Val> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let params: Vec<&str> = vals.iter().map(|v| v.ty).collect();
        let name = spirv_ops::placeholder(op, ret, &params);
        self.declare(format!(
            "declare {ret} {name}({}) memory(none) nounwind willreturn",
            params.join(", ")
        ));
        let operands: Vec<String> = vals
            .iter()
            .map(|v| format!("{} {}", v.ty, v.text))
            .collect();
        let t = self.tmp();
        self.emit(format!("{t} = call {ret} {name}({})", operands.join(", ")));
        Ok(Val::new(t, ret))
    }
}

/// The placeholder operation name of `GLSL.std.450` instruction `inst`.
fn glsl(inst: G) -> String {
    format!("{}.{}", spirv_ops::GLSL, inst as u32)
}
