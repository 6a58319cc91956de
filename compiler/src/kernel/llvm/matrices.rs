//! `Matrix<T, R, C>` values: the LLVM array of their columns, `[C x <R x T>]` (column-major,
//! as the IR). Construction, `m[r][c]`-style lanes, `transpose()`, and the products of
//! [`crate::ir::BinaryOp::Mul`] spelled as the rspirv backend spells them: `m * v` sums the
//! columns scaled by `v`'s lanes in order (`((c0*v0 + c1*v1) + c2*v2) + c3*v3`, each step
//! rounded; never `OpMatrixTimesVector`, whose rounding Vulkan leaves open), `m * m` takes
//! that per column, `v * m` is the dot product with each column, `m * k` scales each column.

use super::lower::{FnLower, Val};
use super::refuse;
use super::types;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ScalarType, Type, VecFn};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// Column `c` of matrix `m` (of LLVM type `<rows x lane>`, `column_ty`).
    pub(super) fn column(&mut self, m: &Val, c: u8, column_ty: &'static str) -> Val {
        let t = self.tmp();
        self.emit(format!("{t} = extractvalue {} {}, {c}", m.ty, m.text));
        Val::new(t, column_ty)
    }

    /// The matrix of LLVM type `ty` from its columns.
    pub(super) fn build_matrix(&mut self, ty: &'static str, columns: &[Val]) -> Val {
        let mut acc = "poison".to_string();
        for (c, col) in columns.iter().enumerate() {
            let t = self.tmp();
            self.emit(format!(
                "{t} = insertvalue {ty} {acc}, {} {}, {c}",
                col.ty, col.text
            ));
            acc = t;
        }
        Val::new(acc, ty)
    }

    /// `Matrix<T, R, C>(lanes…)`: scalar and vector parts filling the columns in order.
    pub(super) fn construct_matrix(&mut self, lanes: Vec<Val>, e: &Expr) -> Res<Val> {
        let Type::Matrix(s, rows, cols) = e.ty else {
            return Err(refuse(e.span, "a matrix construction"));
        };
        let ty = types::value(&e.ty, e.span)?;
        let column_ty = types::value(&Type::Vector(s, rows), e.span)?;
        if lanes.len() != usize::from(rows) * usize::from(cols) {
            return Err(refuse(e.span, "a matrix construction of the wrong size"));
        }
        let mut columns = Vec::new();
        for chunk in lanes.chunks(usize::from(rows)) {
            columns.push(self.build_vector(column_ty, chunk));
        }
        Ok(self.build_matrix(ty, &columns))
    }

    /// The lanes `lanes` (column-major: lane `l` is column `l / R`, row `l % R`) of matrix
    /// `m`: one gives a scalar, several a vector.
    pub(super) fn matrix_lanes(
        &mut self,
        m: &Val,
        (s, rows): (ScalarType, u8),
        lanes: &[u8],
        e: &Expr,
    ) -> Res<Val> {
        let column_ty = types::value(&Type::Vector(s, rows), e.span)?;
        let mut picked = Vec::new();
        for &l in lanes {
            let col = self.column(m, l / rows, column_ty);
            picked.push(self.lane_of(&col, l % rows));
        }
        if let [one] = picked.as_slice() {
            return Ok(one.clone());
        }
        let ty = types::value(&e.ty, e.span)?;
        Ok(self.build_vector(ty, &picked))
    }

    /// `m.transpose()`.
    pub(super) fn transpose(&mut self, m: &Val, mt: &Type, e: &Expr) -> Res<Val> {
        let Type::Matrix(s, rows, cols) = *mt else {
            return Err(refuse(e.span, "`transpose()` of a non-matrix"));
        };
        let ty = types::value(&e.ty, e.span)?;
        let in_col = types::value(&Type::Vector(s, rows), e.span)?;
        let out_col = types::value(&Type::Vector(s, cols), e.span)?;
        let columns: Vec<Val> = (0..cols).map(|c| self.column(m, c, in_col)).collect();
        let mut out = Vec::new();
        for r in 0..rows {
            let lanes: Vec<Val> = columns.iter().map(|col| self.lane_of(col, r)).collect();
            out.push(self.build_vector(out_col, &lanes));
        }
        Ok(self.build_matrix(ty, &out))
    }

    /// `a.hadamard(b)`: the element-wise product, one `fmul` per column (as rspirv).
    pub(super) fn hadamard(&mut self, a: &Val, b: &Val, mt: &Type, e: &Expr) -> Res<Val> {
        let Type::Matrix(s, rows, cols) = *mt else {
            return Err(refuse(e.span, "`hadamard()` of a non-matrix"));
        };
        let ty = types::value(&e.ty, e.span)?;
        let col = types::value(&Type::Vector(s, rows), e.span)?;
        let mut out = Vec::new();
        for c in 0..cols {
            let (x, y) = (self.column(a, c, col), self.column(b, c, col));
            out.push(self.fop("fmul", &x, &y));
        }
        Ok(self.build_matrix(ty, &out))
    }

    /// `m * v`: the columns scaled by `v`'s lanes, summed in order.
    fn matrix_times_vector(&mut self, m: &Val, mt: &Type, v: &Val, span: Span) -> Res<Val> {
        let Type::Matrix(s, rows, cols) = *mt else {
            return Err(refuse(span, "a product of a non-matrix"));
        };
        let column_ty = types::value(&Type::Vector(s, rows), span)?;
        let mut acc: Option<Val> = None;
        for c in 0..cols {
            let column = self.column(m, c, column_ty);
            let k = self.lane_of(v, c);
            let ks = self.build_vector(column_ty, &vec![k; usize::from(rows)]);
            let term = self.fop("fmul", &column, &ks);
            acc = Some(match acc {
                None => term,
                Some(a) => self.fop("fadd", &a, &term),
            });
        }
        acc.ok_or_else(|| refuse(span, "an empty matrix"))
    }

    /// The products of [`BinaryOp::Mul`] with a matrix operand.
    pub(super) fn matrix_binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> Res<Val> {
        if op != BinaryOp::Mul {
            return Err(refuse(e.span, format!("`{op:?}` on matrices")));
        }
        let span = e.span;
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        match (&a.ty, &b.ty) {
            (Type::Matrix(..), Type::Vector(..)) => self.matrix_times_vector(&x, &a.ty, &y, span),
            (Type::Matrix(s, _, _), Type::Matrix(_, k, cols)) => {
                let ty = types::value(&e.ty, span)?;
                let col_ty = types::value(&Type::Vector(*s, *k), span)?;
                let mut columns = Vec::new();
                for c in 0..*cols {
                    let column = self.column(&y, c, col_ty);
                    columns.push(self.matrix_times_vector(&x, &a.ty, &column, span)?);
                }
                Ok(self.build_matrix(ty, &columns))
            }
            (Type::Vector(s, n), Type::Matrix(_, _, cols)) => {
                let ty = types::value(&e.ty, span)?;
                let col_ty = types::value(&Type::Vector(*s, *n), span)?;
                let mut lanes = Vec::new();
                for c in 0..*cols {
                    let column = self.column(&y, c, col_ty);
                    lanes.push(self.dot_value(&x, &column, *n));
                }
                Ok(self.build_vector(ty, &lanes))
            }
            (Type::Matrix(s, rows, cols), Type::Scalar(_)) => {
                let ty = types::value(&e.ty, span)?;
                let col_ty = types::value(&Type::Vector(*s, *rows), span)?;
                let ks = self.build_vector(col_ty, &vec![y.clone(); usize::from(*rows)]);
                let mut columns = Vec::new();
                for c in 0..*cols {
                    let column = self.column(&x, c, col_ty);
                    columns.push(self.fop("fmul", &column, &ks));
                }
                Ok(self.build_matrix(ty, &columns))
            }
            _ => Err(refuse(
                span,
                format!("`{op:?}` on `{}` and `{}`", a.ty, b.ty),
            )),
        }
    }
}

