//! The typed C-ABI calls native host code makes for device work, files and array
//! allocation, in the manner of wasmtime's libcalls: one `extern "C"` function per
//! operation, its operands passed as plain arguments (integers as `i64` bit patterns, see
//! `scalar_fns.rs`; objects — buffers, arrays, streams, events, strings, images — as the
//! address of the frame slot that holds them), its result written to a slot (objects) or
//! to `*out` (scalars). The first argument is the operation's IR node (`*const Expr`, in
//! the module, which outlives the run): it names the operation's types and the source
//! position of its errors, never something to evaluate.
//!
//! The device loop's operations (a synchronous upload or download of a plain array, a
//! launch with buffer and scalar arguments) go straight to the runtime
//! (`Interp::direct_transfer`, `Interp::direct_launch`: no operand vectors, nothing per call
//! that a loop does not change). Every other call, and these when their operands need more,
//! runs the shared implementation of the operation on those values
//! (`Interp::host_op_values`, `Interp::launch_values`), so there is one implementation of
//! each and the two host executors report the same errors. None of them walks the IR, so
//! none counts as a hand-off (`bridge::handoffs`). Every function returns 1, or 0 after
//! recording the runtime error (the generated code then unwinds).

use super::bridge::on_interp;
use super::launch_calls::cajeta_launch;
use super::scalar_fns::{bits_of, scalar_of};
use super::words::Words;
use crate::host::interp::{gemm_value_operands, internal_fail, load_element, Scalar, Value};
use crate::ir::{Expr, ExprKind, HostOp, Place};

/// The operands of host operation `e` and the scalar type of operand `i`.
fn operand_scalar(e: &Expr, i: usize) -> Option<crate::ir::ScalarType> {
    match &e.kind {
        ExprKind::Host { args, .. } => args.get(i)?.ty.as_scalar(),
        _ => None,
    }
}

/// The value at `p`, a frame slot's address; null (an absent optional operand) is `None`.
///
/// # Safety
/// `p` is null or points to a live value.
unsafe fn object(p: *const Value) -> Option<Value> {
    (!p.is_null()).then(|| (*p).clone())
}

/// Runs host operation `e` on `values`; its result goes to `*dst` (an object) or, as bits,
/// to `*out` (a scalar), whichever is not null.
///
/// # Safety
/// `e` is a host operation of the run's module; `dst` is null or a frame slot; `out` is
/// null or writable.
unsafe fn run(e: *const Expr, values: Vec<Value>, dst: *mut Value, out: *mut i64) -> i32 {
    let e = &*e;
    let ExprKind::Host { op, .. } = &e.kind else {
        return on_interp(|_| internal_fail(e.span, "a typed call of a non-host operation"));
    };
    on_interp(|interp| {
        let v = interp.host_op_values(*op, values, e)?;
        if !out.is_null() {
            *out = match &v {
                Value::Scalar(s) => bits_of(*s),
                _ => 0,
            };
        }
        if !dst.is_null() {
            *dst = v;
        }
        Ok(())
    })
}

/// The scalar operand `i` of `e` from its bits.
///
/// # Safety
/// As for [`run`].
unsafe fn scalar(e: *const Expr, i: usize, bits: i64) -> Value {
    operand_scalar(&*e, i)
        .and_then(|s| scalar_of(bits, s))
        .map_or(Value::Void, Value::Scalar)
}

/// `heap T[n]`: `*dst` = a new array of `len` (the bits of `n`) elements.
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_array_new(e: *const Expr, len: i64, dst: *mut Value) -> i32 {
    run(e, vec![scalar(e, 0, len)], dst, std::ptr::null_mut())
}

/// `heap KernelBuffer<T>(n)`: `*dst` = a new buffer of `len` elements with device memory.
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_buffer_new(e: *const Expr, len: i64, dst: *mut Value) -> i32 {
    run(e, vec![scalar(e, 0, len)], dst, std::ptr::null_mut())
}

/// `buf.upload(arr [, s])` / `buf.uploadAsync(arr, s)` (which one: `e`); `stream` is null
/// when the call names none.
///
/// # Safety
/// As for [`run`]; `buf`, `arr` and a non-null `stream` point to live values.
pub unsafe extern "C" fn cajeta_buffer_upload(
    e: *const Expr,
    buf: *const Value,
    arr: *const Value,
    stream: *const Value,
) -> i32 {
    transfer(e, buf, arr, stream)
}

