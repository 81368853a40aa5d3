// The CPU backend: oneDNN primitives in the layouts oneDNN prefers (blocked
// nChw16c activations, OIhw16i16o weights on AVX-512), threads through
// oneDNN's OpenMP runtime.
#pragma once

#include <memory>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer {

struct CpuBackendOptions {
  int threads = 0;             // 0: all cores
  bool fixed_threads = false;  // turn off OpenMP's dynamic thread adjustment
};

std::unique_ptr<Backend> make_cpu_backend(const CpuBackendOptions& options = {});

}  // namespace parity::trainer
