//! Whole kernels: SPEC §1 image kernels, saxpy, helpers, loops, queries and errors.

use super::*;
use crate::diagnostics::Code;
use cajeta_runtime::{Access, DescriptorType, ParameterSlot};

const IMG: Type = Type::Image2D(ImageFormat::R32f);
fn fbuf() -> Type {
    Type::buffer(Type::Scalar(ScalarType::F32))
}
fn ubuf() -> Type {
    Type::buffer(Type::Scalar(ScalarType::U32))
}

/// SPEC §1: `fill` (rmw = false) or `rmw`.
fn image_kernel(rmw: bool) -> Module {
    let mut k = Fb::kernel(if rmw { "rmw" } else { "fill" });
    let img = k.param("img", IMG);
    let w = k.param("w", U32);
    let h = k.param("h", U32);
    let x = k.local("x", U32);
    let y = k.local("y", U32);
    let value = if rmw {
        let load = intr(
            Intrinsic::ImageLoad,
            vec![img.clone(), x.clone(), y.clone()],
            F32,
        );
        bin(
            BinaryOp::Add,
            bin(BinaryOp::Mul, f32c(2.0), load),
            f32c(1.0),
        )
    } else {
        let yw = bin(BinaryOp::Mul, y.clone(), w.clone());
        conv(bin(BinaryOp::Add, yw, x.clone()), ScalarType::F32)
    };
    let store = intr(
        Intrinsic::ImageStore,
        vec![img, x.clone(), y.clone(), value],
        Type::Void,
    );
    let f = k.body(vec![
        set(&x, gid(Axis::X)),
        set(&y, gid(Axis::Y)),
        if_(
            and(bin(BinaryOp::Lt, x, w), bin(BinaryOp::Lt, y, h)),
            vec![Stmt::Expr(store)],
            vec![],
        ),
    ]);
    module(vec![f])
}

#[test]
fn fill_writes_image_with_one_image_write() {
    let (out, dis) = build(&image_kernel(false), 0);
    assert_eq!(count_op(&dis, "OpImageWrite"), 1, "{dis}");
    assert_eq!(count_op(&dis, "OpImageRead"), 0, "{dis}");
    assert!(dis.contains("2D 0 0 0 2 R32f"), "{dis}");
    assert_eq!(count_op(&dis, "OpCapability"), 1, "{dis}");
    assert!(dis.contains("OpCapability Shader"));
    assert_eq!(count_op(&dis, "OpExtension"), 0);
    assert!(dis.contains("OpEntryPoint GLCompute"), "{dis}");
    assert!(dis.contains("\"fill\""));
    assert!(dis.contains("OpMemoryModel Logical GLSL450"));
    assert!(
        dis.contains("OpExecutionMode %") && dis.contains("LocalSize 64 1 1"),
        "{dis}"
    );
    assert!(dis.contains("NonReadable"), "{dis}");
    assert!(dis.contains("BuiltIn GlobalInvocationId"));
    assert!(!dis.contains("BuiltIn LocalInvocationId"));
    let r = &out.reflection;
    assert_eq!(r.entry_point, "fill");
    assert_eq!(r.spirv_version, "1.3");
    assert_eq!(r.target_env, "vulkan1.1");
    assert_eq!(r.capabilities, vec!["Shader"]);
    assert!(r.extensions.is_empty() && r.vulkan_features.is_empty());
    assert_eq!(r.bindings.len(), 1);
    let b = &r.bindings[0];
    assert_eq!((b.set, b.binding), (0, 0));
    assert_eq!(b.descriptor_type, DescriptorType::StorageImage);
    assert_eq!(b.image_format.as_deref(), Some("r32f"));
    assert_eq!(b.access, Access::Write);
    assert_eq!(r.push_constants.size, 8);
    let m: Vec<_> = r
        .push_constants
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.offset, m.size, m.ty.as_str()))
        .collect();
    assert_eq!(m, vec![("w", 0, 4, "uint32"), ("h", 4, 4, "uint32")]);
    let slots: Vec<_> = r.parameters.iter().map(|p| p.slot).collect();
    assert_eq!(
        slots,
        vec![
            ParameterSlot::Binding(0),
            ParameterSlot::PushConstant(0),
            ParameterSlot::PushConstant(1)
        ]
    );
    assert_eq!(r.workgroup_size_spec_ids, [0, 1, 2]);
    assert_eq!(r.default_workgroup_size, [64, 1, 1]);
    let spec: Vec<_> = r
        .spec_constants
        .iter()
        .map(|s| (s.id, s.name.as_str(), s.default))
        .collect();
    assert_eq!(
        spec,
        vec![
            (0, "workgroup_size_x", 64),
            (1, "workgroup_size_y", 1),
            (2, "workgroup_size_z", 1)
        ]
    );
    for id in 0..3 {
        assert!(dis.contains(&format!("SpecId {id}")), "{dis}");
    }
    assert!(dis.contains("BuiltIn WorkgroupSize"));
    // `&&` short-circuits through a selection and a phi.
    assert_eq!(count_op(&dis, "OpPhi"), 1, "{dis}");
}

