//! `Device.name()`, `memoryBytes()`, `waveSize()`, `sharedBytesPerBlock()`,
//! `maxBlockSize()`, `isIntegrated()` (and Cajeta's spellings), `activeBackend()`,
//! `supports(Capability.X)` and `launchFailures()` in host code: answered from the device the run
//! uses (made on first use, like a buffer's), not from a compile-time profile.

use cajeta_runtime::DeviceType;

use super::eval::{Fail, Interp};
use super::hostops::int_value;
use super::value::{Scalar, Value};

use crate::ir::{Expr, HostDeviceQuery};

impl Interp<'_> {
    /// Evaluates a host-side device query.
    pub(super) fn device_query(&mut self, q: HostDeviceQuery, e: &Expr) -> Result<Value, Fail> {
        if q == HostDeviceQuery::LaunchFailures {
            // A refused launch outside `try` ends the run with a runtime error: a running
            // program has seen only those it caught.
            return int_value(self.launch_failures as u64, &e.ty, e.span);
        }
        match q {
            HostDeviceQuery::CpuWorkerCap => {
                return int_value(self.cpu_worker_cap as u64, &e.ty, e.span)
            }
            HostDeviceQuery::LastLaunchWorkers => {
                let n = self
                    .device
                    .cpu
                    .map_or(0, |c| c.device.last_launch_workers());
                return int_value(n as u64, &e.ty, e.span);
            }
            _ => {}
        }
        if q != HostDeviceQuery::ActiveBackend {
            // Asking about the device uses it, on the CPU device as on Vulkan (where it makes
            // the context): `Device.force` can no longer change it.
            self.device.used.set(true);
        }
        if let Some(cpu) = self.device.cpu {
            return cpu_query(&cpu.device, q, e);
        }
        if let HostDeviceQuery::Supports(index) = q {
            let ctx = self.device.context(e.span)?;
            let profile = cajeta_runtime::DeviceProfile::from_info(ctx.device_info());
            return Ok(Value::Scalar(Scalar::Bool(supports(&profile, index))));
        }
        if q == HostDeviceQuery::ActiveBackend {
            // Every kernel is SPIR-V run through Vulkan; asking makes no device.
            return Ok(Value::str("vulkan"));
        }
        let ctx = self.device.context(e.span)?;
        let info = ctx.device_info();
        let n = match q {
            HostDeviceQuery::Name => return Ok(Value::str(&info.name)),
            HostDeviceQuery::IsIntegrated => {
                let shared = matches!(
                    info.device_type,
                    DeviceType::IntegratedGpu | DeviceType::Cpu
                );
                return Ok(Value::Scalar(Scalar::Bool(shared)));
            }
            HostDeviceQuery::MemoryBytes => ctx.device_local_heap_bytes(),
            HostDeviceQuery::WaveSize => u64::from(info.subgroup_size),
            HostDeviceQuery::SharedBytesPerBlock => {
                u64::from(info.limits.max_compute_shared_memory_size)
            }
            HostDeviceQuery::MaxBlockSize => {
                u64::from(info.limits.max_compute_work_group_invocations)
            }
            HostDeviceQuery::ActiveBackend => return Ok(Value::str("vulkan")),
            HostDeviceQuery::Supports(_)
            | HostDeviceQuery::LaunchFailures
            | HostDeviceQuery::CpuWorkerCap
            | HostDeviceQuery::LastLaunchWorkers => unreachable!("answered above"),
        };
        int_value(n, &e.ty, e.span)
    }
}

/// Whether `profile` has what capability `index` of `ir::CAPABILITIES` needs, as kernels
/// compiled for it fold `Device.supports`.
fn supports(profile: &cajeta_runtime::DeviceProfile, index: u32) -> bool {
    crate::ir::CAPABILITIES
        .get(index as usize)
        .is_some_and(|(_, need)| crate::specialize::profile_supports(Some(profile), *need))
}

/// The answers of the CPU device (docs/cpu-device.md): the host's memory, one invocation
/// per subgroup (its subgroup operations are refused), the Vulkan limits it checks
/// launches against, and `cpu` as the backend.
fn cpu_query(
    cpu: &cajeta_runtime::cpu::CpuDevice,
    q: HostDeviceQuery,
    e: &Expr,
) -> Result<Value, Fail> {
    let n = match q {
        HostDeviceQuery::Name => return Ok(Value::str(cpu.name())),
        HostDeviceQuery::ActiveBackend => return Ok(Value::str("cpu")),
        HostDeviceQuery::IsIntegrated => return Ok(Value::Scalar(Scalar::Bool(true))),
        HostDeviceQuery::MemoryBytes => cajeta_runtime::cpu::host_memory_bytes(),
        HostDeviceQuery::WaveSize => 1,
        HostDeviceQuery::SharedBytesPerBlock => {
            u64::from(cajeta_runtime::cpu::MAX_SHARED_MEMORY_BYTES)
        }
        HostDeviceQuery::MaxBlockSize => u64::from(cajeta_runtime::cpu::MAX_WORKGROUP_INVOCATIONS),
        HostDeviceQuery::Supports(index) => {
            return Ok(Value::Scalar(Scalar::Bool(supports(&cpu.profile(), index))))
        }
        HostDeviceQuery::LaunchFailures
        | HostDeviceQuery::CpuWorkerCap
        | HostDeviceQuery::LastLaunchWorkers => 0,
    };
    int_value(n, &e.ty, e.span)
}
