//! The stream: command recording, launches, uploads, downloads, submission and waiting.
//!
//! Commands are recorded into the current batch (one command buffer) and submitted only by
//! `sync()` or a download, never per launch. A batch owns what its commands need until its
//! fence signals: clones of the buffers, images and kernels it uses, its staging buffers and
//! its descriptor pools. After the fence, the batch is reset and reused.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::launch::{check_shape, prepare, Bound, KernelArg, LaunchConfig};
use crate::lock;
use crate::memory::Staging;
use crate::pipeline::{DescriptorCounts, Kernel};
use crate::resources::{Buffer, Image2D};
use crate::sync::{BarrierBatch, Handle, Usage};

/// Sequence number of a recorded command (launch, upload, download), unique and increasing
/// across the whole context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommandId(pub u64);

impl fmt::Display for CommandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

/// Descriptor capacity of each new pool; a kernel needing more gets a pool its own size.
const POOL_CAPACITY: DescriptorCounts = DescriptorCounts {
    storage_buffers: 256,
    storage_images: 64,
    sampled_images: 32,
    samplers: 32,
};
/// Descriptor sets per pool.
const POOL_SETS: u32 = 64;

/// Something a batch keeps alive until its fence signals. The fields are never read: holding
/// them is the point, their `Drop` runs when the batch is recycled.
#[allow(dead_code)]
enum Keep {
    Buffer(Buffer),
    Image(Image2D),
    Kernel(Kernel),
    Staging(Arc<Staging>),
}

struct DescPool {
    pool: vk::DescriptorPool,
    capacity: DescriptorCounts,
    left: DescriptorCounts,
    sets_left: u32,
}

/// One command buffer with its fence, descriptor pools and kept-alive objects.
struct Batch {
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pools: Vec<DescPool>,
    keep: Vec<Keep>,
    commands: usize,
}

struct StreamState {
    command_pool: vk::CommandPool,
    recording: Option<Batch>,
    in_flight: Vec<Batch>,
    free: Vec<Batch>,
}

pub(crate) struct StreamShared {
    shared: Arc<DeviceShared>,
    state: Mutex<StreamState>,
}

impl Drop for StreamShared {
    fn drop(&mut self) {
        let device = self.shared.device();
        let state = match self.state.get_mut() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Work recorded but never submitted is dropped; submitted work is waited for so the
        // objects its batch keeps alive are released only after the GPU is done with them.
        let fences: Vec<vk::Fence> = state.in_flight.iter().map(|b| b.fence).collect();
        // SAFETY: fences belong to this device; waiting with an unbounded timeout is what
        // makes destroying the batch objects below safe.
        unsafe {
            if !fences.is_empty() {
                let _ = device.wait_for_fences(&fences, true, u64::MAX);
            }
            let _ = device.queue_wait_idle(self.shared.queue);
        }
        let batches = state
            .recording
            .take()
            .into_iter()
            .chain(state.in_flight.drain(..))
            .chain(state.free.drain(..));
        for batch in batches {
            // SAFETY: the batch is idle (waited above) or never submitted.
            unsafe {
                for p in &batch.pools {
                    device.destroy_descriptor_pool(p.pool, None);
                }
                device.destroy_fence(batch.fence, None);
            }
            drop(batch.keep);
        }
        // SAFETY: destroying the pool frees its command buffers, none of which is pending.
        unsafe { device.destroy_command_pool(state.command_pool, None) };
    }
}

/// An in-order command stream on the context's compute queue. Cheap to clone; clones are
/// the same stream.
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<StreamShared>,
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.inner.state);
        f.debug_struct("Stream")
            .field(
                "recorded",
                &state.recording.as_ref().map_or(0, |b| b.commands),
            )
            .field("in_flight", &state.in_flight.len())
            .finish()
    }
}

impl Stream {
    pub(crate) fn new(shared: &Arc<DeviceShared>) -> Result<Stream> {
        let info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            .queue_family_index(shared.queue_family);
        // SAFETY: valid device and family.
        let command_pool = unsafe { shared.device().create_command_pool(&info, None) }
            .map_err(vk_err("vkCreateCommandPool"))?;
        let state = StreamState {
            command_pool,
            recording: None,
            in_flight: Vec::new(),
            free: Vec::new(),
        };
        Ok(Stream {
            inner: Arc::new(StreamShared {
                shared: shared.clone(),
                state: Mutex::new(state),
            }),
        })
    }

