//! Cajeta's `Quaternion<T>` (T a float type): `w + x·i + y·j + z·k`, held as the four lanes
//! `(w, x, y, z)`, as Cajeta stores it.
//!
//! Its surface is Cajeta's: `stack Quaternion<T>(w, x, y, z)`, `q * r` (the Hamilton product),
//! `q * v` (a `Vector<T, 3>` rotated by `q`), `q + r`, `q - r`, `-q`, the lanes `q.w q.x q.y q.z`
//! (read only), and the methods `conjugate() inverse() normalize() length() dot(r)
//! nlerp(r, t) slerp(r, t)`; `Rotation.identity() fromAxisAngle(axis, angle)
//! fromEuler(pitchX, yawY, rollZ)` build one. Every operation is spelled out here in vector
//! operations (swizzles, lane-wise arithmetic, `dot`, `normalize`, `Math.acos`/`sin`), and
//! [`super::value_lowering::lower_module`] rewrites the quaternion type to `Vector<T, 4>`
//! before the backends, so the SPIR-V and LLVM kernel backends, both host executors and the
//! CPU device run them unchanged, with one fixed evaluation order (host and device agree
//! exactly wherever the vector operations do).

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, BinaryOp, Constant, ExprKind, Intrinsic, MathFn, Place, ScalarType, Stmt, Type, UnaryOp,
    VecFn,
};
use crate::syntax::ast;

/// The methods of `Quaternion<T>`, for the "no such method" help.
const METHODS: &str = "conjugate(), inverse(), normalize(), length(), dot(q), nlerp(q, t), slerp(q, t); lanes w, x, y, z; operators q * q, q * Vector<T,3>, q + q, q - q, -q";

/// Above this `|dot(a, b)|` `slerp` is `nlerp`: the two orientations are so close that
/// `sin(acos(d))` would divide by nearly zero.
const SLERP_NEARLY_PARALLEL: f64 = 0.9995;

/// Statements that bind operands to temporaries, then the value computed from them.
struct Built {
    stmts: Vec<Stmt>,
    value: ir::Expr,
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// Evaluates `e` once into a temporary and returns a load of it.
    fn bind(&mut self, stmts: &mut Vec<Stmt>, e: ir::Expr) -> ir::Expr {
        let (ty, span) = (e.ty.clone(), e.span);
        let id = self.temp(ty.clone(), span);
        stmts.push(Stmt::Store {
            place: Place::Local(id),
            value: e,
            span,
        });
        ir::Expr {
            kind: ExprKind::Load(Place::Local(id)),
            ty,
            span,
        }
    }

