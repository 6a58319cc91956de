//! Events: a point in a stream's work that the host can wait for or poll, and that another
//! stream can be ordered after.

use std::fmt;
use std::sync::Mutex;

use crate::error::{Result, RuntimeError};
use crate::lock;
use crate::stream::Stream;
use crate::Context;

/// A marker in a stream: everything recorded on the stream before [`Event::record_on`].
/// Recording submits that work (without waiting), so the event completes once the device has
/// run it. Cheap to create; re-recording moves the marker.
pub struct Event {
    /// The stream and the submission sequence number the event stands for.
    at: Mutex<Option<(Stream, u64)>>,
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = lock(&self.at);
        f.debug_struct("Event")
            .field("recorded", &at.is_some())
            .field("seq", &at.as_ref().map(|(_, s)| *s))
            .finish()
    }
}

impl Event {
    /// A new event, not yet recorded. (The context argument ties the API to a device; events
    /// need no Vulkan object: they ride on the stream's fences.)
    pub fn create(_ctx: &Context) -> Event {
        Event {
            at: Mutex::new(None),
        }
    }

    fn not_recorded() -> RuntimeError {
        RuntimeError::InvalidResource("the event has not been recorded on a stream".into())
    }

    /// Marks everything recorded on `stream` so far, submitting it.
    pub fn record_on(&self, stream: &Stream) -> Result<()> {
        let seq = lock(&stream.inner.state).flush()?;
        *lock(&self.at) = Some((stream.clone(), seq));
        Ok(())
    }

    /// Blocks until the marked work has finished; in validation mode, reports new messages.
    pub fn wait_host(&self) -> Result<()> {
        let at = lock(&self.at).clone();
        let (stream, seq) = at.ok_or_else(Event::not_recorded)?;
        {
            let mut state = lock(&stream.inner.state);
            state.wait_seq(seq)?;
            state.take_violation()?;
        }
        stream.shared().check_validation()
    }

    /// Whether the marked work has finished (non-blocking).
    pub fn is_complete(&self) -> Result<bool> {
        let at = lock(&self.at).clone();
        let (stream, seq) = at.ok_or_else(Event::not_recorded)?;
        let done = lock(&stream.inner.state).is_done(seq);
        done
    }
}

impl Stream {
    /// Orders this stream's later work after `event`'s. All streams of a context submit to
    /// one queue, and recording the event already submitted its work, so commands recorded
    /// here from now on are submitted after it; the barriers the hazard tracker records
    /// (which see every stream's commands in recording order) do the rest. Fails if the event
    /// was never recorded or belongs to another context.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        let at = lock(&event.at).clone();
        let (stream, _) = at.ok_or_else(Event::not_recorded)?;
        self.check_owner(stream.shared(), "event")
    }
}
