//! Several devices in one program (docs/distributed.md): `Device.count()`, `Device.all()`,
//! `Device.current()`, `Device.set(i)` and `dst.copyFrom(src)`.
//!
//! The model is CUDA's current device: `Device.set(i)` makes device `i` current, and new
//! buffers, streams, `KernelStream.current()` and launches use the current device. The
//! interpreter's device state (`Device` in `device.rs`) keeps working on "the" context: a
//! switch parks the current device's state (context, loaded kernels, streams, pins) here and
//! puts device `i`'s in its place, so nothing else needs to know how many devices there are.
//! Objects of one device used on another are refused by the runtime (each stream checks that
//! what it records belongs to its device), never mixed up.
//!
//! Device 0 is the run's context. The others are made on first `Device.set` with its options
//! (the features the kernels need, checking, profiling) on the device `CAJETA_DEVICES` names
//! at that position, or by default on the other physical devices in enumeration order.

use std::collections::HashMap;
use std::rc::Rc;

use cajeta_runtime::{Context, Kernel};

use super::device::{Device, StreamObj};
use super::eval::{err, internal, Fail, Interp};
use super::operands::buffer_of;
use super::value::{Array, Scalar, Value};

use crate::diagnostics::Span;
use crate::ir::{DevicesOp, Expr, FunctionId};

/// `r` with a note on what to do when the runtime refused an object of another device.
pub(super) fn foreign_note<T>(
    r: Result<T, Fail>,
    cause: &cajeta_runtime::RuntimeError,
) -> Result<T, Fail> {
    r.map_err(|mut e| {
        // Launch argument checks report it in their message, not as ForeignResource.
        if cause.to_string().contains("belongs to a different Context") {
            e.notes.push(
                "buffers, streams and events belong to the device that was current when they were made; launch on that device (Device.set) or copy the buffer with copyFrom"
                    .into(),
            );
        }
        e
    })
}

/// The state of a device that is not current.
pub(super) struct Slot {
    context: Option<Context>,
    loaded: HashMap<(FunctionId, bool), Kernel>,
    stream: Option<Rc<StreamObj>>,
    created: Vec<Rc<StreamObj>>,
    checked_launches: HashMap<cajeta_runtime::CommandId, Span>,
    pins: super::host_pins::HostPins,
}

/// Which device is current and the parked state of the others.
#[derive(Default)]
pub(super) struct Others {
    /// The current device's index.
    current: usize,
    /// By device index: the parked state of each device made so far (`None` for the
    /// current one and for devices not used yet).
    parked: Vec<Option<Slot>>,
    /// The program's device list (selectors for [`Context::sibling`]), once asked for.
    list: Option<Vec<String>>,
}

impl Device<'_> {
    /// Takes the current device's state out, leaving an empty one.
    fn park(&mut self) -> Slot {
        Slot {
            context: self.context.take(),
            loaded: std::mem::take(&mut self.loaded),
            stream: self.stream.take(),
            created: std::mem::take(&mut self.created),
            checked_launches: std::mem::take(&mut self.checked_launches),
            pins: std::mem::take(&mut self.pins),
        }
    }

    /// Puts `slot` in place as the current device's state.
    fn unpark(&mut self, slot: Slot) {
        self.context = slot.context;
        self.loaded = slot.loaded;
        self.stream = slot.stream;
        self.created = slot.created;
        self.checked_launches = slot.checked_launches;
        self.pins = slot.pins;
    }

    /// Device 0's context (the run's; made now if it was not yet).
    fn first_context(&mut self, span: Span) -> Result<Context, Fail> {
        if self.others.current == 0 {
            return Ok(self.context(span)?.clone());
        }
        match self.others.parked.first() {
            Some(Some(Slot {
                context: Some(c), ..
            })) => Ok(c.clone()),
            _ => internal(span, "device 0 has no context"),
        }
    }

    /// The program's devices: `CAJETA_DEVICES`, else device 0's physical device followed by
    /// every other physical device.
    fn list(&mut self, span: Span) -> Result<Vec<String>, Fail> {
        if let Some(l) = &self.others.list {
            return Ok(l.clone());
        }
        if self.cpu.is_some() {
            // A run on the CPU device has that one device.
            return Ok(vec!["cpu".to_string()]);
        }
        let first = self.first_context(span)?;
        let list = match cajeta_runtime::device_list_from_env() {
            Some(l) => l,
            None => {
                let own = first.device_info().index;
                let all = Context::list_devices()
                    .or_else(|e| err(span, format!("cannot list the devices: {e}")))?;
                std::iter::once(own)
                    .chain(all.iter().map(|d| d.index).filter(|&i| i != own))
                    .map(|i| i.to_string())
                    .collect()
            }
        };
        self.others.list = Some(list.clone());
        Ok(list)
    }

    /// Makes device `index` current, creating its context on first use.
    fn set_current(&mut self, index: usize, span: Span) -> Result<(), Fail> {
        let list = self.list(span)?;
        if index >= list.len() {
            return err(
                span,
                format!(
                    "Device.set({index}): the program has {} device(s), 0 .. {}",
                    list.len(),
                    list.len() - 1
                ),
            );
        }
        let current = self.others.current;
        if index == current {
            return Ok(());
        }
        let parked = &mut self.others.parked;
        if parked.len() < list.len() {
            parked.resize_with(list.len(), || None);
        }
        let slot = match parked[index].take() {
            Some(slot) => slot,
            None => {
                let first = self.first_context(span)?;
                let context = first.sibling(Some(list[index].clone())).or_else(|e| {
                    err(
                        span,
                        format!("cannot use device {index} (`{}`): {e}", list[index]),
                    )
                })?;
                Slot {
                    context: Some(context),
                    loaded: HashMap::new(),
                    stream: None,
                    created: Vec::new(),
                    checked_launches: HashMap::new(),
                    pins: Default::default(),
                }
            }
        };
        let old = self.park();
        self.others.parked[current] = Some(old);
        self.unpark(slot);
        self.others.current = index;
        Ok(())
    }

    /// The default stream of the device `buffer` belongs to, among the devices made so far.
    fn stream_owning(
        &mut self,
        buffer: &cajeta_runtime::Buffer,
        span: Span,
    ) -> Result<Option<cajeta_runtime::Stream>, Fail> {
        let own = self.stream(span)?;
        let own = own.vk(span, "a Vulkan stream")?;
        if own.owns(buffer) {
            return Ok(Some(own.clone()));
        }
        Ok(self
            .others
            .parked
            .iter()
            .flatten()
            .filter_map(|s| s.context.as_ref())
            .map(Context::default_stream)
            .find(|s| s.owns(buffer)))
    }

    /// Waits for the work of every device but the current one (end of the run).
    pub(super) fn finish_others(&mut self) -> Result<(), Fail> {
        let current = self.others.current;
        for index in 0..self.others.parked.len() {
            if let Some(slot) = self.others.parked[index].take() {
                let here = self.park();
                self.unpark(slot);
                let r = self.finish_current();
                let back = self.park();
                self.unpark(here);
                self.others.parked[index] = Some(back);
                r?;
            }
        }
        debug_assert_eq!(self.others.current, current);
        Ok(())
    }

    /// Drops every device's state but device 0's, which becomes current again.
    pub(super) fn release_others(&mut self) {
        if self.others.current != 0 {
            if let Some(Some(first)) = self.others.parked.get_mut(0).map(Option::take) {
                drop(self.park());
                self.unpark(first);
                self.others.current = 0;
            }
        }
        self.others.parked.clear();
    }
}

