//! `Vector<T, N>` values: construction, splats, swizzles, lane places, buffer elements of
//! vector type, `vload`/`vstore` on scalar buffers and the `Vector` methods.
//!
//! Vectors are LLVM `<N x T>` values (`OpTypeVector`); boolean lanes are stored as `uint32`
//! in buffers, as in the rspirv backend. Operators apply the scalar lowering lane by lane
//! ([`FnLower::per_lane`]), so they keep SPEC §4's guards exactly; `dot`, `length`,
//! `cross` and `lerp` are spelled out as the rspirv backend spells them (multiplies and adds
//! in lane order, never `OpDot`), so every lane rounds as on the host.

use super::lower::{FnLower, Val};
use super::types::{self, scalar, split_vector};
use super::{refuse, Handle};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BitsFn, Expr, ExprKind, LocalId, MathFn, Place, ScalarType, Type, VecFn};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// Applies a scalar lowering to each lane of `args` (vectors of `n` lanes of `s`; a
    /// scalar argument is passed to every lane as it is) and builds the vector of results
    /// of lane type `out`.
    pub(super) fn per_lane(
        &mut self,
        (s, n): (ScalarType, u8),
        out: ScalarType,
        args: &[Val],
        span: Span,
        mut f: impl FnMut(&mut Self, &[Val]) -> Res<Val>,
    ) -> Res<Val> {
        let _ = scalar(s, span)?;
        let out_ty = types::vector(scalar(out, span)?, n, span)?;
        let mut acc = "poison".to_string();
        for i in 0..n {
            let mut lanes = Vec::new();
            for a in args {
                lanes.push(self.lane_of(a, i));
            }
            let r = f(self, &lanes)?;
            acc = self.insert_lane(out_ty, &acc, &r, i);
        }
        Ok(Val::new(acc, out_ty))
    }

    /// Lane `i` of `v` (a scalar `v` is its own lane).
    pub(super) fn lane_of(&mut self, v: &Val, i: u8) -> Val {
        let Some((_, lane)) = split_vector(v.ty) else {
            return v.clone();
        };
        let t = self.tmp();
        self.emit(format!("{t} = extractelement {} {}, i32 {i}", v.ty, v.text));
        Val::new(t, lane)
    }

    /// `acc` (of type `ty`, or `poison`) with lane `i` replaced by `lane`.
    fn insert_lane(&mut self, ty: &str, acc: &str, lane: &Val, i: u8) -> String {
        let t = self.tmp();
        self.emit(format!(
            "{t} = insertelement {ty} {acc}, {} {}, i32 {i}",
            lane.ty, lane.text
        ));
        t
    }

    /// A vector of type `ty` from its lanes, in order.
    pub(super) fn build_vector(&mut self, ty: &'static str, lanes: &[Val]) -> Val {
        let mut acc = "poison".to_string();
        for (i, l) in lanes.iter().enumerate() {
            acc = self.insert_lane(ty, &acc, l, i as u8);
        }
        Val::new(acc, ty)
    }

    /// `Vector<T, N>(parts…)`: the lanes of the scalar and vector parts, in order.
    pub(super) fn construct(&mut self, parts: &[Expr], e: &Expr) -> Res<Val> {
        let ty = types::value(&e.ty, e.span)?;
        let mut lanes = Vec::new();
        for p in parts {
            let v = self.expr(p)?;
            if v.ty == ty && parts.len() == 1 {
                return Ok(v);
            }
            match split_vector(v.ty) {
                Some((n, _)) => {
                    for i in 0..n {
                        lanes.push(self.lane_of(&v, i));
                    }
                }
                None => lanes.push(v),
            }
        }
        if let Type::Matrix(..) = e.ty {
            return self.construct_matrix(lanes, e);
        }
        Ok(self.build_vector(ty, &lanes))
    }

    /// The scalar `x` in every lane of the vector type of `e`.
    pub(super) fn splat(&mut self, x: &Expr, e: &Expr) -> Res<Val> {
        let Type::Vector(_, n) = e.ty else {
            return Err(refuse(e.span, "matrix values"));
        };
        let ty = types::value(&e.ty, e.span)?;
        let v = self.expr(x)?;
        let lanes = vec![v; usize::from(n)];
        Ok(self.build_vector(ty, &lanes))
    }

    /// One lane (a scalar) or several (a vector, `shufflevector`) of a vector.
    pub(super) fn swizzle(&mut self, x: &Expr, lanes: &[u8], e: &Expr) -> Res<Val> {
        let v = self.expr(x)?;
        if let Type::Matrix(s, rows, _) = x.ty {
            return self.matrix_lanes(&v, (s, rows), lanes, e);
        }
        if let [lane] = lanes {
            if !matches!(e.ty, Type::Vector(..)) {
                return Ok(self.lane_of(&v, *lane));
            }
        }
        let ty = types::value(&e.ty, e.span)?;
        let mask: Vec<String> = lanes.iter().map(|l| format!("i32 {l}")).collect();
        let t = self.tmp();
        self.emit(format!(
            "{t} = shufflevector {} {}, {} poison, <{} x i32> <{}>",
            v.ty,
            v.text,
            v.ty,
            lanes.len(),
            mask.join(", ")
        ));
        Ok(Val::new(t, ty))
    }

    /// The IR type of the value a place holds.
    fn place_type(&self, place: &Place) -> Option<Type> {
        match place {
            Place::Local(l) => Some(self.kernel.local(*l).ty.clone()),
            Place::Index { base, .. } => match &base.ty {
                Type::Buffer(elem) | Type::Shared(elem) => Some((**elem).clone()),
                _ => None,
            },
            Place::Lane { base, .. } => match self.place_type(base)? {
                Type::Vector(s, _) => Some(Type::Scalar(s)),
                _ => None,
            },
            Place::Field { base, field } => match self.place_type(base)? {
                Type::Struct(d) => d.fields.get(*field).map(|(_, t)| t.clone()),
                _ => None,
            },
        }
    }

    /// `v.y` of a vector place: the whole vector read, then its lane.
    pub(super) fn load_lane(&mut self, base: &Place, lane: u8, span: Span) -> Res<Val> {
        let Some(ty) = self.place_type(base) else {
            return Err(refuse(span, "reading this vector's lanes"));
        };
        let whole = Expr {
            kind: ExprKind::Load(base.clone()),
            ty,
            span,
        };
        let v = self.expr(&whole)?;
        Ok(self.lane_of(&v, lane))
    }

    /// `v.y = x`: a local's vector gets the lane replaced; a buffer element's lane is
    /// written alone (through a pointer to it, as rspirv's access chain), so that threads
    /// writing other lanes of the same element do not race.
    /// Stores `v` into lane `lane` of the vector element `element` (a `Place::Index`), whose
    /// pointer [`Self::element_pointer`] found as `at`.
    pub(super) fn store_element_lane(
        &mut self,
        element: &Place,
        (p, space, s): (String, u32, ScalarType),
        lane: u8,
        v: Val,
        span: Span,
    ) -> Res<()> {
        let Some(Type::Vector(_, n)) = self.place_type(element) else {
            return Err(refuse(span, "a lane store to a non-vector element"));
        };
        let stored = types::stored(s, span)?;
        let vty = types::vector(stored, n, span)?;
        let q = self.tmp();
        self.emit(format!(
            "{q} = getelementptr {vty}, ptr addrspace({space}) {p}, i32 0, i32 {lane}"
        ));
        let v = self.stored_form(v, s);
        self.emit(format!(
            "store {} {}, ptr addrspace({space}) {q}",
            v.ty, v.text
        ));
        Ok(())
    }

    pub(super) fn store_lane(&mut self, base: &Place, lane: u8, v: Val, span: Span) -> Res<()> {
        match base {
            Place::Local(l) => {
                let ty = types::value(&self.kernel.local(*l).ty, span)?;
                let old = self.tmp();
                self.emit(format!("{old} = load {ty}, ptr %l{}", l.0));
                let new = self.insert_lane(ty, &old, &v, lane);
                self.emit(format!("store {ty} {new}, ptr %l{}", l.0));
                Ok(())
            }
            Place::Index { base: b, index } => {
                let at = self.element_pointer(b, index)?;
                self.store_element_lane(base, at, lane, v, span)
            }
            Place::Field { .. } => {
                let lane_place = Place::Lane {
                    base: Box::new(base.clone()),
                    lane,
                };
                self.cpu_pod_store(&lane_place, v, span)
            }
            _ => Err(refuse(span, "stores to struct fields")),
        }
    }

    /// A value as read from memory of stored type: boolean lanes back from `uint32`.
    pub(super) fn loaded_form(&mut self, v: Val, s: ScalarType, span: Span) -> Res<Val> {
        if s == ScalarType::BF16 && v.ty == "i16" {
            return Ok(self.bf16_from_bits(v));
        }
        if s != ScalarType::Bool {
            return Ok(v);
        }
        let b = self.tmp();
        let ty = match split_vector(v.ty) {
            Some((n, _)) => {
                self.emit(format!(
                    "{b} = icmp ne {} {}, zeroinitializer",
                    v.ty, v.text
                ));
                types::vector("i1", n, span)?
            }
            None => {
                self.emit(format!("{b} = icmp ne i32 {}, 0", v.text));
                "i1"
            }
        };
        Ok(Val::new(b, ty))
    }

    /// A pointer to element `index` of the scalar buffer parameter `base`.
    fn scalar_element_at(&mut self, base: &Expr, index: &Val) -> Res<(String, ScalarType)> {
        let ExprKind::Load(Place::Local(l)) = &base.kind else {
            return Err(refuse(
                base.span,
                "`vload`/`vstore` on a non-parameter buffer",
            ));
        };
        let Some(Some(Handle::Buffer {
            var,
            ty,
            mangled,
            elem,
            lanes: 1,
            ..
        })) = self.handles.get(l.0).cloned()
        else {
            return Err(refuse(base.span, "`vload`/`vstore` on this buffer"));
        };
        let p = self.buffer_pointer(&var, &ty, &mangled, index);
        Ok((p, elem))
    }

    /// `N*i + k` (wrapping, as the rspirv backend computes it) for lane `k`.
    fn vector_element_index(&mut self, i: &Val, n: u8, k: u8) -> Val {
        let (m, a) = (self.tmp(), self.tmp());
        self.emit(format!("{m} = mul i32 {}, {n}", i.text));
        self.emit(format!("{a} = add i32 {m}, {k}"));
        Val::new(a, "i32")
    }

    /// `buf.vload<N>(i)`: elements `N*i … N*i+N-1` of a scalar buffer as a vector.
    pub(super) fn vload(&mut self, args: &[Expr], e: &Expr) -> Res<Val> {
        let ([buf, i], Type::Vector(_, n)) = (args, &e.ty) else {
            return Err(refuse(e.span, "a malformed `vload`"));
        };
        let ty = types::value(&e.ty, e.span)?;
        let i = self.expr(i)?;
        let mut lanes = Vec::new();
        for k in 0..*n {
            let at = self.vector_element_index(&i, *n, k);
            let (p, s) = self.scalar_element_at(buf, &at)?;
            let stored = types::stored(s, e.span)?;
            let t = self.tmp();
            self.emit(format!("{t} = load {stored}, ptr addrspace(11) {p}"));
            let v = self.loaded_form(Val::new(t, stored), s, e.span)?;
            lanes.push(v);
        }
        Ok(self.build_vector(ty, &lanes))
    }

    /// `buf.vstore(i, v)`: the lanes of `v` to elements `N*i … N*i+N-1`.
    pub(super) fn vstore(&mut self, args: &[Expr], span: Span) -> Res<()> {
        let [buf, i, v] = args else {
            return Err(refuse(span, "a malformed `vstore`"));
        };
        let Type::Vector(_, n) = v.ty else {
            return Err(refuse(span, "a malformed `vstore`"));
        };
        let i = self.expr(i)?;
        let v = self.expr(v)?;
        for k in 0..n {
            let at = self.vector_element_index(&i, n, k);
            let (p, s) = self.scalar_element_at(buf, &at)?;
            let lane = self.lane_of(&v, k);
            let lane = self.stored_form(lane, s);
            self.emit(format!(
                "store {} {}, ptr addrspace(11) {p}",
                lane.ty, lane.text
            ));
        }
        Ok(())
    }

    /// `Math.*` on vectors: the scalar lowering (`math`) lane by lane, handed each lane as
    /// a value standing for a local past the function's own.
    pub(super) fn vector_math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Val> {
        self.lanewise(
            args,
            e,
            &format!("`Math.{f:?}`"),
            |fl, lane_args, lane_e| fl.math(f, lane_args, lane_e),
        )
    }

    /// `Bits.*` on vectors: each lane through the scalar lowering (scalar operands, such
    /// as a rotation's count, go to every lane).
    pub(super) fn vector_bits(&mut self, f: BitsFn, args: &[Expr], e: &Expr) -> Res<Val> {
        self.lanewise(
            args,
            e,
            &format!("`Bits.{}`", f.name()),
            |fl, lane_args, lane_e| fl.bits(f, lane_args, lane_e),
        )
    }

    /// A vector intrinsic (`what`) lane by lane: `scalar` lowers one lane, its operands
    /// standing for the lanes of `args` (a scalar operand is every lane's).
    fn lanewise(
        &mut self,
        args: &[Expr],
        e: &Expr,
        what: &str,
        mut scalar: impl FnMut(&mut Self, &[Expr], &Expr) -> Res<Val>,
    ) -> Res<Val> {
        let Some((s, n)) = args.iter().find_map(|a| match a.ty {
            Type::Vector(s, n) => Some((s, n)),
            _ => None,
        }) else {
            return Err(refuse(e.span, format!("{what} on these operands")));
        };
        let out = e.ty.elem_scalar().unwrap_or(s);
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a)?);
        }
        let base = self.kernel.locals.len() + self.lane_values.len();
        let lane_args: Vec<Expr> = args
            .iter()
            .enumerate()
            .map(|(j, a)| Expr {
                kind: ExprKind::Load(Place::Local(LocalId(base + j))),
                ty: Type::Scalar(a.ty.elem_scalar().unwrap_or(s)),
                span: a.span,
            })
            .collect();
        let lane_e = Expr {
            kind: ExprKind::Const(crate::ir::Constant::Int(0)),
            ty: Type::Scalar(out),
            span: e.span,
        };
        self.per_lane((s, n), out, &values, e.span, |fl, lanes| {
            fl.lane_values.truncate(base - fl.kernel.locals.len());
            fl.lane_values.extend(lanes.iter().cloned());
            let r = scalar(fl, &lane_args, &lane_e);
            fl.lane_values.truncate(base - fl.kernel.locals.len());
            r
        })
    }

    /// A call of the LLVM intrinsic `llvm.<name>` overloaded on the type of its operands.
    fn llvm_intrinsic(&mut self, name: &str, args: &[Val]) -> Val {
        let ty = args[0].ty;
        let m = types::mangle(ty);
        let params = vec![ty; args.len()].join(", ");
        self.declare(format!("declare {ty} @llvm.{name}.{m}({params})"));
        let ops: Vec<String> = args
            .iter()
            .map(|a| format!("{} {}", a.ty, a.text))
            .collect();
        let t = self.tmp();
        self.emit(format!(
            "{t} = call {ty} @llvm.{name}.{m}({})",
            ops.join(", ")
        ));
        Val::new(t, ty)
    }

    /// A float operation (`fadd`, `fmul`, …) of two values of one type.
    pub(super) fn fop(&mut self, inst: &str, x: &Val, y: &Val) -> Val {
        let t = self.tmp();
        self.emit(format!("{t} = {inst} {} {}, {}", x.ty, x.text, y.text));
        Val::new(t, x.ty)
    }

    /// `((x0*y0 + x1*y1) + x2*y2) + x3*y3`, each step rounded.
    pub(super) fn dot_value(&mut self, x: &Val, y: &Val, n: u8) -> Val {
        let products = self.fop("fmul", x, y);
        let mut sum = self.lane_of(&products, 0);
        for i in 1..n {
            let p = self.lane_of(&products, i);
            sum = self.fop("fadd", &sum, &p);
        }
        sum
    }

    /// `Vector<T, N>` methods; the receiver is `args[0]`.
    pub(super) fn vector_fn(&mut self, f: VecFn, args: &[Expr], e: &Expr) -> Res<Val> {
        let span = e.span;
        if let (VecFn::Transpose, [m]) = (f, args) {
            let v = self.expr(m)?;
            return self.transpose(&v, &m.ty, e);
        }
        if let (VecFn::Determinant | VecFn::Inverse, [m], super::target::Target::Cpu) =
            (f, args, self.target)
        {
            return self.cpu_matrix_glsl(f, m, e);
        }
        if let (VecFn::Hadamard, [a, b]) = (f, args) {
            let (x, y) = (self.expr(a)?, self.expr(b)?);
            return self.hadamard(&x, &y, &a.ty, e);
        }
        let Some(Type::Vector(s, n)) = args.first().map(|a| a.ty.clone()) else {
            return Err(refuse(span, format!("`{f:?}` on matrices")));
        };
        let mut v = Vec::new();
        for a in args {
            v.push(self.expr(a)?);
        }
        let (float, signed) = (s.is_float(), s.is_signed_integer());
        let (min, max) = match (float, signed) {
            (true, _) => ("minnum", "maxnum"),
            (false, true) => ("smin", "smax"),
            (false, false) => ("umin", "umax"),
        };
        let sqrt = |f: &mut Self, x: &Val| f.llvm_intrinsic("sqrt", std::slice::from_ref(x));
        match (f, v.as_slice()) {
            (VecFn::All | VecFn::Any, [m]) => {
                let inst = if f == VecFn::All { "and" } else { "or" };
                let mut acc = self.lane_of(m, 0);
                for i in 1..n {
                    let l = self.lane_of(m, i);
                    let t = self.tmp();
                    self.emit(format!("{t} = {inst} i1 {}, {}", acc.text, l.text));
                    acc = Val::new(t, "i1");
                }
                Ok(acc)
            }
            (VecFn::Select, [m, a, b]) => {
                let t = self.tmp();
                self.emit(format!(
                    "{t} = select {} {}, {} {}, {} {}",
                    m.ty, m.text, a.ty, a.text, b.ty, b.text
                ));
                Ok(Val::new(t, a.ty))
            }
            (VecFn::Dot, [x, y]) if float => Ok(self.dot_value(x, y, n)),
            (VecFn::Length, [x]) if float => {
                let d = self.dot_value(x, x, n);
                Ok(sqrt(self, &d))
            }
            (VecFn::Distance, [x, y]) if float => {
                let diff = self.fop("fsub", x, y);
                let d = self.dot_value(&diff, &diff, n);
                Ok(sqrt(self, &d))
            }
            (VecFn::Normalize, [x]) if float => {
                let d = self.dot_value(x, x, n);
                let len = sqrt(self, &d);
                let lens = self.build_vector(x.ty, &vec![len; usize::from(n)]);
                Ok(self.fop("fdiv", x, &lens))
            }
            (VecFn::Cross, [x, y]) if float && n == 3 => {
                // a.yzx * b.zxy - a.zxy * b.yzx
                let shuffle = |f: &mut Self, v: &Val, l: [u8; 3]| {
                    let t = f.tmp();
                    f.emit(format!(
                        "{t} = shufflevector {} {}, {} poison, <3 x i32> <i32 {}, i32 {}, i32 {}>",
                        v.ty, v.text, v.ty, l[0], l[1], l[2]
                    ));
                    Val::new(t, v.ty)
                };
                let a1 = shuffle(self, x, [1, 2, 0]);
                let b1 = shuffle(self, y, [2, 0, 1]);
                let a2 = shuffle(self, x, [2, 0, 1]);
                let b2 = shuffle(self, y, [1, 2, 0]);
                let p1 = self.fop("fmul", &a1, &b1);
                let p2 = self.fop("fmul", &a2, &b2);
                Ok(self.fop("fsub", &p1, &p2))
            }
            (VecFn::Lerp, [x, y, t]) if float => {
                let diff = self.fop("fsub", y, x);
                let scaled = self.fop("fmul", &diff, t);
                Ok(self.fop("fadd", x, &scaled))
            }
            // GLSL.std.450 Reflect / Refract through their placeholders, as rspirv emits them.
            (VecFn::Reflect, [_, _]) | (VecFn::Refract, [_, _, _]) if float => {
                let inst = if f == VecFn::Reflect {
                    rspirv::spirv::GlslStd450Op::Reflect
                } else {
                    rspirv::spirv::GlslStd450Op::Refract
                };
                let op = format!("{}.{}", super::spirv_ops::GLSL, inst as u32);
                let ret = v[0].ty;
                let params: Vec<&str> = v.iter().map(|x| x.ty).collect();
                let name = super::spirv_ops::placeholder(&op, ret, &params);
                self.declare(format!(
                    "declare {ret} {name}({}) memory(none) nounwind willreturn",
                    params.join(", ")
                ));
                let operands: Vec<String> =
                    v.iter().map(|x| format!("{} {}", x.ty, x.text)).collect();
                let t = self.tmp();
                self.emit(format!("{t} = call {ret} {name}({})", operands.join(", ")));
                Ok(Val::new(t, ret))
            }
            (VecFn::Min, [x, y]) => Ok(self.llvm_intrinsic(min, &[x.clone(), y.clone()])),
            (VecFn::Max, [x, y]) => Ok(self.llvm_intrinsic(max, &[x.clone(), y.clone()])),
            (VecFn::Clamp, [x, lo, hi]) => {
                let up = self.llvm_intrinsic(max, &[x.clone(), lo.clone()]);
                Ok(self.llvm_intrinsic(min, &[up, hi.clone()]))
            }
            _ => Err(refuse(span, format!("`{f:?}` on `{}`", args[0].ty))),
        }
    }
}
