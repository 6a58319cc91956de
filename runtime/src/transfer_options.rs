//! How buffer transfers move data: the chunk size and ring depth of pipelined transfers, the
//! host copy threads, and switches to compare the paths (see docs/runtime.md, "Transfer
//! paths").

/// Tunables of buffer uploads and downloads ([`crate::ContextOptions::transfer`]).
///
/// A transfer larger than `chunk_bytes` is pipelined: it moves in chunks through a ring of
/// `ring_depth` pinned staging buffers, the host copying chunk *i + 1* while the device copies
/// chunk *i*. Smaller transfers go through one staging buffer, as one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferOptions {
    /// Bytes per chunk of a pipelined transfer (rounded up to 64 KiB; at least 64 KiB).
    pub chunk_bytes: u64,
    /// Staging buffers in the ring (at least 2: one filled while the other is copied).
    pub ring_depth: usize,
    /// Threads for each host copy of 4 MiB or more (the caller's included; 1: no helpers).
    pub threads: usize,
    /// `false`: every transfer goes through one staging buffer as one command (the path
    /// before pipelining), for comparison.
    pub pipelined: bool,
    /// Large transfers copy straight from / to the host array by importing its pages with
    /// `VK_EXT_external_memory_host` where the device has it (no host copy; the call waits for
    /// the device copy). Off by default: on the H200 an imported 1 GiB download ran at 7.7 GB/s
    /// against 25.9 GB/s staged, and uploads gained nothing (30.3 against 29.4 GB/s), though on
    /// lavapipe it runs at the bus's rate. `CAJETA_TRANSFER_IMPORT=1` turns it on.
    pub import_host: bool,
}

/// Default chunk of a pipelined transfer.
pub const DEFAULT_CHUNK_BYTES: u64 = 16 << 20;
/// Default staging buffers in a pipelined transfer's ring.
pub const DEFAULT_RING_DEPTH: usize = 4;
/// Granule of staging sizes and chunks.
const GRANULE: u64 = 64 * 1024;

impl Default for TransferOptions {
    fn default() -> Self {
        TransferOptions {
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            ring_depth: DEFAULT_RING_DEPTH,
            threads: crate::host_copy::default_threads(),
            pipelined: true,
            import_host: false,
        }
    }
}

impl TransferOptions {
    /// The defaults, overridden by `CAJETA_TRANSFER_CHUNK_KIB`, `CAJETA_TRANSFER_RING`,
    /// `CAJETA_TRANSFER_THREADS`, `CAJETA_TRANSFER_PIPELINED=0` and
    /// `CAJETA_TRANSFER_IMPORT=1` where set and valid.
    pub fn from_env() -> Self {
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&n| n > 0)
        };
        let mut o = TransferOptions::default();
        if let Some(kib) = number("CAJETA_TRANSFER_CHUNK_KIB") {
            o.chunk_bytes = kib.saturating_mul(1024);
        }
        if let Some(n) = number("CAJETA_TRANSFER_RING") {
            o.ring_depth = n as usize;
        }
        if let Some(n) = number("CAJETA_TRANSFER_THREADS") {
            o.threads = n as usize;
        }
        if let Ok(v) = std::env::var("CAJETA_TRANSFER_PIPELINED") {
            o.pipelined = !matches!(v.trim(), "0" | "false" | "no" | "off");
        }
        if let Ok(v) = std::env::var("CAJETA_TRANSFER_IMPORT") {
            o.import_host = !matches!(v.trim(), "0" | "false" | "no" | "off");
        }
        o.normalized()
    }

    /// These options within their bounds (chunk a multiple of 64 KiB, ring of 2 or more, one
    /// thread or more).
    pub fn normalized(mut self) -> Self {
        self.chunk_bytes = self
            .chunk_bytes
            .clamp(GRANULE, 1 << 30)
            .div_ceil(GRANULE)
            .saturating_mul(GRANULE);
        self.ring_depth = self.ring_depth.clamp(2, 16);
        self.threads = self.threads.clamp(1, 64);
        self
    }

    /// Whether a transfer of `bytes` is pipelined in chunks.
    pub(crate) fn chunks(&self, bytes: u64) -> bool {
        self.pipelined && bytes > self.chunk_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_bounded_and_only_large_transfers_chunk() {
        let o = TransferOptions {
            chunk_bytes: 1000,
            ring_depth: 0,
            threads: 0,
            pipelined: true,
            import_host: false,
        }
        .normalized();
        assert_eq!((o.chunk_bytes, o.ring_depth, o.threads), (GRANULE, 2, 1));
        let d = TransferOptions::default();
        assert!(!d.chunks(4096) && !d.chunks(1 << 20) && d.chunks(256 << 20));
        let off = TransferOptions {
            pipelined: false,
            ..d
        };
        assert!(!off.chunks(1 << 30));
    }
}