    /// `a op b` where a quaternion is an operand: `*` (Hamilton product, or the rotation of a
    /// `Vector<T, 3>`), `+` and `-` of two quaternions of one type.
    pub(super) fn quaternion_binary(
        &mut self,
        op: ast::BinOp,
        l: ir::Expr,
        r: ir::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let Type::Quaternion(s) = lt else {
            return self.bad_quaternion_operands(op, &lt, &rt, span);
        };
        let mut stmts = Vec::new();
        let value = match (op, &rt) {
            (ast::BinOp::Add | ast::BinOp::Sub, t) if *t == lt => {
                let op = if op == ast::BinOp::Add {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                bin(op, l, r, span)
            }
            (ast::BinOp::Mul, t) if *t == lt => {
                let a = self.bind(&mut stmts, l);
                let b = self.bind(&mut stmts, r);
                hamilton(&a, &b, s, span)
            }
            (ast::BinOp::Mul, Type::Vector(vs, 3)) if *vs == s => {
                let q = self.bind(&mut stmts, l);
                let v = self.bind(&mut stmts, r);
                self.rotate(&mut stmts, &q, v, s, span)
            }
            _ => return self.bad_quaternion_operands(op, &lt, &rt, span),
        };
        Ok(sequence(stmts, value))
    }

    fn bad_quaternion_operands<T>(
        &mut self,
        op: ast::BinOp,
        lt: &Type,
        rt: &Type,
        span: Span,
    ) -> R<T> {
        self.error(
            Diagnostic::error(
                Code::InvalidOperator,
                span,
                format!("operator `{}` cannot be applied to {lt} and {rt}", op.symbol()),
            )
            .with_note(
                "help: Quaternion<T> has `q * q` (Hamilton product), `q * v` (rotates a Vector<T,3>), `q + q`, `q - q` and `-q`; scale one through its lanes: `stack Quaternion<T>(q.w * k, q.x * k, q.y * k, q.z * k)`",
            ),
        )
    }

    /// `q * v`: `v + w·t + u × t` with `u = (x, y, z)` and `t = 2·(u × v)`, the rotation of
    /// `v` by a unit `q` (`q v q*` spelled out).
    fn rotate(
        &mut self,
        stmts: &mut Vec<Stmt>,
        q: &ir::Expr,
        v: ir::Expr,
        s: ScalarType,
        span: Span,
    ) -> ir::Expr {
        let v3 = Type::Vector(s, 3);
        let u = swizzle(q, &[1, 2, 3], v3.clone(), span);
        let uv = cross(&u, &v, span);
        let two = splat(float(2.0, s, span), v3.clone(), span);
        let t = bin(BinaryOp::Mul, two, uv, span);
        let t = self.bind(stmts, t);
        let w = splat(swizzle(q, &[0], Type::Scalar(s), span), v3, span);
        let wt = bin(BinaryOp::Mul, w, t.clone(), span);
        let sum = bin(BinaryOp::Add, v, wt, span);
        bin(BinaryOp::Add, sum, cross(&u, &t, span), span)
    }

    /// `q.w`, `q.x`, `q.y`, `q.z`: one lane.
    pub(super) fn quaternion_lane(
        &mut self,
        q: ir::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Quaternion(s) = q.ty else {
            unreachable!("quaternion_lane on a non-quaternion")
        };
        let lane = match field.name.as_str() {
            "w" => 0,
            "x" => 1,
            "y" => 2,
            "z" => 3,
            other => {
                let t = q.ty.clone();
                return self.error(
                    Diagnostic::error(
                        Code::UnknownName,
                        field.span,
                        format!("`{t}` has no field `{other}`"),
                    )
                    .with_note("a quaternion's lanes are w, x, y, z (read one at a time)"),
                );
            }
        };
        Ok(swizzle(&q, &[lane], Type::Scalar(s), span))
    }

    /// `q.conjugate()`, `inverse()`, `normalize()`, `length()`, `dot(r)`, `nlerp(r, t)`,
    /// `slerp(r, t)`.
    pub(super) fn quaternion_method(
        &mut self,
        q: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let qt = q.ty.clone();
        let Type::Quaternion(s) = qt else {
            unreachable!("quaternion_method on a non-quaternion")
        };
        let arity = match name.name.as_str() {
            "conjugate" | "inverse" | "normalize" | "length" => 0,
            "dot" => 1,
            "nlerp" | "slerp" => 2,
            other => {
                return self.error(
                    Diagnostic::error(
                        Code::UnknownMethod,
                        name.span,
                        format!("`{qt}` has no method `{other}`"),
                    )
                    .with_note(format!("Quaternion<T> has {METHODS}")),
                )
            }
        };
        if args.len() != arity {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "`{qt}.{}` takes {arity} argument(s), found {}",
                    name.name,
                    args.len()
                ),
            ));
        }
        let mut values = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let want = if i == 0 { qt.clone() } else { Type::Scalar(s) };
            let v = self.expr(&a.value, Some(&want))?;
            values.push(self.coerce(v, &want, a.value.span)?);
        }
        let mut stmts = Vec::new();
        let value = match name.name.as_str() {
            "conjugate" => conjugate(q, s, span),
            "length" => vec_fn(VecFn::Length, vec![q], Type::Scalar(s), span),
            "normalize" => vec_fn(VecFn::Normalize, vec![q], qt, span),
            "dot" => vec_fn(VecFn::Dot, vec![q, values.remove(0)], Type::Scalar(s), span),
            "inverse" => {
                let q = self.bind(&mut stmts, q);
                let n = vec_fn(
                    VecFn::Dot,
                    vec![q.clone(), q.clone()],
                    Type::Scalar(s),
                    span,
                );
                let n = splat(n, qt.clone(), span);
                bin(BinaryOp::Div, conjugate(q, s, span), n, span)
            }
            interp => {
                let a = self.bind(&mut stmts, q);
                let b = self.bind(&mut stmts, values.remove(0));
                let t = self.bind(&mut stmts, values.remove(0));
                let built = self.interpolate(interp == "slerp", a, b, t, s, span);
                stmts.extend(built.stmts);
                built.value
            }
        };
        Ok(sequence(stmts, value))
    }

    /// `nlerp`: `normalize(a + (b' - a)·t)`; `slerp`: `a·sin((1-t)θ)/sin θ + b'·sin(tθ)/sin θ`
    /// with `θ = acos(|d|)`, `nlerp` where `|d|` exceeds [`SLERP_NEARLY_PARALLEL`]. `d` is
    /// `a.dot(b)` and `b'` is `b`, or `-b` where `d < 0` (the shorter arc). `a`, `b` and `t`
    /// are loads of temporaries.
    fn interpolate(
        &mut self,
        spherical: bool,
        a: ir::Expr,
        b: ir::Expr,
        t: ir::Expr,
        s: ScalarType,
        span: Span,
    ) -> Built {
        let qt = Type::Quaternion(s);
        let st = Type::Scalar(s);
        let mut stmts = Vec::new();
        let d = vec_fn(VecFn::Dot, vec![a.clone(), b.clone()], st.clone(), span);
        let d = self.bind(&mut stmts, d);
        let negative = compare(BinaryOp::Lt, d.clone(), float(0.0, s, span), span);
        let neg_b = unary(UnaryOp::Neg, b.clone(), span);
        let b2 = select(negative.clone(), neg_b, b, span);
        let b2 = self.bind(&mut stmts, b2);
        let tq = splat(t.clone(), qt.clone(), span);
        let step = bin(BinaryOp::Sub, b2.clone(), a.clone(), span);
        let lerp = bin(
            BinaryOp::Add,
            a.clone(),
            bin(BinaryOp::Mul, step, tq, span),
            span,
        );
        let nlerp = vec_fn(VecFn::Normalize, vec![lerp], qt.clone(), span);
        if !spherical {
            return Built {
                stmts,
                value: nlerp,
            };
        }
        let neg_d = unary(UnaryOp::Neg, d.clone(), span);
        let c = select(negative, neg_d, d, span);
        let c = self.bind(&mut stmts, c);
        let near = compare(
            BinaryOp::Gt,
            c.clone(),
            float(SLERP_NEARLY_PARALLEL, s, span),
            span,
        );
        // Only the arm taken is evaluated, so the far arm never divides by sin(θ) ≈ 0.
        let theta = math(MathFn::Acos, c, span);
        let mut far = Vec::new();
        let theta = self.bind(&mut far, theta);
        let sin_theta = math(MathFn::Sin, theta.clone(), span);
        let sin_theta = self.bind(&mut far, sin_theta);
        let one_minus_t = bin(BinaryOp::Sub, float(1.0, s, span), t.clone(), span);
        let wa = bin(
            BinaryOp::Div,
            math(
                MathFn::Sin,
                bin(BinaryOp::Mul, one_minus_t, theta.clone(), span),
                span,
            ),
            sin_theta.clone(),
            span,
        );
        let wb = bin(
            BinaryOp::Div,
            math(MathFn::Sin, bin(BinaryOp::Mul, t, theta, span), span),
            sin_theta,
            span,
        );
        let pa = bin(BinaryOp::Mul, a, splat(wa, qt.clone(), span), span);
        let pb = bin(BinaryOp::Mul, b2, splat(wb, qt.clone(), span), span);
        let far = sequence(far, bin(BinaryOp::Add, pa, pb, span));
        Built {
            stmts,
            value: select(near, nlerp, far, span),
        }
    }

    /// `Rotation.identity()`, `Rotation.fromAxisAngle(axis, angle)`,
    /// `Rotation.fromEuler(pitchX, yawY, rollZ)` (Cajeta's `cajeta.math.Rotation`, float32):
    /// `None` when the call is something else.
    pub(super) fn rotation_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        // A class of the program named `Rotation` is that class.
        if !self.names_library_class(recv, "Rotation") {
            return None;
        }
        Some(self.rotation(name, args, span))
    }

    fn rotation(&mut self, name: &ast::Ident, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let s = ScalarType::F32;
        let (st, v3) = (Type::Scalar(s), Type::Vector(s, 3));
        let params: &[&Type] = match name.name.as_str() {
            "identity" => &[],
            "fromAxisAngle" => &[&v3, &st],
            "fromEuler" => &[&st, &st, &st],
            other => {
                return self.error(
                    Diagnostic::error(
                        Code::UnknownMethod,
                        name.span,
                        format!("`Rotation` has no method `{other}`"),
                    )
                    .with_note("Rotation has identity(), fromAxisAngle(axis, angleRadians) and fromEuler(pitchX, yawY, rollZ)"),
                )
            }
        };
        if args.len() != params.len() {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "`Rotation.{}` takes {} argument(s), found {}",
                    name.name,
                    params.len(),
                    args.len()
                ),
            ));
        }
        let mut values = Vec::new();
        for (a, want) in args.iter().zip(params) {
            let v = self.expr(&a.value, Some(want))?;
            values.push(self.coerce(v, want, a.value.span)?);
        }
        let mut stmts = Vec::new();
        let value = match name.name.as_str() {
            "identity" => construct(
                [1.0, 0.0, 0.0, 0.0].map(|c| float(c, s, span)).to_vec(),
                Type::Quaternion(s),
                span,
            ),
            "fromAxisAngle" => {
                let angle = values.pop().expect("two arguments");
                let axis = values.pop().expect("two arguments");
                let axis = vec_fn(VecFn::Normalize, vec![axis], v3, span);
                self.axis_angle(&mut stmts, axis, angle, s, span)
            }
            _ => {
                // q = qZ * qY * qX, each about a unit axis.
                let mut q = Vec::new();
                for (i, angle) in values.into_iter().enumerate() {
                    let mut unit = [0.0; 3];
                    unit[i] = 1.0;
                    let axis =
                        construct(unit.map(|c| float(c, s, span)).to_vec(), v3.clone(), span);
                    let one = self.axis_angle(&mut stmts, axis, angle, s, span);
                    q.push(self.bind(&mut stmts, one));
                }
                let zy = hamilton(&q[2], &q[1], s, span);
                let zy = self.bind(&mut stmts, zy);
                hamilton(&zy, &q[0], s, span)
            }
        };
        Ok(sequence(stmts, value))
    }

    /// `(cos(θ/2), sin(θ/2)·axis)` for a unit `axis`.
    fn axis_angle(
        &mut self,
        stmts: &mut Vec<Stmt>,
        axis: ir::Expr,
        angle: ir::Expr,
        s: ScalarType,
        span: Span,
    ) -> ir::Expr {
        let half = bin(BinaryOp::Mul, angle, float(0.5, s, span), span);
        let half = self.bind(stmts, half);
        let sin = math(MathFn::Sin, half.clone(), span);
        let v3 = Type::Vector(s, 3);
        let xyz = bin(BinaryOp::Mul, axis, splat(sin, v3.clone(), span), span);
        let cos = math(MathFn::Cos, half, span);
        construct(vec![cos, xyz], Type::Quaternion(s), span)
    }
}

