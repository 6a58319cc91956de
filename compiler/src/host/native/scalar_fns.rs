//! `Math.*` and `Bits.*` on native scalars.
//!
//! The ones that LLVM has an exactly matching intrinsic or instruction for (see
//! `inline_fn`) are inlined. The transcendentals of `float32` or `float64` operands are a
//! direct call of their C-ABI function in `host::interp::math` (`double
//! cajeta_math_sin(double)`…, `LIBM_UNARY`/`LIBM_BINARY`), which the interpreter's
//! `float_fn` calls too; every other float `Math` function (`fract`, `mix`…) is a typed
//! call, `double cajeta_math_float(i32 fn, i32 type, double x, double y, double z)`, of
//! `math::float_math`, the very function the interpreter computes them with; a `float32`
//! operand is widened exactly and the result rounded once, as there, so the two executors
//! cannot round differently. These are declared without memory effects, so LLVM may hoist
//! and merge the calls. The rest (`Bits`, `float16` operands) goes to `cajeta_scalar_fn`,
//! which runs the interpreter's `math::scalar_fn` on the computed operands; those cross as
//! 64-bit patterns: integers extended by their signedness, floats widened exactly to
//! `double`, booleans 0 or 1.

use inkwell::intrinsics::Intrinsic as LlvmIntrinsic;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use inkwell::FloatPredicate;

use super::bridge::{scalar_code, scalar_of_code};
use super::codegen::{b, Codegen, FnState, Gen};
use super::repr::{repr, Repr};
use super::runtime::record;
use crate::host::interp::{math, HostError, Scalar};
use crate::ir::{BitCast, Expr, ExprKind, Intrinsic, MathFn, ScalarType, Type};

