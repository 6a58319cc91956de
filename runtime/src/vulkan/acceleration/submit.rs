//! One command buffer recorded, submitted on the context's queue and waited for: how builds
//! and serializations run. They are rare and their results are needed at once (the sizes
//! decide what the next step allocates), so they do not go through a stream's batches.

use ash::vk;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result};
use crate::lock;

/// A transient command pool with one primary command buffer and a fence, destroyed on drop
/// (after the wait, or unused when recording failed).
struct OneShot<'a> {
    shared: &'a DeviceShared,
    pool: vk::CommandPool,
    fence: vk::Fence,
}

impl Drop for OneShot<'_> {
    fn drop(&mut self) {
        let device = self.shared.device();
        // SAFETY: the fence was waited for (or the buffer never submitted), so nothing in the
        // pool is pending; destroying null handles is allowed.
        unsafe {
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.pool, None);
        }
    }
}

/// Records `record` into a fresh command buffer, submits it and waits until the device has
/// run it. A lost device is reported as such.
pub(crate) fn run_once(
    shared: &DeviceShared,
    record: impl FnOnce(&ash::Device, vk::CommandBuffer),
) -> Result<()> {
    let device = shared.device();
    let pool_info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(shared.queue_family)
        .flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: valid device and create info.
    let pool = unsafe { device.create_command_pool(&pool_info, None) }
        .map_err(vk_err("vkCreateCommandPool"))?;
    let mut once = OneShot {
        shared,
        pool,
        fence: vk::Fence::null(),
    };
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool was just created on this device.
    let cmd = unsafe { device.allocate_command_buffers(&alloc) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
    // SAFETY: valid device and create info.
    once.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateFence"))?;
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: `cmd` is a fresh primary command buffer.
    unsafe { device.begin_command_buffer(cmd, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
    record(device, cmd);
    // SAFETY: `cmd` is recording.
    unsafe { device.end_command_buffer(cmd) }.map_err(vk_err("vkEndCommandBuffer"))?;
    let cmds = [cmd];
    let submit = vk::SubmitInfo::default().command_buffers(&cmds);
    {
        // The default stream's queue; the build is waited for below, so work on any queue
        // submitted after it returns sees the finished structure.
        let q = &shared.queues[0];
        let _queue = lock(&q.lock);
        // SAFETY: the queue is externally synchronized by its slot's lock; `cmd` is executable.
        unsafe { device.queue_submit(q.queue, &[submit], once.fence) }
            .map_err(vk_err("vkQueueSubmit"))
            .map_err(|e| shared.note_device_lost(e))?;
    }
    // SAFETY: the fence belongs to this device and was submitted above.
    unsafe { device.wait_for_fences(&[once.fence], true, u64::MAX) }
        .map_err(vk_err("vkWaitForFences"))
        .map_err(|e| shared.note_device_lost(e))?;
    Ok(())
}
