//! Integer precision operations of SPEC §8: `Precision.packInt4x8 unpackInt4x8 packInt2x16
//! unpackInt2x16 float2int8` in core instructions (no `Int8`/`Int16` capability), and the
//! race-free packed lane store ([`IntPrecisionFn::StoreLane`]).

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as G, Op, StorageClass, Word};

use super::expr::scalar_of;
use super::function::FnCx;
use super::memory::{SCOPE_DEVICE, SCOPE_WORKGROUP};
use super::module::ResourceKind;
use super::{unsupported, BuildExt, Res};
use crate::ir::{Expr, IntPrecisionFn, ScalarType, Type};

impl FnCx<'_, '_> {
    /// Lowers one integer precision operation.
    pub(crate) fn int_precision(
        &mut self,
        f: IntPrecisionFn,
        args: &[Expr],
        e: &Expr,
    ) -> Res<Word> {
        let want = match f {
            IntPrecisionFn::StoreLane(_) => 3,
            _ => 1,
        };
        if args.len() != want && !f.is_access() {
            return Err(unsupported(
                e.span,
                format!("internal error: {f:?} takes {want} argument(s)"),
            ));
        }
        match f {
            IntPrecisionFn::PackInt4x8 => self.pack_lanes(&args[0], 4),
            IntPrecisionFn::PackInt2x16 => self.pack_lanes(&args[0], 2),
            IntPrecisionFn::UnpackInt4x8 => self.unpack_lanes(&args[0], 4),
            IntPrecisionFn::UnpackInt2x16 => self.unpack_lanes(&args[0], 2),
            IntPrecisionFn::Float2Int8 => self.float2int8(&args[0], e),
            IntPrecisionFn::StoreLane(bits) => self.store_packed_lane(bits, args, e),
            access => Err(unsupported(
                e.span,
                format!("internal error: Precision access {access:?} reached the backend"),
            )),
        }
    }

    /// `n` int32 lanes, the low `32 / n` bits of each, low lane in the low bits.
    fn pack_lanes(&mut self, v: &Expr, n: u32) -> Res<Word> {
        let bits = 32 / n;
        let int = self.cx.int_type(32, true);
        let vec = self.cx.vector_type(int, n);
        let x = self.expr(v)?;
        let mask = self.int_splat((1i128 << bits) - 1, n)?;
        let shifts: Vec<i128> = (0..n).map(|i| i128::from(i * bits)).collect();
        let shifts = self.int_vector(&shifts)?;
        let masked = self.op(Op::BitwiseAnd, vec, &[x, mask])?;
        let placed = self.op(Op::ShiftLeftLogical, vec, &[masked, shifts])?;
        let mut acc = self
            .cx
            .b
            .composite_extract(int, None, placed, [0])
            .ice(v.span)?;
        for i in 1..n {
            let lane = self
                .cx
                .b
                .composite_extract(int, None, placed, [i])
                .ice(v.span)?;
            acc = self.op(Op::BitwiseOr, int, &[acc, lane])?;
        }
        Ok(acc)
    }

    /// The inverse of [`Self::pack_lanes`], sign-extending each lane: every lane of a splat
    /// is shifted so that its field is on top, then shifted back arithmetically.
    fn unpack_lanes(&mut self, w: &Expr, n: u32) -> Res<Word> {
        let bits = 32 / n;
        let int = self.cx.int_type(32, true);
        let vec = self.cx.vector_type(int, n);
        let x = self.expr(w)?;
        let splat = self.op(Op::CompositeConstruct, vec, &vec![x; n as usize])?;
        let up: Vec<i128> = (0..n).map(|i| i128::from(32 - bits * (i + 1))).collect();
        let up = self.int_vector(&up)?;
        let down = self.int_splat(i128::from(32 - bits), n)?;
        let top = self.op(Op::ShiftLeftLogical, vec, &[splat, up])?;
        self.op(Op::ShiftRightArithmetic, vec, &[top, down])
    }