    fn shared(&self) -> &Arc<DeviceShared> {
        &self.inner.shared
    }

    fn check_owner(&self, owner: &Arc<DeviceShared>, what: &str) -> Result<()> {
        if Arc::ptr_eq(owner, self.shared()) {
            Ok(())
        } else {
            Err(RuntimeError::ForeignResource(what.to_string()))
        }
    }

    /// Records a dispatch of `kernel` with `args` (in parameter order). Checks the shape
    /// against the device limits and the arguments against the reflection first; on error
    /// nothing is recorded. Not submitted until `sync()` or a download.
    pub fn launch(
        &self,
        kernel: &Kernel,
        config: &LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<CommandId> {
        let shared = self.shared();
        let launch_err = |message: String| RuntimeError::Launch {
            kernel: kernel.name().to_string(),
            message,
        };
        self.check_owner(&kernel.inner.shared, &format!("kernel `{}`", kernel.name()))?;
        check_shape(shared, config).map_err(launch_err)?;
        let prepared = prepare(shared, kernel, config, args).map_err(launch_err)?;
        let pipeline = kernel.pipeline(&prepared.key)?;
        let device = shared.device();
        let mut state = lock(&self.inner.state);
        let batch = ensure_recording(shared, &mut state)?;
        let set = if prepared.bindings.is_empty() {
            vk::DescriptorSet::null()
        } else {
            allocate_set(shared, batch, kernel)?
        };
        // Everything fallible is done: from here on the command is certainly recorded, so the
        // hazard state may advance.
        let id = CommandId(shared.next_command_id());
        let label = format!("launch {}", kernel.name());
        let barriers = lock(&shared.tracker).plan(id, &label, &prepared.usages);
        let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = prepared
            .bindings
            .iter()
            .map(|(_, _, b)| match b {
                Bound::Buffer(buf) => [vk::DescriptorBufferInfo {
                    buffer: buf.inner.raw.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }],
                Bound::Image(_) => [vk::DescriptorBufferInfo::default()],
            })
            .collect();
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = prepared
            .bindings
            .iter()
            .map(|(_, _, b)| match b {
                Bound::Image(img) => [vk::DescriptorImageInfo {
                    sampler: vk::Sampler::null(),
                    image_view: img.inner.view,
                    image_layout: vk::ImageLayout::GENERAL,
                }],
                Bound::Buffer(_) => [vk::DescriptorImageInfo::default()],
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = prepared
            .bindings
            .iter()
            .enumerate()
            .map(|(i, (binding, ty, b))| {
                let w = vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*binding)
                    .descriptor_type(*ty);
                match b {
                    Bound::Buffer(_) => w.buffer_info(&buffer_infos[i]),
                    Bound::Image(_) => w.image_info(&image_infos[i]),
                }
            })
            .collect();
        let layout = kernel.inner.pipeline_layout;
        // SAFETY: the set, pipeline, layout and resources are alive (the batch keeps them until
        // its fence signals), and the command buffer is in the recording state.
        unsafe {
            if !writes.is_empty() {
                device.update_descriptor_sets(&writes, &[]);
            }
            record_barriers(device, batch.cmd, &barriers);
            device.cmd_bind_pipeline(batch.cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            if set != vk::DescriptorSet::null() {
                device.cmd_bind_descriptor_sets(
                    batch.cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    layout,
                    0,
                    &[set],
                    &[],
                );
            }
            if !prepared.push.is_empty() {
                device.cmd_push_constants(
                    batch.cmd,
                    layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &prepared.push,
                );
            }
            device.cmd_dispatch(batch.cmd, config.grid[0], config.grid[1], config.grid[2]);
        }
        batch.keep.push(Keep::Kernel(kernel.clone()));
        for (_, _, b) in prepared.bindings {
            batch.keep.push(match b {
                Bound::Buffer(buf) => Keep::Buffer(buf),
                Bound::Image(img) => Keep::Image(img),
            });
        }
        batch.commands += 1;
        Ok(id)
    }

    /// Records a copy of `data` into `buffer` through a staging buffer. `data.len()` must equal
    /// the buffer size.
    pub fn upload_buffer(&self, buffer: &Buffer, data: &[u8]) -> Result<CommandId> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        if data.len() as u64 != buffer.size() {
            return Err(RuntimeError::LengthMismatch {
                resource: "buffer",
                resource_bytes: buffer.size(),
                host_bytes: data.len() as u64,
            });
        }
        let shared = self.shared();
        let staging = Arc::new(Staging::upload(shared, data)?);
        let mut state = lock(&self.inner.state);
        let batch = ensure_recording(shared, &mut state)?;
        let id = CommandId(shared.next_command_id());
        let usage = Usage::transfer_write(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
        let barriers = lock(&shared.tracker).plan(id, "upload", &[usage]);
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: 0,
            size: buffer.size(),
        };
        let device = shared.device();
        // SAFETY: both buffers are alive until the batch's fence signals; recording state.
        unsafe {
            record_barriers(device, batch.cmd, &barriers);
            device.cmd_copy_buffer(
                batch.cmd,
                staging.buffer(),
                buffer.inner.raw.buffer,
                &[region],
            );
        }
        batch.keep.push(Keep::Buffer(buffer.clone()));
        batch.keep.push(Keep::Staging(staging));
        batch.commands += 1;
        Ok(id)
    }

    /// Copies `buffer` into `out` (whose length must equal the buffer size). Submits all
    /// recorded work and waits for it.
    pub fn download_buffer(&self, buffer: &Buffer, out: &mut [u8]) -> Result<()> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        if out.len() as u64 != buffer.size() {
            return Err(RuntimeError::LengthMismatch {
                resource: "buffer",
                resource_bytes: buffer.size(),
                host_bytes: out.len() as u64,
            });
        }
        let usage = Usage::transfer_read(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: 0,
            size: buffer.size(),
        };
        let src = buffer.inner.raw.buffer;
        self.download(
            usage,
            Keep::Buffer(buffer.clone()),
            out,
            |device, cmd, dst| {
                // SAFETY: both buffers are alive until the batch's fence signals; recording state.
                unsafe { device.cmd_copy_buffer(cmd, src, dst, &[region]) }
            },
        )
    }

    /// Copies `image` into `out` as tightly packed row-major texels (`width * height *
    /// texel_size` bytes). Submits all recorded work and waits for it.
    pub fn download_image(&self, image: &Image2D, out: &mut [u8]) -> Result<()> {
        self.check_owner(&image.inner.shared, "image")?;
        if out.len() as u64 != image.byte_size() {
            return Err(RuntimeError::LengthMismatch {
                resource: "image",
                resource_bytes: image.byte_size(),
                host_bytes: out.len() as u64,
            });
        }
        let usage = Usage::transfer_read(image.id(), Handle::Image(image.inner.raw.image));
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width: image.width(),
                height: image.height(),
                depth: 1,
            },
        };
        let src = image.inner.raw.image;
        self.download(
            usage,
            Keep::Image(image.clone()),
            out,
            |device, cmd, dst| {
                // SAFETY: image (in GENERAL after the tracker's barriers) and staging buffer are
                // alive until the batch's fence signals; recording state.
                unsafe {
                    device.cmd_copy_image_to_buffer(
                        cmd,
                        src,
                        vk::ImageLayout::GENERAL,
                        dst,
                        &[region],
                    )
                }
            },
        )
    }

    /// Shared tail of the downloads: barriers, the copy into a staging buffer, the
    /// TRANSFER→HOST barrier, submit and wait, then the host copy.
    fn download(
        &self,
        usage: Usage,
        keep: Keep,
        out: &mut [u8],
        copy: impl FnOnce(&ash::Device, vk::CommandBuffer, vk::Buffer),
    ) -> Result<()> {
        let shared = self.shared();
        let staging = Arc::new(Staging::download(shared, out.len() as u64)?);
        let mut state = lock(&self.inner.state);
        let batch = ensure_recording(shared, &mut state)?;
        let id = CommandId(shared.next_command_id());
        let barriers = lock(&shared.tracker).plan(id, "download", &[usage]);
        let device = shared.device();
        // The host reads the staging buffer after the fence; the copy's writes must still be
        // made visible to the host. Not logged: the staging buffer is not a user resource.
        let to_host = vk::BufferMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(staging.buffer())
            .offset(0)
            .size(vk::WHOLE_SIZE);
        // SAFETY: recording state; everything referenced is kept alive by the batch.
        unsafe {
            record_barriers(device, batch.cmd, &barriers);
            copy(device, batch.cmd, staging.buffer());
            device.cmd_pipeline_barrier(
                batch.cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[],
                &[to_host],
                &[],
            );
        }
        batch.keep.push(keep);
        batch.keep.push(Keep::Staging(staging.clone()));
        batch.commands += 1;
        let synced = sync_locked(shared, &mut state);
        drop(state);
        match synced {
            // Validation messages still leave correct data behind; hand both to the caller.
            Ok(()) | Err(RuntimeError::Validation { .. }) => {
                staging.read_into(out)?;
                synced
            }
            Err(e) => Err(e),
        }
    }

    /// Submits everything recorded and waits until the device has finished it. In validation
    /// mode, returns `Err` listing any validation messages that appeared since the last check.
    pub fn sync(&self) -> Result<()> {
        let mut state = lock(&self.inner.state);
        sync_locked(self.shared(), &mut state)
    }

    /// Waits for submitted work without submitting more (used when the context goes away).
    pub(crate) fn wait_submitted(&self) {
        let mut state = lock(&self.inner.state);
        let _ = wait_in_flight(self.shared(), &mut state);
    }
}

