//! Arrays, strings and printing, calls and recursion, entry points, and the device path.

use super::*;
use BinaryOp::*;

fn arr(t: ScalarType) -> Type {
    Type::Array(Box::new(ty(t)))
}

fn new_array(t: ScalarType, n: Expr) -> Expr {
    host(HostOp::NewArray, vec![n], arr(t))
}

fn returned(v: Scalar) -> HostOutcome {
    HostOutcome::Returned(Value::Scalar(v))
}

#[test]
fn arrays_are_zeroed_shared_and_range_checked() {
    // int32[] a = heap int32[3]; int32[] b = a; b[1] = 5; return a[1] * 10 + a[2] + a.length;
    let a = || load(0, arr(I32));
    let stmts = vec![
        store(0, new_array(I32, i32c(3))),
        store(1, load(0, arr(I32))),
        store_index(load(1, arr(I32)), i32c(1), i32c(5), at(0)),
    ];
    let len = host(HostOp::ArrayLength, vec![a()], ty(I32));
    let e = bin(
        Add,
        bin(
            Add,
            bin(Mul, index(a(), i32c(1)), i32c(10)),
            index(a(), i32c(2)),
        ),
        len,
    );
    let got = eval_with(&[arr(I32), arr(I32)], stmts, e);
    assert_eq!(got.unwrap(), Value::Scalar(Scalar::I32(53)));

    // A store one past the end fails at the store statement.
    let stmts = vec![
        store(0, new_array(F32, u32c(3))),
        store_index(a(), i32c(3), f32c(1.0), at(21)),
    ];
    let error = eval_with(&[arr(F32)], stmts, i32c(0)).unwrap_err();
    assert_eq!(error.span, Some(at(21)));
    assert_eq!(error.message, "array index 3 out of bounds for length 3");

    // A negative index on a load fails at the load.
    let stmts = vec![store(0, new_array(I32, i32c(2)))];
    let error = eval_with(&[arr(I32)], stmts, with_span(index(a(), i32c(-1)), at(9))).unwrap_err();
    assert_eq!(error.span, Some(at(9)));
    assert!(
        error.message.contains("index -1 out of bounds"),
        "{}",
        error.message
    );

    // A negative length is an error too.
    let error = eval(with_span(new_array(I32, i32c(-4)), at(3))).unwrap_err();
    assert_eq!(
        (error.span, error.message.as_str()),
        (Some(at(3)), "negative array length -4")
    );
}

#[test]
fn array_literals_and_typed_storage() {
    let lit = host(
        HostOp::ArrayLiteral,
        vec![f32c(1.5), f32c(-2.0), f32c(0.25)],
        arr(F32),
    );
    let run = func("main", &[], &[], Type::Void, vec![println(lit)]);
    assert_eq!(run_fns(vec![run], &[]).1, "[1.5, -2.0, 0.25]\n");
    let mut a = Array::new(&ty(F32), 2).unwrap();
    a.set(1, Value::Scalar(Scalar::F32(4.0))).unwrap();
    assert_eq!(a, Array::F32(vec![0.0, 4.0]));
    let lit = host(HostOp::ArrayLiteral, vec![u32c(7)], arr(U32));
    assert_eq!(
        eval(index(lit, u32c(0))).unwrap(),
        Value::Scalar(Scalar::U32(7))
    );
}

#[test]
fn strings_concatenate_and_print_like_java() {
    // main(String[] args) { println(args[0] + 42); print(1.0f); print(" "); println(1e10f);
    //   println(args.length + ", " + 0.5); println(); println(arr) }
    let args = || load(0, Type::Array(Box::new(Type::String)));
    let s = |a: Expr, b: Expr| host(HostOp::Concat, vec![a, b], Type::String);
    let print = |e: Expr| Stmt::Expr(host(HostOp::Print, vec![e], Type::Void));
    let len = host(HostOp::ArrayLength, vec![args()], ty(I32));
    let lit = host(HostOp::ArrayLiteral, vec![i32c(1), i32c(-2)], arr(I32));
    let body = vec![
        println(s(index(args(), i32c(0)), i32c(42))),
        print(f32c(1.0)),
        print(index(args(), i32c(1))),
        println(f32c(1e10)),
        println(s(s(len, strc(", ")), f64c(0.5))),
        Stmt::Expr(host(HostOp::Println, vec![], Type::Void)),
        println(lit),
        println(s(boolc(true), int(U64, -1))),
        println(host(HostOp::ToString, vec![f32c(-0.001)], Type::String)),
    ];
    let main = func(
        "main",
        &[Type::Array(Box::new(Type::String))],
        &[],
        Type::Void,
        body,
    );
    let (result, out) = run_fns(vec![main], &["hi", " "]);
    assert_eq!(result.unwrap(), HostOutcome::Void);
    assert_eq!(
        out,
        "hi42\n1.0 1.0E10\n2, 0.5\n\n[1, -2]\ntrue18446744073709551615\n-0.001\n"
    );
}

/// `int32 sum(int32 n) { return n == 0 ? 0 : n + sum(n - 1); }` as function 1.
fn sum_fn() -> Function {
    let n = || load(0, ty(I32));
    let rec = bin(Add, n(), call(1, vec![bin(Sub, n(), i32c(1))], ty(I32)));
    let body = vec![ret(select(bin(Eq, n(), i32c(0)), i32c(0), rec))];
    func("sum", &[ty(I32)], &[], ty(I32), body)
}

