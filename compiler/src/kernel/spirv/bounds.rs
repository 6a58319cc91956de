//! Checked mode (`SpirvOptions::checked`, `cajetac run --checked`): every buffer element
//! (plain, `vload`/`vstore`, packed 8/16-bit lane, cooperative-matrix tile, through a
//! descriptor or a buffer address), shared-array element, storage-image texel and texture
//! `fetch` is bounds-checked (the access kinds beyond one element: `bounds_access.rs`).
//!
//! An access compares its index with the length (`OpArrayLength` for a buffer, the array
//! length for a shared array, `OpImageQuerySize` for an image). In bounds, the access runs as
//! usual; out of bounds, it is skipped (a read gives 0) and the `report` function records the
//! violation in an extra storage buffer the module declares after every parameter's binding:
//! the first violation wins an atomic compare-exchange on word 0 and writes the site id and
//! [`REPORT_VALUES`] words saying what was out of bounds (layout: `cajeta_runtime::BoundsCheck`;
//! what the words mean per kind: `cajeta_runtime::CheckSite::kind`). The reflection's
//! `bounds_check` lists the sites (resource, kind, source position) so the runtime binds its own
//! buffer and turns a recorded violation into an error after the submission completes.
//!
//! The access pointer is computed from the index when it is in bounds and from index 0
//! otherwise, so no out-of-bounds `OpAccessChain` is ever formed. The extents are queried once
//! per function, in its first block (`hoist.rs`). A read whose index 0 always exists (a texel,
//! a texture fetch, a shared-array element) runs unconditionally and is replaced by 0 when out
//! of bounds ([`FnCx::guarded_read`]); other accesses run behind a branch ([`FnCx::guarded`]).

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, FunctionControl, Op, StorageClass, Word};

use super::function::FnCx;
use super::{BuildExt, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::ScalarType;
use cajeta_runtime::reflection::{BoundsCheck, CheckSite};

/// The values `report` records after the site id.
pub(crate) const REPORT_VALUES: usize = cajeta_runtime::reflection::BoundsCheck::RECORD_WORDS - 3;

/// The values of the short `report`, which every single-element and texel site uses: the
/// record's other words stay zero. Fewer parameters and stores matter on llvmpipe, which runs
/// the report's code masked at every access (docs/PERFORMANCE.md, "Cost of checked mode").
const SHORT_VALUES: usize = 4;

/// One checked access, as the reflection will list it.
#[derive(Debug)]
struct Site {
    resource: String,
    kind: &'static str,
    signed: bool,
    shape: Vec<u32>,
    span: Span,
}

/// Checked mode's module state.
#[derive(Debug)]
pub(crate) struct BoundsState {
    /// The violation buffer's variable (`{ uint32[] }`).
    var: Word,
    /// Its binding number.
    binding: u32,
    /// The `report(site, values…)` functions, emitted last: with [`SHORT_VALUES`] and with
    /// [`REPORT_VALUES`] values, each with whether a site calls it.
    reports: [(Word, bool); 2],
    /// Sites so far.
    sites: Vec<Site>,
    /// The guard of the last element pointer formed, for the access that uses it.
    pending: Option<Guard>,
    /// The `Workgroup` arrival counter of each checked `Barrier.workgroup()`
    /// (`barrier_check.rs`), reset at the kernel's entry.
    pub(crate) barrier_counters: Vec<Word>,
}

/// What an access must check before it runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Guard {
    /// `bool`: the index is in bounds.
    pub(crate) ok: Word,
    /// The `report` arguments: the site id, then the values of its kind (for an element: the
    /// index's low and high word, the length's low and high word; for an image texel x, y,
    /// width, height), padded with zeros.
    pub(crate) args: [Word; 1 + REPORT_VALUES],
    /// How many of the values the report must record (the rest of `args` is zero).
    pub(crate) values: usize,
    /// Whether the access's safe operands (index 0 out of bounds) always read something in
    /// the resource, so a read may run unguarded ([`FnCx::guarded_read`]): true for a
    /// shared array, whose SPIR-V array type has at least one element, and not for a buffer,
    /// which may be empty.
    pub(crate) readable: bool,
}

