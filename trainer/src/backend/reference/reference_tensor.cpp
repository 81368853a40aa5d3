#include "reference_tensor.hpp"

#include "parity/core/error.hpp"

namespace parity::trainer::reference {

Tensor make_tensor(const Dims& dims) { return Tensor(std::make_shared<ReferenceTensor>(dims)); }

std::span<double> values_of(const Tensor& tensor) {
  if (!tensor.defined()) throw Error("an undefined tensor", "float64 reference backend");
  return tensor.impl<ReferenceTensor>().values();
}

void require_nchw(const Tensor& tensor, std::string_view op) {
  if (tensor.dims().size() != 4)
    throw Error(std::string(op) + " input " + dims_text(tensor.dims()) + " is not NCHW",
                "float64 reference backend");
}

ParamTensors make_param(const Dims& dims) {
  return {make_tensor(dims), make_tensor(dims), make_tensor(dims)};
}

}  // namespace parity::trainer::reference