/// Records one `vkCmdPipelineBarrier` for all of a command's resource barriers, if any.
///
/// # Safety
/// `cmd` must be recording and the barriers' resources alive until it completes.
unsafe fn record_barriers(device: &ash::Device, cmd: vk::CommandBuffer, b: &BarrierBatch) {
    if !b.is_empty() {
        // SAFETY: upheld by the caller.
        unsafe {
            device.cmd_pipeline_barrier(
                cmd,
                b.src_stages,
                b.dst_stages,
                vk::DependencyFlags::empty(),
                &[],
                &b.buffers,
                &b.images,
            );
        }
    }
}

/// The batch being recorded, starting one (reused or new) if none is.
fn ensure_recording<'s>(
    shared: &DeviceShared,
    state: &'s mut StreamState,
) -> Result<&'s mut Batch> {
    if state.recording.is_none() {
        let batch = match state.free.pop() {
            Some(b) => b,
            None => new_batch(shared, state.command_pool)?,
        };
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the command buffer is in the initial state (new or reset).
        if let Err(e) = unsafe { shared.device().begin_command_buffer(batch.cmd, &begin) } {
            state.free.push(batch);
            return Err(vk_err("vkBeginCommandBuffer")(e));
        }
        state.recording = Some(batch);
    }
    match state.recording.as_mut() {
        Some(b) => Ok(b),
        None => Err(RuntimeError::Vulkan {
            call: "vkBeginCommandBuffer",
            result: vk::Result::ERROR_UNKNOWN,
        }),
    }
}

