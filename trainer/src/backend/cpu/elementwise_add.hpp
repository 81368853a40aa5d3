// a + b (optionally followed by a ReLU) on oneDNN's binary primitive, in the
// first operand's layout; one primitive per pair of input layouts.
#pragma once

#include <deque>
#include <tuple>

#include "cpu_context.hpp"

namespace parity::trainer::cpu {

class ElementwiseAdd {
 public:
  enum Activation { kNone, kWithRelu };
  ElementwiseAdd(Context& context, Activation activation)
      : context_(context), activation_(activation) {}

  Tensor run(const Tensor& a, const Tensor& b);

 private:
  dnnl::binary& primitive_for(const dnnl::memory::desc& a, const dnnl::memory::desc& b);

  Context& context_;
  Activation activation_;
  std::deque<std::tuple<dnnl::memory::desc, dnnl::memory::desc, dnnl::binary>> primitives_;
};

}  // namespace parity::trainer::cpu
