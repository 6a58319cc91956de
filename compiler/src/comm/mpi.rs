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
    Some((Box::new(Mpi { world, local_rank }), universe))
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
        self.world.process_at_rank(root as i32).broadcast_into(data);
        Ok(())
    }
    fn send(&mut self, data: &[u8], dest: usize, tag: i32) -> Result<(), String> {
        self.world
            .process_at_rank(dest as i32)
            .send_with_tag(data, tag);
        Ok(())
    }
    fn recv(&mut self, data: &mut [u8], source: usize, tag: i32) -> Result<(), String> {
        let status = self
            .world
            .process_at_rank(source as i32)
            .receive_into_with_tag(data, tag);
        let got = status.count(u8::equivalent_datatype()) as usize;
        if got != data.len() {
            return Err(format!(
                "received {got} bytes from rank {source}, expected {}",
                data.len()
            ));
        }
        Ok(())
    }
    fn all_gather(&mut self, data: &[u8], out: &mut [u8]) -> Result<(), String> {
        self.world.all_gather_into(data, out);
        Ok(())
    }
    fn abort(&mut self, code: i32) {
        self.world.abort(code)
    }
}