    /// Round half away from zero and saturate to [-127, 127], lane by lane; NaN gives 0.
    /// The rounding is `trunc(c) + (|c - trunc(c)| >= 0.5 ? sign(c) : 0)`: exact, unlike
    /// `trunc(c + 0.5 * sign(c))`, which rounds 0.49999997 up.
    fn float2int8(&mut self, v: &Expr, e: &Expr) -> Res<Word> {
        let n = match &v.ty {
            Type::Scalar(ScalarType::F32) => 1,
            Type::Vector(ScalarType::F32, n) => u32::from(*n),
            other => return Err(unsupported(v.span, format!("float2int8 of `{other}`"))),
        };
        let x = self.expr(v)?;
        let float = self.cx.float_type(32);
        let int = self.cx.int_type(32, true);
        let boolean = self.cx.bool_type();
        let (fty, ity, bty) = if n == 1 {
            (float, int, boolean)
        } else {
            (
                self.cx.vector_type(float, n),
                self.cx.vector_type(int, n),
                self.cx.vector_type(boolean, n),
            )
        };
        let fsplat = |cx: &mut Self, value: f64| -> Res<Word> {
            let c = cx.cx.const_float(ScalarType::F32, value, e.span)?;
            Ok(if n == 1 {
                c
            } else {
                cx.cx.const_composite(fty, vec![c; n as usize])
            })
        };
        let (lo, hi, half, zero) = (
            fsplat(self, -127.0)?,
            fsplat(self, 127.0)?,
            fsplat(self, 0.5)?,
            fsplat(self, 0.0)?,
        );
        let nan = self.op(Op::IsNan, bty, &[x])?;
        let c = self.glsl(fty, G::FClamp, &[x, lo, hi], e)?;
        let t = self.glsl(fty, G::Trunc, &[c], e)?;
        let frac = self.op(Op::FSub, fty, &[c, t])?;
        let dist = self.glsl(fty, G::FAbs, &[frac], e)?;
        let up = self.op(Op::FOrdGreaterThanEqual, bty, &[dist, half])?;
        let sign = self.glsl(fty, G::FSign, &[c], e)?;
        let bump = self.op(Op::Select, fty, &[up, sign, zero])?;
        let r = self.op(Op::FAdd, fty, &[t, bump])?;
        let i = self.op(Op::ConvertFToS, ity, &[r])?;
        let izero = self.int_splat(0, n)?;
        self.op(Op::Select, ity, &[nan, izero, i])
    }

    /// `[buf, lane, value]`: replaces lane `lane` (`bits` wide) of the packed `int32` words of
    /// a buffer or shared array with the low bits of `value`, by a compare-exchange loop on
    /// the containing word. Relaxed atomics: the loop only has to make the word update
    /// indivisible; ordering against other memory is the caller's barriers', as for a plain
    /// store.
    fn store_packed_lane(&mut self, bits: u8, args: &[Expr], e: &Expr) -> Res<Word> {
        let span = e.span;
        if bits != 8 && bits != 16 {
            return Err(unsupported(span, format!("a packed lane of {bits} bits")));
        }
        let (recv, index, value) = (&args[0], &args[1], &args[2]);
        let uint = self.cx.u32_type();
        let idx_ty = scalar_of(index)?;
        let idx = self.expr(index)?;
        let log_lanes = if bits == 8 { 2 } else { 1 };
        let (idx, wide) = self.checked_lane(recv, index, (idx, idx_ty), bits, e)?;
        let guard = self.take_guard();
        let (log_c, lane_mask, log_bits) = (
            self.cx.const_u32(log_lanes),
            self.cx.const_u32((1 << log_lanes) - 1),
            self.cx.const_u32(if bits == 8 { 3 } else { 4 }),
        );
        let lane = match wide {
            // The lane of a checked addressed buffer's `uint64` index: its low word's.
            true => self.op(Op::UConvert, uint, &[idx])?,
            false => idx,
        };
        let word = match wide {
            true => {
                let u64_ty = self.cx.int_type(64, false);
                let c = self
                    .cx
                    .const_int(ScalarType::U64, i128::from(log_lanes), span)?;
                self.op(Op::ShiftRightLogical, u64_ty, &[idx, c])?
            }
            false => self.op(Op::ShiftRightLogical, uint, &[idx, log_c])?,
        };
        let lane = self.op(Op::BitwiseAnd, uint, &[lane, lane_mask])?;
        let shift = self.op(Op::ShiftLeftLogical, uint, &[lane, log_bits])?;
        let word_ty = if wide {
            ScalarType::U64
        } else {
            ScalarType::U32
        };
        let (ptr, storage, scope) = match &recv.ty {
            Type::Shared(_) => {
                let a = self.shared_of(recv)?;
                let ptr_ty = self.cx.pointer_type(StorageClass::Workgroup, a.storage);
                let ptr = self.op(Op::AccessChain, ptr_ty, &[a.var, word])?;
                (ptr, a.storage, SCOPE_WORKGROUP)
            }
            _ => {
                let (var, kind) = self.resource_of(recv)?;
                let ResourceKind::Buffer { storage, .. } = kind else {
                    return Err(unsupported(recv.span, "a packed lane store needs a buffer"));
                };
                let ptr = self.buffer_element_pointer(var, kind, word, word_ty)?;
                (ptr, storage, SCOPE_DEVICE)
            }
        };
        let int = self.cx.int_type(32, true);
        if storage != int && storage != uint {
            return Err(unsupported(
                recv.span,
                "internal error: packed lanes live in 32-bit integer words",
            ));
        }
        let mut v = self.expr(value)?;
        let vty = scalar_of(value)?;
        v = self.convert_int(v, vty, ScalarType::I32, value.span)?;
        if storage != int {
            v = self.op(Op::Bitcast, storage, &[v])?;
        }
        let scope_c = self.cx.const_u32(scope);
        let relaxed = self.cx.const_u32(0);
        let count = self.cx.const_u32(u32::from(bits));
        self.guarded(guard, None, |this| {
            this.compare_exchange_loop([ptr, storage, scope_c, relaxed], span, |cx, old| {
                cx.op(Op::BitFieldInsert, storage, &[old, v, shift, count])
            })?;
            Ok(0)
        })?;
        Ok(0)
    }

