//! Specialization constants of the kernel body: `Spec.geti/getf(slot, default)` (SpecId
//! 4 + slot) and `psc(p)` (SpecId 1028 + parameter index, default 0; the spec value when a
//! launch gave a non-zero one, else the push constant), with the ids, defaults and names
//! of the rspirv backend. LLVM IR has no integer or float specialization constant, so each
//! is a pure placeholder call, `@"spirv.spec.<id>.<default bits>.<type>"()`, that the
//! post-pass ([`super::spirv_ops`]) turns into the module's one `OpSpecConstant` with that
//! `SpecId` (each call a copy of it).

use super::lower::{FnLower, Val};
use super::refuse;
use super::spirv_ops;
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
        Ok(self.spec_constant(USER_SPEC_BASE + *slot as u32, bits, ty, e)?)
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
        let name = spirv_ops::spec_placeholder(id, bits, s);
        self.declare(format!(
            "declare {ty} {name}() memory(none) nounwind willreturn"
        ));
        let t = self.tmp();
        self.emit(format!("{t} = call {ty} {name}()"));
        Ok(Val::new(t, ty))
    }
}
