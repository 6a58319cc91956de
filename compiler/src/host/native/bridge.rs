//! The bridge between native frames and the interpreter: what native host code does not
//! lower itself (device work, files, array allocation, nested arrays…) it hands to the
//! run's [`Interp`], one expression or statement at a time.
//!
//! Each native function that needs it owns a *frame*: the interpreter's [`Frame`] (one
//! [`Value`] per local, then temporaries), allocated by `cajeta_frame_new` and freed on every
//! return. Locals of object types (arrays, strings, resources, `bfloat16`) live only
//! there. Scalar locals live in LLVM registers (vectors, matrices and PODs too, crossing as
//! in `words.rs`); before a delegated expression the generated code copies the ones it
//! reads into the frame (`cajeta_frame_set_*`), and afterwards reads back the ones it
//! stored (`cajeta_frame_get_*`). Delegated expressions
//! and statements are passed by address (`*const Expr` / `*const Stmt` into the IR module,
//! which outlives the run).
//!
//! Arrays of native scalars are also read and written in place: `cajeta_array_view` gives
//! the data pointer and length of the array a local holds, which stay valid while the local
//! holds it (host arrays never change length). Every function here returns 1 on success and
//! 0 after recording a runtime error; the generated code then unwinds.

use std::cell::{Cell, RefCell};

use super::handoff_log;
use super::runtime::{self, state};
use crate::host::interp::{Array, Fail, Frame, HostError, Interp, Scalar, Value};
use crate::ir::{Expr, ScalarType, Stmt};

/// The code of a scalar type passed to the frame setters: its index in
/// [`ScalarType::ALL`].
pub fn scalar_code(s: ScalarType) -> u64 {
    ScalarType::ALL.iter().position(|&t| t == s).unwrap_or(0) as u64
}

/// The scalar type of a code from [`scalar_code`].
pub fn scalar_of_code(code: i32) -> ScalarType {
    ScalarType::ALL
        .get(code as usize)
        .copied()
        .unwrap_or(ScalarType::I64)
}

/// An array's storage as native code sees it: `{ ptr, i64 }`; `len` is -1 when the local
/// holds no array (`null`).
#[repr(C)]
pub struct ArrayView {
    data: *mut u8,
    len: i64,
}

thread_local! {
    /// Hand-offs to the interpreter on this thread so far (see [`handoffs`]).
    static HANDOFFS: Cell<u64> = const { Cell::new(0) };
}

/// How many expressions and statements native code has handed to the interpreter on this
/// thread so far (each call of `cajeta_eval_*` / `cajeta_exec`): a run's count is the
/// difference across it, what `CAJETA_HOST_TIMING=1` reports, and 0 for code that is native
/// throughout.
pub fn handoffs() -> u64 {
    HANDOFFS.with(Cell::get)
}

