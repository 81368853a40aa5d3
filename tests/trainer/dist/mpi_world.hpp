// This process's rank of the mpirun group the test runs in.
#pragma once

#include "parity/trainer/dist/communicator.hpp"

parity::trainer::Communicator& mpi_world();
