#include "parity/trainer/backend/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cudnn.h>

#include <numeric>

#include "cuda_check.hpp"
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "gradient_check.hpp"
#include "input_stager.hpp"
#include "kernels.hpp"
#include "kronecker_engine.hpp"
#include "parity/core/error.hpp"
#include "sgd_table.hpp"

namespace parity::trainer {
namespace {

using cuda::Context;
using cuda::data;
using cuda::DeviceBuffer;

// Smoothed targets, as softmax_cross_entropy() defines them.
std::pair<double, double> on_off_targets(const LossOptions& options, std::int64_t classes) {
  const double eps = options.smoothing;
  if (options.convention == SmoothingConvention::kPyTorch)
    return {1.0 - eps + eps / double(classes), eps / double(classes)};
  return {1.0 - eps, eps / double(classes - 1)};
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const CudaBackendOptions& options) : context_(checked(options)) {}

  std::string_view name() const override { return "cuda"; }

  std::string describe() const override {
    cudaDeviceProp properties{};
    PARITY_CUDA_CHECK(cudaGetDeviceProperties(&properties, context_.device));
    int runtime = 0;
    PARITY_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    int cublas = 0;
    PARITY_CUBLAS_CHECK(cublasGetVersion(context_.cublas, &cublas));
    const std::size_t cudnn = cudnnGetVersion();
    return std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
           std::to_string(properties.minor) + "), CUDA " + std::to_string(runtime / 1000) + "." +
           std::to_string(runtime % 1000 / 10) + ", cuDNN " + std::to_string(cudnn / 10000) + "." +
           std::to_string(cudnn / 100 % 100) + "." + std::to_string(cudnn % 100) + ", cuBLAS " +
           std::to_string(cublas / 10000) + "." + std::to_string(cublas / 100 % 100) +
           precision_text() + (context_.options.deterministic ? ", deterministic algorithms" : "");
  }

  std::unique_ptr<LayerOp> conv2d(const Conv2dSpec& spec) override {
    return cuda::make_conv2d(context_, spec);
  }
  std::unique_ptr<LayerOp> batch_norm(const BatchNormSpec& spec) override {
    return cuda::make_batch_norm(context_, spec);
  }
  std::unique_ptr<LayerOp> relu() override { return cuda::make_relu(context_); }
  std::unique_ptr<LayerOp> max_pool(const PoolSpec& spec) override {
    return cuda::make_max_pool(context_, spec);
  }
  std::unique_ptr<LayerOp> global_avg_pool() override {
    return cuda::make_global_avg_pool(context_);
  }
  std::unique_ptr<LayerOp> linear(const LinearSpec& spec) override {
    return cuda::make_linear(context_, spec);
  }
  std::unique_ptr<ResidualOp> residual_add_relu() override {
    return cuda::make_residual_add_relu(context_);
  }

  // A 4-D tensor is a batch of images: it goes through the input pipeline.
  Tensor from_host(const Dims& dims, std::span<const float> values) override {
    Tensor tensor = cuda::make_tensor(context_, dims);
    if (dims.size() != 4) {
      write(tensor, values);
      return tensor;
    }
    check_count(dims, values.size());
    stager_.upload(values, dims, data(tensor));
    return tensor;
  }

  std::vector<float> to_host(const Tensor& tensor) override {
    std::vector<float> values(std::size_t(tensor.element_count()));
    const Dims& d = tensor.dims();
    const Tensor widened = cuda::as_type(context_, tensor, Precision::kFloat32);
    const float* source = data(widened);
    DeviceBuffer plain;
    if (d.size() == 4) {
      plain = DeviceBuffer(values.size() * sizeof(float), context_.stream);
      cuda::kernels::nhwc_to_nchw(source, plain.as<float>(), d[0], d[1], d[2], d[3],
                                  context_.stream);
      source = plain.as<float>();
    }
    PARITY_CUDA_CHECK(cudaMemcpyAsync(values.data(), source, values.size() * sizeof(float),
                                      cudaMemcpyDeviceToHost, context_.stream));
    context_.synchronize();
    return values;
  }

