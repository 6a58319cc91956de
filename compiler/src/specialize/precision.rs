//! Float precision types (SPEC §8): `sfp`, `afp`, `lfp` and `Vector<…,2|4>` of them become
//! concrete types for one [`PrecisionVariant`], with explicit conversions.
//!
//! # Representation
//!
//! Sema keeps the precision types symbolic ([`ScalarType::Sfp`] …, also inside
//! `Type::Vector`, `Type::Buffer`, `Type::Shared`) and marks every change of family member
//! with an ordinary `Convert` (`buf[i]` on `KernelBuffer<sfp>` is `Convert(Load) : afp`, a
//! store is `Convert(v) : sfp`). This pass maps the types and turns those conversions into
//! code, per the table of §8:
//!
//! | symbolic | fp32 | fp16p | fp16s | bf16p | bf16s |
//! |---|---|---|---|---|---|
//! | `sfp` element / value | `float32` | 16 bits in a `uint32` word (2 per word in a buffer) | `float16` | as fp16p | native `bfloat16` |
//! | `Vector<sfp,2>` | `Vector<float32,2>` | `uint32` | `Vector<float16,2>` | `uint32` | `Vector<bfloat16,2>` |
//! | `Vector<sfp,4>` | `Vector<float32,4>` | `Vector<uint32,2>` | `Vector<float16,4>` | `Vector<uint32,2>` | `Vector<bfloat16,4>` |
//! | `afp` | `float32` (`float16` with fp16a) | | | | |
//! | `lfp` | `float32` (`float16` with fp16a or fp16u; native `bfloat16` in bf16s) | | | | |
//! | `Vector<lfp,4>` | `Vector<float32,4>` | `Vector<uint32,2>` (two halves per word) | `Vector<uint32,2>` | `Vector<uint32,2>` (two bf16 per word) | `Vector<bfloat16,4>` |
//!
//! `Vector<lfp,4>` follows the seed's `lfpvec4` row: wherever `lfp` itself is float32 but the
//! variant has a 16-bit storage form, four local lanes are packed into two words, so a shared
//! array of them takes half the memory (with fp16a, and in fp16s+fp16u, `lfp` is float16 and
//! the vector is `Vector<float16,4>`: the same 8 bytes). Loads and stores of such a vector move
//! the words; reading it as `afp` unpacks, writing an `afp` vector packs, and moving it between
//! a packed `Vector<sfp,4>` of the same encoding copies bits.
//!
//! - `sfp → afp` decodes (`UnpackHalf2x16`, bf16 bit shifts, or `OpFConvert`), `afp → sfp`
//!   encodes (`PackHalf2x16`, bf16 round to nearest even, `OpFConvert`);
//! - `Convert(Convert(x : sfp) : afp) : sfp` is `x`: a copy between storage of the same type
//!   moves bits, never rounding (ncnn's `buffer_cp*`);
//! - a scalar `sfp` element of a packed buffer is lane `i & 1` of word `i >> 1`: loads shift
//!   and mask, stores merge with a compare-exchange loop (two threads may write the two halves
//!   of one word); whole `Vector<sfp,2|4>` elements are whole words and are stored plainly;
//! - `buf.length()` of a packed scalar buffer counts halves (twice the words);
//! - the `Precision.*` functions desugar to the same loads, stores and conversions.
//!
//! The backends see only ordinary IR plus `PrecisionFn::{PackHalf2x16, UnpackHalf2x16,
//! Bitcast}` and the native `ScalarType::BF16Native`.
//!
//! # Adding the integer families (`int_precision.rs`)
//!
//! The integer types (`sint8 aint8 sint16 aint16 lint16`) are represented the same way:
//! [`ScalarType::Sint8`] … in sema, `Convert` at reads (`sint8 → aint8`) and writes. Their
//! pass lives in `specialize/int_precision.rs` as `pub(super) fn specialize_int(module: &mut
//! ir::Module, v: &PrecisionVariant) -> Result<(), Vec<Diagnostic>>`, called from
//! [`super::specialize`] after this one, and may reuse [`precision_codec::Builder`]
//! (`bind`, `temp`, and the compare-exchange store pattern of `packed_store`, which takes the
//! word index and shift; 8-bit lanes need `i >> 2` and `(i & 3) << 3`). This pass leaves
//! every integer precision type untouched, and `device_code_mentions` does not count them
//! for this pass.
//!
//! [`precision_codec::Builder`]: super::precision_codec::Builder

use cajeta_runtime::{FloatStorage, PrecisionVariant};

