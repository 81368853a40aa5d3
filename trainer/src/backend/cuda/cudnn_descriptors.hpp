// cuDNN descriptors owned by one object each (RAII, not copyable), with the
// setters this backend uses: 4-D tensors and filters are NHWC, float.
#pragma once

#include <cudnn.h>

#include <cstdint>

#include "cuda_check.hpp"

namespace parity::trainer::cuda {

template <class Handle, cudnnStatus_t (*Create)(Handle*), cudnnStatus_t (*Destroy)(Handle)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() { PARITY_CUDNN_CHECK(Create(&handle_)); }
  ~CudnnDescriptor() { (void)Destroy(handle_); }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

class TensorDescriptor
    : public CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                             cudnnDestroyTensorDescriptor> {
 public:
  // An [N, C, H, W] tensor stored NHWC.
  TensorDescriptor(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
    PARITY_CUDNN_CHECK(cudnnSetTensor4dDescriptor(get(), CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                                                  int(n), int(c), int(h), int(w)));
  }
};

class FilterDescriptor
    : public CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                             cudnnDestroyFilterDescriptor> {
 public:
  // [out, in, kh, kw] weights stored NHWC (out, kh, kw, in).
  FilterDescriptor(std::int64_t out, std::int64_t in, std::int64_t kh, std::int64_t kw) {
    PARITY_CUDNN_CHECK(cudnnSetFilter4dDescriptor(get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
                                                  int(out), int(in), int(kh), int(kw)));
  }
};

class ConvolutionDescriptor
    : public CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                             cudnnDestroyConvolutionDescriptor> {
 public:
  // Symmetric padding (cuDNN has no other); `tf32` lets float convolutions
  // use TF32 tensor cores, otherwise only FMA kernels run (full float32).
  ConvolutionDescriptor(std::int64_t padding, std::int64_t stride, bool tf32) {
    PARITY_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(get(), int(padding), int(padding),
                                                       int(stride), int(stride), 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    PARITY_CUDNN_CHECK(
        cudnnSetConvolutionMathType(get(), tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  }
};

}  // namespace parity::trainer::cuda
