//! One answer from four executors: a generated program's `run()` compares the device's
//! results with its own host recomputation and returns the number of differences, so it must
//! return 0 whichever way its halves run. Each program runs with its kernels emitted by rspirv
//! and by LLVM's SPIR-V target (`--backend llvm`, Vulkan 1.3), on the device, and its host
//! code run by the interpreter and by native code: four runs, each of which must return 0
//! and print nothing. A kernel the LLVM backend refuses (E0045, a documented subset) skips
//! the two LLVM runs and is counted, not failed. A fifth run puts the kernels on the CPU
//! device (LLVM's CPU target, docs/cpu-device.md) with interpreted host code; a program the
//! CPU device refuses (E0048) skips it and is counted.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::oracle::{Compiled, Finding, Kind, Validator};
use super::zero_folds;
use cajetac::diagnostics::{Code, SourceMap};
use cajetac::driver;
use cajetac::host::interp::{self, cpu_run::CpuRun, HostExecutor, HostIo, HostOutcome, Interpret};
use cajetac::ir::FunctionId;
use cajetac::kernel::spirv::{CompiledKernel, KernelBackend, SpirvOptions, TargetEnv};

/// Which kernel backend and which host executor a run used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Way {
    /// The kernels came from LLVM's SPIR-V target rather than rspirv.
    pub llvm_kernels: bool,
    /// The host code ran natively rather than in the interpreter.
    pub native_host: bool,
}

impl Way {
    /// The four ways, rspirv + interpreter first.
    pub const ALL: [Way; 4] = [
        Way {
            llvm_kernels: false,
            native_host: false,
        },
        Way {
            llvm_kernels: false,
            native_host: true,
        },
        Way {
            llvm_kernels: true,
            native_host: false,
        },
        Way {
            llvm_kernels: true,
            native_host: true,
        },
    ];

    /// `rspirv+interp`, `llvm+native`, ….
    pub fn name(self) -> &'static str {
        match (self.llvm_kernels, self.native_host) {
            (false, false) => "rspirv+interp",
            (false, true) => "rspirv+native",
            (true, false) => "llvm+interp",
            (true, true) => "llvm+native",
        }
    }
}

/// Counts of a four-way campaign.
#[derive(Clone, Debug, Default)]
pub struct FourWayCounts {
    /// Runs per way, in [`Way::ALL`]'s order.
    pub runs: [usize; 4],
    /// Programs whose kernels the LLVM backend refused (their LLVM runs skipped).
    pub llvm_refused: usize,
    /// Runs on the CPU device (its kernels from LLVM's CPU target, host code interpreted).
    pub cpu_runs: usize,
    /// Programs whose kernels the CPU device refused (E0048; their CPU run skipped).
    pub cpu_refused: usize,
}

impl FourWayCounts {
    /// Adds another campaign's counts.
    pub fn add(&mut self, other: &FourWayCounts) {
        for (a, b) in self.runs.iter_mut().zip(other.runs) {
            *a += b;
        }
        self.llvm_refused += other.llvm_refused;
        self.cpu_runs += other.cpu_runs;
        self.cpu_refused += other.cpu_refused;
    }
}

/// How the detail of a finding on a module of the LLVM kernel backend starts.
pub const LLVM_MODULE: &str = "LLVM kernel backend module: ";

/// Makes `--backend llvm` available (idempotent).
pub fn enable_llvm_kernels() {
    cajetac::kernel::llvm::enable();
}

