//! Cooperative matrices in sema: resolving `CoopMatrixA<T, M, K>`-style types, the result
//! type and operand checks of `CoopMatrix.*` calls (component types and sizes that multiply,
//! scale factors, conversions), and their memory operands: the buffer or shared array a
//! cooperative matrix is read from or written to must hold the matrix's component type, or
//! 128-bit vectors that the load reinterprets (SPIR-V lets the pointer's element type differ
//! from the component type; offset and stride then count vectors).

use std::collections::HashMap;

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, CoopOp, CoopUse, ScalarType, Type};
use crate::syntax::ast;

/// The type `CoopMatrixA<T, M, K>` / `CoopMatrixB<T, K, N>` / `CoopMatrixAcc<T, M, N>` (or
/// `<T>`, or bare: 16×16 of the class's default component) spelled with class name `class`:
/// E0024 for a component the class cannot hold, E0008 for a malformed argument list or size.
pub(super) fn resolve_coop_type(
    class: &str,
    args: &[ast::TypeArg],
    span: Span,
    generics: &HashMap<String, Type>,
) -> Result<Type, Diagnostic> {
    let Some(Type::CoopMatrix(default)) = super::device::coop_type(class) else {
        return Ok(Type::Void);
    };
    let (component, dims) = match args {
        [] => return Ok(Type::CoopMatrix(default)),
        [arg] => (arg, None),
        [arg, r, c] => (arg, Some((r, c))),
        _ => {
            return Err(Diagnostic::error(
                Code::TypeMismatch,
                span,
                format!(
                    "`{class}` takes a component type, optionally with its size: `{class}<T>` or \
                     `{class}<T, {}>`",
                    default.usage.dims_names()
                ),
            ))
        }
    };
    let s = super::type_names::lane_type(component, span, generics)?;
    let allowed = ir::CoopType::allowed_components(default.usage);
    if !allowed.contains(&s) {
        let names: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
        return Err(Diagnostic::error(
            Code::UnsupportedFeature,
            span,
            format!(
                "`{class}<{s}>` is not supported: a {class} holds {}",
                names.join(", ")
            ),
        ));
    }
    let (rows, cols) = match dims {
        None => (CoopUse::DIM, CoopUse::DIM),
        Some((r, c)) => (coop_dim(r, class)?, coop_dim(c, class)?),
    };
    Ok(Type::CoopMatrix(ir::CoopType {
        usage: default.usage,
        component: s,
        rows,
        cols,
    }))
}

/// A size argument of a cooperative-matrix type (`CoopMatrixA<int8, 16, 32>`): an integer
/// from 1 to [`CoopUse::MAX_DIM`].
fn coop_dim(arg: &ast::TypeArg, class: &str) -> Result<u32, Diagnostic> {
    let (value, span) = match arg {
        ast::TypeArg::Int(text, span) => (text.parse::<u32>().ok(), *span),
        ast::TypeArg::Type(t) => (None, t.span),
    };
    let max = CoopUse::MAX_DIM;
    match value {
        Some(v @ 1..) if v <= max => Ok(v),
        _ => Err(Diagnostic::error(
            Code::TypeMismatch,
            span,
            format!("the sizes of a {class} are integers from 1 to {max}"),
        )
        .with_label("not a size")),
    }
}