/// The Hamilton product `a * b` of two loads: `a.w·b + a.x·(b.xwzy ∘ (-1,1,-1,1)) +
/// a.y·(b.yzwx ∘ (-1,1,1,-1)) + a.z·(b.zyxw ∘ (-1,-1,1,1))` in storage order `(w, x, y, z)`,
/// summed left to right (the sign products are exact).
fn hamilton(a: &ir::Expr, b: &ir::Expr, s: ScalarType, span: Span) -> ir::Expr {
    let qt = Type::Quaternion(s);
    let lane = |i: u8| splat(swizzle(a, &[i], Type::Scalar(s), span), qt.clone(), span);
    let term = |i: u8, order: [u8; 4], signs: [f64; 4]| {
        let picked = swizzle(b, &order, qt.clone(), span);
        let signed = bin(BinaryOp::Mul, picked, signs_of(signs, s, span), span);
        bin(BinaryOp::Mul, lane(i), signed, span)
    };
    let w = bin(BinaryOp::Mul, lane(0), b.clone(), span);
    let x = term(1, [1, 0, 3, 2], [-1.0, 1.0, -1.0, 1.0]);
    let y = term(2, [2, 3, 0, 1], [-1.0, 1.0, 1.0, -1.0]);
    let z = term(3, [3, 2, 1, 0], [-1.0, -1.0, 1.0, 1.0]);
    let wx = bin(BinaryOp::Add, w, x, span);
    let wxy = bin(BinaryOp::Add, wx, y, span);
    bin(BinaryOp::Add, wxy, z, span)
}

