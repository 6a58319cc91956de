//! Host executors: the two ways the host code of a program runs on the runtime.
//!
//! `interp` is the tree-walking interpreter over the IR (builds without LLVM, and the
//! differential oracle); `native` (feature `native-host`) compiles host code to native code
//! through LLVM's JIT. What both need lives here: [`format`], the one text form of values
//! (Java's number formatting, `printf`, parsing) that both print and build strings with.

pub mod autotune;
pub mod format;
pub mod interp;
#[cfg(feature = "native-host")]
pub mod native;

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