/// `buf.download(arr [, s])` / `buf.downloadAsync(arr, s)`; as [`cajeta_buffer_upload`].
///
/// # Safety
/// As for [`cajeta_buffer_upload`].
pub unsafe extern "C" fn cajeta_buffer_download(
    e: *const Expr,
    buf: *const Value,
    arr: *const Value,
    stream: *const Value,
) -> i32 {
    transfer(e, buf, arr, stream)
}

unsafe fn transfer(
    e: *const Expr,
    buf: *const Value,
    arr: *const Value,
    stream: *const Value,
) -> i32 {
    if let ExprKind::Host { op, args } = &(*e).kind {
        let upload = match op {
            HostOp::BufferUpload => Some(true),
            HostOp::BufferDownload => Some(false),
            _ => None,
        };
        if let Some(upload) = upload {
            let operands = (&*buf, &*arr, stream.as_ref());
            let span = (*e).span;
            let mut direct = false;
            let ok =
                on_interp(
                    |interp| match interp.direct_transfer(upload, operands, args, span) {
                        // A transfer that waited for the device writes the lines kernels
                        // printed before the host's next output, as `run`'s path does.
                        Some(r) => {
                            direct = true;
                            r.and_then(|()| interp.write_kernel_output(span))
                        }
                        None => Ok(()),
                    },
                );
            if direct || ok == 0 {
                return ok;
            }
        }
    }
    let mut values = vec![(*buf).clone(), (*arr).clone()];
    values.extend(object(stream));
    run(e, values, std::ptr::null_mut(), std::ptr::null_mut())
}

/// An operation without operands whose result is an object: `KernelStream.current()`,
/// `KernelStream.create()`, `Event.create()`, `Device.name()` (each its own symbol, this
/// body).
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_new_object(e: *const Expr, dst: *mut Value) -> i32 {
    run(e, Vec::new(), dst, std::ptr::null_mut())
}

/// An operation on one or two objects with no result or a scalar one (`*out`, may be
/// null): `s.sync()`, `s.destroy()`, `s.waitFor(ev)`, `ev.recordOn(s)`, `ev.waitHost()`,
/// `ev.query()`, `Event.elapsedMs(a, b)`, `Files.write(path, arr)`, `img.save(path)`,
/// `Files.imageWidth(path)`, `buf.free()`, `buf.length()`, `img.download(arr)`,
/// `img.imageWidth()`, `tex.upload(arr)`, `tex.width()`… (each its own symbol, this
/// body); `b` is null for one.
///
/// # Safety
/// As for [`run`]; `a` and a non-null `b` point to live values.
pub unsafe extern "C" fn cajeta_on_objects(
    e: *const Expr,
    a: *const Value,
    b: *const Value,
    out: *mut i64,
) -> i32 {
    let mut values = vec![(*a).clone()];
    values.extend(object(b));
    run(e, values, std::ptr::null_mut(), out)
}

/// An operation on one object with an object result: `Files.readFloats(path)` and its
/// kin, `Files.readImage(path)`.
///
/// # Safety
/// As for [`run`]; `a` points to a live value.
pub unsafe extern "C" fn cajeta_object_of(e: *const Expr, a: *const Value, dst: *mut Value) -> i32 {
    run(e, vec![(*a).clone()], dst, std::ptr::null_mut())
}

/// `Files.writeImage(path, arr, w, h)` / `writeImageRGBA`.
///
/// # Safety
/// As for [`run`]; `path` and `arr` point to live values.
pub unsafe extern "C" fn cajeta_write_image(
    e: *const Expr,
    path: *const Value,
    arr: *const Value,
    w: i64,
    h: i64,
) -> i32 {
    let values = vec![
        (*path).clone(),
        (*arr).clone(),
        scalar(e, 2, w),
        scalar(e, 3, h),
    ];
    run(e, values, std::ptr::null_mut(), std::ptr::null_mut())
}