#[test]
fn recursive_host_functions() {
    let run = |n: i32| {
        let main = func(
            "run",
            &[],
            &[],
            ty(I32),
            vec![ret(call(1, vec![i32c(n)], ty(I32)))],
        );
        run_fns(vec![main, sum_fn()], &[]).0
    };
    assert_eq!(run(100).unwrap(), returned(Scalar::I32(5050)));
    // Deep but under the cap: runs on the interpreter's big stack.
    assert_eq!(run(9_990).unwrap(), returned(Scalar::I32(49_905_045)));
    // Past the cap: an error, not a stack overflow.
    let error = run(20_000).unwrap_err();
    assert!(
        error.message.starts_with("recursion too deep"),
        "{}",
        error.message
    );
}

#[test]
fn a_million_iterations_fill_an_array() {
    // float32[] a = heap float32[N]; for (int32 i = 0; i < N; i++) a[i] = (float32) i * 0.5f;
    // int32 bad = 0; for (i = 0; i < N; i++) if (a[i] != (float32) i / 2.0f) bad++;
    const N: i32 = 1_000_003;
    let (a, i, bad) = (0, 1, 2);
    let ai = || index(load(a, arr(F32)), load(i, ty(I32)));
    let fill = for_loop(
        0,
        bin(Lt, load(i, ty(I32)), i32c(N)),
        vec![incr(i, I32, 1)],
        vec![store_index(
            load(a, arr(F32)),
            load(i, ty(I32)),
            bin(Mul, conv(load(i, ty(I32)), F32), f32c(0.5)),
            at(0),
        )],
    );
    let check = for_loop(
        1,
        bin(Lt, load(i, ty(I32)), i32c(N)),
        vec![incr(i, I32, 1)],
        vec![if_(
            bin(Ne, ai(), bin(Div, conv(load(i, ty(I32)), F32), f32c(2.0))),
            vec![incr(bad, I32, 1)],
            vec![],
        )],
    );
    let stmts = vec![
        store(a, new_array(F32, i32c(N))),
        store(i, i32c(0)),
        fill,
        store(i, i32c(0)),
        store(bad, i32c(0)),
        check,
    ];
    let last = conv(index(load(a, arr(F32)), i32c(N - 1)), I32);
    let e = bin(Add, bin(Mul, load(bad, ty(I32)), i32c(1 << 24)), last);
    let got = eval_with(&[arr(F32), ty(I32), ty(I32)], stmts, e);
    assert_eq!(got.unwrap(), Value::Scalar(Scalar::I32((N - 1) / 2)));
}

#[test]
fn run_returns_an_int_that_displays_plainly() {
    let run = func("run", &[], &[], ty(I32), vec![ret(i32c(777))]);
    match run_fns(vec![run], &[]).0.unwrap() {
        HostOutcome::Returned(v) => assert_eq!(v.to_string(), "777"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn entry_with_wrong_parameters_is_an_error() {
    let bad = func("run", &[ty(I32)], &[], ty(I32), vec![ret(i32c(0))]);
    let error = run_fns(vec![bad], &[]).0.unwrap_err();
    assert!(error.message.contains("entry method"), "{}", error.message);
}

#[test]
fn device_ops_without_a_kernel_module_fail_cleanly() {
    // Launching a kernel that has no compiled module is a runtime error, not a panic, and
    // so is reading a buffer element on the host.
    let mut kernel = func("k", &[], &[], Type::Void, vec![]);
    kernel.kind = FunctionKind::Kernel;
    let direct = call(1, vec![], Type::Void);
    let run = func(
        "run",
        &[],
        &[],
        ty(I32),
        vec![Stmt::Expr(direct), ret(i32c(0))],
    );
    let error = run_fns(vec![run, kernel], &[]).0.unwrap_err();
    assert!(
        error.message.contains("cannot be called directly"),
        "{}",
        error.message
    );
}

/// Uploads and downloads a buffer through the runtime when a Vulkan device exists.
#[test]
fn buffer_round_trip_through_the_runtime() {
    if let Err(e) = cajeta_runtime::Context::new() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("no Vulkan device in CI: {e}");
        }
        eprintln!("skipping: no Vulkan device ({e})");
        return;
    }
    // KernelBuffer<int32> b = heap KernelBuffer<int32>(4); b.upload([1, -2, 3, 2^31-1]);
    // int32[] out = heap int32[4]; b.download(out); return out[1] * 10 + out[3] - b.length();
    let buf_ty = Type::buffer(Type::Scalar(I32));
    let b = || load(0, buf_ty.clone());
    let out = || load(1, arr(I32));
    let lit = host(
        HostOp::ArrayLiteral,
        vec![i32c(1), i32c(-2), i32c(3), i32c(i32::MAX)],
        arr(I32),
    );
    let body = vec![
        store(0, host(HostOp::NewBuffer, vec![u32c(4)], buf_ty.clone())),
        Stmt::Expr(host(HostOp::BufferUpload, vec![b(), lit], Type::Void)),
        store(1, new_array(I32, i32c(4))),
        Stmt::Expr(host(HostOp::BufferDownload, vec![b(), out()], Type::Void)),
        println(out()),
        // A length mismatch names both lengths.
        Stmt::Expr(with_span(
            host(
                HostOp::BufferUpload,
                vec![b(), new_array(I32, i32c(3))],
                Type::Void,
            ),
            at(77),
        )),
        ret(i32c(0)),
    ];
    let run = func("run", &[], &[buf_ty.clone(), arr(I32)], ty(I32), body);
    let (result, printed) = run_fns(vec![run], &[]);
    assert_eq!(printed, "[1, -2, 3, 2147483647]\n");
    let error = result.unwrap_err();
    assert_eq!(error.span, Some(at(77)));
    assert_eq!(
        error.message,
        "upload length mismatch: the KernelBuffer<int32> has 4 elements but the host array has 3"
    );
}
