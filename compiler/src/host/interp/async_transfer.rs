//! `buf.upload(arr [, s])`, `buf.download(arr [, s])` and their asynchronous forms
//! `uploadAsync(arr, s)` / `downloadAsync(arr, s)` (SPEC §9; docs/runtime.md, "Asynchronous
//! transfers").
//!
//! An upload copies the array into a staging buffer before it returns, so the array is free
//! at once; `uploadAsync` also submits the stream's work so the copy starts now. A
//! `downloadAsync` records the copy, submits it and returns; the data *lands* in the array
//! when the program next synchronizes with the stream (`s.sync()`, or `e.waitHost()` on an
//! event recorded on `s` after the download, or `s.destroy()`). Until then the array keeps
//! its old contents, and using it in another transfer is a runtime error.

use cajeta_runtime::{FloatStorage, PendingDownload};

use super::device::StreamObj;
use super::eval::{err, Fail, Interp};
use super::value::{ArrayRef, Value};

use crate::diagnostics::Span;
use crate::ir::{Expr, HostOp, ScalarType};

/// A `downloadAsync` not yet landed in its array.
pub struct PendingArray {
    /// Its number among the stream's `downloadAsync` calls.
    number: u64,
    pending: PendingDownload,
    array: ArrayRef,
    sfp: Option<FloatStorage>,
    int_lane: Option<ScalarType>,
    layout: super::lanes::Layout,
    /// Bytes of the array's (padded) image before rounding to whole words.
    exact: usize,
    /// The array's memory is the buffer's image: the data lands straight in it.
    plain: bool,
}

