//! Kernels: shader modules, descriptor set layouts, pipeline layouts, and compute pipelines
//! specialized per launch shape, all built from the reflection document (SPEC §7).
//!
//! A pipeline is created the first time a (block, spec values, shared bytes) combination is
//! launched and cached in the [`Kernel`]; creation goes through the device-wide
//! `VkPipelineCache` so even different kernels share compiled state where the driver can.

use std::collections::HashMap;
use std::ffi::CString;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;

use super::kernel_layout::check_layout;
use crate::descriptors::DescriptorCounts;
use crate::device::{capability_requirements, DeviceShared};
use crate::error::{vk_err, Result, RuntimeError};
use crate::features::{is_known_feature, ExtensionNeed, SPIRV_EXTENSIONS, SUBGROUP_CAPABILITIES};
use crate::lock;
use crate::reflection::{DescriptorType, Reflection};

/// SPIR-V magic number (host byte order).
const SPIRV_MAGIC: u32 = 0x0723_0203;
/// `OpEntryPoint`.
const OP_ENTRY_POINT: u32 = 15;
/// `ExecutionModel GLCompute`.
const MODEL_GL_COMPUTE: u32 = 5;
/// First SpecId of user `Spec` slots.
pub(crate) const USER_SPEC_BASE: u32 = 4;
/// SpecId of the first `psc` parameter: after the 1024 user `Spec` slots (SPEC §7).
pub(crate) const PSC_SPEC_BASE: u32 = USER_SPEC_BASE + 1024;
/// SpecId of the dynamic shared-memory size.
pub(crate) const SHARED_SPEC_ID: u32 = 3;

/// What a cached pipeline is specialized for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    pub block: [u32; 3],
    pub spec: Vec<u32>,
    pub shared_bytes: Option<u32>,
    /// `(SpecId, value)` of the `psc` parameters a launch specialized (non-zero values only).
    pub psc: Vec<(u32, u32)>,
}

pub(crate) struct KernelInner {
    pub(crate) shared: Arc<DeviceShared>,
    pub(crate) reflection: Reflection,
    entry: CString,
    module: vk::ShaderModule,
    pub(crate) set_layout: vk::DescriptorSetLayout,
    pub(crate) pipeline_layout: vk::PipelineLayout,
    pub(crate) counts: DescriptorCounts,
    /// Per reflection binding (in order), its descriptor count: 1, or a buffer array's capacity.
    pub(crate) binding_counts: Vec<u32>,
    pub(crate) pipelines: Mutex<HashMap<PipelineKey, vk::Pipeline>>,
    /// The pipeline the last launch used, checked before hashing into `pipelines`.
    last: Mutex<Option<(PipelineKey, vk::Pipeline)>>,
    created: AtomicUsize,
    /// `"launch <name>"`, the barrier log's label for this kernel's launches.
    pub(crate) launch_label: Arc<str>,
}

impl Drop for KernelInner {
    fn drop(&mut self) {
        let device = self.shared.device();
        // SAFETY: last reference: batches hold a Kernel clone until their fence signals, so no
        // pending command uses these pipelines or layouts.
        unsafe {
            for (_, pipeline) in lock(&self.pipelines).drain() {
                device.destroy_pipeline(pipeline, None);
            }
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
            device.destroy_shader_module(self.module, None);
        }
    }
}

/// A loaded kernel: shader module, descriptor set layout, pipeline layout and its cache of
/// specialized pipelines. Cheap to clone.
#[derive(Clone)]
pub struct Kernel {
    pub(crate) inner: Arc<KernelInner>,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name())
            .field("pipelines_created", &self.pipelines_created())
            .finish()
    }
}

/// Finds the names of the `GLCompute` entry points of a module, checking the header on the way.
fn compute_entry_points(spirv: &[u32]) -> std::result::Result<(u32, Vec<String>), String> {
    if spirv.len() < 5 || spirv[0] != SPIRV_MAGIC {
        return Err("the code is not a SPIR-V module (bad magic number or too short)".into());
    }
    let version = spirv[1];
    let mut names = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let word = spirv[at];
        let count = (word >> 16) as usize;
        if count == 0 || at + count > spirv.len() {
            return Err(format!("malformed SPIR-V instruction at word {at}"));
        }
        if word & 0xffff == OP_ENTRY_POINT && count >= 4 && spirv[at + 1] == MODEL_GL_COMPUTE {
            let bytes: Vec<u8> = spirv[at + 3..at + count]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            names.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
        }
        at += count;
    }
    Ok((version, names))
}

