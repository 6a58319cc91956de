//! Checked mode (`SpirvOptions::checked`, `cajetac run --checked`): every buffer element,
//! shared-array element and storage-image texel access is bounds-checked.
//!
//! An access compares its index with the length (`OpArrayLength` for a buffer, the array
//! length for a shared array, `OpImageQuerySize` for an image). In bounds, the access runs as
//! usual; out of bounds, it is skipped (a read gives 0) and the `report` function records the
//! violation in an extra storage buffer the module declares after every parameter's binding:
//! the first violation wins an atomic compare-exchange on word 0 and writes the site id, the
//! index and the length (layout: `cajeta_runtime::BoundsCheck`). The reflection's
//! `bounds_check` lists the sites (resource, kind, source position) so the runtime binds its own
//! buffer and turns a recorded violation into an error after the submission completes.
//!
//! The access pointer is computed from the index when it is in bounds and from index 0
//! otherwise, so no out-of-bounds `OpAccessChain` is ever formed.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, FunctionControl, Op, StorageClass, Word};

use super::function::FnCx;
use super::{BuildExt, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::ScalarType;
use cajeta_runtime::reflection::{BoundsCheck, CheckSite};

/// Checked mode's module state.
#[derive(Debug)]
pub(crate) struct BoundsState {
    /// The violation buffer's variable (`{ uint32[] }`).
    var: Word,
    /// Its binding number.
    binding: u32,
    /// The `report(site, index_lo, index_hi, len_x, len_y)` function, emitted last.
    report: Word,
    /// Sites so far: resource name, kind, signedness of the index, source span.
    sites: Vec<(String, &'static str, bool, Span)>,
    /// The guard of the last element pointer formed, for the access that uses it.
    pending: Option<Guard>,
}

/// What an access must check before it runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Guard {
    /// `bool`: the index is in bounds.
    pub(crate) ok: Word,
    /// The `report` arguments: site id, index (low, high word; x, y for images), length
    /// (length, 0; width, height for images).
    pub(crate) args: [Word; 5],
}

/// The reflection entry of a checked module.
pub(crate) fn reflection(cx: &Ctx) -> Option<BoundsCheck> {
    let b = cx.bounds.as_ref()?;
    Some(BoundsCheck {
        binding: b.binding,
        sites: b
            .sites
            .iter()
            .map(|(resource, kind, signed, span)| CheckSite {
                resource: resource.clone(),
                kind: (*kind).to_string(),
                signed: *signed,
                position: String::new(),
                file: span.file as u32,
                offset: span.start,
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
        let report = self.b.id();
        self.bounds = Some(BoundsState {
            var,
            binding,
            report,
            sites: Vec::new(),
            pending: None,
        });
    }

    /// Emits the `report` function (checked mode), once every access is lowered.
    pub(crate) fn emit_bounds_report(&mut self, span: Span) -> Res<()> {
        let Some((var, report)) = self.bounds.as_ref().map(|b| (b.var, b.report)) else {
            return Ok(());
        };
        let void = self.void_type();
        let uint = self.u32_type();
        let bool_ty = self.bool_type();
        let fn_ty = self.function_type(void, &[uint; 5]);
        self.b
            .begin_function(void, Some(report), FunctionControl::NONE, fn_ty)
            .ice(span)?;
        self.b.name(report, "bounds_report");
        let params: Vec<Word> = (0..5)
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
        if !self.checked() {
            return Ok(i);
        }
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let (lo, hi) = if ty.bits() == 64 {
            let u64_ty = self.cx.int_type(64, false);
            let bits = match ty.is_signed_integer() {
                true => self.op(Op::Bitcast, u64_ty, &[i])?,
                false => i,
            };
            let lo = self.op(Op::UConvert, uint, &[bits])?;
            let c32 = self.cx.const_int(ScalarType::U64, 32, span)?;
            let high = self.op(Op::ShiftRightLogical, u64_ty, &[bits, c32])?;
            (lo, self.op(Op::UConvert, uint, &[high])?)
        } else {
            let lo = self.convert_int(i, ty, ScalarType::U32, span)?;
            let hi = if ty.is_signed_integer() {
                // The sign word: a negative index is reported as such.
                let int = self.cx.int_type(32, true);
                let s = self.op(Op::Bitcast, int, &[lo])?;
                let c31 = self.cx.const_int(ScalarType::I32, 31, span)?;
                let sign = self.op(Op::ShiftRightArithmetic, int, &[s, c31])?;
                self.op(Op::Bitcast, uint, &[sign])?
            } else {
                self.cx.const_u32(0)
            };
            (lo, hi)
        };
        let zero = self.cx.const_u32(0);
        let below = self.op(Op::ULessThan, bool_ty, &[lo, len])?;
        let high_zero = self.op(Op::IEqual, bool_ty, &[hi, zero])?;
        let ok = self.op(Op::LogicalAnd, bool_ty, &[below, high_zero])?;
        let site = self.new_site(resource, kind, ty.is_signed_integer(), span);
        let safe = self.op(Op::Select, uint, &[ok, lo, zero])?;
        if let Some(b) = self.cx.bounds.as_mut() {
            b.pending = Some(Guard {
                ok,
                args: [site, lo, hi, len, zero],
            });
        }
        Ok(safe)
    }

    /// [`Self::check_index`] against the `uint64` length `len` of an addressed buffer: the
    /// index (of integer type `ty`, sign-extended when signed, so a negative one is out of
    /// bounds) is compared in 64 bits and returned as a `uint64` (0 when out of bounds). The
    /// report carries the length saturated to 32 bits.
    pub(crate) fn check_index_wide(
        &mut self,
        i: Word,
        ty: ScalarType,
        len: Word,
        resource: &str,
        span: Span,
    ) -> Res<Word> {
        let uint = self.cx.u32_type();
        let u64_ty = self.cx.int_type(64, false);
        let bool_ty = self.cx.bool_type();
        let wide = match (ty.bits(), ty.is_signed_integer()) {
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
        };
        let ok = self.op(Op::ULessThan, bool_ty, &[wide, len])?;
        let zero64 = self.cx.const_int(ScalarType::U64, 0, span)?;
        let safe = self.op(Op::Select, u64_ty, &[ok, wide, zero64])?;
        let lo = self.op(Op::UConvert, uint, &[wide])?;
        let c32 = self.cx.const_int(ScalarType::U64, 32, span)?;
        let high = self.op(Op::ShiftRightLogical, u64_ty, &[wide, c32])?;
        let hi = self.op(Op::UConvert, uint, &[high])?;
        let max = self
            .cx
            .const_int(ScalarType::U64, i128::from(u32::MAX), span)?;
        let fits = self.op(Op::ULessThanEqual, bool_ty, &[len, max])?;
        let len_lo = self.op(Op::UConvert, uint, &[len])?;
        let all = self.cx.const_u32(u32::MAX);
        let len32 = self.op(Op::Select, uint, &[fits, len_lo, all])?;
        let zero = self.cx.const_u32(0);
        let site = self.new_site(resource, "buffer", ty.is_signed_integer(), span);
        if let Some(b) = self.cx.bounds.as_mut() {
            b.pending = Some(Guard {
                ok,
                args: [site, lo, hi, len32, zero],
            });
        }
        Ok(safe)
    }

    /// Checks a storage-image coordinate (`v2int` or `v2uint`) against the image's size;
    /// returns the coordinate to access with (`(0, 0)` when out of bounds) and the guard.
    pub(crate) fn check_texel(
        &mut self,
        image: Word,
        coord: Word,
        signed: bool,
        resource: &str,
        span: Span,
    ) -> Res<(Word, Option<Guard>)> {
        if !self.checked() {
            return Ok((coord, None));
        }
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let uv2 = self.cx.vector_type(uint, 2);
        let bv2 = self.cx.vector_type(bool_ty, 2);
        self.cx
            .features
            .require(rspirv::spirv::Capability::ImageQuery);
        let size = self.op(Op::ImageQuerySize, uv2, &[image])?;
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
        let site = self.new_site(resource, "image", signed, span);
        Ok((
            safe,
            Some(Guard {
                ok,
                args: [site, x, y, w, h],
            }),
        ))
    }

    /// Registers a site and returns its id as a `uint32` constant.
    fn new_site(&mut self, resource: &str, kind: &'static str, signed: bool, span: Span) -> Word {
        let id = match self.cx.bounds.as_mut() {
            Some(b) => {
                b.sites.push((resource.to_string(), kind, signed, span));
                b.sites.len() - 1
            }
            None => 0,
        };
        self.cx.const_u32(id as u32)
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
        let report = match self.cx.bounds.as_ref() {
            Some(b) => b.report,
            None => return access(self),
        };
        let [inside, outside, merge] = [(); 3].map(|_| self.cx.b.id());
        self.selection(g.ok, inside, outside, merge)?;
        self.begin(inside)?;
        let v = access(self)?;
        let from_inside = self.current_label()?;
        self.branch(merge)?;
        self.begin(outside)?;
        let void = self.cx.void_type();
        let span = self.func.span;
        self.cx
            .b
            .function_call(void, None, report, g.args)
            .ice(span)?;
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
}
