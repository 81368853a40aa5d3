// Batch normalization on oneDNN, optionally with the following ReLU fused in
// (oneDNN's fuse_norm_relu keeps a bit mask workspace for the backward pass).
// The training forward normalizes with batch statistics accumulated in
// float64 (batch_statistics.hpp), given to oneDNN as if they were global
// statistics; the backward pass is oneDNN's training backward, which takes
// the mean and variance as inputs either way. Running statistics follow
// PyTorch: the running variance is updated with the unbiased batch variance.
#include <algorithm>
#include <deque>
#include <vector>

#include "batch_statistics.hpp"
#include "cpu_ops.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cpu {
namespace {

using dnnl::memory;
using flags = dnnl::normalization_flags;

class BatchNormOp final : public LayerOp {
 public:
  BatchNormOp(Context& context, const BatchNormSpec& spec) : context_(context), spec_(spec) {
    const Dims channels{spec.channels};
    const memory::desc vector_desc = plain_desc(channels);
    gamma_ = make_param(context, channels, vector_desc);
    beta_ = make_param(context, channels, vector_desc);
    running_mean_ = make_tensor(context, channels, vector_desc);
    running_var_ = make_tensor(context, channels, vector_desc);
    fill(gamma_.value, 1.0f);
    fill(running_mean_, 0.0f);
    fill(running_var_, 1.0f);
    batch_mean_ = make_tensor(context, channels, vector_desc);
    batch_var_ = make_tensor(context, channels, vector_desc);
    const auto count = static_cast<std::size_t>(spec.channels);
    exact_mean_.resize(count);
    exact_var_.resize(count);
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    if (x.dims().size() != 4 || x.dims()[1] != spec_.channels)
      throw Error("batch norm input " + dims_text(x.dims()) + " does not have " +
                      std::to_string(spec_.channels) + " channels",
                  "cpu backend");
    const memory::desc& layout = cpu_tensor(x).desc();
    Plan& plan = plan_for(layout, mode);
    Tensor y = make_tensor(context_, x.dims(), layout);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(x)},
                                         {DNNL_ARG_DST, mem(y)},
                                         {DNNL_ARG_SCALE, mem(gamma_.value)},
                                         {DNNL_ARG_SHIFT, mem(beta_.value)}};
    if (mode == Mode::kEval) {
      args[DNNL_ARG_MEAN] = mem(running_mean_);
      args[DNNL_ARG_VARIANCE] = mem(running_var_);
      execute(context_, plan.forward, args);
      return y;
    }
    compute_batch_statistics(x);
    args[DNNL_ARG_MEAN] = mem(batch_mean_);
    args[DNNL_ARG_VARIANCE] = mem(batch_var_);
    if (spec_.fused_relu) {
      workspace_ = make_tensor(context_, {}, plan.forward_pd.workspace_desc());
      args[DNNL_ARG_WORKSPACE] = mem(workspace_);
    }
    execute(context_, plan.forward, args);
    update_running_stats(x.dims());
    saved_input_ = x;
    saved_plan_ = &plan;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("batch norm backward without a training forward", "cpu backend");
    const memory::desc& layout = cpu_tensor(saved_input_).desc();
    const Tensor grad_out = in_layout(context_, dy, layout);
    Tensor dx = make_tensor(context_, saved_input_.dims(), layout);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, mem(saved_input_)},      {DNNL_ARG_MEAN, mem(batch_mean_)},
        {DNNL_ARG_VARIANCE, mem(batch_var_)},   {DNNL_ARG_DIFF_DST, mem(grad_out)},
        {DNNL_ARG_SCALE, mem(gamma_.value)},    {DNNL_ARG_SHIFT, mem(beta_.value)},
        {DNNL_ARG_DIFF_SRC, mem(dx)},
        {DNNL_ARG_DIFF_SCALE, mem(gamma_.grad)}, {DNNL_ARG_DIFF_SHIFT, mem(beta_.grad)}};
    if (spec_.fused_relu) args[DNNL_ARG_WORKSPACE] = mem(workspace_);
    execute(context_, saved_plan_->backward, args);
    saved_input_ = Tensor();
    return dx;
  }

  std::string_view kind() const override { return spec_.fused_relu ? "batch_norm_relu" : "batch_norm"; }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &gamma_, {spec_.channels}, false}, {"bias", &beta_, {spec_.channels}, false}};
  }
  std::vector<BufferSlot> buffers() override {
    return {{"running_mean", &running_mean_, {spec_.channels}},
            {"running_var", &running_var_, {spec_.channels}}};
  }

 private:
  struct Plan {
    memory::desc layout;
    Mode mode;
    dnnl::batch_normalization_forward::primitive_desc forward_pd;
    dnnl::batch_normalization_forward forward;
    dnnl::batch_normalization_backward backward;
  };

  flags training_flags() const {
    const flags f = flags::use_scale | flags::use_shift;
    return spec_.fused_relu ? f | flags::fuse_norm_relu : f;
  }

  Plan& plan_for(const memory::desc& layout, Mode mode) {
    for (auto& plan : plans_)
      if (plan.mode == mode && plan.layout == layout) return plan;
    const float eps = static_cast<float>(spec_.eps);
    const auto forward_pd_with = [&](dnnl::prop_kind kind, flags f) {
      return dnnl::batch_normalization_forward::primitive_desc(
          dnnl::batch_normalization_forward::desc(kind, layout, eps, f), context_.engine);
    };
    // Both modes read the statistics they are given: the running ones in
    // evaluation, the float64 batch ones in training.
    const flags given_stats = training_flags() | flags::use_global_stats;
    auto forward_pd = forward_pd_with(mode == Mode::kTrain ? dnnl::prop_kind::forward_training
                                                           : dnnl::prop_kind::forward_inference,
                                      given_stats);
    dnnl::batch_normalization_backward backward;
    // The backward pass of normalizing with batch statistics (their gradients
    // included), hinted by the forward pass that would compute them.
    if (mode == Mode::kTrain)
      backward = dnnl::batch_normalization_backward(
          dnnl::batch_normalization_backward::primitive_desc(
              dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward, layout, layout,
                                                       eps, training_flags()),
              context_.engine,
              forward_pd_with(dnnl::prop_kind::forward_training, training_flags())));
    plans_.push_back({layout, mode, forward_pd, dnnl::batch_normalization_forward(forward_pd),
                      backward});
    return plans_.back();
  }

  void compute_batch_statistics(const Tensor& x) {
    CpuTensor& input = cpu_tensor(x);
    batch_statistics(input.desc(), input.data(), exact_mean_, exact_var_);
    float* mean = cpu_tensor(batch_mean_).data();
    float* var = cpu_tensor(batch_var_).data();
    for (std::int64_t c = 0; c < spec_.channels; ++c) {
      mean[c] = float(exact_mean_[c]);
      var[c] = float(exact_var_[c]);
    }
  }

  void update_running_stats(const Dims& dims) {
    const double n = double(dims[0]) * double(dims[2]) * double(dims[3]);
    const double m = spec_.momentum, unbiased = n > 1 ? n / (n - 1) : 1.0;
    float* running_mean = cpu_tensor(running_mean_).data();
    float* running_var = cpu_tensor(running_var_).data();
    for (std::int64_t c = 0; c < spec_.channels; ++c) {
      running_mean[c] = float((1 - m) * running_mean[c] + m * exact_mean_[c]);
      running_var[c] = float((1 - m) * running_var[c] + m * exact_var_[c] * unbiased);
    }
  }

  static void fill(const Tensor& tensor, float value) {
    CpuTensor& t = cpu_tensor(tensor);
    std::fill(t.data(), t.data() + tensor.element_count(), value);
  }

  Context& context_;
  BatchNormSpec spec_;
  ParamTensors gamma_, beta_;
  Tensor running_mean_, running_var_, batch_mean_, batch_var_;
  std::vector<double> exact_mean_, exact_var_;  // the last training batch's, in float64
  std::deque<Plan> plans_;  // a deque: saved_plan_ stays valid when plans are added
  Tensor saved_input_;
  Plan* saved_plan_ = nullptr;
  Tensor workspace_;
};

}  // namespace

std::unique_ptr<LayerOp> make_batch_norm(Context& context, const BatchNormSpec& spec) {
  return std::make_unique<BatchNormOp>(context, spec);
}

}  // namespace parity::trainer::cpu