/// Whether a buffer or shared array of `elem` can hold cooperative-matrix data: a numeric
/// scalar, or a vector of four 32-bit lanes (16 bytes: sixteen int8, eight float16, four
/// float32).
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
        match elem {
            // Cajeta's float32 A and B tiles are float16 here, converted on load.
            Type::Scalar(ScalarType::F32)
                if want == ScalarType::F16 && op == CoopOp::Load && self.coop_widening_load =>
            {
                Ok(())
            }
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
    /// must be an accumulator is not. The loads and `zeroAcc` produce the matrix type their
    /// context expects (`hint`: a declaration's or assignment's type), the bare class's
    /// without one; `convert` the expected accumulator type, float32 of the operand's size
    /// without one; `mulAdd`, `scale` and `add` produce their accumulator operand's type (the
    /// stdlib declares them generic in it).
    pub fn coop_result(
        &mut self,
        op: CoopOp,
        args: &mut [ir::Expr],
        ret: Type,
        hint: Option<ir::CoopType>,
    ) -> R<Type> {
        let accumulator = match op {
            CoopOp::MulAdd => args.get(2),
            CoopOp::Scale | CoopOp::Add | CoopOp::Convert => args.first(),
            CoopOp::Store => args.get(3),
            CoopOp::Load
            | CoopOp::ZeroAcc
            | CoopOp::Splat
            | CoopOp::Length
            | CoopOp::Element
            | CoopOp::WithElement => None,
        };
        if let (CoopOp::Length | CoopOp::Element | CoopOp::WithElement, Some(m)) =
            (op, args.first())
        {
            let Type::CoopMatrix(t) = m.ty else {
                let found = m.ty.clone();
                return self.error(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        m.span,
                        format!(
                            "`CoopMatrix.{}` takes a cooperative matrix, found {found}",
                            op_name(op)
                        ),
                    )
                    .with_label(format!("this is {found}")),
                );
            };
            return Ok(match (op, &mut *args) {
                (CoopOp::Element, _) => Type::Scalar(t.component),
                (CoopOp::WithElement, [_, _, v]) => {
                    self.check_splat_value(v, t)?;
                    *v = super::expr::convert(v.clone(), t.component);
                    Type::CoopMatrix(t)
                }
                _ => ret,
            });
        }
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
                            "`CoopMatrix.{}` takes an accumulator (a CoopMatrixAcc), found \
                             {found}",
                            op_name(op)
                        ),
                    )
                    .with_label(format!("this is {found}")),
                );
            }
        }
        match (op, &mut *args) {
            (CoopOp::MulAdd, [a, b, c]) => self.check_mul_add_types(a, b, c)?,
            (CoopOp::Scale, [m, factor]) => {
                self.check_scale_factor(m, factor)?;
                // The factor becomes the component type here, so a literal (`0.5`, a float64)
                // folds to a constant of that type instead of converting at run time.
                if let Type::CoopMatrix(t) = &m.ty {
                    *factor = super::expr::convert(factor.clone(), t.component);
                }
            }
            _ => {}
        }
        let operand = match (op, args.first().map(|a| &a.ty)) {
            (CoopOp::Convert, Some(Type::CoopMatrix(t))) => Some(*t),
            _ => None,
        };
        Ok(match (op, &ret, hint) {
            (CoopOp::Convert, _, _) => {
                let Some(from) = operand else { return Ok(ret) };
                let to = match hint {
                    Some(h) if h.usage == CoopUse::Acc => h,
                    _ => from.with_component(ScalarType::F32),
                };
                self.check_convert(from, to, &args[0])?;
                Type::CoopMatrix(to)
            }
            (CoopOp::Load | CoopOp::ZeroAcc, Type::CoopMatrix(r), Some(h))
                if h.usage == r.usage =>
            {
                Type::CoopMatrix(h)
            }
            (CoopOp::Splat, _, _) => {
                let t = hint.unwrap_or(ir::CoopType::default_of(CoopUse::Acc));
                self.check_splat_value(&args[0], t)?;
                args[0] = super::expr::convert(args[0].clone(), t.component);
                Type::CoopMatrix(t)
            }
            _ => ret,
        })
    }
}

