//! Linking the host code's object files in process: an ORC `LLJIT` that holds the runtime's
//! C-ABI functions as absolute symbols, takes the objects [`super::split`] compiled on
//! several threads, resolves their references to one another, and owns the code while the
//! program runs. MCJIT, used before, generates its module's code itself on one thread; ORC
//! only links here, so the code generation can be spread over threads.

use std::ffi::{CStr, CString};

use inkwell::llvm_sys as sys;
use sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcCreateLLJITBuilder, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile,
    LLVMOrcLLJITGetExecutionSession, LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib,
    LLVMOrcLLJITLookup, LLVMOrcLLJITMangleAndIntern, LLVMOrcLLJITRef,
};
use sys::orc2::{
    LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags, LLVMOrcAbsoluteSymbols,
    LLVMOrcCSymbolMapPair, LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess,
    LLVMOrcExecutionSessionSetErrorReporter, LLVMOrcJITDylibAddGenerator, LLVMOrcJITDylibDefine,
};

/// The message of an LLVM error (consumed), or `None` for success.
fn error_message(err: LLVMErrorRef) -> Option<String> {
    if err.is_null() {
        return None;
    }
    // SAFETY: a non-null error is consumed by `LLVMGetErrorMessage`, whose string is ours to
    // dispose of.
    unsafe {
        let msg = LLVMGetErrorMessage(err);
        let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(msg);
        Some(text)
    }
}

/// One run's JIT: its linked code lives until it is dropped.
pub struct Linked {
    jit: LLVMOrcLLJITRef,
    /// What the JIT's session reported (a link's own errors: a missing symbol, a relocation
    /// out of range), told with a failed lookup. Boxed: the reporter holds its address.
    reported: Box<std::sync::Mutex<Vec<String>>>,
}

/// The session's error reporter: keeps the message for [`Linked::address`].
extern "C" fn keep_report(ctx: *mut std::ffi::c_void, err: LLVMErrorRef) {
    // SAFETY: `ctx` is the `reported` box of a live `Linked` (the reporter goes with it).
    let reported = unsafe { &*(ctx as *const std::sync::Mutex<Vec<String>>) };
    if let Some(m) = error_message(err) {
        if let Ok(mut r) = reported.lock() {
            r.push(m);
        }
    }
}

impl Linked {
    /// A JIT whose main library defines `symbols` (name, address) as absolute addresses;
    /// what is still unresolved is looked up in the process (libc's `memcpy`, `memset`).
    pub fn new(symbols: &[(&str, usize)]) -> Result<Linked, String> {
        let mut jit = std::ptr::null_mut();
        // SAFETY: the builder is consumed by `LLVMOrcCreateLLJIT`.
        let err = unsafe { LLVMOrcCreateLLJIT(&mut jit, LLVMOrcCreateLLJITBuilder()) };
        if let Some(e) = error_message(err) {
            return Err(format!("LLVM JIT: {e}"));
        }
        let linked = Linked {
            jit,
            reported: Box::new(std::sync::Mutex::new(Vec::new())),
        };
        // SAFETY: a live JIT; the box outlives it (disposed first in `drop`).
        unsafe {
            LLVMOrcExecutionSessionSetErrorReporter(
                LLVMOrcLLJITGetExecutionSession(jit),
                keep_report,
                (&*linked.reported as *const std::sync::Mutex<Vec<String>>)
                    .cast_mut()
                    .cast(),
            );
        }
        let flags = || LLVMJITSymbolFlags {
            GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
            TargetFlags: 0,
        };
        let mut pairs = Vec::with_capacity(symbols.len());
        for &(name, addr) in symbols {
            let c = CString::new(name).map_err(|_| "LLVM JIT: symbol name".to_string())?;
            pairs.push(LLVMOrcCSymbolMapPair {
                // SAFETY: a live JIT; the interned name's reference passes to the pairs.
                Name: unsafe { LLVMOrcLLJITMangleAndIntern(jit, c.as_ptr()) },
                Sym: LLVMJITEvaluatedSymbol {
                    Address: addr as u64,
                    Flags: flags(),
                },
            });
        }
        // SAFETY: the unit takes the pairs' names; the library takes the unit.
        let err = unsafe {
            let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
            LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), unit)
        };
        if let Some(e) = error_message(err) {
            return Err(format!("LLVM JIT: {e}"));
        }
        let mut process = std::ptr::null_mut();
        // SAFETY: a live JIT; the library takes the generator.
        let err = unsafe {
            let prefix = LLVMOrcLLJITGetGlobalPrefix(jit);
            let err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut process,
                prefix,
                None,
                std::ptr::null_mut(),
            );
            if err.is_null() {
                LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), process);
            }
            err
        };
        if let Some(e) = error_message(err) {
            return Err(format!("LLVM JIT: {e}"));
        }
        Ok(linked)
    }

    /// Adds one relocatable object file (copied).
    pub fn add_object(&self, object: &[u8]) -> Result<(), String> {
        // SAFETY: the buffer is a copy, owned by the JIT from here on.
        let err = unsafe {
            let buf = sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                object.as_ptr().cast(),
                object.len(),
                c"cajeta_host.o".as_ptr(),
            );
            LLVMOrcLLJITAddObjectFile(self.jit, LLVMOrcLLJITGetMainJITDylib(self.jit), buf)
        };
        match error_message(err) {
            Some(e) => Err(format!("LLVM JIT: {e}")),
            None => Ok(()),
        }
    }

    /// The address of `name`, linking (and so resolving) every object added so far.
    pub fn address(&self, name: &str) -> Result<usize, String> {
        let c = CString::new(name).map_err(|_| "LLVM JIT: symbol name".to_string())?;
        let mut addr = 0u64;
        // SAFETY: a live JIT and a NUL-terminated name.
        let err = unsafe { LLVMOrcLLJITLookup(self.jit, &mut addr, c.as_ptr()) };
        match error_message(err) {
            Some(e) => {
                let reported = self
                    .reported
                    .lock()
                    .map(|r| r.join("; "))
                    .unwrap_or_default();
                Err(format!("LLVM JIT: {e} ({reported})"))
            }
            None if addr == 0 => Err(format!("LLVM JIT: `{name}` has no address")),
            None => Ok(addr as usize),
        }
    }
}

impl Drop for Linked {
    fn drop(&mut self) {
        // SAFETY: created by `LLVMOrcCreateLLJIT`, disposed once; nothing runs its code any
        // more (the run that called into it has returned).
        let err = unsafe { LLVMOrcDisposeLLJIT(self.jit) };
        let _ = error_message(err);
    }
}
