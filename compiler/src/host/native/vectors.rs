//! Vectors and matrices of native scalars in registers (`Repr::Vector`): construction,
//! splats, swizzles, operators, matrix products, the `Vector<T, N>`
//! methods and `Math`/`Bits` applied lane by lane.
//!
//! Everything is computed lane by lane through the scalar lowering of `expr.rs` and
//! `scalar_fns.rs`, in the order the interpreter's `host/interp/vector_ops.rs` uses (which
//! is the device's): the same instruction per lane, rounded at every step, integer division
//! by zero checked in each lane, so the results are the interpreter's bit for bit. Where an
//! LLVM vector instruction is by definition its scalar instruction in every lane (IEEE
//! `+ - * /`, comparisons, wrapping integer arithmetic, bitwise operators, negation; no
//! fast-math flags anywhere) it is used on the whole vector, which SSE computes at once.
//! What is not lowered here (conversions, which host code has no vector form of, lanes of a
//! POD's field…) is handed to the interpreter as before, the vector crossing the frame as
//! its lanes (`cajeta_frame_set_lanes` / `cajeta_frame_get_lanes`).

use inkwell::values::{BasicValueEnum, IntValue};

use super::codegen::{b, Codegen, FnState, Gen};
use super::expr::{float_predicate, int_predicate};
use super::repr::{in_registers, repr, Repr};
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, MathFn, ScalarType, Type, VecFn};

/// The lane type and lane count of a type held as [`Repr::Vector`].
fn shape(ty: &Type) -> Option<(ScalarType, u8)> {
    match repr(ty) {
        Repr::Vector(s, n) => Some((s, n)),
        _ => None,
    }
}

/// Whether `e` is a vector or matrix operation (or an operation on one) and, if so, whether
/// this file lowers it.
fn lowered(e: &Expr) -> Option<bool> {
    let vector = |t: &Type| shape(t).is_some();
    let any_vector = |args: &[Expr]| args.iter().any(|a| vector(&a.ty));
    let all_native = |args: &[Expr]| args.iter().all(|a| in_registers(&a.ty));
    Some(match &e.kind {
        ExprKind::Construct(parts) if vector(&e.ty) => all_native(parts),
        ExprKind::Splat(a) => vector(&e.ty) && in_registers(&a.ty),
        ExprKind::Swizzle(a, _) => vector(&a.ty),
        ExprKind::Unary(_, a) if vector(&a.ty) => vector(&e.ty),
        ExprKind::Binary(op, a, x) if vector(&a.ty) || vector(&x.ty) => {
            let matrix = |t: &Type| matches!(t, Type::Matrix(..));
            let shapes_match = match (&a.ty, &x.ty) {
                (Type::Vector(s, n), Type::Vector(t, m)) => s == t && n == m,
                (Type::Matrix(..), Type::Vector(..) | Type::Matrix(..) | Type::Scalar(_))
                | (Type::Vector(..), Type::Matrix(..)) => *op == BinaryOp::Mul,
                _ => false,
            };
            shapes_match
                && in_registers(&e.ty)
                && in_registers(&a.ty)
                && in_registers(&x.ty)
                && (!matrix(&a.ty) && !matrix(&x.ty) || *op == BinaryOp::Mul)
        }
        ExprKind::Intrinsic {
            op: Intrinsic::Vector(f),
            args,
        } => lowered_vector_fn(*f) && in_registers(&e.ty) && all_native(args),
        ExprKind::Intrinsic {
            op: Intrinsic::Math(_) | Intrinsic::Bits(_) | Intrinsic::BitCast(_),
            args,
        } if any_vector(args) => {
            args.len() <= 3 && vector(&e.ty) && all_native(args) && !matrix_in(args)
        }
        ExprKind::Convert(a) if vector(&a.ty) || vector(&e.ty) => false,
        _ => return None,
    })
}

/// The `Vector`/`Matrix` methods [`Codegen::vector_fn`] computes itself; the others
/// (`determinant`, `inverse`, `hadamard`, `reflect`, `refract`) go to the interpreter.
fn lowered_vector_fn(f: VecFn) -> bool {
    matches!(
        f,
        VecFn::All
            | VecFn::Any
            | VecFn::Select
            | VecFn::Dot
            | VecFn::Length
            | VecFn::Distance
            | VecFn::Normalize
            | VecFn::Cross
            | VecFn::Lerp
            | VecFn::Min
            | VecFn::Max
            | VecFn::Clamp
            | VecFn::Transpose
    )
}

