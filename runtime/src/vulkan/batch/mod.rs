//! Command batches: a stream's command buffers, fences and per-batch descriptor pools, and
//! their submission, waiting and recycling.
//!
//! A batch owns what its commands need until its fence signals: clones of the buffers, images
//! and kernels it uses, its staging buffers and its descriptor pools. After the fence, the
//! batch is reset (descriptor pools included) and reused for later recording.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;

use crate::descriptors::DescriptorCounts;
use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::launch::{Bound, SetKey};
use crate::memory::{Staging, StagingKind, StagingPool};
use crate::pipeline::Kernel;
use crate::profile::Timed;
use crate::resources::{Buffer, Image2D};
use crate::sync::BarrierBatch;
use crate::texture::{Sampler, Texture};

mod timing;

/// Descriptor capacity of each new pool; a kernel needing more gets a pool its own size.
const POOL_CAPACITY: DescriptorCounts = DescriptorCounts {
    storage_buffers: 256,
    storage_images: 64,
    sampled_images: 32,
    samplers: 32,
    acceleration_structures: 0,
};
/// Descriptor sets per pool.
const POOL_SETS: u32 = 64;

/// Something a batch keeps alive until its fence signals. The fields are never read: holding
/// them is the point, their `Drop` runs when the batch is recycled.
#[allow(dead_code)]
pub(crate) enum Keep {
    Buffer(Buffer),
    Image(Image2D),
    Kernel(Kernel),
    Staging(Arc<Staging>),
    Texture(Texture),
    Sampler(Sampler),
    AccelStruct(crate::acceleration::AccelStruct),
}

struct DescPool {
    pool: vk::DescriptorPool,
    capacity: DescriptorCounts,
    left: DescriptorCounts,
    sets_left: u32,
}

/// One command buffer with its fence, descriptor pools and kept-alive objects.
pub(crate) struct Batch {
    pub(crate) cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pools: Vec<DescPool>,
    pub(crate) keep: Vec<Keep>,
    /// Commands recorded; a batch with none is not worth submitting.
    pub(crate) commands: usize,
    /// Submission sequence number (set when submitted).
    seq: u64,
    /// Timestamp query pools (profiling only); reused across recordings.
    queries: Vec<vk::QueryPool>,
    /// Pools reset in the current recording (a pool must be reset before its first write).
    queries_reset: usize,
    /// Next free query: (pool index, query index).
    next_query: (usize, u32),
    /// Commands to read times for once the fence signals.
    timed: Vec<Timed>,
    /// Span-only profiling: the two queries bracketing the whole recording.
    span: Option<(usize, u32)>,
    /// Descriptor sets written in this recording, by what they bind.
    pub(crate) sets: HashMap<SetKey, vk::DescriptorSet>,
    /// The set the last launch bound (also in `sets`), checked before `sets`.
    last_set: Option<(SetKey, vk::DescriptorSet)>,
    /// Scratch for a command's barriers, reused so planning does not allocate per launch.
    pub(crate) barriers: BarrierBatch,
    /// Checked launches whose violation records are read once the fence signals.
    pub(crate) checks: Vec<crate::bounds::PendingCheck>,
    /// Semaphores (from other slots' events) the submission waited on; destroyed once the
    /// fence signals.
    waited: Vec<vk::Semaphore>,
}

impl Batch {
    /// The set of the last launch if it bound exactly `bindings` for `kernel`.
    pub(crate) fn last_set(
        &self,
        kernel: &Kernel,
        bindings: &[(u32, vk::DescriptorType, Bound)],
    ) -> Option<vk::DescriptorSet> {
        match &self.last_set {
            Some((key, set)) if key.matches(kernel, bindings) => Some(*set),
            _ => None,
        }
    }

    /// Remembers `set` (for `key`) as the last launch's set.
    pub(crate) fn remember_set(&mut self, key: SetKey, set: vk::DescriptorSet) {
        self.last_set = Some((key, set));
    }

    /// Allocates the kernel's descriptor set from this batch's pools, adding a pool when full.
    /// The runtime counts descriptors itself rather than relying on
    /// `VK_ERROR_OUT_OF_POOL_MEMORY`, which implementations may not report reliably.
    pub(crate) fn allocate_set(
        &mut self,
        shared: &DeviceShared,
        kernel: &Kernel,
    ) -> Result<vk::DescriptorSet> {
        let device = shared.device();
        let need = kernel.inner.counts;
        let existing = self
            .pools
            .iter()
            .position(|p| p.sets_left > 0 && p.left.covers(&need));
        let index = match existing {
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
                self.pools.push(DescPool {
                    pool,
                    capacity,
                    left: capacity,
                    sets_left: POOL_SETS,
                });
                self.pools.len() - 1
            }
        };
        let p = &mut self.pools[index];
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

