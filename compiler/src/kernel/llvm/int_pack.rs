//! Integer precision operations (SPEC §8) and `IntegerDot.*` in plain LLVM IR, computing
//! what the rspirv backend's instructions compute:
//!
//! - `Precision.packInt4x8`/`packInt2x16`: the lanes' low bits shifted into one word;
//!   `unpackInt4x8`/`unpackInt2x16`: a splat shifted up and arithmetically back down
//!   (sign-extending each field).
//! - `Precision.float2int8`: the same `GLSL.std.450` clamp, trunc, abs and sign (through
//!   [`super::spirv_ops`] placeholders) as with rspirv, so the rounding is bit for bit the
//!   same; NaN gives 0.
//! - The packed lane store of `sint8`/`sint16` storage ([`IntPrecisionFn::StoreLane`]): a
//!   relaxed compare-exchange loop on the containing word inserting the lane's bits
//!   (`OpBitFieldInsert`), so adjacent lanes written by different threads never lose an
//!   update.
//! - `IntegerDot.*`: the four lane products summed in 32 bits (exact), with the saturating
//!   accumulate of the `AccSat` forms; the rspirv backend's emulation for a device without
//!   `shaderIntegerDotProduct`. The native `OpSDot` family is not emitted by this backend.

use rspirv::spirv::GlslStd450Op as G;

use super::lower::{FnLower, Val};
use super::refuse;
use super::spirv_ops;
use super::Handle;
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, IntPrecisionFn, ScalarType, Type};

type Res<T> = Result<T, Diagnostic>;

/// Scope `Device` and `Workgroup` (SPIR-V numbering).
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;

