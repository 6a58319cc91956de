//! Timestamp queries of a batch (profiling): per command, or one span per submission, read
//! back once the batch's fence has signalled.

use ash::vk;

use super::Batch;
use crate::device::DeviceShared;
use crate::error::Result;
use crate::profile::{create_query_pool, elapsed_ns, ProfileKind, Timed, QUERIES_PER_POOL};

impl Batch {
    /// Profiling: writes the start timestamp of a command and returns where it went. `None`
    /// when profiling is off, and in span-only mode, where only the first command of the
    /// recording gets a start timestamp (its end comes from [`Batch::timestamp_span_end`]).
    #[inline]
    pub(crate) fn timestamp_begin(
        &mut self,
        shared: &DeviceShared,
    ) -> Result<Option<(usize, u32)>> {
        // Inlined so that a launch without profiling pays one test, not a call.
        if !shared.profiling || (shared.profile_spans_only && self.span.is_some()) {
            return Ok(None);
        }
        self.write_begin_timestamp(shared)
    }

    fn write_begin_timestamp(&mut self, shared: &DeviceShared) -> Result<Option<(usize, u32)>> {
        let device = shared.device();
        let (mut pool, mut query) = self.next_query;
        if query + 2 > QUERIES_PER_POOL {
            pool += 1;
            query = 0;
        }
        if pool >= self.queries.len() {
            self.queries.push(create_query_pool(device)?);
        }
        // SAFETY: recording state; the pool is this batch's and not in use by pending work,
        // so the host may reset it too (which keeps the reset out of the timed work).
        unsafe {
            if pool >= self.queries_reset {
                if shared.host_query_reset {
                    device.reset_query_pool(self.queries[pool], 0, QUERIES_PER_POOL);
                } else {
                    device.cmd_reset_query_pool(self.cmd, self.queries[pool], 0, QUERIES_PER_POOL);
                }
                self.queries_reset = pool + 1;
            }
        }
        self.write_timestamp(device, pool, query);
        self.next_query = (pool, query + 2);
        if shared.profile_spans_only {
            self.span = Some((pool, query));
            return Ok(None);
        }
        Ok(Some((pool, query)))
    }

    /// Span-only profiling: writes the end timestamp of the recording, right before it ends.
    pub(crate) fn timestamp_span_end(&mut self, device: &ash::Device) {
        if let Some((pool, first_query)) = self.span {
            self.write_timestamp(device, pool, first_query + 1);
        }
    }

    /// Profiling: writes the end timestamp of a command begun with [`Batch::timestamp_begin`].
    #[inline]
    pub(crate) fn timestamp_end(
        &mut self,
        device: &ash::Device,
        at: Option<(usize, u32)>,
        kind: ProfileKind,
        name: &str,
        bytes: u64,
    ) {
        if let Some((pool, first_query)) = at {
            self.write_end_timestamp(device, pool, first_query, kind, name, bytes);
        }
    }

    fn write_end_timestamp(
        &mut self,
        device: &ash::Device,
        pool: usize,
        first_query: u32,
        kind: ProfileKind,
        name: &str,
        bytes: u64,
    ) {
        self.write_timestamp(device, pool, first_query + 1);
        self.timed.push(Timed {
            pool,
            first_query,
            kind,
            name: name.to_string(),
            bytes,
        });
    }

    /// Reads the times of a finished batch into the context's profile.
    pub(super) fn collect_times(&mut self, shared: &DeviceShared) {
        let device = shared.device();
        let mut stats = crate::lock(&shared.profile);
        let mut first: Option<u64> = None;
        let mut last: Option<u64> = None;
        if let Some((pool, first_query)) = self.span.take() {
            if let Some([a, b]) = self.read_pair(device, pool, first_query) {
                first = Some(a);
                last = Some(b);
            }
        }
        // Taken out and put back (empty) so its allocation is reused by the next recording.
        let mut timed = std::mem::take(&mut self.timed);
        for t in timed.drain(..) {
            if let Some([a, b]) = self.read_pair(device, t.pool, t.first_query) {
                first.get_or_insert(a);
                last = Some(b);
                let ns = elapsed_ns(
                    a,
                    b,
                    shared.timestamp_valid_bits,
                    shared.info.limits.timestamp_period_ns,
                );
                stats.add(t.kind, &t.name, ns, t.bytes);
            }
        }
        self.timed = timed;
        if let (Some(a), Some(b)) = (first, last) {
            stats.add_span(elapsed_ns(
                a,
                b,
                shared.timestamp_valid_bits,
                shared.info.limits.timestamp_period_ns,
            ));
        }
    }

    /// Records a timestamp into `query` of pool `pool` (reset in this recording).
    fn write_timestamp(&self, device: &ash::Device, pool: usize, query: u32) {
        // SAFETY: recording state; the query was reset with its pool in this recording.
        unsafe {
            device.cmd_write_timestamp(
                self.cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                self.queries[pool],
                query,
            );
        }
    }

    /// The two timestamps from `first` of pool `pool`, once the batch's fence has signalled.
    fn read_pair(&self, device: &ash::Device, pool: usize, first: u32) -> Option<[u64; 2]> {
        let mut data = [0u64; 2];
        // SAFETY: the fence signalled, so both queries were written.
        unsafe {
            device.get_query_pool_results(
                self.queries[pool],
                first,
                &mut data,
                vk::QueryResultFlags::TYPE_64,
            )
        }
        .ok()
        .map(|()| data)
    }
}