    /// Records one `vkCmdPipelineBarrier` for all of a command's resource barriers, if any.
    pub(crate) fn record_barriers(&self, device: &ash::Device, b: &BarrierBatch) {
        if !b.is_empty() {
            // SAFETY: the batch is recording (only `Batches::ensure_recording` hands it out)
            // and keeps the barriers' resources alive until its fence signals.
            unsafe {
                device.cmd_pipeline_barrier(
                    self.cmd,
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

    /// Destroys the batch's Vulkan objects (not the command buffer, which its pool frees).
    ///
    /// # Safety
    /// The batch must not be pending.
    unsafe fn destroy(self, device: &ash::Device) {
        // SAFETY: upheld by the caller.
        unsafe {
            for p in &self.pools {
                device.destroy_descriptor_pool(p.pool, None);
            }
            for &q in &self.queries {
                device.destroy_query_pool(q, None);
            }
            for &semaphore in &self.waited {
                device.destroy_semaphore(semaphore, None);
            }
            device.destroy_fence(self.fence, None);
        }
    }
}

/// A stream's batches: the one being recorded, those submitted, and those ready for reuse.
pub(crate) struct Batches {
    shared: Arc<DeviceShared>,
    command_pool: vk::CommandPool,
    recording: Option<Batch>,
    in_flight: Vec<Batch>,
    free: Vec<Batch>,
    /// Sequence number of the last submitted batch (0: none yet).
    submitted: u64,
    /// Idle staging buffers for later transfers.
    staging: StagingPool,
    /// The launch path's reusable vectors and memos, kept here so a launch takes one lock
    /// (boxed: a launch takes it out and puts it back, moving a pointer).
    pub(crate) scratch: Option<Box<crate::launch::LaunchScratch>>,
    /// Idle zeroed violation records for checked launches.
    check_pool: Vec<Buffer>,
    /// The first bounds violation read from a finished batch, not reported yet.
    violation: Option<crate::BoundsViolation>,
    /// The queue slot this stream submits to.
    slot: usize,
    /// Semaphores signalled by other slots' events that the next submission waits on.
    waits: Vec<vk::Semaphore>,
    /// The last submission was asked for by the program (`Stream::flush`, an asynchronous
    /// transfer) rather than by an event: an event recorded next marks its end (`event.rs`).
    pub(crate) flushed_on_request: bool,
}

impl Batches {
    /// An empty set of batches with its own command pool, submitting to queue `slot`.
    pub(crate) fn new(shared: &Arc<DeviceShared>, slot: usize) -> Result<Batches> {
        let info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            .queue_family_index(shared.queue_family);
        // SAFETY: valid device and family.
        let command_pool = unsafe { shared.device().create_command_pool(&info, None) }
            .map_err(vk_err("vkCreateCommandPool"))?;
        Ok(Batches {
            shared: shared.clone(),
            command_pool,
            recording: None,
            in_flight: Vec::new(),
            free: Vec::new(),
            submitted: 0,
            staging: StagingPool::default(),
            scratch: None,
            check_pool: Vec::new(),
            violation: None,
            slot: slot.min(shared.queues.len().saturating_sub(1)),
            waits: Vec::new(),
            flushed_on_request: false,
        })
    }

    /// A staging buffer of `kind` with room for `size` bytes, reused when one is idle.
    pub(crate) fn take_staging(&mut self, kind: StagingKind, size: u64) -> Result<Staging> {
        self.staging.take(&self.shared, kind, size)
    }

    /// Takes back a staging buffer the caller held past its batch (downloads).
    pub(crate) fn give_staging(&mut self, staging: Arc<Staging>) {
        if let Ok(staging) = Arc::try_unwrap(staging) {
            self.staging.give(staging);
        }
    }

    /// A zeroed violation record for a checked launch (pooled, else new).
    pub(crate) fn take_check_record(&mut self) -> Result<Buffer> {
        match self.check_pool.pop() {
            Some(b) => Ok(b),
            None => Buffer::new_readback(&self.shared, crate::bounds::RECORD_BYTES),
        }
    }

    /// The first bounds violation found in finished batches since the last call, as an error.
    pub(crate) fn take_violation(&mut self) -> Result<()> {
        match self.violation.take() {
            Some(v) => Err(RuntimeError::OutOfBounds(Box::new(v))),
            None => Ok(()),
        }
    }

    /// Sequence number of the last submitted batch (0: none yet); the batch being recorded
    /// gets the next one when it is submitted.
    pub(crate) fn submitted(&self) -> u64 {
        self.submitted
    }

    /// Commands recorded but not yet submitted.
    pub(crate) fn recorded(&self) -> usize {
        self.recording.as_ref().map_or(0, |b| b.commands)
    }

    /// Batches submitted and not yet waited for.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The batch being recorded, starting one (reused or new) if none is.
    pub(crate) fn ensure_recording(&mut self) -> Result<&mut Batch> {
        if self.recording.is_none() {
            let batch = match self.free.pop() {
                Some(b) => b,
                None => self.new_batch()?,
            };
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: the command buffer is in the initial state (new or reset).
            let begun = unsafe { self.shared.device().begin_command_buffer(batch.cmd, &begin) };
            if let Err(e) = begun {
                self.free.push(batch);
                return Err(vk_err("vkBeginCommandBuffer")(e));
            }
            self.recording = Some(batch);
        }
        // `ok_or` would build (and drop) the error on every launch.
        #[allow(clippy::unnecessary_lazy_evaluations)]
        self.recording.as_mut().ok_or_else(|| RuntimeError::Vulkan {
            call: "vkBeginCommandBuffer",
            result: vk::Result::ERROR_UNKNOWN,
        })
    }

    fn new_batch(&self) -> Result<Batch> {
        let device = self.shared.device();
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
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
                unsafe { device.free_command_buffers(self.command_pool, &cmds) };
                return Err(vk_err("vkCreateFence")(e));
            }
        };
        Ok(Batch {
            cmd,
            fence,
            pools: Vec::new(),
            keep: Vec::new(),
            commands: 0,
            seq: 0,
            queries: Vec::new(),
            queries_reset: 0,
            next_query: (0, 0),
            timed: Vec::new(),
            span: None,
            sets: HashMap::new(),
            last_set: None,
            barriers: BarrierBatch::default(),
            checks: Vec::new(),
            waited: Vec::new(),
        })
    }

    /// Submits the recording batch (if it holds commands) without waiting; returns the
    /// sequence number that covers everything submitted so far.
    pub(crate) fn flush(&mut self) -> Result<u64> {
        // The launch path's memo of the last kernel keeps that kernel alive; a submission ends
        // the chain it serves, so a dropped kernel is not held past it.
        if let Some(scratch) = self.scratch.as_mut() {
            scratch.last_pipeline = None;
        }
        if let Some(mut batch) = self.recording.take() {
            if batch.commands == 0 {
                self.recording = Some(batch);
            } else {
                let device = self.shared.device();
                batch.timestamp_span_end(device);
                let cmds = [batch.cmd];
                // Events from other slots: their semaphores gate every command of this
                // submission (and, in submission order, all later ones).
                let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; self.waits.len()];
                let submit = vk::SubmitInfo::default()
                    .command_buffers(&cmds)
                    .wait_semaphores(&self.waits)
                    .wait_dst_stage_mask(&stages);
                let q = &self.shared.queues[self.slot];
                // SAFETY: the batch was recording; the queue is externally synchronized by
                // its slot's lock, shared by every stream that submits to it.
                let submitted = unsafe {
                    device
                        .end_command_buffer(batch.cmd)
                        .map_err(vk_err("vkEndCommandBuffer"))
                        .and_then(|()| {
                            let _queue = crate::lock(&q.lock);
                            device
                                .queue_submit(q.queue, &[submit], batch.fence)
                                .map_err(vk_err("vkQueueSubmit"))
                        })
                };
                match submitted {
                    Ok(()) => {
                        self.flushed_on_request = false;
                        self.submitted += 1;
                        batch.seq = self.submitted;
                        batch.waited.append(&mut self.waits);
                        self.in_flight.push(batch);
                    }
                    Err(e) => {
                        // Never submitted: reset it for reuse; its recorded work is lost.
                        self.recycle(batch);
                        return Err(self.shared.note_device_lost(e));
                    }
                }
            }
        }
        Ok(self.submitted)
    }

    /// Submits the recording batch (if it holds commands), waits for everything in flight,
    /// and reports new validation messages.
    pub(crate) fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.wait_in_flight()?;
        self.take_violation()?;
        self.shared.check_validation()
    }

