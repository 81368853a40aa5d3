// The build without NCCL (no CUDA backend, or no NCCL beside the toolkit).
#include "parity/core/error.hpp"
#include "parity/trainer/dist/nccl_collectives.hpp"

namespace parity::trainer {

bool nccl_available() { return false; }

std::unique_ptr<DeviceCollectives> make_nccl_collectives(Communicator&, int, bool) {
  throw Error("this parity-train was built without NCCL, so GPU ranks cannot train data parallel",
              "config key 'device_target'",
              "build with the CUDA toolkit's NCCL (nccl.h and libnccl beside cuDNN), or train on "
              "several ranks with device_target: CPU");
}

}  // namespace parity::trainer
