//! The C-ABI functions native code calls for strings, `printf` and `parse…`: typed calls on
//! the frame slots that hold the strings, never a tree walk of the interpreter (they do not
//! count as hand-offs, see `bridge::handoffs`).
//!
//! A string is the reference-counted [`Text`] of both executors (an `Rc<String>`), and a
//! native function keeps the ones it works on in its frame, one slot per string local and
//! temporary, so their lifetime is the slot's: a store or `cajeta_frame_clear` drops the
//! reference, the frame's end drops the rest. Building a string appends to a slot that
//! holds it alone, in place (`"item-" + i + ":" + j` is one allocation plus growth); a
//! string another slot also holds is copied first, so nothing else sees it change.
//!
//! The text is the interpreter's, from the same functions: numbers through the values'
//! `Display` (Java's `Float.toString` / `Double.toString`, `host::format`), `printf`
//! through `printf::printf_text`, the `String` methods through `strings::method`, parsing
//! through `printf::parse_value`. Calls that can fail return 1, or 0 after recording the
//! runtime error at the expression passed in (`*const Expr`, also what tells them which
//! method or parse it is).

use std::io::Write;

use super::bridge::scalar_of_code;
use super::runtime::{record, state, write, NStr};
use super::scalar_fns::bits_of;
use crate::host::format::int_text;
use crate::host::format::printf::{parse_value, printf_text};
use crate::host::interp::strings::{method, utf16_len};
use crate::host::interp::{append, append_text, Frame, HostError, Scalar, Text, Value};
use crate::ir::{Expr, ExprKind, HostOp};

/// # Safety
/// `f` is a live frame and `s` one of its slots (the generated code sizes frames).
unsafe fn slot<'a>(f: *mut Frame, s: i64) -> &'a mut Value {
    &mut (&mut *f)[s as usize]
}

/// # Safety
/// `p` points to a string constant of the module.
unsafe fn text<'a>(p: *const NStr) -> &'a str {
    let s = &*p;
    if s.len == 0 {
        return "";
    }
    // The constants are made from Rust strings (`Codegen::literal`), so they are UTF-8.
    std::str::from_utf8_unchecked(std::slice::from_raw_parts(s.data, s.len))
}

/// Records `message` as the runtime error of expression `e`; gives the failure status.
fn fail(e: &Expr, message: String) -> i32 {
    record(HostError {
        message,
        span: Some(e.span),
        launch: None,
        notes: Vec::new(),
    });
    0
}

/// `f[d] = ` a new string of literal `p`, with room to grow (it usually starts a
/// concatenation). When the slot holds the only reference to a string (a local rebuilt on
/// every iteration of a loop, `s = "item-" + i`), that string's allocation is reused: no
/// other holder can see the change, and the loop allocates nothing after its first pass.
/// A string grown far past the literal is not kept, so one long string does not pin
/// memory for the rest of the frame.
///
/// # Safety
/// As for [`slot`] and [`text`].
pub unsafe extern "C" fn cajeta_str_literal(f: *mut Frame, d: i64, p: *const NStr) {
    let t = text(p);
    let dst = slot(f, d);
    if let Value::Str(old) = dst {
        if let Some(s) = old.unique_mut() {
            if s.capacity() <= REUSE_LIMIT.max(4 * t.len()) {
                s.clear();
                s.push_str(t);
                return;
            }
        }
    }
    let mut s = String::with_capacity((t.len() * 2).max(32));
    s.push_str(t);
    *dst = Value::Str(Text::from(s));
}

/// The largest capacity (bytes) of a string [`cajeta_str_literal`] reuses for a short literal.
const REUSE_LIMIT: usize = 4096;

/// `f[d] = f[d] + ` literal `p`.
///
/// # Safety
/// As for [`cajeta_str_literal`].
pub unsafe extern "C" fn cajeta_str_push_str(f: *mut Frame, d: i64, p: *const NStr) {
    append_text(slot(f, d), text(p));
}

