// Convolution algorithm selection: each direction of each convolution shape
// is benchmarked once (cuDNN's Find...Ex on the op's own buffers) and the
// fastest algorithm that fits the workspace limit, and is deterministic when
// the backend was asked for that, is kept in the context for every op of
// that shape.
#pragma once

#include <string>

#include "cuda_context.hpp"
#include "cudnn_descriptors.hpp"

namespace parity::trainer::cuda {

struct ConvDescriptors {
  const TensorDescriptor& x;
  const FilterDescriptor& w;
  const ConvolutionDescriptor& conv;
  const TensorDescriptor& y;
  std::string key;  // the shapes, stride and padding: equal keys, equal convolutions
};

ConvAlgorithm forward_algorithm(Context& context, const ConvDescriptors& d, const float* x,
                                const float* w, float* y);
ConvAlgorithm backward_data_algorithm(Context& context, const ConvDescriptors& d, const float* w,
                                      const float* dy, float* dx);
ConvAlgorithm backward_filter_algorithm(Context& context, const ConvDescriptors& d, const float* x,
                                        const float* dy, float* dw);

}  // namespace parity::trainer::cuda