/// Runs `f` on the run's interpreter; a failure is recorded and gives 0. A panic (a bug)
/// must not unwind into native frames: it becomes an internal error.
fn with_interp(f: impl FnOnce(&mut Interp<'static>) -> Result<(), Fail>) -> i32 {
    HANDOFFS.with(|h| h.set(h.get() + 1));
    on_interp(f)
}

/// Runs `f` on the run's interpreter as [`with_interp`] does, without counting a hand-off:
/// for the typed calls that run one operation on values native code computed
/// (`device_calls.rs`), not a tree walk.
pub(super) fn on_interp(f: impl FnOnce(&mut Interp<'static>) -> Result<(), Fail>) -> i32 {
    let interp = state(|s| s.interp.cast::<Interp<'static>>());
    let Some(interp) = interp else { return 0 };
    // SAFETY: `interp` outlives the run (see `runtime::with_state`), and native code calls
    // the bridge one call at a time on the run's thread.
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(unsafe { &mut *interp })));
    match result {
        Ok(Ok(())) => 1,
        Ok(Err(e)) => {
            runtime::record(*e);
            0
        }
        Err(_) => {
            runtime::record(HostError {
                message: "internal error: the host interpreter panicked".into(),
                span: None,
                launch: None,
                notes: Vec::new(),
            });
            0
        }
    }
}

/// A new frame of `n` slots.
pub extern "C" fn cajeta_frame_new(n: i64) -> *mut Frame {
    Box::into_raw(Box::new(vec![Value::Void; n.max(0) as usize]))
}

/// Frees a frame (and drops what its slots hold).
///
/// # Safety
/// `f` came from `cajeta_frame_new` and is not used again.
pub unsafe extern "C" fn cajeta_frame_free(f: *mut Frame) {
    drop(Box::from_raw(f));
}

/// # Safety
/// `f` is a live frame and `slot` one of its slots (the generated code sizes frames).
unsafe fn slot<'a>(f: *mut Frame, slot: i64) -> &'a mut Value {
    &mut (&mut *f)[slot as usize]
}

/// The size of a frame slot: the stride of the slots from [`cajeta_frame_base`].
pub const SLOT_BYTES: u64 = std::mem::size_of::<Value>() as u64;

/// The address of the frame's first slot. Slot `s` is at `s * SLOT_BYTES` from it for as
/// long as the frame lives: a frame keeps the length `cajeta_frame_new` gave it (nothing
/// pushes to or truncates a native frame), so its storage never moves. The generated code
/// takes object arguments of native calls there (the callee clones them).
///
/// # Safety
/// `f` is a live frame.
pub unsafe extern "C" fn cajeta_frame_base(f: *mut Frame) -> *mut Value {
    (&mut *f).as_mut_ptr()
}

/// `f[s] = *v` (a clone: objects are shared by reference).
///
/// # Safety
/// As for [`slot`]; `v` points to a live value.
pub unsafe extern "C" fn cajeta_frame_set_value(f: *mut Frame, s: i64, v: *const Value) {
    *slot(f, s) = (*v).clone();
}

/// `f[to] = f[from]`.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_copy(f: *mut Frame, from: i64, to: i64) {
    let v = slot(f, from).clone();
    *slot(f, to) = v;
}

/// Moves `f[s]` out into a box (an object result of a native function).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_take(f: *mut Frame, s: i64) -> *mut Value {
    Box::into_raw(Box::new(std::mem::replace(slot(f, s), Value::Void)))
}

/// `f[s] = *v`, taking the box `v` (null: `null`).
///
/// # Safety
/// As for [`slot`]; `v` came from `cajeta_frame_take` or is null.
pub unsafe extern "C" fn cajeta_frame_put(f: *mut Frame, s: i64, v: *mut Value) {
    *slot(f, s) = if v.is_null() {
        Value::Void
    } else {
        *Box::from_raw(v)
    };
}

/// Drops a boxed value (an object result nobody uses).
///
/// # Safety
/// `v` came from `cajeta_frame_take` or is null.
pub unsafe extern "C" fn cajeta_value_drop(v: *mut Value) {
    if !v.is_null() {
        drop(Box::from_raw(v));
    }
}

/// `f[s] = null` (a temporary is done with).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_clear(f: *mut Frame, s: i64) {
    *slot(f, s) = Value::Void;
}

/// `f[s] = ` the integer (or boolean) `v` of scalar type `code`.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_set_int(f: *mut Frame, s: i64, v: i64, code: i32) {
    let ty = scalar_of_code(code);
    *slot(f, s) = Value::Scalar(Scalar::from_int_wrapping(i128::from(v), ty));
}

/// `f[s] = ` the float `v` (exactly widened) of scalar type `code`.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_set_f64(f: *mut Frame, s: i64, v: f64, code: i32) {
    let ty = scalar_of_code(code);
    *slot(f, s) = Scalar::from_float(v, ty).map_or(Value::Void, Value::Scalar);
}