/// Parses `"vulkan1.2"` into 2.
fn target_env_minor(env: &str) -> Option<u32> {
    env.strip_prefix("vulkan1.")?.parse().ok()
}

impl Kernel {
    /// Checks the module and reflection against each other and the device, then creates the
    /// Vulkan objects. Refuses (with the missing feature named) anything the device lacks.
    pub(crate) fn load(
        shared: &Arc<DeviceShared>,
        spirv: &[u32],
        reflection: &Reflection,
    ) -> Result<Kernel> {
        let name = if reflection.entry_point.is_empty() {
            "?".to_string()
        } else {
            reflection.entry_point.clone()
        };
        let invalid = |message: String| RuntimeError::InvalidKernel {
            kernel: name.clone(),
            message,
        };
        let unsupported = |requirement: String| RuntimeError::Unsupported {
            kernel: name.clone(),
            requirement,
            device: shared.info.name.clone(),
        };
        let (stripped, printing_handled) =
            crate::kernel_printf::for_device(&shared.instance, spirv, &name);
        let spirv = stripped.as_deref().unwrap_or(spirv);
        let (version, entries) = compute_entry_points(spirv).map_err(&invalid)?;
        if !entries.contains(&reflection.entry_point) {
            return Err(invalid(format!(
                "the module has no GLCompute entry point `{}` (it has: {})",
                reflection.entry_point,
                entries.join(", ")
            )));
        }
        crate::coop_shapes::check_kernel(
            &shared.info.coop_matrix_shapes,
            shared
                .enabled_extensions
                .contains(crate::features::COOP_MATRIX_EXT),
            &reflection.coop_matrix_shapes,
        )
        .map_err(&unsupported)?;
        let minor = shared.api_minor();
        let spirv_minor = (version >> 8) & 0xff;
        let needed_vulkan = match spirv_minor {
            0..=3 => 1,
            4 | 5 => 2,
            _ => 3,
        };
        if needed_vulkan > minor {
            return Err(unsupported(format!(
                "SPIR-V 1.{spirv_minor} (Vulkan 1.{needed_vulkan})"
            )));
        }
        match target_env_minor(&reflection.target_env) {
            Some(m) if m > minor => {
                return Err(unsupported(format!(
                    "target environment {}",
                    reflection.target_env
                )))
            }
            Some(_) => {}
            None => {
                return Err(invalid(format!(
                    "unknown target_env `{}`",
                    reflection.target_env
                )))
            }
        }
        for feature in &reflection.vulkan_features {
            if !shared.enabled_features.contains(feature) {
                let why = if is_known_feature(feature) {
                    ""
                } else {
                    " (unknown to this runtime)"
                };
                return Err(unsupported(format!("Vulkan feature `{feature}`{why}")));
            }
        }
        for (cap, feature) in capability_requirements(&reflection.capabilities) {
            if !shared.enabled_features.contains(feature) {
                return Err(unsupported(format!(
                    "SPIR-V capability `{cap}` (Vulkan feature `{feature}`)"
                )));
            }
        }
        if let Some(n) = reflection.required_subgroup_size {
            crate::device_profile::subgroup_size_allowed(n, shared.info.subgroup_size_range)
                .map_err(unsupported)?;
        }
        for (cap, op) in SUBGROUP_CAPABILITIES {
            if reflection.capabilities.iter().any(|c| c == cap)
                && !shared.subgroup_ops.contains(*op)
            {
                return Err(unsupported(format!(
                    "SPIR-V capability `{cap}` (subgroup operation {op:?} in compute)"
                )));
            }
        }
        for ext in &reflection.extensions {
            if ext == "SPV_KHR_non_semantic_info" && printing_handled {
                continue;
            }
            let ok = match SPIRV_EXTENSIONS.iter().find(|(n, _)| n == ext) {
                Some((_, ExtensionNeed::Core(m))) => *m <= minor,
                Some((_, ExtensionNeed::Device(d))) => shared.enabled_extensions.contains(*d),
                None => false,
            };
            if !ok {
                return Err(unsupported(
                    match SPIRV_EXTENSIONS.iter().find(|(n, _)| n == ext) {
                        Some((_, ExtensionNeed::Device(d))) => {
                            format!("SPIR-V extension `{ext}` (device extension `{d}`)")
                        }
                        _ => format!("SPIR-V extension `{ext}`"),
                    },
                ));
            }
        }
        let counts = check_layout(shared, reflection).map_err(|m| {
            if m.contains("maxPushConstantsSize") {
                unsupported(m)
            } else {
                invalid(m)
            }
        })?;
        let entry = CString::new(reflection.entry_point.clone())
            .map_err(|_| invalid("entry point name contains a NUL byte".into()))?;
        create_objects(shared, spirv, reflection, entry, counts)
    }

