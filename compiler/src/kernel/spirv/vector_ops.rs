//! Vector operators and `Vector<T, N>` methods.
//!
//! Float arithmetic uses the vector forms of the scalar opcodes, each decorated
//! `NoContraction` (outside `@FastMath`), so every lane rounds exactly as the host does.
//! Integer `/` and `%` and the comparisons go lane by lane through the scalar lowerings,
//! which keeps their SPEC §4 guards (division by zero gives 0, `MIN / -1` wraps) and the
//! NVIDIA signed-remainder workaround in one place. `dot`, `cross`, `lerp` are spelled out
//! as multiplies and adds (never `OpDot` or `FMix`, whose rounding Vulkan leaves open), so
//! the host reproduces them exactly; `length`, `normalize` and `distance` add one `Sqrt`.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, GlslStd450Op, Op, Word};

use super::function::FnCx;
use super::{unsupported, Res};
use crate::diagnostics::Span;
use crate::ir::{BinaryOp, Expr, ScalarType, Type, UnaryOp, VecFn};

impl FnCx<'_, '_> {
    /// A float operation that rounds once: decorated `NoContraction` unless `@FastMath`.
    fn fop(&mut self, opcode: Op, ty: Word, x: Word, y: Word) -> Res<Word> {
        let r = self.op(opcode, ty, &[x, y])?;
        if !self.func.fast_math {
            self.cx.b.decorate(r, Decoration::NoContraction, []);
        }
        Ok(r)
    }

    /// Applies a scalar lowering to each lane of `x` and `y` (vectors of `lanes`) and builds
    /// the vector of results (lane type `out`).
    fn per_lane(
        &mut self,
        lanes: (ScalarType, u8),
        out: ScalarType,
        (x, y): (Word, Word),
        span: Span,
        mut f: impl FnMut(&mut Self, Word, Word) -> Res<Word>,
    ) -> Res<Word> {
        let (s, n) = lanes;
        let lane_ty = self.cx.value_type(s, span)?;
        let out_ty = self.cx.ir_value_type(&Type::Vector(out, n), span)?;
        let mut lanes = Vec::new();
        for i in 0..u32::from(n) {
            let xi = self.extract(lane_ty, x, i)?;
            let yi = self.extract(lane_ty, y, i)?;
            lanes.push(Operand::IdRef(f(self, xi, yi)?));
        }
        self.op_with(Op::CompositeConstruct, out_ty, lanes)
    }

    /// `-v`, `!mask`.
    pub(crate) fn vector_unary(&mut self, op: UnaryOp, a: &Expr, e: &Expr) -> Res<Word> {
        let s = a.ty.elem_scalar().unwrap_or(ScalarType::Bool);
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        let v = self.expr(a)?;
        let opcode = match op {
            UnaryOp::Neg if s.is_float() => Op::FNegate,
            UnaryOp::Neg if s.is_integer() => Op::SNegate,
            UnaryOp::Not if s == ScalarType::Bool => Op::LogicalNot,
            _ => return Err(unsupported(e.span, format!("{op:?} on `{}`", a.ty))),
        };
        if let (Op::SNegate, Type::Vector(s, n)) = (opcode, &a.ty) {
            if s.bits() < 32 {
                // Narrow lanes are negated in 32 bits, lane by lane, as scalars are.
                let (s, n, span) = (*s, *n, e.span);
                return self.per_lane((s, n), s, (v, v), span, |f, xi, _| {
                    f.narrow_in_32_bits(Op::SNegate, s, &[xi], span)
                });
            }
        }
        self.op(opcode, ty, &[v])
    }