impl Interp<'_> {
    /// A buffer transfer on its operands' `values` (buffer, array and, when given, stream):
    /// both host executors run this, native code through its typed calls.
    pub(crate) fn buffer_transfer_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        args: &[Expr],
        span: Span,
    ) -> Result<Value, Fail> {
        if super::vector_transfer::is_vector_array(args) {
            let mut values = values.into_iter();
            let operands = (
                values.next().unwrap_or(Value::Void),
                values.next().unwrap_or(Value::Void),
                values.next(),
            );
            return self.vector_array_transfer(op, operands, args, span);
        }
        self.element_transfer_values(op, values, args, span)
    }

    /// A buffer transfer of an array of the buffer's elements (a vector buffer's flat
    /// lanes): [`Self::buffer_transfer_values`] but for arrays of whole vectors.
    pub(super) fn element_transfer_values(
        &mut self,
        op: HostOp,
        values: Vec<Value>,
        args: &[Expr],
        span: Span,
    ) -> Result<Value, Fail> {
        let mut values = values.into_iter();
        let (buffer, array, stream) = (
            values.next().unwrap_or(Value::Void),
            values.next().unwrap_or(Value::Void),
            values.next(),
        );
        let dir = match op {
            HostOp::BufferUpload | HostOp::BufferUploadAsync => "upload",
            _ => "download",
        };
        if let Some(crate::ir::Type::Buffer(elem)) = args.first().map(|b| &b.ty) {
            if let crate::ir::Type::Struct(d) = elem.as_ref() {
                let operands = (buffer, array, stream);
                return self.pod_transfer(operands, op, args, &d.clone(), span);
            }
        }
        let t = self.transfer((buffer, array), args, span, dir)?;
        self.refuse_pending_target(&t.array, span)?;
        let obj = self.transfer_stream(stream, args, span)?;
        if let Some(cpu) = self.device.cpu {
            let upload = matches!(op, HostOp::BufferUpload | HostOp::BufferUploadAsync);
            return cpu_transfer(cpu, &t, upload, span).map(|()| Value::Void);
        }
        let buffer = t.buffer.vulkan(span, "a Vulkan buffer")?;
        let stream = obj.vk(span, "a Vulkan stream")?;
        let rt =
            |r: Result<(), cajeta_runtime::RuntimeError>| r.or_else(|x| err(span, x.to_string()));
        match op {
            HostOp::BufferUpload | HostOp::BufferUploadAsync if t.is_plain() => {
                let array = t.array.borrow();
                let bytes = super::buffer_transfer::plain_bytes(&array).unwrap_or_default();
                // A synchronous upload of a large array may go straight from its pinned pages.
                let pin = match op {
                    HostOp::BufferUpload => self.device.pin_for(span, &t.array, bytes)?,
                    _ => None,
                };
                if let Some(pin) = pin {
                    rt(stream.upload_buffer_pinned(buffer, bytes, &pin).map(|_| ()))?;
                } else if !bytes.is_empty() {
                    rt(stream.upload_buffer(buffer, bytes).map(|_| ()))?;
                }
                if op == HostOp::BufferUploadAsync {
                    rt(stream.flush())?;
                }
            }
            HostOp::BufferDownload if t.is_plain() => {
                let mut array = t.array.borrow_mut();
                let bytes = super::buffer_transfer::plain_bytes_mut(&mut array).unwrap_or_default();
                if bytes.is_empty() {
                    return Ok(Value::Void);
                }
                let r = match self.device.pin_for(span, &t.array, bytes)? {
                    Some(pin) => stream.download_buffer_pinned(buffer, bytes, &pin),
                    None => stream.download_buffer(buffer, bytes),
                };
                drop(array);
                self.device.waited(span, r)?;
            }
            HostOp::BufferUpload | HostOp::BufferUploadAsync => {
                let bytes = match t.sfp {
                    Some(form) => super::precision::encode(form, &t.array.borrow()),
                    None => {
                        let bytes = super::int_transfer::to_bytes(&t.array.borrow(), t.int_lane);
                        super::int_transfer::pad_words(t.layout.pad(bytes), t.int_lane)
                    }
                };
                if !bytes.is_empty() {
                    rt(stream.upload_buffer(buffer, &bytes).map(|_| ()))?;
                }
                if op == HostOp::BufferUploadAsync {
                    rt(stream.flush())?;
                }
            }
            HostOp::BufferDownload => {
                let (mut bytes, exact) = download_image(&t);
                if bytes.is_empty() {
                    return Ok(Value::Void);
                }
                let r = stream.download_buffer(buffer, &mut bytes);
                self.device.waited(span, r)?;
                land(&t.array, t.sfp, t.int_lane, t.layout, exact, bytes);
            }
            _ => {
                // A plain array needs no image: the data lands straight in it.
                let plain = t.is_plain();
                let (empty, exact) = if plain {
                    let n = super::buffer_transfer::plain_bytes(&t.array.borrow())
                        .map_or(0, <[u8]>::len);
                    (n == 0, n)
                } else {
                    let (bytes, exact) = download_image(&t);
                    (bytes.is_empty(), exact)
                };
                if empty {
                    return Ok(Value::Void);
                }
                let pending = rt_value(span, stream.download_buffer_async(buffer))?;
                let number = obj.issued.get();
                obj.issued.set(number + 1);
                obj.downloads.borrow_mut().push(PendingArray {
                    number,
                    pending,
                    array: t.array.clone(),
                    sfp: t.sfp,
                    int_lane: t.int_lane,
                    layout: t.layout,
                    exact,
                    plain,
                });
            }
        }
        Ok(Value::Void)
    }

    /// Lands the stream's pending `downloadAsync` copies numbered below `upto` in their
    /// arrays, waiting for them (they have finished when the caller has synchronized).
    pub(super) fn land_downloads(
        &mut self,
        stream: &StreamObj,
        upto: u64,
        span: Span,
    ) -> Result<(), Fail> {
        let ready: Vec<PendingArray> = {
            let mut all = stream.downloads.borrow_mut();
            let split = all.iter().take_while(|p| p.number < upto).count();
            all.drain(..split).collect()
        };
        for p in ready {
            if p.plain {
                let mut array = p.array.borrow_mut();
                if let Some(out) = super::buffer_transfer::plain_bytes_mut(&mut array) {
                    let r = p.pending.finish(out);
                    drop(array);
                    self.device.waited(span, r)?;
                    continue;
                }
            }
            let mut bytes = vec![0u8; p.pending.len() as usize];
            let r = p.pending.finish(&mut bytes);
            self.device.waited(span, r)?;
            land(&p.array, p.sfp, p.int_lane, p.layout, p.exact, bytes);
        }
        Ok(())
    }

    /// An array still waiting for a `downloadAsync` cannot take part in another transfer.
    fn refuse_pending_target(&self, array: &ArrayRef, span: Span) -> Result<(), Fail> {
        let pending = self.device.streams().any(|s| {
            s.downloads
                .borrow()
                .iter()
                .any(|p| std::rc::Rc::ptr_eq(&p.array, array))
        });
        if pending {
            return err(
                span,
                "the array is the target of a downloadAsync that has not landed: call sync() on its stream (or waitHost() on an event recorded after it) before using the array in another transfer",
            );
        }
        Ok(())
    }
}