/// `heap Image2D(w, h)`: `*dst` = a new image of `w` × `h` texels.
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_image_new(e: *const Expr, w: i64, h: i64, dst: *mut Value) -> i32 {
    run(
        e,
        vec![scalar(e, 0, w), scalar(e, 1, h)],
        dst,
        std::ptr::null_mut(),
    )
}

/// `buf.slice(offset, count)`: `*dst` = a view of `count` elements from `offset`.
///
/// # Safety
/// As for [`run`]; `buf` points to a live value.
pub unsafe extern "C" fn cajeta_buffer_slice(
    e: *const Expr,
    buf: *const Value,
    offset: i64,
    count: i64,
    dst: *mut Value,
) -> i32 {
    let values = vec![(*buf).clone(), scalar(e, 1, offset), scalar(e, 2, count)];
    run(e, values, dst, std::ptr::null_mut())
}

/// An operation on up to four integers with an object result: `heap Texture2D(w, h,
/// levels)` and the other texture shapes, `heap Sampler(filter, address)`,
/// `heap Buffer<T>(device, n)`; the operands
/// past the operation's own are zeros (each its own symbol, this body).
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_of_ints(
    e: *const Expr,
    a: i64,
    b: i64,
    c: i64,
    d: i64,
    dst: *mut Value,
) -> i32 {
    let n = match &(*e).kind {
        ExprKind::Host { args, .. } => args.len(),
        _ => 0,
    };
    let values = [a, b, c, d]
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, &bits)| scalar(e, i, bits))
        .collect();
    run(e, values, dst, std::ptr::null_mut())
}

/// An operation on one object whose other operand is a constant read from `e`:
/// `buf.allocate([kind])` (device memory for a buffer that has none),
/// `Comm.allReduce(data, how)` (each its own symbol, this body).
///
/// # Safety
/// As for [`run`]; `buf` points to a live value.
pub unsafe extern "C" fn cajeta_buffer_allocate(
    e: *const Expr,
    buf: *const Value,
    out: *mut i64,
) -> i32 {
    run(e, vec![(*buf).clone()], std::ptr::null_mut(), out)
}

/// An operation without operands with a scalar result or none: a device query
/// (`Device.waveSize()`, `memoryBytes()`…), `Device.count()`, `Device.current()`,
/// `Comm.rank()`, `Comm.size()`, `Comm.barrier()`… (each its own symbol, this body); the
/// result's bits to `*out`.
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_device_query(e: *const Expr, out: *mut i64) -> i32 {
    run(e, Vec::new(), std::ptr::null_mut(), out)
}

/// `Comm.broadcast(data, root)`.
///
/// # Safety
/// As for [`run`]; `data` points to a live value.
pub unsafe extern "C" fn cajeta_comm_broadcast(
    e: *const Expr,
    data: *const Value,
    root: i64,
    out: *mut i64,
) -> i32 {
    let values = vec![(*data).clone(), scalar(e, 1, root)];
    run(e, values, std::ptr::null_mut(), out)
}

/// `Comm.send(data, dest, tag)` / `Comm.recv(data, source, tag)`.
///
/// # Safety
/// As for [`run`]; `data` points to a live value.
pub unsafe extern "C" fn cajeta_comm_send_recv(
    e: *const Expr,
    data: *const Value,
    peer: i64,
    tag: i64,
    out: *mut i64,
) -> i32 {
    let values = vec![(*data).clone(), scalar(e, 1, peer), scalar(e, 2, tag)];
    run(e, values, std::ptr::null_mut(), out)
}

/// `Device.set(i)`.
///
/// # Safety
/// As for [`run`].
pub unsafe extern "C" fn cajeta_devices_set(e: *const Expr, i: i64, out: *mut i64) -> i32 {
    run(e, vec![scalar(e, 0, i)], std::ptr::null_mut(), out)
}

/// `tex.uploadLevel(level, arr)`.
///
/// # Safety
/// As for [`run`]; `tex` and `arr` point to live values.
pub unsafe extern "C" fn cajeta_texture_upload_level(
    e: *const Expr,
    tex: *const Value,
    level: i64,
    arr: *const Value,
    out: *mut i64,
) -> i32 {
    let values = vec![(*tex).clone(), scalar(e, 1, level), (*arr).clone()];
    run(e, values, std::ptr::null_mut(), out)
}

