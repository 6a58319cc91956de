//! Cajeta's synchronization, query and printing spellings (docs/porting-from-cajeta.md):
//! relaxed fences, the other `MemoryOrder` names, CUDA-style `Wave.*Sync` with a lane mask,
//! Cajeta's `Capability` names and `System.stdout` in kernels. Values on the device:
//! `tests/device/cajeta_waves.cajeta`.

use cajeta_runtime::DeviceProfile;
use cajeta_tests::{spirv_val, tests_dir};
use cajetac::diagnostics::{Code, Diagnostic, SourceMap};
use cajetac::driver;
use cajetac::kernel::spirv::{disassemble, KernelBackend, SpirvOptions, TargetEnv};
use cajetac::specialize::Target;

/// The disassembly of the one kernel of a class whose body is `body`.
fn compile(
    body: &str,
    env: TargetEnv,
    backend: KernelBackend,
    profile: Option<&DeviceProfile>,
) -> Result<String, Vec<Diagnostic>> {
    if backend == KernelBackend::Llvm {
        cajetac::kernel::llvm::enable();
    }
    let source = format!("package t;\nimport cajeta.xpu.*;\npublic final class T {{\n{body}\n}}\n");
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("t.cajeta".to_string(), source)])?;
    let options = SpirvOptions {
        target_env: env,
        backend,
        device_features: profile.map(|p| p.features.clone()).unwrap_or_default(),
        target: Target {
            profile: profile.cloned(),
            ..Default::default()
        },
        ..SpirvOptions::default()
    };
    let ks = driver::compile_kernels(&module, &options, None)?;
    let words = &ks[0].1.words;
    spirv_val(words, env, "cajeta-sync").expect("valid");
    Ok(disassemble(words))
}

fn kernel(stmts: &str) -> String {
    format!(
        "    @Kernel\n    public static void k(KernelBuffer<uint32> d, KernelBuffer<float32> f) {{\n        uint32 i = KernelThread.globalIdX();\n        {stmts}\n    }}"
    )
}

/// Both backends' disassembly of `body` (rspirv for Vulkan 1.1 and 1.3, LLVM for 1.3).
fn all_backends(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        out.push(compile(body, env, KernelBackend::Rspirv, None).expect("rspirv"));
    }
    out.push(compile(body, TargetEnv::Vulkan1_3, KernelBackend::Llvm, None).expect("llvm"));
    out
}

#[test]
fn relaxed_fences_emit_nothing_and_other_orders_keep_their_barrier() {
    // C++'s relaxed fence orders nothing, and Vulkan forbids an OpMemoryBarrier without an
    // order: no instruction. The two ordered fences stay.
    let body = kernel(
        "Barrier.workgroupMemory(MemoryOrder.Relaxed); Barrier.deviceMemory(MemoryOrder.RELAXED);
        d[i] = 1u;
        Barrier.deviceMemory(MemoryOrder.AcquireRelease); Barrier.workgroupMemory(MemoryOrder.SEQ_CST);",
    );
    for text in all_backends(&body) {
        assert_eq!(text.matches("OpMemoryBarrier").count(), 2, "{text}");
    }
    let only_relaxed = kernel("Barrier.deviceMemory(MemoryOrder.Relaxed); d[i] = 1u;");
    for text in all_backends(&only_relaxed) {
        assert!(!text.contains("OpMemoryBarrier"), "{text}");
    }
}

#[test]
fn memory_order_spellings_are_the_same_orders() {
    // The aliases give the same module as the short names, atomics included.
    let spelled = |orders: [&str; 3]| {
        kernel(&format!(
            "d.atomicAdd(i, 1u, MemoryOrder.{}); d.atomicOr(i, 2u, MemoryOrder.{}); Barrier.deviceMemory(MemoryOrder.{});",
            orders[0], orders[1], orders[2]
        ))
    };
    let short = spelled(["Acquire", "AcqRel", "SeqCst"]);
    for other in [
        ["ACQUIRE", "ACQ_REL", "SEQ_CST"],
        ["Acquire", "AcquireRelease", "SequentiallyConsistent"],
    ] {
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            assert_eq!(
                compile(&spelled(other), env, KernelBackend::Rspirv, None).expect("aliases"),
                compile(&short, env, KernelBackend::Rspirv, None).expect("short"),
                "{other:?}"
            );
        }
    }
}

