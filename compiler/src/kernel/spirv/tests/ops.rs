//! Operators, conversions, short-circuit forms, math and optional-width types.

use super::*;

const ALL_BINARY: [BinaryOp; 17] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::Shl,
    BinaryOp::Shr,
    BinaryOp::UShr,
    BinaryOp::BitAnd,
    BinaryOp::BitOr,
    BinaryOp::BitXor,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
];

/// A kernel computing `a op b` for every applicable operator on scalar type `s`, storing
/// results in `out` (type `s`) or `flags` (`KernelBuffer<boolean>`).
fn binary_kernel(s: ScalarType) -> Module {
    let ty = Type::Scalar(s);
    let mut k = Fb::kernel("binops");
    let out = k.param("out", Type::buffer(Type::Scalar(s)));
    let flags = k.param("flags", Type::buffer(Type::Scalar(ScalarType::Bool)));
    let a = k.param("a", ty.clone());
    let b = k.param("b", ty);
    let count = k.param("count", Type::Scalar(ScalarType::I32));
    let mut body = Vec::new();
    for (n, op) in ALL_BINARY.iter().enumerate() {
        let idx = u32c(n as u32);
        let bits = matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor);
        if s.is_float() && (op.is_shift() || bits) {
            continue;
        }
        if op.is_comparison() {
            body.push(set_at(&flags, idx, bin(*op, a.clone(), b.clone())));
        } else if op.is_shift() {
            // The count has another type than the left operand.
            body.push(set_at(
                &out,
                idx.clone(),
                bin(*op, a.clone(), count.clone()),
            ));
            body.push(set_at(&out, idx, bin(*op, a.clone(), b.clone())));
        } else {
            body.push(set_at(&out, idx, bin(*op, a.clone(), b.clone())));
        }
    }
    let neg = expr(
        ExprKind::Unary(UnaryOp::Neg, Box::new(a.clone())),
        a.ty.clone(),
    );
    body.push(set_at(&out, u32c(20), neg));
    if s.is_integer() {
        let not = expr(
            ExprKind::Unary(UnaryOp::BitNot, Box::new(a.clone())),
            a.ty.clone(),
        );
        body.push(set_at(&out, u32c(21), not));
    }
    let flag = at(&flags, u32c(0));
    let not = expr(ExprKind::Unary(UnaryOp::Not, Box::new(flag.clone())), BOOL);
    body.push(set_at(&flags, u32c(1), not));
    for (n, op) in [
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Eq,
        BinaryOp::Ne,
    ]
    .into_iter()
    .enumerate()
    {
        let v = bin(op, flag.clone(), at(&flags, u32c(2)));
        body.push(set_at(&flags, u32c(30 + n as u32), v));
    }
    module(vec![k.body(body)])
}

#[test]
fn every_binary_op_on_int32() {
    let (out, dis) = build(&binary_kernel(ScalarType::I32), 0);
    for op in [
        "OpSDiv",
        "OpShiftRightArithmetic",
        "OpShiftRightLogical",
        "OpShiftLeftLogical",
        "OpSLessThan",
        "OpSGreaterThanEqual",
        "OpSNegate",
        "OpNot",
        "OpLogicalNotEqual",
        "OpLogicalAnd",
        "OpLogicalOr",
        "OpLogicalEqual",
        "OpLogicalNot",
    ] {
        assert!(count_op(&dis, op) > 0, "{op} missing:\n{dis}");
    }
    // Signed `%` is derived from OpSDiv (see int_divrem): never OpSRem.
    assert_eq!(count_op(&dis, "OpSRem"), 0);
    assert_eq!(count_op(&dis, "OpUDiv"), 0);
    assert_eq!(count_op(&dis, "OpUMod"), 0);
    // Division guards: a select of the divisor and of the result.
    assert!(count_op(&dis, "OpSelect") >= 4, "{dis}");
    assert_eq!(
        out.reflection.bindings[1].element_type.as_deref(),
        Some("boolean")
    );
    assert_eq!(out.reflection.bindings[1].element_stride, Some(4));
    assert_eq!(out.reflection.capabilities, vec!["Shader"]);
}

