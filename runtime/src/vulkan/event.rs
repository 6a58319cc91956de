//! Events: a point in a stream's work that the host can wait for or poll, that another
//! stream can be ordered after, and that carries a GPU timestamp for timing.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::device::DeviceShared;
use crate::error::{vk_err, Result, RuntimeError};
use crate::lock;
use crate::profile::elapsed_ns;
use crate::stream::Stream;
use crate::Context;

/// Where an event was last recorded.
struct Marker {
    stream: Stream,
    /// The stream's submission sequence number that covers the marked work.
    seq: u64,
}

/// A marker in a stream: everything recorded on the stream before [`Event::record_on`]. The
/// event completes once the device has run that work; waiting for or querying it submits the
/// stream up to the marker first. Re-recording moves the marker without waiting for the
/// previous one (as `cudaEventRecord`): a marker still running keeps its timestamp slot
/// until it finishes, and the new one gets a fresh slot.
pub struct Event {
    shared: Arc<DeviceShared>,
    state: Mutex<Marks>,
}

/// An event's current marker and timestamp slot, and the earlier ones still running.
struct Marks {
    /// One timestamp query, written at the marker when the queue supports timestamps.
    pool: Option<vk::QueryPool>,
    at: Option<Marker>,
    /// Markers the event was re-recorded past while they ran, with the slots their
    /// timestamps go to: destroyed once they have finished.
    retired: Vec<(Marker, vk::QueryPool)>,
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let marks = lock(&self.state);
        f.debug_struct("Event")
            .field("recorded", &marks.at.is_some())
            .field("seq", &marks.at.as_ref().map(|m| m.seq))
            .field("retired", &marks.retired.len())
            .finish()
    }
}

/// A new one-query timestamp pool.
fn timestamp_pool(shared: &DeviceShared) -> Result<vk::QueryPool> {
    let info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::TIMESTAMP)
        .query_count(1);
    // SAFETY: valid device and create info.
    unsafe { shared.device().create_query_pool(&info, None) }.map_err(vk_err("vkCreateQueryPool"))
}

impl Event {
    /// A new event, not yet recorded, with a timestamp query of its own when the compute
    /// queue has timestamps (`timestampValidBits > 0`).
    pub fn create(ctx: &Context) -> Result<Event> {
        let shared = ctx.inner.shared.clone();
        let pool = if shared.timestamp_valid_bits > 0 {
            Some(timestamp_pool(&shared)?)
        } else {
            None
        };
        Ok(Event {
            shared,
            state: Mutex::new(Marks {
                pool,
                at: None,
                retired: Vec::new(),
            }),
        })
    }

    fn not_recorded() -> RuntimeError {
        RuntimeError::InvalidResource(
            "the event has not been recorded on a stream (call recordOn first)".into(),
        )
    }