    /// Elementwise binary operators on two vectors of one type.
    pub(crate) fn vector_binary(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        e: &Expr,
    ) -> Res<Word> {
        if matches!(a.ty, Type::Matrix(..)) || matches!(b.ty, Type::Matrix(..)) {
            return self.matrix_binary(op, a, b, e);
        }
        let Type::Vector(s, n) = a.ty else {
            return Err(unsupported(e.span, format!("{op:?} on `{}`", a.ty)));
        };
        let ty = self.cx.ir_value_type(&a.ty, e.span)?;
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        let span = e.span;
        if op.is_comparison() {
            return self.per_lane((s, n), ScalarType::Bool, (x, y), span, |f, xi, yi| {
                f.compare(op, s, xi, yi, span)
            });
        }
        let int = s.is_integer();
        let float = s.is_float();
        let opcode = match op {
            BinaryOp::Div | BinaryOp::Rem if int => {
                return self.per_lane((s, n), s, (x, y), span, |f, xi, yi| {
                    f.int_divrem(op, s, xi, yi, span)
                })
            }
            BinaryOp::Add if int => Op::IAdd,
            BinaryOp::Sub if int => Op::ISub,
            BinaryOp::Mul if int => Op::IMul,
            BinaryOp::BitAnd if int => Op::BitwiseAnd,
            BinaryOp::BitOr if int => Op::BitwiseOr,
            BinaryOp::BitXor if int => Op::BitwiseXor,
            BinaryOp::BitAnd if s == ScalarType::Bool => Op::LogicalAnd,
            BinaryOp::BitOr if s == ScalarType::Bool => Op::LogicalOr,
            BinaryOp::BitXor if s == ScalarType::Bool => Op::LogicalNotEqual,
            BinaryOp::Add if float => return self.fop(Op::FAdd, ty, x, y),
            BinaryOp::Sub if float => return self.fop(Op::FSub, ty, x, y),
            BinaryOp::Mul if float => return self.fop(Op::FMul, ty, x, y),
            BinaryOp::Div if float => return self.fop(Op::FDiv, ty, x, y),
            BinaryOp::Rem if float => return self.fop(Op::FRem, ty, x, y),
            _ => return Err(unsupported(span, format!("{op:?} on `{}`", a.ty))),
        };
        if int && s.bits() < 32 {
            // Narrow lanes in 32 bits, lane by lane, as scalars are (`narrow_in_32_bits`:
            // NVIDIA's driver got narrow arithmetic that wraps wrong).
            return self.per_lane((s, n), s, (x, y), span, |f, xi, yi| {
                f.narrow_in_32_bits(opcode, s, &[xi, yi], span)
            });
        }
        self.op(opcode, ty, &[x, y])
    }

    /// `m * v` as columns scaled by the vector's lanes and summed in order:
    /// `((c0*v0 + c1*v1) + c2*v2) + c3*v3`, each step rounded (no `OpMatrixTimesVector`,
    /// whose internal rounding Vulkan leaves open).
    fn matrix_times_vector(&mut self, m: Word, mt: &Type, v: Word, span: Span) -> Res<Word> {
        let Type::Matrix(s, rows, cols) = *mt else {
            return Err(unsupported(span, "internal error: not a matrix"));
        };
        let col_t = Type::Vector(s, rows);
        let col_ty = self.cx.ir_value_type(&col_t, span)?;
        let lane_ty = self.cx.value_type(s, span)?;
        let mut acc = None;
        for c in 0..u32::from(cols) {
            let column = self.extract(col_ty, m, c)?;
            let k = self.extract(lane_ty, v, c)?;
            let ks = self.splat_value(k, &col_t, span)?;
            let term = self.fop(Op::FMul, col_ty, column, ks)?;
            acc = Some(match acc {
                None => term,
                Some(a) => self.fop(Op::FAdd, col_ty, a, term)?,
            });
        }
        acc.ok_or_else(|| unsupported(span, "an empty matrix"))
    }

