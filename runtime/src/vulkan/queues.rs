//! Queue slots: the queues streams submit to, and the semaphores that order one slot's work
//! after another's (see docs/runtime.md, "Streams and queues").
//!
//! A context asks for up to [`crate::ContextOptions::queues`] queues of its compute family
//! (one family, so buffers and images keep `VK_SHARING_MODE_EXCLUSIVE` and need no ownership
//! transfers). The default stream submits to slot 0; created streams take slots 1.. in
//! turn. Where the family has fewer queues than slots, slots share queues (lock included):
//! their work is then ordered by submission as before, and events between them still go
//! through semaphores, so the same code path runs everywhere.

use std::sync::{Arc, Mutex};

use ash::vk;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result};

/// Queue slots when [`crate::ContextOptions::queues`] is 0 (the default): the default
/// stream's and three more, so that a three-stream pipeline (upload / compute / download of
/// three frames in flight) has a queue per stream where the family has the queues. With two
/// slots every created stream shared slot 1, and on one queue the hazard tracker's pipeline
/// barriers (which order *all* earlier work of the queue) chained the streams' transfers
/// and kernels one after another.
pub(crate) const DEFAULT_QUEUE_SLOTS: usize = 4;
/// Most queue slots a context uses.
pub(crate) const MAX_QUEUE_SLOTS: usize = 8;

/// One queue a stream submits to, with the lock that serializes submissions to it (a
/// `VkQueue` is externally synchronized).
#[derive(Clone)]
pub(crate) struct QueueSlot {
    pub(crate) queue: vk::Queue,
    /// Index of the queue in its family.
    pub(crate) hardware_index: u32,
    pub(crate) lock: Arc<Mutex<()>>,
}

/// Signals a new binary semaphore on `slot` once everything submitted there so far has run
/// (an empty submission: a semaphore signal waits for all earlier work in the queue's
/// submission order). The caller waits on it in another slot and destroys it after.
pub(crate) fn signal_after_submitted(shared: &DeviceShared, slot: usize) -> Result<vk::Semaphore> {
    let device = shared.device();
    // SAFETY: valid device and create info.
    let semaphore = unsafe { device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateSemaphore"))?;
    let q = &shared.queues[slot];
    let signals = [semaphore];
    let submit = vk::SubmitInfo::default().signal_semaphores(&signals);
    let submitted = {
        let _queue = crate::lock(&q.lock);
        // SAFETY: the queue is externally synchronized by its slot's lock.
        unsafe { device.queue_submit(q.queue, &[submit], vk::Fence::null()) }
    };
    if let Err(e) = submitted {
        // SAFETY: never submitted, so no pending operation uses it.
        unsafe { device.destroy_semaphore(semaphore, None) };
        return Err(shared.note_device_lost(vk_err("vkQueueSubmit")(e)));
    }
    Ok(semaphore)
}

/// Consumes `waits` (semaphores no submission waited on, as when a stream goes away after a
/// `wait_event` with no work since): an empty submission on `slot` waits on them, and once
/// its fence signals they are destroyed. On failure (a lost device) they are left to the
/// device's destruction.
pub(crate) fn consume_waits(shared: &DeviceShared, slot: usize, waits: &mut Vec<vk::Semaphore>) {
    if waits.is_empty() {
        return;
    }
    let device = shared.device();
    let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
    let submit = vk::SubmitInfo::default()
        .wait_semaphores(waits)
        .wait_dst_stage_mask(&stages);
    let q = &shared.queues[slot];
    // SAFETY: valid device; the queue is externally synchronized by its slot's lock.
    let done = unsafe {
        device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .and_then(|fence| {
                let submitted = {
                    let _queue = crate::lock(&q.lock);
                    device.queue_submit(q.queue, &[submit], fence)
                };
                let waited =
                    submitted.and_then(|()| device.wait_for_fences(&[fence], true, u64::MAX));
                device.destroy_fence(fence, None);
                waited
            })
    };
    if done.is_ok() {
        for semaphore in waits.drain(..) {
            // SAFETY: the wait on it has finished, and with it the signal.
            unsafe { device.destroy_semaphore(semaphore, None) };
        }
    }
}
