// cuDNN descriptors owned by one object each (RAII, not copyable), with the
// setters this backend uses: 4-D tensors and filters are NHWC, of the
// element type given (float32, float16 or bfloat16).
#pragma once

#include <cudnn.h>

#include <cstdint>

#include "cuda_check.hpp"
#include "parity/trainer/backend/precision.hpp"

namespace parity::trainer::cuda {

inline cudnnDataType_t cudnn_type(Precision type) {
  switch (type) {
    case Precision::kFloat16:
      return CUDNN_DATA_HALF;
    case Precision::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    case Precision::kFloat64:  // never: make_cuda_backend refuses float64
      return CUDNN_DATA_DOUBLE;
    case Precision::kFloat32:
      break;
  }
  return CUDNN_DATA_FLOAT;
}

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
  TensorDescriptor(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, Precision type) {
    PARITY_CUDNN_CHECK(cudnnSetTensor4dDescriptor(get(), CUDNN_TENSOR_NHWC, cudnn_type(type),
                                                  int(n), int(c), int(h), int(w)));
  }
};

class FilterDescriptor
    : public CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                             cudnnDestroyFilterDescriptor> {
 public:
  // [out, in, kh, kw] weights stored NHWC (out, kh, kw, in).
  FilterDescriptor(std::int64_t out, std::int64_t in, std::int64_t kh, std::int64_t kw,
                   Precision type) {
    PARITY_CUDNN_CHECK(cudnnSetFilter4dDescriptor(get(), cudnn_type(type), CUDNN_TENSOR_NHWC,
                                                  int(out), int(in), int(kh), int(kw)));
  }
};

class ConvolutionDescriptor
    : public CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                             cudnnDestroyConvolutionDescriptor> {
 public:
  // Symmetric padding (cuDNN has no other), float32 accumulation for every
  // data type. `tf32` lets float32 convolutions use TF32 tensor cores,
  // otherwise only FMA kernels run (full float32); float16 and bfloat16
  // run on tensor cores.
  ConvolutionDescriptor(std::int64_t padding, std::int64_t stride, Precision type, bool tf32) {
    PARITY_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(get(), int(padding), int(padding),
                                                       int(stride), int(stride), 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    requested_math_ = type != Precision::kFloat32 ? CUDNN_TENSOR_OP_MATH
                      : tf32                      ? CUDNN_DEFAULT_MATH
                                                  : CUDNN_FMA_MATH;
    set_math(requested_math_);
  }

  // cuDNN's algorithm search reports the math type each algorithm was timed
  // with, and a convolution must run with that one (PyTorch sets it from the
  // search's result before every call); a search runs with the requested one.
  cudnnMathType_t requested_math() const { return requested_math_; }
  // Const: it changes the cuDNN object only, which every call sets anew.
  void set_math(cudnnMathType_t math) const {
    PARITY_CUDNN_CHECK(cudnnSetConvolutionMathType(get(), math));
  }

 private:
  cudnnMathType_t requested_math_ = CUDNN_DEFAULT_MATH;
};

}  // namespace parity::trainer::cuda