    /// Matrix products (see [`crate::ir::BinaryOp`]).
    fn matrix_binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> Res<Word> {
        if op != BinaryOp::Mul {
            return Err(unsupported(
                e.span,
                format!("{op:?} on `{}` and `{}`", a.ty, b.ty),
            ));
        }
        let span = e.span;
        let ty = self.cx.ir_value_type(&e.ty, span)?;
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        match (&a.ty, &b.ty) {
            (Type::Matrix(..), Type::Vector(..)) => self.matrix_times_vector(x, &a.ty, y, span),
            (Type::Matrix(s, _, _), Type::Matrix(_, k, cols)) => {
                let col_ty = self.cx.ir_value_type(&Type::Vector(*s, *k), span)?;
                let mut columns = Vec::new();
                for c in 0..u32::from(*cols) {
                    let column = self.extract(col_ty, y, c)?;
                    columns.push(Operand::IdRef(
                        self.matrix_times_vector(x, &a.ty, column, span)?,
                    ));
                }
                self.op_with(Op::CompositeConstruct, ty, columns)
            }
            (Type::Vector(s, n), Type::Matrix(_, _, cols)) => {
                // The row vector times column c is the dot product with that column.
                let col_ty = self.cx.ir_value_type(&Type::Vector(*s, *n), span)?;
                let mut lanes = Vec::new();
                for c in 0..u32::from(*cols) {
                    let column = self.extract(col_ty, y, c)?;
                    lanes.push(Operand::IdRef(self.dot_value(*s, *n, x, column, span)?));
                }
                self.op_with(Op::CompositeConstruct, ty, lanes)
            }
            (Type::Matrix(s, rows, cols), Type::Scalar(_)) => {
                let col_t = Type::Vector(*s, *rows);
                let col_ty = self.cx.ir_value_type(&col_t, span)?;
                let ks = self.splat_value(y, &col_t, span)?;
                let mut columns = Vec::new();
                for c in 0..u32::from(*cols) {
                    let column = self.extract(col_ty, x, c)?;
                    columns.push(Operand::IdRef(self.fop(Op::FMul, col_ty, column, ks)?));
                }
                self.op_with(Op::CompositeConstruct, ty, columns)
            }
            _ => Err(unsupported(
                span,
                format!("{op:?} on `{}` and `{}`", a.ty, b.ty),
            )),
        }
    }

    /// `((x0*y0 + x1*y1) + x2*y2) + x3*y3`, each step rounded.
    fn dot_value(&mut self, s: ScalarType, n: u8, x: Word, y: Word, span: Span) -> Res<Word> {
        let vty = self.cx.ir_value_type(&Type::Vector(s, n), span)?;
        let lane_ty = self.cx.value_type(s, span)?;
        let products = self.fop(Op::FMul, vty, x, y)?;
        let mut sum = self.extract(lane_ty, products, 0)?;
        for i in 1..u32::from(n) {
            let p = self.extract(lane_ty, products, i)?;
            sum = self.fop(Op::FAdd, lane_ty, sum, p)?;
        }
        Ok(sum)
    }

