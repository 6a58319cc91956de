//! Checked mode's loop versioning and range folding (docs/language.md, "Out-of-bounds
//! accesses and checked mode"; docs/PERFORMANCE.md, "Cost of checked mode"). A loop whose
//! accesses' index ranges can be computed before it is lowered twice: a copy without those
//! checks, taken when every range is inside its resource, and the copy with every check. The
//! tests read the structure back from the SPIR-V (which copy has report calls) and run the
//! programs of `tests/checked/`: in bounds nothing is reported and the result is the host's;
//! a loop that leaves the range at a middle iteration reports its first violation exactly as
//! before. Shared-array indices bounded by their form (`i & 15`, `Math.clamp(e, 0, 15)`,
//! `i % 16`) have no check at all.

use cajeta_tests::{device_context, frontend, run_on, tests_dir};
use cajetac::diagnostics::render_human;
use cajetac::driver::compile_kernels;
use cajetac::kernel::spirv::{disassemble, CompiledKernel, SpirvOptions};

fn checked() -> SpirvOptions {
    SpirvOptions {
        checked: true,
        ..SpirvOptions::default()
    }
}

/// The kernels of `<dir>/<file>` compiled with `options`.
fn kernels(dir: &str, file: &str, options: &SpirvOptions) -> Vec<CompiledKernel> {
    let path = tests_dir().join(dir).join(file);
    let (map, module) = frontend(&path);
    let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
    compile_kernels(&module, options, None)
        .unwrap_or_else(|d| panic!("{}", render_human(&map, &d)))
        .into_iter()
        .map(|(_, k)| k)
        .collect()
}

fn kernel(dir: &str, file: &str, name: &str, options: &SpirvOptions) -> CompiledKernel {
    kernels(dir, file, options)
        .into_iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("no kernel {name} in {file}"))
}

/// Per loop of a disassembly (in order), how many function calls (checked mode's `report`)
/// it holds, from its `OpLoopMerge` to its merge block.
fn report_calls_per_loop(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut loops = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("OpLoopMerge ") else {
            continue;
        };
        let merge = rest.split_whitespace().next().unwrap();
        let end = format!("{merge} = OpLabel");
        let calls = lines[at..]
            .iter()
            .take_while(|l| **l != end)
            .filter(|l| l.contains("OpFunctionCall"))
            .count();
        loops.push(calls);
    }
    loops
}

#[test]
fn a_loop_with_provable_ranges_runs_a_copy_without_checks() {
    // The stencil: the copy taken in bounds has no report call, the other checks `wt` and
    // `src` at every iteration, as every loop did before.
    let smooth = kernel("checked", "loop_in_range.cajeta", "smooth", &checked());
    assert_eq!(report_calls_per_loop(&disassemble(&smooth.words)), [0, 2]);
    // The box filter: the row loop (not copied) holds both copies of the column loop.
    let boxed = kernel("checked", "loop_in_range.cajeta", "box", &checked());
    assert_eq!(report_calls_per_loop(&disassemble(&boxed.words)), [1, 0, 1]);
    let sum = kernel("checked", "loop_leaves_range.cajeta", "sum", &checked());
    assert_eq!(report_calls_per_loop(&disassemble(&sum.words)), [0, 1]);
    // Unchecked, the loop is lowered once.
    let plain = kernel(
        "checked",
        "loop_in_range.cajeta",
        "smooth",
        &SpirvOptions::default(),
    );
    assert_eq!(report_calls_per_loop(&disassemble(&plain.words)), [0]);
}

#[test]
fn examples_loops_are_versioned_where_their_checks_can_be_hoisted() {
    // Both blur passes: one loop, copied. SGEMM: the tile loop holds barriers and stays one
    // loop with its checks; the multiply loop inside it is copied.
    for name in ["blurX", "blurY"] {
        let k = kernel("../examples", "blur.cajeta", name, &checked());
        assert_eq!(
            report_calls_per_loop(&disassemble(&k.words)),
            [0, 2],
            "{name}"
        );
    }
    let k = kernel("../examples", "sgemm.cajeta", "sgemm", &checked());
    let loops = report_calls_per_loop(&disassemble(&k.words));
    assert_eq!(loops.len(), 3, "{loops:?}");
    // The tile loop: two shared stores and two buffer loads, checked, and the checked copy
    // of the multiply loop; its barriers have no arrival count (under `t < k` only).
    assert_eq!(loops, [6, 0, 2], "{loops:?}");
    // The reduction's grid-stride loop (step `KernelThread.globalSizeX()`, tested positive)
    // is copied; the tree loop, with barriers and a halving counter, is not. Its barrier,
    // under no condition that reads memory, has no arrival count (3 reports, 4 with one).
    let k = kernel("../examples", "reduction.cajeta", "blockSum", &checked());
    assert_eq!(report_calls_per_loop(&disassemble(&k.words)), [0, 1, 3]);
}

