//! Host operations on streams and events (SPEC §9): `KernelStream.current()/create()`,
//! `sync()`, `destroy()`, `waitFor(e)`, and `Event.create()`, `recordOn(s)`, `waitHost()`,
//! `query()`, `Event.elapsedMs(a, b)`.
//!
//! Every stream of a run belongs to the run's one context. A destroyed stream refuses all
//! later use, and destroying one with unfinished work is an error rather than a silent wait
//! or lost work (see docs/runtime.md, "Streams and events").

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use cajeta_runtime::Event;

use super::device::StreamObj;
use super::eval::{err, internal, Fail, Interp};
use super::operands::stream_of;
use super::value::{Scalar, Value};

use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp};

/// An `Event` of the host program.
pub struct EventObj {
    /// The Vulkan event; `None` on the CPU device, where an event is the host's clock at
    /// its last record (`host_time`).
    event: Option<Event>,
    /// On the CPU device: when the event was last recorded.
    host_time: std::cell::Cell<Option<std::time::Instant>>,
    /// The stream it was last recorded on, and how many `downloadAsync` calls that stream
    /// had then: waiting for the event lands those downloads.
    recorded: RefCell<Option<(Rc<StreamObj>, u64)>>,
    /// A `KernelTimer`'s start marker and state (`timers.rs`); `None` for other events.
    pub(super) timer: Option<super::timers::TimerMarks>,
}

impl fmt::Debug for EventObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Event")
    }
}

/// `Event.elapsedMs(a, b)` on the CPU device: the host time between the two records; as
/// on a GPU both must have been recorded.
fn cpu_elapsed_ms(a: &EventObj, b: &EventObj, span: Span) -> Result<f64, Fail> {
    match (a.host_time.get(), b.host_time.get()) {
        (Some(ta), Some(tb)) => Ok(match tb.checked_duration_since(ta) {
            Some(d) => d.as_secs_f64() * 1e3,
            None => -(ta.duration_since(tb).as_secs_f64() * 1e3),
        }),
        _ => err(
            span,
            "Event.elapsedMs needs two events that were recorded (recordOn) first",
        ),
    }
}

/// A runtime error of a stream or event operation, at the operation.
fn rt<T>(span: Span, r: Result<T, cajeta_runtime::RuntimeError>) -> Result<T, Fail> {
    r.or_else(|e| err(span, e.to_string()))
}