  void write(const Tensor& tensor, std::span<const float> values) override {
    const Dims& d = tensor.dims();
    check_count(d, values.size());
    // Float32 in the tensor's layout first; a 16-bit tensor is rounded from it.
    const Precision type = cuda::type_of(tensor);
    const Tensor staged =
        type == Precision::kFloat32 ? tensor : cuda::make_tensor(context_, d, Precision::kFloat32);
    if (d.size() != 4) {
      PARITY_CUDA_CHECK(cudaMemcpyAsync(data(staged), values.data(), values.size_bytes(),
                                        cudaMemcpyHostToDevice, context_.stream));
    } else {
      const DeviceBuffer plain(values.size_bytes(), context_.stream);
      PARITY_CUDA_CHECK(cudaMemcpyAsync(plain.data(), values.data(), values.size_bytes(),
                                        cudaMemcpyHostToDevice, context_.stream));
      cuda::kernels::nchw_to_nhwc(plain.as<float>(), data(staged), d[0], d[1], d[2], d[3],
                                  context_.stream);
    }
    if (type != Precision::kFloat32)
      cuda::kernels::convert(Precision::kFloat32, cuda::raw(staged), type, cuda::raw(tensor),
                             tensor.element_count(), context_.stream);
  }

  void fill(const Tensor& tensor, float value) override {
    cuda::kernels::fill(cuda::type_of(tensor), cuda::raw(tensor), tensor.element_count(), value,
                        context_.stream);
  }

  Tensor add(const Tensor& a, const Tensor& b) override {
    if (a.dims() != b.dims())
      throw Error("add of " + dims_text(a.dims()) + " and " + dims_text(b.dims()), "cuda backend");
    Tensor y = cuda::make_activation(context_, a.dims());
    cuda::kernels::add(cuda::type_of(y), cuda::raw(cuda::as_activation(context_, a)),
                       cuda::raw(cuda::as_activation(context_, b)), cuda::raw(y), y.element_count(),
                       false, context_.stream);
    return y;
  }

  void sgd_update(ParamTensors& param, const SgdStep& step) override {
    ParamTensors* const one[] = {&param};
    single_.update(context_, one, std::span<const SgdStep>(&step, 1));
  }

  void sgd_update_all(std::span<ParamTensors* const> params,
                      std::span<const SgdStep> steps) override {
    all_.update(context_, params, steps);
  }

  bool gradients_finite(std::span<ParamTensors* const> params) override {
    return check_.count_non_finite(context_, params) == 0;
  }

  BackendLoss cross_entropy(const Tensor& any_logits, std::span<const std::int32_t> labels,
                            const LossOptions& options) override {
    // The classifier's logits are float32 already; the loss is computed in float32.
    const Tensor logits = cuda::as_type(context_, any_logits, Precision::kFloat32);
    const Dims& d = logits.dims();
    const auto rows = std::int64_t(labels.size());
    if (d.size() != 2 || d[0] != rows || d[1] < 2)
      throw Error("logits " + dims_text(d) + " for " + std::to_string(rows) + " labels",
                  "softmax cross-entropy");
    const std::int64_t classes = d[1];
    for (std::size_t n = 0; n < labels.size(); ++n)
      if (labels[n] < 0 || labels[n] >= classes)
        throw Error("label " + std::to_string(labels[n]) + " of sample " + std::to_string(n) +
                        " is outside [0, " + std::to_string(classes) + ")",
                    "softmax cross-entropy",
                    "class_num must cover every label of the dataset (labels count from 0)");
    // Labels in, per-row loss and hits out: one small buffer each way, the
    // doubles first so that they are 8-byte aligned whatever the row count.
    const std::size_t loss_bytes = std::size_t(rows) * sizeof(double);
    const std::size_t label_bytes = labels.size_bytes();
    const DeviceBuffer device(loss_bytes + label_bytes + std::size_t(rows) * sizeof(std::int32_t),
                              context_.stream);
    auto* row_loss_at = static_cast<double*>(device.data());
    auto* labels_at = reinterpret_cast<std::int32_t*>(row_loss_at + rows);
    std::int32_t* hits_at = labels_at + rows;
    PARITY_CUDA_CHECK(cudaMemcpyAsync(labels_at, labels.data(), label_bytes, cudaMemcpyHostToDevice,
                                      context_.stream));
    BackendLoss result;
    result.grad_logits = cuda::make_tensor(context_, d);
    const auto [on, off] = on_off_targets(options, classes);
    cuda::kernels::softmax_cross_entropy(
        {data(logits), labels_at, rows, classes, on, off, options.scale / double(rows),
         data(result.grad_logits), row_loss_at, hits_at},
        context_.stream);
    std::vector<double> row_loss(static_cast<std::size_t>(rows));
    std::vector<std::int32_t> row_correct(static_cast<std::size_t>(rows));
    PARITY_CUDA_CHECK(cudaMemcpyAsync(row_loss.data(), row_loss_at, loss_bytes,
                                      cudaMemcpyDeviceToHost, context_.stream));
    PARITY_CUDA_CHECK(cudaMemcpyAsync(row_correct.data(), hits_at,
                                      row_correct.size() * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToHost, context_.stream));
    context_.synchronize();
    // Summed here in row order: the same bits every run.
    result.loss = std::accumulate(row_loss.begin(), row_loss.end(), 0.0) / double(rows);
    result.correct = std::accumulate(row_correct.begin(), row_correct.end(), std::int64_t(0));
    return result;
  }