/// `f[d] = f[d] + v`, `v` an integer or boolean of scalar type `code` (see
/// `bridge::scalar_code`). An integer's digits are written by `format::int_text` straight
/// into the string (in place when the slot holds it alone).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_str_push_int(f: *mut Frame, d: i64, v: i64, code: i32) {
    let x = Scalar::from_int_wrapping(i128::from(v), scalar_of_code(code));
    match x.as_int() {
        Some(i) => append_text(slot(f, d), int_text(i, &mut [0; 40])),
        None => append(slot(f, d), &Value::Scalar(x)),
    }
}

/// `f[d] = f[d] + v`, `v` a float of scalar type `code`, exactly widened.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_str_push_f64(f: *mut Frame, d: i64, v: f64, code: i32) {
    let x = Scalar::from_float(v, scalar_of_code(code)).map_or(Value::Void, Value::Scalar);
    append(slot(f, d), &x);
}

/// `f[d] = f[d] + f[s]` (any value: its text as `+` writes it).
///
/// # Safety
/// As for [`slot`]; `d != s`.
pub unsafe extern "C" fn cajeta_str_push_slot(f: *mut Frame, d: i64, s: i64) {
    let frame: &mut Frame = &mut *f;
    let v = frame[s as usize].clone();
    append(&mut frame[d as usize], &v);
}

/// `f[to] = f[from]`, leaving `f[from]` null (a finished temporary given to a local).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_frame_move(f: *mut Frame, from: i64, to: i64) {
    let v = std::mem::replace(slot(f, from), Value::Void);
    *slot(f, to) = v;
}

/// `f[a] == f[b]` on objects: the text of strings, the identity of anything else (as the
/// interpreter's `Value::same`); 1 or 0.
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_same(f: *mut Frame, a: i64, b: i64) -> i32 {
    i32::from(slot(f, a).same(slot(f, b)))
}

/// The `String` method call `e` on the receiver in `f[recv]` and the arguments in `f[a1]`
/// and `f[a2]` (-1: none): a scalar result goes to `*out` as a 64-bit pattern (see
/// `scalar_fns`), a string to `f[dst]`.
///
/// # Safety
/// `e` is a `String` method call of the run's IR module; the slots are the frame's; `out` is
/// writable.
pub unsafe extern "C" fn cajeta_str_method(
    f: *mut Frame,
    e: *const Expr,
    recv: i64,
    a1: i64,
    a2: i64,
    dst: i64,
    out: *mut i64,
) -> i32 {
    let e = &*e;
    let ExprKind::Host {
        op: HostOp::StringMethod(op),
        ..
    } = &e.kind
    else {
        return fail(e, "internal error: not a String method".into());
    };
    // Receiver and at most two arguments: no allocation for the list.
    let mut args = [Value::Void, Value::Void, Value::Void];
    let mut n = 0;
    for s in [recv, a1, a2] {
        if s >= 0 {
            args[n] = slot(f, s).clone();
            n += 1;
        }
    }
    match method(*op, &args[..n], e.span) {
        Ok(Value::Scalar(x)) => {
            *out = bits_of(x);
            1
        }
        Ok(v) => {
            *slot(f, dst) = v;
            1
        }
        Err(err) => {
            record(*err);
            0
        }
    }
}

/// `s.length()` (`e`) of the string in `f[recv]` into `*out`: the length read directly, or,
/// for a receiver that is not a string (`null`), the error of the general method call.
///
/// # Safety
/// As for [`cajeta_str_method`].
pub unsafe extern "C" fn cajeta_str_length(
    f: *mut Frame,
    e: *const Expr,
    recv: i64,
    out: *mut i64,
) -> i32 {
    if let Value::Str(t) = slot(f, recv) {
        *out = utf16_len(t) as i32 as i64;
        return 1;
    }
    cajeta_str_method(f, e, recv, -1, -1, -1, out)
}