    /// Marks everything recorded on `stream` so far and writes the event's timestamp after
    /// it. When the stream has recorded, unsubmitted work, that work is submitted with the
    /// timestamp, so the event completes as soon as the device gets there. So is the
    /// timestamp alone when the stream's last submission was asked for by the program
    /// ([`Stream::flush`], [`Stream::download_buffer_async`]) and nothing was recorded since:
    /// the event then marks the end of that work (`downloadAsync` then `recordOn` is how a
    /// pipeline learns when a frame is back), and its timestamp is when that work ended, not
    /// when the event was first waited for. Otherwise (an idle stream, or one whose last
    /// submission was an event's) nothing is submitted: the timestamp goes out with the
    /// stream's next work (or when the event is waited for, queried or waited on by another
    /// stream), so a span that starts at such an event times device work, not the host's
    /// recording of it.
    pub fn record_on(&self, stream: &Stream) -> Result<()> {
        stream.check_owner(&self.shared, "event")?;
        let mut marks = lock(&self.state);
        marks.reap_finished(&self.shared);
        // The timestamp slot is reset from the host below: a previous marker still running
        // (its timestamp not yet written) keeps its slot, and this one gets a fresh slot.
        if let Some(old) = marks.at.take() {
            let done = {
                let mut state = lock(&old.stream.inner.state);
                submit_up_to(&mut state, old.seq).and_then(|()| state.is_done(old.seq))
            };
            match (done, marks.pool) {
                (Ok(true), _) | (Ok(false), None) => {}
                (Ok(false), Some(pool)) => match timestamp_pool(&self.shared) {
                    Ok(fresh) => {
                        marks.pool = Some(fresh);
                        marks.retired.push((old, pool));
                    }
                    Err(e) => {
                        marks.at = Some(old);
                        return Err(e);
                    }
                },
                (Err(e), _) => {
                    marks.at = Some(old);
                    return Err(e);
                }
            }
        }
        let mut state = lock(&stream.inner.state);
        // Work recorded before the event and not yet submitted, or work the program has
        // just submitted itself (an end marker for it).
        let pending = state.recorded() > 0 || (state.flushed_on_request && state.in_flight() > 0);
        if let Some(pool) = marks.pool {
            let host_reset = self.shared.host_query_reset;
            let batch = state.ensure_recording()?;
            let device = self.shared.device();
            // SAFETY: the batch is recording; the pool is this event's and no pending work
            // uses it (its last marker finished, or the pool is fresh), so the host may reset it. A reset recorded as a command
            // would run on the queue between a span's two events and lengthen it.
            unsafe {
                if host_reset {
                    device.reset_query_pool(pool, 0, 1);
                } else {
                    device.cmd_reset_query_pool(batch.cmd, pool, 0, 1);
                }
                device.cmd_write_timestamp(
                    batch.cmd,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    pool,
                    0,
                );
            }
            batch.commands += 1;
        }
        // Recorded work goes out now with the timestamp after it, so the event completes as
        // soon as the device has run it; so does the timestamp alone after a submission the
        // program asked for (it ends that work). Otherwise, with nothing recorded, the
        // timestamp waits for the stream's next work (even while earlier submissions still
        // run): flushing it alone would start a span before the host has even recorded the
        // work it is meant to time.
        let seq = if pending {
            state.flush()?
        } else if state.recorded() > 0 {
            // The recording batch becomes submission `submitted + 1`.
            state.submitted() + 1
        } else {
            state.submitted()
        };
        marks.at = Some(Marker {
            stream: stream.clone(),
            seq,
        });
        Ok(())
    }

    /// Blocks until the marked work has finished; in validation mode, reports new messages.
    pub fn wait_host(&self) -> Result<()> {
        let (stream, seq) = self.marker()?;
        {
            let mut state = lock(&stream.inner.state);
            state.wait_seq(seq)?;
            state.take_violation()?;
        }
        stream.shared().check_validation()
    }

    /// Whether the marked work has finished (non-blocking).
    pub fn is_complete(&self) -> Result<bool> {
        let (stream, seq) = self.marker()?;
        let done = lock(&stream.inner.state).is_done(seq);
        done
    }

    /// The marker's stream and sequence number, its batch submitted.
    fn marker(&self) -> Result<(Stream, u64)> {
        let marks = lock(&self.state);
        let m = marks.at.as_ref().ok_or_else(Event::not_recorded)?;
        submit_up_to(&mut lock(&m.stream.inner.state), m.seq)?;
        Ok((m.stream.clone(), m.seq))
    }

