//! IR builders for the float precision forms: decoding an `sfp` storage value to float lanes,
//! encoding float lanes back (round to nearest even), and the packed-scalar element access
//! (a 16-bit lane inside a `uint32` word, stored race-free with a compare-exchange loop).
//!
//! Everything here builds ordinary IR plus [`PrecisionFn::PackHalf2x16`],
//! [`PrecisionFn::UnpackHalf2x16`] and [`PrecisionFn::Bitcast`], so backends need only those
//! three operations to support every packed mode.

use cajeta_runtime::FloatStorage;

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, AtomicOp, BinaryOp, Constant, Expr, ExprKind, Intrinsic, Local, LocalId, LoopId, Place,
    PrecisionFn, ScalarType, Stmt, Type,
};

use ScalarType::{F32, U32};

/// Builds expressions and temporaries inside one function.
pub(super) struct Builder<'a> {
    /// The function's locals; temporaries are appended (named `$prec…`).
    pub(super) locals: &'a mut Vec<Local>,
    /// Next free loop id of the function.
    pub(super) next_loop: usize,
}

/// An expression of type `ty`.
pub(super) fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// A `uint32` constant.
pub(super) fn u32c(v: u32, span: Span) -> Expr {
    Expr::constant(Constant::Int(u64::from(v)), Type::Scalar(U32), span)
}

/// `a op b` with the type of `a` (arithmetic, bitwise and shifts).
pub(super) fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let (ty, span) = (a.ty.clone(), a.span);
    let ty = if op.is_comparison() {
        Type::Scalar(ScalarType::Bool)
    } else {
        ty
    };
    mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, span)
}

/// A precision packing operation.
fn prec(f: PrecisionFn, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::Precision(f),
            args,
        },
        ty,
        span,
    )
}

/// `e` converted to `to` (scalar or vector), or `e` itself when it already has that type.
pub(super) fn conv(e: Expr, to: &Type) -> Expr {
    if &e.ty == to {
        return e;
    }
    let span = e.span;
    mk(ExprKind::Convert(Box::new(e)), to.clone(), span)
}

/// The element type of a buffer or shared-array expression.
pub(super) fn elem_type(e: &Expr) -> Type {
    match &e.ty {
        Type::Buffer(t) | Type::Shared(t) => (**t).clone(),
        other => other.clone(),
    }
}

/// `base[index]` as a symbolic load of the element type.
pub(super) fn index_load(base: &Expr, index: Expr) -> Expr {
    let span = index.span;
    let place = Place::Index {
        base: Box::new(base.clone()),
        index: Box::new(index),
    };
    mk(ExprKind::Load(place), elem_type(base), span)
}

/// `base[index] = value` (`value` already of the element type).
pub(super) fn index_store(base: &Expr, index: Expr, value: Expr, span: Span) -> Stmt {
    Stmt::Store {
        place: Place::Index {
            base: Box::new(base.clone()),
            index: Box::new(index),
        },
        value,
        span,
    }
}

/// Lane `k` of a vector expression.
pub(super) fn lane(e: &Expr, k: u8) -> Expr {
    let s = e.ty.elem_scalar().unwrap_or(F32);
    mk(
        ExprKind::Swizzle(Box::new(e.clone()), vec![k]),
        Type::Scalar(s),
        e.span,
    )
}

/// Lanes `a, b` of a vector expression.
fn pair(e: &Expr, a: u8, b: u8) -> Expr {
    let s = e.ty.elem_scalar().unwrap_or(F32);
    mk(
        ExprKind::Swizzle(Box::new(e.clone()), vec![a, b]),
        Type::Vector(s, 2),
        e.span,
    )
}

/// Whether evaluating `e` twice is the same as once (and cheap).
fn is_pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Load(Place::Local(_)) => true,
        ExprKind::Swizzle(a, _) => is_pure(a),
        _ => false,
    }
}

/// The float type of `n` lanes of `s` (a scalar when `n` is 1).
pub(super) fn lanes_type(s: ScalarType, n: u8) -> Type {
    if n == 1 {
        Type::Scalar(s)
    } else {
        Type::Vector(s, n)
    }
}