#[test]
fn every_binary_op_on_uint32() {
    let (_, dis) = build(&binary_kernel(ScalarType::U32), 0);
    for op in [
        "OpUDiv",
        "OpUMod",
        "OpULessThan",
        "OpUGreaterThanEqual",
        "OpShiftRightLogical",
    ] {
        assert!(count_op(&dis, op) > 0, "{op} missing:\n{dis}");
    }
    assert_eq!(count_op(&dis, "OpShiftRightArithmetic"), 0, "{dis}");
    assert_eq!(count_op(&dis, "OpSDiv"), 0);
}

#[test]
fn every_binary_op_on_float32() {
    let (_, dis) = build(&binary_kernel(ScalarType::F32), 0);
    for op in [
        "OpFAdd",
        "OpFSub",
        "OpFMul",
        "OpFDiv",
        "OpFRem",
        "OpFOrdEqual",
        "OpFUnordNotEqual",
        "OpFOrdLessThan",
        "OpFOrdGreaterThanEqual",
        "OpFNegate",
    ] {
        assert!(count_op(&dis, op) > 0, "{op} missing:\n{dis}");
    }
    assert_eq!(dis.matches("NoContraction").count(), 5, "{dis}");
}

#[test]
fn conversions_between_int32_uint32_float32() {
    let scalars = [ScalarType::I32, ScalarType::U32, ScalarType::F32];
    let mut k = Fb::kernel("convs");
    let params: Vec<Expr> = scalars
        .iter()
        .map(|s| k.param(&format!("in_{s}"), Type::Scalar(*s)))
        .collect();
    let outs: Vec<Expr> = scalars
        .iter()
        .map(|s| k.param(&format!("out_{s}"), Type::buffer(Type::Scalar(*s))))
        .collect();
    let mut body = Vec::new();
    for (i, from) in scalars.iter().enumerate() {
        for (j, to) in scalars.iter().enumerate() {
            if from != to {
                body.push(set_at(
                    &outs[j],
                    u32c(i as u32),
                    conv(params[i].clone(), *to),
                ));
            }
        }
    }
    let (_, dis) = build(&module(vec![k.body(body)]), 0);
    for op in [
        "OpConvertSToF",
        "OpConvertUToF",
        "OpConvertFToS",
        "OpConvertFToU",
        "OpBitcast",
        "OpIsNan",
    ] {
        assert!(count_op(&dis, op) > 0, "{op} missing:\n{dis}");
    }
    // Saturation bounds: largest float32 below 2^31 and 2^32, and the thresholds.
    assert!(
        dis.contains("2147483500") || dis.contains("2.1474835e9"),
        "{dis}"
    );
}

#[test]
fn conversions_among_other_widths_record_capabilities() {
    use ScalarType::*;
    let scalars = [I8, I16, I64, U8, U16, U64, F16, F64, I32, F32];
    let mut k = Fb::kernel("widths");
    let params: Vec<Expr> = scalars
        .iter()
        .map(|s| k.param(&format!("in_{s}"), Type::Scalar(*s)))
        .collect();
    let outs: Vec<Expr> = scalars
        .iter()
        .map(|s| k.param(&format!("out_{s}"), Type::buffer(Type::Scalar(*s))))
        .collect();
    let mut body = Vec::new();
    for (i, param) in params.iter().enumerate() {
        for (out, to) in outs.iter().zip(scalars) {
            body.push(set_at(out, u32c(i as u32), conv(param.clone(), to)));
        }
    }
    let m = module(vec![k.body(body)]);
    let (out, dis) = build(&m, 0);
    let r = &out.reflection;
    for cap in [
        "Float16",
        "Float64",
        "Int64",
        "Int16",
        "Int8",
        "StorageBuffer16BitAccess",
        "StoragePushConstant16",
        "StorageBuffer8BitAccess",
        "StoragePushConstant8",
    ] {
        assert!(
            r.capabilities.iter().any(|c| c == cap),
            "{cap}: {:?}",
            r.capabilities
        );
    }
    assert_eq!(r.capabilities[0], "Shader");
    assert_eq!(
        r.extensions,
        vec!["SPV_KHR_16bit_storage", "SPV_KHR_8bit_storage"]
    );
    for f in [
        "shaderInt64",
        "shaderFloat64",
        "shaderInt16",
        "shaderFloat16",
        "shaderInt8",
        "storageBuffer16BitAccess",
        "storageBuffer8BitAccess",
    ] {
        assert!(
            r.vulkan_features.iter().any(|x| x == f),
            "{f}: {:?}",
            r.vulkan_features
        );
    }
    assert_eq!(count_op(&dis, "OpExtension"), 2);
    // 8/16-bit storage is core from SPIR-V 1.5.
    assert_eq!(count_op(&dis_vk13(&m, 0), "OpExtension"), 0);
    // std430 push constants: int8 at 0, int16 at 2, int64 at 8, uint8 at 16...
    let offsets: Vec<u32> = r.push_constants.members.iter().map(|m| m.offset).collect();
    assert_eq!(offsets, vec![0, 2, 8, 16, 18, 24, 32, 40, 48, 52]);
    assert_eq!(r.push_constants.size, 56);
}

