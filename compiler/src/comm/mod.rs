//! The ranks of a distributed run: the transport under Cajeta's `Comm` API
//! (docs/distributed.md). A process is one rank; [`world`] is the job it belongs to. Without
//! MPI (a build without the `mpi` feature, or a process not started by `mpirun`) that is
//! [`Single`], rank 0 of 1, on which every operation works trivially, so a program runs
//! unchanged. With the feature, [`init`] joins the MPI job the process was started in.
//!
//! The transport moves bytes only; element types and the reduction (in a fixed rank order,
//! so every rank and a one-rank run get the same bits) are the interpreter's
//! (`host/interp/comm.rs`).

#[cfg(feature = "mpi")]
mod mpi;

use std::sync::{Mutex, OnceLock};

/// A communicator over the ranks of a job. Every operation blocks until its part is done.
pub trait Transport: Send {
    /// This process's rank, `0 .. size()`.
    fn rank(&self) -> usize;
    /// How many ranks the job has.
    fn size(&self) -> usize;
    /// This rank's index among the ranks on its node (those sharing memory with it).
    fn local_rank(&self) -> usize;
    /// Waits until every rank has called it.
    fn barrier(&mut self) -> Result<(), String>;
    /// `data` on every rank becomes `root`'s.
    fn broadcast(&mut self, data: &mut [u8], root: usize) -> Result<(), String>;
    /// Sends `data` to `dest` with `tag`.
    fn send(&mut self, data: &[u8], dest: usize, tag: i32) -> Result<(), String>;
    /// Receives exactly `data.len()` bytes from `source` with `tag`.
    fn recv(&mut self, data: &mut [u8], source: usize, tag: i32) -> Result<(), String>;
    /// `out` (`size()` times `data`'s length) gets rank r's `data` at `r * data.len()`.
    fn all_gather(&mut self, data: &[u8], out: &mut [u8]) -> Result<(), String>;
    /// Ends the whole job with `code` after a rank failed (the other ranks may be waiting
    /// in a collective that will never complete).
    fn abort(&mut self, code: i32);
}

/// A job of one rank: what every run is without MPI.
pub struct Single;

impl Transport for Single {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn local_rank(&self) -> usize {
        0
    }
    fn barrier(&mut self) -> Result<(), String> {
        Ok(())
    }
    fn broadcast(&mut self, _data: &mut [u8], _root: usize) -> Result<(), String> {
        Ok(())
    }
    fn send(&mut self, _data: &[u8], _dest: usize, _tag: i32) -> Result<(), String> {
        // Rank checks happen before the transport: a one-rank job can only address itself,
        // and a message to itself would never be received before the matching recv.
        Err("a rank cannot send to itself".into())
    }
    fn recv(&mut self, _data: &mut [u8], _source: usize, _tag: i32) -> Result<(), String> {
        Err("a rank cannot receive from itself".into())
    }
    fn all_gather(&mut self, data: &[u8], out: &mut [u8]) -> Result<(), String> {
        out.copy_from_slice(data);
        Ok(())
    }
    fn abort(&mut self, code: i32) {
        std::process::exit(code)
    }
}

static WORLD: OnceLock<Mutex<Box<dyn Transport>>> = OnceLock::new();

/// The job this process belongs to ([`Single`] unless [`init`] joined an MPI job). The
/// lock serializes the calls, as the MPI library was initialized for.
pub fn world() -> std::sync::MutexGuard<'static, Box<dyn Transport>> {
    WORLD
        .get_or_init(|| Mutex::new(Box::new(Single)))
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Whether this process was started by an MPI launcher (Open MPI's `mpirun`, or a PMI-based
/// one such as Slurm's `srun`): only then is MPI initialized, so a plain run starts no MPI
/// runtime.
pub fn launched_by_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// Joins the MPI job when the process was started by `mpirun` and this cajetac has the `mpi`
/// feature; returns a guard that finalizes MPI when dropped (at the end of `cajetac run`).
/// Otherwise the run stays one rank of one.
pub fn init() -> Option<Finalize> {
    #[cfg(feature = "mpi")]
    if launched_by_mpi() {
        if let Some((transport, universe)) = mpi::join() {
            let _ = WORLD.set(Mutex::new(transport));
            return Some(Finalize(Some(universe)));
        }
    }
    None
}

/// Finalizes MPI when dropped (see [`init`]).
pub struct Finalize(#[allow(dead_code)] Option<FinalizeInner>);

#[cfg(feature = "mpi")]
type FinalizeInner = ::mpi::environment::Universe;
#[cfg(not(feature = "mpi"))]
type FinalizeInner = ();

/// `rank R of N` when the job has several ranks, so that a failure names its rank; `None`
/// for a one-rank job.
pub fn rank_label() -> Option<String> {
    let w = WORLD.get()?.lock().unwrap_or_else(|p| p.into_inner());
    (w.size() > 1).then(|| format!("rank {} of {}", w.rank(), w.size()))
}

/// After a failed run: ends the whole job when it has several ranks (the others may wait
/// forever in a collective), with `code`; nothing for a one-rank job.
pub fn abort_job_on_failure(code: i32) {
    if let Some(w) = WORLD.get() {
        let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
        if w.size() > 1 {
            w.abort(code);
        }
    }
}
