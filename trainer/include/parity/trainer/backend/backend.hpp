// Backend: the seam between the trainer's models, losses and optimizers
// (written once) and the kernels that run them (oneDNN on CPU, cuDNN/cuBLAS
// on GPU). A backend makes layer ops; each op owns its parameters in the
// backend's chosen layout, keeps what its backward pass needs from the last
// training forward, and writes its parameters' gradients in backward.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parity/trainer/backend/tensor.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"

namespace parity::profiler {
class Recorder;
}

namespace parity::trainer {

enum class Mode { kTrain, kEval };

// A trainable tensor as an op keeps it: value, gradient and the optimizer's
// momentum share one layout, so the update is elementwise.
struct ParamTensors {
  Tensor value, grad, momentum;
};

// A named slot of an op's state, for the module that wraps it.
struct ParamSlot {
  std::string_view suffix;  // "weight", "bias"
  ParamTensors* tensors;
  Dims shape;               // torchvision's shape
  bool weight_decay;        // false for BN weight/bias and biases (the seeds' no-decay group)
};
struct BufferSlot {
  std::string_view suffix;  // "running_mean", "running_var"
  Tensor* tensor;
  Dims shape;
};

// One layer with a single input.
class LayerOp {
 public:
  virtual ~LayerOp() = default;
  virtual Tensor forward(const Tensor& x, Mode mode) = 0;
  // The gradient of the input from the gradient of the output of the last
  // training forward; writes the parameters' gradients. Returns an undefined
  // tensor when the op was made without an input gradient (the first conv).
  virtual Tensor backward(const Tensor& dy) = 0;
  virtual std::vector<ParamSlot> parameters() { return {}; }
  virtual std::vector<BufferSlot> buffers() { return {}; }
  // What it computes, as dumps name it: "conv2d", "batch_norm",
  // "batch_norm_relu", "relu", "max_pool", "avg_pool", "linear".
  virtual std::string_view kind() const = 0;
};

// y = relu(a + b): the end of a residual block. Both inputs get the same gradient.
class ResidualOp {
 public:
  virtual ~ResidualOp() = default;
  virtual Tensor forward(const Tensor& a, const Tensor& b, Mode mode) = 0;
  virtual Tensor backward(const Tensor& dy) = 0;
  virtual std::string_view kind() const { return "add_relu"; }
};

struct Conv2dSpec {
  std::int64_t in_channels = 0, out_channels = 0, kernel = 1, stride = 1, padding = 0;
  Dims input;                  // [N, C, H, W] of the training batch
  bool input_grad = true;      // false: backward computes only the weight gradient
  // Padding after the bottom and right edges when it differs from `padding`
  // (MindSpore's pad_mode="same" pads asymmetrically); -1: the same.
  std::int64_t padding_end = -1;

  std::int64_t end_padding() const { return padding_end < 0 ? padding : padding_end; }
  std::int64_t output_size(std::int64_t input_size) const {
    return (input_size + padding + end_padding() - kernel) / stride + 1;
  }
};
struct BatchNormSpec {
  std::int64_t channels = 0;
  double eps = 1e-5;
  double momentum = 0.1;  // PyTorch's: running = (1 - m) running + m batch
  bool fused_relu = false;
  Dims input;
};
struct PoolSpec {
  std::int64_t kernel = 3, stride = 2, padding = 1;
  Dims input;
};
struct LinearSpec {
  std::int64_t in_features = 0, out_features = 0;
  Dims input;  // [N, C, 1, 1] (after global average pooling) or [N, C]
};

// One SGD step for one parameter, with PyTorch's semantics:
//   g = grad / loss_scale + weight_decay * w
//   buf = first ? g : momentum * buf + (1 - dampening) * g
//   w -= lr * (nesterov ? g + momentum * buf : buf)
struct SgdStep {
  double lr = 0.1, momentum = 0.9, dampening = 0.0, weight_decay = 0.0, loss_scale = 1.0;
  bool nesterov = false;
  bool first = false;  // the momentum buffer holds nothing yet
};

// The loss of a batch with its gradient left where the backend keeps tensors.
struct BackendLoss {
  double loss = 0.0;          // mean over the batch, unscaled
  std::int64_t correct = 0;   // top-1 hits
  Tensor grad_logits;         // d(scale * loss) / d logits, [N, K]
};

struct BackendStats {
  std::uint64_t activation_reorders = 0;  // layout conversions of activations
  std::uint64_t weight_reorders = 0;      // layout conversions of parameters
  // Convolution primitives made with oneDNN's reference (non-JIT) kernels,
  // often 100 times slower: a shape or layout its JIT kernels refuse.
  std::uint64_t reference_kernels = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string describe() const = 0;  // library version, ISA, threads