#[test]
fn select_and_logical_operators_short_circuit() {
    let mut k = Fb::kernel("logic");
    let out = k.param("out", Type::buffer(Type::Scalar(ScalarType::I32)));
    let a = k.param("a", I32);
    let p = k.param("p", BOOL);
    let q = k.local("q", BOOL);
    // The right operands read the buffer: they must only run when needed.
    let rhs = bin(BinaryOp::Gt, at(&out, u32c(0)), i32c(0));
    let body = vec![
        set(&q, or(p.clone(), and(rhs.clone(), boolc(true)))),
        set_at(&out, u32c(1), sel(q.clone(), a.clone(), at(&out, u32c(2)))),
        set_at(
            &out,
            u32c(3),
            sel(and(p, q), sel(rhs, i32c(1), i32c(2)), i32c(-3)),
        ),
    ];
    let (r, dis) = build(&module(vec![k.body(body)]), 0);
    assert_eq!(count_op(&dis, "OpPhi"), 6, "{dis}");
    assert_eq!(count_op(&dis, "OpSelectionMerge"), 6, "{dis}");
    assert_eq!(count_op(&dis, "OpLogicalAnd"), 0, "{dis}");
    // A boolean push constant is a uint32 read back with != 0.
    let m = &r.reflection.push_constants.members[1];
    assert_eq!(
        (m.name.as_str(), m.offset, m.size, m.ty.as_str()),
        ("p", 4, 4, "boolean")
    );
    assert!(count_op(&dis, "OpINotEqual") >= 1);
}

#[test]
fn math_functions_import_glsl_only_when_used() {
    let mut k = Fb::kernel("math");
    let out = k.param("out", Type::buffer(Type::Scalar(ScalarType::F32)));
    let iout = k.param("iout", Type::buffer(Type::Scalar(ScalarType::I32)));
    let uout = k.param("uout", Type::buffer(Type::Scalar(ScalarType::U32)));
    let x = at(&out, u32c(0));
    let m = |f: MathFn, args: Vec<Expr>, ty: Type| intr(Intrinsic::Math(f), args, ty);
    let i = at(&iout, u32c(0));
    let u = at(&uout, u32c(0));
    let body = vec![
        set_at(&out, u32c(1), m(MathFn::Sqrt, vec![x.clone()], F32)),
        set_at(&out, u32c(2), m(MathFn::Floor, vec![x.clone()], F32)),
        set_at(&out, u32c(3), m(MathFn::Abs, vec![x.clone()], F32)),
        set_at(
            &out,
            u32c(4),
            m(MathFn::Min, vec![x.clone(), f32c(1.0)], F32),
        ),
        set_at(&out, u32c(5), m(MathFn::Max, vec![x, f32c(1.0)], F32)),
        set_at(&iout, u32c(1), m(MathFn::Abs, vec![i.clone()], I32)),
        set_at(
            &iout,
            u32c(2),
            m(MathFn::Min, vec![i.clone(), i32c(3)], I32),
        ),
        set_at(&iout, u32c(3), m(MathFn::Max, vec![i, i32c(3)], I32)),
        set_at(&uout, u32c(1), m(MathFn::Abs, vec![u.clone()], U32)),
        set_at(
            &uout,
            u32c(2),
            m(MathFn::Min, vec![u.clone(), u32c(3)], U32),
        ),
        set_at(&uout, u32c(3), m(MathFn::Max, vec![u, u32c(3)], U32)),
    ];
    let (_, dis) = build(&module(vec![k.body(body)]), 0);
    assert!(dis.contains("GLSL.std.450"), "{dis}");
    assert_eq!(count_op(&dis, "OpExtInst"), 10, "{dis}");
    let mut k = Fb::kernel("plain");
    let out = k.param("out", Type::buffer(Type::Scalar(ScalarType::F32)));
    let body = vec![set_at(&out, u32c(0), f32c(1.0))];
    let (_, plain) = build(&module(vec![k.body(body)]), 0);
    assert!(!plain.contains("GLSL.std.450"), "{plain}");
}