    /// The kernel's name (its entry point).
    pub fn name(&self) -> &str {
        &self.inner.reflection.entry_point
    }

    /// The reflection document the kernel was loaded with.
    pub fn reflection(&self) -> &Reflection {
        &self.inner.reflection
    }

    /// Creates the pipeline a launch with workgroup size `block` and default specialization
    /// values would use, so that the driver's compile is paid (and any refusal seen) before
    /// the first launch, as one warms a CUDA module; a later launch of that shape reuses it.
    pub fn prepare(&self, block: [u32; 3]) -> Result<()> {
        self.pipeline(&PipelineKey {
            block,
            spec: Vec::new(),
            shared_bytes: None,
            psc: Vec::new(),
        })
        .map(|_| ())
    }

    /// How many pipelines this kernel has created so far (one per distinct block size, spec
    /// values and shared size launched).
    pub fn pipelines_created(&self) -> usize {
        self.inner.created.load(Ordering::Relaxed)
    }

    /// Specialization map entries and data for `key`; `Err` names what is wrong.
    pub(crate) fn specialization(
        &self,
        key: &PipelineKey,
    ) -> std::result::Result<Vec<(u32, u32)>, String> {
        let declared = |id: u32| {
            self.inner
                .reflection
                .spec_constants
                .iter()
                .any(|s| s.id == id)
        };
        let mut entries: Vec<(u32, u32)> = (0..3u32).map(|i| (i, key.block[i as usize])).collect();
        if let Some(bytes) = key.shared_bytes {
            if !declared(SHARED_SPEC_ID) {
                return Err(format!(
                    "shared_bytes {bytes} given, but the kernel declares no dynamic shared array (SpecId {SHARED_SPEC_ID})"
                ));
            }
            entries.push((SHARED_SPEC_ID, bytes));
        }
        let highest_user = self
            .inner
            .reflection
            .spec_constants
            .iter()
            .filter(|s| (USER_SPEC_BASE..PSC_SPEC_BASE).contains(&s.id))
            .map(|s| s.id - USER_SPEC_BASE + 1)
            .max()
            .unwrap_or(0);
        if key.spec.len() as u32 > highest_user {
            return Err(format!(
                "{} spec values given, but the kernel declares {highest_user} spec slot(s)",
                key.spec.len()
            ));
        }
        for (i, &value) in key.spec.iter().enumerate() {
            let id = USER_SPEC_BASE + i as u32;
            // Slots the kernel never reads were dropped by the compiler; their value is moot.
            if declared(id) {
                entries.push((id, value));
            }
        }
        entries.extend(key.psc.iter().copied().filter(|&(id, _)| declared(id)));
        // Buffer arrays are as long as the set layout's binding (see `DescriptorArray`).
        for (b, &count) in self
            .inner
            .reflection
            .bindings
            .iter()
            .zip(&self.inner.binding_counts)
        {
            if let Some(a) = &b.array {
                entries.push((a.capacity_spec_id, count));
            }
        }
        Ok(entries)
    }

    /// The pipeline for `key` if it was created already; the last one used is found without
    /// hashing the key.
    pub(crate) fn cached_pipeline(&self, key: &PipelineKey) -> Option<vk::Pipeline> {
        let mut last = lock(&self.inner.last);
        if let Some((k, p)) = last.as_ref() {
            if k == key {
                return Some(*p);
            }
        }
        let p = lock(&self.inner.pipelines).get(key).copied()?;
        *last = Some((key.clone(), p));
        Some(p)
    }

