//! The small C-ABI runtime native host code calls: printing and runtime errors
//! (the frames and the calls into the interpreter are in `bridge.rs`).
//!
//! Generated code only does arithmetic, arrays and control flow itself; everything that
//! formats text or needs the run's state goes through these `extern "C"` functions, which
//! the JIT maps by address (`ExecutionEngine::add_global_mapping`), so no symbol has to be
//! exported from the executable. The state of the run (the interpreter whose output and
//! device it shares, the error) lives in a thread-local [`State`] installed by
//! [`with_state`] on the thread that runs the code.
//!
//! Printed string literals are pointers to an [`NStr`] (data, length), constants of the
//! LLVM module; every other string is an object of the frame (`repr.rs`).

use std::cell::RefCell;

use crate::diagnostics::Span;
use crate::host::format::{int_text, java_f32, java_f64, IntBuf};
use crate::host::interp::{HostError, Interp};

/// A string as native code sees it: `{ ptr, i64 }` in LLVM IR.
#[repr(C)]
pub struct NStr {
    /// UTF-8 bytes.
    pub data: *const u8,
    /// Their number.
    pub len: usize,
}

impl NStr {
    /// The bytes of the string `p` points to.
    ///
    /// # Safety
    /// `p` is a string value of native code: a module constant or one owned by the state.
    unsafe fn bytes<'a>(p: *const NStr) -> &'a [u8] {
        let s = &*p;
        if s.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(s.data, s.len)
        }
    }
}

/// What a runtime-error site of the generated code means.
#[derive(Debug, Clone)]
pub enum SiteKind {
    /// Integer `/` by zero.
    Division,
    /// Integer `%` by zero.
    Remainder,
    /// A call deeper than `MAX_CALL_DEPTH`; the callee's simple name.
    Recursion(String),
    /// An array index out of range (the message is built by `cajeta_index_fail`).
    Index,
    /// `.length` of a null array.
    NullLength,
    /// Writing to standard output failed.
    Write,
}

/// A place in the generated code that can fail, by index (`cajeta_fail(i32 site)`).
#[derive(Debug, Clone)]
pub struct Site {
    /// What fails there.
    pub kind: SiteKind,
    /// The expression or statement, as the interpreter reports it.
    pub span: Span,
}

impl Site {
    /// The interpreter's message for the same failure, word for word.
    fn error(&self, write_error: Option<&str>) -> HostError {
        use crate::host::interp::MAX_CALL_DEPTH;
        let message = match &self.kind {
            SiteKind::Division => "integer division by zero".to_string(),
            SiteKind::Remainder => "integer remainder by zero".to_string(),
            SiteKind::Recursion(name) => format!(
                "recursion too deep: more than {MAX_CALL_DEPTH} nested host calls (in `{name}`)"
            ),
            SiteKind::Index => "array index out of bounds".to_string(),
            SiteKind::NullLength => "`.length` of a null array".to_string(),
            SiteKind::Write => format!(
                "cannot write to standard output: {}",
                write_error.unwrap_or("error")
            ),
        };
        HostError {
            message,
            span: Some(self.span),
            launch: None,
            notes: Vec::new(),
        }
    }
}

/// The state of one native run.
pub struct State<'w> {
    /// The interpreter of the run: its output, its device, and what native code delegates.
    pub interp: *mut Interp<'w>,
    sites: Vec<Site>,
    /// The last failed write's error (the message of a write failure).
    pub write_error: Option<String>,
    /// The first runtime error; the generated code unwinds to its entry after setting it.
    pub error: Option<HostError>,
}

thread_local! {
    /// The running program's state: the pointer of a `State` borrowed by `with_state`.
    static STATE: RefCell<Option<*mut State<'static>>> = const { RefCell::new(None) };
}