    /// `Vector<T, N>` methods; the receiver is `args[0]`.
    pub(crate) fn vector_fn(&mut self, f: VecFn, args: &[Expr], e: &Expr) -> Res<Word> {
        let recv = args
            .first()
            .ok_or_else(|| unsupported(e.span, "a vector method without a receiver"))?;
        if let Type::Matrix(s, rows, cols) = recv.ty {
            let m = self.expr(recv)?;
            let ty = self.cx.ir_value_type(&e.ty, e.span)?;
            return match (f, args) {
                (VecFn::Transpose, [_]) => self.op(Op::Transpose, ty, &[m]),
                (VecFn::Determinant, [_]) => {
                    self.glsl_op(GlslStd450Op::Determinant, ty, &[m], e.span)
                }
                (VecFn::Inverse, [_]) => {
                    self.glsl_op(GlslStd450Op::MatrixInverse, ty, &[m], e.span)
                }
                (VecFn::Hadamard, [_, other]) => {
                    // OpFMul takes no matrices: column by column.
                    let b = self.expr(other)?;
                    let col = self.cx.ir_value_type(&Type::Vector(s, rows), e.span)?;
                    let mut columns = Vec::new();
                    for k in 0..u32::from(cols) {
                        let x = self.extract(col, m, k)?;
                        let y = self.extract(col, b, k)?;
                        columns.push(self.fop(Op::FMul, col, x, y)?);
                    }
                    self.op(Op::CompositeConstruct, ty, &columns)
                }
                _ => Err(unsupported(e.span, format!("{f:?} on a matrix"))),
            };
        }
        let Type::Vector(s, n) = recv.ty else {
            return Err(unsupported(
                e.span,
                format!("a vector method on `{}`", recv.ty),
            ));
        };
        let span = e.span;
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a)?);
        }
        let ty = self.cx.ir_value_type(&e.ty, span)?;
        let vty = self.cx.ir_value_type(&recv.ty, span)?;
        let lane_ty = self.cx.value_type(s, span)?;
        let signed = s.is_signed_integer();
        let float = s.is_float();
        match (f, values.as_slice()) {
            (VecFn::All, [v]) => self.op(Op::All, ty, &[*v]),
            (VecFn::Any, [v]) => self.op(Op::Any, ty, &[*v]),
            (VecFn::Select, [m, a, b]) => self.op(Op::Select, ty, &[*m, *a, *b]),
            (VecFn::Dot, [x, y]) => self.dot_value(s, n, *x, *y, span),
            (VecFn::Length, [x]) => {
                let d = self.dot_value(s, n, *x, *x, span)?;
                self.glsl_op(GlslStd450Op::Sqrt, lane_ty, &[d], span)
            }
            (VecFn::Distance, [x, y]) => {
                let diff = self.fop(Op::FSub, vty, *x, *y)?;
                let d = self.dot_value(s, n, diff, diff, span)?;
                self.glsl_op(GlslStd450Op::Sqrt, lane_ty, &[d], span)
            }
            (VecFn::Normalize, [x]) => {
                let d = self.dot_value(s, n, *x, *x, span)?;
                let len = self.glsl_op(GlslStd450Op::Sqrt, lane_ty, &[d], span)?;
                let lens = self.splat_value(len, &recv.ty, span)?;
                self.fop(Op::FDiv, vty, *x, lens)
            }
            (VecFn::Cross, [x, y]) => {
                // a.yzx * b.zxy - a.zxy * b.yzx
                let shuffle = |f: &mut Self, v: Word, l: [u32; 3]| {
                    let mut ops = vec![Operand::IdRef(v), Operand::IdRef(v)];
                    ops.extend(l.map(Operand::LiteralBit32));
                    f.op_with(Op::VectorShuffle, vty, ops)
                };
                let a1 = shuffle(self, *x, [1, 2, 0])?;
                let b1 = shuffle(self, *y, [2, 0, 1])?;
                let a2 = shuffle(self, *x, [2, 0, 1])?;
                let b2 = shuffle(self, *y, [1, 2, 0])?;
                let p1 = self.fop(Op::FMul, vty, a1, b1)?;
                let p2 = self.fop(Op::FMul, vty, a2, b2)?;
                self.fop(Op::FSub, vty, p1, p2)
            }
            (VecFn::Lerp, [x, y, t]) => {
                let diff = self.fop(Op::FSub, vty, *y, *x)?;
                let scaled = self.fop(Op::FMul, vty, diff, *t)?;
                self.fop(Op::FAdd, vty, *x, scaled)
            }
            // GLSL.std.450's own formulas (the host rounds each of their steps).
            (VecFn::Reflect, [i, n]) => self.glsl_op(GlslStd450Op::Reflect, vty, &[*i, *n], span),
            (VecFn::Refract, [i, n, eta]) => {
                self.glsl_op(GlslStd450Op::Refract, vty, &[*i, *n, *eta], span)
            }
            (VecFn::Min, [x, y]) => self.glsl_op(min_op(float, signed), vty, &[*x, *y], span),
            (VecFn::Max, [x, y]) => self.glsl_op(max_op(float, signed), vty, &[*x, *y], span),
            (VecFn::Clamp, [x, lo, hi]) => {
                let up = self.glsl_op(max_op(float, signed), vty, &[*x, *lo], span)?;
                self.glsl_op(min_op(float, signed), vty, &[up, *hi], span)
            }
            _ => Err(unsupported(
                span,
                format!("{f:?} with {} arguments", args.len()),
            )),
        }
    }
}

/// The `GLSL.std.450` minimum for a lane kind (as `Math.min`).
fn min_op(float: bool, signed: bool) -> GlslStd450Op {
    match (float, signed) {
        (true, _) => GlslStd450Op::FMin,
        (false, true) => GlslStd450Op::SMin,
        (false, false) => GlslStd450Op::UMin,
    }
}

/// The `GLSL.std.450` maximum for a lane kind (as `Math.max`).
fn max_op(float: bool, signed: bool) -> GlslStd450Op {
    match (float, signed) {
        (true, _) => GlslStd450Op::FMax,
        (false, true) => GlslStd450Op::SMax,
        (false, false) => GlslStd450Op::UMax,
    }
}