/// `Integer.parseInt` or its kin (`e`) of the string in `f[s]` into `*out` (an integer
/// sign-extended, a float widened exactly to `double`'s bits).
///
/// # Safety
/// `e` is a parse call of the run's IR module; as for [`slot`]; `out` is writable.
pub unsafe extern "C" fn cajeta_parse(f: *mut Frame, e: *const Expr, s: i64, out: *mut i64) -> i32 {
    let e = &*e;
    let ExprKind::Host { op, .. } = &e.kind else {
        return fail(e, "internal error: not a parse".into());
    };
    match parse_value(*op, slot(f, s)) {
        Ok(x) => {
            *out = bits_of(x);
            1
        }
        Err(m) => fail(e, m),
    }
}

/// `System.out.printf` (`e`) of the format in `f[first]` and the `n - 1` arguments in the
/// slots after it.
///
/// # Safety
/// `e` is the printf call; slots `first..first + n` are the frame's.
pub unsafe extern "C" fn cajeta_printf(f: *mut Frame, e: *const Expr, first: i64, n: i64) -> i32 {
    let e = &*e;
    let frame: &Frame = &*f;
    let values = &frame[first as usize..(first + n) as usize];
    match printf_text(values) {
        Ok(t) => print_checked(e, t.as_bytes()),
        Err(m) => fail(e, m),
    }
}

/// Prints the value in `f[s]` as `System.out.print` does (a string as it is, `null`, an
/// array's elements…); 0 when writing failed (the caller reports it at its site).
///
/// # Safety
/// As for [`slot`].
pub unsafe extern "C" fn cajeta_print_slot(f: *mut Frame, s: i64) -> i32 {
    match slot(f, s) {
        Value::Str(t) => write(t.as_bytes()),
        other => {
            let mut buf = Vec::new();
            let _ = write!(buf, "{other}");
            write(&buf)
        }
    }
}

/// Writes `bytes` to the run's output; a failure is the interpreter's error at `e`.
fn print_checked(e: &Expr, bytes: &[u8]) -> i32 {
    if write(bytes) == 1 {
        return 1;
    }
    let io = state(|s| s.write_error.clone()).flatten();
    fail(
        e,
        format!(
            "cannot write to standard output: {}",
            io.as_deref().unwrap_or("error")
        ),
    )
}

/// This file's C-ABI functions (see `runtime::functions`).
pub fn functions() -> Vec<(&'static str, &'static str, usize)> {
    vec![
        (
            "cajeta_str_literal",
            "v(plp)",
            cajeta_str_literal as *const () as usize,
        ),
        (
            "cajeta_str_push_str",
            "v(plp)",
            cajeta_str_push_str as *const () as usize,
        ),
        (
            "cajeta_str_push_int",
            "v(plli)",
            cajeta_str_push_int as *const () as usize,
        ),
        (
            "cajeta_str_push_f64",
            "v(pldi)",
            cajeta_str_push_f64 as *const () as usize,
        ),
        (
            "cajeta_str_push_slot",
            "v(pll)",
            cajeta_str_push_slot as *const () as usize,
        ),
        (
            "cajeta_frame_move",
            "v(pll)",
            cajeta_frame_move as *const () as usize,
        ),
        ("cajeta_same", "i(pll)", cajeta_same as *const () as usize),
        (
            "cajeta_str_method",
            "i(ppllllp)",
            cajeta_str_method as *const () as usize,
        ),
        (
            "cajeta_str_length",
            "i(pplp)",
            cajeta_str_length as *const () as usize,
        ),
        (
            "cajeta_parse",
            "i(pplp)",
            cajeta_parse as *const () as usize,
        ),
        (
            "cajeta_printf",
            "i(ppll)",
            cajeta_printf as *const () as usize,
        ),
        (
            "cajeta_print_slot",
            "i(pl)",
            cajeta_print_slot as *const () as usize,
        ),
    ]
}
