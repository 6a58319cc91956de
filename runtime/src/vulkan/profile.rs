//! GPU timing: timestamp queries around every launch, upload and download when profiling is
//! on (`ContextOptions::profile`, `CAJETA_PROFILE=1`), summed per kernel and per transfer kind.
//!
//! Each batch owns query pools; before and after each command the stream writes a timestamp at
//! `BOTTOM_OF_PIPE` (the first completes when everything before the command has, the second
//! when the command has), so a command's time includes the barrier wait in front of it but not
//! host-side recording. Results are read when the batch's fence has signalled.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ash::vk;

use crate::error::{vk_err, Result};

/// Timestamp queries per pool (two per command).
pub(crate) const QUERIES_PER_POOL: u32 = 512;

/// What a profiled command was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProfileKind {
    /// A kernel launch.
    Kernel,
    /// A host→device copy (buffer or texture upload).
    Upload,
    /// A device→host copy.
    Download,
}

/// Accumulated GPU time of one kernel or transfer kind.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileEntry {
    /// Kernel name, or `"upload"` / `"download"`.
    pub name: String,
    /// Launch or transfer.
    pub kind: ProfileKind,
    /// How many commands were timed.
    pub calls: u64,
    /// Total GPU time in nanoseconds.
    pub total_ns: f64,
    /// Bytes moved (transfers only).
    pub bytes: u64,
}

impl ProfileEntry {
    /// Mean GPU time per call in nanoseconds.
    pub fn mean_ns(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            self.total_ns / self.calls as f64
        }
    }
}

/// Per-kernel and per-transfer GPU times of a context.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfileReport {
    /// Kernels first (by name), then uploads and downloads.
    pub entries: Vec<ProfileEntry>,
    /// Sum over submitted batches of the time from the first command's start timestamp to the
    /// last command's end timestamp: GPU busy time including the barriers between commands.
    pub span_ns: f64,
}

impl ProfileReport {
    /// A text table: kernel, calls, total ms, mean µs; transfers with their bandwidth.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<28} {:>8} {:>12} {:>12} {:>10}",
            "kernel / transfer", "calls", "total ms", "mean us", "GB/s"
        );
        for e in &self.entries {
            let gbps = if e.kind == ProfileKind::Kernel || e.total_ns <= 0.0 {
                String::new()
            } else {
                format!("{:.2}", e.bytes as f64 / e.total_ns)
            };
            let _ = writeln!(
                out,
                "{:<28} {:>8} {:>12.3} {:>12.2} {:>10}",
                e.name,
                e.calls,
                e.total_ns / 1e6,
                e.mean_ns() / 1e3,
                gbps
            );
        }
        out
    }
}

/// A command whose time a batch will read: which queries, and what to book it under.
#[derive(Debug, Clone)]
pub(crate) struct Timed {
    pub pool: usize,
    pub first_query: u32,
    pub kind: ProfileKind,
    pub name: String,
    pub bytes: u64,
}

/// Running totals, keyed by (kind, name).
#[derive(Debug, Default)]
pub(crate) struct ProfileStats {
    totals: BTreeMap<(ProfileKind, String), (u64, f64, u64)>,
    span_ns: f64,
}

impl ProfileStats {
    pub(crate) fn add(&mut self, kind: ProfileKind, name: &str, ns: f64, bytes: u64) {
        let e = self
            .totals
            .entry((kind, name.to_string()))
            .or_insert((0, 0.0, 0));
        e.0 += 1;
        e.1 += ns;
        e.2 += bytes;
    }

    /// Adds the span of one finished batch.
    pub(crate) fn add_span(&mut self, ns: f64) {
        self.span_ns += ns;
    }

    pub(crate) fn report(&self) -> ProfileReport {
        ProfileReport {
            span_ns: self.span_ns,
            entries: self
                .totals
                .iter()
                .map(|((kind, name), &(calls, total_ns, bytes))| ProfileEntry {
                    name: name.clone(),
                    kind: *kind,
                    calls,
                    total_ns,
                    bytes,
                })
                .collect(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.totals.clear();
        self.span_ns = 0.0;
    }
}

/// Creates a timestamp query pool of [`QUERIES_PER_POOL`] queries.
pub(crate) fn create_query_pool(device: &ash::Device) -> Result<vk::QueryPool> {
    let info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::TIMESTAMP)
        .query_count(QUERIES_PER_POOL);
    // SAFETY: valid device and create info.
    unsafe { device.create_query_pool(&info, None) }.map_err(vk_err("vkCreateQueryPool"))
}

/// Elapsed nanoseconds between two raw timestamps, honouring the valid bits.
pub(crate) fn elapsed_ns(start: u64, end: u64, valid_bits: u32, period_ns: f32) -> f64 {
    let mask = if valid_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << valid_bits) - 1
    };
    let ticks = end.wrapping_sub(start) & mask;
    ticks as f64 * f64::from(period_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_sum_per_name_and_kind_and_wrap_timestamps() {
        let mut s = ProfileStats::default();
        s.add(ProfileKind::Kernel, "saxpy", 100.0, 0);
        s.add(ProfileKind::Kernel, "saxpy", 300.0, 0);
        s.add(ProfileKind::Upload, "upload", 1000.0, 4000);
        let r = s.report();
        assert_eq!(r.entries.len(), 2);
        assert_eq!(r.entries[0].calls, 2);
        assert_eq!(r.entries[0].mean_ns(), 200.0);
        let table = r.table();
        assert!(table.contains("saxpy"), "{table}");
        assert!(table.contains("4.00"), "{table}");
        assert_eq!(elapsed_ns(0xff, 0x01, 8, 2.0), 4.0);
    }
}
