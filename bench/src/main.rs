//! `cajeta-bench`: the runtime against a minimal hand-written ash program doing the same work
//! in the same process (see `baseline.rs`). Scenarios (issue 4):
//! - launch + sync of an empty kernel;
//! - 1,000 back-to-back dependent launches in one stream (host time per launch, GPU time);
//! - upload and download bandwidth of a host array at 4 KiB, 1 MiB, 256 MiB and 1 GiB
//!   (4 KiB, 1 MiB, 32 MiB with `--quick`) against the bus: a raw copy between filled pinned
//!   memory and device memory timed with GPU timestamps (issue 14; see `transfers.rs`);
//! - a kernel chain on a created stream during a 1 GiB upload on the default stream, alone
//!   and together, timed with events (issue 15; see `overlap.rs`).
//!
//! Usage: `cargo run --release -p cajeta-bench -- [--quick] [--transfers | --overlap]
//! [--json FILE] [--markdown FILE]` (`--transfers`, `--overlap`: only those). Prints a markdown table
//! (medians, ratio = ours / baseline for times, baseline / ours for bandwidths, so > 1 means
//! slower than the floor in both cases).

mod baseline;
mod overlap;
mod scenarios;
mod transfers;

use std::time::Instant;

use serde::Serialize;

/// One measured quantity, ours against the floor.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Unit of `ours` and `baseline`.
    pub unit: String,
    /// Median of the runtime's samples.
    pub ours: f64,
    /// Median of the baseline's samples.
    pub baseline: f64,
    /// Overhead factor (> 1: the runtime is slower).
    pub ratio: f64,
    /// Samples per side.
    pub samples: usize,
}

impl Row {
    /// A time (lower is better).
    pub fn time(name: &str, unit: &str, ours: &mut [f64], base: &mut [f64]) -> Row {
        let (o, b) = (median(ours), median(base));
        Row {
            name: name.into(),
            unit: unit.into(),
            ours: o,
            baseline: b,
            ratio: o / b,
            samples: ours.len(),
        }
    }

    /// A bandwidth (higher is better).
    pub fn rate(name: &str, unit: &str, ours: &mut [f64], base: &mut [f64]) -> Row {
        let (o, b) = (median(ours), median(base));
        Row {
            name: name.into(),
            unit: unit.into(),
            ours: o,
            baseline: b,
            ratio: b / o,
            samples: ours.len(),
        }
    }
}

/// The median (sorts in place).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Seconds elapsed since `t`, as microseconds.
pub fn us_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e6
}

#[derive(Serialize)]
struct Report {
    device: String,
    driver: String,
    quick: bool,
    rows: Vec<Row>,
}

fn markdown(r: &Report) -> String {
    let mut s = format!(
        "Device: {} ({}){}\n\n| scenario | unit | cajeta-runtime | raw ash | overhead |\n|---|---|---:|---:|---:|\n",
        r.device,
        r.driver,
        if r.quick { ", --quick" } else { "" }
    );
    for row in &r.rows {
        s += &format!(
            "| {} | {} | {:.2} | {:.2} | {:.2}x |\n",
            row.name, row.unit, row.ours, row.baseline, row.ratio
        );
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only = if args.iter().any(|a| a == "--transfers") {
        scenarios::Only::Transfers
    } else if args.iter().any(|a| a == "--overlap") {
        scenarios::Only::Overlap
    } else {
        scenarios::Only::All
    };
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let (json, md) = (value_of("--json"), value_of("--markdown"));
    match scenarios::run_all(quick, only) {
        Ok((device, driver, rows)) => {
            let report = Report {
                device,
                driver,
                quick,
                rows,
            };
            let text = markdown(&report);
            print!("{text}");
            if let Some(path) = md {
                std::fs::write(&path, &text)
                    .unwrap_or_else(|e| eprintln!("cannot write {path}: {e}"));
            }
            if let Some(path) = json {
                let j = serde_json::to_string_pretty(&report).unwrap_or_default();
                std::fs::write(&path, j).unwrap_or_else(|e| eprintln!("cannot write {path}: {e}"));
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&mut []).is_nan());
        let t = Row::time("t", "us", &mut [2.0, 2.0], &mut [1.0, 1.0]);
        assert_eq!(t.ratio, 2.0);
        let r = Row::rate("r", "GB/s", &mut [5.0], &mut [10.0]);
        assert_eq!(r.ratio, 2.0);
        let md = markdown(&Report {
            device: "d".into(),
            driver: "x".into(),
            quick: true,
            rows: vec![t, r],
        });
        assert!(md.contains("| t | us | 2.00 | 1.00 | 2.00x |"), "{md}");
    }
}
