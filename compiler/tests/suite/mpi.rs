//! `cajetac run` under `mpirun` (a cajetac built with the `mpi` feature; scripts/test.sh runs
//! these with `--no-default-features --features mpi`): every `Comm` operation with 2 and 4
//! ranks on the one test GPU, each rank's printed lines checked against values computed here,
//! and a failing rank ending the whole job with its rank and position, within a time limit.

use std::collections::BTreeMap;
use std::process::Output;

use crate::cli::repo;

/// `mpirun --oversubscribe -np N cajetac run --host MODE tests/mpi/<file>` with output tagged
/// by rank, killed after `limit_s` seconds (a hang fails the test rather than CI).
fn mpirun(np: usize, mode: &str, file: &str, limit_s: u32) -> Output {
    mpirun_with(np, mode, file, limit_s, &[])
}

/// [`mpirun`] with extra environment variables for every rank.
fn mpirun_with(np: usize, mode: &str, file: &str, limit_s: u32, vars: &[(&str, &str)]) -> Output {
    std::process::Command::new("timeout")
        .envs(vars.iter().copied())
        .arg(limit_s.to_string())
        .args(["mpirun", "--oversubscribe", "--tag-output", "-np"])
        .arg(np.to_string())
        .arg(env!("CARGO_BIN_EXE_cajetac"))
        .args(["run", "--host", mode])
        .arg(repo().join("compiler/tests/mpi").join(file))
        // Root in CI containers: Open MPI refuses it without both.
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun (Debian: openmpi-bin) must be installed")
}

/// The lines each rank printed to standard output (`--tag-output`'s `[job,rank]<stdout>:`).
fn lines_by_rank(out: &[u8]) -> BTreeMap<usize, Vec<String>> {
    let mut by_rank: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(out).lines() {
        let Some((tag, text)) = line.split_once("]<stdout>:") else {
            continue;
        };
        let rank = tag.rsplit(',').next().unwrap().parse().unwrap();
        by_rank.entry(rank).or_default().push(text.to_string());
    }
    by_rank
}

/// What `collectives.cajeta` must print on rank `r` of `n`, computed as the program's
/// operations define it (reductions in rank order).
fn expected(r: usize, n: usize) -> Vec<String> {
    let ni = n as i32;
    let ints = |i: i32| (0..ni).map(move |q| (q + 1) * (i + 1) - 2 * q);
    let sum = |i| ints(i).sum::<i32>();
    let min = |i| ints(i).min().unwrap();
    let max = |i| ints(i).max().unwrap();
    let float = |i: usize| {
        let v = |q: usize| 0.1f32 * (q + 1) as f32 + i as f32 * 0.001f32;
        (1..n).fold(v(0), |acc, q| acc + v(q)).to_bits() as i32
    };
    let m0 = (0..n).map(|q| 1.5 * q as f64 - 3.0);
    let m1 = (0..n).map(|q| -1.5 * q as f64);
    let fmin = |it: &mut dyn Iterator<Item = f64>| it.fold(f64::INFINITY, f64::min);
    // Java's max: +0.0 above -0.0 (no NaNs here).
    let fmax = |it: &mut dyn Iterator<Item = f64>| {
        it.fold(f64::NEG_INFINITY, |a, b| {
            if b > a || (b == a && b.is_sign_positive()) {
                b
            } else {
                a
            }
        })
    };
    let root = (n - 1) as i64;
    let prev = (r + n - 1) % n;
    let gather: String = (0..n).map(|q| format!(" {} {}", q, 2 * q + 1)).collect();
    let whole: Vec<i32> = (0..ni)
        .flat_map(|q| (0..3).map(move |i| q * 10 + i))
        .collect();
    let hash = whole
        .iter()
        .fold(0i32, |h, &w| h.wrapping_mul(31).wrapping_add(w));
    vec![
        format!(
            "int sum {} {} min {} {} max {} {}",
            sum(0),
            sum(3),
            min(0),
            min(3),
            max(0),
            max(3)
        ),
        format!("float sum bits {} {} {}", float(0), float(7), float(999)),
        format!(
            "double min {:?} {:?} max {:?} {:?}",
            fmin(&mut m0.clone()),
            fmin(&mut m1.clone()),
            fmax(&mut m0.clone()),
            fmax(&mut m1.clone())
        ),
        format!(
            "broadcast {} {}",
            root * 100 * 10_000_000_000,
            (root * 100 + 2) * 10_000_000_000
        ),
        format!("ring {} {}", prev, prev * prev),
        format!("gather{gather}"),
        format!("buffer gather {} hash {hash}", whole[whole.len() - 1]),
    ]
}

fn modes() -> Vec<&'static str> {
    if cfg!(feature = "native-host") {
        vec!["interp", "native"]
    } else {
        vec!["interp"]
    }
}

fn check_collectives(np: usize) {
    check_collectives_with(np, &[]);
}

fn check_collectives_with(np: usize, vars: &[(&str, &str)]) {
    for mode in modes() {
        let out = mpirun_with(np, mode, "collectives.cajeta", 240, vars);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "-np {np} --host {mode}: {:?}\n{err}",
            out.status
        );
        let by_rank = lines_by_rank(&out.stdout);
        assert_eq!(by_rank.len(), np, "every rank prints: {by_rank:?}");
        for (r, lines) in by_rank {
            assert_eq!(lines, expected(r, np), "rank {r} of {np} (--host {mode})");
        }
    }
}

/// Data past MPI's largest message (2 GiB: counts are C `int`s) moves in pieces; a limit of
/// 8 bytes makes every collective here take several pieces (an all-gather on 3 ranks, 2 bytes
/// a rank a call), so the pieces are checked without gigabytes of data.
#[test]
fn every_collective_is_exact_in_pieces_of_8_bytes() {
    check_collectives_with(3, &[("CAJETA_MPI_MAX_MESSAGE", "8")]);
}

#[test]
fn every_collective_is_exact_on_two_ranks() {
    check_collectives(2);
}

#[test]
fn every_collective_is_exact_on_four_ranks() {
    check_collectives(4);
}

#[test]
fn a_failing_rank_ends_the_job_with_its_rank_and_position() {
    let started = std::time::Instant::now();
    let out = mpirun(2, "interp", "failing_rank.cajeta", 120);
    let err = String::from_utf8_lossy(&out.stderr);
    // 124 is `timeout`'s: the job hung.
    assert_ne!(out.status.code(), Some(124), "the job hung:\n{err}");
    assert!(!out.status.success());
    assert!(
        err.contains("failing_rank.cajeta:10:16: runtime error: integer division by zero"),
        "{err}"
    );
    assert!(
        err.contains("cajetac: rank 1 of 2 failed (exit status 3); aborting the MPI job"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 120);
}

#[test]
fn the_distributed_heat_example_matches_one_device_bit_for_bit() {
    for np in [2, 4] {
        let out = std::process::Command::new("timeout")
            .args(["240", "mpirun", "--oversubscribe", "-np"])
            .arg(np.to_string())
            .arg(env!("CARGO_BIN_EXE_cajetac"))
            .arg("run")
            .arg(repo().join("examples/distributed_heat.cajeta"))
            .args(["--", "out", "small"])
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "-np {np}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains(&format!(
                "4096 cells, 50 steps on {np} rank(s): 0 cells differ from the one-device run"
            )),
            "{text}"
        );
        // Only rank 0 reports, and the hot spot's temperature is the one-rank run's.
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains("cell 1390: 108.0"), "{text}");
    }
}