/// `Blas.gemm(a, [aLayout,] b, [bLayout,] c, m, n, k [, s])` (which form: `e`; the layouts
/// are constants read from it): `m`, `n`, `k` are the bits of those operands, `s` is null
/// when the call names no stream.
///
/// # Safety
/// As for [`run`]; `a`, `b`, `c` and a non-null `s` point to live values.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cajeta_gemm(
    e: *const Expr,
    a: *const Value,
    b: *const Value,
    c: *const Value,
    m: i64,
    n: i64,
    k: i64,
    s: *const Value,
) -> i32 {
    let dims = match &(*e).kind {
        ExprKind::Host { args, .. } => gemm_value_operands(args),
        _ => None,
    };
    let Some(dims) = dims.filter(|d| d.len() >= 6) else {
        return on_interp(|_| internal_fail((*e).span, "a gemm call of another operation"));
    };
    let dim = |x: &Expr, bits: i64| {
        x.ty.as_scalar()
            .and_then(|t| scalar_of(bits, t))
            .map_or(Value::Void, Value::Scalar)
    };
    let mut values = vec![(*a).clone(), (*b).clone(), (*c).clone()];
    values.extend([dim(dims[3], m), dim(dims[4], n), dim(dims[5], k)]);
    values.extend(object(s));
    run(e, values, std::ptr::null_mut(), std::ptr::null_mut())
}

/// `a[i]` of an array of objects (`args[i]` of a `String[]`, an element of an array of
/// buffers or arrays): `*dst` = the element, by the interpreter's own element load, with
/// its errors (a null array, an index out of bounds); `index` is the bits of `i`.
///
/// # Safety
/// `e` is an element load of the run's module; `base` points to a live value; `dst` is a
/// frame slot.
pub unsafe extern "C" fn cajeta_element_object(
    e: *const Expr,
    base: *const Value,
    index: i64,
    dst: *mut Value,
) -> i32 {
    let e = &*e;
    let ExprKind::Load(Place::Index { index: i, .. }) = &e.kind else {
        return on_interp(|_| internal_fail(e.span, "an element call of a non-element load"));
    };
    let Some(s) = i.ty.as_scalar() else {
        return on_interp(|_| internal_fail(e.span, "an index that is not a scalar"));
    };
    let i = Scalar::from_int_wrapping(i128::from(index), s);
    match load_element(&*base, i, e.span) {
        Ok(v) => {
            *dst = v;
            1
        }
        Err(err) => {
            super::runtime::record(*err);
            0
        }
    }
}

/// `[a, b, c]` of elements held in registers (scalars, vectors, matrices, PODs), whose
/// words are at `words` in order: `*dst` = the new array.
///
/// # Safety
/// As for [`run`]; `words` holds every element's words.
pub unsafe extern "C" fn cajeta_array_literal(
    e: *const Expr,
    words: *const i64,
    dst: *mut Value,
) -> i32 {
    let ExprKind::Host { args, .. } = &(*e).kind else {
        return on_interp(|_| internal_fail((*e).span, "a literal call of a non-literal"));
    };
    let mut w = Words::new(words);
    let values = args.iter().map(|a| w.value(&a.ty)).collect();
    run(e, values, dst, std::ptr::null_mut())
}

/// `System.nanoTime()`.
pub extern "C" fn cajeta_nano_time() -> i64 {
    crate::host::interp::nano_time()
}

