//! Shared arrays, stdlib class constants (`MemoryOrder.Relaxed`), and the checks of the
//! barrier, atomic, wave and specialization intrinsics that types alone cannot express
//! (SPEC §6): constant slots and lanes, allowed element types, one dynamic shared array.

use super::body::{FnCtx, R};
use super::type_names::resolve_type;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{
    self, AtomicOp, BinaryOp, Constant, CoopOp, ExprKind, FunctionKind, Intrinsic, MathFn, Place,
    ScalarType, Type, UnaryOp, WaveOp,
};
use crate::syntax::ast;
use std::collections::HashMap;

/// Highest `Spec` slot (SpecId 4 + slot stays far below any driver limit).
pub const MAX_SPEC_SLOT: i128 = 1023;

/// The value of an integer constant expression of the IR (literals, conversions, arithmetic
/// and bit operations on them), as a mathematical integer after each step's wrap.
pub fn const_int(e: &ir::Expr) -> Option<i128> {
    let s = e.ty.as_scalar().filter(|s| s.is_integer())?;
    let wrap = |v: i128| -> i128 {
        let w = s.bits();
        let m = (v as u128) & ((1u128 << w) - 1);
        if s.is_signed_integer() && (m >> (w - 1)) & 1 == 1 {
            m as i128 - (1i128 << w)
        } else {
            m as i128
        }
    };
    let v = match &e.kind {
        ExprKind::Const(Constant::Int(bits)) => *bits as i128,
        ExprKind::Convert(inner) => const_int(inner)?,
        ExprKind::Unary(UnaryOp::Neg, a) => -const_int(a)?,
        ExprKind::Unary(UnaryOp::BitNot, a) => !const_int(a)?,
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (const_int(a)?, const_int(b)?);
            match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x.checked_mul(y)?,
                BinaryOp::Div if y != 0 => x / y,
                BinaryOp::Rem if y != 0 => x % y,
                BinaryOp::Shl => x << (y.rem_euclid(s.bits() as i128)),
                BinaryOp::Shr | BinaryOp::UShr => x >> (y.rem_euclid(s.bits() as i128)),
                BinaryOp::BitAnd => x & y,
                BinaryOp::BitOr => x | y,
                BinaryOp::BitXor => x ^ y,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(wrap(v))
}

/// The float value of a constant expression (a literal, possibly converted or negated).
fn const_float(e: &ir::Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Const(Constant::Float(f)) => Some(*f),
        ExprKind::Unary(UnaryOp::Neg, a) => const_float(a).map(|f| -f),
        _ => None,
    }
}

/// What the checker allows for a generic intrinsic's `T` in this area; `None` when the
/// operation is not one of this file's.
pub fn generic_allows(op: Intrinsic, t: &Type) -> Option<Result<(), &'static str>> {
    // Math, Bits and the wave operations on values apply lane by lane to vectors.
    let s = match (op, t) {
        (Intrinsic::Math(_) | Intrinsic::Bits(_) | Intrinsic::Wave(_), Type::Vector(s, _)) => {
            Some(*s)
        }
        // Part by part, on a wide vector's 4-lane parts (sema/wide_vector.rs).
        (Intrinsic::Math(_), Type::Wide(s, _)) => Some(*s),
        _ => t.as_scalar(),
    };
    Some(match op {
        Intrinsic::Math(MathFn::Sign) => match s {
            Some(s) if s.is_float() || s.is_signed_integer() => Ok(()),
            _ => Err("a float or signed integer type"),
        },
        Intrinsic::Math(f) if f.float_only() => match s {
            Some(s) if s.is_float() => Ok(()),
            _ => Err("a float type"),
        },
        Intrinsic::Math(_) => match s {
            Some(s) if s.is_numeric() => Ok(()),
            _ => Err("a numeric type"),
        },
        Intrinsic::Bits(_) => match s {
            Some(ScalarType::I32 | ScalarType::U32) => Ok(()),
            _ => Err("int32 or uint32"),
        },
        // The index `I` of an atomic (its `T` comes from the receiver): any integer of at
        // most 32 bits, like `buf[i]`.
        Intrinsic::Atomic(_) => match s {
            Some(s) if s.is_integer() && s.bits() <= 32 => Ok(()),
            _ => Err("a 32-bit-or-narrower integer index"),
        },
        Intrinsic::Wave(WaveOp::ReduceAnd | WaveOp::ReduceOr | WaveOp::ReduceXor) => match s {
            Some(ScalarType::I32 | ScalarType::U32) => Ok(()),
            _ => Err("int32 or uint32"),
        },
        Intrinsic::WorkgroupReduce => match s {
            Some(s) if s.is_numeric() && !s.is_precision() && s != ScalarType::BF16 => Ok(()),
            Some(s) if s == ScalarType::BF16 || s.is_precision() => {
                Err("a numeric scalar type other than bfloat16 and the precision types (cast to float32 first)")
            }
            _ => Err("a numeric scalar type"),
        },
        // float16 needs the device's shaderSubgroupExtendedTypes (recorded by the backend).
        Intrinsic::Wave(_) => match s {
            Some(ScalarType::I32 | ScalarType::U32 | ScalarType::F32 | ScalarType::F16) => Ok(()),
            _ => Err("int32, uint32, float32 or float16"),
        },
        // The memory a cooperative matrix is loaded from or stored to (sema/coop.rs checks
        // the element against the matrix), or the matrix `C` a store writes (sema/coop.rs
        // checks that it is an accumulator and that the memory operand is memory).
        Intrinsic::Coop(CoopOp::Load | CoopOp::Store) => match t {
            Type::Buffer(e) | Type::Shared(e) if super::coop::memory_element(e) => Ok(()),
            Type::CoopMatrix(_) => Ok(()),
            _ => Err("a KernelBuffer or Shared array of scalars or 128-bit vectors"),
        },
        _ => return None,
    })
}