fn new_batch(shared: &DeviceShared, pool: vk::CommandPool) -> Result<Batch> {
    let device = shared.device();
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: valid pool.
    let cmds = unsafe { device.allocate_command_buffers(&info) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?;
    let Some(&cmd) = cmds.first() else {
        return Err(RuntimeError::Vulkan {
            call: "vkAllocateCommandBuffers",
            result: vk::Result::ERROR_UNKNOWN,
        });
    };
    // SAFETY: valid device.
    let fence = match unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) } {
        Ok(f) => f,
        Err(e) => {
            // SAFETY: just allocated, never used.
            unsafe { device.free_command_buffers(pool, &cmds) };
            return Err(vk_err("vkCreateFence")(e));
        }
    };
    Ok(Batch {
        cmd,
        fence,
        pools: Vec::new(),
        keep: Vec::new(),
        commands: 0,
    })
}

/// Allocates the kernel's descriptor set from the batch's pools, adding a pool when full. The
/// runtime counts descriptors itself rather than relying on `VK_ERROR_OUT_OF_POOL_MEMORY`,
/// which implementations may not report reliably.
fn allocate_set(
    shared: &DeviceShared,
    batch: &mut Batch,
    kernel: &Kernel,
) -> Result<vk::DescriptorSet> {
    let device = shared.device();
    let need = kernel.inner.counts;
    let index = match batch
        .pools
        .iter()
        .position(|p| p.sets_left > 0 && p.left.covers(&need))
    {
        Some(i) => i,
        None => {
            let capacity = POOL_CAPACITY.max(&need);
            let sizes = capacity.pool_sizes();
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(POOL_SETS)
                .pool_sizes(&sizes);
            // SAFETY: valid device and create info.
            let pool = unsafe { device.create_descriptor_pool(&info, None) }
                .map_err(vk_err("vkCreateDescriptorPool"))?;
            batch.pools.push(DescPool {
                pool,
                capacity,
                left: capacity,
                sets_left: POOL_SETS,
            });
            batch.pools.len() - 1
        }
    };
    let p = &mut batch.pools[index];
    let layouts = [kernel.inner.set_layout];
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(p.pool)
        .set_layouts(&layouts);
    // SAFETY: the pool has room for the set (counted above).
    let sets = unsafe { device.allocate_descriptor_sets(&info) }
        .map_err(vk_err("vkAllocateDescriptorSets"))?;
    p.left.take(&need);
    p.sets_left -= 1;
    sets.first().copied().ok_or(RuntimeError::Vulkan {
        call: "vkAllocateDescriptorSets",
        result: vk::Result::ERROR_UNKNOWN,
    })
}

