//! The C math library, loaded the first time a function of it is called (`cajetac` only).
//!
//! Every shared library an executable names is opened, mapped, relocated and has its
//! symbols looked up by the dynamic loader before `main`, whether or not the command uses
//! it. `cajetac` used 16 functions of `libm.so.6` (the interpreter's `Math` transcendentals,
//! `host/interp/math.rs`), which only `run` and constant expressions of a program that calls
//! them reach; `check` and `build` of most programs never do, yet paid for libm at every
//! start (about 9 page faults and 0.05–0.1 ms of a 1.6 ms `build` on the 2-core container).
//!
//! This module defines those 16 symbols in the executable itself, so the linker (which drops
//! unused libraries, `--as-needed`) no longer records libm as needed. Each definition, on its
//! first call, opens the same `libm.so.6` with `dlopen` and calls its function through the
//! address `dlsym` gives: the results are bit for bit those of the library as linked before
//! (the same code, the same CPU-specific variant chosen by the same loader), and a process
//! that never computes a transcendental never loads libm.
//!
//! The definitions are local to the executable: nothing it loads later (a Vulkan driver)
//! links against them, because at link time no shared library asked for these symbols and
//! they are not in its dynamic symbol table. `dlsym` on libm's own handle finds libm's
//! definitions, not these. The `build.rs` of the package links the unwinder statically into
//! `cajetac` for the same reason (no `libgcc_s.so.1` to load).

use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

/// The C math library's `dlopen` handle (as an address, so that it can live in a static),
/// opened on the first call of any function below.
fn libm_handle() -> usize {
    static HANDLE: OnceLock<usize> = OnceLock::new();
    *HANDLE.get_or_init(|| {
        // SAFETY: a NUL-terminated name; glibc's dlopen is thread-safe.
        let handle =
            unsafe { libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            fail("cannot load the C math library (libm.so.6)");
        }
        handle as usize
    })
}

/// The address of `name` in the C math library.
fn libm_symbol(name: &CStr) -> usize {
    // SAFETY: a handle from dlopen and a NUL-terminated name.
    let address = unsafe { libc::dlsym(libm_handle() as *mut c_void, name.as_ptr()) };
    if address.is_null() {
        fail(&format!(
            "no `{}` in the C math library",
            name.to_string_lossy()
        ));
    }
    address as usize
}

/// Reports a C library that cannot be loaded (an installation fault, never a program's) and
/// aborts: a math function has no way to return an error.
fn fail(what: &str) -> ! {
    // SAFETY: dlerror returns null or a NUL-terminated message owned by libc.
    let reason = unsafe { libc::dlerror() };
    let reason = if reason.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, NUL-terminated (above).
        format!(": {}", unsafe { CStr::from_ptr(reason) }.to_string_lossy())
    };
    eprintln!("cajetac: {what}{reason}");
    std::process::abort()
}

/// Defines each named C function of one or two `double`s as a call of libm's function of
/// the same name, looked up once.
macro_rules! lazy_libm {
    ($($name:ident($($arg:ident),+);)*) => {
        $(
            #[doc = concat!("C `", stringify!($name), "`, from libm on first use.")]
            #[no_mangle]
            extern "C" fn $name($($arg: f64),+) -> f64 {
                static ADDRESS: OnceLock<usize> = OnceLock::new();
                let address = *ADDRESS.get_or_init(|| {
                    libm_symbol(CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes())
                        .expect("a C name"))
                });
                // SAFETY: libm's function of this name has this C signature.
                let f: extern "C" fn($(lazy_libm!(@f64 $arg)),+) -> f64 =
                    unsafe { std::mem::transmute::<usize, _>(address) };
                f($($arg),+)
            }
        )*
    };
    (@f64 $arg:ident) => { f64 };
}

lazy_libm! {
    sin(x); cos(x); tan(x); asin(x); acos(x); atan(x); sinh(x); cosh(x); tanh(x);
    exp(x); exp2(x); log(x); log2(x); log10(x);
    atan2(y, x); pow(x, y);
}
