// The MPI communicator: one rank of MPI_COMM_WORLD, for a trainer started
// by `mpirun -np N parity-train ...` (Open MPI from Debian). Float sums go
// through MPI_Allreduce in place, then the division by the rank count.
#pragma once

#include <memory>

#include "parity/trainer/dist/communicator.hpp"

namespace parity::trainer {

// Whether this process was started by an MPI launcher (mpirun, mpiexec,
// srun), read from the environment the launchers set.
bool launched_by_mpi();

// This process's rank among the ranks on its machine, as the launcher says
// (Open MPI, MPICH/Hydra, Slurm); `rank` when no launcher says.
int launcher_local_rank(int rank);

// Whether this build can talk MPI (built with PARITY_WITH_MPI).
bool mpi_available();

// Initializes MPI (threads: one at a time, MPI_THREAD_SERIALIZED) and returns
// this rank's communicator; MPI is finalized when it is destroyed. Throws
// parity::Error when the build has no MPI or MPI cannot start.
std::unique_ptr<Communicator> make_mpi_communicator();

}  // namespace parity::trainer