  virtual std::unique_ptr<LayerOp> conv2d(const Conv2dSpec& spec) = 0;
  virtual std::unique_ptr<LayerOp> batch_norm(const BatchNormSpec& spec) = 0;
  virtual std::unique_ptr<LayerOp> relu() = 0;
  virtual std::unique_ptr<LayerOp> max_pool(const PoolSpec& spec) = 0;
  virtual std::unique_ptr<LayerOp> global_avg_pool() = 0;
  virtual std::unique_ptr<LayerOp> linear(const LinearSpec& spec) = 0;
  virtual std::unique_ptr<ResidualOp> residual_add_relu() = 0;

  // Host data in the plain logical layout, in and out.
  virtual Tensor from_host(const Dims& dims, std::span<const float> values) = 0;
  virtual std::vector<float> to_host(const Tensor& tensor) = 0;
  // The same into `values` (tensor.element_count() floats), for an observer
  // that reads many tensors every step and reuses one buffer: no allocation,
  // no page faults. The default copies what to_host returns.
  virtual void copy_to_host(const Tensor& tensor, std::span<float> values) {
    const std::vector<float> host = to_host(tensor);
    std::copy(host.begin(), host.end(), values.begin());
  }
  // Host data in float64, for a backend that keeps more than float32 (the
  // float64 reference backend: its to_host rounds). The default widens to_host.
  virtual std::vector<double> to_host_double(const Tensor& tensor) {
    const std::vector<float> host = to_host(tensor);
    return {host.begin(), host.end()};
  }
  // The tensor's elements where the backend keeps them, in its own order
  // (a blocked layout's, not the logical one), when they are float32 in host
  // memory with no padding between them; else nothing. For what does not
  // depend on the order (statistics), without a copy.
  virtual std::optional<std::span<const float>> host_elements(const Tensor& /*tensor*/) {
    return std::nullopt;
  }
  // The sign bits of the tensor's elements in the plain logical order, as
  // importers::pack_signs packs them, into `words`, read where the backend
  // keeps the tensor; false, the default, when it cannot (the caller packs
  // a host copy).
  virtual bool pack_signs(const Tensor& /*tensor*/, std::span<std::uint64_t> /*words*/) {
    return false;
  }
  virtual void write(const Tensor& tensor, std::span<const float> values) = 0;
  virtual void fill(const Tensor& tensor, float value) = 0;

  // a + b, for a tensor read by two consumers (a block's input).
  virtual Tensor add(const Tensor& a, const Tensor& b) = 0;
  virtual void sgd_update(ParamTensors& param, const SgdStep& step) = 0;
  // One optimizer step over many parameters (steps[i] for params[i]); a
  // backend may run them all as one pass (the CUDA backend: one kernel).
  virtual void sgd_update_all(std::span<ParamTensors* const> params, std::span<const SgdStep> steps) {
    for (std::size_t i = 0; i < params.size(); ++i) sgd_update(*params[i], steps[i]);
  }

  // Whether every gradient of `params` is finite (no Inf, no NaN): the loss
  // scaler's overflow check. Waits for the gradients (a GPU backend reads
  // back one count).
  virtual bool gradients_finite(std::span<ParamTensors* const> params) = 0;

  // Softmax cross-entropy of `logits` [N, K] against labels in [0, K), as
  // softmax_cross_entropy() defines it, computed where the logits are.
  virtual BackendLoss cross_entropy(const Tensor& logits, std::span<const std::int32_t> labels,
                                    const LossOptions& options) = 0;

  // Moves the gradients of `params`, in this order, into one contiguous
  // buffer, so that the gradients of consecutive parameters are one message
  // (a data-parallel bucket), and returns each one's storage in it: the
  // backend's own layout, padding included, identical on every rank of the
  // same build. Any gap between two spans is zero and stays zero, so a
  // message may cover it. Call it once, before training.
  virtual std::vector<std::span<float>> contiguous_gradients(std::span<ParamTensors* const> params) = 0;

  // THOR's arithmetic for these layers where this backend keeps its tensors;
  // null, the default, when the host engine (make_host_kronecker_engine) is
  // the one to use.
  virtual std::unique_ptr<KroneckerEngine> kronecker_engine(std::span<const KroneckerLayerShape> /*layers*/) {
    return nullptr;
  }

  // Waits until the work queued so far has finished (a GPU backend queues
  // asynchronously; the CPU backend has nothing queued).
  virtual void synchronize() {}

  virtual BackendStats stats() const = 0;
  // Where the backend records its own work that no module sees (a layout
  // conversion is a kOp range "reorder"); null, the default, records nothing.
  // The recorder must outlive the backend or be unset first.
  virtual void set_recorder(profiler::Recorder* /*recorder*/) {}
};

}  // namespace parity::trainer
