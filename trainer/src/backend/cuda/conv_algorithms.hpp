// Convolution algorithm selection: each direction of each convolution shape
// is benchmarked once (cuDNN's Find...Ex on the op's own buffers) and the
// fastest algorithm that fits the workspace limit is kept in the context for
// every op of that shape, with the math type it was timed with. A
// deterministic backend takes the first deterministic algorithm of cuDNN's
// heuristic ranking instead (Get..._v7): the same on every run.
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
  std::string key;  // type, shapes, stride and padding: equal keys, equal convolutions
};

ConvAlgorithm forward_algorithm(Context& context, const ConvDescriptors& d, const void* x,
                                const void* w, void* y);
ConvAlgorithm backward_data_algorithm(Context& context, const ConvDescriptors& d, const void* w,
                                      const void* dy, void* dx);
ConvAlgorithm backward_filter_algorithm(Context& context, const ConvDescriptors& d, const void* x,
                                        const void* dy, void* dw);

}  // namespace parity::trainer::cuda