/// Submits the recording batch (if it holds commands), waits for everything in flight, and
/// reports new validation messages.
fn sync_locked(shared: &DeviceShared, state: &mut StreamState) -> Result<()> {
    if let Some(batch) = state.recording.take() {
        if batch.commands == 0 {
            state.recording = Some(batch);
        } else {
            let device = shared.device();
            let cmds = [batch.cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            // SAFETY: the batch was recording; the queue is only used under the stream lock.
            let submitted = unsafe {
                device
                    .end_command_buffer(batch.cmd)
                    .map_err(vk_err("vkEndCommandBuffer"))
                    .and_then(|()| {
                        device
                            .queue_submit(shared.queue, &[submit], batch.fence)
                            .map_err(vk_err("vkQueueSubmit"))
                    })
            };
            match submitted {
                Ok(()) => state.in_flight.push(batch),
                Err(e) => {
                    // Never submitted: reset it for reuse; its recorded work is lost.
                    recycle(shared, state, batch);
                    return Err(e);
                }
            }
        }
    }
    wait_in_flight(shared, state)?;
    shared.check_validation()
}

/// Waits for every submitted batch and recycles them.
fn wait_in_flight(shared: &DeviceShared, state: &mut StreamState) -> Result<()> {
    if state.in_flight.is_empty() {
        return Ok(());
    }
    let fences: Vec<vk::Fence> = state.in_flight.iter().map(|b| b.fence).collect();
    // SAFETY: fences of this device; an unbounded wait, like cudaStreamSynchronize.
    unsafe { shared.device().wait_for_fences(&fences, true, u64::MAX) }
        .map_err(vk_err("vkWaitForFences"))?;
    for batch in std::mem::take(&mut state.in_flight) {
        recycle(shared, state, batch);
    }
    Ok(())
}

/// Resets a finished (or never submitted) batch and puts it on the free list, releasing what
/// it kept alive. A batch that fails to reset is destroyed instead.
fn recycle(shared: &DeviceShared, state: &mut StreamState, mut batch: Batch) {
    let device = shared.device();
    batch.keep.clear();
    batch.commands = 0;
    // SAFETY: the batch is not pending (its fence signalled, or it was never submitted).
    let reset = unsafe {
        device.reset_fences(&[batch.fence]).is_ok()
            && device
                .reset_command_buffer(batch.cmd, vk::CommandBufferResetFlags::empty())
                .is_ok()
            && batch.pools.iter().all(|p| {
                device
                    .reset_descriptor_pool(p.pool, vk::DescriptorPoolResetFlags::empty())
                    .is_ok()
            })
    };
    if reset {
        for p in &mut batch.pools {
            p.left = p.capacity;
            p.sets_left = POOL_SETS;
        }
        state.free.push(batch);
    } else {
        // SAFETY: as above; the objects are not in use.
        unsafe {
            for p in &batch.pools {
                device.destroy_descriptor_pool(p.pool, None);
            }
            device.destroy_fence(batch.fence, None);
            device.free_command_buffers(state.command_pool, &[batch.cmd]);
        }
    }
}
