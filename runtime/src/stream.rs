//! The stream: command recording, launches, uploads, downloads, submission and waiting.
//!
//! Commands are recorded into the current batch (one command buffer, see `batch.rs`) and
//! submitted only by `sync()` or a download, never per launch. Each command first asks the
//! hazard tracker for its barriers and records them in one `vkCmdPipelineBarrier`.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::batch::{Batches, Keep};
use crate::device::DeviceShared;
use crate::error::{Result, RuntimeError};
use crate::launch::{check_shape, prepare, Bound, KernelArg, LaunchConfig};
use crate::lock;
use crate::memory::Staging;
use crate::pipeline::Kernel;
use crate::resources::{Buffer, Image2D};
use crate::sync::{Handle, Usage};
use crate::texture::Texture;

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
    state: Mutex<Batches>,
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
            .field("recorded", &state.recorded())
            .field("in_flight", &state.in_flight())
            .finish()
    }
}

impl Stream {
    pub(crate) fn new(shared: &Arc<DeviceShared>) -> Result<Stream> {
        Ok(Stream {
            inner: Arc::new(StreamShared {
                shared: shared.clone(),
                state: Mutex::new(Batches::new(shared)?),
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
        let batch = state.ensure_recording()?;
        let set = if prepared.bindings.is_empty() {
            vk::DescriptorSet::null()
        } else {
            batch.allocate_set(shared, kernel)?
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
                _ => [vk::DescriptorBufferInfo::default()],
            })
            .collect();
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = prepared
            .bindings
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
                    _ => w.image_info(&image_infos[i]),
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
            batch.record_barriers(device, &barriers);
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
                Bound::Image(img, _) => Keep::Image(img),
                Bound::Texture(tex, _) => Keep::Texture(tex),
                Bound::Sampler(smp) => Keep::Sampler(smp),
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
        let batch = state.ensure_recording()?;
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
            batch.record_barriers(device, &barriers);
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

    /// Records a copy of `data` into mip `level` of `texture`: into array layer `layer` when
    /// given (a 2-D array layer or a cube face), else into every layer, layers one after another.
    /// `data` holds tightly packed row-major texels (for 3-D, slice after slice) and its length
    /// must equal the region's size. The texture moves to `TRANSFER_DST_OPTIMAL` for the copy
    /// and to `SHADER_READ_ONLY_OPTIMAL` when a launch samples it.
    pub fn upload_texture(
        &self,
        texture: &Texture,
        level: u32,
        layer: Option<u32>,
        data: &[u8],
    ) -> Result<CommandId> {
        self.check_owner(&texture.inner.shared, "texture")?;
        let desc = *texture.desc();
        if level >= desc.mip_levels {
            return Err(RuntimeError::InvalidResource(format!(
                "mip level {level} does not exist: the texture has {} level(s)",
                desc.mip_levels
            )));
        }
        let (base_layer, layer_count) = match layer {
            Some(l) if l >= desc.layers => {
                return Err(RuntimeError::InvalidResource(format!(
                    "layer {l} does not exist: the texture has {} layer(s)",
                    desc.layers
                )))
            }
            Some(l) => (l, 1),
            None => (0, desc.layers),
        };
        let expected = desc.level_layer_bytes(level) * u64::from(layer_count);
        if data.len() as u64 != expected {
            return Err(RuntimeError::LengthMismatch {
                resource: "texture region",
                resource_bytes: expected,
                host_bytes: data.len() as u64,
            });
        }
        let shared = self.shared();
        let staging = Arc::new(Staging::upload(shared, data)?);
        let mut state = lock(&self.inner.state);
        let batch = state.ensure_recording()?;
        let id = CommandId(shared.next_command_id());
        let usage = Usage::transfer_write(texture.id(), Handle::Image(texture.inner.raw.image))
            .in_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL);
        let barriers = lock(&shared.tracker).plan(id, "upload texture", &[usage]);
        let [width, height, depth] = desc.level_extent(level);
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: level,
                base_array_layer: base_layer,
                layer_count,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width,
                height,
                depth,
            },
        };
        let device = shared.device();
        // SAFETY: texture and staging buffer are alive until the batch's fence signals; the
        // tracker's barrier put the texture in TRANSFER_DST_OPTIMAL; recording state.
        unsafe {
            batch.record_barriers(device, &barriers);
            device.cmd_copy_buffer_to_image(
                batch.cmd,
                staging.buffer(),
                texture.inner.raw.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
        }
        batch.keep.push(Keep::Texture(texture.clone()));
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
        let batch = state.ensure_recording()?;
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
            batch.record_barriers(device, &barriers);
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
        let synced = state.sync();
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
        state.sync()
    }

    /// Waits for submitted work without submitting more (used when the context goes away).
    pub(crate) fn wait_submitted(&self) {
        let mut state = lock(&self.inner.state);
        let _ = state.wait_in_flight();
    }
}
