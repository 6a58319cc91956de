//! Tests of the barrier uniformity analysis (`uniformity.rs`): programs that keep every
//! invocation on the way to each barrier check; those that do not get E0046 with the
//! condition and its source named.

use crate::diagnostics::{Code, Diagnostic, SourceMap};

fn check(body: &str) -> Result<(), Vec<Diagnostic>> {
    let src = format!("package t;\nimport cajeta.xpu.*;\npublic final class A {{\n{body}\n}}\n");
    let mut sources = SourceMap::new();
    crate::driver::frontend(&mut sources, &[("t.cajeta".to_string(), src)]).map(|_| ())
}

fn labels(d: &Diagnostic) -> Vec<&str> {
    d.secondary.iter().map(|(_, l)| l.as_str()).collect()
}

#[test]
fn guarded_work_around_uniform_barriers_checks() {
    let ok = check(
        r#"
    @Device
    static float32 total(float32 v) { return Workgroup.reduce(GroupOp.Add, v); }
    @Kernel
    public static void k(KernelBuffer<float32> b, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        Shared<float32> t = shared float32[64];
        t[KernelThread.x()] = i < n ? b[i] : 0.0f;
        Barrier.workgroup();
        for (uint32 s = 32; s > 0; s >>= 1) {
            if (KernelThread.x() < s) { t[KernelThread.x()] += t[KernelThread.x() + s]; }
            Barrier.workgroup();
        }
        for (uint32 r = 0; r < n; r++) {
            if (KernelThread.x() == r) { continue; }
            b[0] = 1.0f;
        }
        Barrier.workgroup();
        float32 s = total(i < n ? b[i] : 0.0f);
        if (Workgroup.x() == 0 && n > 4 && s > 0.0f) { Barrier.workgroup(); }
        uint32 w = Workgroup.reduce(GroupOp.Max, i);
        if (w > 7) { Barrier.workgroup(); }
        if (i < n) { b[i] = s + t[0]; }
    }"#,
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn a_barrier_under_a_thread_dependent_if_is_refused_with_its_condition() {
    let diags = check(
        r#"
    @Kernel
    public static void k(KernelBuffer<float32> b, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { Barrier.workgroup(); }
    }"#,
    )
    .unwrap_err();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, Code::NonUniformBarrier);
    assert_eq!(
        labels(&diags[0]),
        [
            "this condition differs between invocations",
            "this invocation id differs between invocations"
        ]
    );
}

#[test]
fn an_early_return_makes_every_later_barrier_non_uniform() {
    let diags = check(
        r#"
    @Kernel
    public static void k(KernelBuffer<float32> b, uint32 n) {
        if (KernelThread.globalIdX() >= n) { return; }
        for (uint32 r = 0; r < 4; r++) { Barrier.workgroup(); }
    }"#,
    )
    .unwrap_err();
    assert_eq!(diags.len(), 1);
    assert_eq!(
        labels(&diags[0]),
        [
            "invocations may return early here",
            "this condition differs between invocations",
            "this invocation id differs between invocations"
        ]
    );
    assert!(diags[0]
        .notes
        .iter()
        .any(|n| n.contains("wrap the loads and stores")));
}

#[test]
fn a_return_late_in_a_loop_reaches_the_barrier_of_the_next_iteration() {
    let diags = check(
        r#"
    @Kernel
    public static void k(KernelBuffer<uint32> b) {
        for (uint32 r = 0; r < 4; r++) {
            Barrier.workgroup();
            if (b[KernelThread.x()] == r) { return; }
        }
    }"#,
    )
    .unwrap_err();
    assert_eq!(diags.len(), 1);
    assert_eq!(labels(&diags[0])[0], "invocations may return early here");
}

#[test]
fn values_carry_non_uniformity_through_locals_atomics_and_subgroups() {
    for (decl, why) in [
        (
            "uint32 v = KernelThread.x() * 2 + 1;",
            "this invocation id differs between invocations",
        ),
        (
            "uint32 v = b.atomicAdd(0, 1);",
            "an atomic's result differs between invocations",
        ),
        (
            "uint32 v = Wave.reduceSum(b[0]);",
            "a subgroup operation's result differs between the subgroups of a workgroup",
        ),
        (
            "uint32 v = 0; if (Wave.laneId() == 0) { v = 1; }",
            "this lane value differs between invocations",
        ),
    ] {
        let diags = check(&format!(
            "@Kernel\npublic static void k(KernelBuffer<uint32> b) {{\n{decl}\nuint32 w = v;\nwhile (w > 0) {{ Barrier.workgroup(); w--; }}\n}}"
        ))
        .unwrap_err();
        assert_eq!(diags[0].code, Code::NonUniformBarrier, "{decl}");
        assert!(
            labels(&diags[0]).contains(&why),
            "{decl}: {:?}",
            labels(&diags[0])
        );
    }
}

#[test]
fn a_helper_is_judged_by_the_arguments_it_is_given() {
    let helper = r#"
    @Device
    static void step(Shared<float32> t, uint32 rounds) {
        for (uint32 r = 0; r < rounds; r++) { Barrier.workgroup(); t[r] = 0.0f; }
    }"#;
    let uniform = check(&format!(
        "{helper}\n@Kernel\npublic static void k(KernelBuffer<float32> b, uint32 n) {{\nShared<float32> t = shared float32[64];\nstep(t, n);\n}}"
    ));
    assert!(uniform.is_ok(), "{uniform:?}");
    let varying = check(&format!(
        "{helper}\n@Kernel\npublic static void k(KernelBuffer<float32> b) {{\nShared<float32> t = shared float32[64];\nstep(t, KernelThread.x());\n}}"
    ))
    .unwrap_err();
    assert_eq!(varying.len(), 1);
    assert!(labels(&varying[0])
        .contains(&"this parameter is given a value that differs between invocations"));
}

#[test]
fn memory_fences_are_allowed_under_divergent_control() {
    let ok = check(
        r#"
    @Kernel
    public static void k(KernelBuffer<uint32> b) {
        if (KernelThread.x() == 0) { b[0] = 1; Barrier.deviceMemory(); Barrier.workgroupMemory(); }
    }"#,
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn deeply_nested_loops_with_divergent_exits_are_walked_in_linear_time() {
    let depth = 120;
    let mut body = String::new();
    for k in 0..depth {
        body.push_str(&format!(
            "for (uint32 r{k} = 0; r{k} < n; r{k}++) {{ if (KernelThread.x() == {k}) {{ break; }}\n"
        ));
    }
    body.push_str("if (b[KernelThread.x()] == n) { return; }\n");
    body.push_str(&"}".repeat(depth));
    let start = std::time::Instant::now();
    let diags = check(&format!(
        "@Kernel\npublic static void k(KernelBuffer<uint32> b, uint32 n) {{\n{body}\nBarrier.workgroup();\n}}"
    ))
    .unwrap_err();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, Code::NonUniformBarrier);
    // Exponential re-walking (twice per nesting level) would not finish at all.
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}

#[test]
fn a_switch_is_as_uniform_as_its_selector() {
    let ok = check(
        r#"
    @Kernel
    public static void k(KernelBuffer<int32> b, uint32 n) {
        Shared<int32> t = shared int32[64];
        uint32 l = KernelThread.x();
        for (uint32 r = 0; r < 4; r++) {
            switch (n + r) {
                case 1u:
                    t[l] = 1;
                    Barrier.workgroup();
                case 2u:
                    if (n > 9) { break; }
                    continue;
                default:
                    t[l] = 2;
            }
            Barrier.workgroup();
        }
        b[l] = t[63u - l];
    }"#,
    );
    assert!(ok.is_ok(), "{ok:?}");
    let diags = check(
        r#"
    @Kernel
    public static void k(KernelBuffer<int32> b) {
        uint32 l = KernelThread.x();
        int32 v = switch (l % 2u) {
            case 1u -> { Barrier.workgroup(); yield 1; }
            default -> 2;
        };
        b[l] = v;
    }"#,
    )
    .unwrap_err();
    assert_eq!(diags[0].code, Code::NonUniformBarrier, "{diags:?}");
}