use super::precision_codec::{bin, conv, lanes_type, mk, u32c, unsupported_access, Builder};
use super::rewrite::Rewrite;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, BinaryOp, Block, Constant, Expr, ExprKind, Intrinsic, Place, ScalarType, Stmt, Type,
};

/// What `sfp`, `afp` and `lfp` are in one variant.
#[derive(Debug, Clone, Copy)]
pub(super) struct Forms {
    storage: FloatStorage,
    afp: ScalarType,
    lfp: ScalarType,
    /// The packed form of `Vector<lfp,4>` (`Fp16Packed` or `Bf16Packed`), or `None` when it
    /// is four lanes of `lfp`.
    local4: Option<FloatStorage>,
}

impl Forms {
    /// The forms of a variant (SPEC §8 table).
    pub(super) fn new(v: &PrecisionVariant) -> Forms {
        let afp = if v.fp16_arithmetic {
            ScalarType::F16
        } else {
            ScalarType::F32
        };
        let lfp = match v.float_storage {
            FloatStorage::Bf16 => ScalarType::BF16Native,
            // fp16s+fp16u: float16 local memory (the resolver grants it only with fp16s).
            _ if v.fp16_uniform => ScalarType::F16,
            _ => afp,
        };
        // The seed's `lfpvec4` row: packed wherever lfp is float32 in a 16-bit mode.
        let local4 = match (v.float_storage, lfp) {
            (FloatStorage::Fp16Packed | FloatStorage::Fp16, ScalarType::F32) => {
                Some(FloatStorage::Fp16Packed)
            }
            (FloatStorage::Bf16Packed, ScalarType::F32) => Some(FloatStorage::Bf16Packed),
            _ => None,
        };
        Forms {
            storage: v.float_storage,
            afp,
            lfp,
            local4,
        }
    }

    /// The packed form of `t` when it is a `Vector<lfp,4>` held in two words.
    fn packed_local4(&self, t: &Type) -> Option<FloatStorage> {
        matches!(t, Type::Vector(ScalarType::Lfp, 4))
            .then_some(self.local4)
            .flatten()
    }

    /// Whether a packed `Vector<sfp,4>` and a packed `Vector<lfp,4>` share one encoding (a
    /// move between them copies the words).
    fn same_packing(&self) -> bool {
        self.packed() && self.local4 == Some(self.storage)
    }

    fn packed(&self) -> bool {
        matches!(
            self.storage,
            FloatStorage::Fp16Packed | FloatStorage::Bf16Packed
        )
    }

    /// The 16-bit scalar of the native storage forms.
    fn native(&self) -> ScalarType {
        match self.storage {
            FloatStorage::Bf16 => ScalarType::BF16Native,
            FloatStorage::Fp16 => ScalarType::F16,
            _ => ScalarType::F32,
        }
    }

    /// The concrete type of `n` lanes of `sfp` (a buffer element or a value).
    fn sfp_type(&self, n: u8) -> Type {
        match (self.storage, n) {
            (FloatStorage::Fp32, _) => lanes_type(ScalarType::F32, n),
            (FloatStorage::Fp16 | FloatStorage::Bf16, _) => lanes_type(self.native(), n),
            (_, 1 | 2) => Type::Scalar(ScalarType::U32),
            _ => Type::Vector(ScalarType::U32, 2),
        }
    }

    /// The concrete type for a (possibly symbolic) type.
    pub(super) fn map_type(&self, t: &Type) -> Type {
        let lanes = |s: ScalarType, n: u8| match s {
            ScalarType::Sfp => self.sfp_type(n),
            ScalarType::Afp => lanes_type(self.afp, n),
            ScalarType::Lfp if n == 4 && self.local4.is_some() => Type::Vector(ScalarType::U32, 2),
            ScalarType::Lfp => lanes_type(self.lfp, n),
            other => lanes_type(other, n),
        };
        match t {
            Type::Scalar(s) => lanes(*s, 1),
            Type::Vector(s, n) => lanes(*s, *n),
            Type::Matrix(ScalarType::Afp, r, c) => Type::Matrix(self.afp, *r, *c),
            Type::Buffer(e) => Type::Buffer(Box::new(self.map_type(e))),
            Type::Shared(e) => Type::Shared(Box::new(self.map_type(e))),
            Type::Array(e) => Type::Array(Box::new(self.map_type(e))),
            other => other.clone(),
        }
    }
}