fn int_bits(v: &Value) -> i64 {
    match v {
        Value::Scalar(s) => match (s.as_bool(), s.as_int()) {
            (Some(b), _) => i64::from(b),
            (_, Some(i)) => i as i64,
            _ => 0,
        },
        _ => 0,
    }
}

fn float_bits(v: &Value) -> f64 {
    v.as_scalar().and_then(Scalar::as_float).unwrap_or(0.0)
}

/// The integer in `f[s]` (sign- or zero-extended by its type).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_get_int(f: *mut Frame, s: i64) -> i64 {
    int_bits(slot(f, s))
}

/// The float in `f[s]`, widened exactly.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_get_f64(f: *mut Frame, s: i64) -> f64 {
    float_bits(slot(f, s))
}

/// The storage of the array in `f[s]`: element data (`f32` for `float16`, one byte per
/// `boolean`) and length, or length -1 when the slot holds no scalar array.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_array_view(f: *mut Frame, s: i64) -> ArrayView {
    let none = ArrayView {
        data: std::ptr::null_mut(),
        len: -1,
    };
    let Value::Array(a) = slot(f, s) else {
        return none;
    };
    // The pointer outlives this borrow: the local keeps the array alive, and its storage
    // never moves (arrays have a fixed length; nothing replaces an array's storage).
    let a: &RefCell<Array> = a;
    let array = &mut *a.as_ptr();
    fn view<T>(v: &mut [T]) -> ArrayView {
        ArrayView {
            data: v.as_mut_ptr().cast(),
            len: v.len() as i64,
        }
    }
    match array {
        Array::Bool(v) => view(v),
        Array::I8(v) => view(v),
        Array::I16(v) => view(v),
        Array::I32(v) => view(v),
        Array::I64(v) => view(v),
        Array::U8(v) => view(v),
        Array::U16(v) => view(v),
        Array::U32(v) => view(v),
        Array::U64(v) => view(v),
        // float16 and bfloat16 values are stored as the `f32` they equal.
        Array::F16(v) | Array::F32(v) | Array::BF16(v) => view(v),
        Array::F64(v) => view(v),
        Array::Flat(f) => ArrayView {
            data: f.data_mut(),
            len: f.len() as i64,
        },
        Array::Values(_) => none,
    }
}

/// The length of the array in `f[s]`, -1 when the slot holds none (`null`): `.length` of an
/// array that has no [`ArrayView`] (arrays of vectors, matrices, PODs).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_array_len(f: *mut Frame, s: i64) -> i64 {
    match slot(f, s) {
        Value::Array(a) => a.try_borrow().map_or(0, |a| a.len() as i64),
        _ => -1,
    }
}

/// Counts the hand-off of `e` by kind when `CAJETA_HOST_HANDOFFS` asks for it.
///
/// # Safety
/// `e` points into the run's IR module.
unsafe fn log_expr(e: *const Expr) {
    if handoff_log::enabled() {
        handoff_log::record(handoff_log::expr_kind(&*e));
    }
}

/// Evaluates `e` (an integer or boolean) in frame `f` into `*out`.
///
/// # Safety
/// `f` is a live frame of the function `e` belongs to; `out` is writable.
pub unsafe extern "C" fn cajeta_eval_int(f: *mut Frame, e: *const Expr, out: *mut i64) -> i32 {
    log_expr(e);
    with_interp(|i| {
        *out = int_bits(&i.eval(&mut *f, &*e)?);
        Ok(())
    })
}

/// Evaluates `e` (a float) in frame `f` into `*out`, widened exactly.
///
/// # Safety
/// As for [`cajeta_eval_int`].
pub unsafe extern "C" fn cajeta_eval_f64(f: *mut Frame, e: *const Expr, out: *mut f64) -> i32 {
    log_expr(e);
    with_interp(|i| {
        *out = float_bits(&i.eval(&mut *f, &*e)?);
        Ok(())
    })
}

