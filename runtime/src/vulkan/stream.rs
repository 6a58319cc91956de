//! The stream: command recording, launches, uploads, downloads, submission and waiting.
//!
//! Commands are recorded into the current batch (one command buffer, see `batch.rs`) and
//! submitted only by `sync()` or a download, never per launch. Each command first asks the
//! hazard tracker for its barriers and records them in one `vkCmdPipelineBarrier`.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::batch::{Batches, Keep};
use crate::bounds::PendingCheck;
use crate::device::DeviceShared;
use crate::error::{Result, RuntimeError};
use crate::launch::{check_shape, prepare, Bound, KernelArg, LaunchConfig, PipelineChoice, SetKey};
use crate::lock;
use crate::pipeline::Kernel;
use crate::profile::ProfileKind;
use crate::resources::Buffer;

/// Sequence number of a recorded command (launch, upload, download), unique and increasing
/// across the whole context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommandId(pub u64);

impl fmt::Display for CommandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

pub(crate) struct StreamShared {
    shared: Arc<DeviceShared>,
    pub(crate) state: Mutex<Batches>,
}

/// An in-order command stream on one of the context's compute queues (see
/// [`crate::ContextOptions::queues`]). Cheap to clone; clones are the same stream.
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<StreamShared>,
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.inner.state);
        f.debug_struct("Stream")
            .field("recorded", &state.recorded())
            .field("in_flight", &state.in_flight())
            .finish()
    }
}

impl Stream {
    /// A stream submitting to queue slot `slot` (see `queues.rs`).
    pub(crate) fn new(shared: &Arc<DeviceShared>, slot: usize) -> Result<Stream> {
        Ok(Stream {
            inner: Arc::new(StreamShared {
                shared: shared.clone(),
                state: Mutex::new(Batches::new(shared, slot)?),
            }),
        })
    }

    /// The queue slot this stream submits to (0 for the default stream).
    pub(crate) fn slot(&self) -> usize {
        lock(&self.inner.state).slot()
    }

    /// The queue slot this stream submits to: 0 for the default stream, 1.. for created
    /// streams in turn (see [`crate::ContextOptions::queues`]). Streams on different slots
    /// are on different queues where the device has enough ([`Stream::queue_index`]).
    pub fn queue_slot(&self) -> usize {
        self.slot()
    }

    /// Index, within the compute queue family, of the queue this stream submits to. Streams
    /// on different queues may run at the same time on the device.
    pub fn queue_index(&self) -> u32 {
        self.shared().queues[self.slot()].hardware_index
    }

    pub(crate) fn shared(&self) -> &Arc<DeviceShared> {
        &self.inner.shared
    }

