//! Cajeta's library forms added for porting (docs/porting-from-cajeta.md): what the kernel
//! backends refuse with a diagnostic instead of emitting an invalid module, and what each
//! backend lowers them to. The values are checked by `tests/device/cajeta_*.cajeta` (on the
//! device, against host code) and `compiler/tests/suite/cajeta_forms.rs` (both host
//! executors).

use cajeta_tests::spirv_val;
use cajetac::diagnostics::{Code, Diagnostic, SourceMap};
use cajetac::driver;
use cajetac::kernel::spirv::{disassemble, CompiledKernel, KernelBackend, SpirvOptions, TargetEnv};

/// Compiles the kernels of a program whose class body is `body`, for `env` through `backend`.
fn compile(
    body: &str,
    env: TargetEnv,
    backend: KernelBackend,
) -> Result<Vec<CompiledKernel>, Vec<Diagnostic>> {
    if backend == KernelBackend::Llvm {
        cajetac::kernel::llvm::enable();
    }
    let source = format!("package t;\nimport cajeta.xpu.*;\npublic final class T {{\n{body}\n}}\n");
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("t.cajeta".to_string(), source)])?;
    let options = SpirvOptions {
        target_env: env,
        backend,
        ..SpirvOptions::default()
    };
    driver::compile_kernels(&module, &options, None)
        .map(|ks| ks.into_iter().map(|(_, k)| k).collect())
}

fn kernel(stmt: &str, params: &str) -> String {
    format!("    @Kernel\n    public static void k({params}) {{\n        uint32 i = KernelThread.globalIdX();\n        {stmt}\n    }}")
}

#[test]
fn float64_logarithms_in_kernels_are_refused_not_emitted_invalid() {
    // GLSL.std.450 has Log/Log2 for 16- and 32-bit floats only: `Math.log` on float64 used
    // to make a module spirv-val rejects.
    for f in ["log", "log10", "exp", "sin"] {
        let body = kernel(
            &format!("d[i] = Math.{f}(d[i]);"),
            "KernelBuffer<float64> d",
        );
        let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv)
            .expect_err("float64 transcendental refused");
        assert_eq!(d[0].code, Code::UnsupportedFeature, "{f}: {d:?}");
        assert!(d[0].message.contains(&format!("Math.{f}")), "{d:?}");
        assert!(d[0].message.contains("float64"), "{d:?}");
    }
    // float64 `sqrt` and the geometric functions are defined for float64.
    let body = kernel(
        "d[i] = Math.sqrt(d[i]); w[i] = w[i].reflect(w[i + 1]) + Math.refract(w[i], w[i + 1], 0.5);",
        "KernelBuffer<float64> d, KernelBuffer<Vector<float64, 3>> w",
    );
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let ks = compile(&body, env, KernelBackend::Rspirv).expect("compiles");
        spirv_val(&ks[0].words, env, "f64-optics").expect("valid");
    }
}

#[test]
fn log10_is_log2_times_log10_of_2_in_both_backends() {
    let body = kernel(
        "x[i] = Math.log10(x[i]); v[i] = Math.log10(v[i]);",
        "KernelBuffer<float32> x, KernelBuffer<Vector<float32, 2>> v",
    );
    let ks = compile(&body, TargetEnv::Vulkan1_1, KernelBackend::Rspirv).expect("rspirv");
    let text = disassemble(&ks[0].words);
    assert_eq!(text.matches(" Log2 ").count(), 2, "{text}");
    assert!(text.contains("0.30103"), "log10(2) constant: {text}");
    assert!(
        text.contains("OpDecorate") && text.contains("NoContraction"),
        "{text}"
    );
    let ks = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm");
    spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-log10").expect("valid");
    assert!(disassemble(&ks[0].words).contains("Log2"));
}