/// Whether `t` mentions `sfp`, `afp` or `lfp`.
fn mentions(t: &Type) -> bool {
    t.mentions_scalar(ScalarType::is_float_precision)
}

/// Specializes every kernel and device helper of `module` for `v`. Host functions keep the
/// symbolic types: the host interpreter converts transfers itself.
pub(super) fn specialize_float(
    module: &mut ir::Module,
    v: &PrecisionVariant,
) -> Result<(), Vec<Diagnostic>> {
    let forms = Forms::new(v);
    let mut diags = Vec::new();
    for f in module
        .functions
        .iter_mut()
        .filter(|f| f.kind != ir::FunctionKind::Host)
    {
        if f.kind == ir::FunctionKind::Kernel {
            // A push constant's type would depend on the variant while the host passes
            // float32: keep launch arguments variant-independent.
            for p in f
                .params()
                .iter()
                .filter(|p| p.ty.is_value_data() && mentions(&p.ty))
            {
                diags.push(
                    Diagnostic::error(
                        Code::KernelSignature,
                        p.span,
                        format!(
                            "kernel parameter `{}` has the precision type `{}`",
                            p.name, p.ty
                        ),
                    )
                    .with_note("help: take a float32 and convert inside: `afp a = (afp) a32;`"),
                );
            }
        }
        let next_loop = max_loop(&f.body) + 1;
        let body = std::mem::take(&mut f.body);
        let mut locals = std::mem::take(&mut f.locals);
        let mut lower = Lower {
            forms,
            b: Builder {
                locals: &mut locals,
                next_loop,
            },
            diags: &mut diags,
        };
        f.body = lower.block(body);
        for l in &mut locals {
            l.ty = forms.map_type(&l.ty);
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

/// The largest loop id used in `block` (0 when none).
pub(super) fn max_loop(block: &Block) -> usize {
    block
        .iter()
        .map(|s| match s {
            Stmt::Loop {
                id,
                body,
                continuing,
                ..
            } => id.0.max(max_loop(body)).max(max_loop(continuing)),
            Stmt::If {
                then, otherwise, ..
            } => max_loop(then).max(max_loop(otherwise)),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// The rewriting walk over one function.
pub(super) struct Lower<'a, 'l> {
    pub(super) forms: Forms,
    pub(super) b: Builder<'l>,
    pub(super) diags: &'a mut Vec<Diagnostic>,
}

impl Lower<'_, '_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(Code::UnsupportedFeature, span, msg));
    }

    /// Whether `base` (a symbolic buffer expression) holds packed scalar `sfp` elements.
    fn packed_scalar(&self, base_ty: &Type) -> bool {
        self.forms.packed()
            && matches!(base_ty, Type::Buffer(e) if **e == Type::Scalar(ScalarType::Sfp))
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::Expr(e) => {
                if let ExprKind::Intrinsic {
                    op: Intrinsic::Precision(f),
                    args,
                } = &e.kind
                {
                    let mut pre = Vec::new();
                    if let Some(stores) =
                        super::precision_fns::desugar_stmt(&mut self.b, *f, args, e.span, &mut pre)
                    {
                        for s in pre.into_iter().chain(stores) {
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

    fn store(&mut self, place: Place, value: Expr, span: Span, out: &mut Vec<Stmt>) {
        if let Place::Index { base, index } = &place {
            if self.packed_scalar(&base.ty) {
                let (base, index) = ((**base).clone(), (**index).clone());
                let words = self.expr(base, out);
                let index = self.expr(index, out);
                let bits = self.expr(value, out);
                self.b.packed_store(words, index, bits, span, out);
                return;
            }
        }
        if self.lane_of_packed_local4(&place) {
            self.error(
                span,
                "writing one lane of a `Vector<lfp,4>` is not supported where it is packed \
                 (fp16p, fp16s, bf16p): build the whole vector and store it",
            );
        }
        if self.forms.packed() && lane_of_sfp_vector(&place) {
            self.error(
                span,
                "writing one lane of a `Vector<sfp,N>` element is not supported in packed modes: \
                 load the vector, change the lane, store it whole",
            );
        }
        let place = self.place(place, out);
        let value = self.expr(value, out);
        out.push(Stmt::Store { place, value, span });
    }

    /// Lowers an expression; statements it needs first (temporaries) go to `pre`.
    pub(super) fn expr(&mut self, e: Expr, pre: &mut Vec<Stmt>) -> Expr {
        let Expr { kind, ty, span } = e;
        let mapped = self.forms.map_type(&ty);
        match kind {
            ExprKind::Convert(inner) => self.convert(*inner, &ty, pre),
            ExprKind::Load(Place::Index { base, index }) if self.packed_scalar(&base.ty) => {
                let words = self.expr(*base, pre);
                let index = self.expr(*index, pre);
                self.b.packed_load(words, index, pre)
            }
            ExprKind::Const(c) => self.constant(c, &ty, span),
            ExprKind::Swizzle(base, lanes) if self.forms.packed_local4(&base.ty).is_some() => {
                // Lanes of a packed local vector: unpack the words first.
                let x = self.expr(*base, pre);
                let x = self.convert_lowered(
                    x,
                    ScalarType::Lfp,
                    &Type::Vector(ScalarType::Afp, 4),
                    pre,
                );
                let x = conv(x, &Type::Vector(self.forms.lfp, 4));
                mk(ExprKind::Swizzle(Box::new(x), lanes), mapped, span)
            }
            ExprKind::Construct(parts) if self.forms.packed_local4(&ty).is_some() => {
                let parts = parts.into_iter().map(|p| self.expr(p, pre)).collect();
                let lanes = mk(
                    ExprKind::Construct(parts),
                    Type::Vector(self.forms.lfp, 4),
                    span,
                );
                self.convert_lowered(lanes, ScalarType::Afp, &ty, pre)
            }
            ExprKind::Unary(..) | ExprKind::Binary(..)
                if self.forms.packed_local4(&ty).is_some() =>
            {
                self.error(
                    span,
                    "arithmetic on `Vector<lfp,4>` values is not supported where they are packed \
                     (fp16p, fp16s, bf16p): compute in `Vector<afp,4>` (`Precision.lfp2afpvec4`)",
                );
                let kind = self.children(kind, pre);
                mk(kind, mapped, span)
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Precision(f),
                args,
            } => match super::precision_fns::desugar_expr(f, args.clone(), &ty, span) {
                Some(e) => self.expr(e, pre),
                None => {
                    let args = args.into_iter().map(|a| self.expr(a, pre)).collect();
                    mk(
                        ExprKind::Intrinsic {
                            op: Intrinsic::Precision(f),
                            args,
                        },
                        mapped,
                        span,
                    )
                }
            },
            ExprKind::Intrinsic { op, args } => {
                let packed = args.first().is_some_and(|a| self.packed_scalar(&a.ty));
                if let Some(d) = unsupported_access(
                    op,
                    &args,
                    mentions,
                    "use `Vector<sfp,N>` elements or Precision.ld/st",
                    span,
                ) {
                    self.diags.push(d);
                }
                let args = args.into_iter().map(|a| self.expr(a, pre)).collect();
                let e = mk(ExprKind::Intrinsic { op, args }, mapped, span);
                if packed && op == Intrinsic::BufferLength {
                    // Two halves per word.
                    return bin(BinaryOp::Shl, e, u32c(1, span));
                }
                if packed && op == Intrinsic::BufferLength64 {
                    let one = Expr::constant(Constant::Int(1), e.ty.clone(), span);
                    return bin(BinaryOp::Shl, e, one);
                }
                e
            }
            other => {
                let kind = self.children(other, pre);
                mk(kind, mapped, span)
            }
        }
    }

    /// A constant of a possibly symbolic type.
    fn constant(&mut self, c: Constant, ty: &Type, span: Span) -> Expr {
        let mapped = self.forms.map_type(ty);
        match (c, Type::vector_shape(ty)) {
            (Constant::Float(f), Some((ScalarType::Sfp | ScalarType::Lfp, 1))) => {
                // Through float32 and the ordinary encoding (a packed `sfp` constant is bits).
                let f32c = Expr::constant(
                    Constant::Float(f64::from(f as f32)),
                    Type::Scalar(ScalarType::F32),
                    span,
                );
                let mut pre = Vec::new();
                let e = self.convert_lowered(f32c, ScalarType::F32, ty, &mut pre);
                seq(pre, e)
            }
            (Constant::Float(f), Some((ScalarType::Afp, 1))) => {
                let s = mapped.as_scalar().unwrap_or(ScalarType::F32);
                Expr::constant(
                    Constant::Float(crate::sema::round_to_float(s, f)),
                    mapped,
                    span,
                )
            }
            _ => Expr::constant(c, mapped, span),
        }
    }

    /// `Convert(inner) : to` with symbolic types.
    fn convert(&mut self, inner: Expr, to: &Type, pre: &mut Vec<Stmt>) -> Expr {
        let from = inner.ty.clone();
        let (fs, ts) = (Type::vector_shape(&from), Type::vector_shape(to));
        // sfp → afp → sfp (or the same through lfp): a copy of the bits.
        if let (Some((ScalarType::Sfp, _)), ExprKind::Convert(x)) = (ts, &inner.kind) {
            if x.ty == *to {
                let x = (**x).clone();
                return self.expr(x, pre);
            }
        }
        // Between a packed `Vector<sfp,4>` and a packed `Vector<lfp,4>` of the same encoding
        // (through afp): the words move as they are.
        if let (Some((ScalarType::Sfp | ScalarType::Lfp, 4)), ExprKind::Convert(x)) =
            (ts, &inner.kind)
        {
            let pair = matches!(
                (Type::vector_shape(&x.ty), ts),
                (Some((ScalarType::Sfp, 4)), Some((ScalarType::Lfp, _)))
                    | (Some((ScalarType::Lfp, 4)), Some((ScalarType::Sfp, _)))
            );
            if pair && self.forms.same_packing() {
                let x = (**x).clone();
                return self.expr(x, pre);
            }
        }
        let Some((fs, _)) = fs else {
            let e = self.expr(inner, pre);
            return conv(e, &self.forms.map_type(to));
        };
        let x = self.expr(inner, pre);
        self.convert_lowered(x, fs, to, pre)
    }

    /// Converts the already lowered `x` (whose symbolic lane type was `fs`) to symbolic `to`.
    fn convert_lowered(&mut self, x: Expr, fs: ScalarType, to: &Type, pre: &mut Vec<Stmt>) -> Expr {
        let n = Type::vector_shape(to).map_or(1, |(_, n)| n);
        let ts = Type::vector_shape(to).map_or(ScalarType::F32, |(s, _)| s);
        let storage = self.forms.storage;
        // Decode `sfp` to float lanes first.
        let x = if fs == ScalarType::Sfp && ts != ScalarType::Sfp {
            self.b.decode(storage, x, n, pre)
        } else {
            x
        };
        // And a packed `Vector<lfp,4>` (its lanes are float32 then).
        let local4 = self.forms.local4.filter(|_| n == 4);
        let x = match local4 {
            Some(form) if fs == ScalarType::Lfp && ts != ScalarType::Lfp => {
                self.b.decode(form, x, n, pre)
            }
            _ => x,
        };
        if ts == ScalarType::Sfp && fs != ScalarType::Sfp {
            let native = self.forms.native();
            return self.b.encode(storage, native, x, n, pre);
        }
        if let Some(form) = local4.filter(|_| ts == ScalarType::Lfp && fs != ScalarType::Lfp) {
            return self.b.encode(form, ScalarType::F32, x, n, pre);
        }
        conv(x, &self.forms.map_type(to))
    }
}

impl Lower<'_, '_> {
    /// Whether `p` is one lane of a packed `Vector<lfp,4>` (a local or a shared element).
    fn lane_of_packed_local4(&self, p: &Place) -> bool {
        let Place::Lane { base, .. } = p else {
            return false;
        };
        let ty = match &**base {
            Place::Local(id) => self.b.locals.get(id.0).map(|l| l.ty.clone()),
            Place::Index { base, .. } => match &base.ty {
                Type::Shared(e) | Type::Buffer(e) => Some((**e).clone()),
                _ => None,
            },
            _ => None,
        };
        ty.is_some_and(|t| self.forms.packed_local4(&t).is_some())
    }
}

/// `pre` then `e` as one expression.
pub(super) fn seq(pre: Vec<Stmt>, e: Expr) -> Expr {
    if pre.is_empty() {
        return e;
    }
    let (ty, span) = (e.ty.clone(), e.span);
    mk(ExprKind::Sequence(pre, Box::new(e)), ty, span)
}

/// Whether `p` is one lane of an `sfp` vector buffer element (`buf[i].x = …`).
fn lane_of_sfp_vector(p: &Place) -> bool {
    match p {
        Place::Lane { base, .. } => matches!(
            &**base,
            Place::Index { base, .. } if matches!(&base.ty, Type::Buffer(e) if matches!(**e, Type::Vector(ScalarType::Sfp, _)))
        ),
        _ => false,
    }
}

impl super::rewrite::Rewrite for Lower<'_, '_> {
    fn expr(&mut self, e: Expr, pre: &mut Vec<Stmt>) -> Expr {
        Lower::expr(self, e, pre)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        Lower::stmt(self, s, out)
    }
}