impl FnLower<'_> {
    /// One integer precision operation (the explicit buffer accesses are desugared before
    /// any backend sees them).
    pub(super) fn int_precision(&mut self, f: IntPrecisionFn, args: &[Expr], e: &Expr) -> Res<Val> {
        match (f, args) {
            (IntPrecisionFn::PackInt4x8, [v]) => self.pack_lanes(v, 4),
            (IntPrecisionFn::PackInt2x16, [v]) => self.pack_lanes(v, 2),
            (IntPrecisionFn::UnpackInt4x8, [w]) => self.unpack_lanes(w, 4),
            (IntPrecisionFn::UnpackInt2x16, [w]) => self.unpack_lanes(w, 2),
            (IntPrecisionFn::Float2Int8, [v]) => self.float2int8(v),
            (IntPrecisionFn::StoreLane(bits), [recv, index, value]) => {
                self.store_packed_lane(bits, (recv, index, value), e)?;
                Ok(Val::new(String::new(), "void"))
            }
            _ => Err(refuse(
                e.span,
                format!("the integer precision operation {f:?}"),
            )),
        }
    }

    /// `n` int32 lanes, the low `32 / n` bits of each, low lane in the low bits.
    fn pack_lanes(&mut self, v: &Expr, n: u8) -> Res<Val> {
        let bits = 32 / u32::from(n);
        let mask = (1u64 << bits) - 1;
        let x = self.expr(v)?;
        let mut acc: Option<String> = None;
        for i in 0..n {
            let lane = self.lane_of(&x, i);
            let (m, s) = (self.tmp(), self.tmp());
            self.emit(format!("{m} = and i32 {}, {mask}", lane.text));
            self.emit(format!("{s} = shl i32 {m}, {}", u32::from(i) * bits));
            acc = Some(match acc {
                None => s,
                Some(a) => {
                    let o = self.tmp();
                    self.emit(format!("{o} = or i32 {a}, {s}"));
                    o
                }
            });
        }
        Ok(Val::new(acc.unwrap_or_else(|| "0".to_string()), "i32"))
    }

    /// The inverse of [`Self::pack_lanes`], sign-extending each field: lane `i` of a splat
    /// shifted left so that its field is on top, then arithmetically right by `32 - bits`.
    fn unpack_lanes(&mut self, w: &Expr, n: u8) -> Res<Val> {
        let bits = 32 / u32::from(n);
        let ty = super::types::vector("i32", n, w.span)?;
        let x = self.expr(w)?;
        let [one, splat, top, r] = self.tmps();
        self.emit(format!(
            "{one} = insertelement {ty} poison, i32 {}, i32 0",
            x.text
        ));
        self.emit(format!(
            "{splat} = shufflevector {ty} {one}, {ty} poison, <{n} x i32> zeroinitializer"
        ));
        let ups: Vec<String> = (0..u32::from(n))
            .map(|i| format!("i32 {}", 32 - bits * (i + 1)))
            .collect();
        let downs = vec![format!("i32 {}", 32 - bits); usize::from(n)];
        self.emit(format!("{top} = shl {ty} {splat}, <{}>", ups.join(", ")));
        self.emit(format!("{r} = ashr {ty} {top}, <{}>", downs.join(", ")));
        Ok(Val::new(r, ty))
    }

    /// Round half away from zero and saturate to [-127, 127], lane by lane; NaN gives 0:
    /// `trunc(c) + (|c - trunc(c)| >= 0.5 ? sign(c) : 0)` with `c` the clamped value, as
    /// the rspirv backend (exact, unlike `trunc(c + 0.5 * sign(c))`).
    fn float2int8(&mut self, v: &Expr) -> Res<Val> {
        let x = self.expr(v)?;
        match &v.ty {
            Type::Scalar(ScalarType::F32) => Ok(self.float2int8_lane(&x)),
            Type::Vector(ScalarType::F32, n) => self.per_lane(
                (ScalarType::F32, *n),
                ScalarType::I32,
                &[x],
                v.span,
                |f, l| Ok(f.float2int8_lane(&l[0])),
            ),
            other => Err(refuse(v.span, format!("float2int8 of `{other}`"))),
        }
    }

    fn float2int8_lane(&mut self, x: &Val) -> Val {
        let f = |s: &str| Val::new(s.to_string(), "float");
        let nan = self.tmp();
        self.emit(format!("{nan} = fcmp uno float {}, {}", x.text, x.text));
        let c = self.pure_val(G::FClamp, "float", &[x.clone(), f("-127.0"), f("127.0")]);
        let t = self.pure_val(G::Trunc, "float", std::slice::from_ref(&c));
        let frac = self.tmp();
        self.emit(format!("{frac} = fsub float {}, {}", c.text, t.text));
        let dist = self.pure_val(G::FAbs, "float", &[Val::new(frac, "float")]);
        let sign = self.pure_val(G::FSign, "float", std::slice::from_ref(&c));
        let [up, bump, r, i, out] = self.tmps();
        self.emit(format!("{up} = fcmp oge float {}, 0.5", dist.text));
        self.emit(format!(
            "{bump} = select i1 {up}, float {}, float 0.0",
            sign.text
        ));
        self.emit(format!("{r} = fadd float {}, {bump}", t.text));
        // In range: the value is an integer in [-127, 127] unless `x` was NaN, whose lane
        // the select replaces.
        self.emit(format!("{i} = fptosi float {r} to i32"));
        self.emit(format!("{out} = select i1 {nan}, i32 0, i32 {i}"));
        Val::new(out, "i32")
    }

    /// `GLSL.std.450` instruction `inst` on `args` through its pure placeholder.
    fn pure_val(&mut self, inst: G, ret: &'static str, args: &[Val]) -> Val {
        let op = format!("{}.{}", spirv_ops::GLSL, inst as u32);
        self.pure_placeholder(&op, ret, args)
    }

    /// The pure placeholder of instruction `op` on `args`, of result type `ret`.
    fn pure_placeholder(&mut self, op: &str, ret: &'static str, args: &[Val]) -> Val {
        let params: Vec<&str> = args.iter().map(|v| v.ty).collect();
        let name = spirv_ops::placeholder(op, ret, &params);
        self.declare(format!(
            "declare {ret} {name}({}) memory(none) nounwind willreturn",
            params.join(", ")
        ));
        let operands: Vec<String> = args
            .iter()
            .map(|v| format!("{} {}", v.ty, v.text))
            .collect();
        let t = self.tmp();
        self.emit(format!("{t} = call {ret} {name}({})", operands.join(", ")));
        Val::new(t, ret)
    }

    /// Replaces lane `index` (`bits` wide) of the packed int32 words of a buffer or shared
    /// array with the low bits of `value`: a relaxed compare-exchange loop on the word
    /// (ordering against other memory is the caller's barriers', as for a plain store).
    fn store_packed_lane(
        &mut self,
        bits: u8,
        (recv, index, value): (&Expr, &Expr, &Expr),
        e: &Expr,
    ) -> Res<()> {
        if bits != 8 && bits != 16 {
            return Err(refuse(e.span, format!("a packed lane of {bits} bits")));
        }
        let idx = self.expr(index)?;
        let idx = self.as_i32(idx);
        let (log_lanes, log_bits) = if bits == 8 { (2, 3) } else { (1, 4) };
        let [word, lane, shift] = self.tmps();
        self.emit(format!("{word} = lshr i32 {}, {log_lanes}", idx.text));
        self.emit(format!(
            "{lane} = and i32 {}, {}",
            idx.text,
            (1 << log_lanes) - 1
        ));
        self.emit(format!("{shift} = shl i32 {lane}, {log_bits}"));
        let word = Val::new(word, "i32");
        let (p, space, scope) = if let Some(a) = self.shared_of(recv).cloned() {
            if a.ty != "i32" {
                return Err(refuse(recv.span, "a packed lane outside 32-bit words"));
            }
            let i = self.opaque_if_constant(word.clone());
            let p = self.tmp();
            self.emit(format!(
                "{p} = getelementptr [{} x i32], ptr addrspace(3) {}, i32 0, i32 {}",
                a.n, a.global, i.text
            ));
            (p, 3, SCOPE_WORKGROUP)
        } else {
            let handle = match &recv.kind {
                crate::ir::ExprKind::Load(crate::ir::Place::Local(l)) => {
                    self.handles.get(l.0).cloned().flatten()
                }
                _ => None,
            };
            let Some(Handle::Buffer {
                var, ty, mangled, ..
            }) = handle
            else {
                return Err(refuse(recv.span, "a packed lane store outside a buffer"));
            };
            if !ty.contains("x i32]") {
                return Err(refuse(recv.span, "a packed lane outside 32-bit words"));
            }
            (
                self.buffer_pointer(&var, &ty, &mangled, &word),
                11,
                SCOPE_DEVICE,
            )
        };
        let v = self.expr(value)?;
        let v = self.as_i32(v);
        let init = self.tmp();
        self.emit(format!(
            "{init} = load i32, ptr addrspace({space}) {p}, align 4"
        ));
        self.cas_loop_i32(&p, space, scope, &init, |fl, old| {
            let new = fl.pure_placeholder(
                spirv_ops::BIT_FIELD_INSERT,
                "i32",
                &[
                    Val::new(old.to_string(), "i32"),
                    v,
                    Val::new(shift, "i32"),
                    Val::new(bits.to_string(), "i32"),
                ],
            );
            Ok(new.text)
        })?;
        Ok(())
    }

    /// An integer value as `i32` (narrower ones sign-extended, wider truncated).
    fn as_i32(&mut self, v: Val) -> Val {
        let op = match v.ty {
            "i32" => return v,
            "i64" => "trunc",
            _ => "sext",
        };
        let t = self.tmp();
        self.emit(format!("{t} = {op} {} {} to i32", v.ty, v.text));
        Val::new(t, "i32")
    }

    /// `IntegerDot.*(a, b[, acc])`: four lane products summed in 32 bits; with `acc_sat`,
    /// added to `acc` saturating at the result type's bounds.
    pub(super) fn int_dot(&mut self, acc_sat: bool, args: &[Expr], e: &Expr) -> Res<Val> {
        let want = if acc_sat { 3 } else { 2 };
        if args.len() != want {
            return Err(refuse(e.span, "a malformed `IntegerDot` call"));
        }
        let signed = |t: &Type| match t {
            Type::Vector(s, _) | Type::Scalar(s) => s.is_signed_integer(),
            _ => false,
        };
        let (sa, sb) = (signed(&args[0].ty), signed(&args[1].ty));
        let (a, b) = (self.expr(&args[0])?, self.expr(&args[1])?);
        let mut sum: Option<String> = None;
        for lane in 0..4u8 {
            let x = self.dot_lane(&a, sa, lane);
            let y = self.dot_lane(&b, sb, lane);
            let p = self.tmp();
            self.emit(format!("{p} = mul i32 {x}, {y}"));
            sum = Some(match sum {
                None => p,
                Some(s) => {
                    let t = self.tmp();
                    self.emit(format!("{t} = add i32 {s}, {p}"));
                    t
                }
            });
        }
        let d = sum.unwrap_or_else(|| "0".to_string());
        if !acc_sat {
            return Ok(Val::new(d, "i32"));
        }
        let acc = self.expr(&args[2])?;
        let out_signed = e.ty.as_scalar().is_some_and(|s| s.is_signed_integer());
        Ok(self.saturating_add(&acc.text, &d, out_signed))
    }

    /// Lane `lane` of a dot operand (a packed word or a 4-lane 8-bit vector), sign- or
    /// zero-extended to 32 bits.
    fn dot_lane(&mut self, v: &Val, signed: bool, lane: u8) -> String {
        let t = self.tmp();
        if v.ty == "i32" {
            // The byte's field moved to the top, then shifted back down.
            let up = self.tmp();
            self.emit(format!(
                "{up} = shl i32 {}, {}",
                v.text,
                24 - 8 * u32::from(lane)
            ));
            let shift = if signed { "ashr" } else { "lshr" };
            self.emit(format!("{t} = {shift} i32 {up}, 24"));
            return t;
        }
        let byte = self.lane_of(v, lane);
        let ext = if signed { "sext" } else { "zext" };
        self.emit(format!("{t} = {ext} {} {} to i32", byte.ty, byte.text));
        t
    }

    /// `acc + d` saturated to the int32 (`signed`) or uint32 range; `d` is a dot product,
    /// small enough that only one direction can overflow for a given sign of `d`.
    fn saturating_add(&mut self, acc: &str, d: &str, signed: bool) -> Val {
        let raw = self.tmp();
        self.emit(format!("{raw} = add i32 {acc}, {d}"));
        // Opaque to LLVM: its instcombine turns these selects into `llvm.uadd.sat` /
        // `llvm.sadd.sat`, which LLVM 23.1's SPIR-V target cannot select (it aborts).
        let sum = self.opaque_copy(Val::new(raw, "i32")).text;
        if !signed {
            // Unsigned: an overflow wrapped below the accumulator.
            let (wrapped, r) = (self.tmp(), self.tmp());
            self.emit(format!("{wrapped} = icmp ult i32 {sum}, {acc}"));
            self.emit(format!("{r} = select i1 {wrapped}, i32 -1, i32 {sum}"));
            return Val::new(r, "i32");
        }
        let [d_neg, up, down, over, under, r, s] = self.tmps();
        self.emit(format!("{d_neg} = icmp slt i32 {d}, 0"));
        self.emit(format!("{up} = icmp slt i32 {sum}, {acc}"));
        self.emit(format!("{down} = icmp sgt i32 {sum}, {acc}"));
        self.emit(format!("{over} = select i1 {d_neg}, i1 false, i1 {up}"));
        self.emit(format!("{under} = and i1 {d_neg}, {down}"));
        self.emit(format!("{r} = select i1 {over}, i32 2147483647, i32 {sum}"));
        self.emit(format!("{s} = select i1 {under}, i32 -2147483648, i32 {r}"));
        Val::new(s, "i32")
    }
}