impl Interp<'_> {
    /// `Device.count()`.
    pub(super) fn eval_devices_count(&mut self, span: Span) -> Result<usize, Fail> {
        Ok(self.device.list(span)?.len())
    }

    /// Runs several-devices operation `op` (expression `e`) on its operands' `values`, in
    /// order (both host executors run this; native code through typed calls).
    pub(crate) fn devices_op_values(
        &mut self,
        op: DevicesOp,
        values: Vec<Value>,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let span = e.span;
        let (args, mut next) = super::operands::host_operands(op, values, e)?;
        match (op, args) {
            (DevicesOp::Count, []) => {
                let n = self.device.list(span)?.len();
                Ok(Value::Scalar(Scalar::I32(n as i32)))
            }
            (DevicesOp::All, []) => {
                let n = self.device.list(span)?.len() as i32;
                Ok(Value::array(Array::I32((0..n).collect())))
            }
            (DevicesOp::Current, []) => Ok(Value::Scalar(Scalar::I32(
                self.device.others.current as i32,
            ))),
            (DevicesOp::Set, [_]) => {
                let index = match next() {
                    Value::Scalar(Scalar::I32(v)) if v >= 0 => v as usize,
                    Value::Scalar(Scalar::I32(v)) => {
                        return err(span, format!("Device.set({v}): no such device"))
                    }
                    other => return internal(span, format!("device index {other:?}")),
                };
                self.device.set_current(index, span)?;
                Ok(Value::Void)
            }
            (DevicesOp::CopyFrom, [dst, src]) => {
                let (d, s) = (buffer_of(next(), dst)?, buffer_of(next(), src)?);
                let d_raw = self.live_buffer(&d, dst, span)?;
                let s_raw = self.live_buffer(&s, src, span)?;
                let (d_raw, s_raw) = (
                    d_raw.vulkan(span, "copyFrom between devices")?.clone(),
                    s_raw.vulkan(span, "copyFrom between devices")?.clone(),
                );
                if d.len != s.len {
                    return err(
                        span,
                        format!(
                            "copyFrom: the source has {} elements, the destination {}",
                            s.len, d.len
                        ),
                    );
                }
                let (Some(ds), Some(ss)) = (
                    self.device.stream_owning(&d_raw, span)?,
                    self.device.stream_owning(&s_raw, span)?,
                ) else {
                    return internal(span, "a buffer of no device of the run");
                };
                let r = cajeta_runtime::copy_buffer_peer(&ss, &s_raw, &ds, &d_raw);
                r.map(|_| Value::Void).or_else(|x| err(span, x.to_string()))
            }
            _ => internal(span, format!("{op:?} with {} arguments", args.len())),
        }
    }
}