impl FnLower<'_> {
    /// `m.determinant()` and `m.inverse()` on the CPU target: the GLSL.std.450 placeholder,
    /// which `cpu/matrix_ops.rs` defines (LLVM's SPIR-V target has no matrix type to give
    /// the instruction, so `--backend llvm` refuses them).
    pub(super) fn cpu_matrix_glsl(&mut self, f: VecFn, m: &Expr, e: &Expr) -> Res<Val> {
        let inst = match (f, &m.ty) {
            (VecFn::Determinant, Type::Matrix(s, r, c)) if s.is_float() && r == c => {
                rspirv::spirv::GlslStd450Op::Determinant
            }
            (VecFn::Inverse, Type::Matrix(s, r, c)) if s.is_float() && r == c => {
                rspirv::spirv::GlslStd450Op::MatrixInverse
            }
            _ => return Err(refuse(e.span, format!("`{f:?}` on `{}`", m.ty))),
        };
        let x = self.expr(m)?;
        let ret = types::value(&e.ty, e.span)?;
        let op = format!("{}.{}", super::spirv_ops::GLSL, inst as u32);
        let name = super::spirv_ops::placeholder(&op, ret, &[x.ty]);
        self.declare(format!(
            "declare {ret} {name}({}) memory(none) nounwind willreturn",
            x.ty
        ));
        let t = self.tmp();
        self.emit(format!("{t} = call {ret} {name}({} {})", x.ty, x.text));
        Ok(Val::new(t, ret))
    }
}