    pub(crate) fn check_owner(&self, owner: &Arc<DeviceShared>, what: &str) -> Result<()> {
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
        if !Arc::ptr_eq(&kernel.inner.shared, shared) {
            return Err(RuntimeError::ForeignResource(format!(
                "kernel `{}`",
                kernel.name()
            )));
        }
        let mut state = lock(&self.inner.state);
        // Taken out of the stream state (a pointer move) so that it can be read while the
        // batch is borrowed; put back at the end. A failed launch drops it, and with it only
        // the memos.
        let mut scratch = state.scratch.take().unwrap_or_default();
        let fixed_shared = kernel.reflection().static_shared_bytes;
        let shape = (config.grid, config.block, config.shared_bytes, fixed_shared);
        if scratch.checked_shape != Some(shape) {
            check_shape(shared, config, fixed_shared).map_err(launch_err)?;
            scratch.checked_shape = Some(shape);
        }
        let known = scratch.known_pipeline(kernel, config);
        let check = match kernel.reflection().bounds_check {
            Some(_) => Some(state.take_check_record()?),
            None => None,
        };
        let prepared = prepare(
            shared,
            kernel,
            config,
            args,
            &mut scratch,
            known,
            check.as_ref(),
        );
        let pipeline = match prepared.map_err(launch_err)? {
            PipelineChoice::Ready(p) => p,
            PipelineChoice::Create(key) => kernel.pipeline(&key)?,
        };
        let device = shared.device();
        let batch = state.ensure_recording()?;
        // A launch binding exactly what an earlier launch of this batch bound (same kernel,
        // same resources, same layouts) reuses that descriptor set: a chain of launches over
        // the same buffers writes one set, not one per launch. The last set is checked first,
        // without building a key.
        let bindings = &mut scratch.bindings;
        let (set, fresh) = if bindings.is_empty() {
            (vk::DescriptorSet::null(), false)
        } else if let Some(set) = batch.last_set(kernel, bindings) {
            (set, false)
        } else {
            let set_key = SetKey::of(kernel, bindings);
            if let Some(&set) = batch.sets.get(&set_key) {
                batch.remember_set(set_key, set);
                (set, false)
            } else {
                let set = batch.allocate_set(shared, kernel)?;
                batch.sets.insert(set_key.clone(), set);
                batch.remember_set(set_key, set);
                (set, true)
            }
        };
        let timed = batch.timestamp_begin(shared)?;
        // Everything fallible is done: from here on the command is certainly recorded, so the
        // hazard state may advance.
        let id = CommandId(shared.next_command_id());
        lock(&shared.tracker).plan_into(
            id,
            &kernel.inner.launch_label,
            &scratch.usages,
            &mut batch.barriers,
        );
        let layout = kernel.inner.pipeline_layout;
        // SAFETY: the set, pipeline, layout and resources are alive (the batch keeps them until
        // its fence signals), and the command buffer is in the recording state.
        unsafe {
            if fresh {
                write_set(device, set, bindings);
            }
            batch.record_barriers(device, &batch.barriers);
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
            if !scratch.push.is_empty() {
                device.cmd_push_constants(
                    batch.cmd,
                    layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    scratch.push.as_slice(),
                );
            }
            device.cmd_dispatch(batch.cmd, config.grid[0], config.grid[1], config.grid[2]);
            if let Some(record) = &check {
                record_to_host(device, batch.cmd, record);
            }
        }
        if let Some(record) = check {
            batch.checks.push(PendingCheck {
                record,
                kernel: kernel.clone(),
                command: id,
            });
        }
        batch.timestamp_end(device, timed, ProfileKind::Kernel, kernel.name(), 0);
        // A reused set was first written by a launch of this batch that bound the same kernel
        // and resources (the key holds their handles, which stay unique while the batch keeps
        // their owners): those are kept alive already.
        if fresh || set == vk::DescriptorSet::null() {
            batch.keep.push(Keep::Kernel(kernel.clone()));
            for (_, _, b) in bindings.drain(..) {
                batch.keep.push(match b {
                    Bound::Buffer(buf) | Bound::ArrayElement(buf, _) => Keep::Buffer(buf),
                    Bound::Image(img, _) => Keep::Image(img),
                    Bound::Texture(tex, _) => Keep::Texture(tex),
                    Bound::Sampler(smp) => Keep::Sampler(smp),
                    Bound::AccelStruct(a) => Keep::AccelStruct(a),
                });
            }
        }
        batch.commands += 1;
        bindings.clear();
        scratch.usages.clear();
        if known.is_none() {
            scratch.last_pipeline = if config.spec.is_empty() && !config.psc {
                Some((kernel.clone(), config.block, config.shared_bytes, pipeline))
            } else {
                None
            };
        }
        state.scratch = Some(scratch);
        Ok(id)
    }

    /// Submits everything recorded so far without waiting for it. An event recorded next,
    /// with nothing recorded in between, marks the end of this work (see
    /// [`crate::Event::record_on`]).
    pub fn flush(&self) -> Result<()> {
        let mut state = lock(&self.inner.state);
        state.flush()?;
        state.flushed_on_request = state.in_flight() > 0;
        Ok(())
    }

