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

/// The component type of a cooperative matrix of this use.
pub fn component(u: CoopUse) -> ScalarType {
    match u {
        CoopUse::A | CoopUse::B => ScalarType::F16,
        CoopUse::Acc => ScalarType::F32,
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
        let (Some(memory), Some(Type::CoopMatrix(u))) = (memory, matrix) else {
            return Ok(());
        };
        let elem = match &memory.ty {
            Type::Buffer(e) | Type::Shared(e) => &**e,
            _ => return Ok(()),
        };
        let want = component(*u);
        match elem {
            Type::Scalar(s) if *s != want => {
                let found = memory.ty.clone();
                self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        memory.span,
                        format!(
                            "a {} holds {want}: its memory must be an array of {want} or of \
                             128-bit vectors, found {found}",
                            u.class_name()
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
