//! Checks of `CoopMatrix.load*` / `store` memory operands: the buffer or shared array a
//! cooperative matrix is read from or written to must hold the matrix's component type, or
//! 128-bit vectors that the load reinterprets (SPIR-V lets the pointer's element type differ
//! from the component type; offset and stride then count vectors).

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, CoopOp, CoopUse, ScalarType, Type};

/// Whether a buffer or shared array of `elem` can hold cooperative-matrix data: a numeric
/// scalar, or a vector of four 32-bit lanes (16 bytes: eight float16, four float32).
pub fn memory_element(elem: &Type) -> bool {
    match elem {
        Type::Scalar(s) => s.is_numeric() && !s.is_precision(),
        Type::Vector(s, 4) => s.bits() == 32 && !s.is_precision(),
        _ => false,
    }
}

impl FnCtx<'_, '_> {
    /// E-TypeMismatch when the memory operand of a load or store holds scalars other than the
    /// matrix's component type (a 128-bit vector array is always accepted).
    pub fn check_coop_memory(&mut self, op: CoopOp, args: &[ir::Expr], ret: &Type) -> R<()> {
        let (memory, matrix) = match op {
            CoopOp::Load => (args.first(), Some(ret)),
            CoopOp::Store => (args.first(), args.get(3).map(|m| &m.ty)),
            _ => return Ok(()),
        };
        let (Some(memory), Some(Type::CoopMatrix(t))) = (memory, matrix) else {
            return Ok(());
        };
        let elem = match &memory.ty {
            Type::Buffer(e) | Type::Shared(e) => &**e,
            _ => return Ok(()),
        };
        let want = t.component;
        // bfloat16 scalars live in float32 registers and have no native buffer form here: a
        // bfloat16 tile comes from 128-bit vectors holding its bits.
        if want == ScalarType::BF16 && matches!(elem, Type::Scalar(_)) {
            let found = memory.ty.clone();
            return self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    memory.span,
                    format!(
                        "a {t} is loaded from and stored to arrays of 128-bit vectors, found \
                         {found}"
                    ),
                )
                .with_label(format!("this is {found}"))
                .with_note(
                    "help: keep bfloat16 data as raw bits, eight to a Vector<uint32,4> \
                     (KernelBuffer<Vector<uint32,4>> or Shared<Vector<uint32,4>>)",
                ),
            );
        }
        match elem {
            Type::Scalar(s) if *s != want => {
                let found = memory.ty.clone();
                self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        memory.span,
                        format!(
                            "a {t} holds {want}: its memory must be an array of {want} or of \
                             128-bit vectors, found {found}"
                        ),
                    )
                    .with_label(format!("this is {found}"))
                    .with_note(format!(
                        "help: {want} tiles come from KernelBuffer<{want}>, Shared<{want}> or \
                         Shared<Vector<uint32,4>> (offset and stride then count vectors)"
                    )),
                )
            }
            _ => Ok(()),
        }
    }
}

