// The float64 reference backend (`precision: float64`): every op in plain
// C++ loops, storing and computing in double, tensors in the plain logical
// layout. Slow, and exact up to float64 rounding: a run from the same weights
// and batch as PyTorch's model.double() agrees with it to about 1e-11, so its
// dump is the reference R of `parity compare A B --reference R` for a B made
// by our trainer (docs/compare.md). Single process: no data parallel.
#pragma once

#include <memory>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer {

struct ReferenceBackendOptions {
  int threads = 0;  // OpenMP threads; 0: all cores
};

std::unique_ptr<Backend> make_reference_backend(const ReferenceBackendOptions& options = {});

}  // namespace parity::trainer
