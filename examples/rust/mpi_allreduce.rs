//! Plain `MPI_Allreduce` (float32 sum) of host arrays of 1 MiB and up, through rsmpi: the
//! reference for `Comm.allReduce`'s figures in docs/distributed.md
//! (bench/distributed/allreduce.cajeta measures those on the same sizes).
//!
//! Run: `cargo build --release -p cajetac --no-default-features --features mpi --example
//! mpi_allreduce`, then `mpirun -np 2 target/release/examples/mpi_allreduce [largest MiB [reps]]`.

use mpi::collective::{CommunicatorCollectives, SystemOperation};
use mpi::topology::Communicator;

fn main() {
    let mut args = std::env::args().skip(1);
    let largest: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let universe = mpi::initialize().expect("MPI initializes once");
    let world = universe.world();
    if world.rank() == 0 {
        println!(
            "ranks {}, MPI_Allreduce float32 sum, best of {reps}",
            world.size()
        );
        println!("MiB | host array ms");
    }
    let mut mib = 1;
    while mib <= largest {
        let n = mib * 262_144;
        let send: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
        let mut recv = vec![0f32; n];
        let mut best = f64::MAX;
        for _ in 0..reps {
            world.barrier();
            let t = std::time::Instant::now();
            world.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum());
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
        }
        if world.rank() == 0 {
            println!("{mib} | {best:.1}");
        }
        mib *= 4;
    }
}