#[test]
fn rmw_reads_and_writes_image_once() {
    let (out, dis) = build(&image_kernel(true), 0);
    assert_eq!(count_op(&dis, "OpImageWrite"), 1, "{dis}");
    assert_eq!(count_op(&dis, "OpImageRead"), 1, "{dis}");
    assert_eq!(count_op(&dis, "OpCapability"), 1, "{dis}");
    assert!(
        !dis.contains("NonReadable") && !dis.contains("NonWritable"),
        "{dis}"
    );
    assert_eq!(out.reflection.bindings[0].access, Access::ReadWrite);
    assert!(dis.contains("NoContraction"), "{dis}");
}

#[test]
fn interface_lists_all_globals_from_spirv_1_4() {
    let m = image_kernel(true);
    let (_, dis13) = build(&m, 0);
    let entry13 = dis13
        .lines()
        .find(|l| l.contains("OpEntryPoint"))
        .unwrap()
        .to_string();
    // SPIR-V 1.3: only the GlobalInvocationId input.
    assert_eq!(entry13.matches('%').count(), 2, "{entry13}");
    let dis16 = dis_vk13(&m, 0);
    let entry16 = dis16
        .lines()
        .find(|l| l.contains("OpEntryPoint"))
        .unwrap()
        .to_string();
    // SPIR-V 1.6: the image, the push constants and the built-in.
    assert_eq!(entry16.matches('%').count(), 4, "{entry16}");
}

fn saxpy() -> Module {
    let mut k = Fb::kernel("saxpy");
    let x = k.param("x", fbuf());
    let y = k.param("y", fbuf());
    let a = k.param("a", F32);
    let n = k.param("n", U32);
    let i = k.local("i", U32);
    let f = k.body(vec![
        set(&i, gid(Axis::X)),
        if_(
            bin(BinaryOp::Ge, i.clone(), n),
            vec![Stmt::Return(None, sp())],
            vec![],
        ),
        set_at(
            &y,
            i.clone(),
            bin(
                BinaryOp::Add,
                bin(BinaryOp::Mul, a, at(&x, i.clone())),
                at(&y, i),
            ),
        ),
    ]);
    module(vec![f])
}

#[test]
fn saxpy_marks_read_only_buffer_non_writable() {
    let (out, dis) = build(&saxpy(), 0);
    let r = &out.reflection;
    assert_eq!(r.bindings.len(), 2);
    assert_eq!(r.bindings[0].name, "x");
    assert_eq!(r.bindings[0].access, Access::Read);
    assert_eq!(r.bindings[1].access, Access::ReadWrite);
    assert_eq!(r.bindings[0].descriptor_type, DescriptorType::StorageBuffer);
    assert_eq!(r.bindings[0].element_type.as_deref(), Some("float32"));
    assert_eq!(r.bindings[0].element_stride, Some(4));
    assert_eq!(dis.matches("NonWritable").count(), 1, "{dis}");
    assert!(
        dis.contains("ArrayStride 4") && dis.contains("Block"),
        "{dis}"
    );
    assert!(dis.contains("StorageBuffer"), "{dis}");
    assert_eq!(r.push_constants.size, 8);
    let offsets: Vec<_> = r
        .push_constants
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.offset))
        .collect();
    assert_eq!(offsets, vec![("a", 0), ("n", 4)]);
    assert_eq!(r.parameters[2].slot, ParameterSlot::PushConstant(0));
    assert_eq!(count_op(&dis, "OpReturn"), 2, "{dis}");
    assert_eq!(r.capabilities, vec!["Shader"]);
}