#[test]
fn reflect_and_refract_lower_to_glsl_in_both_backends() {
    let body = kernel(
        "d[i] = d[i].reflect(d[i + 1]) + Math.refract(d[i], d[i + 1], 1.5f);",
        "KernelBuffer<Vector<float32, 3>> d",
    );
    let ks = compile(&body, TargetEnv::Vulkan1_1, KernelBackend::Rspirv).expect("rspirv");
    let text = disassemble(&ks[0].words);
    assert!(
        text.contains(" Reflect ") && text.contains(" Refract "),
        "{text}"
    );
    let ks = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm");
    spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-optics").expect("valid");
    let text = disassemble(&ks[0].words);
    assert!(
        text.contains(" Reflect ") && text.contains(" Refract "),
        "llvm: {text}"
    );
}

#[test]
fn misused_forms_get_diagnostics() {
    let cases = [
        // Math.reflect on scalars: GLSL's reflect of a float is not offered.
        (
            "f[i] = Math.reflect(f[i], 1.0f);",
            Code::TypeMismatch,
            "float vectors",
        ),
        // dot(b, acc) exists only for the 8-bit integer vectors.
        (
            "v[i] = stack Vector<float32, 4>(v[i].dot(v[i], 1.0f));",
            Code::ArgumentCount,
            "8-bit",
        ),
        // int32 vectors have no integer dot product.
        (
            "f[i] = (float32) w[i].dot(w[i]);",
            Code::InvalidOperator,
            "dot",
        ),
    ];
    for (stmt, code, word) in cases {
        let body = kernel(
            stmt,
            "KernelBuffer<float32> f, KernelBuffer<Vector<float32, 4>> v, KernelBuffer<Vector<int32, 4>> w",
        );
        let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err(stmt);
        assert_eq!(d[0].code, code, "{stmt}: {d:?}");
        assert!(
            d[0].message.contains(word) || d[0].notes.iter().any(|n| n.contains(word)),
            "{stmt}: {d:?}"
        );
    }
}

#[test]
fn bits_count_of_uint32_is_uint32_in_both_backends() {
    // Cajeta's `Bits.count(uint32)` returns uint32: stored to a uint32 buffer without a cast
    // (E0009 before), and still converting to an int32 where one is wanted.
    let body = kernel(
        "u[i] = Bits.count(u[i]); v[i] = Bits.count(v[i]); o[i] = Bits.count(u[i + 1]); o[i + 1] = Bits.count(o[i]);",
        "KernelBuffer<uint32> u, KernelBuffer<Vector<uint32, 2>> v, KernelBuffer<int32> o",
    );
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let ks = compile(&body, env, KernelBackend::Rspirv).expect("compiles");
        spirv_val(&ks[0].words, env, "bits-count-u32").expect("valid");
        let text = disassemble(&ks[0].words);
        assert_eq!(text.matches("OpBitCount").count(), 4, "{text}");
    }
    let ks = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm");
    spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-bits-count-u32").expect("valid");
}

#[test]
fn target_descriptor_wave_width_is_the_wave_width_in_kernels() {
    // Cajeta's `TargetDescriptor.waveWidth()` (E0006 before): `(int32) Wave.width()`.
    let body = kernel(
        "o[i] = TargetDescriptor.waveWidth();",
        "KernelBuffer<int32> o",
    );
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let ks = compile(&body, env, KernelBackend::Rspirv).expect("compiles");
        spirv_val(&ks[0].words, env, "target-wave-width").expect("valid");
        assert!(disassemble(&ks[0].words).contains("SubgroupSize"));
    }
    let ks = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm");
    spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-target-wave-width").expect("valid");
    // The host-side facts are refused in kernels, an unknown fact lists the known ones.
    let body = kernel(
        "o[i] = TargetDescriptor.cuCount();",
        "KernelBuffer<int32> o",
    );
    let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err("host fact");
    assert_eq!(d[0].code, Code::HostOnlyInDevice, "{d:?}");
    let body = kernel(
        "o[i] = TargetDescriptor.simdCount();",
        "KernelBuffer<int32> o",
    );
    let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err("unknown");
    assert_eq!(d[0].code, Code::UnknownMethod, "{d:?}");
    assert!(d[0].notes.iter().any(|n| n.contains("waveWidth")), "{d:?}");
}

