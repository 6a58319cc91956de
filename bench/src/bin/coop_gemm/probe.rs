//! What the device says about cooperative matrices, read straight through Vulkan, and the
//! torch yardstick.

use std::collections::HashMap;
use std::ffi::CStr;

use ash::vk;

/// `VkCooperativeMatrixFlexibleDimensionsPropertiesNV` (`VK_NV_cooperative_matrix2`, which
/// ash 0.38 predates).
#[repr(C)]
#[derive(Clone, Copy)]
struct FlexibleDimensions {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    m_granularity: u32,
    n_granularity: u32,
    k_granularity: u32,
    a_type: vk::ComponentTypeKHR,
    b_type: vk::ComponentTypeKHR,
    c_type: vk::ComponentTypeKHR,
    result_type: vk::ComponentTypeKHR,
    saturating_accumulation: vk::Bool32,
    scope: vk::ScopeKHR,
    workgroup_invocations: u32,
}

type FlexibleFn =
    unsafe extern "system" fn(vk::PhysicalDevice, *mut u32, *mut FlexibleDimensions) -> vk::Result;

/// Prints, for every Vulkan device, its `VK_KHR_cooperative_matrix` shapes and its
/// `VK_NV_cooperative_matrix2` flexible dimensions (where it has the extensions).
pub fn print_shapes() {
    if let Err(e) = shapes() {
        println!("cooperative-matrix shapes: cannot read them: {e}");
    }
}

fn shapes() -> Result<(), String> {
    // SAFETY: plain Vulkan calls on objects made here and destroyed before returning.
    unsafe {
        let entry = ash::Entry::load().map_err(|e| e.to_string())?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .map_err(|e| e.to_string())?;
        for pd in instance
            .enumerate_physical_devices()
            .map_err(|e| e.to_string())?
        {
            let props = instance.get_physical_device_properties(pd);
            let name = CStr::from_ptr(props.device_name.as_ptr()).to_string_lossy();
            let exts = instance
                .enumerate_device_extension_properties(pd)
                .unwrap_or_default();
            let has = |n: &str| {
                exts.iter()
                    .any(|e| CStr::from_ptr(e.extension_name.as_ptr()).to_str() == Ok(n))
            };
            println!("device {name}:");
            if !has("VK_KHR_cooperative_matrix") {
                println!("  no VK_KHR_cooperative_matrix");
                continue;
            }
            let khr = ash::khr::cooperative_matrix::Instance::new(&entry, &instance);
            for p in khr
                .get_physical_device_cooperative_matrix_properties(pd)
                .unwrap_or_default()
            {
                println!(
                    "  KHR {}x{}x{}  A {:?} B {:?} C {:?} result {:?} scope {:?} saturating {}",
                    p.m_size,
                    p.n_size,
                    p.k_size,
                    p.a_type,
                    p.b_type,
                    p.c_type,
                    p.result_type,
                    p.scope,
                    p.saturating_accumulation
                );
            }
            if !has("VK_NV_cooperative_matrix2") {
                println!("  no VK_NV_cooperative_matrix2");
                continue;
            }
            let f = (entry.static_fn().get_instance_proc_addr)(
                instance.handle(),
                c"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV".as_ptr(),
            );
            let Some(f) = f else {
                println!(
                    "  NV2: no vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"
                );
                continue;
            };
            let f: FlexibleFn = std::mem::transmute(f);
            let mut count = 0u32;
            let _ = f(pd, &mut count, std::ptr::null_mut());
            let blank = FlexibleDimensions {
                s_type: vk::StructureType::from_raw(1_000_593_001),
                p_next: std::ptr::null_mut(),
                m_granularity: 0,
                n_granularity: 0,
                k_granularity: 0,
                a_type: vk::ComponentTypeKHR::default(),
                b_type: vk::ComponentTypeKHR::default(),
                c_type: vk::ComponentTypeKHR::default(),
                result_type: vk::ComponentTypeKHR::default(),
                saturating_accumulation: 0,
                scope: vk::ScopeKHR::default(),
                workgroup_invocations: 0,
            };
            let mut list = vec![blank; count as usize];
            let _ = f(pd, &mut count, list.as_mut_ptr());
            for p in list.iter().take(count as usize) {
                println!(
                    "  NV2 flexible granularity {}x{}x{}  A {:?} B {:?} C {:?} result {:?} scope {:?} workgroup invocations {}",
                    p.m_granularity,
                    p.n_granularity,
                    p.k_granularity,
                    p.a_type,
                    p.b_type,
                    p.c_type,
                    p.result_type,
                    p.scope,
                    p.workgroup_invocations
                );
            }
        }
        instance.destroy_instance(None);
    }
    Ok(())
}

/// torch's matmul TFLOP/s on `sizes`, fp16 and bf16, by `(size, dtype)`; empty (with a line
/// saying why) where python3 or torch with CUDA is missing.
pub fn torch_rates(sizes: &[u32]) -> HashMap<(u32, &'static str), f64> {
    let list = sizes
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let script = format!(
        "import torch\n\
         for n in [{list}]:\n\
         \x20   for name, dt in [('fp16', torch.float16), ('bf16', torch.bfloat16)]:\n\
         \x20       a = torch.randn(n, n, device='cuda', dtype=dt); b = torch.randn(n, n, device='cuda', dtype=dt)\n\
         \x20       for _ in range(3): a @ b\n\
         \x20       ts = []\n\
         \x20       for _ in range(10):\n\
         \x20           s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)\n\
         \x20           s.record(); a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))\n\
         \x20       ts.sort(); ms = ts[len(ts) // 2]\n\
         \x20       print(n, name, 2 * n ** 3 / (ms * 1e-3) / 1e12)\n"
    );
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(&script)
        .output();
    let mut rates = HashMap::new();
    match out {
        Ok(o) if o.status.success() => {
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                if let [n, name, r] = f[..] {
                    let dtype = if name == "fp16" { "fp16" } else { "bf16" };
                    if let (Ok(n), Ok(r)) = (n.parse(), r.parse()) {
                        rates.insert((n, dtype), r);
                    }
                }
            }
        }
        Ok(o) => println!("torch: {}", String::from_utf8_lossy(&o.stderr).trim()),
        Err(e) => println!("torch: cannot run python3: {e}"),
    }
    rates
}