impl FnCtx<'_, '_> {
    /// The result type of a cooperative-matrix call, and E-TypeMismatch where an operand that
    /// must be an accumulator is not. `loadAcc`, `zeroAcc` and `convert` produce the
    /// accumulator type their context expects (`hint`: a declaration's or assignment's type),
    /// `CoopMatrixAcc` (float32) without one; `mulAdd`, `scale` and `add` produce their
    /// accumulator operand's type (the stdlib declares them generic in it).
    pub fn coop_result(
        &mut self,
        op: CoopOp,
        args: &[ir::Expr],
        ret: Type,
        hint: Option<ir::CoopType>,
    ) -> R<Type> {
        let accumulator = match op {
            CoopOp::MulAdd => args.get(2),
            CoopOp::Scale | CoopOp::Add | CoopOp::Convert => args.first(),
            CoopOp::Store => args.get(3),
            CoopOp::Load | CoopOp::ZeroAcc => None,
        };
        if let (CoopOp::Load | CoopOp::Store, Some(memory)) = (op, args.first()) {
            if !matches!(memory.ty, Type::Buffer(_) | Type::Shared(_)) {
                let found = memory.ty.clone();
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        memory.span,
                        format!(
                            "`{}` needs a KernelBuffer or Shared array of scalars or 128-bit \
                             vectors, found {found}",
                            op_name(op)
                        ),
                    )
                    .with_label(format!("this is {found}")),
                );
            }
        }
        if let Some(a) = accumulator {
            if !matches!(&a.ty, Type::CoopMatrix(t) if t.usage == CoopUse::Acc) {
                let found = a.ty.clone();
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        a.span,
                        format!(
                            "`CoopMatrix.{}` takes an accumulator (CoopMatrixAcc or \
                             CoopMatrixAcc<float16>), found {found}",
                            op_name(op)
                        ),
                    )
                    .with_label(format!("this is {found}")),
                );
            }
        }
        if let (CoopOp::MulAdd, [a, b, c]) = (op, args) {
            self.check_mul_add_types(a, b, c)?;
        }
        Ok(match (op, &ret, hint) {
            (CoopOp::Load | CoopOp::ZeroAcc | CoopOp::Convert, Type::CoopMatrix(r), Some(h))
                if h.usage == r.usage =>
            {
                Type::CoopMatrix(h)
            }
            (CoopOp::Convert, Type::CoopMatrix(_), _) => {
                Type::CoopMatrix(ir::CoopType::default_of(CoopUse::Acc))
            }
            _ => ret,
        })
    }
}

impl FnCtx<'_, '_> {
    /// `mulAdd(a, b, c)`: `a` a CoopMatrixA and `b` a CoopMatrixB of one component type, and
    /// `c` an accumulator that type multiplies into (float16: float16 or float32; bfloat16:
    /// float32). E0008 otherwise.
    fn check_mul_add_types(&mut self, a: &ir::Expr, b: &ir::Expr, c: &ir::Expr) -> R<()> {
        let use_of = |e: &ir::Expr, u: CoopUse| match &e.ty {
            Type::CoopMatrix(t) if t.usage == u => Some(t.component),
            _ => None,
        };
        for (e, u) in [(a, CoopUse::A), (b, CoopUse::B)] {
            if use_of(e, u).is_none() {
                let found = e.ty.clone();
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        e.span,
                        format!(
                            "`CoopMatrix.mulAdd` takes a {} here, found {found}",
                            u.class_name()
                        ),
                    )
                    .with_label(format!("this is {found}")),
                );
            }
        }
        let (ab, bb) = (use_of(a, CoopUse::A), use_of(b, CoopUse::B));
        let acc = use_of(c, CoopUse::Acc);
        let ok = match (ab, bb, acc) {
            (
                Some(ScalarType::F16),
                Some(ScalarType::F16),
                Some(ScalarType::F16 | ScalarType::F32),
            ) => true,
            (Some(ScalarType::BF16), Some(ScalarType::BF16), Some(ScalarType::F32)) => true,
            // A non-accumulator `c` is reported by the caller.
            (_, _, None) => true,
            _ => false,
        };
        if ok {
            return Ok(());
        }
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                c.span,
                format!(
                    "`CoopMatrix.mulAdd` of {} × {} into {}: A and B must have one component \
                     type, float16 accumulating into float16 or float32, bfloat16 into float32",
                    a.ty, b.ty, c.ty
                ),
            )
            .with_label("these types do not multiply"),
        )
    }
}

/// The stdlib method name of an operation, for messages.
fn op_name(op: CoopOp) -> &'static str {
    match op {
        CoopOp::Load => "load",
        CoopOp::ZeroAcc => "zeroAcc",
        CoopOp::MulAdd => "mulAdd",
        CoopOp::Scale => "scale",
        CoopOp::Add => "add",
        CoopOp::Store => "store",
        CoopOp::Convert => "convert",
    }
}