#[test]
fn cooperative_matrix_elements_need_a_matrix() {
    // Cajeta's `m.elements()/get(i)/set(i, v)` are the `CoopMatrix.length/element/withElement`
    // intrinsics (tests/kernels/cajeta_coop_elements.cajeta); a non-matrix operand of those
    // is E0008 naming what it takes.
    let body = kernel("o[i] = CoopMatrix.length(o[i]);", "KernelBuffer<uint32> o");
    let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err("refused");
    assert_eq!(d[0].code, Code::TypeMismatch, "{d:?}");
    assert!(d[0].message.contains("cooperative matrix"), "{d:?}");
    // A float value set into an integer matrix is refused as `splat`'s is.
    let body = kernel(
        "CooperativeMatrix<int32,16,16,2> acc; acc.splat(0); acc.set(0u, 1.5f); acc.store(o, 0, 0, 16);",
        "KernelBuffer<int32> o",
    );
    let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err("refused");
    assert_eq!(d[0].code, Code::TypeMismatch, "{d:?}");
}

#[test]
fn integer_dot_method_and_uint32_rotations_validate() {
    let body = kernel(
        "o[i] = a[i].dot(a[i + 1]) + a[i].dot(a[i + 2], o[i]); u[i] = Bits.rotateLeft(u[i], i) + Bits.rotateRight(u[i], u[i + 1]);",
        "KernelBuffer<Vector<int8, 4>> a, KernelBuffer<int32> o, KernelBuffer<uint32> u",
    );
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let ks = compile(&body, env, KernelBackend::Rspirv).expect("compiles");
        spirv_val(&ks[0].words, env, "idot-method").expect("valid");
    }
    let ks = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm");
    spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-idot-method").expect("valid");
}

