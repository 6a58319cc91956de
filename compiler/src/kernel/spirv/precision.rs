//! The operations the precision pass (`specialize::precision`) lowers `sfp`/`afp`/`lfp` to:
//! `PackHalf2x16`/`UnpackHalf2x16` (GLSL.std.450), `OpBitcast`, and float conversions of
//! whole vectors (`Vector<float16,4>` ↔ `Vector<float32,4>`).

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op, Op, Word};

use super::function::FnCx;
use super::{unsupported, BuildExt, Res};
use crate::ir::{Expr, PrecisionFn, ScalarType, Type};

impl FnCx<'_, '_> {
    /// Lowers a packing operation; the `Precision.*` functions never get here (the precision
    /// pass desugars them).
    pub(crate) fn precision_op(&mut self, f: PrecisionFn, args: &[Expr], e: &Expr) -> Res<Word> {
        let [x] = args else {
            return Err(unsupported(e.span, format!("{f:?} takes one argument")));
        };
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        let v = self.expr(x)?;
        match f {
            PrecisionFn::PackHalf2x16 | PrecisionFn::UnpackHalf2x16 => {
                let inst = if f == PrecisionFn::PackHalf2x16 {
                    GlslStd450Op::PackHalf2x16
                } else {
                    GlslStd450Op::UnpackHalf2x16
                };
                let set = self.cx.glsl();
                self.cx
                    .b
                    .ext_inst(ty, None, set, inst as u32, [Operand::IdRef(v)])
                    .ice(e.span)
            }
            PrecisionFn::Bitcast => self.op(Op::Bitcast, ty, &[v]),
            other => Err(unsupported(
                e.span,
                format!("internal error: Precision.{other:?} reached the SPIR-V backend"),
            )),
        }
    }

    /// `Convert` of a float vector to another float vector type of the same lane count
    /// (`OpFConvert` applies lane-wise); `None` when `a`/`e` are not such a pair.
    pub(crate) fn convert_float_vector(&mut self, a: &Expr, e: &Expr) -> Option<Res<Word>> {
        let (Type::Vector(from, n), Type::Vector(to, m)) = (&a.ty, &e.ty) else {
            return None;
        };
        let float = |s: &ScalarType| s.is_float() && *s != ScalarType::BF16;
        if n != m || !float(from) || !float(to) {
            return None;
        }
        Some((|| {
            let v = self.expr(a)?;
            if from == to {
                return Ok(v);
            }
            let ty = self.cx.ir_value_type(&e.ty, e.span)?;
            if *to == ScalarType::F16 {
                return self.narrow_to_f16(v, *from, ty, *n as u32, e.span);
            }
            self.op(Op::FConvert, ty, &[v])
        })())
    }
}