impl Guard {
    /// A guard whose report carries `site` and `values` (the rest zero).
    pub(crate) fn new(cx: &mut Ctx, ok: Word, site: Word, values: &[Word]) -> Guard {
        let zero = cx.const_u32(0);
        let mut args = [zero; 1 + REPORT_VALUES];
        args[0] = site;
        args[1..=values.len()].copy_from_slice(values);
        Guard {
            ok,
            args,
            values: values.len(),
            readable: false,
        }
    }
}

/// The reflection entry of a checked module.
pub(crate) fn reflection(cx: &Ctx) -> Option<BoundsCheck> {
    let b = cx.bounds.as_ref()?;
    Some(BoundsCheck {
        binding: b.binding,
        sites: b
            .sites
            .iter()
            .map(|s| CheckSite {
                resource: s.resource.clone(),
                kind: s.kind.to_string(),
                signed: s.signed,
                shape: s.shape.clone(),
                position: String::new(),
                file: s.span.file as u32,
                offset: s.span.start,
            })
            .collect(),
    })
}

impl Ctx<'_> {
    /// Declares the violation buffer after the parameters' bindings (checked mode).
    pub(crate) fn declare_bounds(&mut self) {
        let uint = self.u32_type();
        let block = self.buffer_block_type(uint, 4);
        let var = self.global_variable(block, StorageClass::StorageBuffer, "bounds_violation");
        let binding = self.globals.resources.len() as u32;
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        let reports = [(self.b.id(), false), (self.b.id(), false)];
        self.bounds = Some(BoundsState {
            var,
            binding,
            reports,
            sites: Vec::new(),
            pending: None,
            barrier_counters: Vec::new(),
        });
    }

    /// Emits the `report` functions that sites call (checked mode; the short one always),
    /// once every access is lowered.
    pub(crate) fn emit_bounds_report(&mut self, span: Span) -> Res<()> {
        let Some((var, reports)) = self.bounds.as_ref().map(|b| (b.var, b.reports)) else {
            return Ok(());
        };
        let [(short, _), (long, long_used)] = reports;
        self.emit_report(var, (short, "bounds_report"), SHORT_VALUES, span)?;
        if long_used {
            self.emit_report(var, (long, "bounds_report_wide"), REPORT_VALUES, span)?;
        }
        Ok(())
    }

    /// Emits `report(site, v0 … v{values-1})`: the first violation writes the site id and
    /// the values to words 2.. of the record.
    fn emit_report(
        &mut self,
        var: Word,
        (report, name): (Word, &str),
        values: usize,
        span: Span,
    ) -> Res<()> {
        let void = self.void_type();
        let uint = self.u32_type();
        let bool_ty = self.bool_type();
        let fn_ty = self.function_type(void, &vec![uint; 1 + values]);
        self.b
            .begin_function(void, Some(report), FunctionControl::NONE, fn_ty)
            .ice(span)?;
        self.b.name(report, name);
        let params: Vec<Word> = (0..1 + values)
            .map(|_| self.b.function_parameter(uint))
            .collect::<Result<_, _>>()
            .ice(span)?;
        self.b.begin_block(None).ice(span)?;
        let ptr_ty = self.pointer_type(StorageClass::StorageBuffer, uint);
        let [zero, one, device] = [0, 1, super::memory::SCOPE_DEVICE].map(|v| self.const_u32(v));
        let word = |cx: &mut Self, i: u32| {
            let at = cx.const_u32(i);
            cx.b.access_chain(ptr_ty, None, var, [zero, at]).ice(span)
        };
        let flag = word(self, 0)?;
        let old = self
            .b
            .atomic_compare_exchange(uint, None, flag, device, zero, zero, one, zero)
            .ice(span)?;
        let count = word(self, 1)?;
        self.b
            .atomic_i_add(uint, None, count, device, zero, one)
            .ice(span)?;
        let first = self.b.i_equal(bool_ty, None, old, zero).ice(span)?;
        let (write, merge) = (self.b.id(), self.b.id());
        self.b
            .selection_merge(merge, rspirv::spirv::SelectionControl::NONE)
            .ice(span)?;
        self.b
            .branch_conditional(first, write, merge, [])
            .ice(span)?;
        self.b.begin_block(Some(write)).ice(span)?;
        for (i, p) in params.into_iter().enumerate() {
            let ptr = word(self, 2 + i as u32)?;
            self.b.store(ptr, p, None, []).ice(span)?;
        }
        self.b.branch(merge).ice(span)?;
        self.b.begin_block(Some(merge)).ice(span)?;
        self.b.ret().ice(span)?;
        self.b.end_function().ice(span)
    }
}