impl Builder<'_> {
    /// Evaluates `e` once: a pure `e` is returned as is, anything else is stored to a new
    /// temporary (the store is pushed to `pre`) and a load of it returned.
    pub(super) fn bind(&mut self, e: Expr, pre: &mut Vec<Stmt>) -> Expr {
        if is_pure(&e) {
            return e;
        }
        let id = self.temp(e.ty.clone(), e.span);
        let (ty, span) = (e.ty.clone(), e.span);
        pre.push(Stmt::Store {
            place: Place::Local(id),
            value: e,
            span,
        });
        mk(ExprKind::Load(Place::Local(id)), ty, span)
    }

    /// A new temporary local.
    pub(super) fn temp(&mut self, ty: Type, span: Span) -> LocalId {
        let id = LocalId(self.locals.len());
        self.locals.push(Local {
            name: format!("$prec{}", id.0),
            ty,
            span,
        });
        id
    }

    /// A storage value (`n` lanes of `sfp` in `storage` form) as float lanes: float32 for
    /// fp32 and the packed forms, the native 16-bit type otherwise.
    pub(super) fn decode(
        &mut self,
        storage: FloatStorage,
        x: Expr,
        n: u8,
        pre: &mut Vec<Stmt>,
    ) -> Expr {
        let span = x.span;
        match storage {
            FloatStorage::Fp32 | FloatStorage::Fp16 | FloatStorage::Bf16 => x,
            FloatStorage::Fp16Packed => {
                let unpack = |w: Expr| {
                    prec(
                        PrecisionFn::UnpackHalf2x16,
                        vec![w],
                        Type::Vector(F32, 2),
                        span,
                    )
                };
                match n {
                    1 => lane(&unpack(x), 0),
                    2 => unpack(x),
                    _ => {
                        let w = self.bind(x, pre);
                        let parts = vec![unpack(lane(&w, 0)), unpack(lane(&w, 1))];
                        mk(ExprKind::Construct(parts), Type::Vector(F32, 4), span)
                    }
                }
            }
            FloatStorage::Bf16Packed => {
                let lo = |w: Expr| {
                    let bits = bin(BinaryOp::Shl, w, u32c(16, span));
                    prec(PrecisionFn::Bitcast, vec![bits], Type::Scalar(F32), span)
                };
                let hi = |w: Expr| {
                    let bits = bin(BinaryOp::BitAnd, w, u32c(0xFFFF_0000, span));
                    prec(PrecisionFn::Bitcast, vec![bits], Type::Scalar(F32), span)
                };
                if n == 1 {
                    return lo(x);
                }
                let w = self.bind(x, pre);
                let words: Vec<Expr> = if n == 2 {
                    vec![w]
                } else {
                    vec![lane(&w, 0), lane(&w, 1)]
                };
                let lanes = words
                    .into_iter()
                    .flat_map(|w| [lo(w.clone()), hi(w)])
                    .collect();
                mk(ExprKind::Construct(lanes), Type::Vector(F32, n), span)
            }
        }
    }

    /// Float lanes `v` (any float type) as a storage value of `n` lanes of `sfp` in
    /// `storage` form; `native` is the 16-bit type of the native forms.
    pub(super) fn encode(
        &mut self,
        storage: FloatStorage,
        native: ScalarType,
        v: Expr,
        n: u8,
        pre: &mut Vec<Stmt>,
    ) -> Expr {
        let span = v.span;
        match storage {
            FloatStorage::Fp32 => conv(v, &lanes_type(F32, n)),
            FloatStorage::Fp16 | FloatStorage::Bf16 => conv(v, &lanes_type(native, n)),
            FloatStorage::Fp16Packed => {
                let v = conv(v, &lanes_type(F32, n));
                let pack =
                    |p: Expr| prec(PrecisionFn::PackHalf2x16, vec![p], Type::Scalar(U32), span);
                match n {
                    1 => {
                        // The other half packs +0.0, whose bits are 0: the word holds just
                        // this lane's bits, ready to be merged into memory.
                        let zero = Expr::constant(Constant::Float(0.0), Type::Scalar(F32), span);
                        let both = mk(
                            ExprKind::Construct(vec![v, zero]),
                            Type::Vector(F32, 2),
                            span,
                        );
                        pack(both)
                    }
                    2 => pack(v),
                    _ => {
                        let t = self.bind(v, pre);
                        let words = vec![pack(pair(&t, 0, 1)), pack(pair(&t, 2, 3))];
                        mk(ExprKind::Construct(words), Type::Vector(U32, 2), span)
                    }
                }
            }
            FloatStorage::Bf16Packed => {
                let v = conv(v, &lanes_type(F32, n));
                let t = self.bind(v, pre);
                if n == 1 {
                    return bf16_bits(t);
                }
                let word = |a: Expr, b: Expr| {
                    let hi = bin(BinaryOp::Shl, bf16_bits(b), u32c(16, span));
                    bin(BinaryOp::BitOr, bf16_bits(a), hi)
                };
                if n == 2 {
                    return word(lane(&t, 0), lane(&t, 1));
                }
                let words = vec![
                    word(lane(&t, 0), lane(&t, 1)),
                    word(lane(&t, 2), lane(&t, 3)),
                ];
                mk(ExprKind::Construct(words), Type::Vector(U32, 2), span)
            }
        }
    }

    /// Reads the 16-bit lane `index` of a packed `uint32` buffer `words`: its bits in the low
    /// half of a `uint32`.
    pub(super) fn packed_load(&mut self, words: Expr, index: Expr, pre: &mut Vec<Stmt>) -> Expr {
        let span = index.span;
        let i = self.bind(index, pre);
        let word = mk(
            ExprKind::Load(Place::Index {
                base: Box::new(words),
                index: Box::new(bin(BinaryOp::Shr, i.clone(), u32c(1, span))),
            }),
            Type::Scalar(U32),
            span,
        );
        let shift = bin(
            BinaryOp::Shl,
            bin(BinaryOp::BitAnd, i, u32c(1, span)),
            u32c(4, span),
        );
        bin(
            BinaryOp::BitAnd,
            bin(BinaryOp::Shr, word, shift),
            u32c(0xFFFF, span),
        )
    }

    /// Writes `bits` (a `uint32` whose high half is 0) to the 16-bit lane `index` of a packed
    /// buffer `words` without disturbing the other lane of the word, which another thread may
    /// be writing at the same time: a relaxed compare-exchange loop on the word.
    pub(super) fn packed_store(
        &mut self,
        words: Expr,
        index: Expr,
        bits: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let u32t = Type::Scalar(U32);
        let i = self.bind(index, out);
        let v = self.bind(bits, out);
        let w = self.temp(u32t.clone(), span);
        let shift = self.temp(u32t.clone(), span);
        let old = self.temp(u32t.clone(), span);
        let seen = self.temp(u32t.clone(), span);
        let load = |id: LocalId| mk(ExprKind::Load(Place::Local(id)), u32t.clone(), span);
        let store = |id: LocalId, value: Expr| Stmt::Store {
            place: Place::Local(id),
            value,
            span,
        };
        out.push(store(w, bin(BinaryOp::Shr, i.clone(), u32c(1, span))));
        out.push(store(
            shift,
            bin(
                BinaryOp::Shl,
                bin(BinaryOp::BitAnd, i, u32c(1, span)),
                u32c(4, span),
            ),
        ));
        let element = Place::Index {
            base: Box::new(words.clone()),
            index: Box::new(load(w)),
        };
        out.push(store(old, mk(ExprKind::Load(element), u32t.clone(), span)));
        let keep = mk(
            ExprKind::Unary(
                ir::UnaryOp::BitNot,
                Box::new(bin(BinaryOp::Shl, u32c(0xFFFF, span), load(shift))),
            ),
            u32t.clone(),
            span,
        );
        let merged = bin(
            BinaryOp::BitOr,
            bin(BinaryOp::BitAnd, load(old), keep),
            bin(BinaryOp::Shl, v, load(shift)),
        );
        let cas = mk(
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(AtomicOp::CompareExchange),
                args: vec![words, load(w), load(old), merged],
            },
            u32t.clone(),
            span,
        );
        let id = LoopId(self.next_loop);
        self.next_loop += 1;
        out.push(Stmt::Loop {
            id,
            pre_cond: None,
            body: vec![
                store(seen, cas),
                Stmt::If {
                    cond: bin(BinaryOp::Eq, load(seen), load(old)),
                    then: vec![Stmt::Break(id)],
                    otherwise: Vec::new(),
                },
                store(old, load(seen)),
            ],
            continuing: Vec::new(),
            post_cond: None,
        });
    }
}