#[test]
fn sync_wave_forms_drop_the_mask_but_evaluate_its_effects() {
    let body = kernel(
        "f[i] = Wave.shuffleSync(0xffffffff, f[i], 0u);
        d[i] = Wave.ballotSync(0xffffffffu, d[i] > 2u) + (Wave.anySync(0xffffffffu, d[i] > 3u) ? 1u : 0u) + (Wave.allSync(0xffffffffu, true) ? 2u : 0u);",
    );
    for text in all_backends(&body) {
        assert_eq!(
            text.matches("OpGroupNonUniformShuffle ").count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("OpGroupNonUniformBallot ").count(),
            1,
            "{text}"
        );
        assert!(text.contains("OpGroupNonUniformAny "), "{text}");
        assert!(text.contains("OpGroupNonUniformAll "), "{text}");
    }
    // A mask that is itself a wave operation still runs (its ballot is in the module).
    let effect = kernel("d[i] = Wave.ballotSync(Wave.ballot(d[i] > 1u), d[i] > 2u);");
    for text in all_backends(&effect) {
        assert_eq!(
            text.matches("OpGroupNonUniformBallot ").count(),
            2,
            "{text}"
        );
    }
    // The mask is checked like any argument, and the forms are kernel-only.
    let bad = kernel("d[i] = Wave.ballotSync(1.5f, true);");
    let d = compile(&bad, TargetEnv::Vulkan1_3, KernelBackend::Rspirv, None).expect_err("mask");
    assert_eq!(d[0].code, Code::MissingCast, "{d:?}");
    let host =
        "    public static int32 run() {\n        return (int32) Wave.ballotSync(1u, true);\n    }";
    let d = compile(host, TargetEnv::Vulkan1_3, KernelBackend::Rspirv, None).expect_err("host");
    assert_eq!(d[0].code, Code::DeviceOnlyInHost, "{d:?}");
}

/// A saved profile by name (`lavapipe`, `h200`).
fn profile(name: &str) -> DeviceProfile {
    let path = tests_dir().join("profiles").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    DeviceProfile::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn cajeta_capability_names_fold_from_the_profile() {
    let body = kernel(
        "d[0] = Device.supports(Capability.AtomicInt64) ? 1001u : 1002u;
        d[1] = Device.supports(Capability.CoopBf16) ? 2001u : 2002u;
        d[2] = Device.supports(Capability.RayQuery) ? 3001u : 3002u;",
    );
    let mut ray = profile("lavapipe");
    ray.extensions.push("VK_KHR_ray_query".to_string());
    // Without a profile none; lavapipe has 64-bit buffer atomics; the H200 has those and
    // bfloat16 but no ray queries; a device listing VK_KHR_ray_query has ray queries.
    let cases = [
        (None, [1002, 2002, 3002]),
        (Some(profile("lavapipe")), [1001, 2002, 3002]),
        (Some(profile("h200")), [1001, 2001, 3002]),
        (Some(ray), [1001, 2002, 3001]),
    ];
    for (p, want) in cases {
        let text = compile(
            &body,
            TargetEnv::Vulkan1_3,
            KernelBackend::Rspirv,
            p.as_ref(),
        )
        .expect("compiles");
        for w in want {
            let constant = |l: &str| l.contains("OpConstant") && l.ends_with(&format!(" {w}"));
            assert!(
                text.lines().any(constant),
                "{:?} wants {w}: {text}",
                p.as_ref().map(|p| &p.name)
            );
        }
        assert!(!text.contains("OpBranchConditional"), "folded: {text}");
    }
}

#[test]
fn system_stdout_prints_from_kernels_as_system_out_does() {
    // Cajeta's `System.stdout` is `System.out`: the same debug-printf instructions.
    let stdout = kernel("System.stdout.printf(\"%u\\n\", i); System.stdout.println(\"done\");");
    let out = kernel("System.out.printf(\"%u\\n\", i); System.out.println(\"done\");");
    let (a, b) = (all_backends(&stdout), all_backends(&out));
    assert_eq!(a, b);
    for text in a {
        assert!(text.contains("NonSemantic.DebugPrintf"), "{text}");
        assert_eq!(text.matches("OpExtInst ").count(), 2, "{text}");
    }
}