#[test]
fn matrix_methods_lower_to_glsl_and_are_checked() {
    let body = kernel(
        "o[i] = m.determinant() + m.inverse()[0][1] + m.hadamard(m)[1][1];",
        "KernelBuffer<float32> o, Matrix<float32, 3, 3> m",
    );
    let ks = compile(&body, TargetEnv::Vulkan1_1, KernelBackend::Rspirv).expect("rspirv");
    let text = disassemble(&ks[0].words);
    assert!(
        text.contains(" Determinant ") && text.contains(" MatrixInverse "),
        "{text}"
    );
    assert_eq!(
        text.matches("OpFMul").count(),
        3,
        "hadamard by column: {text}"
    );
    let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect_err("refused");
    assert_eq!(d[0].code, Code::LlvmBackendUnsupported, "{d:?}");
    assert!(d[0].message.contains("Determinant"), "{d:?}");
    // hadamard alone: the LLVM backend multiplies column by column too. (One matrix
    // parameter per kernel: a 3x3 and a 2x3 push constant together crash LLVM's SPIR-V
    // target, hadamard or not.)
    for (stmt, param) in [
        ("o[i] = m.hadamard(m)[1][2];", "Matrix<float32, 3, 3> m"),
        ("o[i] = p.hadamard(p)[1][0];", "Matrix<float32, 2, 3> p"),
    ] {
        let only = kernel(stmt, &format!("KernelBuffer<float32> o, {param}"));
        let ks = compile(&only, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm hadamard");
        spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-hadamard").expect("valid");
        assert!(disassemble(&ks[0].words).contains("OpFMul"));
    }
    let cases = [
        ("o[i] = p.determinant();", Code::InvalidOperator, "square"),
        ("o[i] = p.inverse()[0][0];", Code::InvalidOperator, "square"),
        ("o[i] = p.hadamard(m)[0][0];", Code::TypeMismatch, ""),
        ("o[i] = m.trace();", Code::UnknownMethod, "determinant()"),
    ];
    for (stmt, code, word) in cases {
        let body = kernel(
            stmt,
            "KernelBuffer<float32> o, Matrix<float32, 3, 3> m, Matrix<float32, 2, 3> p",
        );
        let d = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err(stmt);
        assert_eq!(d[0].code, code, "{stmt}: {d:?}");
        assert!(
            d[0].message.contains(word) || d[0].notes.iter().any(|n| n.contains(word)),
            "{stmt}: {d:?}"
        );
    }
}

#[test]
fn wave_and_quad_forms_lower_as_documented() {
    let body = kernel(
        "u[i] = Quad.broadcast(u[i], 2) + Quad.broadcast(u[i], i) + (Quad.any(u[i] > 1) ? 1 : 0) + (Quad.all(u[i] > 2) ? 1 : 0);
        Barrier.wave();
        s[i] = Wave.prefixProduct(s[i]) + Wave.rotate(s[i], u[0]);
        f[i] = Wave.prefixProduct(f[i]);",
        "KernelBuffer<uint32> u, KernelBuffer<int32> s, KernelBuffer<float32> f",
    );
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let ks = compile(&body, env, KernelBackend::Rspirv).expect("rspirv");
        spirv_val(&ks[0].words, env, "cajeta-waves").expect("valid");
        let text = disassemble(&ks[0].words);
        // The constant lane stays a quad broadcast; the variable lane and the rotation
        // are shuffles (no SPV_KHR_subgroup_rotate needed).
        assert_eq!(
            text.matches("OpGroupNonUniformQuadBroadcast").count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("OpGroupNonUniformShuffle ").count(),
            2,
            "{text}"
        );
        assert!(!text.contains("Rotate"), "{text}");
        // Quad votes: two quad swaps each.
        assert_eq!(
            text.matches("OpGroupNonUniformQuadSwap").count(),
            4,
            "{text}"
        );
        assert!(
            text.contains("OpGroupNonUniformIMul") && text.contains("ExclusiveScan"),
            "{text}"
        );
        assert!(text.contains("OpGroupNonUniformFMul"), "{text}");
        // Barrier.wave(): Subgroup (3) execution and memory scope, AcquireRelease |
        // WorkgroupMemory (0x108).
        let barrier = text
            .lines()
            .find(|l| l.contains("OpControlBarrier"))
            .expect("a control barrier");
        let ids: Vec<&str> = barrier.split_whitespace().skip(1).collect();
        let value = |id: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("{id} = OpConstant")))
                .and_then(|l| l.split_whitespace().last())
                .map(str::to_string)
        };
        assert_eq!(value(ids[0]).as_deref(), Some("3"), "{barrier}");
        assert_eq!(value(ids[1]).as_deref(), Some("3"), "{barrier}");
        assert_eq!(value(ids[2]).as_deref(), Some("264"), "{barrier}");
    }
    // The LLVM backend builds the same instructions (through its placeholders).
    let ks = compile(&body, TargetEnv::Vulkan1_3, KernelBackend::Llvm).expect("llvm");
    spirv_val(&ks[0].words, TargetEnv::Vulkan1_3, "llvm-cajeta-waves").expect("valid");
    let text = disassemble(&ks[0].words);
    for op in [
        "OpGroupNonUniformQuadBroadcast",
        "OpGroupNonUniformShuffle ",
        "OpGroupNonUniformQuadSwap",
        "OpGroupNonUniformIMul",
        "OpGroupNonUniformFMul",
        "OpControlBarrier",
    ] {
        assert!(text.contains(op), "llvm: {op} missing: {text}");
    }
    // A constant lane outside the quad is an error; wave forms are kernel-only.
    let bad = kernel("u[i] = Quad.broadcast(u[i], 4);", "KernelBuffer<uint32> u");
    let d = compile(&bad, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err("lane 4");
    assert_eq!(d[0].code, Code::InvalidOperator, "{d:?}");
    let host = "    public static int32 run() {\n        Barrier.wave();\n        return Wave.prefixProduct(2);\n    }";
    let d = compile(host, TargetEnv::Vulkan1_3, KernelBackend::Rspirv).expect_err("host");
    assert_eq!(d[0].code, Code::DeviceOnlyInHost, "{d:?}");
}