#[test]
fn fast_math_drops_no_contraction() {
    let mut m = saxpy();
    m.functions[0].fast_math = true;
    let (_, dis) = build(&m, 0);
    assert!(!dis.contains("NoContraction"), "{dis}");
}

/// `addOne(KernelBuffer<float32> b, uint32 i) { b[i] = b[i] + 1; }` called with two
/// different buffers, a scalar helper `twice`, and a read-only helper.
#[test]
fn device_helpers_are_specialized_per_buffer() {
    let mut h = Fb::device("addOne", Type::Void);
    let hb = h.param("b", fbuf());
    let hi = h.param("i", U32);
    let add_one = h.body(vec![set_at(
        &hb,
        hi.clone(),
        bin(BinaryOp::Add, at(&hb, hi), f32c(1.0)),
    )]);
    let mut t = Fb::device("twice", F32);
    let v = t.param("v", F32);
    // Assigns its parameter, which then needs a Function variable.
    let twice = t.body(vec![
        set(&v, bin(BinaryOp::Mul, v.clone(), f32c(2.0))),
        Stmt::Return(Some(v), sp()),
    ]);
    let mut r = Fb::device("first", F32);
    let rb = r.param("src", fbuf());
    let first = r.body(vec![Stmt::Return(Some(at(&rb, u32c(0))), sp())]);
    let mut k = Fb::kernel("helpers");
    let a = k.param("a", fbuf());
    let b = k.param("b", fbuf());
    let c = k.param("c", fbuf());
    let d = k.param("d", fbuf());
    let i = k.local("i", U32);
    let alias = k.local("alias", fbuf());
    let kernel = k.body(vec![
        set(&i, gid(Axis::X)),
        set(&alias, b.clone()),
        Stmt::Expr(call(0, vec![alias, i.clone()], Type::Void)),
        Stmt::Expr(call(0, vec![a.clone(), i.clone()], Type::Void)),
        Stmt::Expr(call(0, vec![b.clone(), i.clone()], Type::Void)),
        Stmt::Expr(call(0, vec![a.clone(), i.clone()], Type::Void)),
        set_at(&c, i.clone(), call(1, vec![at(&a, i.clone())], F32)),
        set_at(&c, u32c(1), call(3, vec![d], F32)),
    ]);
    let m = module(vec![add_one, twice, kernel, first]);
    let (out, dis) = build(&m, 2);
    // kernel + addOne(a) + addOne(b) + twice + first(d)
    assert_eq!(count_op(&dis, "OpFunction"), 5, "{dis}");
    assert_eq!(count_op(&dis, "OpFunctionCall"), 6, "{dis}");
    let access: Vec<_> = out.reflection.bindings.iter().map(|b| b.access).collect();
    assert_eq!(
        access,
        vec![
            Access::ReadWrite,
            Access::ReadWrite,
            Access::Write,
            Access::Read
        ]
    );
}

