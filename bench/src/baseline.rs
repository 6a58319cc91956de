//! The floor: a minimal hand-written ash program doing the same work as the runtime benchmarks
//! (one instance, one device, one pipeline per kernel, one descriptor set, one command buffer,
//! raw `vkAllocateMemory`; no hazard tracking, no pools, no checks).

use ash::vk;
use cajeta_runtime::Reflection;

type R<T> = Result<T, String>;

fn fail(call: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{call}: {e}")
}

/// A buffer with its memory (and mapping, for host-visible ones).
pub struct RawBuf {
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    pub mapped: *mut u8,
}

/// A compute pipeline with a one-set layout and its descriptor set.
pub struct RawPipeline {
    pub pipeline: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    pub set: vk::DescriptorSet,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    module: vk::ShaderModule,
}

/// Instance, device, queue, one command buffer, one fence, one timestamp pool.
pub struct Baseline {
    _entry: ash::Entry,
    instance: ash::Instance,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pool: vk::CommandPool,
    pub cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pub queries: vk::QueryPool,
    pub timestamp_period: f64,
    memory: vk::PhysicalDeviceMemoryProperties,
}

impl Baseline {
    /// Opens the device named `name` (the one the runtime picked).
    pub fn new(name: &str) -> R<Baseline> {
        // SAFETY: loading the system Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| e.to_string())?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info.
        let instance =
            unsafe { entry.create_instance(&info, None) }.map_err(fail("vkCreateInstance"))?;
        // SAFETY: valid instance.
        let physicals =
            unsafe { instance.enumerate_physical_devices() }.map_err(fail("enumerate"))?;
        let physical = physicals
            .into_iter()
            .find(|&p| {
                // SAFETY: valid handle.
                let props = unsafe { instance.get_physical_device_properties(p) };
                props
                    .device_name_as_c_str()
                    .map(|n| n.to_string_lossy() == name)
                    .unwrap_or(false)
            })
            .ok_or_else(|| format!("device `{name}` not found"))?;
        // SAFETY: valid handle.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let dinfo = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: valid create info.
        let device = unsafe { instance.create_device(physical, &dinfo, None) }
            .map_err(fail("vkCreateDevice"))?;
        // SAFETY: valid device and family.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pinfo = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            .queue_family_index(family);
        // SAFETY: valid device.
        let (pool, cmd, fence, queries) = unsafe {
            let pool = device
                .create_command_pool(&pinfo, None)
                .map_err(fail("pool"))?;
            let cmd = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .command_buffer_count(1),
                )
                .map_err(fail("cmd"))?[0];
            let fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(fail("fence"))?;
            let queries = device
                .create_query_pool(
                    &vk::QueryPoolCreateInfo::default()
                        .query_type(vk::QueryType::TIMESTAMP)
                        .query_count(2),
                    None,
                )
                .map_err(fail("query pool"))?;
            (pool, cmd, fence, queries)
        };
        // SAFETY: valid handle.
        let props = unsafe { instance.get_physical_device_properties(physical) };
        // SAFETY: valid handle.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        Ok(Baseline {
            _entry: entry,
            instance,
            device,
            queue,
            pool,
            cmd,
            fence,
            queries,
            timestamp_period: f64::from(props.limits.timestamp_period),
            memory,
        })
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> R<u32> {
        (0..self.memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .ok_or_else(|| format!("no memory type with {flags:?}"))
    }

    /// A buffer in memory with `flags` (mapped when host-visible).
    pub fn buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        flags: vk::MemoryPropertyFlags,
    ) -> R<RawBuf> {
        let d = &self.device;
        // SAFETY: valid device and infos; memory bound once.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .map_err(fail("vkCreateBuffer"))?;
            let req = d.get_buffer_memory_requirements(buffer);
            let info = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(self.memory_type(req.memory_type_bits, flags)?);
            let memory = d
                .allocate_memory(&info, None)
                .map_err(fail("vkAllocateMemory"))?;
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(fail("bind"))?;
            let mapped = if flags.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) {
                d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    .map_err(fail("map"))? as *mut u8
            } else {
                std::ptr::null_mut()
            };
            Ok(RawBuf {
                buffer,
                memory,
                mapped,
            })
        }
    }

    /// A pipeline for a kernel whose bindings are all storage buffers, bound to `buffers`.
    pub fn pipeline(
        &self,
        words: &[u32],
        r: &Reflection,
        block: [u32; 3],
        buffers: &[&RawBuf],
    ) -> R<RawPipeline> {
        let d = &self.device;
        // SAFETY: valid device; every info points at locals alive for its call.
        unsafe {
            let module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
                .map_err(fail("module"))?;
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = r
                .bindings
                .iter()
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(fail("set layout"))?;
            let layouts = [set_layout];
            let ranges = [vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::COMPUTE,
                offset: 0,
                size: r.push_constants.size,
            }];
            let mut linfo = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
            if r.push_constants.size > 0 {
                linfo = linfo.push_constant_ranges(&ranges);
            }
            let layout = d
                .create_pipeline_layout(&linfo, None)
                .map_err(fail("layout"))?;
            let map: Vec<vk::SpecializationMapEntry> = (0..3)
                .map(|i| vk::SpecializationMapEntry {
                    constant_id: i,
                    offset: 4 * i,
                    size: 4,
                })
                .collect();
            let data: Vec<u8> = block.iter().flat_map(|v| v.to_le_bytes()).collect();
            let spec = vk::SpecializationInfo::default()
                .map_entries(&map)
                .data(&data);
            let name = std::ffi::CString::new(r.entry_point.clone()).map_err(|e| e.to_string())?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&name)
                .specialization_info(&spec);
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout);
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| format!("pipeline: {e}"))?[0];
            let sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 8,
            }];
            let pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(fail("descriptor pool"))?;
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .map_err(fail("set"))?[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
                .iter()
                .map(|b| {
                    [vk::DescriptorBufferInfo {
                        buffer: b.buffer,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = r
                .bindings
                .iter()
                .zip(&infos)
                .map(|(b, i)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(b.binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(i)
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
            Ok(RawPipeline {
                pipeline,
                layout,
                set,
                set_layout,
                pool,
                module,
            })
        }
    }

    /// Resets and begins the command buffer.
    pub fn begin(&self) -> R<()> {
        // SAFETY: the command buffer is idle (every submit is waited for).
        unsafe {
            self.device
                .reset_command_buffer(self.cmd, vk::CommandBufferResetFlags::empty())
                .map_err(fail("reset"))?;
            self.device
                .begin_command_buffer(
                    self.cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(fail("begin"))
        }
    }

    /// Records a dispatch of `p` with push constants `push`.
    pub fn dispatch(&self, p: &RawPipeline, push: &[u8], grid: [u32; 3]) {
        let d = &self.device;
        // SAFETY: recording state; objects alive.
        unsafe {
            d.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            d.cmd_bind_descriptor_sets(
                self.cmd,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[p.set],
                &[],
            );
            if !push.is_empty() {
                d.cmd_push_constants(self.cmd, p.layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            d.cmd_dispatch(self.cmd, grid[0], grid[1], grid[2]);
        }
    }

    /// Records a buffer barrier from `src` to `dst` (stage, access).
    pub fn barrier(
        &self,
        buffer: vk::Buffer,
        src: (vk::PipelineStageFlags, vk::AccessFlags),
        dst: (vk::PipelineStageFlags, vk::AccessFlags),
    ) {
        let b = vk::BufferMemoryBarrier::default()
            .src_access_mask(src.1)
            .dst_access_mask(dst.1)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(buffer)
            .size(vk::WHOLE_SIZE);
        // SAFETY: recording state.
        unsafe {
            self.device.cmd_pipeline_barrier(
                self.cmd,
                src.0,
                dst.0,
                vk::DependencyFlags::empty(),
                &[],
                &[b],
                &[],
            )
        };
    }

    /// Records a timestamp into query `i` (0 or 1); query 0 also resets the pool first.
    pub fn timestamp(&self, i: u32) {
        // SAFETY: recording state.
        unsafe {
            if i == 0 {
                self.device
                    .cmd_reset_query_pool(self.cmd, self.queries, 0, 2);
            }
            self.device.cmd_write_timestamp(
                self.cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                self.queries,
                i,
            )
        };
    }

    /// GPU nanoseconds between the two timestamps of the last submission.
    pub fn gpu_ns(&self) -> R<f64> {
        let mut data = [0u64; 2];
        // SAFETY: both queries were written by the finished submission.
        unsafe {
            self.device
                .get_query_pool_results(self.queries, 0, &mut data, vk::QueryResultFlags::TYPE_64)
                .map_err(fail("query results"))?
        };
        Ok(data[1].wrapping_sub(data[0]) as f64 * self.timestamp_period)
    }

    /// Ends, submits and waits for the command buffer.
    pub fn submit_wait(&self) -> R<()> {
        let d = &self.device;
        let cmds = [self.cmd];
        // SAFETY: recording state; the fence is unsignalled.
        unsafe {
            d.end_command_buffer(self.cmd).map_err(fail("end"))?;
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                self.fence,
            )
            .map_err(fail("submit"))?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)
                .map_err(fail("wait"))?;
            d.reset_fences(&[self.fence]).map_err(fail("reset fence"))
        }
    }

    /// Destroys a buffer.
    pub fn free(&self, b: RawBuf) {
        // SAFETY: idle.
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }

    /// Destroys a pipeline and its layout objects.
    pub fn free_pipeline(&self, p: RawPipeline) {
        // SAFETY: idle.
        unsafe {
            self.device.destroy_pipeline(p.pipeline, None);
            self.device.destroy_pipeline_layout(p.layout, None);
            self.device.destroy_descriptor_pool(p.pool, None);
            self.device
                .destroy_descriptor_set_layout(p.set_layout, None);
            self.device.destroy_shader_module(p.module, None);
        }
    }
}

impl Drop for Baseline {
    fn drop(&mut self) {
        // SAFETY: idle (every submit was waited for).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_query_pool(self.queries, None);
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