    /// Submits everything recorded and waits until the device has finished it. In validation
    /// mode, returns `Err` listing any validation messages that appeared since the last check.
    pub fn sync(&self) -> Result<()> {
        let mut state = lock(&self.inner.state);
        state.sync()
    }

    /// Waits for submitted work without submitting more (used when the context goes away).
    pub(crate) fn wait_submitted(&self) {
        let mut state = lock(&self.inner.state);
        let _ = state.wait_in_flight();
    }
}

/// Makes a checked launch's violation record visible to the host after the fence.
///
/// # Safety
/// `cmd` is recording and `record` alive until the batch finishes.
unsafe fn record_to_host(device: &ash::Device, cmd: vk::CommandBuffer, record: &Buffer) {
    let to_host = vk::BufferMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .buffer(record.inner.raw.buffer)
        .offset(0)
        .size(vk::WHOLE_SIZE);
    // SAFETY: upheld by the caller.
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[],
            &[to_host],
            &[],
        )
    };
}

/// Writes the descriptors of `bindings` into `set`.
///
/// # Safety
/// `set` and the bound resources must be alive and `set` not in use by pending work.
unsafe fn write_set(
    device: &ash::Device,
    set: vk::DescriptorSet,
    bindings: &[(u32, vk::DescriptorType, Bound)],
) {
    let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
        .iter()
        .map(|(_, _, b)| match b {
            Bound::Buffer(buf) | Bound::ArrayElement(buf, _) => [vk::DescriptorBufferInfo {
                buffer: buf.inner.raw.buffer,
                offset: buf.offset(),
                range: if buf.is_slice() {
                    buf.size()
                } else {
                    vk::WHOLE_SIZE
                },
            }],
            _ => [vk::DescriptorBufferInfo::default()],
        })
        .collect();
    let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = bindings
        .iter()
        .map(|(_, _, b)| match b {
            Bound::Image(img, layout) => [vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: img.inner.view,
                image_layout: *layout,
            }],
            Bound::Texture(tex, layout) => [vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: tex.inner.view,
                image_layout: *layout,
            }],
            Bound::Sampler(smp) => [vk::DescriptorImageInfo {
                sampler: smp.inner.sampler,
                image_view: vk::ImageView::null(),
                image_layout: vk::ImageLayout::UNDEFINED,
            }],
            Bound::Buffer(_) | Bound::ArrayElement(..) | Bound::AccelStruct(_) => {
                [vk::DescriptorImageInfo::default()]
            }
        })
        .collect();
    let accel_handles: Vec<[vk::AccelerationStructureKHR; 1]> = bindings
        .iter()
        .map(|(_, _, b)| match b {
            Bound::AccelStruct(a) => [a.inner.handle],
            _ => [vk::AccelerationStructureKHR::null()],
        })
        .collect();
    // An acceleration structure travels in a chained struct; the write's count is set by hand.
    let mut accel_infos: Vec<vk::WriteDescriptorSetAccelerationStructureKHR> = accel_handles
        .iter()
        .map(|h| {
            vk::WriteDescriptorSetAccelerationStructureKHR::default().acceleration_structures(h)
        })
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = bindings
        .iter()
        .zip(accel_infos.iter_mut())
        .enumerate()
        .map(|(i, ((binding, ty, b), accel))| {
            let w = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(*binding)
                .descriptor_type(*ty);
            match b {
                Bound::Buffer(_) => w.buffer_info(&buffer_infos[i]),
                Bound::ArrayElement(_, e) => w.dst_array_element(*e).buffer_info(&buffer_infos[i]),
                Bound::AccelStruct(_) => {
                    let mut w = w.push_next(accel);
                    w.descriptor_count = 1;
                    w
                }
                _ => w.image_info(&image_infos[i]),
            }
        })
        .collect();
    // SAFETY: upheld by the caller.
    unsafe { device.update_descriptor_sets(&writes, &[]) };
}