/// The type an index is checked and reported as: a signed index of at most 32 bits that sema
/// converted to `uint32` counts as signed, so that `-3` is reported as `-3`.
pub(crate) fn index_type(index: &crate::ir::Expr) -> Res<ScalarType> {
    let ty = super::expr::scalar_of(index)?;
    if let crate::ir::ExprKind::Convert(inner) = &index.kind {
        if let Some(s) = inner.ty.as_scalar() {
            if s.is_signed_integer() && s.bits() <= 32 && ty.bits() == 32 {
                return Ok(ScalarType::I32);
            }
        }
    }
    Ok(ty)
}

impl FnCx<'_, '_> {
    /// Whether the module is compiled in checked mode.
    pub(crate) fn checked(&self) -> bool {
        self.cx.bounds.is_some()
    }

    /// Makes `guard` the pending one (a buffer array's two checks merged into one).
    pub(crate) fn set_pending_guard(&mut self, guard: Guard) {
        if let Some(b) = self.cx.bounds.as_mut() {
            b.pending = Some(guard);
        }
    }

    /// The guard of the element pointer formed last (checked mode), for the access using it.
    pub(crate) fn take_guard(&mut self) -> Option<Guard> {
        self.cx.bounds.as_mut().and_then(|b| b.pending.take())
    }

    /// The low and high `uint32` words of index `i` of integer type `ty` as the report
    /// carries it: a signed index of at most 32 bits has its sign in the high word, so a
    /// negative one is never in bounds and is reported as such.
    pub(crate) fn index_words(&mut self, i: Word, ty: ScalarType, span: Span) -> Res<(Word, Word)> {
        let uint = self.cx.u32_type();
        if ty.bits() == 64 {
            let u64_ty = self.cx.int_type(64, false);
            let bits = match ty.is_signed_integer() {
                true => self.op(Op::Bitcast, u64_ty, &[i])?,
                false => i,
            };
            return self.split_u64(bits, span);
        }
        let lo = self.convert_int(i, ty, ScalarType::U32, span)?;
        let hi = if ty.is_signed_integer() {
            let int = self.cx.int_type(32, true);
            let s = self.op(Op::Bitcast, int, &[lo])?;
            let c31 = self.cx.const_int(ScalarType::I32, 31, span)?;
            let sign = self.op(Op::ShiftRightArithmetic, int, &[s, c31])?;
            self.op(Op::Bitcast, uint, &[sign])?
        } else {
            self.cx.const_u32(0)
        };
        Ok((lo, hi))
    }

    /// The low and high `uint32` words of a `uint64`.
    pub(crate) fn split_u64(&mut self, v: Word, span: Span) -> Res<(Word, Word)> {
        let uint = self.cx.u32_type();
        let u64_ty = self.cx.int_type(64, false);
        let lo = self.op(Op::UConvert, uint, &[v])?;
        let c32 = self.cx.const_int(ScalarType::U64, 32, span)?;
        let high = self.op(Op::ShiftRightLogical, u64_ty, &[v, c32])?;
        Ok((lo, self.op(Op::UConvert, uint, &[high])?))
    }

