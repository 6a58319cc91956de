//! Arithmetic, conversions, short-circuit evaluation and loops.

use super::*;
use BinaryOp::*;

#[test]
fn int32_arithmetic_table() {
    let cases: &[(BinaryOp, i32, i32, i32)] = &[
        (Add, i32::MAX, 1, i32::MIN),
        (Sub, i32::MIN, 1, i32::MAX),
        (Mul, 0x10000, 0x10000, 0),
        (Mul, -3, 7, -21),
        (Div, -7, 2, -3),
        (Div, 7, -2, -3),
        (Rem, -7, 2, -1),
        (Rem, 7, -2, 1),
        (Div, i32::MIN, -1, i32::MIN),
        (Rem, i32::MIN, -1, 0),
        (Shl, 1, 33, 2),
        (Shl, 1, -1, i32::MIN),
        (Shr, -8, 1, -4),
        (Shr, -1, 31, -1),
        (UShr, -8, 28, 15),
        (UShr, -1, 32, -1),
        (BitAnd, 0b1100, 0b1010, 0b1000),
        (BitOr, 0b1100, 0b1010, 0b1110),
        (BitXor, 0b1100, 0b1010, 0b0110),
    ];
    for &(op, a, b, want) in cases {
        let got = scalar(bin(op, i32c(a), i32c(b)));
        assert_eq!(got, Scalar::I32(want), "{a} {op:?} {b}");
    }
    assert_eq!(
        scalar(un(UnaryOp::Neg, i32c(i32::MIN))),
        Scalar::I32(i32::MIN)
    );
    assert_eq!(scalar(un(UnaryOp::BitNot, i32c(0))), Scalar::I32(-1));
    assert_eq!(scalar(bin(Lt, i32c(-1), i32c(1))), Scalar::Bool(true));
    assert_eq!(scalar(bin(Ge, i32c(-1), i32c(1))), Scalar::Bool(false));
    // A shift count of another integer type is taken modulo the left operand's width.
    assert_eq!(scalar(bin(Shl, i32c(1), int(I64, 34))), Scalar::I32(4));
}

#[test]
fn uint32_and_narrow_arithmetic() {
    let cases: &[(BinaryOp, u32, u32, u32)] = &[
        (Sub, 0, 1, u32::MAX),
        (Add, u32::MAX, 2, 1),
        (Mul, 0x8000_0000, 2, 0),
        (Div, u32::MAX, 2, 0x7FFF_FFFF),
        (Rem, u32::MAX, 10, 5),
        (Shr, 0x8000_0000, 31, 1),
        (UShr, 0x8000_0000, 63, 1),
        (Shl, 3, 32, 3),
    ];
    for &(op, a, b, want) in cases {
        assert_eq!(
            scalar(bin(op, u32c(a), u32c(b))),
            Scalar::U32(want),
            "{a} {op:?} {b}"
        );
    }
    // Unsigned comparison: 0x80000000 is large, not negative.
    assert_eq!(
        scalar(bin(Gt, u32c(0x8000_0000), u32c(1))),
        Scalar::Bool(true)
    );
    assert_eq!(scalar(un(UnaryOp::Neg, u32c(1))), Scalar::U32(u32::MAX));
    assert_eq!(scalar(bin(Add, int(U8, 250), int(U8, 10))), Scalar::U8(4));
    assert_eq!(
        scalar(bin(Mul, int(I16, 300), int(I16, 300))),
        Scalar::I16(24464)
    );
    assert_eq!(scalar(bin(Shl, int(I8, 1), int(I8, 9))), Scalar::I8(2));
    assert_eq!(scalar(bin(Shr, int(I8, -128), int(I8, 7))), Scalar::I8(-1));
    assert_eq!(scalar(bin(UShr, int(I8, -128), int(I8, 7))), Scalar::I8(1));
    assert_eq!(
        scalar(bin(Div, int(I64, i64::MIN), int(I64, -1))),
        Scalar::I64(i64::MIN)
    );
    assert_eq!(
        scalar(bin(Sub, int(U64, 0), int(U64, 1))),
        Scalar::U64(u64::MAX)
    );
}

