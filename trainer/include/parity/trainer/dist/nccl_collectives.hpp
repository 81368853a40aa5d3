// NCCL's collectives for GPU ranks (DeviceCollectives), one rank per GPU.
// The group is bootstrapped over the host communicator (MPI): rank 0 makes
// NCCL's unique id and broadcasts it. AllReduces average with ncclAvg on a
// high-priority stream of their own, so their kernels are scheduled ahead of
// backward's when both are ready. Built only with the CUDA backend and NCCL
// (PARITY_NCCL_ENABLED); docs/distributed.md.
#pragma once

#include <memory>

#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/dist/device_collectives.hpp"

namespace parity::trainer {

// Whether this build has NCCL.
bool nccl_available();

// Collective over the ranks of `bootstrap`: each joins with its own GPU
// `device` (the device the rank's CUDA backend computes on). With `timed`,
// the device times of marks and collectives are kept for the trace (CUDA
// events). Throws parity::Error when NCCL is missing or cannot start.
std::unique_ptr<DeviceCollectives> make_nccl_collectives(Communicator& bootstrap, int device,
                                                         bool timed);

}  // namespace parity::trainer
