//! [`Transport`] over MPI (rsmpi on the system's MPI library), for `cajetac run` under
//! `mpirun`. MPI is initialized for serialized threads: the interpreter runs on a thread of
//! its own, and [`super::world`]'s lock makes sure one call runs at a time.

use mpi::collective::{CommunicatorCollectives, Root};
use mpi::datatype::Equivalence;
use mpi::environment::Universe;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

use super::Transport;

/// The world communicator, and this rank's index on its node.
struct Mpi {
    world: SimpleCommunicator,
    local_rank: usize,
    /// The most bytes one MPI call moves (see [`max_message`]).
    max_message: usize,
}

/// The most bytes one MPI call moves: MPI counts are C `int`s, so a buffer of 2 GiB or more
/// cannot be one message (rsmpi panics on it); larger data moves in pieces of at most 1 GiB.
/// `CAJETA_MPI_MAX_MESSAGE=N` sets a smaller limit, so tests cover the pieces with small data.
fn max_message() -> usize {
    const LIMIT: usize = 1 << 30;
    std::env::var("CAJETA_MPI_MAX_MESSAGE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .map_or(LIMIT, |n| n.min(LIMIT))
}

// SAFETY: MPI was initialized with `MPI_THREAD_SERIALIZED` (checked in `join`): any thread may
// call it while no other does, which the `Mutex` around the transport (`super::world`)
// guarantees. The communicator is a plain handle.
unsafe impl Send for Mpi {}

/// Initializes MPI and returns the world as a transport, and the universe whose drop
/// finalizes MPI; `None` when the library cannot give serialized threading.
pub(super) fn join() -> Option<(Box<dyn Transport>, Universe)> {
    let (universe, threading) = mpi::initialize_with_threading(Threading::Serialized)?;
    if threading < Threading::Serialized {
        eprintln!("warning: the MPI library offers no serialized threading; running as one rank");
        return None;
    }
    let world = universe.world();
    // Ranks that share memory form a node: its ranks are numbered by world rank.
    let local_rank = world.split_shared(world.rank()).rank() as usize;
    let max_message = max_message();
    Some((
        Box::new(Mpi {
            world,
            local_rank,
            max_message,
        }),
        universe,
    ))
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }
    fn size(&self) -> usize {
        self.world.size() as usize
    }
    fn local_rank(&self) -> usize {
        self.local_rank
    }
    fn barrier(&mut self) -> Result<(), String> {
        self.world.barrier();
        Ok(())
    }
    fn broadcast(&mut self, data: &mut [u8], root: usize) -> Result<(), String> {
        // Every rank has the same length, so every rank cuts the same pieces.
        let root = self.world.process_at_rank(root as i32);
        for piece in data.chunks_mut(self.max_message) {
            root.broadcast_into(piece);
        }
        Ok(())
    }
    fn send(&mut self, data: &[u8], dest: usize, tag: i32) -> Result<(), String> {
        // Messages between two ranks with one tag arrive in order (MPI's non-overtaking
        // rule), so the pieces arrive as sent; empty data is one empty message, so that a
        // receiver that expects bytes gets the length error below instead of waiting.
        let dest = self.world.process_at_rank(dest as i32);
        if data.is_empty() {
            dest.send_with_tag(data, tag);
        }
        for piece in data.chunks(self.max_message) {
            dest.send_with_tag(piece, tag);
        }
        Ok(())
    }
    fn recv(&mut self, data: &mut [u8], source: usize, tag: i32) -> Result<(), String> {
        let from = self.world.process_at_rank(source as i32);
        let expected = data.len();
        let mut got = 0;
        let mut receive = |piece: &mut [u8]| {
            let status = from.receive_into_with_tag(piece, tag);
            let n = status.count(u8::equivalent_datatype()) as usize;
            got += n;
            n == piece.len()
        };
        let whole = if data.is_empty() {
            receive(data)
        } else {
            data.chunks_mut(self.max_message).all(&mut receive)
        };
        if !whole {
            return Err(format!(
                "received {got} bytes from rank {source}, expected {expected}"
            ));
        }
        Ok(())
    }
    fn all_gather(&mut self, data: &[u8], out: &mut [u8]) -> Result<(), String> {
        let size = self.size();
        // Each call moves `piece * size` bytes in all: keep that within one message's limit.
        let piece = (self.max_message / size).max(1);
        if data.len() <= piece {
            self.world.all_gather_into(data, out);
            return Ok(());
        }
        let len = data.len();
        let mut gathered = vec![0u8; piece * size];
        for start in (0..len).step_by(piece) {
            let n = piece.min(len - start);
            let part = &mut gathered[..n * size];
            self.world
                .all_gather_into(&data[start..start + n], &mut *part);
            for (rank, from) in part.chunks(n).enumerate() {
                out[rank * len + start..rank * len + start + n].copy_from_slice(from);
            }
        }
        Ok(())
    }
    fn abort(&mut self, code: i32) {
        self.world.abort(code)
    }
}