#[test]
fn float32_arithmetic_is_ieee_single() {
    // Computed in f32: 1e8 + 1 rounds back to 1e8 (in f64 the difference would be 1).
    let e = bin(Sub, bin(Add, f32c(1e8), f32c(1.0)), f32c(1e8));
    assert_eq!(scalar(e), Scalar::F32(0.0));
    assert_eq!(
        scalar(bin(Add, f32c(0.1), f32c(0.2))),
        Scalar::F32(0.1f32 + 0.2f32)
    );
    assert_eq!(
        scalar(bin(Div, f32c(1.0), f32c(0.0))),
        Scalar::F32(f32::INFINITY)
    );
    assert_eq!(scalar(bin(Rem, f32c(-7.5), f32c(2.0))), Scalar::F32(-1.5));
    let nan = || f32c(f32::NAN);
    assert_eq!(scalar(bin(Ne, nan(), nan())), Scalar::Bool(true));
    assert_eq!(scalar(bin(Eq, nan(), nan())), Scalar::Bool(false));
    assert_eq!(scalar(bin(Lt, nan(), f32c(1.0))), Scalar::Bool(false));
    assert_eq!(scalar(bin(Ge, nan(), f32c(1.0))), Scalar::Bool(false));
    assert_eq!(scalar(un(UnaryOp::Neg, f32c(0.0))), Scalar::F32(-0.0));
    assert_eq!(
        scalar(bin(Mul, f64c(0.1), f64c(3.0))),
        Scalar::F64(0.1 * 3.0)
    );
    // float16 arithmetic rounds each result to half precision: 2048 + 1 = 2048.
    let h = |x: f64| Expr::constant(Constant::Float(x), ty(F16), at(0));
    assert_eq!(scalar(bin(Add, h(2048.0), h(1.0))), Scalar::F16(2048.0));
    assert_eq!(
        scalar(bin(Mul, h(300.0), h(300.0))),
        Scalar::F16(f32::INFINITY)
    );
}

#[test]
fn integer_division_by_zero_is_an_error_at_its_position() {
    for op in [Div, Rem] {
        let e = with_span(bin(op, i32c(7), i32c(0)), at(13));
        let error = eval(e).unwrap_err();
        assert_eq!(error.span, Some(at(13)));
        let what = if op == Div { "division" } else { "remainder" };
        assert_eq!(error.message, format!("integer {what} by zero"));
    }
    let error = eval(with_span(bin(Div, u32c(1), u32c(0)), at(5))).unwrap_err();
    assert_eq!(error.span, Some(at(5)));
    let mut sources = SourceMap::new();
    sources.add("t.cajeta", "class T {\n  x = 1 / 0;\n}\n");
    let error = HostError {
        message: "integer division by zero".into(),
        span: Some(at(16)),
        launch: None,
        notes: Vec::new(),
    };
    assert_eq!(
        error.render(&sources),
        "t.cajeta:2:7: runtime error: integer division by zero"
    );
    // Float division by zero is IEEE, not an error.
    assert_eq!(
        scalar(bin(Div, f32c(-1.0), f32c(0.0))),
        Scalar::F32(f32::NEG_INFINITY)
    );
}

#[test]
fn conversions_truncate_saturate_and_wrap() {
    let cases: Vec<(Expr, ScalarType, Scalar)> = vec![
        (f32c(3.9), I32, Scalar::I32(3)),
        (f32c(-3.9), I32, Scalar::I32(-3)),
        (f32c(1e10), I32, Scalar::I32(i32::MAX)),
        (f32c(-1e10), I32, Scalar::I32(i32::MIN)),
        (f32c(f32::NAN), I32, Scalar::I32(0)),
        (f32c(f32::INFINITY), U8, Scalar::U8(255)),
        (f32c(-1.0), U32, Scalar::U32(0)),
        (f64c(1e300), I64, Scalar::I64(i64::MAX)),
        (i32c(300), U8, Scalar::U8(44)),
        (i32c(200), I8, Scalar::I8(-56)),
        (i32c(-1), U32, Scalar::U32(u32::MAX)),
        (i32c(-1), I64, Scalar::I64(-1)),
        (u32c(u32::MAX), I64, Scalar::I64(u32::MAX as i64)),
        (i32c(16_777_217), F32, Scalar::F32(16_777_216.0)),
        (
            int(I64, (1 << 53) + 1),
            F64,
            Scalar::F64((1u64 << 53) as f64),
        ),
        (f64c(0.1), F32, Scalar::F32(0.1)),
        (f32c(0.1), F16, Scalar::F16(0.099975586)),
        (f32c(70000.0), F16, Scalar::F16(f32::INFINITY)),
        (f32c(1e-8), F16, Scalar::F16(0.0)),
        (f32c(6e-8), F16, Scalar::F16(5.9604645e-8)),
        (f32c(1.0 + 1.0 / 256.0), BF16, Scalar::BF16(1.0)),
        (f32c(1.0 + 3.0 / 256.0), BF16, Scalar::BF16(1.015625)),
        (i32c(65519), F16, Scalar::F16(65504.0)),
        (i32c(65520), F16, Scalar::F16(f32::INFINITY)),
    ];
    for (e, to, want) in cases {
        let what = format!("{:?} -> {to}", e.kind);
        let got = scalar(conv(e, to));
        assert_eq!(got, want, "{what}");
    }
}

