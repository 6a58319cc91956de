//! Cajeta's `KernelTimer` in host code (docs/runtime.md, "Streams and events"): a timer is
//! an `Event`, its end marker, holding a start marker. `begin(s)` / `end(s)` record them on
//! a stream and `elapsedNanos()` is the device time between them, -1 until both are
//! recorded; the static helpers are Cajeta's arithmetic on a measured time. Both executors
//! run these (native code hands them over).

use std::cell::Cell;
use std::rc::Rc;

use super::eval::{internal, Fail, Frame, Interp};
use super::operands::stream_of;
use super::streams::{elapsed_ms, event_of, record, EventObj};
use super::value::{Scalar, Value};

use crate::ir::{Expr, TimerOp};

/// `KernelTimer.tier()` on a Vulkan device: GPU timestamps.
const TIER_DEVICE: i32 = 2;
/// `KernelTimer.tier()` on the CPU device: the host's clock (its work is synchronous).
const TIER_HOST: i32 = 1;

/// The start marker of a `KernelTimer` and whether each marker is recorded.
pub struct TimerMarks {
    /// Recorded by `begin(s)`.
    start: Rc<EventObj>,
    /// `begin` was called.
    begun: Cell<bool>,
    /// `end` was called after the last `begin`.
    ended: Cell<bool>,
}

impl Interp<'_> {
    /// Evaluates KernelTimer operation `op` (expression `e`).
    pub(super) fn timer_op(
        &mut self,
        f: &mut Frame,
        op: TimerOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let mut values = self.eval_all(f, args)?.into_iter();
        let mut next = || values.next().unwrap_or(Value::Void);
        let on_cpu = self.device.cpu.is_some();
        let scalar = |s: Scalar| Ok(Value::Scalar(s));
        match (op, args) {
            (TimerOp::Create, []) => {
                let start = Rc::new(self.new_event(None, span)?);
                let marks = TimerMarks {
                    start,
                    begun: Cell::new(false),
                    ended: Cell::new(false),
                };
                Ok(Value::Event(Rc::new(self.new_event(Some(marks), span)?)))
            }
            (TimerOp::Begin | TimerOp::End, [t, s]) => {
                let timer = event_of(next(), t)?;
                let stream = stream_of(next(), s)?;
                let marks = marks_of(&timer, t)?;
                if op == TimerOp::Begin {
                    record(&marks.start, stream, span)?;
                    marks.begun.set(true);
                    marks.ended.set(false);
                } else {
                    record(&timer, stream, span)?;
                    marks.ended.set(true);
                }
                Ok(Value::Void)
            }
            (TimerOp::ElapsedNanos, [t]) => {
                let timer = event_of(next(), t)?;
                let marks = marks_of(&timer, t)?;
                if !marks.begun.get() || !marks.ended.get() {
                    return scalar(Scalar::I64(-1));
                }
                let ms = elapsed_ms(&marks.start, &timer, span)?;
                scalar(Scalar::I64((ms * 1e6).round() as i64))
            }
            (TimerOp::Tier, []) => {
                scalar(Scalar::I32(if on_cpu { TIER_HOST } else { TIER_DEVICE }))
            }
            (TimerOp::TierName, []) => Ok(Value::str(if on_cpu { "host" } else { "device" })),
            // Vulkan gives timestamps in ticks of `timestampPeriod` nanoseconds, which the
            // runtime applies; there is no second clock to correct here.
            (TimerOp::ClockScale, []) => scalar(Scalar::F64(1.0)),
            (TimerOp::ImpliedGbps, [_, _]) => {
                let (ns, bytes) = (int_of(next(), e)?, int_of(next(), e)?);
                scalar(Scalar::F64(per_ns(ns, bytes as f64)))
            }
            (TimerOp::ImpliedOpsPerSecond, [_, _]) => {
                let (ns, ops) = (int_of(next(), e)?, float_of(next(), e)?);
                scalar(Scalar::F64(per_ns(ns, ops) * 1e9))
            }
            (TimerOp::WithinPeak, [_, _, _, _, _]) => {
                let ns = int_of(next(), e)?;
                let bytes = int_of(next(), e)?;
                let peak_gbps = float_of(next(), e)?;
                let ops = float_of(next(), e)?;
                let peak_ops = float_of(next(), e)?;
                scalar(Scalar::Bool(within_peak(
                    ns,
                    (bytes as f64, peak_gbps),
                    (ops, peak_ops * 1e-9),
                )))
            }
            (op, args) => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }
}

/// The start marks of `timer`, a value of `KernelTimer.create()`; another event is an
/// error at `t`.
fn marks_of<'a>(timer: &'a EventObj, t: &Expr) -> Result<&'a TimerMarks, Fail> {
    match &timer.timer {
        Some(m) => Ok(m),
        None => super::eval::err(
            t.span,
            "begin, end and elapsedNanos are KernelTimer methods: this Event was not made by KernelTimer.create()",
        ),
    }
}

/// `amount` per nanosecond of `ns`; 0 for a duration that is not positive (Cajeta's rule).
fn per_ns(ns: i64, amount: f64) -> f64 {
    if ns <= 0 {
        0.0
    } else {
        amount / ns as f64
    }
}

/// Cajeta's `withinPeak`: the duration is positive and each amount given (bytes, operations;
/// 0 = not given) is at or under its ceiling per nanosecond; an amount with no ceiling
/// (ceiling 0 or less) fails.
fn within_peak(ns: i64, (bytes, bytes_per_ns): (f64, f64), (ops, ops_per_ns): (f64, f64)) -> bool {
    if ns <= 0 {
        return false;
    }
    [(bytes, bytes_per_ns), (ops, ops_per_ns)]
        .into_iter()
        .all(|(amount, peak)| amount <= 0.0 || (peak > 0.0 && per_ns(ns, amount) <= peak))
}

/// An int64 operand.
fn int_of(v: Value, e: &Expr) -> Result<i64, Fail> {
    match v {
        Value::Scalar(s) => s.as_int().map(|i| i as i64).ok_or(()),
        _ => Err(()),
    }
    .or_else(|()| internal(e.span, "a KernelTimer helper's integer operand"))
}

/// A float64 operand.
fn float_of(v: Value, e: &Expr) -> Result<f64, Fail> {
    match v {
        Value::Scalar(Scalar::F64(x)) => Ok(x),
        _ => internal(e.span, "a KernelTimer helper's float64 operand"),
    }
}

#[cfg(test)]
mod tests {
    use super::{per_ns, within_peak};

    #[test]
    fn peak_gate_refuses_a_missing_ceiling_and_an_impossible_rate() {
        assert_eq!(per_ns(0, 10.0), 0.0);
        assert_eq!(per_ns(4, 10.0), 2.5);
        // 100 bytes in 10 ns is 10 GB/s: under a 20 GB/s ceiling, over a 5 GB/s one.
        assert!(within_peak(10, (100.0, 20.0), (0.0, 0.0)));
        assert!(!within_peak(10, (100.0, 5.0), (0.0, 0.0)));
        // Work declared without a ceiling is refused; a non-positive time always is.
        assert!(!within_peak(10, (100.0, 0.0), (0.0, 0.0)));
        assert!(!within_peak(0, (0.0, 0.0), (0.0, 0.0)));
        assert!(within_peak(10, (0.0, 0.0), (50.0, 5.0)));
        assert!(!within_peak(10, (0.0, 0.0), (51.0, 5.0)));
    }
}