  std::vector<std::span<float>> contiguous_gradients(
      std::span<ParamTensors* const> params) override {
    // 256-byte alignment: every gradient starts where cuDNN and NCCL like it.
    constexpr std::size_t kAlignment = 256;
    const auto aligned = [](std::size_t bytes) {
      return (bytes + kAlignment - 1) / kAlignment * kAlignment;
    };
    std::size_t total = 0;
    for (const ParamTensors* p : params) total += aligned(cuda::cuda_tensor(p->grad).bytes());
    auto arena = std::make_shared<DeviceBuffer>(total, context_.stream);
    PARITY_CUDA_CHECK(cudaMemsetAsync(arena->data(), 0, total, context_.stream));
    std::vector<std::span<float>> spans;
    std::size_t offset = 0;
    for (ParamTensors* p : params) {
      cuda::CudaTensor& grad = cuda::cuda_tensor(p->grad);
      auto* target = static_cast<std::byte*>(arena->data()) + offset;
      PARITY_CUDA_CHECK(cudaMemcpyAsync(target, grad.data(), grad.bytes(), cudaMemcpyDeviceToDevice,
                                        context_.stream));
      grad.move_to(arena, offset);
      spans.emplace_back(reinterpret_cast<float*>(target), grad.count());
      offset += aligned(grad.bytes());
    }
    context_.synchronize();
    return spans;
  }

  // The whole device: the input stager's copy stream and NCCL's stream too,
  // so that a trace flushed after this holds no copy still in flight.
  std::unique_ptr<KroneckerEngine> kronecker_engine(std::span<const KroneckerLayerShape> layers) override {
    return cuda::make_kronecker_engine(context_, layers);
  }

  void synchronize() override { PARITY_CUDA_CHECK(cudaDeviceSynchronize()); }
  BackendStats stats() const override { return context_.stats; }

 private:
  // Its kernels are float32, float16 and bfloat16 only (launch.cuh).
  static const CudaBackendOptions& checked(const CudaBackendOptions& options) {
    if (options.precision == Precision::kFloat64)
      throw Error("the CUDA backend does not compute in float64", "cuda backend",
                  "train with precision: float64 and device_target: CPU (the float64 reference "
                  "backend)");
    return options;
  }

  std::string precision_text() const {
    const Precision precision = context_.options.precision;
    if (precision == Precision::kFloat32)
      return std::string(", float32, TF32 ") + (context_.options.tf32 ? "on" : "off");
    return std::string(", ") + precision_name(precision) +
           " activations and products, float32 master weights and batch-norm statistics";
  }

  static void check_count(const Dims& dims, std::size_t count) {
    if (std::int64_t(count) != element_count(dims))
      throw Error(std::to_string(count) + " values for a tensor of " + dims_text(dims),
                  "cuda backend", "host data holds one value per element of the tensor's shape");
  }

  Context context_;
  cuda::InputStager stager_{context_};
  cuda::SgdTable single_, all_;
  cuda::GradientCheck check_;
};

}  // namespace

std::string cuda_device_unavailable_reason() {
  int devices = 0;
  const cudaError_t result = cudaGetDeviceCount(&devices);
  if (result != cudaSuccess)
    return std::string("no usable CUDA driver: ") + cudaGetErrorString(result);
  if (devices == 0) return "no CUDA device";
  return {};
}

std::unique_ptr<Backend> make_cuda_backend(const CudaBackendOptions& options) {
  return std::make_unique<CudaBackend>(options);
}

}  // namespace parity::trainer