#[test]
fn a_loop_in_bounds_reports_nothing_and_computes_the_hosts_result() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let name = "tests/checked/loop_in_range.cajeta";
    let text = std::fs::read_to_string(tests_dir().join("checked/loop_in_range.cajeta")).unwrap();
    let (printed, value) = run_on(&ctx, name, text, &checked());
    let value = value.unwrap_or_else(|e| panic!("{e}"));
    // The sums of the outputs (13237 for the stencil, 7347 for the box filter), each output
    // compared with the host's inside the program.
    assert_eq!(
        (printed.as_str(), value.as_str()),
        ("in bounds 13237\nbox 7347\n", "0")
    );
}

#[test]
fn a_loop_leaving_the_range_midway_reports_its_first_violation() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let name = "tests/checked/loop_leaves_range.cajeta";
    let text =
        std::fs::read_to_string(tests_dir().join("checked/loop_leaves_range.cajeta")).unwrap();
    let (printed, value) = run_on(&ctx, name, text, &checked());
    assert_eq!(printed, "in bounds 10\n");
    assert_eq!(
        value.expect_err("expected a runtime error"),
        "tests/checked/loop_leaves_range.cajeta:12:20: runtime error: kernel `sum`: index 1005 out of bounds for `src` of length 1005\n  \
         note: and 2 more out-of-bounds access(es) in the same launch\n\
         tests/checked/loop_leaves_range.cajeta:28:9: note: in this launch"
    );
}

#[test]
fn shared_indices_bounded_by_their_form_are_folded() {
    let k = kernel("checked", "fold_shared.cajeta", "k", &checked());
    let sites = &k.reflection.bounds_check.as_ref().unwrap().sites;
    let resources: Vec<&str> = sites.iter().map(|s| s.resource.as_str()).collect();
    // The buffer store's site; none for `t`, and none for the barrier, which every
    // invocation reaches (no condition around it), so it needs no arrival count.
    assert_eq!(resources, ["out"]);
    // `i & 16`, `Math.clamp(i, 0, 16)`, a signed `d % 16` and `i % 17` keep their checks.
    let kept = kernel("checked", "fold_shared.cajeta", "kept", &checked());
    let sites = &kept.reflection.bounds_check.as_ref().unwrap().sites;
    assert_eq!(sites.iter().filter(|s| s.resource == "t").count(), 4);
    let Some(ctx) = device_context(false) else {
        return;
    };
    let name = "tests/checked/fold_shared.cajeta";
    let text = std::fs::read_to_string(tests_dir().join("checked/fold_shared.cajeta")).unwrap();
    let (printed, value) = run_on(&ctx, name, text, &checked());
    assert_eq!(value.unwrap_or_else(|e| panic!("{e}")), "0");
    assert_eq!(printed, "in bounds 3 1202\n");
}

#[test]
fn a_loop_whose_index_wraps_around_keeps_its_checks() {
    // Both ends of `j * step` are 0, in bounds; the product overflows in between, which the
    // test before the loop catches, so the checked copy reports j = 1 as without versioning.
    let Some(ctx) = device_context(false) else {
        return;
    };
    let name = "tests/checked/loop_wraps.cajeta";
    let text = std::fs::read_to_string(tests_dir().join("checked/loop_wraps.cajeta")).unwrap();
    let (_, value) = run_on(&ctx, name, text, &checked());
    assert_eq!(
        value.expect_err("expected a runtime error"),
        "tests/checked/loop_wraps.cajeta:13:20: runtime error: kernel `k`: index 1073741824 out of bounds for `src` of length 1\n  \
         note: and 2 more out-of-bounds access(es) in the same launch\n\
         tests/checked/loop_wraps.cajeta:22:9: note: in this launch"
    );
}
