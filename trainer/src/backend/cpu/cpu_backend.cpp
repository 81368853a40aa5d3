#include "parity/trainer/backend/cpu_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "cpu_ops.hpp"
#include "elementwise_add.hpp"
#include "gradient_arena.hpp"
#include "parity/core/error.hpp"
#include "sgd_kernel.hpp"
#include "sign_packing.hpp"
#include "weight_mirror.hpp"

namespace parity::trainer {
namespace {

using cpu::Context;
using cpu::cpu_tensor;

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const CpuBackendOptions& options)
      : add_(context_, cpu::ElementwiseAdd::kNone) {
    // oneDNN runs on the OpenMP runtime it was built with (libgomp), which is
    // ours too: this sets the thread count of every primitive.
    omp_set_num_threads(options.threads > 0 ? options.threads : omp_get_num_procs());
    // oneDNN's CPU primitives give the same bits for the same thread count;
    // a dynamic OpenMP runtime could change the count between steps.
    if (options.fixed_threads) omp_set_dynamic(0);
  }

  std::string_view name() const override { return "cpu"; }

  std::string describe() const override {
    const dnnl_version_t* v = dnnl_version();
    static const char* const kIsaNames[] = {"any", "sse41", "avx", "avx2", "avx512_core"};
    const auto isa = dnnl::get_effective_cpu_isa();
    const char* isa_name = "other";
    if (isa == dnnl::cpu_isa::avx512_core || isa == dnnl::cpu_isa::avx512_core_vnni ||
        isa == dnnl::cpu_isa::avx512_core_bf16)
      isa_name = kIsaNames[4];
    else if (isa == dnnl::cpu_isa::avx2 || isa == dnnl::cpu_isa::avx2_vnni)
      isa_name = kIsaNames[3];
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch) + " (" + isa_name + "), " +
           std::to_string(omp_get_max_threads()) + " OpenMP threads";
  }

  std::unique_ptr<LayerOp> conv2d(const Conv2dSpec& spec) override {
    return cpu::make_conv2d(context_, spec);
  }
  std::unique_ptr<LayerOp> batch_norm(const BatchNormSpec& spec) override {
    return cpu::make_batch_norm(context_, spec);
  }
  std::unique_ptr<LayerOp> relu() override { return cpu::make_relu(context_); }
  std::unique_ptr<LayerOp> max_pool(const PoolSpec& spec) override {
    return cpu::make_max_pool(context_, spec);
  }
  std::unique_ptr<LayerOp> global_avg_pool() override {
    return cpu::make_global_avg_pool(context_);
  }
  std::unique_ptr<LayerOp> linear(const LinearSpec& spec) override {
    return cpu::make_linear(context_, spec);
  }
  std::unique_ptr<ResidualOp> residual_add_relu() override {
    return cpu::make_residual_add_relu(context_);
  }

  Tensor from_host(const Dims& dims, std::span<const float> values) override {
    check_count(dims, values.size());
    Tensor tensor = cpu::make_tensor(context_, dims, cpu::plain_desc(dims));
    std::memcpy(cpu_tensor(tensor).data(), values.data(), values.size_bytes());
    return tensor;
  }

  std::vector<float> to_host(const Tensor& tensor) override {
    std::vector<float> values(static_cast<std::size_t>(tensor.element_count()));
    copy_to_host(tensor, values);
    return values;
  }

  void copy_to_host(const Tensor& tensor, std::span<float> values) override {
    check_count(tensor.dims(), values.size());
    cpu::CpuTensor& source = cpu_tensor(tensor);
    const dnnl::memory::desc plain = cpu::plain_desc(tensor.dims());
    if (source.desc() == plain) {
      std::memcpy(values.data(), source.data(), values.size() * sizeof(float));
    } else {
      dnnl::memory target(plain, context_.engine, values.data());
      cpu::reorder(context_, source.memory(), target, kind_of(source));
    }
  }

  std::optional<std::span<const float>> host_elements(const Tensor& tensor) override {
    cpu::CpuTensor& source = cpu_tensor(tensor);
    const auto count = static_cast<std::size_t>(tensor.element_count());
    if (source.desc().data_type() != dnnl::memory::data_type::f32 ||
        source.bytes() != count * sizeof(float))
      return std::nullopt;  // padded blocks: their zeros would count
    return std::span<const float>(source.data(), count);
  }

  bool pack_signs(const Tensor& tensor, std::span<std::uint64_t> words) override {
    cpu::CpuTensor& source = cpu_tensor(tensor);
    cpu::pack_signs_in_layout(source.desc(), source.data(), words);
    return true;
  }

  void write(const Tensor& tensor, std::span<const float> values) override {
    check_count(tensor.dims(), values.size());
    cpu::CpuTensor& target = cpu_tensor(tensor);
    const dnnl::memory::desc plain = cpu::plain_desc(tensor.dims());
    if (target.desc() == plain) {
      std::memcpy(target.data(), values.data(), values.size_bytes());
    } else {
      dnnl::memory source(plain, context_.engine, const_cast<float*>(values.data()));
      cpu::reorder(context_, source, target.memory(), kind_of(target));
    }
    if (target.mirror()) target.mirror()->refresh(target.data());
  }

  void fill(const Tensor& tensor, float value) override {
    // Through write(): blocked layouts have padding that must stay zero.
    write(tensor, std::vector<float>(static_cast<std::size_t>(tensor.element_count()), value));
  }

  Tensor add(const Tensor& a, const Tensor& b) override { return add_.run(a, b); }

  void sgd_update(ParamTensors& param, const SgdStep& step) override {
    cpu::CpuTensor& value = cpu_tensor(param.value);
    cpu::CpuTensor& grad = cpu_tensor(param.grad);
    cpu::CpuTensor& momentum = cpu_tensor(param.momentum);
    if (grad.desc() != value.desc() || momentum.desc() != value.desc())
      throw Error("a parameter's value, gradient and momentum differ in layout", "cpu backend");
    const SgdCoefficients coefficients = sgd_coefficients(step);
    if (value.mirror()) {
      value.mirror()->sgd_update(value.data(), grad.data(), momentum.data(), coefficients);
    } else {
      cpu::sgd_update_plain(value.data(), grad.data(), momentum.data(),
                            value.bytes() / sizeof(float), coefficients);
    }
  }

  bool gradients_finite(std::span<ParamTensors* const> params) override {
    return std::all_of(params.begin(), params.end(), [](const ParamTensors* p) {
      cpu::CpuTensor& grad = cpu_tensor(p->grad);
      return cpu::all_finite(grad.data(), grad.bytes() / sizeof(float));
    });
  }

  BackendLoss cross_entropy(const Tensor& logits, std::span<const std::int32_t> labels,
                            const LossOptions& options) override {
    const LossResult host =
        softmax_cross_entropy(to_host(logits), labels, logits.dims().at(1), options);
    return {host.loss, host.correct, from_host(logits.dims(), host.grad_logits)};
  }

  std::vector<std::span<float>> contiguous_gradients(
      std::span<ParamTensors* const> params) override {
    return cpu::move_gradients_together(params);
  }

  BackendStats stats() const override { return context_.stats; }
  void set_recorder(profiler::Recorder* recorder) override { context_.recorder = recorder; }

 private:
  static cpu::ReorderKind kind_of(const cpu::CpuTensor& tensor) {
    return tensor.is_parameter() ? cpu::ReorderKind::kWeight : cpu::ReorderKind::kActivation;
  }
  static void check_count(const Dims& dims, std::size_t count) {
    if (static_cast<std::int64_t>(count) != element_count(dims))
      throw Error(std::to_string(count) + " values for a tensor of " + dims_text(dims),
                  "cpu backend");
  }

  Context context_;
  cpu::ElementwiseAdd add_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const CpuBackendOptions& options) {
  return std::make_unique<CpuBackend>(options);
}

}  // namespace parity::trainer