/// The program's kernels through LLVM's SPIR-V target, validated for Vulkan 1.3; `Ok(None)`
/// when the backend refuses one of them (E0045), a finding when it fails otherwise.
fn llvm_kernels(
    c: &Compiled,
    val: &mut Validator,
    device_features: &[String],
) -> Result<Option<Vec<(FunctionId, CompiledKernel)>>, Finding> {
    let Some(module) = c.module.as_ref() else {
        return Ok(None);
    };
    let options = SpirvOptions {
        backend: KernelBackend::Llvm,
        target_env: TargetEnv::Vulkan1_3,
        device_features: device_features.to_vec(),
        ..SpirvOptions::default()
    };
    match driver::compile_kernels(module, &options, None) {
        Ok(k) => {
            let findings = val.validate(&[(TargetEnv::Vulkan1_3, k.clone())], false);
            match findings.into_iter().next() {
                Some(f) => Err(Finding::new(f.kind, format!("{LLVM_MODULE}{}", f.detail))),
                None => Ok(Some(k)),
            }
        }
        Err(d) if d.iter().all(|d| d.code == Code::LlvmBackendUnsupported) => Ok(None),
        Err(d) => Err(Finding::new(
            Kind::CheckBuildDisagree,
            format!(
                "the LLVM kernel backend failed: {}",
                d.iter()
                    .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        )),
    }
}

/// Runs `run()` of the compiled program with `kernels` and `executor` on `ctx`.
fn run_way(
    c: &Compiled,
    kernels: &[(FunctionId, CompiledKernel)],
    executor: &dyn HostExecutor,
    ctx: &cajeta_runtime::Context,
    way: Way,
) -> Option<Finding> {
    let kernels: HashMap<FunctionId, CompiledKernel> = kernels.iter().cloned().collect();
    run_entry(c, &kernels, executor, Some(ctx), None, way.name())
}

/// Runs `run()` of the compiled program with `executor`, its launches on `ctx` with
/// `kernels`, or on the CPU device `cpu` (whose kernels it holds; `kernels` then only names
/// them); a finding named `name` unless it returned 0 and printed nothing.
fn run_entry(
    c: &Compiled,
    kernels: &HashMap<FunctionId, CompiledKernel>,
    executor: &dyn HostExecutor,
    ctx: Option<&cajeta_runtime::Context>,
    cpu: Option<&CpuRun>,
    name: &str,
) -> Option<Finding> {
    let module = c.module.as_ref()?;
    let entry = driver::entry_point(module)?;
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: ctx.cloned(),
    };
    let sources = SourceMap::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        interp::run_host_pending(
            module,
            entry,
            &[],
            kernels,
            &sources,
            &mut io,
            executor,
            None,
            cpu,
        )
    }));
    let printed = String::from_utf8_lossy(&out).into_owned();
    match result {
        Err(_) => Some(Finding::new(
            Kind::Panic,
            format!("{name}: panic while running"),
        )),
        Ok(Err(e)) => Some(Finding::new(
            Kind::WrongResult,
            format!("{name}: runtime error: {}", e.message),
        )),
        Ok(Ok(HostOutcome::Returned(v))) if v.to_string() == "0" && printed.is_empty() => None,
        Ok(Ok(outcome)) => Some(Finding::new(
            Kind::WrongResult,
            format!(
                "{name}: device and host disagree ({outcome:?}):\n{}",
                printed.lines().take(20).collect::<Vec<_>>().join("\n")
            ),
        )),
    }
}

/// How the detail of a finding of the CPU-device run starts.
pub const CPU_WAY: &str = "cpu+interp";