/// Runs `f` with a fresh state over `interp`; returns `f`'s result and the error the
/// program stopped with, if any.
pub fn with_state<R>(
    interp: &mut Interp<'_>,
    sites: Vec<Site>,
    f: impl FnOnce() -> R,
) -> (R, Option<HostError>) {
    let mut state = State {
        interp: interp as *mut Interp<'_>,
        sites,
        write_error: None,
        error: None,
    };
    // The pointer only lives while `state` does: it is removed again before returning.
    let ptr = (&mut state as *mut State<'_>).cast::<State<'static>>();
    STATE.with(|s| *s.borrow_mut() = Some(ptr));
    let r = f();
    STATE.with(|s| *s.borrow_mut() = None);
    (r, state.error.take())
}

/// Runs `f` on the current state (callbacks run only inside `with_state`).
pub(super) fn state<R>(f: impl FnOnce(&mut State<'static>) -> R) -> Option<R> {
    let ptr = STATE.with(|s| *s.borrow())?;
    // SAFETY: set by `with_state` to a state that outlives the run, and the callbacks are
    // never re-entered (native code is single-threaded and calls them one at a time).
    Some(f(unsafe { &mut *ptr }))
}

/// Writes `bytes` to the run's standard output; 0 after recording a write error.
pub(super) fn write(bytes: &[u8]) -> i32 {
    // SAFETY: `interp` outlives the run (see `with_state`).
    state(|s| match unsafe { (*s.interp).out.write_all(bytes) } {
        Ok(()) => 1,
        Err(e) => {
            s.write_error = Some(e.to_string());
            0
        }
    })
    .unwrap_or(0)
}

/// The text of an integer passed as 64 bits (`unsigned` != 0: the bits of a `uint64`).
fn int_bits_text(v: i64, unsigned: i32, buf: &mut IntBuf) -> &str {
    if unsigned != 0 {
        int_text(i128::from(v as u64), buf)
    } else {
        int_text(i128::from(v), buf)
    }
}

/// Records the runtime error of `site` (the first one wins).
pub extern "C" fn cajeta_fail(site: i32) {
    state(|s| {
        if s.error.is_none() {
            let e = s
                .sites
                .get(site as usize)
                .map(|site| site.error(s.write_error.as_deref()));
            s.error = e.or_else(|| {
                Some(HostError {
                    message: format!("internal error: unknown failure site {site}"),
                    span: None,
                    launch: None,
                    notes: Vec::new(),
                })
            });
        }
    });
}

/// Records `e` as the run's error unless one was recorded already.
pub(super) fn record(e: HostError) {
    state(|s| {
        if s.error.is_none() {
            s.error = Some(e);
        }
    });
}

/// Records the out-of-range error of an array access at `site`, worded as the
/// interpreter's: `len` is -1 when the array is `null`; `unsigned` != 0 when `index` holds
/// the bits of a `uint64`.
pub extern "C" fn cajeta_index_fail(site: i32, index: i64, unsigned: i32, len: i64) {
    let span = state(|s| s.sites.get(site as usize).map(|s| s.span)).flatten();
    let message = if len < 0 {
        "indexing a null array".to_string()
    } else {
        let mut buf = [0; 40];
        let index = int_bits_text(index, unsigned, &mut buf);
        format!("array index {index} out of bounds for length {len}")
    };
    record(HostError {
        message,
        span,
        launch: None,
        notes: Vec::new(),
    });
}

/// Prints an integer (`unsigned` != 0: the bits are a `uint64`); 0 when writing failed.
pub extern "C" fn cajeta_print_int(v: i64, unsigned: i32) -> i32 {
    write(int_bits_text(v, unsigned, &mut [0; 40]).as_bytes())
}

/// Prints a `float32` (or a `float16`, widened exactly) as Java's `Float.toString`.
pub extern "C" fn cajeta_print_f32(v: f32) -> i32 {
    write(java_f32(v).as_bytes())
}

/// Prints a `float64` as Java's `Double.toString`.
pub extern "C" fn cajeta_print_f64(v: f64) -> i32 {
    write(java_f64(v).as_bytes())
}

/// Prints `true` / `false`.
pub extern "C" fn cajeta_print_bool(v: i32) -> i32 {
    write(if v != 0 { b"true" } else { b"false" })
}

/// Prints a string.
///
/// # Safety
/// `p` is a string value of native code.
pub unsafe extern "C" fn cajeta_print_str(p: *const NStr) -> i32 {
    write(NStr::bytes(p))
}

/// Ends a line.
pub extern "C" fn cajeta_print_newline() -> i32 {
    write(b"\n")
}

/// Each runtime function's symbol name, LLVM signature (`ret(params)`, `i`: i32, `l`: i64,
/// `f`: float, `d`: double, `p`: ptr, `v`: void) and address.
pub fn functions() -> [(&'static str, &'static str, usize); 7] {
    [
        ("cajeta_fail", "v(i)", cajeta_fail as *const () as usize),
        (
            "cajeta_print_int",
            "i(li)",
            cajeta_print_int as *const () as usize,
        ),
        (
            "cajeta_print_f32",
            "i(f)",
            cajeta_print_f32 as *const () as usize,
        ),
        (
            "cajeta_print_f64",
            "i(d)",
            cajeta_print_f64 as *const () as usize,
        ),
        (
            "cajeta_print_bool",
            "i(i)",
            cajeta_print_bool as *const () as usize,
        ),
        (
            "cajeta_print_str",
            "i(p)",
            cajeta_print_str as *const () as usize,
        ),
        (
            "cajeta_print_newline",
            "i()",
            cajeta_print_newline as *const () as usize,
        ),
    ]
}