/// Each typed call's symbol, LLVM signature (see `runtime::functions`) and address.
pub fn functions() -> Vec<(&'static str, &'static str, usize)> {
    let on_objects = cajeta_on_objects as *const () as usize;
    let new_object = cajeta_new_object as *const () as usize;
    let object_of = cajeta_object_of as *const () as usize;
    let of_ints = cajeta_of_ints as *const () as usize;
    let no_operands = cajeta_device_query as *const () as usize;
    vec![
        (
            "cajeta_array_new",
            "i(plp)",
            cajeta_array_new as *const () as usize,
        ),
        (
            "cajeta_buffer_new",
            "i(plp)",
            cajeta_buffer_new as *const () as usize,
        ),
        (
            "cajeta_buffer_upload",
            "i(pppp)",
            cajeta_buffer_upload as *const () as usize,
        ),
        (
            "cajeta_buffer_download",
            "i(pppp)",
            cajeta_buffer_download as *const () as usize,
        ),
        ("cajeta_stream_current", "i(pp)", new_object),
        ("cajeta_stream_create", "i(pp)", new_object),
        ("cajeta_event_create", "i(pp)", new_object),
        ("cajeta_stream_sync", "i(pppp)", on_objects),
        ("cajeta_stream_destroy", "i(pppp)", on_objects),
        ("cajeta_stream_wait_event", "i(pppp)", on_objects),
        ("cajeta_event_record", "i(pppp)", on_objects),
        ("cajeta_event_wait_host", "i(pppp)", on_objects),
        ("cajeta_event_query", "i(pppp)", on_objects),
        ("cajeta_event_elapsed", "i(pppp)", on_objects),
        ("cajeta_file_write", "i(pppp)", on_objects),
        ("cajeta_image_save", "i(pppp)", on_objects),
        ("cajeta_image_file_size", "i(pppp)", on_objects),
        ("cajeta_file_read", "i(ppp)", object_of),
        ("cajeta_read_image", "i(ppp)", object_of),
        (
            "cajeta_write_image",
            "i(pppll)",
            cajeta_write_image as *const () as usize,
        ),
        (
            "cajeta_nano_time",
            "l()",
            cajeta_nano_time as *const () as usize,
        ),
        (
            "cajeta_image_new",
            "i(pllp)",
            cajeta_image_new as *const () as usize,
        ),
        (
            "cajeta_buffer_slice",
            "i(ppllp)",
            cajeta_buffer_slice as *const () as usize,
        ),
        ("cajeta_buffer_free", "i(pppp)", on_objects),
        ("cajeta_buffer_length", "i(pppp)", on_objects),
        ("cajeta_image_download", "i(pppp)", on_objects),
        ("cajeta_image_size", "i(pppp)", on_objects),
        ("cajeta_texture_new", "i(pllllp)", of_ints),
        ("cajeta_sampler_new", "i(pllllp)", of_ints),
        ("cajeta_legacy_buffer_new", "i(pllllp)", of_ints),
        ("cajeta_device_query_text", "i(pp)", new_object),
        ("cajeta_devices_all", "i(pp)", new_object),
        ("cajeta_devices_int", "i(pp)", no_operands),
        ("cajeta_comm_int", "i(pp)", no_operands),
        (
            "cajeta_devices_set",
            "i(plp)",
            cajeta_devices_set as *const () as usize,
        ),
        ("cajeta_devices_copy", "i(pppp)", on_objects),
        ("cajeta_comm_all_gather", "i(pppp)", on_objects),
        (
            "cajeta_comm_all_reduce",
            "i(ppp)",
            cajeta_buffer_allocate as *const () as usize,
        ),
        (
            "cajeta_comm_broadcast",
            "i(pplp)",
            cajeta_comm_broadcast as *const () as usize,
        ),
        (
            "cajeta_comm_send_recv",
            "i(ppllp)",
            cajeta_comm_send_recv as *const () as usize,
        ),
        ("cajeta_device_query", "i(pp)", no_operands),
        (
            "cajeta_buffer_allocate",
            "i(ppp)",
            cajeta_buffer_allocate as *const () as usize,
        ),
        ("cajeta_texture_upload", "i(pppp)", on_objects),
        (
            "cajeta_texture_upload_level",
            "i(pplpp)",
            cajeta_texture_upload_level as *const () as usize,
        ),
        ("cajeta_texture_size", "i(pppp)", on_objects),
        (
            "cajeta_gemm",
            "i(pppplllp)",
            cajeta_gemm as *const () as usize,
        ),
        (
            "cajeta_array_literal",
            "i(ppp)",
            cajeta_array_literal as *const () as usize,
        ),
        (
            "cajeta_element_object",
            "i(pplp)",
            cajeta_element_object as *const () as usize,
        ),
        (
            "cajeta_launch",
            "i(ppp)",
            cajeta_launch as *const () as usize,
        ),
    ]
}
