//! Pipelined buffer transfers: a transfer larger than the chunk size
//! ([`crate::TransferOptions`]) moves in chunks through a ring of pinned staging buffers,
//! each chunk its own submission, so the host's copy of one chunk overlaps the device's copy
//! of another.
//!
//! - Upload: copy chunk *i* into a free staging buffer, record its device copy and submit;
//!   a staging buffer is reused once the submission that read it has finished. The call
//!   returns when every chunk is in staging memory (the host array is free), with the last
//!   chunks still in flight.
//! - Download: submit the device copies of the first chunks, then wait for each in turn,
//!   copy it out, and reuse its staging buffer for the next chunk not yet submitted.
//!
//! The hazard tracker plans one transfer command for the whole buffer: its barrier is
//! recorded before the first chunk, and since a pipeline barrier orders everything later in
//! the queue's submission order, it covers every chunk; the next command's barrier likewise
//! waits for all of them. The chunks write (or read) disjoint ranges, so they need none
//! between them.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use ash::vk;

use crate::batch::{Batches, Keep};
use crate::error::{Result, RuntimeError};
use crate::lock;
use crate::memory::{Staging, StagingKind};
use crate::profile::ProfileKind;
use crate::resources::Buffer;
use crate::stream::{CommandId, Stream};
use crate::sync::{Handle, Usage};

/// A staging buffer in use by a submitted chunk: the chunk's byte range and the submission.
struct InFlight {
    range: Range<usize>,
    staging: Arc<Staging>,
    seq: u64,
}

