// The SGD update of one parameter element, PyTorch's semantics (see SgdStep in
// backend.hpp): one formula for every backend, in the element type it keeps
// parameters in (float; double in the float64 reference backend). Plain
// C++17 with no library includes, so that CUDA kernels (compiled as C++17 by
// nvcc) use it too.
#pragma once

#if defined(__CUDACC__)
#define PARITY_HOST_DEVICE __host__ __device__
#else
#define PARITY_HOST_DEVICE
#endif

namespace parity::trainer {

template <class Real>
struct BasicSgdCoefficients {
  Real lr = 0, momentum = 0, dampening_keep = 1, weight_decay = 0, inverse_scale = 1;
  bool nesterov = false, first = false;

  // Updates `buf` and returns the new weight.
  PARITY_HOST_DEVICE Real update(Real w, Real grad, Real& buf) const {
    const Real g = grad * inverse_scale + weight_decay * w;
    buf = first ? g : momentum * buf + dampening_keep * g;
    return w - lr * (nesterov ? g + momentum * buf : buf);
  }
};

using SgdCoefficients = BasicSgdCoefficients<float>;

}  // namespace parity::trainer