#[test]
fn int64_push_constant_and_division() {
    let mut k = Fb::kernel("wide");
    let out = k.param("out", Type::buffer(Type::Scalar(ScalarType::I64)));
    let a = k.param("a", Type::Scalar(ScalarType::I64));
    let s = k.param("s", Type::Scalar(ScalarType::U8));
    let body = vec![
        set_at(&out, u32c(0), bin(BinaryOp::Div, a.clone(), a.clone())),
        set_at(&out, u32c(1), bin(BinaryOp::Shl, a.clone(), s)),
        set_at(
            &out,
            u32c(2),
            bin(
                BinaryOp::Rem,
                a.clone(),
                Expr::constant(Constant::Int(u64::MAX), Type::Scalar(ScalarType::I64), sp()),
            ),
        ),
    ];
    let mut body = body;
    // Narrow signed constants (MIN, -1) must be sign-extended literals.
    for s in [ScalarType::I8, ScalarType::I16] {
        let v = conv(a.clone(), s);
        let q = bin(BinaryOp::Div, v.clone(), bin(BinaryOp::Rem, v.clone(), v));
        body.push(set_at(&out, u32c(3), conv(q, ScalarType::I64)));
    }
    let (r, _) = build(&module(vec![k.body(body)]), 0);
    let r = r.reflection;
    assert!(r.capabilities.contains(&"Int64".to_string()));
    assert!(r.vulkan_features.contains(&"shaderInt64".to_string()));
    assert_eq!(r.bindings[0].element_stride, Some(8));
}

/// `a / d` and `a % d` for each constant divisor `d`, on scalar type `s`.
fn constant_divisor_kernel(s: ScalarType, divisors: &[Expr]) -> Module {
    let mut k = Fb::kernel("divc");
    let out = k.param("out", Type::buffer(Type::Scalar(s)));
    let a = k.param("a", Type::Scalar(s));
    let mut body = Vec::new();
    for (n, d) in divisors.iter().enumerate() {
        let n = 2 * n as u32;
        body.push(set_at(
            &out,
            u32c(n),
            bin(BinaryOp::Div, a.clone(), d.clone()),
        ));
        body.push(set_at(
            &out,
            u32c(n + 1),
            bin(BinaryOp::Rem, a.clone(), d.clone()),
        ));
    }
    module(vec![k.body(body)])
}

#[test]
fn constant_divisors_other_than_zero_and_minus_one_need_no_guard() {
    let (_, dis) = build(
        &constant_divisor_kernel(ScalarType::U32, &[u32c(8), u32c(5)]),
        0,
    );
    assert_eq!(count_op(&dis, "OpSelect"), 0, "{dis}");
    assert_eq!(count_op(&dis, "OpUDiv"), 2, "{dis}");
    assert_eq!(count_op(&dis, "OpUMod"), 2, "{dis}");
    let (_, dis) = build(
        &constant_divisor_kernel(ScalarType::I32, &[i32c(8), i32c(-3)]),
        0,
    );
    assert_eq!(count_op(&dis, "OpSelect"), 0, "{dis}");
    // Each `/` and each `%` (derived from OpSDiv).
    assert_eq!(count_op(&dis, "OpSDiv"), 4, "{dis}");
    // 0 and (signed) -1 keep their guards: a select of the divisor and of the result each.
    let (_, dis) = build(&constant_divisor_kernel(ScalarType::U32, &[u32c(0)]), 0);
    assert_eq!(count_op(&dis, "OpSelect"), 4, "{dis}");
    let (_, dis) = build(&constant_divisor_kernel(ScalarType::I32, &[i32c(-1)]), 0);
    assert_eq!(count_op(&dis, "OpSelect"), 4, "{dis}");
}