impl Stream {
    /// Uploads `data` (the buffer's size, more than one chunk) in pipelined chunks. The stream
    /// lock is held by the caller (`state`).
    pub(crate) fn upload_chunked(
        &self,
        state: &mut Batches,
        buffer: &Buffer,
        data: &[u8],
    ) -> Result<CommandId> {
        let shared = self.shared().clone();
        let opts = shared.transfer;
        let chunk = opts.chunk_bytes as usize;
        let mut ring: VecDeque<InFlight> = VecDeque::new();
        let mut id = None;
        for (i, piece) in data.chunks(chunk).enumerate() {
            let mut staging = if ring.len() >= opts.ring_depth {
                reclaim(state, &mut ring, StagingKind::Upload, chunk)?
            } else {
                state.take_staging(StagingKind::Upload, chunk as u64)?
            };
            staging.write(piece)?;
            let staging = Arc::new(staging);
            let batch = state.ensure_recording()?;
            let timed = batch.timestamp_begin(&shared)?;
            let device = shared.device();
            if id.is_none() {
                // Everything fallible before the first copy is done: the command is recorded.
                let first = CommandId(shared.next_command_id());
                let usage =
                    Usage::transfer_write(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
                let barriers = lock(&shared.tracker).plan(first, "upload", &[usage]);
                batch.record_barriers(device, &barriers);
                id = Some(first);
            }
            let start = i * chunk;
            let region = vk::BufferCopy {
                src_offset: 0,
                dst_offset: buffer.offset() + start as u64,
                size: piece.len() as u64,
            };
            // SAFETY: both buffers are kept alive by the batch until its fence signals;
            // recording state; the region lies inside both (the chunk fits the staging buffer,
            // and `data` is the buffer's size).
            unsafe {
                device.cmd_copy_buffer(
                    batch.cmd,
                    staging.buffer(),
                    buffer.inner.raw.buffer,
                    &[region],
                )
            };
            batch.timestamp_end(
                device,
                timed,
                ProfileKind::Upload,
                "upload",
                piece.len() as u64,
            );
            batch.keep.push(Keep::Buffer(buffer.clone()));
            batch.keep.push(Keep::Staging(staging.clone()));
            batch.commands += 1;
            let seq = state.flush()?;
            ring.push_back(InFlight {
                range: start..start + piece.len(),
                staging,
                seq,
            });
        }
        id.ok_or_else(|| RuntimeError::InvalidResource("an upload of no bytes".into()))
    }

    /// Downloads the buffer (more than one chunk) into `out` in pipelined chunks, then reports
    /// as `sync()` does (a validation message or bounds violation after `out` is filled).
    pub(crate) fn download_chunked(&self, buffer: &Buffer, out: &mut [u8]) -> Result<()> {
        let shared = self.shared().clone();
        let opts = shared.transfer;
        let chunk = opts.chunk_bytes as usize;
        let len = out.len();
        let mut state = lock(&self.inner.state);
        let mut ring: VecDeque<InFlight> = VecDeque::new();
        let mut spare: Option<Staging> = None;
        let mut next = 0usize;
        loop {
            while next < len && ring.len() < opts.ring_depth {
                let staging = match spare.take() {
                    Some(s) => s,
                    None => state.take_staging(StagingKind::Download, chunk as u64)?,
                };
                let range = next..(next + chunk).min(len);
                let staging = Arc::new(staging);
                let seq =
                    self.record_download_chunk(&mut state, buffer, next == 0, &range, &staging)?;
                next = range.end;
                ring.push_back(InFlight {
                    range,
                    staging,
                    seq,
                });
            }
            let Some(done) = ring.pop_front() else {
                break;
            };
            state.wait_seq(done.seq)?;
            done.staging.read_into(&mut out[done.range])?;
            spare = Arc::try_unwrap(done.staging).ok();
        }
        if let Some(s) = spare {
            state.give_staging(Arc::new(s));
        }
        state.sync()
    }

    /// Records the device copy of `range` of `buffer` into `staging` and its TRANSFER→HOST
    /// barrier, with the tracker's barriers first when `first`; submits; returns the
    /// submission's sequence number.
    fn record_download_chunk(
        &self,
        state: &mut Batches,
        buffer: &Buffer,
        first: bool,
        range: &Range<usize>,
        staging: &Arc<Staging>,
    ) -> Result<u64> {
        let shared = self.shared();
        let batch = state.ensure_recording()?;
        let timed = batch.timestamp_begin(shared)?;
        let device = shared.device();
        if first {
            let id = CommandId(shared.next_command_id());
            let usage = Usage::transfer_read(buffer.id(), Handle::Buffer(buffer.inner.raw.buffer));
            let barriers = lock(&shared.tracker).plan(id, "download", &[usage]);
            batch.record_barriers(device, &barriers);
        }
        let size = (range.end - range.start) as u64;
        let region = vk::BufferCopy {
            src_offset: buffer.offset() + range.start as u64,
            dst_offset: 0,
            size,
        };
        let to_host = vk::BufferMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(staging.buffer())
            .offset(0)
            .size(vk::WHOLE_SIZE);
        // SAFETY: recording state; both buffers are kept alive by the batch; the region lies
        // inside both (a chunk fits its staging buffer, the range lies inside the buffer).
        unsafe {
            device.cmd_copy_buffer(
                batch.cmd,
                buffer.inner.raw.buffer,
                staging.buffer(),
                &[region],
            );
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
        batch.timestamp_end(device, timed, ProfileKind::Download, "download", size);
        batch.keep.push(Keep::Buffer(buffer.clone()));
        batch.keep.push(Keep::Staging(staging.clone()));
        batch.commands += 1;
        state.flush()
    }
}

/// Waits for the oldest chunk in flight and hands back its staging buffer for reuse (a new
/// one should the batch still hold it, which a finished batch does not).
fn reclaim(
    state: &mut Batches,
    ring: &mut VecDeque<InFlight>,
    kind: StagingKind,
    chunk: usize,
) -> Result<Staging> {
    let Some(oldest) = ring.pop_front() else {
        return state.take_staging(kind, chunk as u64);
    };
    state.wait_seq(oldest.seq)?;
    match Arc::try_unwrap(oldest.staging) {
        Ok(staging) => Ok(staging),
        Err(_) => state.take_staging(kind, chunk as u64),
    }
}