/// ```text
/// outer: for (i = 0; i < n; i += 1) {
///   for (j = 0; j < n; j += 1) {
///     if (j == 3) continue outer;
///     if (i * j > 20) break outer;
///     count += 1;
///   }
/// }
/// do { count += 1; } while (count < 5);
/// out[0] = count;
/// ```
#[test]
fn labeled_break_and_continue_out_of_nested_loop() {
    let mut k = Fb::kernel("loops");
    let out = k.param("out", ubuf());
    let n = k.param("n", U32);
    let i = k.local("i", U32);
    let j = k.local("j", U32);
    let count = k.local("count", U32);
    let inc = |v: &Expr| set(v, bin(BinaryOp::Add, v.clone(), u32c(1)));
    let inner = for_(
        1,
        bin(BinaryOp::Lt, j.clone(), n.clone()),
        vec![
            if_(
                bin(BinaryOp::Eq, j.clone(), u32c(3)),
                vec![Stmt::Continue(LoopId(0))],
                vec![],
            ),
            if_(
                bin(
                    BinaryOp::Gt,
                    bin(BinaryOp::Mul, i.clone(), j.clone()),
                    u32c(20),
                ),
                vec![Stmt::Break(LoopId(0))],
                vec![],
            ),
            inc(&count),
        ],
        vec![inc(&j)],
    );
    let outer = for_(
        0,
        bin(BinaryOp::Lt, i.clone(), n.clone()),
        vec![set(&j, u32c(0)), inner],
        vec![inc(&i)],
    );
    // Short-circuit conditions in both loop tests; `n` (a parameter) is assigned.
    let do_while = Stmt::Loop {
        id: LoopId(2),
        pre_cond: Some(and(
            bin(BinaryOp::Lt, count.clone(), u32c(100)),
            bin(BinaryOp::Ne, at(&out, count.clone()), u32c(0)),
        )),
        body: vec![inc(&count), inc(&n)],
        continuing: vec![],
        post_cond: Some(or(
            bin(BinaryOp::Lt, count.clone(), u32c(5)),
            bin(BinaryOp::Lt, n.clone(), u32c(9)),
        )),
    };
    let f = k.body(vec![
        set(&count, u32c(0)),
        set(&i, u32c(0)),
        outer,
        do_while,
        set_at(&out, u32c(0), count),
    ]);
    let (_, dis) = build(&module(vec![f]), 0);
    assert_eq!(count_op(&dis, "OpLoopMerge"), 3, "{dis}");
    assert_eq!(count_op(&dis, "OpPhi"), 2, "{dis}");
    assert!(dis.contains("$exit"), "{dis}");
}

/// Three nested loops, with a jump from the innermost to the outermost and a return.
#[test]
fn labeled_jump_across_two_loops_and_return_in_loop() {
    let mut k = Fb::kernel("deep");
    let out = k.param("out", ubuf());
    let i = k.local("i", U32);
    let forever = |id: usize, body: Vec<Stmt>| Stmt::Loop {
        id: LoopId(id),
        pre_cond: None,
        body,
        continuing: vec![],
        post_cond: None,
    };
    let innermost = forever(
        2,
        vec![
            set(&i, bin(BinaryOp::Add, i.clone(), u32c(1))),
            if_(
                bin(BinaryOp::Gt, i.clone(), u32c(10)),
                vec![Stmt::Break(LoopId(0))],
                vec![],
            ),
            if_(
                bin(BinaryOp::Eq, i.clone(), u32c(7)),
                vec![Stmt::Continue(LoopId(0))],
                vec![],
            ),
            if_(
                bin(BinaryOp::Eq, i.clone(), u32c(99)),
                vec![Stmt::Return(None, sp())],
                vec![],
            ),
            Stmt::Break(LoopId(2)),
        ],
    );
    let middle = forever(1, vec![innermost, Stmt::Break(LoopId(1))]);
    let outer = forever(0, vec![middle]);
    let f = k.body(vec![
        set(&i, u32c(0)),
        outer,
        set_at(&out, u32c(0), i.clone()),
    ]);
    build(&module(vec![f]), 0);

    // An infinite loop with no way out: the merge is unreachable and nothing follows.
    let mut k = Fb::kernel("spin");
    let out = k.param("out", ubuf());
    let f = k.body(vec![
        forever(0, vec![set_at(&out, u32c(0), u32c(1))]),
        set_at(&out, u32c(1), u32c(2)),
    ]);
    let (_, dis) = build(&module(vec![f]), 0);
    assert_eq!(count_op(&dis, "OpUnreachable"), 1, "{dis}");
}

