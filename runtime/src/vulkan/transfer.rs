//! Transfers on a stream: buffer and texture uploads, buffer and image downloads.
//!
//! Uploads copy the host data into a staging buffer (taken from the stream's pool, see
//! `memory.rs`) and record a copy; when the device has host-visible device-local memory and no
//! recorded or running command uses the buffer, the data is written straight into the buffer
//! instead. Downloads record a copy into a staging buffer, submit everything and wait.
//! Buffer transfers larger than the chunk size are pipelined instead (`transfer_chunked.rs`).

use std::sync::Arc;

use ash::vk;

use crate::batch::Keep;
use crate::error::{Result, RuntimeError};
use crate::lock;
use crate::memory::StagingKind;
use crate::profile::ProfileKind;
use crate::resources::{Buffer, Image2D};
use crate::stream::{CommandId, Stream};
use crate::sync::{Handle, Usage};
use crate::texture::Texture;

impl Stream {
    /// Records a copy of `data` into `buffer` through a staging buffer. `data.len()` must equal
    /// the buffer size. When the buffer lives in host-visible memory and no recorded or running
    /// command uses it, the data is written into it directly (nothing is recorded; the returned
    /// id is still fresh and ordered). Larger than [`crate::TransferOptions::chunk_bytes`], the
    /// upload is pipelined: submitted chunk by chunk through a ring of staging buffers, and
    /// returning once the last chunk is in staging memory (`data` is free then).
    pub fn upload_buffer(&self, buffer: &Buffer, data: &[u8]) -> Result<CommandId> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        check_length("buffer", buffer.size(), data.len())?;
        let shared = self.shared();
        let mut state = lock(&self.inner.state);
        if buffer.size() > shared.transfer.chunk_bytes {
            if let Some((alloc, offset)) =
                crate::host_alloc::find(shared, data.as_ptr(), data.len())
            {
                // Driver-allocated host memory: one device copy, waited for. Before the
                // direct write: the device's copy beats the CPU's write into a mapping
                // (H200, 1 GiB: 51 against 31 GB/s).
                let len = data.len() as u64;
                return self.copy_from_host_buffer(&mut state, buffer, alloc.buffer, offset, len);
            }
        }
        // The stream lock is held: no other thread can record a use of the buffer meanwhile,
        // and a strong count of one means no batch (recording or in flight) holds it.
        if Arc::strong_count(&buffer.inner) == 1 && !buffer.is_slice() && buffer.write_mapped(data)
        {
            return Ok(CommandId(shared.next_command_id()));
        }
        if shared.transfer.chunks(buffer.size()) {
            if let Some(id) = self.upload_imported(&mut state, buffer, data)? {
                return Ok(id);
            }
            return self.upload_chunked(&mut state, buffer, data);
        }
        let mut staging = state.take_staging(StagingKind::Upload, data.len() as u64)?;
        staging.write(data)?;
        let staging = Arc::new(staging);
        let batch = state.ensure_recording()?;
        let timed = batch.timestamp_begin(shared)?;
        let id = CommandId(shared.next_command_id());
        let usage = Usage::transfer_write(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
        let barriers = lock(&shared.tracker).plan(id, "upload", &[usage]);
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: buffer.offset(),
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
        batch.timestamp_end(device, timed, ProfileKind::Upload, "upload", buffer.size());
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
        check_length("texture region", expected, data.len())?;
        let shared = self.shared();
        let mut state = lock(&self.inner.state);
        let mut staging = state.take_staging(StagingKind::Upload, data.len() as u64)?;
        staging.write(data)?;
        let staging = Arc::new(staging);
        let batch = state.ensure_recording()?;
        let timed = batch.timestamp_begin(shared)?;
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
        batch.timestamp_end(
            device,
            timed,
            ProfileKind::Upload,
            "upload",
            data.len() as u64,
        );
        batch.keep.push(Keep::Texture(texture.clone()));
        batch.keep.push(Keep::Staging(staging));
        batch.commands += 1;
        Ok(id)
    }