    /// Waits for the batches submitted up to sequence number `seq` and recycles them.
    pub(crate) fn wait_seq(&mut self, seq: u64) -> Result<()> {
        let fences: Vec<vk::Fence> = self
            .in_flight
            .iter()
            .filter(|b| b.seq <= seq)
            .map(|b| b.fence)
            .collect();
        if fences.is_empty() {
            return Ok(());
        }
        // SAFETY: fences of this device.
        unsafe {
            self.shared
                .device()
                .wait_for_fences(&fences, true, u64::MAX)
        }
        .map_err(|e| self.shared.note_device_lost(vk_err("vkWaitForFences")(e)))?;
        let (done, pending): (Vec<Batch>, Vec<Batch>) = std::mem::take(&mut self.in_flight)
            .into_iter()
            .partition(|b| b.seq <= seq);
        self.in_flight = pending;
        for batch in done {
            self.recycle(batch);
        }
        Ok(())
    }

    /// Whether every batch up to sequence number `seq` has finished (non-blocking).
    pub(crate) fn is_done(&self, seq: u64) -> Result<bool> {
        let device = self.shared.device();
        for b in self.in_flight.iter().filter(|b| b.seq <= seq) {
            // SAFETY: a fence of this device.
            let signalled = unsafe { device.get_fence_status(b.fence) }
                .map_err(|e| self.shared.note_device_lost(vk_err("vkGetFenceStatus")(e)))?;
            if !signalled {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Waits for every submitted batch and recycles them.
    pub(crate) fn wait_in_flight(&mut self) -> Result<()> {
        if self.in_flight.is_empty() {
            return Ok(());
        }
        let fences: Vec<vk::Fence> = self.in_flight.iter().map(|b| b.fence).collect();
        // SAFETY: fences of this device; an unbounded wait, like cudaStreamSynchronize.
        unsafe {
            self.shared
                .device()
                .wait_for_fences(&fences, true, u64::MAX)
        }
        .map_err(|e| self.shared.note_device_lost(vk_err("vkWaitForFences")(e)))?;
        for batch in std::mem::take(&mut self.in_flight) {
            self.recycle(batch);
        }
        Ok(())
    }

    /// Makes this stream's next submission wait on `semaphore` (signalled by another slot's
    /// event); the submission's batch destroys it once finished.
    pub(crate) fn wait_semaphore(&mut self, semaphore: vk::Semaphore) {
        self.waits.push(semaphore);
    }

    /// The queue slot this stream submits to.
    pub(crate) fn slot(&self) -> usize {
        self.slot
    }

    /// Waits out semaphores no submission has consumed (the stream is going away).
    fn retire_waits(&mut self) {
        crate::queues::consume_waits(&self.shared, self.slot, &mut self.waits);
    }

    /// Resets a finished (or never submitted) batch and puts it on the free list, releasing
    /// what it kept alive. A batch that fails to reset is destroyed instead.
    fn recycle(&mut self, mut batch: Batch) {
        if batch.seq != 0 {
            // Submitted and finished (never-submitted batches have no results).
            batch.collect_times(&self.shared);
        }
        for check in batch.checks.drain(..) {
            if batch.seq != 0 && self.violation.is_none() {
                self.violation = check.violation();
            }
            check.record.zero_readback();
            self.check_pool.push(check.record);
        }
        for semaphore in batch.waited.drain(..) {
            // SAFETY: the submission that waited on it has finished (or never ran).
            unsafe { self.shared.device().destroy_semaphore(semaphore, None) };
        }
        batch.timed.clear();
        batch.span = None;
        batch.sets.clear();
        batch.last_set = None;
        batch.queries_reset = 0;
        batch.next_query = (0, 0);
        batch.seq = 0;
        let device = self.shared.device();
        for kept in batch.keep.drain(..) {
            if let Keep::Staging(staging) = kept {
                if let Ok(staging) = Arc::try_unwrap(staging) {
                    self.staging.give(staging);
                }
            }
        }
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
            self.free.push(batch);
        } else {
            let cmd = batch.cmd;
            // SAFETY: as above; the objects are not in use.
            unsafe {
                batch.destroy(device);
                device.free_command_buffers(self.command_pool, &[cmd]);
            }
        }
    }
}

impl Drop for Batches {
    fn drop(&mut self) {
        self.retire_waits();
        let device = self.shared.device();
        // Work recorded but never submitted is dropped; submitted work is waited for so the
        // objects its batch keeps alive are released only after the GPU is done with them.
        let fences: Vec<vk::Fence> = self.in_flight.iter().map(|b| b.fence).collect();
        // SAFETY: fences belong to this device; the unbounded wait is what makes destroying
        // the batch objects below safe.
        unsafe {
            if !fences.is_empty() {
                let _ = device.wait_for_fences(&fences, true, u64::MAX);
            }
        }
        // Finished work still counts in the profile.
        for batch in &mut self.in_flight {
            batch.collect_times(&self.shared);
        }
        let batches = self
            .recording
            .take()
            .into_iter()
            .chain(self.in_flight.drain(..))
            .chain(self.free.drain(..));
        for batch in batches {
            // SAFETY: the batch is idle (waited above) or was never submitted.
            unsafe { batch.destroy(device) };
        }
        // SAFETY: destroying the pool frees its command buffers, none of which is pending.
        unsafe { device.destroy_command_pool(self.command_pool, None) };
    }
}