#[test]
fn queries_need_image_query_and_array_length() {
    let mut k = Fb::kernel("sizes");
    let img = k.param("img", IMG);
    let out = k.param("out", ubuf());
    let width = intr(Intrinsic::ImageWidth, vec![img.clone()], U32);
    let height = intr(Intrinsic::ImageHeight, vec![img], U32);
    let len = intr(Intrinsic::BufferLength, vec![out.clone()], U32);
    let f = k.body(vec![
        set_at(&out, u32c(0), width),
        set_at(&out, u32c(1), height),
        set_at(&out, u32c(2), len),
    ]);
    let (r, dis) = build(&module(vec![f]), 0);
    assert_eq!(r.reflection.capabilities, vec!["Shader", "ImageQuery"]);
    assert_eq!(count_op(&dis, "OpImageQuerySize"), 2, "{dis}");
    assert_eq!(count_op(&dis, "OpArrayLength"), 1, "{dis}");
    // Only queried: neither read nor written.
    assert_eq!(r.reflection.bindings[0].access, Access::Read);
    assert_eq!(r.reflection.bindings[1].access, Access::Write);
    assert!(r.reflection.push_constants.members.is_empty());
    assert_eq!(r.reflection.push_constants.size, 0);
    assert!(!dis.contains("PushConstant"), "{dis}");
}

#[test]
fn thread_and_workgroup_builtins() {
    let mut k = Fb::kernel("ids");
    let out = k.param("out", ubuf());
    let ops = [
        Intrinsic::LocalId(Axis::X),
        Intrinsic::GlobalId(Axis::Y),
        Intrinsic::GlobalSize(Axis::X),
        Intrinsic::WorkgroupId(Axis::Z),
        Intrinsic::WorkgroupSize(Axis::Y),
        Intrinsic::WorkgroupCount(Axis::Z),
    ];
    let body = ops
        .iter()
        .enumerate()
        .map(|(n, op)| set_at(&out, u32c(n as u32), intr(*op, vec![], U32)))
        .collect();
    let (_, dis) = build(&module(vec![k.body(body)]), 0);
    for b in [
        "LocalInvocationId",
        "GlobalInvocationId",
        "WorkgroupId",
        "NumWorkgroups",
    ] {
        assert_eq!(dis.matches(&format!("BuiltIn {b}")).count(), 1, "{dis}");
    }
}

#[test]
fn errors_instead_of_panics() {
    // A host operation in a kernel.
    let mut k = Fb::kernel("bad");
    k.param("n", U32);
    let host = expr(
        ExprKind::Host {
            op: HostOp::Println,
            args: vec![],
        },
        Type::Void,
    );
    let m = module(vec![k.body(vec![Stmt::Expr(host)])]);
    let err = compile_kernel(&m, FunctionId(0), &SpirvOptions::default()).unwrap_err();
    assert_eq!(err[0].code, Code::HostOnlyInDevice);
    // A host type as a kernel parameter.
    let mut k = Fb::kernel("bad2");
    k.param("s", Type::String);
    let m = module(vec![k.body(vec![])]);
    assert!(compile_kernel(&m, FunctionId(0), &SpirvOptions::default()).is_err());
    // A bfloat16 buffer is stored as 16-bit words.
    let mut k = Fb::kernel("bf");
    k.param("b", Type::buffer(Type::Scalar(ScalarType::BF16)));
    let m = module(vec![k.body(vec![])]);
    let ok = compile_kernel(&m, FunctionId(0), &SpirvOptions::default()).expect("bfloat16 buffer");
    assert_eq!(ok.reflection.bindings[0].element_stride, Some(2));
    // Not a kernel, and an id out of range.
    let m = module(vec![Fb::device("d", Type::Void).body(vec![])]);
    assert!(compile_kernel(&m, FunctionId(0), &SpirvOptions::default()).is_err());
    assert!(compile_kernel(&m, FunctionId(7), &SpirvOptions::default()).is_err());
    // Recursion through a helper.
    let rec = Fb::device("rec", Type::Void).body(vec![Stmt::Expr(call(0, vec![], Type::Void))]);
    let k = Fb::kernel("k").body(vec![Stmt::Expr(call(0, vec![], Type::Void))]);
    let err = compile_kernel(
        &module(vec![rec, k]),
        FunctionId(1),
        &SpirvOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err[0].code, Code::Recursion);
    // Break outside its loop.
    let k = Fb::kernel("k").body(vec![Stmt::Break(LoopId(3))]);
    let err =
        compile_kernel(&module(vec![k]), FunctionId(0), &SpirvOptions::default()).unwrap_err();
    assert_eq!(err[0].code, Code::BreakOutsideLoop);
}
