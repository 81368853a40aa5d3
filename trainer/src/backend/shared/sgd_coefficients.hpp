// The SGD update of one parameter element, PyTorch's semantics (see SgdStep in
// backend.hpp): one formula for every backend. Plain C++17 with no library
// includes, so that CUDA kernels (compiled as C++17 by nvcc) use it too.
#pragma once

#if defined(__CUDACC__)
#define PARITY_HOST_DEVICE __host__ __device__
#else
#define PARITY_HOST_DEVICE
#endif

namespace parity::trainer {

struct SgdCoefficients {
  float lr = 0, momentum = 0, dampening_keep = 1, weight_decay = 0, inverse_scale = 1;
  bool nesterov = false, first = false;

  // Updates `buf` and returns the new weight.
  PARITY_HOST_DEVICE float update(float w, float grad, float& buf) const {
    const float g = grad * inverse_scale + weight_decay * w;
    buf = first ? g : momentum * buf + dampening_keep * g;
    return w - lr * (nesterov ? g + momentum * buf : buf);
  }
};

}  // namespace parity::trainer