    /// The lane index `(idx, ty)` of a packed lane store as the store uses it: a `uint32`, or
    /// (`true`) a `uint64` for a checked addressed buffer. Checked, it is 0 when out of
    /// bounds, and the guard compares it with the length in lanes (4 or 2 per word, so the
    /// `length()` the kernel sees), reported as site kind `lane store`.
    fn checked_lane(
        &mut self,
        recv: &Expr,
        index: &Expr,
        (idx, idx_ty): (Word, ScalarType),
        bits: u8,
        e: &Expr,
    ) -> Res<(Word, bool)> {
        let span = e.span;
        if !self.checked() {
            let idx = self.convert_int(idx, idx_ty, ScalarType::U32, index.span)?;
            return Ok((idx, false));
        }
        let uint = self.cx.u32_type();
        let ty = super::bounds::index_type(index)?;
        let log_lanes = if bits == 8 { 2 } else { 1 };
        let log_c = self.cx.const_u32(log_lanes);
        let shape = [u32::from(bits)];
        let at = recv.span.to(index.span);
        if let Type::Shared(_) = recv.ty {
            let a = self.shared_of(recv)?;
            let name = self.cx.kernel.locals.get(a.handle);
            let name = name.map(|l| l.name.clone()).unwrap_or_default();
            let len = self.op(Op::ShiftLeftLogical, uint, &[a.len, log_c])?;
            let site = (name.as_str(), "lane store", &shape[..]);
            return Ok((self.check_index_per(idx, ty, len, site, 1, at)?, false));
        }
        let (var, kind) = self.resource_of(recv)?;
        let ResourceKind::Buffer { address, .. } = kind else {
            return Err(unsupported(recv.span, "a packed lane store needs a buffer"));
        };
        let name = self.resource_name(recv);
        let site = (name.as_str(), "lane store", &shape[..]);
        match address {
            Some(a) => {
                let words = self.address_length(a)?;
                let u64_ty = self.cx.int_type(64, false);
                let c = self
                    .cx
                    .const_int(ScalarType::U64, i128::from(log_lanes), span)?;
                let len = self.op(Op::ShiftLeftLogical, u64_ty, &[words, c])?;
                Ok((self.check_index_wide_per(idx, ty, len, site, 1, at)?, true))
            }
            None => {
                let words = self.hoisted_array_length(var)?;
                // A buffer within a descriptor's range holds fewer than 2^32 lanes.
                let len = self.hoisted(
                    Op::ShiftLeftLogical,
                    uint,
                    &[Operand::IdRef(words), Operand::IdRef(log_c)],
                )?;
                Ok((self.check_index_per(idx, ty, len, site, 1, at)?, false))
            }
        }
    }

    /// An int32 constant splat to `n` lanes (the scalar when `n` is 1).
    fn int_splat(&mut self, v: i128, n: u32) -> Res<Word> {
        self.int_vector(&vec![v; n as usize])
    }

    /// An int32 vector constant with these lanes (a scalar for one lane).
    fn int_vector(&mut self, lanes: &[i128]) -> Res<Word> {
        let span = self.func.span;
        let mut ids = Vec::with_capacity(lanes.len());
        for &l in lanes {
            ids.push(self.cx.const_int(ScalarType::I32, l, span)?);
        }
        if ids.len() == 1 {
            return Ok(ids[0]);
        }
        let int = self.cx.int_type(32, true);
        let ty = self.cx.vector_type(int, lanes.len() as u32);
        Ok(self.cx.const_composite(ty, ids))
    }

    /// One `GLSL.std.450` instruction.
    fn glsl(&mut self, ty: Word, inst: G, vals: &[Word], e: &Expr) -> Res<Word> {
        self.glsl_op(inst, ty, vals, e.span)
    }
}
