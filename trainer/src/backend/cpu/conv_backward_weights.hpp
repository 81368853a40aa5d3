// A convolution's weight gradient on oneDNN, in the fastest form oneDNN
// offers for the convolution's shape: directly in the forward's layouts when
// a JIT kernel takes them, else on an explicitly zero-padded copy of the
// input, else in layouts of oneDNN's choice (converted on the way in and out).
#pragma once

#include <string_view>

#include "cpu_context.hpp"

namespace parity::trainer::cpu {

class ConvBackwardWeights {
 public:
  // `forward` is the training forward of the convolution `spec` describes.
  ConvBackwardWeights(Context& context, const Conv2dSpec& spec,
                      const dnnl::convolution_forward::primitive_desc& forward);

  // The layout `run` wants the output gradient in.
  dnnl::memory::desc diff_dst_desc() const { return pd_.diff_dst_desc(); }
  // Writes d(loss)/d(weights) into `weight_grad` (in the forward's weight layout)
  // from the forward's input and the output gradient (in diff_dst_desc()).
  void run(const Tensor& input, const Tensor& grad_out, const Tensor& weight_grad);
  // "direct", "explicit padding" or "chosen layouts": which form was taken.
  std::string_view form() const { return form_; }

 private:
  dnnl::convolution_backward_weights::primitive_desc make_pd(const dnnl::memory::desc& src,
                                                             const dnnl::memory::desc& diff_weights,
                                                             const dnnl::memory::desc& diff_dst,
                                                             bool explicit_padding) const;
  bool try_explicit_padding();
  void try_chosen_layouts();

  Context& context_;
  Conv2dSpec spec_;
  dnnl::convolution_forward::primitive_desc forward_;
  dnnl::convolution_backward_weights::primitive_desc pd_;
  dnnl::convolution_backward_weights primitive_;
  std::string_view form_ = "direct";
  Tensor padded_input_;      // explicit padding: the input inside a zero border
  Tensor weight_grad_staging_;  // chosen layouts: the gradient before its conversion
};

}  // namespace parity::trainer::cpu