    /// The raw timestamp written at the marker, waiting for the marked work first.
    fn timestamp(&self) -> Result<u64> {
        self.wait_host()?;
        let Some(pool) = lock(&self.state).pool else {
            return Err(RuntimeError::InvalidResource(
                "the device's compute queue has no timestamps (timestampValidBits is 0)".into(),
            ));
        };
        let mut data = [0u64; 1];
        // SAFETY: the marked batch finished, so the query was written.
        unsafe {
            self.shared.device().get_query_pool_results(
                pool,
                0,
                &mut data,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(vk_err("vkGetQueryPoolResults"))?;
        Ok(data[0])
    }

    /// GPU milliseconds from `start`'s marker to `end`'s (as `cudaEventElapsedTime`), waiting
    /// for both. Both must be recorded; the result is negative when `end`'s marker ran first.
    pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f64> {
        if !Arc::ptr_eq(&start.shared, &end.shared) {
            return Err(RuntimeError::ForeignResource("event".into()));
        }
        let a = start.timestamp()?;
        let b = end.timestamp()?;
        let limits = &start.shared.info.limits;
        let bits = start.shared.timestamp_valid_bits;
        let ms = if b >= a {
            elapsed_ns(a, b, bits, limits.timestamp_period_ns)
        } else {
            -elapsed_ns(b, a, bits, limits.timestamp_period_ns)
        };
        Ok(ms / 1e6)
    }
}

impl Marks {
    /// Destroys the slots of retired markers that have finished (non-blocking).
    fn reap_finished(&mut self, shared: &DeviceShared) {
        self.retired.retain(|(m, pool)| {
            let done = lock(&m.stream.inner.state).is_done(m.seq);
            if matches!(done, Ok(true)) {
                // SAFETY: the marker's batch finished: no pending work uses the pool.
                unsafe { shared.device().destroy_query_pool(*pool, None) };
                false
            } else {
                true
            }
        });
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // A marker's batch may still write its timestamp: wait for each before its pool goes.
        let marks = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let (current, unrecorded) = match (marks.at.take(), marks.pool.take()) {
            (Some(m), Some(pool)) => (Some((m, pool)), None),
            (None, pool) => (None, pool),
            // No timestamps: nothing of the event's is written by the device.
            (Some(_), None) => (None, None),
        };
        for (m, pool) in marks.retired.drain(..).chain(current) {
            let mut state = lock(&m.stream.inner.state);
            if submit_up_to(&mut state, m.seq).is_ok() {
                let _ = state.wait_seq(m.seq);
            }
            // SAFETY: no pending work uses the pool (waited above; on a lost device the
            // wait fails and nothing runs any more).
            unsafe { self.shared.device().destroy_query_pool(pool, None) };
        }
        if let Some(pool) = unrecorded {
            // SAFETY: never recorded, so never used by any work.
            unsafe { self.shared.device().destroy_query_pool(pool, None) };
        }
    }
}

/// Submits the stream's recording batch if the marker `seq` is in it (not yet submitted).
fn submit_up_to(state: &mut crate::batch::Batches, seq: u64) -> Result<()> {
    if seq > state.submitted() {
        state.flush()?;
    }
    Ok(())
}

impl Stream {
    /// Orders this stream's later work after `event`'s, with no host wait (like
    /// `cudaStreamWaitEvent`). The event's stream is submitted up to the marker. On the same
    /// queue slot, submission order does the rest (with the barriers the hazard tracker
    /// records). On another slot, the event's queue signals a semaphore after the marked
    /// work and this stream's next submission waits on it (all commands, all memory: a full
    /// dependency); work already recorded here is submitted first, not held back. Fails if
    /// the event was never recorded or belongs to another context.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.check_owner(&event.shared, "event")?;
        let (marked, _) = event.marker()?;
        let from = marked.slot();
        if from == self.slot() {
            return Ok(());
        }
        let mut state = lock(&self.inner.state);
        state.flush()?;
        let semaphore = crate::queues::signal_after_submitted(self.shared(), from)?;
        state.wait_semaphore(semaphore);
        Ok(())
    }

    /// True when nothing is recorded and unsubmitted and every submission has finished
    /// (non-blocking): a stream that may be destroyed without losing work.
    pub fn is_idle(&self) -> Result<bool> {
        let state = lock(&self.inner.state);
        if state.recorded() > 0 {
            return Ok(false);
        }
        state.is_done(u64::MAX)
    }
}