/// `(w, -x, -y, -z)`.
fn conjugate(q: ir::Expr, s: ScalarType, span: Span) -> ir::Expr {
    bin(
        BinaryOp::Mul,
        q,
        signs_of([1.0, -1.0, -1.0, -1.0], s, span),
        span,
    )
}

/// `a × b` of two 3-lane vectors: `a.yzx·b.zxy - a.zxy·b.yzx` (as `Vector.cross`).
fn cross(a: &ir::Expr, b: &ir::Expr, span: Span) -> ir::Expr {
    let t = a.ty.clone();
    let sw = |e: &ir::Expr, o: [u8; 3]| swizzle(e, &o, t.clone(), span);
    let l = bin(BinaryOp::Mul, sw(a, [1, 2, 0]), sw(b, [2, 0, 1]), span);
    let r = bin(BinaryOp::Mul, sw(a, [2, 0, 1]), sw(b, [1, 2, 0]), span);
    bin(BinaryOp::Sub, l, r, span)
}

fn signs_of(signs: [f64; 4], s: ScalarType, span: Span) -> ir::Expr {
    construct(
        signs.map(|c| float(c, s, span)).to_vec(),
        Type::Quaternion(s),
        span,
    )
}

fn float(v: f64, s: ScalarType, span: Span) -> ir::Expr {
    ir::Expr::constant(
        Constant::Float(super::round_to_float(s, v)),
        Type::Scalar(s),
        span,
    )
}

