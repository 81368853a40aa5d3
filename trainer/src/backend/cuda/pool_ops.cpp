// Pooling on our own kernels (pool_kernels.cu): max pooling that keeps the
// position of each window's maximum for its backward pass, and global
// average pooling to [N, C, 1, 1], both in the activations' precision.
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "device_buffer.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

class MaxPoolOp final : public LayerOp {
 public:
  MaxPoolOp(Context& context, const PoolSpec& spec) : context_(context), spec_(spec) {
    if (spec.kernel < 1 || spec.stride < 1 || spec.padding < 0 || spec.padding >= spec.kernel)
      throw Error("max pooling of kernel " + std::to_string(spec.kernel) + ", stride " +
                      std::to_string(spec.stride) + ", padding " + std::to_string(spec.padding) +
                      " (the padding must be below the kernel)",
                  "cuda backend");
  }
  std::string_view kind() const override { return "max_pool"; }

  Tensor forward(const Tensor& input, Mode mode) override {
    if (input.dims().size() != 4)
      throw Error("pooling input " + dims_text(input.dims()) + " is not NCHW", "cuda backend");
    const Tensor x = as_activation(context_, input);
    const Dims& d = x.dims();
    const kernels::PoolShape shape{d[0],         d[2],           d[3],
                                   d[1],         out_size(d[2]), out_size(d[3]),
                                   spec_.kernel, spec_.stride,   spec_.padding};
    Tensor y = make_activation(context_, {d[0], d[1], shape.out_h, shape.out_w});
    DeviceBuffer argmax(std::size_t(y.element_count()) * sizeof(std::int32_t), context_.stream);
    kernels::max_pool_forward(type_of(x), raw(x), raw(y), argmax.as<std::int32_t>(), shape,
                              context_.stream);
    if (mode == Mode::kTrain) {
      argmax_ = std::move(argmax);
      saved_shape_ = shape;
      saved_input_dims_ = d;
    }
    return y;
  }

  Tensor backward(const Tensor& incoming) override {
    if (!argmax_.data()) throw Error("pooling backward without a training forward", "cuda backend");
    const kernels::PoolShape& s = saved_shape_;
    if (incoming.dims() != Dims{s.n, s.c, s.out_h, s.out_w})
      throw Error(
          "pooling output gradient " + dims_text(incoming.dims()) + " does not match the forward",
          "cuda backend");
    const Tensor dy = as_activation(context_, incoming);
    Tensor dx = make_activation(context_, saved_input_dims_);
    kernels::max_pool_backward(type_of(dy), raw(dy), argmax_.as<std::int32_t>(), raw(dx), s,
                               context_.stream);
    argmax_ = DeviceBuffer();
    return dx;
  }

 private:
  std::int64_t out_size(std::int64_t size) const {
    return (size + 2 * spec_.padding - spec_.kernel) / spec_.stride + 1;
  }

  Context& context_;
  PoolSpec spec_;
  DeviceBuffer argmax_;
  kernels::PoolShape saved_shape_{};
  Dims saved_input_dims_;
};

class GlobalAvgPoolOp final : public LayerOp {
 public:
  explicit GlobalAvgPoolOp(Context& context) : context_(context) {}
  std::string_view kind() const override { return "avg_pool"; }

  Tensor forward(const Tensor& input, Mode mode) override {
    if (input.dims().size() != 4)
      throw Error("pooling input " + dims_text(input.dims()) + " is not NCHW", "cuda backend");
    const Tensor x = as_activation(context_, input);
    const Dims& d = x.dims();
    Tensor y = make_activation(context_, {d[0], d[1], 1, 1});
    kernels::global_avg_pool_forward(type_of(x), raw(x), raw(y), d[0], d[2] * d[3], d[1],
                                     context_.stream);
    if (mode == Mode::kTrain) saved_input_dims_ = d;
    return y;
  }

  Tensor backward(const Tensor& incoming) override {
    if (saved_input_dims_.empty())
      throw Error("pooling backward without a training forward", "cuda backend");
    const Dims d = saved_input_dims_;
    if (incoming.element_count() != d[0] * d[1])
      throw Error(
          "pooling output gradient " + dims_text(incoming.dims()) + " does not match the forward",
          "cuda backend");
    const Tensor dy = as_activation(context_, incoming);
    Tensor dx = make_activation(context_, d);
    kernels::global_avg_pool_backward(type_of(dy), raw(dy), raw(dx), d[0], d[2] * d[3], d[1],
                                      context_.stream);
    saved_input_dims_.clear();
    return dx;
  }

 private:
  Context& context_;
  Dims saved_input_dims_;
};

}  // namespace

std::unique_ptr<LayerOp> make_max_pool(Context& context, const PoolSpec& spec) {
  return std::make_unique<MaxPoolOp>(context, spec);
}

std::unique_ptr<LayerOp> make_global_avg_pool(Context& context) {
  return std::make_unique<GlobalAvgPoolOp>(context);
}

}  // namespace parity::trainer::cuda