    /// Copies `buffer` into `out` (whose length must equal the buffer size). Submits all
    /// recorded work and waits for it. A whole buffer made in host-visible memory
    /// ([`MemoryKind::HostVisible`], [`MemoryKind::HostCached`]) is read straight from its
    /// mapping, with no copy on the device; as for any download, work on *other* streams
    /// that writes it must be ordered before (an event or a sync). Larger than
    /// [`crate::TransferOptions::chunk_bytes`], the download is pipelined in chunks.
    pub fn download_buffer(&self, buffer: &Buffer, out: &mut [u8]) -> Result<()> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        check_length("buffer", buffer.size(), out.len())?;
        if buffer.memory_kind() != crate::MemoryKind::Device
            && !buffer.is_slice()
            && buffer.inner.raw.mapped_ptr().is_some()
        {
            return self.read_host_visible(buffer, out);
        }
        if buffer.size() > self.shared().transfer.chunk_bytes {
            if let Some((alloc, offset)) =
                crate::host_alloc::find(self.shared(), out.as_ptr(), out.len())
            {
                // Driver-allocated host memory: one device copy, waited for.
                return self.copy_to_host_buffer(buffer, alloc.buffer, offset, out.len() as u64);
            }
        }
        if self.shared().transfer.chunks(buffer.size()) {
            if self.download_imported(buffer, out)? {
                return Ok(());
            }
            return self.download_chunked(buffer, out);
        }
        let usage = Usage::transfer_read(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
        let region = vk::BufferCopy {
            src_offset: buffer.offset(),
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
        check_length("image", image.byte_size(), out.len())?;
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

    /// Shared tail of the downloads: the recorded copy (see [`Stream::record_download`]),
    /// submit and wait, then the host copy.
    fn download(
        &self,
        usage: Usage,
        keep: Keep,
        out: &mut [u8],
        copy: impl FnOnce(&ash::Device, vk::CommandBuffer, vk::Buffer),
    ) -> Result<()> {
        let mut state = lock(&self.inner.state);
        let staging = self.record_download(&mut state, usage, keep, out.len() as u64, copy)?;
        let synced = state.sync();
        drop(state);
        match synced {
            // Validation messages and bounds violations (the access was skipped) still leave
            // the data behind; hand both to the caller.
            Ok(()) | Err(RuntimeError::Validation { .. } | RuntimeError::OutOfBounds(_)) => {
                staging.read_into(out)?;
                lock(&self.inner.state).give_staging(staging);
                synced
            }
            Err(e) => Err(e),
        }
    }

    /// The direct download of a mapped buffer: a barrier that makes every earlier device
    /// write available to the host, submit and wait, then a copy out of the mapping.
    fn read_host_visible(&self, buffer: &Buffer, out: &mut [u8]) -> Result<()> {
        let mut state = lock(&self.inner.state);
        let batch = state.ensure_recording()?;
        let to_host = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        // SAFETY: recording state; a global barrier references no resource.
        unsafe {
            self.shared().device().cmd_pipeline_barrier(
                batch.cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
        }
        batch.commands += 1;
        let synced = state.sync();
        drop(state);
        match synced {
            Ok(()) | Err(RuntimeError::Validation { .. } | RuntimeError::OutOfBounds(_)) => {
                if !buffer.read_mapped(out) {
                    return Err(RuntimeError::InvalidResource(
                        "a host-visible buffer lost its mapping".into(),
                    ));
                }
                synced
            }
            Err(e) => Err(e),
        }
    }

    /// Starts a copy of `buffer` to the host without waiting for it: records the copy into a
    /// staging buffer and submits the stream's work. The bytes are read with
    /// [`PendingDownload::finish`] once the stream has run it.
    pub fn download_buffer_async(&self, buffer: &Buffer) -> Result<PendingDownload> {
        self.check_owner(&buffer.inner.shared, "buffer")?;
        let usage = Usage::transfer_read(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
        let region = vk::BufferCopy {
            src_offset: buffer.offset(),
            dst_offset: 0,
            size: buffer.size(),
        };
        let src = buffer.inner.raw.buffer;
        let mut state = lock(&self.inner.state);
        let staging = self.record_download(
            &mut state,
            usage,
            Keep::Buffer(buffer.clone()),
            buffer.size(),
            |device, cmd, dst| {
                // SAFETY: both buffers are alive until the batch's fence signals; recording state.
                unsafe { device.cmd_copy_buffer(cmd, src, dst, &[region]) }
            },
        )?;
        let seq = state.flush()?;
        state.flushed_on_request = true;
        Ok(PendingDownload {
            stream: self.clone(),
            staging,
            seq,
            len: buffer.size(),
        })
    }

    /// Records barriers, the copy into a new staging buffer of `len` bytes and the
    /// TRANSFER→HOST barrier; returns the staging buffer (not yet submitted).
    fn record_download(
        &self,
        state: &mut crate::batch::Batches,
        usage: Usage,
        keep: Keep,
        len: u64,
        copy: impl FnOnce(&ash::Device, vk::CommandBuffer, vk::Buffer),
    ) -> Result<Arc<crate::memory::Staging>> {
        let shared = self.shared();
        let staging = Arc::new(state.take_staging(StagingKind::Download, len)?);
        let batch = state.ensure_recording()?;
        let timed = batch.timestamp_begin(shared)?;
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
        batch.timestamp_end(device, timed, ProfileKind::Download, "download", len);
        batch.keep.push(keep);
        batch.keep.push(Keep::Staging(staging.clone()));
        batch.commands += 1;
        Ok(staging)
    }
}

/// A buffer download submitted by [`Stream::download_buffer_async`] and not read yet.
pub struct PendingDownload {
    stream: Stream,
    staging: Arc<crate::memory::Staging>,
    seq: u64,
    len: u64,
}

impl std::fmt::Debug for PendingDownload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingDownload")
            .field("seq", &self.seq)
            .field("len", &self.len)
            .finish()
    }
}

impl PendingDownload {
    /// Bytes the download copies.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for a download of no bytes (never: buffers are not empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the copy has finished (non-blocking).
    pub fn is_complete(&self) -> Result<bool> {
        lock(&self.stream.inner.state).is_done(self.seq)
    }

    /// Waits for the copy (and the stream's work before it) and copies the bytes into `out`,
    /// whose length must be [`PendingDownload::len`]. Reports a bounds violation or validation
    /// message as `download_buffer` does, after filling `out`.
    pub fn finish(self, out: &mut [u8]) -> Result<()> {
        check_length("buffer", self.len, out.len())?;
        let waited = {
            let mut state = lock(&self.stream.inner.state);
            state
                .wait_seq(self.seq)
                .and_then(|()| state.take_violation())
        }
        .and_then(|()| self.stream.shared().check_validation());
        match waited {
            Ok(()) | Err(RuntimeError::Validation { .. } | RuntimeError::OutOfBounds(_)) => {
                self.staging.read_into(out)?;
                lock(&self.stream.inner.state).give_staging(self.staging);
                waited
            }
            Err(e) => Err(e),
        }
    }
}

/// A host array must hold exactly the bytes of the resource (region) it is copied to or from.
pub(crate) fn check_length(
    resource: &'static str,
    resource_bytes: u64,
    host_len: usize,
) -> Result<()> {
    if host_len as u64 == resource_bytes {
        Ok(())
    } else {
        Err(RuntimeError::LengthMismatch {
            resource,
            resource_bytes,
            host_bytes: host_len as u64,
        })
    }
}