impl FnCtx<'_, '_> {
    /// `mulAdd(a, b, c)`: `a` a CoopMatrixA and `b` a CoopMatrixB whose component types
    /// multiply into `c`'s (float16 × float16 into float16 or float32, bfloat16 × bfloat16 into
    /// float32, int8/uint8 × int8/uint8 into int32/uint32), and sizes that fit: A M×K, B K×N,
    /// `c` M×N. E0008 otherwise. Which combinations a device runs is its list of shapes
    /// (checked against a profile at compile time and against the device at load).
    fn check_mul_add_types(&mut self, a: &ir::Expr, b: &ir::Expr, c: &ir::Expr) -> R<()> {
        let of = |e: &ir::Expr, u: CoopUse| match &e.ty {
            Type::CoopMatrix(t) if t.usage == u => Some(*t),
            _ => None,
        };
        for (e, u) in [(a, CoopUse::A), (b, CoopUse::B)] {
            if of(e, u).is_none() {
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
        let (Some(ta), Some(tb), Some(tc)) =
            (of(a, CoopUse::A), of(b, CoopUse::B), of(c, CoopUse::Acc))
        else {
            // A non-accumulator `c` is reported by the caller.
            return Ok(());
        };
        use ScalarType::{BF16, F16, F32, I32, I8, U32, U8};
        let ok = matches!(
            (ta.component, tb.component, tc.component),
            (F16, F16, F16 | F32) | (BF16, BF16, F32) | (I8 | U8, I8 | U8, I32 | U32)
        );
        if !ok {
            return self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    c.span,
                    format!(
                        "`CoopMatrix.mulAdd` of {} × {} into {}: float16 × float16 accumulates \
                         into float16 or float32, bfloat16 × bfloat16 into float32, int8/uint8 \
                         × int8/uint8 into int32/uint32",
                        a.ty, b.ty, c.ty
                    ),
                )
                .with_label("these types do not multiply"),
            );
        }
        // A is M×K, B K×N, the accumulator M×N; the first size that disagrees is reported.
        let mismatch = if ta.cols != tb.rows {
            Some((
                b,
                format!("B has {} rows where A has {} columns (K)", tb.rows, ta.cols),
            ))
        } else if ta.rows != tc.rows {
            Some((
                c,
                format!(
                    "the accumulator has {} rows where A has {} (M)",
                    tc.rows, ta.rows
                ),
            ))
        } else if tb.cols != tc.cols {
            Some((
                c,
                format!(
                    "the accumulator has {} columns where B has {} (N)",
                    tc.cols, tb.cols
                ),
            ))
        } else {
            None
        };
        let Some((at, why)) = mismatch else {
            return Ok(());
        };
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                at.span,
                format!(
                    "`CoopMatrix.mulAdd` of {ta} ({}×{}) × {tb} ({}×{}) into {tc} ({}×{}): {why}",
                    ta.rows, ta.cols, tb.rows, tb.cols, tc.rows, tc.cols
                ),
            )
            .with_label("this size does not fit")
            .with_note("help: A is M×K, B K×N and the accumulator M×N, as in CoopMatrixA<int8, 16, 32>, CoopMatrixB<int8, 32, 16>, CoopMatrixAcc<int32, 16, 16>"),
        )
    }

    /// `scale(m, s)`: a float accumulator takes any numeric factor (converted to its component
    /// type); an integer accumulator an integer of at most 32 bits, so the product stays exact.
    fn check_scale_factor(&mut self, m: &ir::Expr, factor: &ir::Expr) -> R<()> {
        let Type::CoopMatrix(t) = &m.ty else {
            return Ok(());
        };
        let ok = match &factor.ty {
            Type::Scalar(s) if s.is_precision() => false,
            Type::Scalar(s) if t.component.is_float() => s.is_numeric(),
            Type::Scalar(s) => s.is_integer() && s.bits() <= 32,
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let want = if t.component.is_float() {
            "a numeric scalar"
        } else {
            "an integer of at most 32 bits"
        };
        let found = factor.ty.clone();
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                factor.span,
                format!("`CoopMatrix.scale` of a {t} takes {want}, found {found}"),
            )
            .with_label(format!("this is {found}")),
        )
    }

    /// `convert(m)`: keeps the size; converts float16 ↔ float32 and between integer and float
    /// accumulators. int32 ↔ uint32 has no element-wise conversion in SPIR-V (same width).
    fn check_convert(&mut self, from: ir::CoopType, to: ir::CoopType, m: &ir::Expr) -> R<()> {
        let why = if (from.rows, from.cols) != (to.rows, to.cols) {
            Some(format!(
                "the size changes ({}×{} to {}×{}); convert keeps it",
                from.rows, from.cols, to.rows, to.cols
            ))
        } else if from.component != to.component
            && !from.component.is_float()
            && !to.component.is_float()
        {
            Some("int32 and uint32 accumulators share their bits and have no conversion".into())
        } else {
            None
        };
        let Some(why) = why else {
            return Ok(());
        };
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                m.span,
                format!("`CoopMatrix.convert` of {from} to {to}: {why}"),
            )
            .with_label(format!("this is {from}")),
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
        CoopOp::Splat => "splat",
        CoopOp::Length => "length",
        CoopOp::Element => "element",
        CoopOp::WithElement => "withElement",
    }
}

impl FnCtx<'_, '_> {
    /// `splat(v)`: a numeric scalar (an integer for integer matrices, as with `scale`).
    fn check_splat_value(&mut self, v: &ir::Expr, t: ir::CoopType) -> R<()> {
        let ok = match v.ty.as_scalar() {
            Some(s) if t.component.is_integer() => s.is_integer() && s.bits() <= 32,
            Some(s) => s.is_numeric() && !s.is_precision(),
            None => false,
        };
        if ok {
            return Ok(());
        }
        let found = v.ty.clone();
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                v.span,
                format!("`splat` of a {t} takes a number of its component type, found {found}"),
            )
            .with_label(format!("this is {found}")),
        )
    }
}
