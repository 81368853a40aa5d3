// The SGD update of one parameter element, PyTorch's semantics (see SgdStep),
// shared by the plain loop and the loop that also writes a weight mirror.
#pragma once

#include <cstddef>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::cpu {

struct SgdCoefficients {
  float lr, momentum, dampening_keep, weight_decay, inverse_scale;
  bool nesterov, first;
  explicit SgdCoefficients(const SgdStep& s)
      : lr(float(s.lr)), momentum(float(s.momentum)), dampening_keep(float(1.0 - s.dampening)),
        weight_decay(float(s.weight_decay)), inverse_scale(float(1.0 / s.loss_scale)),
        nesterov(s.nesterov), first(s.first) {}

  // Updates `buf` and returns the new weight.
  float update(float w, float grad, float& buf) const {
    const float g = grad * inverse_scale + weight_decay * w;
    buf = first ? g : momentum * buf + dampening_keep * g;
    return w - lr * (nesterov ? g + momentum * buf : buf);
  }
};

// w, g and buf hold `count` elements in one layout.
void sgd_update_plain(float* w, const float* g, float* buf, std::size_t count,
                      const SgdCoefficients& c);

}  // namespace parity::trainer::cpu