impl Interp<'_> {
    /// Runs stream or event operation `op` (expression `e`) on its operands' `values`, in
    /// order (both host executors run this; native code through typed calls).
    pub(crate) fn stream_op_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (args, mut next) = super::operands::host_operands(op, values, e)?;
        match (op, args) {
            (HostOp::StreamCurrent, []) => Ok(Value::Stream(self.device.stream(span)?)),
            (HostOp::StreamCreate, []) => {
                let stream = match self.device.cpu {
                    Some(_) => None,
                    None => Some(rt(span, self.device.context(span)?.create_stream())?),
                };
                let s = Rc::new(StreamObj::new(stream, false));
                self.device.created.push(s.clone());
                Ok(Value::Stream(s))
            }
            (HostOp::StreamSync, [s]) => {
                let stream = stream_of(next(), s)?;
                if let Some(vk) = stream.vulkan() {
                    self.device.waited(span, vk.sync())?;
                }
                self.land_downloads(&stream, u64::MAX, span)?;
                Ok(Value::Void)
            }
            (HostOp::StreamDestroy, [s]) => {
                let stream = stream_of(next(), s)?;
                if stream.default {
                    return err(
                        span,
                        "KernelStream.current() is the program's default stream and cannot be destroyed",
                    );
                }
                let idle = match stream.vulkan() {
                    Some(vk) => rt(span, vk.is_idle())?,
                    None => true,
                };
                if !idle {
                    return err(
                        span,
                        "KernelStream destroyed with work in flight: call sync() on it (or wait for an event recorded after its last work) first",
                    );
                }
                self.land_downloads(&stream, u64::MAX, span)?;
                stream.destroyed.set(true);
                self.device.created.retain(|c| !Rc::ptr_eq(c, &stream));
                Ok(Value::Void)
            }
            (HostOp::StreamWaitEvent, [s, ev]) => {
                let stream = stream_of(next(), s)?;
                let event = event_of(next(), ev)?;
                if let (Some(vk), Some(e)) = (stream.vulkan(), &event.event) {
                    rt(span, vk.wait_event(e))?;
                }
                Ok(Value::Void)
            }
            (HostOp::EventCreate, []) => Ok(Value::Event(Rc::new(self.new_event(None, span)?))),
            (HostOp::EventRecord, [ev, s]) => {
                let event = event_of(next(), ev)?;
                record(&event, stream_of(next(), s)?, span)?;
                Ok(Value::Void)
            }
            (HostOp::EventDestroy, [ev]) => {
                // Nothing to release early: the event goes when the program drops it.
                event_of(next(), ev)?;
                Ok(Value::Void)
            }
            (HostOp::EventWaitHost, [ev]) => {
                let event = event_of(next(), ev)?;
                if let Some(e) = &event.event {
                    self.device.waited(span, e.wait_host())?;
                }
                let recorded = event.recorded.borrow().clone();
                if let Some((stream, issued)) = recorded {
                    self.land_downloads(&stream, issued, span)?;
                }
                Ok(Value::Void)
            }
            (HostOp::EventQuery, [ev]) => {
                let event = event_of(next(), ev)?;
                let done = match &event.event {
                    Some(e) => rt(span, e.is_complete())?,
                    None => true,
                };
                Ok(Value::Scalar(Scalar::Bool(done)))
            }
            (HostOp::EventElapsed, [a, b]) => {
                let a = event_of(next(), a)?;
                let b = event_of(next(), b)?;
                Ok(Value::Scalar(Scalar::F64(elapsed_ms(&a, &b, span)?)))
            }
            (op, args) => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }

    /// A new event on the run's device (a Vulkan event, or the host's clock on the CPU
    /// device), with a `KernelTimer`'s `timer` marks when given.
    pub(super) fn new_event(
        &mut self,
        timer: Option<super::timers::TimerMarks>,
        span: Span,
    ) -> Result<EventObj, Fail> {
        let event = match self.device.cpu {
            Some(_) => None,
            None => Some(rt(span, Event::create(self.device.context(span)?))?),
        };
        Ok(EventObj {
            event,
            host_time: std::cell::Cell::new(None),
            recorded: RefCell::new(None),
            timer,
        })
    }

    /// The stream of a buffer transfer: its third argument's value `stream` when given
    /// (`buf.upload(arr, s)`), else the default stream.
    pub(super) fn transfer_stream(
        &mut self,
        stream: Option<Value>,
        args: &[Expr],
        span: Span,
    ) -> Result<Rc<StreamObj>, Fail> {
        match (args.get(2), stream) {
            (Some(s), Some(v)) => stream_of(v, s),
            (Some(s), None) => stream_of(Value::Void, s),
            (None, _) => self.device.stream(span),
        }
    }
}

/// Records `event` at the end of `stream`'s work (`e.recordOn(s)`).
pub(super) fn record(event: &EventObj, stream: Rc<StreamObj>, span: Span) -> Result<(), Fail> {
    match (&event.event, stream.vulkan()) {
        (Some(e), Some(vk)) => rt(span, e.record_on(vk))?,
        _ => event.host_time.set(Some(std::time::Instant::now())),
    }
    let issued = stream.issued.get();
    *event.recorded.borrow_mut() = Some((stream, issued));
    Ok(())
}

/// Milliseconds from `a`'s marker to `b`'s, waiting for both (`Event.elapsedMs(a, b)`).
pub(super) fn elapsed_ms(a: &EventObj, b: &EventObj, span: Span) -> Result<f64, Fail> {
    match (&a.event, &b.event) {
        (Some(a), Some(b)) => rt(span, Event::elapsed_ms(a, b)),
        _ => cpu_elapsed_ms(a, b, span),
    }
}

/// The event operand `e` evaluated to (`v`); null is an error at `e`.
pub(super) fn event_of(v: Value, e: &Expr) -> Result<Rc<EventObj>, Fail> {
    match v {
        Value::Event(ev) => Ok(ev),
        Value::Void => err(e.span, "use of a null Event"),
        other => internal(e.span, format!("expected an Event, found {other:?}")),
    }
}