/// Function 1: prints "side" and returns true.
fn side_effect() -> Function {
    func(
        "side",
        &[],
        &[],
        ty(Bool),
        vec![
            println(host(HostOp::ToString, vec![boolc(true)], Type::String)),
            ret(boolc(true)),
        ],
    )
}

#[test]
fn logical_operators_and_select_short_circuit() {
    let side = || call(1, vec![], ty(Bool));
    let cases = [
        (and(boolc(false), side()), false, ""),
        (or(boolc(true), side()), true, ""),
        (and(boolc(true), side()), true, "true\n"),
        (or(boolc(false), side()), true, "true\n"),
        (select(boolc(true), boolc(false), side()), false, ""),
        (select(boolc(false), side(), boolc(false)), false, ""),
    ];
    for (e, want, printed) in cases {
        let run = func("run", &[], &[], ty(Bool), vec![ret(e)]);
        let (result, out) = run_fns(vec![run, side_effect()], &[]);
        assert_eq!(
            result.unwrap(),
            HostOutcome::Returned(Value::Scalar(Scalar::Bool(want)))
        );
        assert_eq!(out, printed);
    }
}

#[test]
fn labeled_break_and_continue_reach_outer_loops() {
    // outer: for (i = 0; i < 5; i++) { for (j = 0; j < 5; j++) {
    //   if (i == 3) break outer; if (j == 2) continue outer; count++; } }
    let (i, j, count) = (0, 1, 2);
    let inner = for_loop(
        1,
        bin(Lt, load(j, ty(I32)), i32c(5)),
        vec![incr(j, I32, 1)],
        vec![
            if_(
                bin(Eq, load(i, ty(I32)), i32c(3)),
                vec![Stmt::Break(LoopId(0))],
                vec![],
            ),
            if_(
                bin(Eq, load(j, ty(I32)), i32c(2)),
                vec![Stmt::Continue(LoopId(0))],
                vec![],
            ),
            incr(count, I32, 1),
        ],
    );
    let outer = for_loop(
        0,
        bin(Lt, load(i, ty(I32)), i32c(5)),
        vec![incr(i, I32, 1)],
        vec![store(j, i32c(0)), inner],
    );
    let locals = [ty(I32), ty(I32), ty(I32)];
    let stmts = vec![store(i, i32c(0)), store(count, i32c(0)), outer];
    // count: 2 per i for i = 0, 1, 2; then i = 3 breaks out. The final i shows that
    // `continue outer` ran the outer update and `break outer` skipped it.
    let e = bin(
        Add,
        bin(Mul, load(count, ty(I32)), i32c(100)),
        load(i, ty(I32)),
    );
    assert_eq!(
        eval_with(&locals, stmts, e).unwrap(),
        Value::Scalar(Scalar::I32(603))
    );
}

#[test]
fn do_while_continue_goes_to_the_condition() {
    // i = 0; s = 0; do { i++; if (i % 2 == 0) continue; s += i; } while (i < 10);
    let (i, s) = (0, 1);
    let body = vec![
        incr(i, I32, 1),
        if_(
            bin(Eq, bin(Rem, load(i, ty(I32)), i32c(2)), i32c(0)),
            vec![Stmt::Continue(LoopId(7))],
            vec![],
        ),
        store(s, bin(Add, load(s, ty(I32)), load(i, ty(I32)))),
    ];
    let lp = Stmt::Loop {
        id: LoopId(7),
        pre_cond: None,
        body,
        continuing: vec![],
        post_cond: Some(bin(Lt, load(i, ty(I32)), i32c(10))),
    };
    let stmts = vec![store(i, i32c(0)), store(s, i32c(0)), lp];
    let got = eval_with(&[ty(I32), ty(I32)], stmts, load(s, ty(I32)));
    assert_eq!(got.unwrap(), Value::Scalar(Scalar::I32(25)));

    // A do/while body runs once even when the condition is false from the start.
    let lp = Stmt::Loop {
        id: LoopId(0),
        pre_cond: None,
        body: vec![incr(0, I32, 1)],
        continuing: vec![],
        post_cond: Some(boolc(false)),
    };
    let got = eval_with(&[ty(I32)], vec![store(0, i32c(0)), lp], load(0, ty(I32)));
    assert_eq!(got.unwrap(), Value::Scalar(Scalar::I32(1)));
}