/// True when `e` is a `Math`/`Bits` call on native scalars with a native scalar result.
pub fn is_scalar_fn(e: &Expr) -> bool {
    let ExprKind::Intrinsic { op, args } = &e.kind else {
        return false;
    };
    let scalar = |t| matches!(repr(t), Repr::Scalar(_));
    let bf16 = |t: &Type| t.as_scalar() == Some(ScalarType::BF16);
    if bf16(&e.ty) || args.iter().any(|a| bf16(&a.ty)) {
        // Of `bfloat16`, only its bit casts are inline (`bfloat16.rs`); the rest is a
        // typed call on values (`intrinsic_calls.rs`).
        return matches!(op, Intrinsic::BitCast(_)) && args.len() == 1;
    }
    matches!(
        op,
        Intrinsic::Math(_) | Intrinsic::Bits(_) | Intrinsic::BitCast(_)
    ) && args.len() <= 3
        && scalar(&e.ty)
        && args.iter().all(|a| scalar(&a.ty))
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Lowers a call [`is_scalar_fn`] accepted.
    pub fn scalar_fn(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let ExprKind::Intrinsic { op, args } = &e.kind else {
            return Err("internal error: not an intrinsic".into());
        };
        let mut values = Vec::with_capacity(args.len());
        let mut types = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.value(st, a)?);
            types.push(a.ty.as_scalar().ok_or("internal error: operand")?);
        }
        let ty = e.ty.as_scalar().ok_or("internal error: result")?;
        self.scalar_fn_on(st, e, *op, &values, &types, ty)
    }

    /// `op` of call `e` on computed scalar operands `values` of types `types`, giving a `ty`:
    /// inline, or by the interpreter's implementation. Also one lane of a call on vectors
    /// (`vectors.rs`), whose operand lanes are those of the call's operands.
    pub(super) fn scalar_fn_on(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        op: Intrinsic,
        values: &[BasicValueEnum<'ctx>],
        types: &[ScalarType],
        ty: ScalarType,
    ) -> Gen<BasicValueEnum<'ctx>> {
        if let Some(v) = self.inline_fn(op, ty, values)? {
            return Ok(v);
        }
        if let (Intrinsic::Math(f), ScalarType::F32 | ScalarType::F64) = (op, ty) {
            if types.iter().all(|&t| t == ty) && values.len() <= 3 {
                if let Some(v) = self.libm_call(f, ty, values)? {
                    return Ok(v);
                }
                return self.math_call(f, ty, values);
            }
        }
        let i64t = self.ctx.i64_type();
        let mut call_args: Vec<BasicMetadataValueEnum> = vec![self.node_ptr(e).into()];
        for (v, s) in values.iter().zip(types) {
            call_args.push(self.scalar_bits(*v, *s)?.into());
        }
        while call_args.len() < 4 {
            call_args.push(i64t.const_zero().into());
        }
        call_args.push(st.out.into());
        let ok = b(self
            .builder
            .build_call(self.rt["cajeta_scalar_fn"], &call_args, "ok"))?
        .try_as_basic_value()
        .basic()
        .ok_or("internal error: status")?
        .into_int_value();
        self.unwind_unless(st, ok)?;
        let bits = b(self.builder.build_load(i64t, st.out, "bits"))?.into_int_value();
        self.scalar_from_bits(bits, ty)
    }

    /// Float function `f` of `float32`/`float64` operands `values` (of type `ty`) by a
    /// direct call of its `double f(double[, double])` function in `math`
    /// (`math::LIBM_UNARY`, `LIBM_BINARY`), the one the interpreter calls too; `None` for
    /// the functions that are not one of those.
    fn libm_call(
        &self,
        f: MathFn,
        ty: ScalarType,
        values: &[BasicValueEnum<'ctx>],
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let unary = math::LIBM_UNARY.iter().map(|&(g, s, _)| (g, s, 1));
        let binary = math::LIBM_BINARY.iter().map(|&(g, s, _)| (g, s, 2));
        let Some((_, sym, _)) = unary
            .chain(binary)
            .find(|&(g, _, n)| g == f && n == values.len())
        else {
            return Ok(None);
        };
        let f64t = self.ctx.f64_type();
        let mut args: Vec<BasicMetadataValueEnum> = Vec::with_capacity(values.len());
        for v in values {
            let x = if ty == ScalarType::F32 {
                b(self.builder.build_float_ext(v.into_float_value(), f64t, ""))?
            } else {
                v.into_float_value()
            };
            args.push(x.into());
        }
        let r = b(self.builder.build_call(self.rt[sym], &args, "libm"))?
            .try_as_basic_value()
            .basic()
            .ok_or("internal error: Math result")?
            .into_float_value();
        if ty == ScalarType::F64 {
            return Ok(Some(r.into()));
        }
        // Rounded once to float32, as the interpreter rounds `float_fn`'s result.
        Ok(Some(
            b(self.builder.build_float_trunc(r, self.ctx.f32_type(), ""))?.into(),
        ))
    }

    /// Float function `f` of `float32`/`float64` operands `values` (of type `ty`) by the
    /// typed call of `math::float_math` (see the module comment).
    fn math_call(
        &self,
        f: MathFn,
        ty: ScalarType,
        values: &[BasicValueEnum<'ctx>],
    ) -> Gen<BasicValueEnum<'ctx>> {
        let f64t = self.ctx.f64_type();
        let i32t = self.ctx.i32_type();
        let code = MathFn::ALL
            .iter()
            .position(|(g, _)| *g == f)
            .ok_or("internal error: Math function")?;
        let mut args: Vec<BasicMetadataValueEnum> = vec![
            i32t.const_int(code as u64, false).into(),
            i32t.const_int(scalar_code(ty), false).into(),
        ];
        for k in 0..3 {
            let x = match values.get(k) {
                Some(v) if ty == ScalarType::F32 => {
                    b(self.builder.build_float_ext(v.into_float_value(), f64t, ""))?
                }
                Some(v) => v.into_float_value(),
                None => f64t.const_zero(),
            };
            args.push(x.into());
        }
        let r = b(self
            .builder
            .build_call(self.rt["cajeta_math_float"], &args, "math"))?
        .try_as_basic_value()
        .basic()
        .ok_or("internal error: Math result")?
        .into_float_value();
        if ty == ScalarType::F64 {
            return Ok(r.into());
        }
        // Exact: the result is already rounded to float32.
        Ok(b(self.builder.build_float_trunc(r, self.ctx.f32_type(), ""))?.into())
    }

    /// `isnan`/`isinf` of a float and `sign` of an integer, which are plain instructions.
    fn inline_test(
        &self,
        f: MathFn,
        ty: ScalarType,
        values: &[BasicValueEnum<'ctx>],
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let [x] = values else { return Ok(None) };
        match (f, *x) {
            (MathFn::IsNan, BasicValueEnum::FloatValue(x)) => Ok(Some(
                b(self
                    .builder
                    .build_float_compare(FloatPredicate::UNO, x, x, "isnan"))?
                .into(),
            )),
            (MathFn::IsInf, BasicValueEnum::FloatValue(xf)) => {
                let abs = self.intrinsic_call("llvm.fabs", &[*x])?.into_float_value();
                let inf = xf.get_type().const_float(f64::INFINITY);
                let r =
                    b(self
                        .builder
                        .build_float_compare(FloatPredicate::OEQ, abs, inf, "isinf"))?;
                Ok(Some(r.into()))
            }
            (MathFn::Sign, BasicValueEnum::IntValue(xi)) if ty != ScalarType::Bool => {
                let t = xi.get_type();
                if ty.is_signed_integer() {
                    let one = t.const_int(1, false).into();
                    let low = self.intrinsic_call("llvm.smin", &[*x, one])?;
                    let minus_one = t.const_all_ones().into();
                    return self
                        .intrinsic_call("llvm.smax", &[low, minus_one])
                        .map(Some);
                }
                let zero = t.const_zero();
                let nonzero = b(self.builder.build_int_compare(
                    inkwell::IntPredicate::NE,
                    xi,
                    zero,
                    "nonzero",
                ))?;
                Ok(Some(
                    b(self.builder.build_int_z_extend(nonzero, t, "sign"))?.into(),
                ))
            }
            _ => Ok(None),
        }
    }

    /// The functions with an LLVM intrinsic of exactly the interpreter's semantics:
    /// `abs`, `sqrt`, `floor`, `ceil`, `trunc`, `round` (ties to even) of floats; `min`,
    /// `max`, `clamp` of floats (`llvm.minimum`/`maximum`: NaN if either operand is NaN,
    /// -0.0 below +0.0, as Java's `Math.min`; the NaN made canonical, see
    /// `canonical_nan`) and of integers; `abs` of signed integers
    /// (wrapping at the minimum). `None` for the others.
    pub(super) fn inline_fn(
        &self,
        op: Intrinsic,
        ty: ScalarType,
        values: &[BasicValueEnum<'ctx>],
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        if let (Intrinsic::BitCast(c), [x]) = (op, values) {
            if let Some(v) = self.bit_cast_bf16(c, ty, *x)? {
                return Ok(Some(v));
            }
            return self.bit_cast(c, ty, *x).map(Some);
        }
        let Intrinsic::Math(f) = op else {
            return Ok(None);
        };
        if let Some(v) = self.inline_test(f, ty, values)? {
            return Ok(Some(v));
        }
        let float = ty.is_float();
        let signed = ty.is_signed_integer();
        let (min, max) = match (float, signed) {
            (true, _) => ("llvm.minimum", "llvm.maximum"),
            (false, true) => ("llvm.smin", "llvm.smax"),
            (false, false) => ("llvm.umin", "llvm.umax"),
        };
        let name = match f {
            MathFn::Abs if float => "llvm.fabs",
            MathFn::Abs if signed => "llvm.abs",
            MathFn::Sqrt if float => "llvm.sqrt",
            MathFn::Floor if float => "llvm.floor",
            MathFn::Ceil if float => "llvm.ceil",
            MathFn::Trunc if float => "llvm.trunc",
            MathFn::Round if float => "llvm.roundeven",
            MathFn::Min | MathFn::Max if float => {
                let r = self.intrinsic_call(if f == MathFn::Min { min } else { max }, values)?;
                return self.canonical_nan(r).map(Some);
            }
            MathFn::Min if ty != ScalarType::Bool => min,
            MathFn::Max if ty != ScalarType::Bool => max,
            MathFn::Clamp if ty != ScalarType::Bool => {
                let [x, lo, hi] = values else {
                    return Ok(None);
                };
                let low = self.intrinsic_call(max, &[*x, *lo])?;
                let r = self.intrinsic_call(min, &[low, *hi])?;
                return if float {
                    self.canonical_nan(r).map(Some)
                } else {
                    Ok(Some(r))
                };
            }
            _ => return Ok(None),
        };
        if name == "llvm.abs" {
            // The second operand says whether abs(MIN) is poison: it is MIN here.
            let no = self.ctx.bool_type().const_zero().into();
            return self.intrinsic_call(name, &[values[0], no]).map(Some);
        }
        self.intrinsic_call(name, values).map(Some)
    }

    /// Float `r` with a NaN replaced by the canonical quiet NaN: Java's `Math.min`/`max`
    /// give "NaN", and the interpreter gives that one (`f64::NAN`, rounded to the type),
    /// where `llvm.minimum`/`maximum` give an operand's NaN, sign and payload included.
    /// Vectors lane by lane.
    fn canonical_nan(&self, r: BasicValueEnum<'ctx>) -> Gen<BasicValueEnum<'ctx>> {
        let bld = &self.builder;
        match r {
            BasicValueEnum::FloatValue(x) => {
                let nan = b(bld.build_float_compare(FloatPredicate::UNO, x, x, "nan"))?;
                let canonical = x.get_type().const_float(f64::NAN);
                b(bld.build_select(nan, canonical, x, "canonical"))
            }
            BasicValueEnum::VectorValue(v) => {
                let nan = b(bld.build_float_compare(FloatPredicate::UNO, v, v, "nan"))?;
                let lane = v
                    .get_type()
                    .get_element_type()
                    .into_float_type()
                    .const_float(f64::NAN);
                let lanes = vec![lane; v.get_type().get_size() as usize];
                let canonical = inkwell::types::VectorType::const_vector(&lanes);
                b(bld.build_select(nan, canonical, v, "canonical"))
            }
            other => Ok(other),
        }
    }

    /// A bit cast of native float or integer `x` to result type `ty` (an integer of the
    /// float's width, or a float): LLVM's `bitcast`, with NaN replaced by the canonical
    /// encoding for the `…ToIntBits` forms.
    fn bit_cast(
        &self,
        c: BitCast,
        ty: ScalarType,
        x: BasicValueEnum<'ctx>,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let t = self
            .llvm_type(&Type::Scalar(ty))
            .ok_or("internal error: bit cast type")?;
        let bits = b(self.builder.build_bit_cast(x, t, "bits"))?;
        if c != BitCast::ToBitsCanonical {
            return Ok(bits);
        }
        let xf = x.into_float_value();
        let nan = b(self
            .builder
            .build_float_compare(FloatPredicate::UNO, xf, xf, "nan"))?;
        let from = match xf.get_type().get_bit_width() {
            16 => ScalarType::F16,
            64 => ScalarType::F64,
            _ => ScalarType::F32,
        };
        let canonical = t
            .into_int_type()
            .const_int(BitCast::canonical_nan(from), false);
        b(self
            .builder
            .build_select(nan, canonical, bits.into_int_value(), "canonical"))
    }

    /// A call of LLVM intrinsic `name`, overloaded on its first operand's type.
    fn intrinsic_call(
        &self,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Gen<BasicValueEnum<'ctx>> {
        let t = args.first().ok_or("internal error: no operand")?.get_type();
        let f = LlvmIntrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, &[t]))
            .ok_or_else(|| format!("internal error: LLVM intrinsic {name}"))?;
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        let call = b(self.builder.build_call(f, &args, ""))?;
        call.try_as_basic_value()
            .basic()
            .ok_or_else(|| "internal error: intrinsic result".into())
    }

    /// A native scalar as its 64-bit pattern (see the module comment).
    pub(super) fn scalar_bits(
        &self,
        v: BasicValueEnum<'ctx>,
        s: ScalarType,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let i64t = self.ctx.i64_type();
        Ok(if s.is_float() {
            let d = if s == ScalarType::F64 {
                v.into_float_value()
            } else {
                b(self
                    .builder
                    .build_float_ext(v.into_float_value(), self.ctx.f64_type(), ""))?
            };
            b(self.builder.build_bit_cast(d, i64t, ""))?
        } else if s.is_signed_integer() {
            b(self
                .builder
                .build_int_s_extend_or_bit_cast(v.into_int_value(), i64t, ""))?
            .into()
        } else {
            b(self
                .builder
                .build_int_z_extend_or_bit_cast(v.into_int_value(), i64t, ""))?
            .into()
        })
    }

    /// The scalar of type `s` whose 64-bit pattern is `bits`.
    pub(super) fn scalar_from_bits(
        &self,
        bits: inkwell::values::IntValue<'ctx>,
        s: ScalarType,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let t = self
            .llvm_type(&crate::ir::Type::Scalar(s))
            .ok_or("internal error: type")?;
        Ok(if s.is_float() {
            let d =
                b(self.builder.build_bit_cast(bits, self.ctx.f64_type(), ""))?.into_float_value();
            if s == ScalarType::F64 {
                d.into()
            } else {
                b(self.builder.build_float_trunc(d, t.into_float_type(), ""))?.into()
            }
        } else {
            b(self
                .builder
                .build_int_truncate_or_bit_cast(bits, t.into_int_type(), ""))?
            .into()
        })
    }
}

/// The scalar of type `s` whose 64-bit pattern (see the module comment) is `bits`.
pub(super) fn scalar_of(bits: i64, s: ScalarType) -> Option<Scalar> {
    if s.is_float() {
        Scalar::from_float(f64::from_bits(bits as u64), s)
    } else {
        Some(Scalar::from_int_wrapping(i128::from(bits), s))
    }
}

/// The 64-bit pattern of `s` (see the module comment).
pub(super) fn bits_of(s: Scalar) -> i64 {
    match (s.as_bool(), s.as_int(), s.as_float()) {
        (Some(b), _, _) => i64::from(b),
        (_, Some(i), _) => i as i64,
        (_, _, Some(f)) => f.to_bits() as i64,
        _ => 0,
    }
}

/// Evaluates the `Math`/`Bits` call `e` on operands `a`, `b`, `c` (see the module
/// comment) into `*out`; 0 after recording the interpreter's error for it.
///
/// # Safety
/// `e` is a call [`is_scalar_fn`] accepted, in the IR module of the run; `out` is writable.
pub unsafe extern "C" fn cajeta_scalar_fn(
    e: *const Expr,
    a: i64,
    b: i64,
    c: i64,
    out: *mut i64,
) -> i32 {
    let e = &*e;
    let ExprKind::Intrinsic { op, args } = &e.kind else {
        return 0;
    };
    // At most three operands (`is_scalar_fn`): no allocation on this path.
    let mut xs = [Scalar::Bool(false); 3];
    let mut n = 0;
    for (arg, bits) in args.iter().zip([a, b, c]) {
        // A vector operand's lane (a call on vectors is computed lane by lane).
        match arg.ty.elem_scalar().and_then(|s| scalar_of(bits, s)) {
            Some(x) => xs[n] = x,
            None => return fail(e, "internal error: operand types".into()),
        }
        n += 1;
    }
    match math::scalar_fn(*op, &xs[..n]) {
        Ok(s) => {
            *out = bits_of(s);
            1
        }
        Err(message) => fail(e, message),
    }
}

/// `Math` function number `code` (its index in `MathFn::ALL`) of float operands of scalar
/// type `ty` (see `bridge::scalar_code`), exactly widened: `math::float_math`, the
/// interpreter's own.
pub extern "C" fn cajeta_math_float(code: i32, ty: i32, x: f64, y: f64, z: f64) -> f64 {
    match MathFn::ALL.get(code as usize) {
        Some((f, _)) => math::float_math(*f, scalar_of_code(ty), [x, y, z]),
        None => f64::NAN,
    }
}

/// True for the runtime functions without side effects (`cajeta_math_*`), which LLVM may
/// hoist, merge and drop.
pub fn is_pure(sym: &str) -> bool {
    sym.starts_with("cajeta_math_")
}

/// Records the error of call `e` and gives the failure status.
fn fail(e: &Expr, message: String) -> i32 {
    record(HostError {
        message,
        span: Some(e.span),
        launch: None,
        notes: Vec::new(),
    });
    0
}

/// This file's C-ABI functions (see `runtime::functions`).
pub fn functions() -> Vec<(&'static str, &'static str, usize)> {
    let mut all = vec![
        (
            "cajeta_scalar_fn",
            "i(plllp)",
            cajeta_scalar_fn as *const () as usize,
        ),
        (
            "cajeta_math_float",
            "d(iiddd)",
            cajeta_math_float as *const () as usize,
        ),
    ];
    all.extend(
        math::LIBM_UNARY
            .iter()
            .map(|&(_, s, f)| (s, "d(d)", f as *const () as usize)),
    );
    all.extend(
        math::LIBM_BINARY
            .iter()
            .map(|&(_, s, f)| (s, "d(dd)", f as *const () as usize)),
    );
    all
}
