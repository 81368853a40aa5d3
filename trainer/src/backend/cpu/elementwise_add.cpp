#include "elementwise_add.hpp"

#include "parity/core/error.hpp"

namespace parity::trainer::cpu {

Tensor ElementwiseAdd::run(const Tensor& a, const Tensor& b) {
  if (a.dims() != b.dims())
    throw Error("cannot add " + dims_text(a.dims()) + " and " + dims_text(b.dims()), "cpu backend");
  const dnnl::memory::desc& layout = cpu_tensor(a).desc();
  Tensor sum = make_tensor(context_, a.dims(), layout);
  execute(context_, primitive_for(layout, cpu_tensor(b).desc()),
          {{DNNL_ARG_SRC_0, mem(a)}, {DNNL_ARG_SRC_1, mem(b)}, {DNNL_ARG_DST, mem(sum)}});
  return sum;
}

dnnl::binary& ElementwiseAdd::primitive_for(const dnnl::memory::desc& a,
                                           const dnnl::memory::desc& b) {
  for (auto& [known_a, known_b, primitive] : primitives_)
    if (known_a == a && known_b == b) return primitive;
  dnnl::primitive_attr attributes;
  if (activation_ == kWithRelu) {
    dnnl::post_ops post_ops;
    post_ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attributes.set_post_ops(post_ops);
  }
  dnnl::binary primitive(dnnl::binary::primitive_desc(
      dnnl::binary::desc(dnnl::algorithm::binary_add, a, b, a), attributes, context_.engine));
  return std::get<2>(primitives_.emplace_back(a, b, primitive));
}

}  // namespace parity::trainer::cpu
