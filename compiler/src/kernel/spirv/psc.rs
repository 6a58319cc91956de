//! `psc(p)` (SPEC §8, ncnn's "prefer specialization constant over push constant"): the
//! parameter's spec constant (SpecId [`PSC_SPEC_BASE`] + parameter index, default 0) when a
//! launch specialized it to a non-zero value, else the push-constant value:
//! `spec != 0 ? spec : push`. With the spec constant set, the driver folds the select and the
//! value becomes a compile-time constant of the pipeline.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Word};

use super::function::FnCx;
use super::memory::PSC_SPEC_BASE;
use super::{unsupported, Res};
use crate::ir::{Constant, Expr, ExprKind, Place, ScalarType, Type};

impl FnCx<'_, '_> {
    /// Lowers `psc(p)`; `args` is the read of the kernel parameter.
    pub(crate) fn psc(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [arg] = args else {
            return Err(unsupported(e.span, "malformed psc"));
        };
        let (ExprKind::Load(Place::Local(l)), Type::Scalar(s)) = (&arg.kind, &arg.ty) else {
            return Err(unsupported(e.span, "psc needs a scalar kernel parameter"));
        };
        if !std::ptr::eq(self.func, self.cx.kernel) || l.0 >= self.func.param_count {
            return Err(unsupported(e.span, "psc needs a parameter of the kernel"));
        }
        let ty = self.cx.value_type(*s, e.span)?;
        let spec = match self.cx.mem.psc.get(&l.0) {
            Some(&(id, _, _)) => id,
            None => {
                let id = self.cx.b.spec_constant_bit32(ty, 0);
                let spec_id = PSC_SPEC_BASE + l.0 as u32;
                self.cx
                    .b
                    .decorate(id, Decoration::SpecId, [Operand::LiteralBit32(spec_id)]);
                let name = self.func.local(*l).name.clone();
                self.cx.b.name(id, format!("psc_{name}"));
                self.cx.mem.psc.insert(l.0, (id, *s, name));
                id
            }
        };
        let push = self.expr(arg)?;
        let zero = match s {
            ScalarType::F32 => Constant::Float(0.0),
            _ => Constant::Int(0),
        };
        let zero = self.cx.ir_constant(&zero, &arg.ty, e.span)?;
        let boolean = self.cx.bool_type();
        // Unordered for floats: a NaN spec value counts as given, like any non-zero bits.
        let ne = if *s == ScalarType::F32 {
            Op::FUnordNotEqual
        } else {
            Op::INotEqual
        };
        let given = self.op(ne, boolean, &[spec, zero])?;
        self.op(Op::Select, ty, &[given, spec, push])
    }
}