fn construct(parts: Vec<ir::Expr>, ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Construct(parts),
        ty,
        span,
    }
}

fn splat(v: ir::Expr, ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Splat(Box::new(v)),
        ty,
        span,
    }
}

fn swizzle(v: &ir::Expr, lanes: &[u8], ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Swizzle(Box::new(v.clone()), lanes.to_vec()),
        ty,
        span,
    }
}

fn bin(op: BinaryOp, a: ir::Expr, b: ir::Expr, span: Span) -> ir::Expr {
    let ty = a.ty.clone();
    ir::Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty,
        span,
    }
}

fn compare(op: BinaryOp, a: ir::Expr, b: ir::Expr, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Type::Scalar(ScalarType::Bool),
        span,
    }
}

fn unary(op: UnaryOp, a: ir::Expr, span: Span) -> ir::Expr {
    let ty = a.ty.clone();
    ir::Expr {
        kind: ExprKind::Unary(op, Box::new(a)),
        ty,
        span,
    }
}

fn select(cond: ir::Expr, then: ir::Expr, otherwise: ir::Expr, span: Span) -> ir::Expr {
    let ty = then.ty.clone();
    ir::Expr {
        kind: ExprKind::Select {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        },
        ty,
        span,
    }
}

fn math(f: MathFn, a: ir::Expr, span: Span) -> ir::Expr {
    let ty = a.ty.clone();
    ir::Expr {
        kind: ExprKind::Intrinsic {
            op: Intrinsic::Math(f),
            args: vec![a],
        },
        ty,
        span,
    }
}

fn vec_fn(f: VecFn, args: Vec<ir::Expr>, ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Intrinsic {
            op: Intrinsic::Vector(f),
            args,
        },
        ty,
        span,
    }
}

fn sequence(stmts: Vec<Stmt>, value: ir::Expr) -> ir::Expr {
    if stmts.is_empty() {
        return value;
    }
    let (ty, span) = (value.ty.clone(), value.span);
    ir::Expr {
        kind: ExprKind::Sequence(stmts, Box::new(value)),
        ty,
        span,
    }
}