#[test]
fn return_from_inside_nested_loops() {
    // while (true) { while (true) { return 42; } }
    let inner = Stmt::Loop {
        id: LoopId(1),
        pre_cond: Some(boolc(true)),
        body: vec![ret(i32c(42))],
        continuing: vec![],
        post_cond: None,
    };
    let outer = Stmt::Loop {
        id: LoopId(0),
        pre_cond: Some(boolc(true)),
        body: vec![inner],
        continuing: vec![],
        post_cond: None,
    };
    let run = func("run", &[], &[], ty(I32), vec![outer, ret(i32c(0))]);
    let (result, _) = run_fns(vec![run], &[]);
    assert_eq!(
        result.unwrap(),
        HostOutcome::Returned(Value::Scalar(Scalar::I32(42)))
    );
}

#[test]
fn half_precision_encodings_round_trip() {
    use crate::host::interp::ops::{bf16_from_bits, bf16_to_bits, f16_from_bits, f16_to_bits};
    let cases: &[(f32, u16)] = &[
        (0.0, 0x0000),
        (-0.0, 0x8000),
        (1.0, 0x3c00),
        (-2.0, 0xc000),
        (65504.0, 0x7bff),
        (6.1035156e-5, 0x0400),
        (5.9604645e-8, 0x0001),
        (f32::INFINITY, 0x7c00),
        (0.099975586, 0x2e66),
    ];
    for &(x, bits) in cases {
        assert_eq!(f16_to_bits(x), bits, "{x}");
        assert_eq!(f16_from_bits(bits).to_bits(), x.to_bits(), "{bits:#x}");
    }
    assert!(f16_from_bits(f16_to_bits(f32::NAN)).is_nan());
    assert_eq!(bf16_to_bits(1.0), 0x3f80);
    assert_eq!(bf16_from_bits(0xc040), -3.0);
}

#[test]
fn math_intrinsics_work_in_host_code() {
    use crate::ir::{Intrinsic, MathFn};
    let math = |m: MathFn, args: Vec<Expr>| {
        let t = args[0].ty.clone();
        Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Math(m),
                args,
            },
            ty: t,
            span: at(0),
        }
    };
    assert_eq!(
        scalar(math(MathFn::Sqrt, vec![f32c(2.0)])),
        Scalar::F32(2f32.sqrt())
    );
    assert_eq!(
        scalar(math(MathFn::Floor, vec![f32c(-1.5)])),
        Scalar::F32(-2.0)
    );
    assert_eq!(
        scalar(math(MathFn::Abs, vec![i32c(i32::MIN)])),
        Scalar::I32(i32::MIN)
    );
    assert_eq!(
        scalar(math(MathFn::Min, vec![u32c(3), u32c(9)])),
        Scalar::U32(3)
    );
    assert_eq!(
        scalar(math(MathFn::Max, vec![f64c(-0.0), f64c(0.0)])),
        Scalar::F64(0.0)
    );
    let nan = scalar(math(MathFn::Max, vec![f32c(f32::NAN), f32c(1.0)]));
    assert!(matches!(nan, Scalar::F32(x) if x.is_nan()));
}

#[test]
fn output_errors_become_runtime_errors() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let main = func("main", &[], &[], Type::Void, vec![println(i32c(1))]);
    let module = Module {
        functions: vec![main],
        ..Module::default()
    };
    let mut out = Broken;
    let mut io = HostIo {
        stdout: &mut out,
        context: None,
    };
    let error = run_host(
        &module,
        FunctionId(0),
        &[],
        &HashMap::new(),
        &SourceMap::new(),
        &mut io,
    )
    .unwrap_err();
    assert_eq!(error.message, "cannot write to standard output: disk full");
}
