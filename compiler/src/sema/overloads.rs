//! Choosing among stdlib intrinsic overloads and adapting their index arguments: the parts of
//! an intrinsic call's check that depend on which declaration applies.

use super::body::FnCtx;
use super::expr::convert;
use super::names::IntrinsicMethod;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, BitsFn, ExprKind, Intrinsic, ScalarType, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// The overload of an intrinsic for `args`: the one with their count; where several have
    /// it (`Precision.i16st4` on a `KernelBuffer` or a `Shared` array), the one whose first
    /// parameter is the same kind of container as the first argument when that is a local.
    pub(super) fn pick_overload(
        &self,
        overloads: &[IntrinsicMethod<'a>],
        args: &[&ast::Expr],
    ) -> Option<IntrinsicMethod<'a>> {
        let same: Vec<&IntrinsicMethod<'a>> = overloads
            .iter()
            .filter(|m| m.decl.params.len() == args.len())
            .collect();
        let first_ty = match args.first().map(|a| &a.kind) {
            Some(ast::ExprKind::Name(n)) if same.len() > 1 => {
                self.lookup(n).map(|id| self.locals[id.0].ty.clone())
            }
            _ => None,
        };
        let container = match first_ty {
            Some(Type::Shared(_)) => Some("Shared"),
            Some(Type::Buffer(_)) => Some("KernelBuffer"),
            _ => None,
        };
        let fits = |m: &&IntrinsicMethod<'a>| matches!(&m.decl.params[0].ty.kind, ast::TypeExprKind::Named { name, .. } if Some(name.as_str()) == container);
        same.iter()
            .find(|m| container.is_some() && fits(m))
            .or(same.first())
            .map(|m| (*m).clone())
    }
}

/// An index argument of a `Precision.*` helper: like `buf[i]`, any integer of 32 bits or
/// fewer (and `Vector<int32,4>` for the lane-index vectors) is taken as `uint32`, its bits
/// reinterpreted; anything else is left to the ordinary argument check.
pub(super) fn precision_index(
    op: Option<Intrinsic>,
    v: ir::Expr,
    expected: Option<&Type>,
) -> ir::Expr {
    if !matches!(
        op,
        Some(Intrinsic::Precision(_) | Intrinsic::IntPrecision(_))
    ) {
        return v;
    }
    let index = |s: ScalarType| s.is_integer() && s.bits() <= 32 && s != ScalarType::U32;
    match (expected, &v.ty) {
        (Some(Type::Scalar(ScalarType::U32)), Type::Scalar(s))
            if index(*s) && !s.is_precision() =>
        {
            convert(v, ScalarType::U32)
        }
        (Some(to @ Type::Vector(ScalarType::U32, n)), Type::Vector(ScalarType::I32, m))
            if n == m =>
        {
            let span = v.span;
            ir::Expr {
                kind: ExprKind::Convert(Box::new(v)),
                ty: to.clone(),
                span,
            }
        }
        _ => v,
    }
}

/// The count of `Bits.rotateLeft/rotateRight`: a `uint32` is taken as the `int32` the
/// declaration names, its bits kept (the rotation is modulo the width either way), so a
/// count computed in `uint32` needs no cast.
pub(super) fn rotate_count(
    op: Option<Intrinsic>,
    v: ir::Expr,
    expected: Option<&Type>,
) -> ir::Expr {
    match (op, expected, &v.ty) {
        (
            Some(Intrinsic::Bits(BitsFn::RotateLeft | BitsFn::RotateRight)),
            Some(Type::Scalar(ScalarType::I32)),
            Type::Scalar(ScalarType::U32),
        ) => convert(v, ScalarType::I32),
        _ => v,
    }
}

/// `Bits.count` of a `uint32` is a `uint32` (Cajeta's signature); where an `int32` is wanted
/// it converts without a cast, as this project's programs were written when the count was
/// always `int32`: the value is at most 32, so the conversion is exact. Scalars only (lane
/// types of vectors never convert implicitly). `Err(v)` when `v` is not such a count or `to`
/// is not `int32`.
pub(super) fn count_as_int32(v: ir::Expr, to: &Type) -> Result<ir::Expr, ir::Expr> {
    let is_count = matches!(
        v.kind,
        ExprKind::Intrinsic {
            op: Intrinsic::Bits(BitsFn::Count),
            ..
        }
    );
    match (&v.ty, to) {
        (Type::Scalar(ScalarType::U32), Type::Scalar(ScalarType::I32)) if is_count => {
            Ok(convert(v, ScalarType::I32))
        }
        _ => Err(v),
    }
}

/// The layer of `Texture2DArray.sample(s, u, v, layer)` / `sampleLod`: Cajeta declares it
/// an integer index (`uint32`), this project a `float32` rounded to the nearest layer; an
/// integer layer is converted (exactly, for any real layer count), as Java widens `int` to
/// `float`.
pub(super) fn array_layer(
    op: Option<Intrinsic>,
    param: &str,
    v: ir::Expr,
    expected: Option<&Type>,
) -> ir::Expr {
    match (op, expected, &v.ty) {
        (
            Some(Intrinsic::TextureSample | Intrinsic::TextureSampleLod),
            Some(Type::Scalar(ScalarType::F32)),
            Type::Scalar(s),
        ) if param == "layer" && s.is_integer() => convert(v, ScalarType::F32),
        _ => v,
    }
}

/// The element type of a `Blas.gemm` buffer argument, when it is one the library takes.
pub(super) fn gemm_element(t: &Type) -> Option<ScalarType> {
    match t {
        Type::Scalar(
            s @ (ScalarType::F16
            | ScalarType::BF16
            | ScalarType::I8
            | ScalarType::F32
            | ScalarType::I32),
        ) => Some(*s),
        _ => None,
    }
}

/// `Blas.gemm`'s element types: A and B (one type, the generic `A`) and C must be one of the
/// library's precisions; otherwise a type mismatch at C naming the four.
pub(super) fn check_gemm_types(values: &[ir::Expr]) -> Result<(), Diagnostic> {
    let buffers: Vec<&ir::Expr> = values
        .iter()
        .filter(|v| matches!(v.ty, Type::Buffer(_)))
        .collect();
    let elem = |v: &ir::Expr| match &v.ty {
        Type::Buffer(e) => gemm_element(e),
        _ => None,
    };
    let (Some(a), Some(c)) = (buffers.first(), buffers.get(2)) else {
        return Ok(());
    };
    let ok = matches!(
        (elem(a), elem(c)),
        (
            Some(ScalarType::F16),
            Some(ScalarType::F32 | ScalarType::F16)
        ) | (Some(ScalarType::BF16), Some(ScalarType::F32))
            | (Some(ScalarType::I8), Some(ScalarType::I32))
    );
    if ok {
        return Ok(());
    }
    Err(Diagnostic::error(
        Code::TypeMismatch,
        c.span,
        format!("`Blas.gemm` has no precision {} × {} → {}", a.ty, a.ty, c.ty),
    )
    .with_label(format!("this is {}", c.ty))
    .with_note(
        "the precisions are float16 → float32, float16 → float16, bfloat16 → float32 and int8 → int32",
    ))
}
