//! Integer precision families (SPEC §8): `sint8`, `Vector<sint8,4>`, `aint8`, `sint16`,
//! `Vector<sint16,2|4>`, `aint16`, `lint16` (and `Vector<lint16,2|4>`) become concrete types
//! for one [`PrecisionVariant`], with explicit conversions.
//!
//! | symbolic | int8p | int8s | int8s+int8a | int16p | int16s |
//! |---|---|---|---|---|---|
//! | `sint8` buffer element | 8-bit lane of an `int32` word (4 per word) | `int8` | `int8` | | |
//! | `sint8` value | `int32` | `int8` | `int8` | | |
//! | `Vector<sint8,4>` | one `int32` (4 lanes, low first) | same | same | | |
//! | `aint8` | `int32` | `int32` | `int8` | | |
//! | `sint16` buffer element | | | | 16-bit lane of an `int32` word | `int16` |
//! | `sint16` / `lint16` value, `Shared<lint16>` element | | | | `int32` | `int16` |
//! | `Vector<sint16|lint16,2>` | | | | one `int32` | `Vector<int16,2>` |
//! | `Vector<sint16|lint16,4>` | | | | `Vector<int32,2>` | `Vector<int16,4>` |
//! | `aint16` | | | | `int16` with `shaderInt16`, else `int32` | same |
//!
//! Sema marks every change of family member with a `Convert` (`buf[i]` on a
//! `KernelBuffer<sint8>` is `Convert(Load) : aint8`, a store is `Convert(v) : sint8`); this pass
//! turns those into code:
//! - packed words unpack with [`IntPrecisionFn::UnpackInt4x8`] / `UnpackInt2x16` and pack with
//!   `PackInt4x8` / `PackInt2x16` (core shifts and masks in the backend);
//! - `Convert(Convert(x : S) : A) : S` is `x`: a copy between storage of the same type moves
//!   the word (ncnn's `i8buffer_cp4`);
//! - a scalar element of a packed buffer is lane `i & 3` (`i & 1`) of word `i >> 2` (`i >> 1`):
//!   a load is a sign-extending bit-field extract, a store is [`IntPrecisionFn::StoreLane`]
//!   (a compare-exchange loop on the word, so adjacent lanes written by different threads
//!   never lose an update); so is writing one lane of a `Vector<sint8,4>` element. Whole
//!   vector elements are whole words and are stored plainly;
//! - `buf.length()` of a packed scalar buffer counts lanes (4 or 2 per word);
//! - integer vector conversions are done lane by lane.

use cajeta_runtime::{IntStorage, PrecisionVariant};

use super::int_precision_codec::{extract, i32c, int_like, int_op, swizzle};
use super::precision_codec::{bin, conv, lanes_type, mk, unsupported_access, Builder};
use super::rewrite::Rewrite;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, BinaryOp, Expr, ExprKind, IntPrecisionFn, Intrinsic, Place, ScalarType, Stmt, Type,
};

use ScalarType::{Aint16, Aint8, Lint16, Sint16, Sint8, I16, I32, I8};

/// What the integer families are in one variant.
#[derive(Debug, Clone, Copy)]
pub(super) struct IntForms {
    int8_packed: bool,
    aint8: ScalarType,
    int16_packed: bool,
    aint16: ScalarType,
}

/// Whether `t` mentions an integer precision type.
fn mentions(t: &Type) -> bool {
    t.mentions_scalar(ScalarType::is_int_precision)
}

impl IntForms {
    /// The forms of a variant (SPEC §8 tables).
    pub(super) fn new(v: &PrecisionVariant) -> IntForms {
        IntForms {
            int8_packed: v.int8_storage == IntStorage::Packed,
            aint8: if v.int8_arithmetic { I8 } else { I32 },
            int16_packed: v.int16_storage == IntStorage::Packed,
            aint16: if v.int16_arithmetic { I16 } else { I32 },
        }
    }

    /// Whether `n` lanes of `s` are held as packed `int32` words.
    pub(super) fn word_form(&self, s: ScalarType, n: u8) -> bool {
        match s {
            Sint8 => n > 1,
            Sint16 | Lint16 => n > 1 && self.int16_packed,
            _ => false,
        }
    }

