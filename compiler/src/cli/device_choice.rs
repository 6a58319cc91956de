//! Which device `cajetac run` uses (`--device N|NAME|cpu`, else `CAJETA_DEVICE`), what
//! `cajetac devices` lists, and the fallback to the CPU device when no Vulkan driver is
//! installed (docs/cli.md, docs/cpu-device.md).

use cajeta_runtime::{Context, DeviceInfo, DeviceProfile};

/// The device a run was given.
pub(crate) enum Choice {
    /// A Vulkan device: its profile (kernels are compiled for its features; `None` when none
    /// could be read) and the selector the context is made with (`None`: the best device).
    Vulkan {
        profile: Option<Box<DeviceProfile>>,
        selector: Option<String>,
    },
    /// The CPU device; `fallback` when it was not asked for but no Vulkan device exists.
    Cpu { fallback: bool },
}

/// Whether `selector` names the CPU device.
pub(crate) fn is_cpu(selector: &str) -> bool {
    selector.trim().eq_ignore_ascii_case("cpu")
}

/// The selector of `--device`, else of `CAJETA_DEVICE` (an empty value is no selection).
pub(crate) fn selector(arg: Option<&str>) -> Option<String> {
    arg.map(str::to_string)
        .or_else(|| std::env::var("CAJETA_DEVICE").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The device `--device` (`arg`) or `CAJETA_DEVICE` selects: `cpu`, an index into
/// [`Context::list_devices`] or a case-insensitive name substring. `Err` names the choices.
/// Without a selection: the best Vulkan device, or the CPU device when there is none and
/// `cpu_available` (this executable links the CPU kernel target).
pub(crate) fn choose(arg: Option<&str>, cpu_available: bool) -> Result<Choice, String> {
    let Some(sel) = selector(arg) else {
        if let Ok(profile) = DeviceProfile::auto() {
            return Ok(Choice::Vulkan {
                profile: Some(Box::new(profile)),
                selector: None,
            });
        }
        let none = Context::list_devices().map_or(true, |l| l.is_empty());
        return Ok(if none && cpu_available {
            Choice::Cpu { fallback: true }
        } else {
            // Without the CPU target the run goes on without a device, as before: the
            // first launch says why there is none.
            Choice::Vulkan {
                profile: None,
                selector: None,
            }
        });
    };
    if is_cpu(&sel) {
        return Ok(Choice::Cpu { fallback: false });
    }
    let devices = Context::list_devices().unwrap_or_default();
    let found = match sel.parse::<usize>() {
        Ok(i) => devices.get(i),
        Err(_) => {
            let needle = sel.to_lowercase();
            devices
                .iter()
                .find(|d| d.name.to_lowercase().contains(&needle))
        }
    };
    match found {
        Some(d) => Ok(Choice::Vulkan {
            profile: Some(Box::new(DeviceProfile::from_info(d))),
            selector: Some(sel),
        }),
        None => Err(format!(
            "no device `{sel}`: choose {} (`cajetac devices` lists them)",
            choices(&devices)
        )),
    }
}

/// The choices a selector has, in words: each Vulkan device's index and name, then `cpu`.
fn choices(devices: &[DeviceInfo]) -> String {
    let mut all: Vec<String> = devices
        .iter()
        .map(|d| format!("{} ({})", d.index, d.name))
        .collect();
    all.push("cpu (the CPU device)".to_string());
    if devices.is_empty() {
        format!(
            "`cpu`: no Vulkan device was found, so the only device is {}",
            all.join("")
        )
    } else {
        format!("one of {}", all.join(", "))
    }
}

/// The lines of `cajetac devices`: every Vulkan device, then the CPU device.
pub(crate) fn device_lines(list: &[DeviceInfo]) -> Vec<String> {
    let cpu = cajeta_runtime::cpu::CpuDevice::new();
    list.iter()
        .map(|d| {
            format!(
                "[{}] {} ({:?}, Vulkan {}, {} {})",
                d.index, d.name, d.device_type, d.api_version, d.driver_name, d.driver_info
            )
        })
        .chain(std::iter::once(format!(
            "[cpu] cajeta cpu device (Cpu, {} threads, kernels compiled by LLVM for this CPU)",
            cpu.threads()
        )))
        .collect()
}