    /// Whether index `i` (of integer type `ty`) is below the `uint32` `limit`, compared as
    /// its 64-bit value (a negative signed index is not): `(ok, low word, high word)`.
    pub(crate) fn index_below(
        &mut self,
        i: Word,
        ty: ScalarType,
        limit: Word,
        span: Span,
    ) -> Res<(Word, Word, Word)> {
        let bool_ty = self.cx.bool_type();
        let (lo, hi) = self.index_words(i, ty, span)?;
        let below = self.op(Op::ULessThan, bool_ty, &[lo, limit])?;
        if ty.bits() < 64 && !ty.is_signed_integer() {
            return Ok((below, lo, hi));
        }
        let zero = self.cx.const_u32(0);
        let high_zero = self.op(Op::IEqual, bool_ty, &[hi, zero])?;
        let ok = self.op(Op::LogicalAnd, bool_ty, &[below, high_zero])?;
        Ok((ok, lo, hi))
    }

    /// Checks index `i` (of integer type `ty`) against the `uint32` length `len` of
    /// `resource`; returns the index to form the pointer with (0 when out of bounds) and
    /// leaves the guard for [`Self::take_guard`]. Outside checked mode returns `i` as is.
    pub(crate) fn check_index(
        &mut self,
        i: Word,
        ty: ScalarType,
        len: Word,
        resource: &str,
        kind: &'static str,
        span: Span,
    ) -> Res<Word> {
        // Proven in bounds before the loop this copy of it runs in (`loop_ranges.rs`).
        if self.is_proven(kind, span) {
            return Ok(i);
        }
        self.check_index_per(i, ty, len, (resource, kind, &[]), 1, span)
    }