/// The bfloat16 bits of a float32 `f` (pure), rounded to nearest even, in the low half of
/// a `uint32`; NaN stays a quiet NaN of the same sign (rounding could carry it into infinity).
fn bf16_bits(f: Expr) -> Expr {
    let span = f.span;
    let u = prec(PrecisionFn::Bitcast, vec![f], Type::Scalar(U32), span);
    let odd = bin(
        BinaryOp::BitAnd,
        bin(BinaryOp::Shr, u.clone(), u32c(16, span)),
        u32c(1, span),
    );
    let rounded = bin(
        BinaryOp::Shr,
        bin(
            BinaryOp::Add,
            bin(BinaryOp::Add, u.clone(), u32c(0x7FFF, span)),
            odd,
        ),
        u32c(16, span),
    );
    let is_nan = bin(
        BinaryOp::Gt,
        bin(BinaryOp::BitAnd, u.clone(), u32c(0x7FFF_FFFF, span)),
        u32c(0x7F80_0000, span),
    );
    let quiet = bin(
        BinaryOp::BitOr,
        bin(BinaryOp::Shr, u, u32c(16, span)),
        u32c(0x40, span),
    );
    mk(
        ExprKind::Select {
            cond: Box::new(is_nan),
            then: Box::new(quiet),
            otherwise: Box::new(rounded),
        },
        Type::Scalar(U32),
        span,
    )
}

/// The error for an atomic or `vload`/`vstore` on a buffer or shared array whose elements
/// `mentions` says are precision types (the passes do not lower those); `hint` says what to
/// use instead.
pub(super) fn unsupported_access(
    op: Intrinsic,
    args: &[Expr],
    mentions: fn(&Type) -> bool,
    hint: &str,
    span: Span,
) -> Option<Diagnostic> {
    let a = args.first()?;
    let precision_elems = matches!(&a.ty, Type::Buffer(e) | Type::Shared(e) if mentions(e));
    let unsupported = matches!(
        op,
        Intrinsic::Atomic(_) | Intrinsic::BufferVload | Intrinsic::BufferVstore
    );
    (precision_elems && unsupported).then(|| {
        Diagnostic::error(
            Code::UnsupportedFeature,
            span,
            format!("{op:?} on `{}` is not supported: {hint}", a.ty),
        )
    })
}