    /// The pipeline for `key`, created (and counted) on first use.
    pub(crate) fn pipeline(&self, key: &PipelineKey) -> Result<vk::Pipeline> {
        let inner = &self.inner;
        let mut pipelines = lock(&inner.pipelines);
        if let Some(&p) = pipelines.get(key) {
            return Ok(p);
        }
        let entries = self
            .specialization(key)
            .map_err(|message| RuntimeError::Launch {
                kernel: self.name().to_string(),
                message,
            })?;
        let map: Vec<vk::SpecializationMapEntry> = entries
            .iter()
            .enumerate()
            .map(|(i, &(constant_id, _))| vk::SpecializationMapEntry {
                constant_id,
                offset: 4 * i as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> = entries.iter().flat_map(|&(_, v)| v.to_le_bytes()).collect();
        let spec_info = vk::SpecializationInfo::default()
            .map_entries(&map)
            .data(&data);
        let mut required_size = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(inner.module)
            .name(&inner.entry)
            .specialization_info(&spec_info);
        if let Some(n) = inner.reflection.required_subgroup_size {
            // Checked against the device's range when the kernel was loaded.
            required_size = required_size.required_subgroup_size(n);
            stage = stage.push_next(&mut required_size);
        }
        let mut info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(inner.pipeline_layout);
        if inner.shared.executable_properties.is_some() {
            info = info.flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
        }
        // SAFETY: module, layout and cache are alive; the infos point at locals.
        let _serial = crate::lock(&crate::DRIVER_SERIAL);
        let created = unsafe {
            inner.shared.device().create_compute_pipelines(
                inner.shared.pipeline_cache,
                &[info],
                None,
            )
        };
        let pipeline = match created {
            Ok(p) => p.into_iter().next(),
            Err((_, result)) => {
                return Err(RuntimeError::Vulkan {
                    call: "vkCreateComputePipelines",
                    result,
                })
            }
        };
        let Some(pipeline) = pipeline else {
            return Err(RuntimeError::Vulkan {
                call: "vkCreateComputePipelines",
                result: vk::Result::ERROR_UNKNOWN,
            });
        };
        pipelines.insert(key.clone(), pipeline);
        inner.created.fetch_add(1, Ordering::Relaxed);
        Ok(pipeline)
    }
}

/// Creates module, set layout and pipeline layout. The kernel is assembled with null handles
/// first so that, on failure, its `Drop` destroys exactly what was created (destroying a null
/// handle is a no-op in Vulkan).
fn create_objects(
    shared: &Arc<DeviceShared>,
    spirv: &[u32],
    r: &Reflection,
    entry: CString,
    (counts, binding_counts): (DescriptorCounts, Vec<u32>),
) -> Result<Kernel> {
    let mut inner = KernelInner {
        shared: shared.clone(),
        reflection: r.clone(),
        entry,
        module: vk::ShaderModule::null(),
        set_layout: vk::DescriptorSetLayout::null(),
        pipeline_layout: vk::PipelineLayout::null(),
        counts,
        binding_counts,
        pipelines: Mutex::new(HashMap::new()),
        last: Mutex::new(None),
        created: AtomicUsize::new(0),
        launch_label: Arc::from(format!("launch {}", r.entry_point)),
    };
    let device = shared.device();
    let module_info = vk::ShaderModuleCreateInfo::default().code(spirv);
    // SAFETY: the code starts with the SPIR-V magic and is well-formed at the instruction
    // level (checked by `compute_entry_points`).
    inner.module = unsafe { device.create_shader_module(&module_info, None) }
        .map_err(vk_err("vkCreateShaderModule"))?;
    let layout_binding = |binding: u32, ty: DescriptorType, count: u32| {
        vk::DescriptorSetLayoutBinding::default()
            .binding(binding)
            .descriptor_type(descriptor_type(ty))
            .descriptor_count(count)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
    };
    let mut bindings: Vec<vk::DescriptorSetLayoutBinding> = r
        .bindings
        .iter()
        .zip(&inner.binding_counts)
        .map(|(b, &count)| layout_binding(b.binding, b.descriptor_type, count))
        .collect();
    if let Some(check) = &r.bounds_check {
        bindings.push(layout_binding(
            check.binding,
            DescriptorType::StorageBuffer,
            1,
        ));
    }
    let set_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
    // SAFETY: valid device and create info.
    inner.set_layout = unsafe { device.create_descriptor_set_layout(&set_info, None) }
        .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
    let ranges = [vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::COMPUTE,
        offset: 0,
        size: r.push_constants.size,
    }];
    let set_layouts = [inner.set_layout];
    let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    if r.push_constants.size > 0 {
        layout_info = layout_info.push_constant_ranges(&ranges);
    }
    // SAFETY: valid device and create info.
    inner.pipeline_layout = unsafe { device.create_pipeline_layout(&layout_info, None) }
        .map_err(vk_err("vkCreatePipelineLayout"))?;
    Ok(Kernel {
        inner: Arc::new(inner),
    })
}

/// The Vulkan descriptor type of a reflection descriptor type.
pub(crate) fn descriptor_type(t: DescriptorType) -> vk::DescriptorType {
    match t {
        DescriptorType::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorType::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorType::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorType::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorType::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}
