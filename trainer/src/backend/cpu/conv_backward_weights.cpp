#include "conv_backward_weights.hpp"

#include <cstring>

namespace parity::trainer::cpu {
namespace {

using dnnl::memory;

memory::desc any_layout(const Dims& dims) {
  return {to_dnnl(dims), memory::data_type::f32, memory::format_tag::any};
}

}  // namespace

ConvBackwardWeights::ConvBackwardWeights(Context& context, const Conv2dSpec& spec,
                                         const dnnl::convolution_forward::primitive_desc& forward)
    : context_(context), spec_(spec), forward_(forward) {
  pd_ = make_pd(forward.src_desc(), forward.weights_desc(), forward.dst_desc(), false);
  // oneDNN 2.6 has no JIT backward-weights kernel on AVX2 for a convolution
  // whose image is smaller than its kernel (layer3 and layer4 of ResNet-50 at
  // 2x2 and 1x1 with the ImageNet stem at 32 px): it falls back to its
  // reference kernel, which took 29 of a step's 36 s on a 2-core AVX2 machine.
  // With the padding made part of the image the JIT kernel takes it; failing
  // that, a GEMM kernel in layouts of oneDNN's choice is still far faster.
  if (is_reference_kernel(pd_) && !try_explicit_padding()) try_chosen_layouts();
  note_reference_kernel(context, pd_);
  primitive_ = dnnl::convolution_backward_weights(pd_);
}

dnnl::convolution_backward_weights::primitive_desc ConvBackwardWeights::make_pd(
    const memory::desc& src, const memory::desc& diff_weights, const memory::desc& diff_dst,
    bool explicit_padding) const {
  const memory::dims strides{spec_.stride, spec_.stride};
  const memory::dims pads = explicit_padding ? memory::dims{0, 0}
                                             : memory::dims{spec_.padding, spec_.padding};
  const memory::dims end_pads = explicit_padding
                                    ? memory::dims{0, 0}
                                    : memory::dims{spec_.end_padding(), spec_.end_padding()};
  return dnnl::convolution_backward_weights::primitive_desc(
      dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src,
                                               diff_weights, diff_dst, strides, pads, end_pads),
      context_.engine, forward_);
}

bool ConvBackwardWeights::try_explicit_padding() {
  if (spec_.padding == 0 && spec_.end_padding() == 0) return false;
  const Dims& input = spec_.input;
  const std::int64_t border = spec_.padding + spec_.end_padding();
  const Dims padded{input[0], input[1], input[2] + border, input[3] + border};
  auto pd = make_pd(any_layout(padded), forward_.weights_desc(), forward_.dst_desc(), true);
  if (is_reference_kernel(pd)) return false;
  pd_ = pd;
  form_ = "explicit padding";
  padded_input_ = make_tensor(context_, padded, pd_.src_desc());
  // The border stays zero: each step writes only the inside.
  std::memset(cpu_tensor(padded_input_).data(), 0, cpu_tensor(padded_input_).bytes());
  return true;
}

void ConvBackwardWeights::try_chosen_layouts() {
  const Dims weights{spec_.out_channels, spec_.in_channels, spec_.kernel, spec_.kernel};
  const Dims& input = spec_.input;
  const Dims output{input[0], spec_.out_channels, spec_.output_size(input[2]),
                    spec_.output_size(input[3])};
  auto pd = make_pd(any_layout(input), any_layout(weights), any_layout(output), false);
  if (is_reference_kernel(pd)) return;
  pd_ = pd;
  form_ = "chosen layouts";
  if (pd_.diff_weights_desc() != forward_.weights_desc())
    weight_grad_staging_ = make_tensor(context_, weights, pd_.diff_weights_desc());
}

void ConvBackwardWeights::run(const Tensor& input, const Tensor& grad_out,
                              const Tensor& weight_grad) {
  Tensor src;
  if (padded_input_.defined()) {
    const Dims& dims = spec_.input;
    memory::desc inside = pd_.src_desc().submemory_desc(
        to_dnnl(dims), {0, 0, spec_.padding, spec_.padding});
    memory window(inside, context_.engine, cpu_tensor(padded_input_).data());
    reorder(context_, mem(input), window, ReorderKind::kActivation);
    src = padded_input_;
  } else {
    src = in_layout(context_, input, pd_.src_desc());
  }
  const bool staged = weight_grad_staging_.defined();
  execute(context_, primitive_,
          {{DNNL_ARG_SRC, mem(src)},
           {DNNL_ARG_DIFF_DST, mem(grad_out)},
           {DNNL_ARG_DIFF_WEIGHTS, mem(staged ? weight_grad_staging_ : weight_grad)}});
  if (staged) reorder(context_, mem(weight_grad_staging_), mem(weight_grad), ReorderKind::kWeight);
}

}  // namespace parity::trainer::cpu