#[test]
fn quaternions_lower_to_vector_operations_that_validate_in_both_backends() {
    // Cajeta's Quaternion<T> is a Vector<T, 4> (w, x, y, z) by the time a backend sees it:
    // every method and operator is spelled out in vector operations.
    let body = format!(
        "    @Device static Quaternion<float32> half(Quaternion<float32> q) {{ return q.nlerp(q.conjugate(), 0.5f); }}\n{}",
        kernel(
            "Quaternion<float32> a = stack Quaternion<float32>(q[i].x, q[i].y, q[i].z, q[i].w);
        Quaternion<float32> b = Rotation.fromAxisAngle(v[i], a.w) * spin;
        Quaternion<float32> c = half(a * b - -a).slerp(b.inverse().normalize(), 0.5f);
        v[i] = c * v[i] + stack Vector<float32, 3>(a.length(), a.dot(b), Rotation.fromEuler(a.x, a.y, a.z).w);",
            "KernelBuffer<Vector<float32, 4>> q, KernelBuffer<Vector<float32, 3>> v, Quaternion<float32> spin",
        )
    );
    // The LLVM backend targets vulkan1.3 only.
    for (backend, env) in [
        (KernelBackend::Rspirv, TargetEnv::Vulkan1_1),
        (KernelBackend::Rspirv, TargetEnv::Vulkan1_3),
        (KernelBackend::Llvm, TargetEnv::Vulkan1_3),
    ] {
        let ks = compile(&body, env, backend).expect("compiles");
        spirv_val(&ks[0].words, env, "quaternion").expect("valid");
        let text = disassemble(&ks[0].words);
        // The push constant is a 4-lane float vector; slerp's arc goes through Acos.
        assert!(
            text.lines()
                .any(|l| l.contains("OpTypeVector") && l.ends_with(" 4")),
            "{backend:?}: {text}"
        );
        assert!(text.contains("Acos"), "{backend:?}: {text}");
        assert!(!text.contains("Quaternion"), "{backend:?}: {text}");
    }
}

#[test]
fn sixteen_lane_byte_vectors_are_four_words_that_validate_in_both_backends() {
    // Cajeta's Group.mac on Vector<int8, 16>: four packed 8-bit dot products; `lut4` and the
    // byte-wise operators on the words; no 16-component vector reaches SPIR-V.
    let body = kernel(
        "Vector<int8, 16> a = w[i].asBytes();
        Vector<int8, 16> b = stack Vector<int8, 16>((int8) 3);
        o[i] = Group.mac(o[i], a, b) + a.dot(b, 5) + (int32) a[7] + a.asWords().y;
        w[i] = ((a >> 4) & 15).lut4(b ^ (int8) 7).asWords() + (a << 1 | a >>> 6).asWords();",
        "KernelBuffer<Vector<int32, 4>> w, KernelBuffer<int32> o",
    );
    for (backend, env) in [
        (KernelBackend::Rspirv, TargetEnv::Vulkan1_1),
        (KernelBackend::Rspirv, TargetEnv::Vulkan1_3),
        (KernelBackend::Llvm, TargetEnv::Vulkan1_3),
    ] {
        let ks = compile(&body, env, backend).expect("compiles");
        spirv_val(&ks[0].words, env, "bytes16").expect("valid");
        let text = disassemble(&ks[0].words);
        assert!(
            !text
                .lines()
                .any(|l| l.contains("OpTypeVector") && l.ends_with(" 16")),
            "{backend:?}: {text}"
        );
    }
}
