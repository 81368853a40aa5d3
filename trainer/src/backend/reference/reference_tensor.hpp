// The reference backend's tensor: float64 elements in the plain logical
// layout (NCHW activations, OIHW convolution weights, [out, in] matrices),
// nothing else. Ops write their outputs into fresh tensors and never write
// the ones they are given, so an op keeps its saved input by sharing it.
#pragma once

#include <span>
#include <vector>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::reference {

class ReferenceTensor : public TensorImpl {
 public:
  explicit ReferenceTensor(Dims dims)
      : TensorImpl(std::move(dims)), values_(static_cast<std::size_t>(element_count(this->dims()))) {}
  std::span<double> values() { return values_; }

 private:
  std::vector<double> values_;
};

// A zeroed tensor of `dims`.
Tensor make_tensor(const Dims& dims);
// A tensor's elements, in the plain logical layout.
std::span<double> values_of(const Tensor& tensor);
// Throws when `tensor` is not NCHW: the input of a spatial op.
void require_nchw(const Tensor& tensor, std::string_view op);

// Parameter tensors (value, gradient, momentum), zeroed.
ParamTensors make_param(const Dims& dims);

}  // namespace parity::trainer::reference