    /// [`Self::check_index`] for an access of the `per` elements `per*i .. per*i+per-1`
    /// (`vload`/`vstore`): `i` is in bounds when `i < len / per`, which cannot overflow. The
    /// site is `(resource, kind, shape)`; the report carries `i` and `len`.
    pub(crate) fn check_index_per(
        &mut self,
        i: Word,
        ty: ScalarType,
        len: Word,
        site: (&str, &'static str, &[u32]),
        per: u32,
        span: Span,
    ) -> Res<Word> {
        if !self.checked() {
            return Ok(i);
        }
        let uint = self.cx.u32_type();
        let zero = self.cx.const_u32(0);
        let limit = match per {
            1 => len,
            _ => {
                let per = self.cx.const_u32(per);
                self.op(Op::UDiv, uint, &[len, per])?
            }
        };
        let (ok, lo, hi) = self.index_below(i, ty, limit, span)?;
        let site = self.new_site(site, ty.is_signed_integer(), span);
        let safe = self.op(Op::Select, uint, &[ok, lo, zero])?;
        let guard = Guard::new(self.cx, ok, site, &[lo, hi, len, zero]);
        self.set_pending_guard(guard);
        Ok(safe)
    }

    /// [`Self::check_index`] against the `uint64` length `len` of an addressed buffer: the
    /// index (of integer type `ty`, sign-extended when signed, so a negative one is out of
    /// bounds) is compared in 64 bits and returned as a `uint64` (0 when out of bounds).
    pub(crate) fn check_index_wide(
        &mut self,
        i: Word,
        ty: ScalarType,
        len: Word,
        resource: &str,
        span: Span,
    ) -> Res<Word> {
        self.check_index_wide_per(i, ty, len, (resource, "buffer", &[]), 1, span)
    }

    /// [`Self::check_index_per`] against the `uint64` length of an addressed buffer.
    pub(crate) fn check_index_wide_per(
        &mut self,
        i: Word,
        ty: ScalarType,
        len: Word,
        site: (&str, &'static str, &[u32]),
        per: u32,
        span: Span,
    ) -> Res<Word> {
        let u64_ty = self.cx.int_type(64, false);
        let bool_ty = self.cx.bool_type();
        let wide = self.widen_index(i, ty, span)?;
        let limit = match per {
            1 => len,
            _ => {
                let per = self.cx.const_int(ScalarType::U64, i128::from(per), span)?;
                self.op(Op::UDiv, u64_ty, &[len, per])?
            }
        };
        let ok = self.op(Op::ULessThan, bool_ty, &[wide, limit])?;
        let zero64 = self.cx.const_int(ScalarType::U64, 0, span)?;
        let safe = self.op(Op::Select, u64_ty, &[ok, wide, zero64])?;
        let (lo, hi) = self.split_u64(wide, span)?;
        let (len_lo, len_hi) = self.split_u64(len, span)?;
        let site = self.new_site(site, ty.is_signed_integer(), span);
        let guard = Guard::new(self.cx, ok, site, &[lo, hi, len_lo, len_hi]);
        self.set_pending_guard(guard);
        Ok(safe)
    }

    /// Index `i` of integer type `ty` as a `uint64`, sign-extended when signed (as
    /// `buffer_element_pointer` widens an addressed buffer's index).
    pub(crate) fn widen_index(&mut self, i: Word, ty: ScalarType, span: Span) -> Res<Word> {
        let u64_ty = self.cx.int_type(64, false);
        Ok(match (ty.bits(), ty.is_signed_integer()) {
            (64, true) => self.op(Op::Bitcast, u64_ty, &[i])?,
            (64, false) => i,
            (_, true) => {
                let i64_ty = self.cx.int_type(64, true);
                let narrow = self.convert_int(i, ty, ScalarType::I32, span)?;
                let s = self.op(Op::SConvert, i64_ty, &[narrow])?;
                self.op(Op::Bitcast, u64_ty, &[s])?
            }
            (_, false) => {
                let narrow = self.convert_int(i, ty, ScalarType::U32, span)?;
                self.op(Op::UConvert, u64_ty, &[narrow])?
            }
        })
    }

    /// Checks a storage-image coordinate (`v2int` or `v2uint`) against the image's size;
    /// returns the coordinate to access with (`(0, 0)` when out of bounds) and the guard.
    /// `image` is the hoisted image object (`hoist.rs`): its size is queried once.
    pub(crate) fn check_texel(
        &mut self,
        image: Word,
        coord: Word,
        signed: bool,
        resource: &str,
        span: Span,
    ) -> Res<(Word, Option<Guard>)> {
        if !self.checked() || self.is_proven("image", span) {
            return Ok((coord, None));
        }
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let uv2 = self.cx.vector_type(uint, 2);
        let bv2 = self.cx.vector_type(bool_ty, 2);
        self.cx
            .features
            .require(rspirv::spirv::Capability::ImageQuery);
        let size = self.hoisted(Op::ImageQuerySize, uv2, &[Operand::IdRef(image)])?;
        let c = self.op(Op::Bitcast, uv2, &[coord])?;
        let inside = self.op(Op::ULessThan, bv2, &[c, size])?;
        let ok = self.op(Op::All, bool_ty, &[inside])?;
        let zero = self.cx.const_u32(0);
        let zeros = self.cx.const_composite(uv2, vec![zero, zero]);
        // Before SPIR-V 1.4 a vector `OpSelect` needs a vector condition.
        let okv = self.op(Op::CompositeConstruct, bv2, &[ok, ok])?;
        let safe = self.op(Op::Select, uv2, &[okv, c, zeros])?;
        // `coordinate` makes a `v2int` exactly when both operands are int32.
        let safe = if signed {
            let int = self.cx.int_type(32, true);
            let iv2 = self.cx.vector_type(int, 2);
            self.op(Op::Bitcast, iv2, &[safe])?
        } else {
            safe
        };
        let mut part = |v: Word, lane: u32| -> Res<Word> {
            self.cx.b.composite_extract(uint, None, v, [lane]).ice(span)
        };
        let (x, y, w, h) = (part(c, 0)?, part(c, 1)?, part(size, 0)?, part(size, 1)?);
        let site = self.new_site((resource, "image", &[]), signed, span);
        Ok((safe, Some(Guard::new(self.cx, ok, site, &[x, y, w, h]))))
    }

    /// Registers a site `(resource, kind, shape)` and returns its id as a `uint32` constant.
    pub(crate) fn new_site(
        &mut self,
        (resource, kind, shape): (&str, &'static str, &[u32]),
        signed: bool,
        span: Span,
    ) -> Word {
        let id = match self.cx.bounds.as_mut() {
            Some(b) => {
                b.sites.push(Site {
                    resource: resource.to_string(),
                    kind,
                    signed,
                    shape: shape.to_vec(),
                    span,
                });
                b.sites.len() - 1
            }
            None => 0,
        };
        self.cx.const_u32(id as u32)
    }

    /// The `report` function `g` calls (the short or the wide one), marked as used, and the
    /// number of its arguments; `None` outside checked mode.
    fn report_of(&mut self, g: &Guard) -> Option<(Word, usize)> {
        let long = g.values > SHORT_VALUES;
        let r = &mut self.cx.bounds.as_mut()?.reports[usize::from(long)];
        r.1 = true;
        Some((r.0, 1 + if long { REPORT_VALUES } else { SHORT_VALUES }))
    }

    /// Runs `access` only when `guard` holds (always without a guard); out of bounds it calls
    /// `report` instead and the result (of type `ty`, if any) is 0.
    pub(crate) fn guarded(
        &mut self,
        guard: Option<Guard>,
        ty: Option<Word>,
        access: impl FnOnce(&mut Self) -> Res<Word>,
    ) -> Res<Word> {
        let Some(g) = guard else {
            return access(self);
        };
        let Some((report, n)) = self.report_of(&g) else {
            return access(self);
        };
        let [inside, outside, merge] = [(); 3].map(|_| self.cx.b.id());
        self.selection(g.ok, inside, outside, merge)?;
        self.begin(inside)?;
        let v = access(self)?;
        let from_inside = self.current_label()?;
        self.branch(merge)?;
        self.begin(outside)?;
        let span = self.func.span;
        self.call_report(report, &g.args[..n], span)?;
        self.branch(merge)?;
        self.begin(merge)?;
        match ty {
            Some(ty) => {
                let null = self.cx.b.constant_null(ty);
                self.cx
                    .b
                    .phi(ty, None, [(v, from_inside), (null, outside)])
                    .ice(span)
            }
            None => Ok(0),
        }
    }

    /// The call of a launch's `report` function with a guard's arguments (the branch it
    /// sits in is the caller's).
    fn call_report(&mut self, report: Word, args: &[Word], span: Span) -> Res<()> {
        let void = self.cx.void_type();
        self.cx
            .b
            .function_call(void, None, report, args.iter().copied())
            .ice(span)?;
        Ok(())
    }

    /// A read of type `ty` that runs whether or not `guard` holds: for a texel or texture
    /// fetch, whose checked coordinates are (0, …) out of bounds and whose resource has at
    /// least one texel there, and a shared-array element ([`Guard::readable`]), so the read
    /// itself is always in bounds. Out of bounds the result
    /// is 0 and `report` is called, in a branch of its own that nothing else depends on: the
    /// read is not behind a branch, so the GPU's compiler can issue it early (the loads of a
    /// stencil loop, one after another) as it does unchecked.
    pub(crate) fn guarded_read(
        &mut self,
        guard: Option<Guard>,
        ty: Word,
        read: impl FnOnce(&mut Self) -> Res<Word>,
    ) -> Res<Word> {
        let v = read(self)?;
        let Some(g) = guard else {
            return Ok(v);
        };
        let Some((report, n)) = self.report_of(&g) else {
            return Ok(v);
        };
        let before = self.current_label()?;
        let [outside, merge] = [(); 2].map(|_| self.cx.b.id());
        self.selection(g.ok, merge, outside, merge)?;
        self.begin(outside)?;
        let span = self.func.span;
        self.call_report(report, &g.args[..n], span)?;
        self.branch(merge)?;
        self.begin(merge)?;
        let null = self.cx.b.constant_null(ty);
        self.cx
            .b
            .phi(ty, None, [(v, before), (null, outside)])
            .ice(span)
    }
}
