//! Backends: consumers of the checked [`crate::ir::Module`].
//!
//! `spirv` compiles each kernel (and the `@Device` helpers it calls) to a SPIR-V module plus
//! its reflection document; `host` interprets host code on the runtime; `llvm` (feature
//! `native-host`) compiles host code to native code through LLVM's JIT; `llvm_spirv` (same
//! feature) is the second kernel backend, through LLVM's SPIR-V target (`--backend llvm`).

pub mod host;
#[cfg(feature = "native-host")]
pub mod llvm;
#[cfg(feature = "native-host")]
pub mod llvm_spirv;
pub mod spirv;

use std::io::{self, Write};
use std::sync::mpsc;

/// Sends everything written to the thread that owns the receiver: host code (interpreted or
/// native) runs on a thread of its own with a large stack, and its output is written by the
/// caller's thread into the caller's writer.
pub(crate) struct ChannelWriter(pub(crate) mpsc::Sender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "output closed"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