    /// The concrete type of `n` lanes of `s`.
    pub(super) fn lanes(&self, s: ScalarType, n: u8) -> Type {
        match s {
            Sint8 if n > 1 => Type::Scalar(I32),
            Sint8 if self.int8_packed => Type::Scalar(I32),
            Sint8 => Type::Scalar(I8),
            Aint8 => lanes_type(self.aint8, n),
            Sint16 | Lint16 if !self.int16_packed => lanes_type(I16, n),
            Sint16 | Lint16 if n <= 2 => Type::Scalar(I32),
            Sint16 | Lint16 => Type::Vector(I32, n / 2),
            Aint16 => lanes_type(self.aint16, n),
            other => lanes_type(other, n),
        }
    }

    /// The concrete type for a (possibly symbolic) type.
    pub(super) fn map_type(&self, t: &Type) -> Type {
        match t {
            Type::Scalar(s) => self.lanes(*s, 1),
            Type::Vector(s, n) => self.lanes(*s, *n),
            Type::Buffer(e) => Type::Buffer(Box::new(self.map_type(e))),
            Type::Shared(e) => Type::Shared(Box::new(self.map_type(e))),
            Type::Array(e) => Type::Array(Box::new(self.map_type(e))),
            other => other.clone(),
        }
    }

    /// The lane width when `buf_ty` is a buffer of packed scalar lanes (`KernelBuffer<sint8>`
    /// in int8p, `KernelBuffer<sint16>` in int16p).
    fn packed_scalar(&self, buf_ty: &Type) -> Option<u8> {
        match buf_ty {
            Type::Buffer(e) => match **e {
                Type::Scalar(Sint8) if self.int8_packed => Some(8),
                Type::Scalar(Sint16 | Lint16) if self.int16_packed => Some(16),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Specializes the integer families in every kernel and device helper of `module` for `v`.
/// Host functions keep the symbolic types: the host interpreter converts transfers itself.
pub(super) fn specialize_int(
    module: &mut ir::Module,
    v: &PrecisionVariant,
) -> Result<(), Vec<Diagnostic>> {
    let forms = IntForms::new(v);
    let mut diags = Vec::new();
    for f in module
        .functions
        .iter_mut()
        .filter(|f| f.kind != ir::FunctionKind::Host)
    {
        let widened = kernel_params(f, &mut diags);
        let next_loop = super::precision::max_loop(&f.body) + 1;
        let body = std::mem::take(&mut f.body);
        let mut locals = std::mem::take(&mut f.locals);
        let mut lower = IntLower {
            forms,
            b: Builder {
                locals: &mut locals,
                next_loop,
            },
            diags: &mut diags,
            widened: widened.clone(),
        };
        f.body = lower.block(body);
        for (i, l) in locals.iter_mut().enumerate() {
            l.ty = match Type::vector_shape(&l.ty) {
                Some((_, n)) if widened.contains(&i) => lanes_type(I32, n),
                _ => forms.map_type(&l.ty),
            };
        }
        f.locals = locals;
        f.return_type = forms.map_type(&f.return_type);
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// The kernel parameters of `f` that are `aint8`/`aint16` (or vectors of them): they stay
/// `int32` push constants in every variant (the host passes int32 values; int8/int16 push
/// constants would need `storagePushConstant8/16`), converted where the body reads them.
/// Storage-family parameters (`sint8` …) are an error: they describe memory, not values.
fn kernel_params(f: &ir::Function, diags: &mut Vec<Diagnostic>) -> Vec<usize> {
    if f.kind != ir::FunctionKind::Kernel {
        return Vec::new();
    }
    let mut widened = Vec::new();
    for (i, p) in f.params().iter().enumerate() {
        match Type::vector_shape(&p.ty) {
            Some((Aint8 | Aint16, _)) => widened.push(i),
            Some((s @ (Sint8 | Sint16 | Lint16), _)) => diags.push(Diagnostic::error(
                Code::UnsupportedFeature,
                p.span,
                format!(
                    "kernel parameter `{}` of storage type `{s}`: use `{}` (or int32)",
                    p.name,
                    s.precision_arithmetic().unwrap_or(s)
                ),
            )),
            _ => {}
        }
    }
    widened
}

/// The rewriting walk over one function.
pub(super) struct IntLower<'a, 'l> {
    pub(super) forms: IntForms,
    pub(super) b: Builder<'l>,
    diags: &'a mut Vec<Diagnostic>,
    /// Kernel parameters kept as int32 lanes (see [`kernel_params`]).
    widened: Vec<usize>,
}

impl IntLower<'_, '_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(Code::UnsupportedFeature, span, msg));
    }

    /// The symbolic type of the value a place holds (locals keep their symbolic types until
    /// the walk is done).
    fn place_type(&self, p: &Place) -> Option<Type> {
        match p {
            Place::Local(id) => self.b.locals.get(id.0).map(|l| l.ty.clone()),
            Place::Index { base, .. } => match &base.ty {
                Type::Buffer(e) | Type::Shared(e) | Type::Array(e) => Some((**e).clone()),
                _ => None,
            },
            Place::Lane { base, .. } => {
                let (s, _) = Type::vector_shape(&self.place_type(base)?)?;
                Some(Type::Scalar(s))
            }
            Place::Field { .. } => None,
        }
    }

    /// `Some((lane type, lanes))` when `p` holds a vector in packed word form.
    fn packed_vector(&self, p: &Place) -> Option<(ScalarType, u8)> {
        let (s, n) = Type::vector_shape(&self.place_type(p)?)?;
        self.forms.word_form(s, n).then_some((s, n))
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::Expr(e) => {
                if let ExprKind::Intrinsic {
                    op: Intrinsic::IntPrecision(f),
                    args,
                } = &e.kind
                {
                    if let (IntPrecisionFn::St2, [buf, i, v]) = (f, args.as_slice()) {
                        if self.forms.packed_scalar(&buf.ty) == Some(16) {
                            self.store_pair(buf.clone(), i.clone(), v.clone(), out);
                            return;
                        }
                    }
                    if let Some(stmts) =
                        super::int_precision_fns::desugar_stmt(&mut self.b, *f, args, e.span)
                    {
                        for s in stmts {
                            self.stmt(s, out);
                        }
                        return;
                    }
                }
                let e = self.expr(e, out);
                out.push(Stmt::Expr(e));
            }
            Stmt::Store { place, value, span } => self.store(place, value, span, out),
            other => self.stmt_children(other, out),
        }
    }

    /// A packed lane store: `words` is the lowered `int32` buffer, `index` the lane index.
    pub(super) fn store_lane(
        &mut self,
        bits: u8,
        words: Expr,
        index: Expr,
        v: Expr,
        out: &mut Vec<Stmt>,
    ) {
        let span = v.span;
        let v = conv(v, &Type::Scalar(I32));
        out.push(Stmt::Expr(int_op(
            IntPrecisionFn::StoreLane(bits),
            vec![words, index, v],
            Type::Void,
            span,
        )));
    }

    fn store(&mut self, place: Place, value: Expr, span: Span, out: &mut Vec<Stmt>) {
        if let Place::Index { base, index } = &place {
            if let Some(bits) = self.forms.packed_scalar(&base.ty) {
                let (base, index) = ((**base).clone(), (**index).clone());
                let words = self.expr(base, out);
                let index = self.expr(index, out);
                let v = self.expr(value, out);
                self.store_lane(bits, words, index, v, out);
                return;
            }
        }
        if let Place::Lane { base, lane } = &place {
            if let Some((s, n)) = self.packed_vector(base) {
                // One lane of a word-form vector element of a buffer: lane `n*i + lane` of
                // the buffer's words (only when one element is one word).
                if let (Place::Index { base: buf, index }, 1) =
                    (&**base, self.forms.lanes(s, n).lanes())
                {
                    if matches!(buf.ty, Type::Buffer(_)) {
                        let bits = if s == Sint8 { 8 } else { 16 };
                        let (buf, index) = ((**buf).clone(), (**index).clone());
                        let words = self.expr(buf, out);
                        let i = self.expr(index, out);
                        let lane_index = bin(
                            BinaryOp::Add,
                            bin(BinaryOp::Mul, i.clone(), int_like(&i, u64::from(n))),
                            int_like(&i, u64::from(*lane)),
                        );
                        let v = self.expr(value, out);
                        self.store_lane(bits, words, lane_index, v, out);
                        return;
                    }
                }
                self.error(
                    span,
                    format!(
                        "writing one lane of a packed `Vector<{s}, {n}>` here is not supported: \
                         load the vector, change the lane, store it whole"
                    ),
                );
            }
        }
        let widened = match &place {
            Place::Local(id) => self.widened.contains(&id.0),
            Place::Lane { base, .. } => {
                matches!(&**base, Place::Local(id) if self.widened.contains(&id.0))
            }
            _ => false,
        };
        let place = self.place(place, out);
        let mut value = self.expr(value, out);
        if widened {
            value = self.conv_lanes(value, I32, out);
        }
        out.push(Stmt::Store { place, value, span });
    }

    /// Lowers an expression; statements it needs first (temporaries) go to `pre`.
    pub(super) fn expr(&mut self, e: Expr, pre: &mut Vec<Stmt>) -> Expr {
        let Expr { kind, ty, span } = e;
        let mapped = self.forms.map_type(&ty);
        match kind {
            ExprKind::Convert(inner) => self.convert(*inner, &ty, pre),
            ExprKind::Load(Place::Index { base, index })
                if self.forms.packed_scalar(&base.ty).is_some() =>
            {
                let bits = self.forms.packed_scalar(&base.ty).unwrap_or(8);
                let words = self.expr(*base, pre);
                let index = self.expr(*index, pre);
                let v = self.packed_load(bits, words, index, pre);
                conv(v, &mapped)
            }
            ExprKind::Load(Place::Lane { base, lane }) if self.packed_vector(&base).is_some() => {
                let (s, n) = self.packed_vector(&base).unwrap_or((Sint8, 4));
                let bits: u8 = if s == Sint8 { 8 } else { 16 };
                let whole = self.forms.lanes(s, n);
                let place = self.place(*base, pre);
                let mut word = mk(ExprKind::Load(place), whole.clone(), span);
                let per_word = 32 / bits;
                if whole.lanes() > 1 {
                    word = swizzle(word, vec![lane / per_word], Type::Scalar(I32));
                }
                let offset = i32c(i32::from((lane % per_word) * bits), span);
                conv(extract(word, offset, bits), &mapped)
            }
            ExprKind::Load(Place::Local(id)) if self.widened.contains(&id.0) => {
                let n = Type::vector_shape(&ty).map_or(1, |(_, n)| n);
                let wide = mk(ExprKind::Load(Place::Local(id)), lanes_type(I32, n), span);
                let s = mapped.elem_scalar().unwrap_or(I32);
                self.conv_lanes(wide, s, pre)
            }
            ExprKind::Const(c) => Expr::constant(c, mapped, span),
            ExprKind::Intrinsic {
                op: Intrinsic::IntPrecision(f),
                args,
            } if f.is_access() => {
                match super::int_precision_fns::desugar_expr(&mut self.b, f, &args, span) {
                    Some(e) => self.expr(e, pre),
                    None => {
                        self.error(span, format!("`Precision` access {f:?} used as a value"));
                        mk(
                            ExprKind::Intrinsic {
                                op: Intrinsic::IntPrecision(f),
                                args,
                            },
                            mapped,
                            span,
                        )
                    }
                }
            }
            ExprKind::Intrinsic { op, args } => {
                let packed = args.first().and_then(|a| self.forms.packed_scalar(&a.ty));
                if let Some(d) = unsupported_access(
                    op,
                    &args,
                    mentions,
                    "use `Vector<sint8,4>` elements or plain int32 buffers",
                    span,
                ) {
                    self.diags.push(d);
                }
                let args = args.into_iter().map(|a| self.expr(a, pre)).collect();
                let e = mk(ExprKind::Intrinsic { op, args }, mapped, span);
                match (packed, op) {
                    // Four (two) lanes per word.
                    (Some(bits), Intrinsic::BufferLength | Intrinsic::BufferLength64) => {
                        let shift = if bits == 8 { 2 } else { 1 };
                        let c = int_like(&e, shift);
                        bin(BinaryOp::Shl, e, c)
                    }
                    _ => e,
                }
            }
            other => {
                let kind = self.children(other, pre);
                mk(kind, mapped, span)
            }
        }
    }
}

impl super::rewrite::Rewrite for IntLower<'_, '_> {
    fn expr(&mut self, e: Expr, pre: &mut Vec<Stmt>) -> Expr {
        IntLower::expr(self, e, pre)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        IntLower::stmt(self, s, out)
    }
}