/// Evaluates `e` in frame `f` into slot `s`.
///
/// # Safety
/// As for [`cajeta_eval_int`] and [`slot`].
pub unsafe extern "C" fn cajeta_eval_into(f: *mut Frame, e: *const Expr, s: i64) -> i32 {
    log_expr(e);
    with_interp(|i| {
        let v = i.eval(&mut *f, &*e)?;
        *slot(f, s) = v;
        Ok(())
    })
}

/// Evaluates `e` in frame `f` for its effects.
///
/// # Safety
/// As for [`cajeta_eval_int`].
pub unsafe extern "C" fn cajeta_eval_void(f: *mut Frame, e: *const Expr) -> i32 {
    log_expr(e);
    with_interp(|i| i.eval(&mut *f, &*e).map(drop))
}

/// Runs statement `st` (a store the generated code does not do itself) in frame `f`.
///
/// # Safety
/// As for [`cajeta_eval_int`].
pub unsafe extern "C" fn cajeta_exec(f: *mut Frame, st: *const Stmt) -> i32 {
    if handoff_log::enabled() {
        handoff_log::record(handoff_log::stmt_kind(&*st));
    }
    with_interp(|i| i.exec_stmt(&mut *f, &*st).map(drop))
}

/// Each bridge function's symbol, LLVM signature (see `runtime::functions`; `a`: an
/// [`ArrayView`] returned by value) and address.
pub fn functions() -> Vec<(&'static str, &'static str, usize)> {
    vec![
        (
            "cajeta_frame_new",
            "p(l)",
            cajeta_frame_new as *const () as usize,
        ),
        (
            "cajeta_frame_free",
            "v(p)",
            cajeta_frame_free as *const () as usize,
        ),
        (
            "cajeta_frame_base",
            "p(p)",
            cajeta_frame_base as *const () as usize,
        ),
        (
            "cajeta_frame_set_value",
            "v(plp)",
            cajeta_frame_set_value as *const () as usize,
        ),
        (
            "cajeta_frame_copy",
            "v(pll)",
            cajeta_frame_copy as *const () as usize,
        ),
        (
            "cajeta_frame_take",
            "p(pl)",
            cajeta_frame_take as *const () as usize,
        ),
        (
            "cajeta_frame_put",
            "v(plp)",
            cajeta_frame_put as *const () as usize,
        ),
        (
            "cajeta_value_drop",
            "v(p)",
            cajeta_value_drop as *const () as usize,
        ),
        (
            "cajeta_frame_clear",
            "v(pl)",
            cajeta_frame_clear as *const () as usize,
        ),
        (
            "cajeta_frame_set_int",
            "v(plli)",
            cajeta_frame_set_int as *const () as usize,
        ),
        (
            "cajeta_frame_set_f64",
            "v(pldi)",
            cajeta_frame_set_f64 as *const () as usize,
        ),
        (
            "cajeta_frame_get_int",
            "l(pl)",
            cajeta_frame_get_int as *const () as usize,
        ),
        (
            "cajeta_frame_get_f64",
            "d(pl)",
            cajeta_frame_get_f64 as *const () as usize,
        ),
        (
            "cajeta_array_view",
            "a(pl)",
            cajeta_array_view as *const () as usize,
        ),
        (
            "cajeta_array_len",
            "l(pl)",
            cajeta_array_len as *const () as usize,
        ),
        (
            "cajeta_eval_int",
            "i(ppp)",
            cajeta_eval_int as *const () as usize,
        ),
        (
            "cajeta_eval_f64",
            "i(ppp)",
            cajeta_eval_f64 as *const () as usize,
        ),
        (
            "cajeta_eval_into",
            "i(ppl)",
            cajeta_eval_into as *const () as usize,
        ),
        (
            "cajeta_eval_void",
            "i(pp)",
            cajeta_eval_void as *const () as usize,
        ),
        ("cajeta_exec", "i(pp)", cajeta_exec as *const () as usize),
        (
            "cajeta_index_fail",
            "v(ilil)",
            runtime::cajeta_index_fail as *const () as usize,
        ),
    ]
}