/// The fifth run: the program's kernels compiled for the CPU device (LLVM's CPU target,
/// docs/cpu-device.md), host code interpreted. Counted in `counts`; nothing where the CPU
/// device refuses a kernel (E0048, a documented subset) or no CPU target is linked.
fn run_on_cpu(c: &Compiled, counts: &mut FourWayCounts) -> Option<Finding> {
    if !driver::cpu_device_available() {
        return None;
    }
    let module = c.module.as_ref()?;
    let (_, held) = c.kernels.iter().find(|(e, _)| *e == TargetEnv::Vulkan1_1)?;
    let kernels: HashMap<FunctionId, CompiledKernel> = held.iter().cloned().collect();
    let compiled = catch_unwind(AssertUnwindSafe(|| {
        driver::compile_for_cpu(module, kernels.keys().copied(), &SpirvOptions::default())
    }));
    let cpu = match compiled {
        Ok(Ok(cpu)) => cpu,
        Ok(Err(d)) if d.iter().all(|d| d.code == Code::CpuDeviceUnsupported) => {
            counts.cpu_refused += 1;
            return None;
        }
        Ok(Err(d)) => {
            return Some(Finding::new(
                Kind::CheckBuildDisagree,
                format!(
                    "{CPU_WAY}: the CPU device's kernel target failed: {}",
                    d.iter()
                        .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ))
        }
        Err(_) => {
            return Some(Finding::new(
                Kind::Panic,
                format!("{CPU_WAY}: panic while compiling for the CPU device"),
            ))
        }
    };
    counts.cpu_runs += 1;
    run_entry(c, &kernels, &Interpret, None, Some(&cpu), CPU_WAY)
}

/// The CPU-device run of [`run_four_ways`] alone, which needs no Vulkan device: its finding
/// (if any) and its counts (`cpu_runs` 1 when it ran, `cpu_refused` 1 when refused).
pub fn run_on_cpu_device(c: &Compiled) -> (Option<Finding>, FourWayCounts) {
    let mut counts = FourWayCounts::default();
    let found = run_on_cpu(c, &mut counts);
    (found, counts)
}

/// The program's rspirv kernels for Vulkan 1.1 compiled for a device with
/// `device_features`, as `cajetac run` compiles them (the modules `c` holds, compiled for no
/// device in particular, leave out what depends on the device: `SignedZeroInfNanPreserve`,
/// without which a driver may fold `x + 0.0` to `x`); `c`'s modules if that fails.
fn rspirv_kernels(c: &Compiled, device_features: &[String]) -> Vec<(FunctionId, CompiledKernel)> {
    let held = || {
        c.kernels
            .iter()
            .find(|(e, _)| *e == TargetEnv::Vulkan1_1)
            .map(|(_, k)| k.clone())
            .unwrap_or_default()
    };
    let Some(module) = c.module.as_ref() else {
        return held();
    };
    let options = SpirvOptions {
        target_env: TargetEnv::Vulkan1_1,
        device_features: device_features.to_vec(),
        ..SpirvOptions::default()
    };
    driver::compile_kernels(module, &options, None).unwrap_or_else(|_| held())
}

/// Runs a compiled generated program the four ways on `ctx`, then on the CPU device;
/// returns the findings and the counts. Both backends' kernels are compiled for `ctx`'s device, as `cajetac run` does.
pub fn run_four_ways(
    c: &Compiled,
    ctx: &cajeta_runtime::Context,
    val: &mut Validator,
) -> (Vec<Finding>, FourWayCounts) {
    let mut findings = Vec::new();
    let mut counts = FourWayCounts::default();
    if !c.kernels.iter().any(|(e, _)| *e == TargetEnv::Vulkan1_1) {
        return (findings, counts);
    }
    let features = ctx.device_info().features.clone();
    let rspirv = rspirv_kernels(c, &features);
    findings.extend(val.validate(&[(TargetEnv::Vulkan1_1, rspirv.clone())], false));
    let rspirv = &rspirv;
    let llvm = match llvm_kernels(c, val, &features) {
        Ok(k) => k,
        Err(f) => {
            findings.push(f);
            None
        }
    };
    if llvm.is_none() {
        counts.llvm_refused += 1;
    }
    let native = cajetac::host::native::Native;
    for (i, way) in Way::ALL.into_iter().enumerate() {
        let kernels = match (way.llvm_kernels, &llvm) {
            (false, _) => rspirv,
            (true, Some(k)) => k,
            (true, None) => continue,
        };
        let executor: &dyn HostExecutor = if way.native_host { &native } else { &Interpret };
        counts.runs[i] += 1;
        let found = run_way(c, kernels, executor, ctx, way);
        let found = match found {
            Some(f) if f.detail.contains("device and host disagree") => {
                Some(classify_zero_fold(c, kernels, executor, ctx, way, val, f))
            }
            other => other,
        };
        findings.extend(found);
    }
    findings.extend(run_on_cpu(c, &mut counts));
    (findings, counts)
}

/// A way's wrong result `f`, marked as lavapipe's constant-zero fold
/// ([`zero_folds::ZERO_FOLD`]) when the same kernels with run-time zeros are exact (the
/// rewrite keeps every value, so only the driver can tell the two modules apart).
fn classify_zero_fold(
    c: &Compiled,
    kernels: &[(FunctionId, CompiledKernel)],
    executor: &dyn HostExecutor,
    ctx: &cajeta_runtime::Context,
    way: Way,
    val: &mut Validator,
    f: Finding,
) -> Finding {
    let mut rewritten = kernels.to_vec();
    let mut any = false;
    for (_, k) in &mut rewritten {
        if let Some(words) = zero_folds::runtime_zeros(&k.words) {
            k.words = words;
            any = true;
        }
    }
    let env = if way.llvm_kernels {
        TargetEnv::Vulkan1_3
    } else {
        TargetEnv::Vulkan1_1
    };
    if !any || !val.validate(&[(env, rewritten.clone())], false).is_empty() {
        return f;
    }
    match run_way(c, &rewritten, executor, ctx, way) {
        None => Finding::new(f.kind, format!("{}{}", zero_folds::ZERO_FOLD, f.detail)),
        Some(_) => f,
    }
}
