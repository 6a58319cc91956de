//! Telling a wrong result that needs divergent invocations apart (docs/fuzzing.md, "Seeds
//! 41 to 45, five ways").
//!
//! The generated per-invocation kernels (`k0`…, `kx`, `km`) share nothing between invocations: no
//! barrier, no shared memory, no subgroup operation. Under SPIR-V's and Vulkan's rules each
//! invocation's results then cannot depend on what the other invocations of its workgroup
//! do, so launching them with one invocation per workgroup (`grid: [n], block: [1]`, the
//! same `globalIdX()` for every element) must give the same outputs. When an LLVM way's
//! wrong result goes away that way, the difference needs invocations of one workgroup to
//! take different paths: the structured control flow LLVM's SPIR-V target makes (the class
//! whose invalid forms spirv-val reports as `llvm-unstructured-selection`) or lavapipe's
//! execution of it, not the arithmetic of one invocation. Such a finding is reported as the
//! open defect `llvm-divergent-control-flow`; one that stays is reported as before.

use super::executors;
use super::oracle::{self, Finding, Kind, Validator};
use cajetac::kernel::spirv::TargetEnv;

/// How the detail of a wrong result starts when the program is exact with one invocation per
/// workgroup.
pub const ONE_INVOCATION_EXACT: &str =
    "divergent control flow (exact with one invocation per workgroup): ";

/// The launch the generator writes for each per-invocation kernel (`gen.rs`,
/// `gen_values.rs`); the collective kernel's (`grid: [gc]`) needs its 64 invocations.
const WIDE: &str = "grid: [(n + 63) / 64], block: [64]";

/// `source` with every per-invocation kernel launched one invocation per workgroup.
pub fn one_invocation_per_workgroup(source: &str) -> String {
    source.replace(WIDE, "grid: [n], block: [1]")
}

/// Whether `f` is a wrong result of an LLVM way (device against host), not yet explained.
fn llvm_wrong_result(f: &Finding) -> bool {
    f.kind == Kind::WrongResult
        && f.detail.starts_with("llvm+")
        && f.detail.contains("device and host disagree")
}

/// Marks the LLVM ways' wrong results among `findings` of program `source` with
/// [`ONE_INVOCATION_EXACT`] when the program, launched one invocation per workgroup, runs
/// the LLVM ways exactly. Other findings, and all of them when any rspirv or CPU-device way
/// is wrong too (then the program, not the structure, is in question), stay as they are.
pub fn classify(
    source: &str,
    findings: Vec<Finding>,
    ctx: &cajeta_runtime::Context,
    val: &mut Validator,
) -> Vec<Finding> {
    let wrong_elsewhere = findings
        .iter()
        .any(|f| f.kind == Kind::WrongResult && !f.detail.starts_with("llvm+"));
    if wrong_elsewhere || !findings.iter().any(llvm_wrong_result) || !source.contains(WIDE) {
        return findings;
    }
    let narrow = one_invocation_per_workgroup(source);
    let (c, compile_findings) = oracle::compile(narrow, &[TargetEnv::Vulkan1_1]);
    if !compile_findings.is_empty() {
        return findings;
    }
    let (again, counts) = executors::run_four_ways(&c, ctx, val);
    let exact = counts.runs[2] > 0 && !again.iter().any(|f| f.kind == Kind::WrongResult);
    if !exact {
        return findings;
    }
    findings
        .into_iter()
        .map(|f| {
            if llvm_wrong_result(&f) {
                Finding::new(f.kind, format!("{ONE_INVOCATION_EXACT}{}", f.detail))
            } else {
                f
            }
        })
        .collect()
}