fn matrix_in(args: &[Expr]) -> bool {
    args.iter().any(|a| matches!(a.ty, Type::Matrix(..)))
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Whether `e` is a vector operation and, if so, whether it is lowered natively
    /// (`None`: not a vector operation, see `native_node`).
    pub fn vector_node(&self, e: &'m Expr) -> Option<bool> {
        lowered(e)
    }

    fn lane_index(&self, i: usize) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(i as u64, false)
    }

    /// The `n` lanes of a native vector value (a 3-lane vector's LLVM vector has a fourth,
    /// zero lane, see [`super::repr::register_lanes`]).
    pub fn split_lanes(&self, v: BasicValueEnum<'ctx>, n: usize) -> Gen<Vec<BasicValueEnum<'ctx>>> {
        let v = v.into_vector_value();
        if n > v.get_type().get_size() as usize {
            return Err("internal error: more lanes than the vector has".into());
        }
        (0..n)
            .map(|i| {
                b(self
                    .builder
                    .build_extract_element(v, self.lane_index(i), ""))
            })
            .collect()
    }

    /// A native vector of lane type `s` from its lanes (and, for three, a fourth lane of
    /// zero, see [`super::repr::register_lanes`]).
    pub fn join_lanes(
        &self,
        s: ScalarType,
        lanes: &[BasicValueEnum<'ctx>],
    ) -> Gen<BasicValueEnum<'ctx>> {
        let t = self
            .llvm_type(&Type::Vector(s, lanes.len() as u8))
            .ok_or("internal error: vector type")?
            .into_vector_type();
        let mut v = if t.get_size() as usize > lanes.len() {
            t.const_zero()
        } else {
            t.get_poison()
        };
        for (i, l) in lanes.iter().enumerate() {
            v = b(self
                .builder
                .build_insert_element(v, *l, self.lane_index(i), ""))?;
        }
        Ok(v.into())
    }

    /// The lanes of `e`: its own for a vector or matrix, the one scalar `n` times otherwise.
    fn lanes(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        n: usize,
    ) -> Gen<Vec<BasicValueEnum<'ctx>>> {
        let v = self.value(st, e)?;
        if shape(&e.ty).is_some() {
            self.split_lanes(v, e.ty.lanes())
        } else {
            Ok(vec![v; n])
        }
    }

    /// Lowers a vector operation [`Self::vector_node`] accepted; `None` for other nodes.
    pub fn vector_expr(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        if self.vector_node(e) != Some(true) {
            return Ok(None);
        }
        let result_shape = shape(&e.ty);
        let v = match &e.kind {
            ExprKind::Construct(parts) => {
                let mut lanes = Vec::new();
                for p in parts {
                    lanes.extend(self.lanes(st, p, 1)?);
                }
                self.join(result_shape, &lanes)?
            }
            ExprKind::Splat(a) => {
                let n = e.ty.lanes();
                let lanes = self.lanes(st, a, n)?;
                self.join(result_shape, &lanes)?
            }
            ExprKind::Swizzle(a, picks) => {
                let lanes = self.lanes(st, a, 1)?;
                let mut out = Vec::with_capacity(picks.len());
                for &p in picks {
                    out.push(
                        *lanes
                            .get(usize::from(p))
                            .ok_or("internal error: swizzle lane")?,
                    );
                }
                match out.as_slice() {
                    [one] => *one,
                    _ => self.join(result_shape, &out)?,
                }
            }
            ExprKind::Unary(op, a) => {
                // `-`, `!`, `~` lane by lane are LLVM's own vector instructions.
                let s = a.ty.elem_scalar().ok_or("internal error: lane type")?;
                let v = self.value(st, a)?;
                self.unary(*op, v, s)?
            }
            ExprKind::Binary(op, a, x) => {
                let ls = a.ty.elem_scalar().ok_or("internal error: lane type")?;
                let rs = x.ty.elem_scalar().ok_or("internal error: lane type")?;
                let (lv, rv) = (self.value(st, a)?, self.value(st, x)?);
                if let (Type::Vector(..), Type::Vector(..)) = (&a.ty, &x.ty) {
                    if let Some(v) = self.whole_vector_op(*op, lv, rv, ls)? {
                        return Ok(Some(v));
                    }
                }
                let l = self.split_lanes(lv, a.ty.lanes())?;
                let r = if shape(&x.ty).is_some() {
                    self.split_lanes(rv, x.ty.lanes())?
                } else {
                    vec![rv]
                };
                let out = match (&a.ty, &x.ty) {
                    (Type::Vector(..), Type::Vector(..)) => self.zip(st, *op, &l, &r, ls, rs, e)?,
                    _ => self.matrix_mul(st, &a.ty, &x.ty, &l, &r, e)?,
                };
                self.join(result_shape, &out)?
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Vector(f),
                args,
            } => return self.vector_fn(st, *f, args, e).map(Some),
            ExprKind::Intrinsic { op, args } => {
                let n = e.ty.lanes();
                let mut lanes = Vec::with_capacity(args.len());
                let mut types = Vec::with_capacity(args.len());
                for a in args {
                    lanes.push(self.lanes(st, a, n)?);
                    types.push(a.ty.elem_scalar().ok_or("internal error: lane type")?);
                }
                let ty = e.ty.elem_scalar().ok_or("internal error: lane type")?;
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let xs: Vec<_> = lanes.iter().map(|l| l[i]).collect();
                    out.push(self.scalar_fn_on(st, e, *op, &xs, &types, ty)?);
                }
                self.join(result_shape, &out)?
            }
            _ => return Err("internal error: vector operation".into()),
        };
        Ok(Some(v))
    }

    fn join(
        &self,
        shape: Option<(ScalarType, u8)>,
        lanes: &[BasicValueEnum<'ctx>],
    ) -> Gen<BasicValueEnum<'ctx>> {
        let (s, _) = shape.ok_or("internal error: vector result")?;
        self.join_lanes(s, lanes)
    }

    /// `op` on two vectors of lane type `s` as one LLVM vector instruction, for the operators
    /// whose vector instruction is by definition the scalar one in every lane (IEEE
    /// `+ - * /` and comparisons without fast-math flags, wrapping integer `+ - *`, bitwise
    /// operators, integer comparisons); `None` for the others (integer `/` and `%`, which
    /// check every lane for zero, and float `%`), which go lane by lane.
    fn whole_vector_op(
        &self,
        op: BinaryOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
        s: ScalarType,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let (x, y) = (l.into_vector_value(), r.into_vector_value());
        let bld = &self.builder;
        let v: BasicValueEnum<'ctx> = if s.is_float() {
            let pred = match op {
                BinaryOp::Add => return Ok(Some(b(bld.build_float_add(x, y, ""))?.into())),
                BinaryOp::Sub => return Ok(Some(b(bld.build_float_sub(x, y, ""))?.into())),
                BinaryOp::Mul => return Ok(Some(b(bld.build_float_mul(x, y, ""))?.into())),
                BinaryOp::Div => return Ok(Some(b(bld.build_float_div(x, y, ""))?.into())),
                cmp => match float_predicate(cmp) {
                    Some(p) => p,
                    None => return Ok(None),
                },
            };
            b(bld.build_float_compare(pred, x, y, ""))?.into()
        } else {
            let signed = s.is_signed_integer();
            let pred = match (op, signed) {
                (BinaryOp::Add, _) => b(bld.build_int_add(x, y, ""))?,
                (BinaryOp::Sub, _) => b(bld.build_int_sub(x, y, ""))?,
                (BinaryOp::Mul, _) => b(bld.build_int_mul(x, y, ""))?,
                (BinaryOp::BitAnd, _) => b(bld.build_and(x, y, ""))?,
                (BinaryOp::BitOr, _) => b(bld.build_or(x, y, ""))?,
                (BinaryOp::BitXor, _) => b(bld.build_xor(x, y, ""))?,
                (cmp, _) => {
                    let Some(pred) = int_predicate(cmp, signed) else {
                        return Ok(None);
                    };
                    b(bld.build_int_compare(pred, x, y, ""))?
                }
            };
            pred.into()
        };
        Ok(Some(v))
    }

    /// `op` lane by lane.
    #[allow(clippy::too_many_arguments)]
    fn zip(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        op: BinaryOp,
        x: &[BasicValueEnum<'ctx>],
        y: &[BasicValueEnum<'ctx>],
        ls: ScalarType,
        rs: ScalarType,
        e: &'m Expr,
    ) -> Gen<Vec<BasicValueEnum<'ctx>>> {
        if x.len() != y.len() {
            return Err("internal error: lane counts differ".into());
        }
        let mut out = Vec::with_capacity(x.len());
        for (l, r) in x.iter().zip(y) {
            out.push(self.binary(st, op, *l, *r, ls, rs, e)?);
        }
        Ok(out)
    }

    /// `((x0*y0 + x1*y1) + x2*y2) + x3*y3`.
    fn dot(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        x: &[BasicValueEnum<'ctx>],
        y: &[BasicValueEnum<'ctx>],
        s: ScalarType,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let products = self.zip(st, BinaryOp::Mul, x, y, s, s, e)?;
        let mut sum = *products.first().ok_or("internal error: empty dot")?;
        for p in &products[1..] {
            sum = self.binary(st, BinaryOp::Add, sum, *p, s, s, e)?;
        }
        Ok(sum)
    }

    /// `Math.*` with an exact inline lowering (`min`, `max`, `sqrt`).
    fn math(
        &self,
        f: MathFn,
        s: ScalarType,
        xs: &[BasicValueEnum<'ctx>],
    ) -> Gen<BasicValueEnum<'ctx>> {
        self.inline_fn(Intrinsic::Math(f), s, xs)?
            .ok_or_else(|| format!("internal error: no inline {f:?} of {s}"))
    }

    fn length(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        x: &[BasicValueEnum<'ctx>],
        s: ScalarType,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let d = self.dot(st, x, x, s, e)?;
        self.math(MathFn::Sqrt, s, &[d])
    }

    /// A `Vector<T, N>` method, as `vector_ops.rs` computes it.
    fn vector_fn(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        f: VecFn,
        args: &'m [Expr],
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let n = args.iter().map(|a| a.ty.lanes()).max().unwrap_or(1);
        let mut a = Vec::with_capacity(args.len());
        for arg in args {
            a.push(self.lanes(st, arg, n)?);
        }
        // The lane type of the lanes computed on (the mask's is boolean).
        let s = args
            .last()
            .and_then(|x| x.ty.elem_scalar())
            .ok_or("internal error: lane type")?;
        let out_shape = shape(&e.ty);
        let lanewise =
            |cg: &mut Self, st: &mut FnState<'ctx, 'm>, op: BinaryOp, x: &[_], y: &[_]| {
                cg.zip(st, op, x, y, s, s, e)
            };
        Ok(match (f, a.as_slice()) {
            (VecFn::All | VecFn::Any, [m]) => {
                let mut acc = *m.first().ok_or("internal error: empty mask")?;
                for l in &m[1..] {
                    let (x, y) = (acc.into_int_value(), l.into_int_value());
                    acc = if f == VecFn::All {
                        b(self.builder.build_and(x, y, ""))?.into()
                    } else {
                        b(self.builder.build_or(x, y, ""))?.into()
                    };
                }
                acc
            }
            (VecFn::Select, [m, x, y]) => {
                let mut out = Vec::with_capacity(m.len());
                for ((c, l), r) in m.iter().zip(x).zip(y) {
                    out.push(b(self.builder.build_select(
                        c.into_int_value(),
                        *l,
                        *r,
                        "",
                    ))?);
                }
                self.join(out_shape, &out)?
            }
            (VecFn::Dot, [x, y]) => self.dot(st, x, y, s, e)?,
            (VecFn::Length, [x]) => self.length(st, x, s, e)?,
            (VecFn::Distance, [x, y]) => {
                let d = lanewise(self, st, BinaryOp::Sub, x, y)?;
                self.length(st, &d, s, e)?
            }
            (VecFn::Normalize, [x]) => {
                let len = self.length(st, x, s, e)?;
                let out = lanewise(self, st, BinaryOp::Div, x, &vec![len; x.len()])?;
                self.join(out_shape, &out)?
            }
            (VecFn::Cross, [x, y]) if x.len() == 3 && y.len() == 3 => {
                let pick = |v: &[BasicValueEnum<'ctx>], l: [usize; 3]| l.map(|i| v[i]).to_vec();
                let p1 = lanewise(
                    self,
                    st,
                    BinaryOp::Mul,
                    &pick(x, [1, 2, 0]),
                    &pick(y, [2, 0, 1]),
                )?;
                let p2 = lanewise(
                    self,
                    st,
                    BinaryOp::Mul,
                    &pick(x, [2, 0, 1]),
                    &pick(y, [1, 2, 0]),
                )?;
                let out = lanewise(self, st, BinaryOp::Sub, &p1, &p2)?;
                self.join(out_shape, &out)?
            }
            (VecFn::Lerp, [x, y, t]) => {
                let d = lanewise(self, st, BinaryOp::Sub, y, x)?;
                let scaled = lanewise(self, st, BinaryOp::Mul, &d, t)?;
                let out = lanewise(self, st, BinaryOp::Add, x, &scaled)?;
                self.join(out_shape, &out)?
            }
            (VecFn::Min | VecFn::Max, [x, y]) => {
                let m = if f == VecFn::Min {
                    MathFn::Min
                } else {
                    MathFn::Max
                };
                let mut out = Vec::with_capacity(x.len());
                for (l, r) in x.iter().zip(y) {
                    out.push(self.math(m, s, &[*l, *r])?);
                }
                self.join(out_shape, &out)?
            }
            (VecFn::Clamp, [x, lo, hi]) => {
                let mut out = Vec::with_capacity(x.len());
                for ((v, l), h) in x.iter().zip(lo).zip(hi) {
                    let low = self.math(MathFn::Max, s, &[*v, *l])?;
                    out.push(self.math(MathFn::Min, s, &[low, *h])?);
                }
                self.join(out_shape, &out)?
            }
            (VecFn::Transpose, [m]) => {
                let Some(Type::Matrix(_, r, c)) = args.first().map(|x| &x.ty) else {
                    return Err("internal error: transpose".into());
                };
                let (r, c) = (usize::from(*r), usize::from(*c));
                let mut out = Vec::with_capacity(m.len());
                for row in 0..r {
                    for col in 0..c {
                        out.push(m[col * r + row]);
                    }
                }
                self.join(out_shape, &out)?
            }
            _ => return Err(format!("internal error: {f:?} on {}", args[0].ty)),
        })
    }

    /// `m * v`: the columns scaled by the vector's lanes, summed in order, each column a
    /// whole-vector multiply and add (matrices are of floats: the IEEE operation per lane).
    fn matrix_times_vector(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        m: &[BasicValueEnum<'ctx>],
        rows: usize,
        v: &[BasicValueEnum<'ctx>],
        s: ScalarType,
        e: &'m Expr,
    ) -> Gen<Vec<BasicValueEnum<'ctx>>> {
        let mut acc: Option<BasicValueEnum<'ctx>> = None;
        for (c, k) in v.iter().enumerate() {
            let column = m
                .get(c * rows..(c + 1) * rows)
                .ok_or("internal error: matrix column")?;
            let (column, k) = (
                self.join_lanes(s, column)?,
                self.join_lanes(s, &vec![*k; rows])?,
            );
            let term = self.whole(st, BinaryOp::Mul, column, k, s, rows, e)?;
            acc = Some(match acc {
                None => term,
                Some(a) => self.whole(st, BinaryOp::Add, a, term, s, rows, e)?,
            });
        }
        self.split_lanes(acc.ok_or("internal error: empty matrix product")?, rows)
    }

    /// `op` on two vectors of `n` lanes: one vector instruction where
    /// [`Self::whole_vector_op`] has one, else lane by lane.
    #[allow(clippy::too_many_arguments)]
    fn whole(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        op: BinaryOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
        s: ScalarType,
        n: usize,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        if let Some(v) = self.whole_vector_op(op, l, r, s)? {
            return Ok(v);
        }
        let (x, y) = (self.split_lanes(l, n)?, self.split_lanes(r, n)?);
        let lanes = self.zip(st, op, &x, &y, s, s, e)?;
        self.join_lanes(s, &lanes)
    }

    /// The matrix products of `vector_ops.rs`, on column-major lanes.
    fn matrix_mul(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        a: &Type,
        x: &Type,
        l: &[BasicValueEnum<'ctx>],
        r: &[BasicValueEnum<'ctx>],
        e: &'m Expr,
    ) -> Gen<Vec<BasicValueEnum<'ctx>>> {
        let s = a.elem_scalar().ok_or("internal error: lane type")?;
        match (a, x) {
            (Type::Matrix(_, rows, _), Type::Vector(..)) => {
                self.matrix_times_vector(st, l, usize::from(*rows), r, s, e)
            }
            (Type::Matrix(_, rows, _), Type::Matrix(_, k, _)) => {
                let mut out = Vec::new();
                for column in r.chunks(usize::from(*k)) {
                    out.extend(self.matrix_times_vector(
                        st,
                        l,
                        usize::from(*rows),
                        column,
                        s,
                        e,
                    )?);
                }
                Ok(out)
            }
            (Type::Vector(_, n), Type::Matrix(..)) => {
                let mut out = Vec::new();
                for column in r.chunks(usize::from(*n)) {
                    out.push(self.dot(st, l, column, s, e)?);
                }
                Ok(out)
            }
            (Type::Matrix(..), Type::Scalar(_)) => {
                let k = *r.first().ok_or("internal error: scalar")?;
                self.zip(st, BinaryOp::Mul, l, &vec![k; l.len()], s, s, e)
            }
            _ => Err(format!("internal error: product of {a} and {x}")),
        }
    }
}