/// The result type of a Math/Bits call whose declared result is a scalar (`int32` of
/// `Bits.count`, `boolean` of `Math.isnan`) on a vector argument: a vector of that scalar.
pub fn lane_result(op: Option<Intrinsic>, args: &[ir::Expr], ret: Type) -> Type {
    let Some(Intrinsic::Math(_) | Intrinsic::Bits(_)) = op else {
        return ret;
    };
    match (args.first().map(|a| &a.ty), &ret) {
        (Some(Type::Vector(_, n)), Type::Scalar(s)) => Type::Vector(*s, *n),
        _ => ret,
    }
}

/// Whether a device intrinsic may also run in host code (the interpreter evaluates it).
pub fn host_evaluable(op: Intrinsic) -> bool {
    match op {
        Intrinsic::IntPrecision(f) => f.host_evaluable(),
        _ => matches!(
            op,
            Intrinsic::Math(_) | Intrinsic::Bits(_) | Intrinsic::BitCast(_)
        ),
    }
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `Class.NAME` when `Class` is a stdlib class with that `@Constant`; `None` otherwise.
    pub fn class_constant(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> Option<R<ir::Expr>> {
        let class = self.class_name(base)?;
        let table = self.syms.constants.get(class)?;
        Some(match table.get(&field.name) {
            Some((ty, v)) => Ok(ir::Expr::constant(*v, ty.clone(), span)),
            None => self.unknown_member(class, field, "constant", table.keys()),
        })
    }

    /// E0006 for `class.field` when `class` has no such member, listing the ones it has
    /// (`what`: "constant", "field").
    pub fn unknown_member<'k, T>(
        &mut self,
        class: &str,
        field: &ast::Ident,
        what: &str,
        members: impl Iterator<Item = &'k String>,
    ) -> R<T> {
        let mut names: Vec<&str> = members.map(String::as_str).collect();
        names.sort_unstable();
        self.error(
            Diagnostic::error(
                Code::UnknownName,
                field.span,
                format!("`{class}` has no {what} `{}`", field.name),
            )
            .with_note(format!("`{class}` {what}s: {}", names.join(", "))),
        )
    }

    /// Checks a `Shared<T>` local declaration: kernels only, each name initialized.
    pub fn shared_decl_ok(
        &mut self,
        span: Span,
        decls: &[(ast::Ident, Option<ast::Expr>)],
    ) -> bool {
        if self.kind != FunctionKind::Kernel {
            let (code, what) = if self.kind == FunctionKind::Host {
                (Code::DeviceOnlyInHost, "host code")
            } else {
                (Code::InvalidShared, "@Device helpers")
            };
            self.diags.push(
                Diagnostic::error(
                    code,
                    span,
                    format!("shared arrays cannot be declared in {what}"),
                )
                .with_note("declare `Shared<T> t = shared T[n];` in the kernel"),
            );
            return false;
        }
        for (name, init) in decls {
            let nd = init
                .as_ref()
                .is_some_and(|e| super::shared_nd::nd_shared_init(e).is_some());
            if !nd
                && !matches!(
                    init.as_ref().map(|e| &e.kind),
                    Some(ast::ExprKind::SharedArray { .. })
                )
            {
                self.diags.push(
                    Diagnostic::error(
                        Code::InvalidShared,
                        name.span,
                        format!("`{}` must be initialized with `shared T[n]`", name.name),
                    )
                    .with_label("a Shared<T> local is its own array"),
                );
                return false;
            }
        }
        true
    }

    /// `shared T[n]`: `n` a constant expression (a fixed array) or an integer kernel
    /// parameter (the dynamic array, sized at launch by `sharedBytes:`).
    pub fn shared_array(
        &mut self,
        elem: &ast::TypeExpr,
        len: &ast::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        if self.kind != FunctionKind::Kernel {
            let (code, what) = if self.kind == FunctionKind::Host {
                (Code::DeviceOnlyInHost, "host code")
            } else {
                (Code::InvalidShared, "@Device helpers")
            };
            return self.error(
                Diagnostic::error(
                    code,
                    span,
                    format!("`shared` arrays cannot be allocated in {what}"),
                )
                .with_note(
                    "workgroup memory is declared in the kernel: `Shared<T> t = shared T[n];`",
                ),
            );
        }
        let elem_ty = match resolve_type(elem, &HashMap::new()) {
            Ok(t @ (Type::Scalar(_) | Type::Vector(..)))
                if t.elem_scalar().is_some_and(|s| s != ScalarType::Bool) =>
            {
                t
            }
            Ok(other) => {
                return self.error(Diagnostic::error(
                    Code::InvalidShared,
                    elem.span,
                    format!(
                    "shared arrays of `{other}` are not supported: elements are numeric scalars"
                ),
                ))
            }
            Err(d) => return self.error(d),
        };
        let n = self.expr(len, Some(&Type::Scalar(ScalarType::U32)))?;
        let dynamic = matches!(&n.kind, ExprKind::Load(Place::Local(l)) if self.is_param_local(*l))
            && n.ty
                .as_scalar()
                .is_some_and(|s| s.is_integer() && s.bits() <= 32);
        let arg = if dynamic {
            if let Some(first) = self.dynamic_shared {
                return self.error(
                    Diagnostic::error(
                        Code::InvalidShared,
                        span,
                        "a kernel can have only one dynamic shared array",
                    )
                    .with_secondary(first, "the first one")
                    .with_note("help: carve both out of one array sized for both"),
                );
            }
            self.dynamic_shared = Some(span);
            n
        } else {
            match const_int(&n) {
                Some(v) if (1..=(1 << 20)).contains(&v) => {
                    ir::Expr::constant(Constant::Int(v as u64), Type::Scalar(ScalarType::U32), n.span)
                }
                Some(v) => {
                    return self.error(Diagnostic::error(
                        Code::InvalidShared,
                        len.span,
                        format!("a shared array needs 1 to 1048576 elements, found {v}"),
                    ))
                }
                None => {
                    return self.error(
                        Diagnostic::error(
                            Code::NotConstant,
                            len.span,
                            "a shared array's length must be a constant expression or a kernel parameter",
                        )
                        .with_note("a parameter length is a dynamic array sized by the launch's `sharedBytes:`"),
                    )
                }
            }
        };
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::SharedNew,
                args: vec![arg],
            },
            ty: Type::Shared(Box::new(elem_ty)),
            span,
        })
    }

    /// Checks and normalizes the arguments of barrier, atomic, wave and `Spec` intrinsics
    /// (receiver first): constants where SPIR-V needs them, element types atomics support.
    pub fn check_memory_intrinsic(
        &mut self,
        op: Intrinsic,
        args: &mut [ir::Expr],
        span: Span,
    ) -> R<()> {
        for a in args.iter() {
            if matches!(a.ty, Type::Enum(_)) && !matches!(a.kind, ExprKind::Const(_)) {
                return self.error(Diagnostic::error(
                    Code::NotConstant,
                    a.span,
                    format!("a {} argument must be one of its constants", a.ty),
                ));
            }
        }
        match op {
            Intrinsic::SpecInt | Intrinsic::SpecFloat => {
                let slot = match const_int(&args[0]) {
                    Some(v) if (0..=MAX_SPEC_SLOT).contains(&v) => v,
                    Some(v) => {
                        return self.error(Diagnostic::error(
                            Code::InvalidLaunch,
                            args[0].span,
                            format!("Spec slots are 0 to {MAX_SPEC_SLOT}, found {v}"),
                        ))
                    }
                    None => {
                        return self.error(
                            Diagnostic::error(
                                Code::NotConstant,
                                args[0].span,
                                "a Spec slot must be a constant",
                            )
                            .with_note("each slot is a specialization constant (SpecId 4 + slot)"),
                        )
                    }
                };
                args[0] = ir::Expr::constant(
                    Constant::Int(slot as u64),
                    Type::Scalar(ScalarType::I32),
                    args[0].span,
                );
                let default = if op == Intrinsic::SpecInt {
                    const_int(&args[1]).map(|v| Constant::Int(v as i32 as u32 as u64))
                } else {
                    const_float(&args[1]).map(|f| Constant::Float(f as f32 as f64))
                };
                let Some(default) = default else {
                    return self.error(Diagnostic::error(
                        Code::NotConstant,
                        args[1].span,
                        "a Spec default value must be a constant",
                    ));
                };
                let float = op == Intrinsic::SpecFloat;
                match self.spec_slots.iter().find(|(s, _, _)| *s == slot) {
                    Some(&(_, f, d)) if f != float || d != default => {
                        // The backend's refusal, here so that `check` reports it too.
                        return self.error(Diagnostic::error(
                            Code::TypeMismatch,
                            span,
                            format!(
                                "Spec slot {slot} is used twice with a different type or default"
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => self.spec_slots.push((slot, float, default)),
                }
                args[1] = ir::Expr::constant(default, args[1].ty.clone(), args[1].span);
            }
            // A variable lane is a shuffle in the backend (taken modulo 4 there).
            Intrinsic::Wave(WaveOp::QuadBroadcast) => match const_int(&args[1]) {
                Some(v @ 0..=3) => {
                    args[1] = ir::Expr::constant(
                        Constant::Int(v as u64),
                        Type::Scalar(ScalarType::U32),
                        args[1].span,
                    )
                }
                Some(_) => {
                    return self.error(Diagnostic::error(
                        Code::InvalidOperator,
                        args[1].span,
                        "Quad.broadcast's constant lane must be 0, 1, 2 or 3",
                    ))
                }
                None => {}
            },
            Intrinsic::Wave(WaveOp::ReduceSegmented) => return self.check_reduce_segmented(args),
            Intrinsic::WorkgroupReduce => {
                if let [op, v] = &args[..] {
                    if let Some(s) = v.ty.as_scalar() {
                        self.refuse_bitwise_on_float(op, s)?;
                    }
                }
            }
            Intrinsic::Atomic(a) => {
                // Indices are uint32 in the IR, as for `buf[i]`.
                if args[1].ty != Type::Scalar(ScalarType::U32) {
                    let i = args[1].clone();
                    args[1] = super::expr::convert(i, ScalarType::U32);
                }
                let elem = match &args[0].ty {
                    Type::Buffer(e) | Type::Shared(e) => match e.as_scalar() {
                        Some(s) => s,
                        None => {
                            let t = args[0].ty.clone();
                            return self.error(Diagnostic::error(
                                Code::TypeMismatch,
                                span,
                                format!("atomics need scalar elements, found {t}"),
                            ));
                        }
                    },
                    _ => return Ok(()),
                };
                let ok = match elem {
                    ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => true,
                    ScalarType::F32 => !matches!(a, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor),
                    _ => false,
                };
                if !ok {
                    return self.error(
                        Diagnostic::error(
                            Code::TypeMismatch,
                            span,
                            format!("`atomic{a:?}` is not available on {elem} elements"),
                        )
                        .with_note("atomics take int32, uint32, int64, uint64 elements; float32 all but And/Or/Xor"),
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }
}