/// A transfer on the CPU device: a copy between the array's image and the buffer's host
/// memory, finished on return (an asynchronous download has landed when it returns).
fn cpu_transfer(
    cpu: &super::cpu_run::CpuRun,
    t: &super::buffer_transfer::Transfer,
    upload: bool,
    span: Span,
) -> Result<(), Fail> {
    let buf = super::cpu_run::cpu_buffer(&t.buffer, span)?;
    if t.is_plain() {
        if upload {
            let array = t.array.borrow();
            let bytes = super::buffer_transfer::plain_bytes(&array).unwrap_or_default();
            return super::cpu_run::upload(cpu, buf, bytes, span);
        }
        let mut array = t.array.borrow_mut();
        let out = super::buffer_transfer::plain_bytes_mut(&mut array).unwrap_or_default();
        return super::cpu_run::download(cpu, buf, out, span);
    }
    if upload {
        let bytes = match t.sfp {
            Some(form) => super::precision::encode(form, &t.array.borrow()),
            None => {
                let bytes = super::int_transfer::to_bytes(&t.array.borrow(), t.int_lane);
                super::int_transfer::pad_words(t.layout.pad(bytes), t.int_lane)
            }
        };
        return super::cpu_run::upload(cpu, buf, &bytes, span);
    }
    let (mut bytes, exact) = download_image(t);
    super::cpu_run::download(cpu, buf, &mut bytes, span)?;
    land(&t.array, t.sfp, t.int_lane, t.layout, exact, bytes);
    Ok(())
}

fn rt_value<T>(span: Span, r: Result<T, cajeta_runtime::RuntimeError>) -> Result<T, Fail> {
    r.or_else(|x| err(span, x.to_string()))
}

/// The byte image a download of `t` fills (the array's, in the buffer's layout) and its
/// length before rounding to whole words.
fn download_image(t: &super::buffer_transfer::Transfer) -> (Vec<u8>, usize) {
    if let Some(form) = t.sfp {
        let bytes = super::precision::encode(form, &t.array.borrow());
        let n = bytes.len();
        return (bytes, n);
    }
    let bytes = super::int_transfer::to_bytes(&t.array.borrow(), t.int_lane);
    let bytes = t.layout.pad(bytes);
    let exact = bytes.len();
    (super::int_transfer::pad_words(bytes, t.int_lane), exact)
}

/// Writes downloaded `bytes` into `array`.
fn land(
    array: &ArrayRef,
    sfp: Option<FloatStorage>,
    int_lane: Option<ScalarType>,
    layout: super::lanes::Layout,
    exact: usize,
    mut bytes: Vec<u8>,
) {
    if let Some(form) = sfp {
        super::precision::decode(form, &bytes, &mut array.borrow_mut());
        return;
    }
    bytes.truncate(exact);
    let bytes = layout.unpad(bytes);
    super::int_transfer::from_bytes(&mut array.borrow_mut(), &bytes, int_lane);
}
