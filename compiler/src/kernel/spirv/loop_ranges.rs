//! Checked mode's loop versioning, emitted (the analysis: `loop_checks.rs`).
//!
//! Before a loop with a [`Plan`], the ends of each planned access's index range are computed
//! (interval arithmetic over [`Sym`], together with the conditions under which no operation
//! wrapped around), and the loop is lowered twice behind one branch: a copy in which the
//! proven accesses have no check, taken when every range is inside its resource, and the
//! usual copy with every check. The test runs once per loop entry instead of once per access.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, GlslStd450Op as G, Op, Word};

use super::function::FnCx;
use super::loop_checks::{plan, Access, Counter, Plan, Step, Sym, SymKind};
use super::module::ResourceKind;
use super::{BuildExt, Res};
use crate::diagnostics::Span;
use crate::ir::{Block, Expr, ExprKind, LoopId, Place, ScalarType, TextureDim, Type};

/// An access's check as `FnCx::is_proven` matches it: site kind and span.
type ProvenKey = (&'static str, Span);

/// How deep versioned loops nest.
const MAX_DEPTH: u8 = 2;

/// The ends of an index range, in the index's type.
#[derive(Clone, Copy)]
struct Range {
    lo: Word,
    hi: Word,
}

impl FnCx<'_, '_> {
    /// Lowers a loop; in checked mode, versioned when its checks can be tested before it.
    pub(crate) fn lower_loop_checked(
        &mut self,
        id: LoopId,
        pre_cond: Option<&Expr>,
        body: &Block,
        continuing: &Block,
        post_cond: Option<&Expr>,
    ) -> Res<()> {
        // At most two levels of copies (a 2-D stencil's two loops; four copies of the inner
        // one): a loop inside those is lowered as it is.
        let copy = self.checked() && self.versioning < MAX_DEPTH;
        let found = copy
            .then(|| plan(id, pre_cond, body, continuing, post_cond))
            .flatten();
        let Some(p) = found else {
            return self.lower_loop(id, pre_cond, body, continuing, post_cond);
        };
        let Some((fast, proven)) = self.plan_test(&p)? else {
            return self.lower_loop(id, pre_cond, body, continuing, post_cond);
        };
        let [fast_label, checked_label, merge] = [(); 3].map(|_| self.cx.b.id());
        self.selection(fast, fast_label, checked_label, merge)?;
        self.versioning += 1;
        self.begin(fast_label)?;
        // What an enclosing loop's test proved stays proven.
        let outer_len = self.proven.len();
        self.proven.extend(proven);
        let lowered = self.lower_loop(id, pre_cond, body, continuing, post_cond);
        self.proven.truncate(outer_len);
        lowered?;
        self.branch(merge)?;
        self.begin(checked_label)?;
        self.lower_loop(id, pre_cond, body, continuing, post_cond)?;
        self.branch(merge)?;
        self.versioning -= 1;
        self.begin(merge)
    }

    /// Whether the access with site `kind` at `span` is proven in bounds (its check skipped).
    pub(crate) fn is_proven(&self, kind: &str, span: Span) -> bool {
        self.proven.iter().any(|&(k, s)| k == kind && s == span)
    }

    /// Emits the test of every planned access that can be tested: the `bool` that holds
    /// when all are in bounds, and their (site kind, span); `None` when none can (then
    /// nothing is emitted in the current block).
    fn plan_test(&mut self, p: &Plan) -> Res<Option<(Word, Vec<ProvenKey>)>> {
        let mut testable = Vec::new();
        for a in &p.accesses {
            // Proven by an enclosing loop's test already.
            let (kind, span) = a.key();
            if self.is_proven(kind, span) {
                continue;
            }
            if let Some(extent) = self.extent_of(a)? {
                testable.push((a, extent));
            }
        }
        if testable.is_empty() {
            return Ok(None);
        }
        let bool_ty = self.cx.bool_type();
        let mut conds = Vec::new();
        let counter = self.counter_range(&p.counter, &mut conds)?;
        let mut proven = Vec::new();
        for (a, extent) in testable {
            match a {
                Access::Element { index, .. } => {
                    let r = self.sym_range(index, counter, &mut conds)?;
                    conds.push(self.op(Op::ULessThan, bool_ty, &[r.hi, extent])?);
                }
                Access::Texel { coords, .. } => {
                    self.coords_inside(coords, extent, 2, counter, &mut conds)?;
                }
                Access::Fetch { coords, .. } => {
                    let n = coords.len();
                    self.coords_inside(coords, extent, n, counter, &mut conds)?;
                }
            }
            proven.push(a.key());
        }
        let mut all = conds[0];
        for &c in &conds[1..] {
            all = self.op(Op::LogicalAnd, bool_ty, &[all, c])?;
        }
        Ok(Some((all, proven)))
    }

    /// The extent the access's check compares with, hoisted (`hoist.rs`), when the loop's
    /// test can stand for that check: a buffer's or shared array's length (a `uint32` index),
    /// an image's or a level-0 texture's size (`uint32` lanes, one per coordinate).
    fn extent_of(&mut self, a: &Access) -> Res<Option<Word>> {
        match a {
            Access::Element {
                kind, base, index, ..
            } => {
                if index.ty != ScalarType::U32 {
                    return Ok(None);
                }
                self.element_length(kind, base)
            }
            Access::Texel { img, .. } => {
                let Ok((var, ResourceKind::Image { image, .. })) = self.resource_of(img) else {
                    return Ok(None);
                };
                let image = self.hoisted_image(var, image)?;
                let uint = self.cx.u32_type();
                let uv2 = self.cx.vector_type(uint, 2);
                self.cx.features.require(Capability::ImageQuery);
                let at = [Operand::IdRef(image)];
                Ok(Some(self.hoisted(Op::ImageQuerySize, uv2, &at)?))
            }
            Access::Fetch { tex, coords, .. } => {
                let Ok((var, ResourceKind::Texture { dim, image, .. })) = self.resource_of(tex)
                else {
                    return Ok(None);
                };
                let n = dim.fetch_count();
                if n == 0 || n != coords.len() || dim == TextureDim::D2Array {
                    return Ok(None);
                }
                let image = self.hoisted_image(var, image)?;
                let uint = self.cx.u32_type();
                let size_ty = match n {
                    1 => uint,
                    _ => self.cx.vector_type(uint, n as u32),
                };
                self.cx.features.require(Capability::ImageQuery);
                let zero = self.cx.const_u32(0);
                let at = [Operand::IdRef(image), Operand::IdRef(zero)];
                Ok(Some(self.hoisted(Op::ImageQuerySizeLod, size_ty, &at)?))
            }
        }
    }

    /// The length a buffer or shared-array element access is checked against, when the
    /// check is [`Self::check_index`]'s (a buffer through its descriptor, not an array of
    /// buffers nor an addressed one).
    fn element_length(&mut self, kind: &str, base: &Expr) -> Res<Option<Word>> {
        if kind == "shared" {
            return Ok(self.shared_of(base).ok().map(|a| a.len));
        }
        if super::buffer_array::array_element(base).is_some() {
            return Ok(None);
        }
        // A resource the loop's own lowering cannot resolve keeps its check (and fails there).
        match self.resource_of(base).ok() {
            Some((var, ResourceKind::Buffer { address: None, .. })) => {
                Ok(Some(self.hoisted_array_length(var)?))
            }
            _ => Ok(None),
        }
    }

    /// Conditions for texel coordinates `coords` (each `int32` or `uint32`, compared as
    /// `uint32` bits) to be below the matching lane of `size` (`n` lanes).
    fn coords_inside(
        &mut self,
        coords: &[Sym],
        size: Word,
        n: usize,
        counter: Range,
        conds: &mut Vec<Word>,
    ) -> Res<()> {
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        for (k, c) in coords.iter().enumerate() {
            let r = self.sym_range(c, counter, conds)?;
            let hi = match c.ty {
                ScalarType::I32 => {
                    let zero = self.cx.const_int(ScalarType::I32, 0, self.func.span)?;
                    conds.push(self.op(Op::SGreaterThanEqual, bool_ty, &[r.lo, zero])?);
                    self.op(Op::Bitcast, uint, &[r.hi])?
                }
                _ => r.hi,
            };
            let s = match n {
                1 => size,
                _ => self
                    .cx
                    .b
                    .composite_extract(uint, None, size, [k as u32])
                    .ice(self.func.span)?,
            };
            conds.push(self.op(Op::ULessThan, bool_ty, &[hi, s])?);
        }
        Ok(())
    }

    /// The counter's range over the iterations that run the body: from its value on entry
    /// to `bound - 1` (`bound` for `<=`), when the loop runs at all and its update cannot
    /// wrap around (conditions pushed to `conds`).
    fn counter_range(&mut self, c: &Counter, conds: &mut Vec<Word>) -> Res<Range> {
        let span = self.func.span;
        let bool_ty = self.cx.bool_type();
        let ty = self.cx.value_type(c.ty, span)?;
        let signed = c.ty == ScalarType::I32;
        let load = Expr {
            kind: ExprKind::Load(Place::Local(c.local)),
            ty: Type::Scalar(c.ty),
            span: c.span,
        };
        let lo = self.expr(&load)?;
        let bound = self.expr(c.bound)?;
        let (lt, le) = match signed {
            true => (Op::SLessThan, Op::SLessThanEqual),
            false => (Op::ULessThan, Op::ULessThanEqual),
        };
        let hi = if c.inclusive {
            conds.push(self.op(le, bool_ty, &[lo, bound])?);
            bound
        } else {
            conds.push(self.op(lt, bool_ty, &[lo, bound])?);
            let one = self.cx.const_int(c.ty, 1, span)?;
            self.op(Op::ISub, ty, &[bound, one])?
        };
        let max = if signed {
            i32::MAX as i128
        } else {
            u32::MAX as i128
        };
        let last = match c.step {
            Step::Const(step) => self.cx.const_int(c.ty, max - i128::from(step), span)?,
            Step::Invariant(e) => {
                // A step of at least 1 (0 would not advance, a negative one go back).
                let step = self.expr(e)?;
                let zero = self.cx.const_int(c.ty, 0, span)?;
                conds.push(self.op(lt, bool_ty, &[zero, step])?);
                let max = self.cx.const_int(c.ty, max, span)?;
                self.op(Op::ISub, ty, &[max, step])?
            }
        };
        // The last value plus the step does not wrap around to an earlier value.
        conds.push(self.op(le, bool_ty, &[hi, last])?);
        Ok(Range { lo, hi })
    }

    /// The range of `s` over the loop, pushing the conditions under which it holds (no
    /// operation wrapped around, clamps well-formed) to `conds`.
    fn sym_range(&mut self, s: &Sym, counter: Range, conds: &mut Vec<Word>) -> Res<Range> {
        let span = self.func.span;
        let bool_ty = self.cx.bool_type();
        let ty = self.cx.value_type(s.ty, span)?;
        let signed = s.ty == ScalarType::I32;
        let konst = |f: &mut Self, v: i128| f.cx.const_int(s.ty, v, span);
        let (lt, le) = match signed {
            true => (Op::SLessThan, Op::SLessThanEqual),
            false => (Op::ULessThan, Op::ULessThanEqual),
        };
        Ok(match &s.kind {
            SymKind::Counter => counter,
            SymKind::Invariant(e) => {
                let v = self.expr(e)?;
                Range { lo: v, hi: v }
            }
            SymKind::Add(a, b) | SymKind::Sub(a, b) => {
                let add = matches!(s.kind, SymKind::Add(..));
                let ra = self.sym_range(a, counter, conds)?;
                let rb = self.sym_range(b, counter, conds)?;
                let (op, lo_b, hi_b) = match add {
                    true => (Op::IAdd, rb.lo, rb.hi),
                    false => (Op::ISub, rb.hi, rb.lo),
                };
                let lo = self.op(op, ty, &[ra.lo, lo_b])?;
                let hi = self.op(op, ty, &[ra.hi, hi_b])?;
                for (r, x, y) in [(lo, ra.lo, lo_b), (hi, ra.hi, hi_b)] {
                    conds.push(self.no_wrap(add, signed, r, x, y)?);
                }
                Range { lo, hi }
            }
            SymKind::Mul(a, c) => {
                let ra = self.sym_range(a, counter, conds)?;
                let c = self.expr(c)?;
                let zero = konst(self, 0)?;
                let one = konst(self, 1)?;
                // c >= 0 keeps the order; the ends must not overflow (c = 0 divides by 1).
                let positive = self.op(lt, bool_ty, &[zero, c])?;
                let divisor = self.op(Op::Select, ty, &[positive, c, one])?;
                let div = if signed { Op::SDiv } else { Op::UDiv };
                if signed {
                    conds.push(self.op(Op::SGreaterThanEqual, bool_ty, &[c, zero])?);
                    let min = konst(self, i32::MIN as i128)?;
                    let least = self.op(div, ty, &[min, divisor])?;
                    conds.push(self.op(le, bool_ty, &[least, ra.lo])?);
                }
                let max = konst(
                    self,
                    if signed {
                        i32::MAX.into()
                    } else {
                        u32::MAX.into()
                    },
                )?;
                let most = self.op(div, ty, &[max, divisor])?;
                conds.push(self.op(le, bool_ty, &[ra.hi, most])?);
                let lo = self.op(Op::IMul, ty, &[ra.lo, c])?;
                let hi = self.op(Op::IMul, ty, &[ra.hi, c])?;
                Range { lo, hi }
            }
            SymKind::Cast(a) => {
                let ra = self.sym_range(a, counter, conds)?;
                // The bits are kept: the range is the same when no end crosses the sign.
                let cond = match a.ty {
                    ScalarType::I32 => {
                        let zero = self.cx.const_int(ScalarType::I32, 0, span)?;
                        self.op(Op::SGreaterThanEqual, bool_ty, &[ra.lo, zero])?
                    }
                    _ => {
                        let top = self.cx.const_u32(i32::MAX as u32);
                        self.op(Op::ULessThanEqual, bool_ty, &[ra.hi, top])?
                    }
                };
                conds.push(cond);
                let lo = self.op(Op::Bitcast, ty, &[ra.lo])?;
                let hi = self.op(Op::Bitcast, ty, &[ra.hi])?;
                Range { lo, hi }
            }
            SymKind::Clamp(a, lo_e, hi_e) => {
                let ra = self.sym_range(a, counter, conds)?;
                let (l, h) = (self.expr(lo_e)?, self.expr(hi_e)?);
                // GLSL's clamp is undefined when lo > hi; otherwise it is monotone.
                conds.push(self.op(le, bool_ty, &[l, h])?);
                let inst = if signed { G::SClamp } else { G::UClamp };
                let lo = self.ext(ty, inst, &[ra.lo, l, h])?;
                let hi = self.ext(ty, inst, &[ra.hi, l, h])?;
                Range { lo, hi }
            }
            SymKind::MinMax(a, c, max) => {
                let ra = self.sym_range(a, counter, conds)?;
                let c = self.expr(c)?;
                let inst = match (signed, max) {
                    (true, true) => G::SMax,
                    (true, false) => G::SMin,
                    (false, true) => G::UMax,
                    (false, false) => G::UMin,
                };
                let lo = self.ext(ty, inst, &[ra.lo, c])?;
                let hi = self.ext(ty, inst, &[ra.hi, c])?;
                Range { lo, hi }
            }
            SymKind::Mask(m) => Range {
                lo: konst(self, 0)?,
                hi: konst(self, i128::from(*m))?,
            },
            SymKind::Rem(n) => {
                let n = self.expr(n)?;
                let zero = konst(self, 0)?;
                let one = konst(self, 1)?;
                conds.push(self.op(Op::INotEqual, bool_ty, &[n, zero])?);
                let hi = self.op(Op::ISub, ty, &[n, one])?;
                Range { lo: zero, hi }
            }
        })
    }

    /// Whether `r = x + y` (`add`) or `r = x - y` did not wrap around, in the signedness given.
    fn no_wrap(&mut self, add: bool, signed: bool, r: Word, x: Word, y: Word) -> Res<Word> {
        let bool_ty = self.cx.bool_type();
        if !signed {
            // Unsigned: a sum is at least its operand, a difference at most its minuend.
            let op = if add {
                Op::UGreaterThanEqual
            } else {
                Op::ULessThanEqual
            };
            return self.op(op, bool_ty, &[r, x]);
        }
        // Signed: the result moved from `x` in the direction of `y`'s sign.
        let zero = self.cx.const_int(ScalarType::I32, 0, self.func.span)?;
        let y_nonneg = self.op(Op::SGreaterThanEqual, bool_ty, &[y, zero])?;
        let op = if add {
            Op::SGreaterThanEqual
        } else {
            Op::SLessThanEqual
        };
        let moved = self.op(op, bool_ty, &[r, x])?;
        self.op(Op::LogicalEqual, bool_ty, &[y_nonneg, moved])
    }

    /// A GLSL.std.450 instruction.
    fn ext(&mut self, ty: Word, inst: G, args: &[Word]) -> Res<Word> {
        let set = self.cx.glsl();
        let operands = args.iter().map(|&v| Operand::IdRef(v)).collect::<Vec<_>>();
        self.cx
            .b
            .ext_inst(ty, None, set, inst as u32, operands)
            .ice(self.func.span)
    }
}
